#include "xfer/journal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/hash.h"
#include "base/pct.h"

#define JOURNAL_MAX_BYTES (64 << 10)
#define JOURNAL_MAGIC "s3c-upload 1"

static const char *env_get(char *const *env, const char *name)
{
    size_t n = strlen(name);

    for (; env && *env; env++)
        if (!strncmp(*env, name, n) && (*env)[n] == '=')
            return *env + n + 1;
    return NULL;
}

enum s3c_err journal_dir(char *const *env, struct buf *out, struct s3c_error *e)
{
    const char *v;
    enum s3c_err rc;

    buf_reset(out);
    if ((v = env_get(env, "S3C_STATE_DIR")) && *v)
        rc = buf_adds(out, v);
    else if ((v = env_get(env, "XDG_STATE_HOME")) && *v == '/')
        rc = buf_addf(out, "%s/s3c", v);
    else if ((v = env_get(env, "HOME")) && *v)
        rc = buf_addf(out, "%s/.local/state/s3c", v);
    else
        return s3c_fail(e, S3C_ECONFIG, "no state directory for --resume (set S3C_STATE_DIR or HOME)");
    return rc ? s3c_fail(e, rc, "state directory path too long") : S3C_OK;
}

/* Uploads: DIR/<32 hex of sha256(bucket NUL key)>.upload; downloads (key NULL):
 * DIR/<32 hex of sha256(dest)>.download. */
static void record_path(const char *dir, const char *bucket, const char *key, char *out, size_t n)
{
    struct buf id = BUF_INIT(8192);
    char hex[2 * SHA256_LEN + 1];

    buf_adds(&id, bucket);
    if (key) {
        buf_addc(&id, '\0');
        buf_adds(&id, key);
    }
    hash_sha256_hex(id.data, id.len, hex);
    hex[32] = '\0';
    snprintf(out, n, "%s/%s.%s", dir, hex, key ? "upload" : "download");
    buf_release(&id);
}

/* mkdir -p with mode 0700 for what we create. */
static int mkdir_p(const char *dir)
{
    char p[4096];
    size_t i, n = strlen(dir);

    if (n >= sizeof(p))
        return -1;
    memcpy(p, dir, n + 1);
    for (i = 1; i <= n; i++) {
        if (p[i] != '/' && p[i] != '\0')
            continue;
        p[i] = '\0';
        if (mkdir(p, 0700) != 0 && errno != EEXIST)
            return -1;
        p[i] = i < n ? '/' : '\0';
    }
    return 0;
}

static enum s3c_err add_field(struct buf *b, const char *name, const char *value)
{
    if (buf_addf(b, "%s ", name) || pct_encode(sv_from(value), true, b) || buf_addc(b, '\n'))
        return S3C_ENOMEM;
    return S3C_OK;
}

/* Write 'b' to 'path' atomically: a reader sees the old record or the new one, whole. */
static enum s3c_err write_record(const char *dir, const char *path, const struct buf *b, struct s3c_error *e)
{
    char tmp[4400];
    enum s3c_err rc = S3C_OK;
    int fd;

    if (mkdir_p(dir) != 0)
        return s3c_fail_errno(e, errno, "cannot create the state directory %s", dir);
    snprintf(tmp, sizeof(tmp), "%s.%ld.tmp", path, (long)getpid());
    fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0 || write(fd, b->data, b->len) != (ssize_t)b->len || close(fd) != 0 || rename(tmp, path) != 0) {
        rc = s3c_fail_errno(e, errno, "cannot write the journal %s", path);
        if (fd >= 0)
            unlink(tmp);
    }
    return rc;
}

enum s3c_err journal_upload_save(const char *dir, const struct journal_upload *j, struct s3c_error *e)
{
    struct buf b = BUF_INIT(JOURNAL_MAX_BYTES);
    char path[4352];
    enum s3c_err rc;

