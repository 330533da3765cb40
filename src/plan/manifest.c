/*
 * --from-manifest: S3 Inventory reports and plain key lists as entry
 * streams. What it must not do: hold a whole data file or report in memory
 * (one row at a time; an s3:// file goes through an unlinked temp file), or
 * trust a row: every field is checked, a bad row fails the read.
 */
#include "plan/manifest.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "base/pct.h"
#include "s3/uri.h"
#include "s3/xml.h"

#define FETCH_ERROR_BODY_MAX (1u << 20)
#define INVENTORY_COLS_MAX 64

/*
 * GET s3://bucket/key into an unlinked temp file, driven by polls
 * (store_s3_async): its retries' backoff is a time, not a wait, so the
 * engine's loop goes on while a data file comes. The body is written to
 * the file from the sink, on the loop's thread (in curl's callback), as
 * the engine writes a download's bytes there (src/xfer/loops.c: pwrite of
 * bodies is loop work); so are the file's mkstemp and unlink, once a data
 * file, and a failed try's ftruncate. What a loop never does here is wait
 * for the request: no step of the loop, no nap.
 */
struct fetch {
    struct store_s3_async a;
    struct http_xfer x;
    struct buf where;           /* "bucket\0key": the request's strings */
    int fd;                     /* the temp file; -1: none */
    size_t file;                /* the data file it is (an inventory's files[]) */
    bool on;                    /* a request is in 'a' */
};

struct manifest {
    struct store_s3 *s3;
    char *path;                 /* as given */
    bool inventory;
    /* An inventory: the report and where its data files are. */
    json_t *json;
    size_t n_files, i_file;
    char *dest_bucket;          /* s3:// report: the bucket its data files are in */
    char *local_dir;            /* local report: the manifest's directory */
    int col_bucket, col_key, col_size, col_mtime, col_etag, col_latest, col_delete;
    /* The s3:// file on its way (the next data file, fetched while the
     * rows of the one before are read). */
    struct fetch fetch;
    bool nonblock;              /* manifest_next answers MANIFEST_LATER while a file is out */
    bool opening;               /* an s3:// manifest's own GET is in 'fetch': read when it is in */
    bool opened;                /* its own file was read */
    /* The file being read. */
    gzFile gz;
    char *name;                 /* its name, for messages */
    uint64_t line_no;
    char line[MANIFEST_LINE_MAX];
    struct buf scratch, key, bucket, etag;
};

/* ---- the pure parts ---------------------------------------------------------------- */

bool manifest_csv_split(struct sv row, struct sv *fields, size_t max, size_t *n, struct buf *scratch)
{
    size_t i = 0, starts[INVENTORY_COLS_MAX], k;

    buf_reset(scratch);
    *n = 0;
    if (max > INVENTORY_COLS_MAX)
        max = INVENTORY_COLS_MAX;
    for (;;) {
        if (*n >= max)
            return false;
        starts[*n] = scratch->len;
        if (i < row.n && row.p[i] == '"') {
            for (i++;; i++) {
                if (i >= row.n)
                    return false; /* an open quote */
                if (row.p[i] == '"') {
                    if (i + 1 < row.n && row.p[i + 1] == '"') {
                        if (buf_addc(scratch, '"'))
                            return false;
                        i++;
                        continue;
                    }
                    i++;
                    break;
                }
                if (buf_addc(scratch, row.p[i]))
                    return false;
            }
        } else {
            while (i < row.n && row.p[i] != ',') {
                if (row.p[i] == '"' || buf_addc(scratch, row.p[i]))
                    return false;
                i++;
            }
        }
        if (buf_addc(scratch, '\0'))
            return false;
        (*n)++;
        if (i >= row.n)
            break;
        if (row.p[i] != ',')
            return false; /* text after a closing quote */
        i++;
    }
    for (k = 0; k < *n; k++)
        fields[k] = sv_from(scratch->data + starts[k]);
    return true;
}

