#include "xfer/journal.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/hash.h"
#include "base/pct.h"

#define JOURNAL_MAX_BYTES (64 << 10)

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

/* ---- the record format: one writer and one reader for both kinds ------------------- */

/*
 * A record is text: a line naming its kind and version (the magic), then one
 * "NAME VALUE" line per field, in the order of its kind's table. Strings are
 * percent-encoded (a value is one line whatever a name holds), numbers
 * decimal, a download's part flags hex, one digit per 4 parts (part 1 in the
 * high bit of the first). A reader skips a field it does not know (a later
 * version's) and needs every field it knows, once: a record it cannot read
 * whole is malformed, never a resume of what it could read.
 *
 * The format is as it was when each kind had a hand-written parser and
 * writer of its own, byte for byte, so that a record left by an earlier s3c
 * is resumed by a later one and the other way round; now each kind is a
 * table, read and written by the one reader and the one writer below.
 */
enum jf_type {
    JF_STR,   /* char *, percent-encoded; NULL is written as "" */
    JF_STR_OPT, /* a JF_STR added after records without it were written: written only when not
                   empty, read as "" when absent */
    JF_U64,   /* uint64_t, decimal digits */
    JF_I64,   /* int64_t, decimal digits after an optional '-' */
    JF_FLAGS, /* uint8_t *: one 0/1 flag per part, as many as the kind's count says */
};

struct jfield {
    const char *name;
    enum jf_type type;
    size_t off; /* of the value in the kind's struct */
};

#define JF_MAX 12

struct jkind {
    const char *magic;
    const struct jfield *fields; /* at most JF_MAX */
    size_t n_fields;
    size_t size;      /* of the kind's struct */
    size_t count_off; /* JF_FLAGS: of the uint32_t that counts the flags */
    /* After every field but the flags is read: do they make a record? Sets
     * what follows from them (a download's part count). */
    bool (*check)(void *rec);
};

#define JF_AT(rec, f, type) ((type *)(void *)((char *)(rec) + (f)->off))

static bool upload_check(void *rec)
{
    const struct journal_upload *j = rec;

    return j->upload_id[0] != '\0';
}

static const struct jfield upload_fields[] = {
    { "bucket", JF_STR, offsetof(struct journal_upload, bucket) },
    { "key", JF_STR, offsetof(struct journal_upload, key) },
    { "upload_id", JF_STR, offsetof(struct journal_upload, upload_id) },
    { "source", JF_STR, offsetof(struct journal_upload, source) },
    { "etag", JF_STR_OPT, offsetof(struct journal_upload, etag) },
    { "size", JF_U64, offsetof(struct journal_upload, size) },
    { "mtime_s", JF_I64, offsetof(struct journal_upload, mtime_s) },
    { "part_size", JF_U64, offsetof(struct journal_upload, part_size) },
};

_Static_assert(sizeof(upload_fields) / sizeof(upload_fields[0]) <= JF_MAX, "JF_MAX");

static const struct jkind upload_record = {
    "s3c-upload 1", upload_fields, sizeof(upload_fields) / sizeof(upload_fields[0]),
    sizeof(struct journal_upload), 0, upload_check,
};

/* Parts of part_size that make size: 1 to 10,000 (S3's limit), else 0. */
static uint32_t parts_of(uint64_t size, uint64_t part_size)
{
    uint64_t n = part_size ? (size + part_size - 1) / part_size : 0;
    return n <= 10000 ? (uint32_t)n : 0;
}

static bool download_check(void *rec)
{
    struct journal_download *j = rec;

    return j->tmp[0] == '/' && j->size && (j->n_parts = parts_of(j->size, j->part_size)) != 0;
}

static const struct jfield download_fields[] = {
    { "dest", JF_STR, offsetof(struct journal_download, dest) },
    { "bucket", JF_STR, offsetof(struct journal_download, bucket) },
    { "key", JF_STR, offsetof(struct journal_download, key) },
    { "version", JF_STR, offsetof(struct journal_download, version) },
    { "etag", JF_STR, offsetof(struct journal_download, etag) },
    { "tmp", JF_STR, offsetof(struct journal_download, tmp) },
    { "size", JF_U64, offsetof(struct journal_download, size) },
    { "mtime_s", JF_I64, offsetof(struct journal_download, mtime_s) },
    { "part_size", JF_U64, offsetof(struct journal_download, part_size) },
    { "done", JF_FLAGS, offsetof(struct journal_download, done) },
};

_Static_assert(sizeof(download_fields) / sizeof(download_fields[0]) <= JF_MAX, "JF_MAX");

