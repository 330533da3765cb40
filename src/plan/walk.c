/*
 * The walk keeps one level per directory on the current path. Entering a
 * directory reads all its names into one block, classifies each as
 * "directory" (to be descended into, sorted as name + '/') or "other"
 * (stat'ed when its turn comes), and sorts them. A file's stat is taken when
 * it is yielded, so the size and mtime are as fresh as the walk allows.
 * Children are reached with *at() calls on the parent's descriptor, so
 * paths never grow past PATH_MAX and a renamed parent cannot redirect us.
 */
#include "plan/walk.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buf.h"
#include "fs/path.h"

enum name_type {
    NAME_OTHER,     /* file, special file or link to one: stat'ed when yielded */
    NAME_DIR,       /* directory, or followed link to one: sorts as name + '/' */
};

struct walk_name {
    const char *name;   /* into the level's block, NUL-terminated */
    size_t len;
    enum name_type type;
};

struct walk_level {
    DIR *dir;               /* open for the *at() calls on its children */
    dev_t dev;              /* this directory, for loop detection */
    ino_t ino;
    char *block;            /* every name, NUL-separated */
    struct walk_name *v;    /* sorted */
    size_t n;
    size_t next;            /* index of the next name to yield */
    size_t rel_len;         /* bytes of rel naming this directory, with its '/' */
};

struct walk {
    struct walk_opts o;
    struct walk_level *stack;
    size_t depth;
    size_t cap;
    struct buf rel;         /* the current relative path */
    bool single;            /* the root is not a directory: one entry */
    bool single_done;
    struct stat single_st;
    int single_errno;       /* the root file cannot be read */
};

/* Byte order of name (+ '/' for a directory): exactly the order of the keys beneath. */
static int name_cmp(const void *pa, const void *pb)
{
    const struct walk_name *a = pa, *b = pb;
    size_t n = a->len < b->len ? a->len : b->len;
    int c = memcmp(a->name, b->name, n), ca, cb;

    if (c)
        return c;
    ca = a->len > n ? (unsigned char)a->name[n] : a->type == NAME_DIR ? '/' : -1;
    cb = b->len > n ? (unsigned char)b->name[n] : b->type == NAME_DIR ? '/' : -1;
    return (ca > cb) - (ca < cb);
}

/* Set 'out' to an error entry for the current rel path; returns the code. */
static enum s3c_err entry_error(struct walk *w, struct walk_entry *out, struct s3c_error *e,
                                enum s3c_err code, int errnum, bool is_dir, const char *what)
{
    static const struct walk_entry init = WALK_ENTRY_INIT;

    /* A directory is named "dir/": its place in key order, before whatever follows its subtree. */
    if (is_dir && w->rel.len && w->rel.data[w->rel.len - 1] != '/')
        (void)buf_addc(&w->rel, '/');  /* at the cap: the bare name must do */
    *out = init;
    out->kind = WALK_ERROR;
    out->rel = buf_sv(&w->rel);
    out->sys_errno = errnum;
    out->mode = is_dir ? S_IFDIR : 0;
    if (code == S3C_EIO)
        return s3c_fail_errno(e, errnum, "%s \"%s\"", what, buf_cstr(&w->rel));
    s3c_fail(e, code, "%s \"%s\"", what, buf_cstr(&w->rel));
    if (e)
        e->sys_errno = errnum;
    return code;
}

static void fill_entry(struct walk *w, struct walk_entry *out, enum walk_kind kind, const struct stat *st)
{
    out->kind = kind;
    out->rel = buf_sv(&w->rel);
    out->size_bytes = kind == WALK_FILE ? (uint64_t)st->st_size : 0;
    out->mtime_sec = (int64_t)st->st_mtim.tv_sec;
    out->mtime_nsec = st->st_mtim.tv_nsec;
    out->ctime_sec = (int64_t)st->st_ctim.tv_sec;
    out->mode = st->st_mode;
    out->dev = st->st_dev;
    out->ino = st->st_ino;
    out->sys_errno = 0;
}