bool manifest_url_decode(struct sv in, struct buf *out)
{
    size_t i;

    buf_reset(out);
    for (i = 0; i < in.n; i++) {
        char c = in.p[i];

        if (c == '+') {
            c = ' ';
        } else if (c == '%') {
            int hi = i + 2 < in.n ? pct_hexval(in.p[i + 1]) : -1;
            int lo = hi < 0 ? -1 : pct_hexval(in.p[i + 2]);

            if (hi < 0 || lo < 0 || (hi | lo) == 0)
                return false;
            c = (char)(hi * 16 + lo);
            i += 2;
        } else if (c == '\0') {
            return false;
        }
        if (buf_addc(out, c))
            return false;
    }
    return true;
}

/* ---- opening files, local or in S3 -------------------------------------------------- */

static enum http_sink_verdict to_fd(void *ctx, const char *p, size_t n)
{
    int fd = *(int *)ctx;

    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return HTTP_SINK_ABORT;
        p += w;
        n -= (size_t)w;
    }
    return HTTP_SINK_OK;
}

/* A failed try's bytes are dropped: the next starts the file over. */
static enum s3c_err fetch_rewind(void *ctx, struct s3c_error *e)
{
    struct fetch *f = ctx;

    if (ftruncate(f->fd, 0) || lseek(f->fd, 0, SEEK_SET) < 0)
        return s3c_fail_errno(e, errno, "cannot reuse the temp file of s3://%s/%s", f->where.data,
                              f->where.data + strlen(f->where.data) + 1);
    return S3C_OK;
}

static void fetch_release(struct manifest *m, struct fetch *f)
{
    if (f->on)
        store_s3_async_release(m->s3, &f->a); /* one still out is cut off */
    f->on = false;
    http_xfer_release(&f->x);
    if (f->fd >= 0)
        close(f->fd);
    f->fd = -1;
}

/* Start the GET of s3://bucket/key into 'f' (released); 'file' names it for the caller. */
static enum s3c_err fetch_start(struct manifest *m, struct fetch *f, const char *bucket, const char *key, size_t file,
                                struct s3c_error *e)
{
    struct s3_req r = { .method = "GET" };
    const char *tmp = getenv("TMPDIR");
    char path[4096];

    if (!m->s3)
        return s3c_fail(e, S3C_EUSAGE, "s3://%s/%s: no S3 store to read it from", bucket, key);
    buf_reset(&f->where);
    if (buf_adds(&f->where, bucket) || buf_addc(&f->where, '\0') || buf_adds(&f->where, key) ||
        buf_addc(&f->where, '\0'))
        return s3c_fail(e, S3C_ENOMEM, "out of memory");
    snprintf(path, sizeof(path), "%s/s3c-manifest.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    f->fd = mkstemp(path);
    if (f->fd < 0)
        return s3c_fail_errno(e, errno, "cannot make a temp file for s3://%s/%s", bucket, key);
    unlink(path);
    r.bucket = f->where.data;
    r.key = f->where.data + strlen(bucket) + 1;
    memset(&f->x, 0, sizeof(f->x));
    f->x.sink = to_fd;
    f->x.sink_ctx = &f->fd;
    f->x.body_max = FETCH_ERROR_BODY_MAX;
    f->a = (struct store_s3_async)STORE_S3_ASYNC_INIT;
    f->a.rewind = fetch_rewind;
    f->a.rewind_ctx = f;
    store_s3_async_start(m->s3, &r, &f->x, &f->a);
    f->on = true;
    f->file = file;
    return S3C_OK;
}

/*
 * The fetch's file as a gzFile (gzip'd or not), once it is in: NULL with
 * *later set while it is out and 'wait' is false; else NULL with 'e' set
 * when it failed. Either way but later, 'f' is released after.
 */
static gzFile fetch_take(struct manifest *m, struct fetch *f, bool wait, bool *later, struct s3c_error *e)
{
    gzFile gz = NULL;

    *later = false;
    if (!store_s3_async_poll(m->s3, &f->a)) {
        if (!wait) {
            *later = true;
            return NULL;
        }
        store_s3_async_wait(m->s3, &f->a);
    }
    if (f->a.rc) {
        *e = f->a.err;
        if (!e->code)
            s3c_fail(e, S3C_ENET, "cannot read s3://%s/%s", f->where.data, f->where.data + strlen(f->where.data) + 1);
    } else if (lseek(f->fd, 0, SEEK_SET) < 0) {
        s3c_fail_errno(e, errno, "cannot read the temp file of s3://%s/%s", f->where.data,
                       f->where.data + strlen(f->where.data) + 1);
    } else if (!(gz = gzdopen(f->fd, "rb"))) {
        s3c_fail(e, S3C_ENOMEM, "out of memory");
    } else {
        f->fd = -1; /* the gzFile's now */
    }
    fetch_release(m, f);
    return gz;
}

/*
 * Open 'path' for reading, gzip'd or not: a local file at once (into m->gz);
 * an s3:// one starts its GET into m->fetch, taken by fetch_take.
 */
static enum s3c_err open_any(struct manifest *m, const char *path, struct s3c_error *e)
{
    struct s3_uri u = S3_URI_INIT;
    enum s3c_err rc;