static const struct jkind download_record = {
    "s3c-download 1", download_fields, sizeof(download_fields) / sizeof(download_fields[0]),
    sizeof(struct journal_download), offsetof(struct journal_download, n_parts), download_check,
};

static uint32_t flag_count(const struct jkind *k, const void *rec)
{
    return *(const uint32_t *)(const void *)((const char *)rec + k->count_off);
}

/* The flags as hex digits, 4 a digit, the first in the high bit. */
static enum s3c_err flags_write(const uint8_t *flags, uint32_t n, struct buf *b)
{
    static const char hexd[] = "0123456789abcdef";
    uint32_t i, k;

    for (i = 0; i < n; i += 4) {
        unsigned v = 0;
        for (k = 0; k < 4; k++)
            if (i + k < n && flags[i + k])
                v |= 8u >> k;
        if (buf_addc(b, hexd[v]))
            return S3C_ENOMEM;
    }
    return S3C_OK;
}

/* The text of 'rec', a record of kind 'k', into 'b' (capped at JOURNAL_MAX_BYTES). */
static enum s3c_err record_write(const struct jkind *k, const void *rec, struct buf *b)
{
    size_t i;

    if (buf_adds(b, k->magic) || buf_addc(b, '\n'))
        return S3C_ENOMEM;
    for (i = 0; i < k->n_fields; i++) {
        const struct jfield *f = &k->fields[i];
        const char *s;
        enum s3c_err rc = S3C_OK;

        if (f->type == JF_STR_OPT && !((s = *JF_AT(rec, f, char *const)) && s[0]))
            continue; /* none: the record is byte for byte the one an s3c before the field writes */
        if (buf_adds(b, f->name) || buf_addc(b, ' '))
            return S3C_ENOMEM;
        switch (f->type) {
        case JF_STR:
        case JF_STR_OPT:
            s = *JF_AT(rec, f, char *const);
            rc = pct_encode(sv_from(s ? s : ""), true, b);
            break;
        case JF_U64:
            rc = buf_addf(b, "%" PRIu64, *JF_AT(rec, f, const uint64_t));
            break;
        case JF_I64:
            rc = buf_addf(b, "%" PRId64, *JF_AT(rec, f, const int64_t));
            break;
        case JF_FLAGS:
            rc = flags_write(*JF_AT(rec, f, uint8_t *const), flag_count(k, rec), b);
            break;
        }
        if (rc || buf_addc(b, '\n'))
            return S3C_ENOMEM;
    }
    return S3C_OK;
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

/* A decimal number, all of 's' ('-' first only if 'sign'), that fits its type. */
static bool number_read(const char *s, bool sign, const struct jfield *f, void *rec)
{
    const char *digits = sign && *s == '-' ? s + 1 : s;
    char *end;

    if (*digits < '0' || *digits > '9')
        return false;
    errno = 0;
    if (sign)
        *JF_AT(rec, f, int64_t) = strtoll(s, &end, 10);
    else
        *JF_AT(rec, f, uint64_t) = strtoull(s, &end, 10);
    return errno == 0 && *end == '\0';
}

/* n flags from as many hex digits as flags_write makes of them. */
static bool flags_read(const char *hex, uint32_t n, uint8_t **out)
{
    uint32_t i;

    if (strlen(hex) != (n + 3) / 4 || !(*out = calloc(n ? n : 1, 1)))
        return false;
    for (i = 0; i < n; i++) {
        int v = pct_hexval(hex[i / 4]);
        if (v < 0)
            return false;
        (*out)[i] = (uint8_t)((v >> (3 - i % 4)) & 1);
    }
    return true;
}

/* One field's text 'v' into 'rec'. */
static bool field_read(const struct jkind *k, const struct jfield *f, const char *v, void *rec)
{
    switch (f->type) {
    case JF_STR:
    case JF_STR_OPT:
        return (*JF_AT(rec, f, char *) = pct_decode_dup(v)) != NULL;
    case JF_U64:
        return number_read(v, false, f, rec);
    case JF_I64:
        return number_read(v, true, f, rec);
    case JF_FLAGS:
        return flags_read(v, flag_count(k, rec), JF_AT(rec, f, uint8_t *));
    }
    return false;
}

/* Free what a record of kind 'k' holds and zero it. */
static void record_release(const struct jkind *k, void *rec)
{
    size_t i;

    for (i = 0; i < k->n_fields; i++)
        if (k->fields[i].type != JF_U64 && k->fields[i].type != JF_I64)
            free(*JF_AT(rec, &k->fields[i], void *));
    memset(rec, 0, k->size);
}

/* The text of a record of kind 'k' (cut in place) into 'rec', zeroed first:
 * false when it is not one whole (release 'rec' then too). */
static bool record_parse(const struct jkind *k, char *text, void *rec)
{
    const char *val[JF_MAX] = { 0 };
    char *line, *save = NULL;
    size_t i;

    memset(rec, 0, k->size);
    line = strtok_r(text, "\n", &save);
    if (!line || strcmp(line, k->magic))
        return false;
    while ((line = strtok_r(NULL, "\n", &save))) {
        char *sp = strchr(line, ' ');

        if (!sp)
            return false;
        *sp++ = '\0';
        for (i = 0; i < k->n_fields && strcmp(line, k->fields[i].name); i++)
            ;
        if (i == k->n_fields)
            continue; /* a field of a later version */
        if (val[i])
            return false; /* twice: neither is to be trusted */
        val[i] = sp;
    }
    /* The flags last: how many there are follows from the other fields. */
    for (i = 0; i < k->n_fields; i++) {
        if (!val[i] && k->fields[i].type == JF_STR_OPT)
            val[i] = "";
        if (!val[i] || (k->fields[i].type != JF_FLAGS && !field_read(k, &k->fields[i], val[i], rec)))
            return false;
    }
    if (!k->check(rec))
        return false;
    for (i = 0; i < k->n_fields; i++)
        if (k->fields[i].type == JF_FLAGS && !field_read(k, &k->fields[i], val[i], rec))
            return false;
    return true;
}

/* Write (replace) the record 'rec' of kind 'k' at 'path', atomically. */
static enum s3c_err record_save(const char *dir, const char *path, const struct jkind *k, const void *rec,
                                struct s3c_error *e)
{
    struct buf b = BUF_INIT(JOURNAL_MAX_BYTES);
    enum s3c_err rc;

