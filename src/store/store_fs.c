#include "store/store_fs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

enum s3c_err fs_open_read(const char *path, int *fd, uint64_t *size, int64_t *mtime_s,
                          struct s3c_error *e)
{
    struct stat st;
    int f = open(path, O_RDONLY | O_CLOEXEC);

    if (f < 0)
        return s3c_fail_errno(e, errno, "cannot open %s", path);
    if (fstat(f, &st) != 0) {
        int err = errno;
        close(f);
        return s3c_fail_errno(e, err, "cannot stat %s", path);
    }
    if (!S_ISREG(st.st_mode)) {
        close(f);
        return s3c_fail(e, S3C_EIO, "%s is not a regular file", path);
    }
    *fd = f;
    *size = (uint64_t)st.st_size;
    if (mtime_s)
        *mtime_s = (int64_t)st.st_mtim.tv_sec;
    return S3C_OK;
}

enum s3c_err fs_mkdir_parents(const char *path, struct s3c_error *e)
{
    struct buf p = BUF_INIT(65536);
    enum s3c_err rc = S3C_OK;
    size_t i;

    if (buf_adds(&p, path))
        return s3c_fail(e, S3C_ENOMEM, "path too long: %s", path);
    for (i = 1; i < p.len; i++) {
        struct stat st;

        if (p.data[i] != '/')
            continue;
        p.data[i] = '\0';
        if (mkdir(p.data, 0777) != 0 && errno != EEXIST) {
            rc = s3c_fail_errno(e, errno, "cannot create directory %s", p.data);
            break;
        }
        if (stat(p.data, &st) != 0 || !S_ISDIR(st.st_mode)) {
            rc = s3c_fail(e, S3C_EIO, "%s exists and is not a directory", p.data);
            break;
        }
        p.data[i] = '/';
    }
    buf_release(&p);
    return rc;
}

/* The directory whose parents were made last: most files share it, so
 * mkdir and stat run once per directory rather than once per file. */
static __thread char last_dir[4096];

/* mkdir -p of dst's directory, unless it is the one made last time. */
static enum s3c_err parents_of(const char *dst, size_t dir_len, struct s3c_error *e)
{
    enum s3c_err rc;

    if (dir_len < sizeof(last_dir) && dir_len && strncmp(last_dir, dst, dir_len) == 0 &&
        last_dir[dir_len] == '\0')
        return S3C_OK;
    rc = fs_mkdir_parents(dst, e);
    if (!rc && dir_len < sizeof(last_dir)) {
        memcpy(last_dir, dst, dir_len);
        last_dir[dir_len] = '\0';
    }
    return rc;
}

/* Mark 'fd' as a temp file being written (fs_tmp_in_use): a write lock on all of
 * it, released when it is closed. Best effort: a file system without such locks
 * leaves its temp files looking like the user's (never the other way round). */
static void tmp_lock(int fd)
{
    struct flock l = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0 };

    (void)fcntl(fd, F_OFD_SETLK, &l);
}

bool fs_tmp_in_use(int dfd, const char *name)
{
    struct flock l = { .l_type = F_RDLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0 };
    struct stat st;
    bool locked;
    int f;

    /* Only regular files are opened: opening a device or a FIFO may do something. */
    if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode))
        return false;
    f = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (f < 0)
        return false;
    locked = fcntl(f, F_OFD_GETLK, &l) == 0 && l.l_type != F_UNLCK;
    close(f);
    return locked;
}

enum s3c_err fs_tmp_create(const char *dst, uint64_t size, int *fd, struct buf *tmp_path,
                           struct s3c_error *e)
{
    const char *slash = strrchr(dst, '/');
    const char *base = slash ? slash + 1 : dst;
    size_t dir_len = slash ? (size_t)(slash - dst + 1) : 0;
    unsigned rnd;
    enum s3c_err rc;
    int f, tries;