/* Set rel to its first 'len' bytes. */
static void rel_cut(struct walk *w, size_t len)
{
    w->rel.len = len;
    if (w->rel.data)
        w->rel.data[len] = '\0';
}

static void level_release(struct walk_level *l)
{
    if (l->dir)
        closedir(l->dir);
    free(l->block);
    free(l->v);
    memset(l, 0, sizeof(*l));
}

/*
 * Read and sort the names of the directory open as 'fd' into 'l' (which
 * takes the descriptor, success or not). Returns 0 or an errno value
 * (ENOMEM when the listing is over the cap or memory runs out).
 */
static int level_read(struct walk *w, int fd, struct walk_level *l)
{
    struct buf block = BUF_INIT(w->o.dir_max_bytes);
    struct walk_name *v = NULL, *nv;
    size_t n = 0, cap = 0, i, off, len;
    struct dirent *d;
    struct stat st;
    int err = 0, dfd;
    bool is_dir, skip;

    memset(l, 0, sizeof(*l));
    if (fstat(fd, &st) != 0) {
        err = errno;
        close(fd);
        return err;
    }
    l->dev = st.st_dev;
    l->ino = st.st_ino;
    l->dir = fdopendir(fd);
    if (!l->dir) {
        err = errno;
        close(fd);
        return err;
    }
    dfd = dirfd(l->dir);
    for (;;) {
        errno = 0;
        d = readdir(l->dir);
        if (!d) {
            err = errno;    /* 0 at the end */
            break;
        }
        if (d->d_name[0] == '.' && (d->d_name[1] == '\0' || (d->d_name[1] == '.' && d->d_name[2] == '\0')))
            continue;
        if (w->o.tmp_of && path_is_tmp_name(d->d_name)) {
            /* The name only says it may be one; what made it decides (walk.h). */
            enum walk_tmp t = w->o.tmp_of(w->o.tmp_ctx, dfd, d->d_name);
            if (t == WALK_TMP_LIVE || (t == WALK_TMP_KEPT && !w->o.tmp_files))
                continue;
        }
        is_dir = d->d_type == DT_DIR;
        skip = false;
        if (d->d_type == DT_LNK && !w->o.follow_symlinks)
            continue;   /* --no-follow-symlinks: skipped silently */
        if (d->d_type == DT_UNKNOWN || d->d_type == DT_LNK) {
            if (fstatat(dfd, d->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
                if (S_ISLNK(st.st_mode)) {
                    /* Not following: skip. Following: a link to a directory is one. */
                    skip = !w->o.follow_symlinks;
                    is_dir = !skip && fstatat(dfd, d->d_name, &st, 0) == 0 && S_ISDIR(st.st_mode);
                } else {
                    is_dir = S_ISDIR(st.st_mode);
                }
            } /* else: vanished or unreadable; reported when yielded */
        }
        if (skip)
            continue;
        len = strlen(d->d_name);
        /* The cap counts names and index together. */
        if (block.len + len + 1 + (n + 1) * sizeof(*v) > w->o.dir_max_bytes) {
            err = ENOMEM;
            break;
        }
        if (n == cap) {
            cap = cap ? 2 * cap : 64;
            nv = realloc(v, cap * sizeof(*v));
            if (!nv) {
                err = ENOMEM;
                break;
            }
            v = nv;
        }
        off = block.len;
        if (buf_add(&block, d->d_name, len + 1) != S3C_OK) {
            err = ENOMEM;
            break;
        }
        v[n].name = (const char *)(uintptr_t)off;   /* an offset until the block stops moving */
        v[n].len = len;
        v[n].type = is_dir ? NAME_DIR : NAME_OTHER;
        n++;
    }
    if (err) {
        free(v);
        buf_release(&block);
        closedir(l->dir);
        l->dir = NULL;
        return err;
    }
    l->block = buf_detach(&block);
    for (i = 0; i < n; i++)
        v[i].name = l->block + (uintptr_t)v[i].name;
    if (n > 1)
        qsort(v, n, sizeof(*v), name_cmp);
    l->v = v;
    l->n = n;
    return 0;
}

static enum s3c_err stack_push(struct walk *w, struct walk_level *l)
{
    struct walk_level *s;
    size_t cap;

    if (w->depth == w->cap) {
        cap = w->cap ? 2 * w->cap : 16;
        s = realloc(w->stack, cap * sizeof(*s));
        if (!s)
            return S3C_ENOMEM;
        w->stack = s;
        w->cap = cap;
    }
    w->stack[w->depth++] = *l;
    return S3C_OK;
}

/* Enter the directory named by the top level's name 'nm' (rel already names it). */
static enum s3c_err enter_dir(struct walk *w, const struct walk_name *nm, struct walk_entry *out,
                              struct s3c_error *e)
{
    struct walk_level *top = &w->stack[w->depth - 1], l;
    int flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC | (w->o.follow_symlinks ? 0 : O_NOFOLLOW);
    int fd, err;
    size_t i;
    struct stat st;

    fd = openat(dirfd(top->dir), nm->name, flags);
    if (fd < 0)
        return entry_error(w, out, e, S3C_EIO, errno, true, "cannot open directory");
    if (fstat(fd, &st) != 0) {
        err = errno;
        close(fd);
        return entry_error(w, out, e, S3C_EIO, err, true, "cannot stat directory");
    }
    for (i = 0; i < w->depth; i++) {
        if (w->stack[i].dev == st.st_dev && w->stack[i].ino == st.st_ino) {
            close(fd);
            return entry_error(w, out, e, S3C_EIO, ELOOP, true, "symlink loop at");
        }
    }
    err = level_read(w, fd, &l);
    if (err == ENOMEM)
        return entry_error(w, out, e, S3C_ENOMEM, err, true, "directory listing too large or out of memory:");
    if (err)
        return entry_error(w, out, e, S3C_EIO, err, true, "cannot read directory");
    if (buf_addc(&w->rel, '/') != S3C_OK || stack_push(w, &l) != S3C_OK) {
        level_release(&l);
        return entry_error(w, out, e, S3C_ENOMEM, ENOMEM, true, "path too long or out of memory:");
    }
    w->stack[w->depth - 1].rel_len = w->rel.len;
    return S3C_OK;
}

struct walk *walk_open(const char *root, const struct walk_opts *o, struct s3c_error *e)
{
    static const struct walk_opts defaults = WALK_OPTS_INIT;
    struct walk *w = calloc(1, sizeof(*w));
    struct walk_level l;
    const char *base;
    size_t n;
    int fd, err;

    if (!w) {
        s3c_fail(e, S3C_ENOMEM, "out of memory");
        return NULL;
    }
    w->o = o ? *o : defaults;
    if (!w->o.dir_max_bytes)
        w->o.dir_max_bytes = WALK_DIR_MAX_DEFAULT;
    w->rel = (struct buf)BUF_INIT(WALK_REL_MAX);
    if (stat(root, &w->single_st) != 0) {
        err = errno;
        if (err == ENOENT || err == ENOTDIR)
            s3c_fail(e, S3C_ENOTFOUND, "\"%s\" does not exist", root);
        else
            s3c_fail_errno(e, err, "cannot stat \"%s\"", root);
        goto fail;
    }
    if (!S_ISDIR(w->single_st.st_mode)) {
        /* One file: rel is its base name. */
        n = strlen(root);
        while (n > 1 && root[n - 1] == '/')
            n--;
        base = root + n;
        while (base > root && base[-1] != '/')
            base--;
        if (buf_add(&w->rel, base, (size_t)(root + n - base)) != S3C_OK) {
            s3c_fail(e, S3C_ENOMEM, "path too long or out of memory");
            goto fail;
        }
        w->single = true;
        if (S_ISREG(w->single_st.st_mode) && w->o.check_readable && access(root, R_OK) != 0)
            w->single_errno = errno;
        return w;
    }
    fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
        s3c_fail_errno(e, errno, "cannot open directory \"%s\"", root);
        goto fail;
    }
    err = level_read(w, fd, &l);
    if (err) {
        if (err == ENOMEM)
            s3c_fail(e, S3C_ENOMEM, "directory \"%s\": listing too large or out of memory", root);
        else
            s3c_fail_errno(e, err, "cannot read directory \"%s\"", root);
        goto fail;
    }
    if (stack_push(w, &l) != S3C_OK) {
        level_release(&l);
        s3c_fail(e, S3C_ENOMEM, "out of memory");
        goto fail;
    }
    return w;
fail:
    walk_close(w);
    return NULL;
}