    if (record_write(k, rec, &b))
        rc = s3c_fail(e, S3C_ENOMEM, "journal record too long");
    else
        rc = write_record(dir, path, &b, e);
    buf_release(&b);
    return rc;
}

/*
 * Read the record of kind 'k' at 'path' into 'rec'. 1: read (release it);
 * 0: no record; -1: unreadable, too large (JOURNAL_MAX_BYTES) or malformed
 * ('e' says which). Whose record it is, the caller checks.
 */
static int record_load(const char *path, const struct jkind *k, void *rec, struct s3c_error *e)
{
    char buf[JOURNAL_MAX_BYTES + 1];
    ssize_t n;
    int fd = open(path, O_RDONLY | O_CLOEXEC);

    memset(rec, 0, k->size);
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
    if (!record_parse(k, buf, rec)) {
        record_release(k, rec);
        s3c_fail(e, S3C_EPARSE, "journal %s is malformed", path);
        return -1;
    }
    return 1;
}

/* ---- uploads ------------------------------------------------------------------------ */

enum s3c_err journal_upload_save(const char *dir, const struct journal_upload *j, struct s3c_error *e)
{
    char path[4352];

    record_path(dir, j->bucket, j->key, path, sizeof(path));
    return record_save(dir, path, &upload_record, j, e);
}

int journal_upload_load(const char *dir, const char *bucket, const char *key, struct journal_upload *out,
                        struct s3c_error *e)
{
    char path[4352];
    int rc;

    record_path(dir, bucket, key, path, sizeof(path));
    if ((rc = record_load(path, &upload_record, out, e)) != 1)
        return rc;
    /* A record for another (bucket, key) that hashed alike is not ours. */
    if (strcmp(out->bucket, bucket) || strcmp(out->key, key)) {
        journal_upload_release(out);
        return 0;
    }
    return 1;
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
    record_release(&upload_record, j);
}

/* ---- downloads ---------------------------------------------------------------------- */

enum s3c_err journal_download_save(const char *dir, const struct journal_download *j, struct s3c_error *e)
{
    char path[4352];

    record_path(dir, j->dest, NULL, path, sizeof(path));
    return record_save(dir, path, &download_record, j, e);
}

int journal_download_load(const char *dir, const char *dest, struct journal_download *out, struct s3c_error *e)
{
    char path[4352];
    int rc;

    record_path(dir, dest, NULL, path, sizeof(path));
    if ((rc = record_load(path, &download_record, out, e)) != 1)
        return rc;
    /* A record for another destination that hashed alike is not ours. */
    if (strcmp(out->dest, dest)) {
        journal_download_release(out);
        return 0;
    }
    return 1;
}

void journal_download_remove(const char *dir, const char *dest)
{
    char path[4352];

    record_path(dir, dest, NULL, path, sizeof(path));
    unlink(path);
}

void journal_download_release(struct journal_download *j)
{
    record_release(&download_record, j);
}