    if (buf_adds(&b, JOURNAL_MAGIC "\n") || add_field(&b, "bucket", j->bucket) || add_field(&b, "key", j->key) ||
        add_field(&b, "upload_id", j->upload_id) || add_field(&b, "source", j->source) ||
        buf_addf(&b, "size %" PRIu64 "\nmtime_s %" PRId64 "\npart_size %" PRIu64 "\n", j->size, j->mtime_s,
                 j->part_size)) {
        buf_release(&b);
        return s3c_fail(e, S3C_ENOMEM, "journal record too long");
    }
    record_path(dir, j->bucket, j->key, path, sizeof(path));
    rc = write_record(dir, path, &b, e);
    buf_release(&b);
    return rc;
}

/* Decode a percent-encoded field value into a new string. */
static char *pct_decode_dup(const char *s)
{
    size_t n = strlen(s), i, o = 0;
    char *out = malloc(n + 1);

    if (!out)
        return NULL;
    for (i = 0; i < n; i++) {
        if (s[i] == '%' && i + 2 < n && pct_hexval(s[i + 1]) >= 0 && pct_hexval(s[i + 2]) >= 0) {
            out[o++] = (char)(pct_hexval(s[i + 1]) * 16 + pct_hexval(s[i + 2]));
            i += 2;
        } else {
            out[o++] = s[i];
        }
    }
    out[o] = '\0';
    return out;
}

/*
 * Read the record at 'path' into buf (JOURNAL_MAX_BYTES + 1) and check its
 * first line is 'magic'; *save is then ready for strtok_r over the fields.
 * 1: read; 0: no record; -1: unreadable, too large or not ours (e says which).
 */
static int read_record(const char *path, const char *magic, char *buf, char **save, struct s3c_error *e)
{
    const char *line;
    ssize_t n;
    int fd = open(path, O_RDONLY | O_CLOEXEC);

    if (fd < 0) {
        if (errno == ENOENT)
            return 0;
        s3c_fail_errno(e, errno, "cannot read the journal %s", path);
        return -1;
    }
    n = read(fd, buf, JOURNAL_MAX_BYTES);
    close(fd);
    if (n < 0 || n >= JOURNAL_MAX_BYTES) {
        s3c_fail(e, S3C_EPARSE, "journal %s: unreadable or too large", path);
        return -1;
    }
    buf[n] = '\0';
    line = strtok_r(buf, "\n", save);
    if (!line || strcmp(line, magic)) {
        s3c_fail(e, S3C_EPARSE, "journal %s is malformed", path);
        return -1;
    }
    return 1;
}

int journal_upload_load(const char *dir, const char *bucket, const char *key, struct journal_upload *out,
                        struct s3c_error *e)
{
    char path[4352], buf[JOURNAL_MAX_BYTES + 1];
    char *line, *save = NULL;
    int rc, fields = 0;

    memset(out, 0, sizeof(*out));
    record_path(dir, bucket, key, path, sizeof(path));
    if ((rc = read_record(path, JOURNAL_MAGIC, buf, &save, e)) <= 0)
        return rc;
    while ((line = strtok_r(NULL, "\n", &save))) {
        char *sp = strchr(line, ' ');
        char **dst = NULL;

        if (!sp)
            goto bad;
        *sp++ = '\0';
        if (!strcmp(line, "bucket"))
            dst = &out->bucket;
        else if (!strcmp(line, "key"))
            dst = &out->key;
        else if (!strcmp(line, "upload_id"))
            dst = &out->upload_id;
        else if (!strcmp(line, "source"))
            dst = &out->source;
        else if (!strcmp(line, "size"))
            out->size = strtoull(sp, NULL, 10);
        else if (!strcmp(line, "mtime_s"))
            out->mtime_s = strtoll(sp, NULL, 10);
        else if (!strcmp(line, "part_size"))
            out->part_size = strtoull(sp, NULL, 10);
        else
            continue;   /* a field of a later version */
        if (dst) {
            free(*dst);
            if (!(*dst = pct_decode_dup(sp)))
                goto bad;
        }
        fields++;
    }
    /* A record for another (bucket, key) that hashed alike is not ours. */
    if (fields < 7 || !out->bucket || !out->key || !out->upload_id || !out->source || !out->upload_id[0])
        goto bad;
    if (strcmp(out->bucket, bucket) || strcmp(out->key, key)) {
        journal_upload_release(out);
        return 0;
    }
    return 1;
bad:
    journal_upload_release(out);
    s3c_fail(e, S3C_EPARSE, "journal %s is malformed", path);
    return -1;
}