enum s3c_err walk_next(struct walk *w, struct walk_entry *out, struct s3c_error *e)
{
    static const struct walk_entry init = WALK_ENTRY_INIT;
    struct walk_level *top;
    const struct walk_name *nm;
    struct stat st;
    enum s3c_err rc;
    int dfd;

    *out = init;
    if (w->single) {
        if (w->single_done)
            return S3C_OK;
        w->single_done = true;
        if (w->single_errno)
            return entry_error(w, out, e, S3C_EIO, w->single_errno, false, "cannot read");
        fill_entry(w, out, S_ISREG(w->single_st.st_mode) ? WALK_FILE : WALK_SPECIAL, &w->single_st);
        return S3C_OK;
    }
    while (w->depth > 0) {
        top = &w->stack[w->depth - 1];
        if (top->next == top->n) {
            level_release(top);
            w->depth--;
            continue;
        }
        nm = &top->v[top->next++];
        rel_cut(w, top->rel_len);
        if (buf_add(&w->rel, nm->name, nm->len) != S3C_OK)
            return entry_error(w, out, e, S3C_ENOMEM, ENAMETOOLONG, nm->type == NAME_DIR, "path too long:");
        if (w->o.keep && !w->o.keep(w->o.keep_ctx, buf_sv(&w->rel), nm->type == NAME_DIR))
            continue;
        if (nm->type == NAME_DIR) {
            rc = enter_dir(w, nm, out, e);
            if (rc)
                return rc;
            top = &w->stack[w->depth - 1];
            if (w->o.empty_dirs && top->n == 0 && fstat(dirfd(top->dir), &st) == 0) {
                fill_entry(w, out, WALK_EMPTY_DIR, &st); /* rel "dir/"; popped on the next call */
                return S3C_OK;
            }
            continue;
        }
        dfd = dirfd(top->dir);
        if (fstatat(dfd, nm->name, &st, w->o.follow_symlinks ? 0 : AT_SYMLINK_NOFOLLOW) != 0)
            return entry_error(w, out, e, S3C_EIO, errno, false, "cannot stat");
        if (S_ISLNK(st.st_mode))
            continue;   /* became a link since the listing; not following */
        if (S_ISDIR(st.st_mode))
            return entry_error(w, out, e, S3C_EIO, EISDIR, true, "changed into a directory during the walk:");
        if (!S_ISREG(st.st_mode)) {
            fill_entry(w, out, WALK_SPECIAL, &st);
            return S3C_OK;
        }
        if (w->o.check_readable && faccessat(dfd, nm->name, R_OK, AT_EACCESS) != 0)
            return entry_error(w, out, e, S3C_EIO, errno, false, "cannot read");
        fill_entry(w, out, WALK_FILE, &st);
        return S3C_OK;
    }
    rel_cut(w, 0);
    return S3C_OK;  /* WALK_END */
}

bool walk_root_is_dir(const struct walk *w)
{
    return !w->single;
}

void walk_close(struct walk *w)
{
    if (!w)
        return;
    while (w->depth > 0)
        level_release(&w->stack[--w->depth]);
    free(w->stack);
    buf_release(&w->rel);
    free(w);
}