    rc = parents_of(dst, dir_len, e);
    if (rc)
        return rc;
    for (tries = 0; tries < 16; tries++) {
        buf_reset(tmp_path);
        rnd = (unsigned)random() ^ (unsigned)getpid();
        /* NAME_MAX is 255: keep the temp name short whatever the base. */
        if (buf_add(tmp_path, dst, dir_len) ||
            buf_addf(tmp_path, ".s3c-%.180s.%08x.tmp", base, rnd))
            return s3c_fail(e, S3C_ENOMEM, "path too long: %s", dst);
        /* Read and write: a ranged download may re-read its bytes to hash them in order. */
        f = open(buf_cstr(tmp_path), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (f >= 0)
            break;
        if (errno == ENOENT && tries == 0) {
            /* The directory went away since we made it: make it again. */
            last_dir[0] = '\0';
            if ((rc = parents_of(dst, dir_len, e)))
                return rc;
            continue;
        }
        if (errno != EEXIST)
            return s3c_fail_errno(e, errno, "cannot create %s", buf_cstr(tmp_path));
    }
    if (f < 0)
        return s3c_fail(e, S3C_EIO, "cannot create a temp file for %s", dst);
    tmp_lock(f);
    /* Reserve space for large files (a full disk fails now, not halfway);
     * small ones are one write anyway. fallocate(2), not posix_fallocate:
     * where the file system cannot reserve (NFS before 4.2, many FUSE
     * mounts), glibc's posix_fallocate writes a byte to every block, a
     * synchronous write a block on the caller's thread (an event loop's);
     * fallocate(2) fails at once there, and the file is only sized. */
    if (size >= ((uint64_t)1 << 20)) {
        int r = fallocate(f, 0, 0, (off_t)size) == 0 ? 0 : errno;
        if (r == ENOSPC || r == EFBIG) {
            close(f);
            unlink(buf_cstr(tmp_path));
            return s3c_fail_errno(e, r, "cannot write %s", dst);
        }
        if (r != 0 && ftruncate(f, (off_t)size) != 0) {
            int err = errno;
            close(f);
            unlink(buf_cstr(tmp_path));
            return s3c_fail_errno(e, err, "cannot size %s", dst);
        }
    }
    *fd = f;
    return S3C_OK;
}

bool fs_tmp_is_for(const char *tmp_path, const char *dst)
{
    const char *ts = strrchr(tmp_path, '/'), *ds = strrchr(dst, '/');
    size_t tdir = ts ? (size_t)(ts - tmp_path + 1) : 0, ddir = ds ? (size_t)(ds - dst + 1) : 0;
    const char *tbase = tmp_path + tdir, *dbase = dst + ddir;
    size_t blen = strlen(dbase) > 180 ? 180 : strlen(dbase), tlen = strlen(tbase);

    /* ".s3c-" BASE "." 8 hex ".tmp" */
    return tdir == ddir && !strncmp(tmp_path, dst, tdir) && tlen == 5 + blen + 1 + 8 + 4 &&
           !strncmp(tbase, ".s3c-", 5) && !strncmp(tbase + 5, dbase, blen) && tbase[5 + blen] == '.' &&
           strspn(tbase + 6 + blen, "0123456789abcdef") == 8 && !strcmp(tbase + tlen - 4, ".tmp");
}

enum s3c_err fs_tmp_reopen(const char *tmp_path, uint64_t size, int *fd, struct s3c_error *e)
{
    struct stat st;
    int f = open(tmp_path, O_RDWR | O_CLOEXEC | O_NOFOLLOW);

    if (f < 0)
        return s3c_fail_errno(e, errno, "cannot open %s", tmp_path);
    if (fstat(f, &st) != 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_size != size) {
        close(f);
        return s3c_fail(e, S3C_EIO, "%s is not the temp file it was", tmp_path);
    }
    tmp_lock(f);
    *fd = f;
    return S3C_OK;
}

enum s3c_err fs_tmp_commit(int fd, const char *tmp_path, const char *dst, const struct fattr *a,
                           struct s3c_error *e)
{
    bool owned = false;

    if (a && (a->has_uid || a->has_gid) && geteuid() == 0)
        owned = fchown(fd, a->has_uid ? (uid_t)a->uid : (uid_t)-1, a->has_gid ? (gid_t)a->gid : (gid_t)-1) == 0;
    if (a && a->has_mode)
        (void)fchmod(fd, (mode_t)(owned ? a->mode & 07777 : a->mode & 01777));
    if (a && a->has_mtime) {
        struct timespec ts[2] = { { (time_t)a->mtime_s, a->mtime_ns }, { (time_t)a->mtime_s, a->mtime_ns } };
        futimens(fd, ts);
    }
    if (close(fd) != 0) {
        int err = errno;
        unlink(tmp_path);
        return s3c_fail_errno(e, err, "cannot write %s", dst);
    }
    if (rename(tmp_path, dst) != 0) {
        int err = errno;
        unlink(tmp_path);
        return s3c_fail_errno(e, err, "cannot rename into %s", dst);
    }
    return S3C_OK;
}

void fs_fattr_of(int fd, struct fattr *a, uint32_t *type_mode)
{
    struct stat st;

    *a = (struct fattr)FATTR_INIT;
    *type_mode = 0;
    if (fstat(fd, &st) != 0)
        return;
    a->has_mtime = a->has_mode = a->has_uid = a->has_gid = true;
    a->mtime_s = (int64_t)st.st_mtim.tv_sec;
    a->mtime_ns = (int32_t)st.st_mtim.tv_nsec;
    a->mode = (uint32_t)st.st_mode & 07777;
    a->uid = (uint32_t)st.st_uid;
    a->gid = (uint32_t)st.st_gid;
    *type_mode = (uint32_t)st.st_mode;
}

void fs_tmp_abort(int fd, const char *tmp_path)
{
    if (fd >= 0)
        close(fd);
    if (tmp_path && tmp_path[0])
        unlink(tmp_path);
}

enum s3c_err fs_pwrite_all(int fd, const void *p, size_t n, uint64_t off, const char *what,
                           struct s3c_error *e)
{
    const char *c = p;

    while (n) {
        ssize_t w = pwrite(fd, c, n, (off_t)off);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return s3c_fail_errno(e, errno, "cannot write %s", what);
        }
        c += w;
        n -= (size_t)w;
        off += (uint64_t)w;
    }
    return S3C_OK;
}

enum s3c_err fs_pread_all(int fd, void *p, size_t n, uint64_t off, const char *what,
                          struct s3c_error *e)
{
    char *c = p;

    while (n) {
        ssize_t r = pread(fd, c, n, (off_t)off);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            return s3c_fail_errno(e, errno, "cannot read %s", what);
        }
        if (r == 0)
            return s3c_fail(e, S3C_EIO, "%s changed while it was read (shorter than expected)", what);
        c += r;
        n -= (size_t)r;
        off += (uint64_t)r;
    }
    return S3C_OK;
}

long fs_raise_nofile(void)
{
    struct rlimit rl;

    if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
        return 1024;
    if (rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
        getrlimit(RLIMIT_NOFILE, &rl);
    }
    return rl.rlim_cur == RLIM_INFINITY ? 1L << 20 : (long)rl.rlim_cur;
}