void journal_upload_remove(const char *dir, const char *bucket, const char *key, const char *upload_id)
{
    struct s3c_error e = S3C_ERROR_INIT;
    struct journal_upload j;
    char path[4352];
    int found;

    if (upload_id) {
        bool ours;

        if ((found = journal_upload_load(dir, bucket, key, &j, &e)) != 1)
            return;
        ours = !strcmp(j.upload_id, upload_id);
        journal_upload_release(&j);
        if (!ours)
            return; /* another upload's record: it goes when that one ends */
    }
    record_path(dir, bucket, key, path, sizeof(path));
    unlink(path);
}

/* The hidden lock file beside the record at 'record' (DIR/HEX.upload -> DIR/.HEX.upload.lock). */
static void lock_path(const char *record, char *out, size_t n)
{
    const char *base = strrchr(record, '/');

    base = base ? base + 1 : record;
    snprintf(out, n, "%.*s.%s.lock", (int)(base - record), record, base);
}

int journal_upload_lock(const char *dir, const char *bucket, const char *key)
{
    char path[4352], lock[4400];
    struct stat held, named;
    int fd, tries;

    if (mkdir_p(dir) != 0)
        return -1;
    record_path(dir, bucket, key, path, sizeof(path));
    lock_path(path, lock, sizeof(lock));
    /* The holder before us may have removed the lock file after we opened it
     * (journal_upload_unlock): a lock on a name that is gone holds nothing, so
     * take the file the name holds now. */
    for (tries = 0; tries < 8; tries++) {
        if ((fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0600)) < 0)
            return -1;
        if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
            int err = errno;
            close(fd);
            errno = err;
            return -1;
        }
        if (fstat(fd, &held) == 0 && stat(lock, &named) == 0 && held.st_dev == named.st_dev &&
            held.st_ino == named.st_ino)
            return fd;
        close(fd);
    }
    errno = EAGAIN;
    return -1;
}

void journal_upload_unlock(const char *dir, const char *bucket, const char *key, int fd)
{
    char path[4352], lock[4400];

    if (fd < 0)
        return;
    record_path(dir, bucket, key, path, sizeof(path));
    lock_path(path, lock, sizeof(lock));
    if (access(path, F_OK) != 0 && errno == ENOENT)
        unlink(lock); /* still ours: whoever opened it meanwhile takes the name anew */
    close(fd);
}

void journal_upload_release(struct journal_upload *j)
{
    free(j->bucket);
    free(j->key);
    free(j->upload_id);
    free(j->source);
    memset(j, 0, sizeof(*j));
}

/* ---- downloads ---------------------------------------------------------------------- */

#define JOURNAL_DL_MAGIC "s3c-download 1"

static uint32_t parts_of(uint64_t size, uint64_t part_size)
{
    uint64_t n = part_size ? (size + part_size - 1) / part_size : 0;
    return n <= 10000 ? (uint32_t)n : 0;
}

enum s3c_err journal_download_save(const char *dir, const struct journal_download *j, struct s3c_error *e)
{
    static const char hexd[] = "0123456789abcdef";
    struct buf b = BUF_INIT(JOURNAL_MAX_BYTES);
    char path[4352];
    enum s3c_err rc;
    uint32_t i;