    if (!s3_uri_is(path)) {
        m->gz = gzopen(path, "rb");
        if (!m->gz)
            return s3c_fail_errno(e, errno ? errno : EIO, "--from-manifest: cannot open %s", path);
        return S3C_OK;
    }
    if ((rc = s3_uri_parse(path, &u, e)))
        return rc;
    if (!u.bucket[0] || !u.key[0])
        rc = s3c_fail(e, S3C_EUSAGE, "--from-manifest: %s names no object", path);
    else
        rc = fetch_start(m, &m->fetch, u.bucket, u.key, 0, e);
    s3_uri_release(&u);
    return rc;
}

static void close_file(struct manifest *m)
{
    if (m->gz)
        gzclose(m->gz);
    m->gz = NULL;
    free(m->name);
    m->name = NULL;
    m->line_no = 0;
}

/* ---- an inventory report ------------------------------------------------------------ */

static enum s3c_err read_columns(struct manifest *m, const char *schema, struct s3c_error *e)
{
    const char *p = schema;
    int i = 0;

    m->col_bucket = m->col_key = m->col_size = m->col_mtime = m->col_etag = m->col_latest = m->col_delete = -1;
    while (*p && i < INVENTORY_COLS_MAX) {
        size_t n;

        while (*p == ' ' || *p == ',')
            p++;
        n = strcspn(p, ", ");
        if (!n)
            break;
#define COL(name, field) else if (n == sizeof(name) - 1 && !strncmp(p, name, n)) m->field = i
        if (0) {
        }
        COL("Bucket", col_bucket);
        COL("Key", col_key);
        COL("Size", col_size);
        COL("LastModifiedDate", col_mtime);
        COL("ETag", col_etag);
        COL("IsLatest", col_latest);
        COL("IsDeleteMarker", col_delete);
#undef COL
        p += n;
        i++;
    }
    if (m->col_key < 0)
        return s3c_fail(e, S3C_EPARSE, "--from-manifest %s: its fileSchema has no Key column", m->path);
    return S3C_OK;
}

static enum s3c_err open_inventory(struct manifest *m, struct buf *text, struct s3c_error *e)
{
    json_error_t je;
    json_t *files, *fmt, *schema, *dest;

    m->json = json_loadb(text->data, text->len, 0, &je);
    if (!m->json || !json_is_object(m->json))
        return s3c_fail(e, S3C_EPARSE, "--from-manifest %s: not a JSON object (line %d: %.80s)", m->path, je.line,
                        je.text);
    fmt = json_object_get(m->json, "fileFormat");
    schema = json_object_get(m->json, "fileSchema");
    files = json_object_get(m->json, "files");
    dest = json_object_get(m->json, "destinationBucket");
    if (!json_is_string(fmt) || strcmp(json_string_value(fmt), "CSV") != 0)
        return s3c_fail(e, S3C_EUSAGE, "--from-manifest %s: only CSV inventory reports are read (fileFormat %s)",
                        m->path, json_is_string(fmt) ? json_string_value(fmt) : "missing");
    if (!json_is_string(schema) || !json_is_array(files))
        return s3c_fail(e, S3C_EPARSE, "--from-manifest %s: no fileSchema or files", m->path);
    if (read_columns(m, json_string_value(schema), e))
        return e->code;
    m->n_files = json_array_size(files);
    if (s3_uri_is(m->path)) {
        /* "arn:aws:s3:::bucket", or a bare name. */
        const char *d = json_is_string(dest) ? json_string_value(dest) : "";
        const char *colon = strrchr(d, ':');
        struct s3_uri u = S3_URI_INIT;

        if (colon)
            d = colon + 1;
        if (!*d && !s3_uri_parse(m->path, &u, e))
            d = u.bucket;
        m->dest_bucket = strdup(d);
        s3_uri_release(&u);
    } else {
        const char *slash = strrchr(m->path, '/');
        m->local_dir = slash ? strndup(m->path, (size_t)(slash - m->path)) : strdup(".");
    }
    if (!m->dest_bucket && !m->local_dir)
        return s3c_fail(e, S3C_ENOMEM, "out of memory");
    m->inventory = true;
    return S3C_OK;
}

/* The key of data file i of the report. */
static enum s3c_err data_key(struct manifest *m, size_t i, const char **key, struct s3c_error *e)
{
    json_t *k = json_object_get(json_array_get(json_object_get(m->json, "files"), i), "key");