    if (buf_adds(&b, JOURNAL_DL_MAGIC "\n") || add_field(&b, "dest", j->dest) ||
        add_field(&b, "bucket", j->bucket) || add_field(&b, "key", j->key) ||
        add_field(&b, "version", j->version ? j->version : "") || add_field(&b, "etag", j->etag) ||
        add_field(&b, "tmp", j->tmp) ||
        buf_addf(&b, "size %" PRIu64 "\nmtime_s %" PRId64 "\npart_size %" PRIu64 "\ndone ", j->size, j->mtime_s,
                 j->part_size))
        goto too_long;
    /* One hex digit per 4 parts, part 1 in the high bit of the first. */
    for (i = 0; i < j->n_parts; i += 4) {
        unsigned v = 0, k;
        for (k = 0; k < 4; k++)
            if (i + k < j->n_parts && j->done[i + k])
                v |= 8u >> k;
        if (buf_addc(&b, hexd[v]))
            goto too_long;
    }
    if (buf_addc(&b, '\n'))
        goto too_long;
    record_path(dir, j->dest, NULL, path, sizeof(path));
    rc = write_record(dir, path, &b, e);
    buf_release(&b);
    return rc;
too_long:
    buf_release(&b);
    return s3c_fail(e, S3C_ENOMEM, "journal record too long");
}

/* The 'done' field into out->done; false if it does not hold n_parts flags. */
static bool parse_done(const char *hex, struct journal_download *out)
{
    uint32_t i;

    if (strlen(hex) != (out->n_parts + 3) / 4 || !(out->done = calloc(out->n_parts ? out->n_parts : 1, 1)))
        return false;
    for (i = 0; i < out->n_parts; i++) {
        int v = pct_hexval(hex[i / 4]);
        if (v < 0)
            return false;
        out->done[i] = (uint8_t)((v >> (3 - i % 4)) & 1);
    }
    return true;
}

int journal_download_load(const char *dir, const char *dest, struct journal_download *out, struct s3c_error *e)
{
    char path[4352], buf[JOURNAL_MAX_BYTES + 1];
    char *line, *save = NULL, *done = NULL;
    int rc, fields = 0;

    memset(out, 0, sizeof(*out));
    record_path(dir, dest, NULL, path, sizeof(path));
    if ((rc = read_record(path, JOURNAL_DL_MAGIC, buf, &save, e)) <= 0)
        return rc;
    while ((line = strtok_r(NULL, "\n", &save))) {
        char *sp = strchr(line, ' ');
        char **dst = NULL;

        if (!sp)
            goto bad;
        *sp++ = '\0';
        if (!strcmp(line, "dest"))
            dst = &out->dest;
        else if (!strcmp(line, "bucket"))
            dst = &out->bucket;
        else if (!strcmp(line, "key"))
            dst = &out->key;
        else if (!strcmp(line, "version"))
            dst = &out->version;
        else if (!strcmp(line, "etag"))
            dst = &out->etag;
        else if (!strcmp(line, "tmp"))
            dst = &out->tmp;
        else if (!strcmp(line, "size"))
            out->size = strtoull(sp, NULL, 10);
        else if (!strcmp(line, "mtime_s"))
            out->mtime_s = strtoll(sp, NULL, 10);
        else if (!strcmp(line, "part_size"))
            out->part_size = strtoull(sp, NULL, 10);
        else if (!strcmp(line, "done"))
            done = sp;
        else
            continue;   /* a field of a later version */
        if (dst) {
            free(*dst);
            if (!(*dst = pct_decode_dup(sp)))
                goto bad;
        }
        fields++;
    }
    if (fields < 10 || !out->dest || !out->bucket || !out->key || !out->version || !out->etag || !out->tmp ||
        !done || out->tmp[0] != '/' || !out->size || !(out->n_parts = parts_of(out->size, out->part_size)) ||
        !parse_done(done, out))
        goto bad;
    /* A record for another destination that hashed alike is not ours. */
    if (strcmp(out->dest, dest)) {
        journal_download_release(out);
        return 0;
    }
    return 1;
bad:
    journal_download_release(out);
    s3c_fail(e, S3C_EPARSE, "journal %s is malformed", path);
    return -1;
}

void journal_download_remove(const char *dir, const char *dest)
{
    char path[4352];

    record_path(dir, dest, NULL, path, sizeof(path));
    unlink(path);
}

void journal_download_release(struct journal_download *j)
{
    free(j->dest);
    free(j->bucket);
    free(j->key);
    free(j->version);
    free(j->etag);
    free(j->tmp);
    free(j->done);
    memset(j, 0, sizeof(*j));
}