    if (!json_is_string(k))
        return s3c_fail(e, S3C_EPARSE, "--from-manifest %s: files[%zu] has no key", m->path, i);
    *key = json_string_value(k);
    return S3C_OK;
}

/*
 * Open data file i of the report: 0, -1 with 'e' set, or MANIFEST_LATER
 * while an s3:// one is on its way (nonblock). Once one is in, the next
 * is fetched while its rows are read: the engine seldom waits for one.
 */
static int open_data(struct manifest *m, size_t i, struct s3c_error *e)
{
    const char *key, *base, *next;
    char path[8192];

    if (data_key(m, i, &key, e))
        return -1;
    base = strrchr(key, '/') ? strrchr(key, '/') + 1 : key;
    if (m->dest_bucket) {
        struct s3c_error pe = S3C_ERROR_INIT;
        bool later;

        if (!m->fetch.on || m->fetch.file != i) {
            fetch_release(m, &m->fetch);
            if (fetch_start(m, &m->fetch, m->dest_bucket, key, i, e)) {
                fetch_release(m, &m->fetch);
                return -1;
            }
        }
        m->gz = fetch_take(m, &m->fetch, !m->nonblock, &later, e);
        if (later)
            return MANIFEST_LATER; /* the engine steps the loop: the file comes in meanwhile */
        if (!m->gz)
            return -1;
        snprintf(path, sizeof(path), "s3://%s/%s", m->dest_bucket, key);
        /* The next file on its way now (a failure to start it is met again in its turn). */
        if (i + 1 < m->n_files && !data_key(m, i + 1, &next, &pe) &&
            fetch_start(m, &m->fetch, m->dest_bucket, next, i + 1, &pe))
            fetch_release(m, &m->fetch);
    } else {
        static const char *const where[] = { "%s/../data/%s", "%s/data/%s", "%s/%s" };
        size_t w;

        for (w = 0; w < 3; w++) {
            snprintf(path, sizeof(path), where[w], m->local_dir, base);
            if (access(path, R_OK) == 0)
                break;
        }
        if (w == 3) {
            s3c_fail(e, S3C_ENOTFOUND, "--from-manifest %s: its data file %s is not in %s/../data, %s/data or %s",
                     m->path, base, m->local_dir, m->local_dir, m->local_dir);
            return -1;
        }
        if (open_any(m, path, e))
            return -1;
    }
    m->name = strdup(path);
    if (!m->name) {
        s3c_fail(e, S3C_ENOMEM, "out of memory");
        return -1;
    }
    return 0;
}

static bool field_true(const struct sv *f, size_t n, int col)
{
    return col >= 0 && (size_t)col < n && f[col].n == 4 && !strncmp(f[col].p, "true", 4);
}

/* One row into 'out': 1, 0 to skip it, -1 on a bad row. */
static int inventory_row(struct manifest *m, struct sv row, struct manifest_entry *out, struct s3c_error *e)
{
    struct sv f[INVENTORY_COLS_MAX];
    size_t n;

    if (!manifest_csv_split(row, f, INVENTORY_COLS_MAX, &n, &m->scratch) || (size_t)m->col_key >= n)
        goto bad;
    if (field_true(f, n, m->col_delete) || (m->col_latest >= 0 && (size_t)m->col_latest < n &&
                                             !field_true(f, n, m->col_latest)))
        return 0;
    if (!manifest_url_decode(f[m->col_key], &m->key))
        goto bad;
    buf_reset(&m->bucket);
    buf_reset(&m->etag);
    if (m->col_bucket >= 0 && (size_t)m->col_bucket < n && buf_addsv(&m->bucket, f[m->col_bucket]))
        goto bad;
    memset(out, 0, sizeof(*out));
    out->key = buf_cstr(&m->key);
    out->bucket = buf_cstr(&m->bucket);
    out->etag = "";
    if (m->col_size >= 0 && m->col_mtime >= 0 && (size_t)m->col_size < n && (size_t)m->col_mtime < n) {
        if (!sv_to_u64(f[m->col_size], &out->size) || !s3_xml_time_parse(f[m->col_mtime], &out->mtime))
            goto bad;
        out->has_attrs = true;
    }
    if (m->col_etag >= 0 && (size_t)m->col_etag < n && f[m->col_etag].n) {
        if (buf_addc(&m->etag, '"') || buf_addsv(&m->etag, f[m->col_etag]) || buf_addc(&m->etag, '"'))
            goto bad;
        out->etag = buf_cstr(&m->etag);
    }
    return 1;
bad:
    s3c_fail(e, S3C_EPARSE, "--from-manifest: %s, row %llu: not a row of the report's schema", m->name,
             (unsigned long long)m->line_no);
    return -1;
}

/* ---- a plain list ------------------------------------------------------------------ */

static int list_line(struct manifest *m, struct sv line, struct manifest_entry *out, struct s3c_error *e)
{
    memset(out, 0, sizeof(*out));
    buf_reset(&m->bucket);
    buf_reset(&m->key);
    out->etag = "";
    if (line.n > 5 && !strncmp(line.p, "s3://", 5)) {
        const char *slash = memchr(line.p + 5, '/', line.n - 5);
        if (!slash || slash == line.p + 5 || buf_add(&m->bucket, line.p + 5, (size_t)(slash - line.p - 5)))
            goto bad;
        line = (struct sv){ slash + 1, line.n - (size_t)(slash + 1 - line.p) };
    }
    if (!line.n || memchr(line.p, '\0', line.n) || buf_addsv(&m->key, line))
        goto bad;
    out->bucket = buf_cstr(&m->bucket);
    out->key = buf_cstr(&m->key);
    return 1;
bad:
    s3c_fail(e, S3C_EPARSE, "--from-manifest: %s, line %llu: not a key", m->path, (unsigned long long)m->line_no);
    return -1;
}

/* ---- the stream -------------------------------------------------------------------- */

/*
 * The open's second half, once the manifest's file is open in m->gz: a JSON
 * object is an inventory's manifest.json (read whole, then its first data
 * file is asked for in manifest_next); anything else a key list, read on.
 */
static enum s3c_err open_read(struct manifest *m, struct s3c_error *e)
{
    struct buf text = BUF_INIT(MANIFEST_JSON_MAX);
    enum s3c_err rc = S3C_OK;
    int c;

    m->name = strdup(m->path);
    if (!m->name)
        return s3c_fail(e, S3C_ENOMEM, "out of memory");
    while ((c = gzgetc(m->gz)) == ' ' || c == '\n' || c == '\r' || c == '\t')
        ;
    if (c != '{') {
        if (c != -1)
            gzungetc(c, m->gz);
        return S3C_OK;
    }
    do {
        char chunk[65536];
        int n;

        if (buf_addc(&text, (char)c)) {
            rc = s3c_fail(e, S3C_ENOMEM, "--from-manifest %s: over %u bytes", m->path, MANIFEST_JSON_MAX);
            goto out;
        }
        while ((n = gzread(m->gz, chunk, sizeof(chunk))) > 0)
            if (buf_add(&text, chunk, (size_t)n)) {
                rc = s3c_fail(e, S3C_ENOMEM, "--from-manifest %s: over %u bytes", m->path, MANIFEST_JSON_MAX);
                goto out;
            }
    } while (0);
    close_file(m);
    rc = open_inventory(m, &text, e);
out:
    buf_release(&text);
    return rc;
}

/*
 * Finish opening an s3:// manifest whose GET is out (m->opening): 0 once
 * it is read, MANIFEST_LATER while it is out and 'wait' is false, -1 with
 * 'e' set when it could not be read.
 */
static int open_finish(struct manifest *m, bool wait, struct s3c_error *e)
{
    bool later;

    m->gz = fetch_take(m, &m->fetch, wait, &later, e);
    if (later)
        return MANIFEST_LATER;
    m->opening = false;
    if (!m->gz || open_read(m, e))
        return -1;
    m->opened = true;
    return 0;
}

struct manifest *manifest_open(const char *path, struct store_s3 *s3, bool nonblock, struct s3c_error *e)
{
    struct manifest *m = calloc(1, sizeof(*m));

    if (!m || !(m->path = strdup(path))) {
        free(m);
        s3c_fail(e, S3C_ENOMEM, "out of memory");
        return NULL;
    }
    m->s3 = s3;
    m->nonblock = nonblock;
    m->fetch.fd = -1;
    m->fetch.where = (struct buf)BUF_INIT(2 * MANIFEST_LINE_MAX);
    m->scratch = (struct buf)BUF_INIT(2 * MANIFEST_LINE_MAX);
    m->key = (struct buf)BUF_INIT(MANIFEST_LINE_MAX);
    m->bucket = (struct buf)BUF_INIT(MANIFEST_LINE_MAX);
    m->etag = (struct buf)BUF_INIT(MANIFEST_LINE_MAX);
    if (open_any(m, path, e))
        goto fail;
    if (m->gz) {
        if (open_read(m, e))
            goto fail;
        m->opened = true;
        return m;
    }
    m->opening = true; /* s3://: its GET is out */
    if (!nonblock && open_finish(m, true, e))
        goto fail;
    return m;
fail:
    manifest_free(m);
    return NULL;
}

int manifest_next(struct manifest *m, struct manifest_entry *out, struct s3c_error *e)
{
    int r;

    if (m->opening && (r = open_finish(m, !m->nonblock, e)))
        return r == MANIFEST_LATER ? r : -1;
    for (;;) {
        size_t n;

        if (!m->gz) {
            if (!m->inventory || m->i_file >= m->n_files)
                return 0;
            if ((r = open_data(m, m->i_file, e)))
                return r == MANIFEST_LATER ? r : -1;
            m->i_file++;
        }
        if (!gzgets(m->gz, m->line, sizeof(m->line))) {
            int err;
            const char *msg = gzerror(m->gz, &err);
            if (err && err != Z_STREAM_END) {
                s3c_fail(e, S3C_EIO, "--from-manifest: %s: %s", m->name, msg);
                return -1;
            }
            close_file(m);
            if (!m->inventory)
                return 0;
            continue;
        }
        m->line_no++;
        n = strlen(m->line);
        if (n == sizeof(m->line) - 1 && m->line[n - 1] != '\n') {
            s3c_fail(e, S3C_EPARSE, "--from-manifest: %s, line %llu: over %u bytes", m->name,
                     (unsigned long long)m->line_no, MANIFEST_LINE_MAX);
            return -1;
        }
        while (n && (m->line[n - 1] == '\n' || m->line[n - 1] == '\r'))
            n--;
        if (!n)
            continue;
        r = m->inventory ? inventory_row(m, (struct sv){ m->line, n }, out, e)
                         : list_line(m, (struct sv){ m->line, n }, out, e);
        if (r)
            return r;
    }
}

bool manifest_opened(const struct manifest *m)
{
    return m->opened;
}

void manifest_nonblock(struct manifest *m, bool on)
{
    m->nonblock = on;
}

void manifest_free(struct manifest *m)
{
    if (!m)
        return;
    fetch_release(m, &m->fetch);
    buf_release(&m->fetch.where);
    close_file(m);
    if (m->json)
        json_decref(m->json);
    free(m->dest_bucket);
    free(m->local_dir);
    free(m->path);
    buf_release(&m->scratch);
    buf_release(&m->key);
    buf_release(&m->bucket);
    buf_release(&m->etag);
    free(m);
}
