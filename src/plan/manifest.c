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

/* GET s3://bucket/key into an unlinked temp file; its fd, or -1 with 'e' set. Retries as the store says. */
static int fetch(struct store_s3 *s3, const char *bucket, const char *key, struct s3c_error *e)
{
    struct s3_req r = { .method = "GET", .bucket = bucket, .key = key };
    struct store_s3_call c = STORE_S3_CALL_INIT;
    const char *tmp = getenv("TMPDIR");
    char path[4096];
    int fd, attempt = 0, free_retries = 0;

    if (!s3) {
        s3c_fail(e, S3C_EUSAGE, "s3://%s/%s: no S3 store to read it from", bucket, key);
        return -1;
    }
    snprintf(path, sizeof(path), "%s/s3c-manifest.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    fd = mkstemp(path);
    if (fd < 0) {
        s3c_fail_errno(e, errno, "cannot make a temp file for s3://%s/%s", bucket, key);
        return -1;
    }
    unlink(path);
    for (;;) {
        struct http_xfer x;
        enum store_s3_verdict v = STORE_S3_FAIL;
        long wait_ms = 0;
        bool free_retry = false;

        memset(&x, 0, sizeof(x));
        x.sink = to_fd;
        x.sink_ctx = &fd;
        x.body_max = FETCH_ERROR_BODY_MAX;
        s3c_error_clear(e);
        if (ftruncate(fd, 0) || lseek(fd, 0, SEEK_SET)) {
            s3c_fail_errno(e, errno, "cannot reuse the temp file of s3://%s/%s", bucket, key);
        } else if (!store_s3_prepare(s3, &r, &c, &x, e) && !http_do(store_s3_loop(s3), &x, e)) {
            v = store_s3_judge(s3, &c, &x, attempt, &wait_ms, &free_retry, e);
        }
        http_xfer_release(&x);
        if (v == STORE_S3_OK) {
            store_s3_call_release(&c);
            lseek(fd, 0, SEEK_SET);
            return fd;
        }
        if (v != STORE_S3_RETRY)
            break;
        if (!free_retry || free_retries++ >= 2)
            attempt++;
        if (http_loop_nap(store_s3_loop(s3), wait_ms)) /* the backoff: the loop's transfers go on */
            break;
    }
    store_s3_call_release(&c);
    close(fd);
    if (!e->code)
        s3c_fail(e, S3C_ENET, "cannot read s3://%s/%s", bucket, key);
    return -1;
}

/* Open 'path' (local or s3://) for reading, gzip'd or not. */
static gzFile open_any(struct manifest *m, const char *path, struct s3c_error *e)
{
    gzFile gz;

    if (s3_uri_is(path)) {
        struct s3_uri u = S3_URI_INIT;
        int fd;

        if (s3_uri_parse(path, &u, e))
            return NULL;
        if (!u.bucket[0] || !u.key[0]) {
            s3c_fail(e, S3C_EUSAGE, "--from-manifest: %s names no object", path);
            s3_uri_release(&u);
            return NULL;
        }
        fd = fetch(m->s3, u.bucket, u.key, e);
        s3_uri_release(&u);
        if (fd < 0)
            return NULL;
        gz = gzdopen(fd, "rb");
        if (!gz)
            close(fd);
    } else {
        gz = gzopen(path, "rb");
        if (!gz) {
            s3c_fail_errno(e, errno ? errno : EIO, "--from-manifest: cannot open %s", path);
            return NULL;
        }
    }
    if (!gz)
        s3c_fail(e, S3C_ENOMEM, "out of memory");
    return gz;
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

/* Open data file i of the report. */
static enum s3c_err open_data(struct manifest *m, size_t i, struct s3c_error *e)
{
    json_t *f = json_array_get(json_object_get(m->json, "files"), i);
    json_t *k = json_object_get(f, "key");
    const char *key, *base;
    char path[8192];

    if (!json_is_string(k))
        return s3c_fail(e, S3C_EPARSE, "--from-manifest %s: files[%zu] has no key", m->path, i);
    key = json_string_value(k);
    base = strrchr(key, '/') ? strrchr(key, '/') + 1 : key;
    if (m->dest_bucket) {
        snprintf(path, sizeof(path), "s3://%s/%s", m->dest_bucket, key);
    } else {
        static const char *const where[] = { "%s/../data/%s", "%s/data/%s", "%s/%s" };
        size_t w;

        for (w = 0; w < 3; w++) {
            snprintf(path, sizeof(path), where[w], m->local_dir, base);
            if (access(path, R_OK) == 0)
                break;
        }
        if (w == 3)
            return s3c_fail(e, S3C_ENOTFOUND, "--from-manifest %s: its data file %s is not in %s/../data, %s/data or %s",
                            m->path, base, m->local_dir, m->local_dir, m->local_dir);
    }
    m->gz = open_any(m, path, e);
    if (!m->gz)
        return e->code;
    m->name = strdup(path);
    return m->name ? S3C_OK : s3c_fail(e, S3C_ENOMEM, "out of memory");
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

struct manifest *manifest_open(const char *path, struct store_s3 *s3, struct s3c_error *e)
{
    struct manifest *m = calloc(1, sizeof(*m));
    struct buf text = BUF_INIT(MANIFEST_JSON_MAX);
    int c;

    if (!m || !(m->path = strdup(path))) {
        free(m);
        s3c_fail(e, S3C_ENOMEM, "out of memory");
        return NULL;
    }
    m->s3 = s3;
    m->scratch = (struct buf)BUF_INIT(2 * MANIFEST_LINE_MAX);
    m->key = (struct buf)BUF_INIT(MANIFEST_LINE_MAX);
    m->bucket = (struct buf)BUF_INIT(MANIFEST_LINE_MAX);
    m->etag = (struct buf)BUF_INIT(MANIFEST_LINE_MAX);
    m->gz = open_any(m, path, e);
    if (!m->gz)
        goto fail;
    m->name = strdup(path);
    /* A JSON object is an inventory's manifest.json; anything else a key list. */
    while ((c = gzgetc(m->gz)) == ' ' || c == '\n' || c == '\r' || c == '\t')
        ;
    if (c != '{') {
        if (c != -1)
            gzungetc(c, m->gz);
        buf_release(&text);
        return m;
    }
    do {
        char chunk[65536];
        int n;

        if (buf_addc(&text, (char)c)) {
            s3c_fail(e, S3C_ENOMEM, "--from-manifest %s: over %u bytes", path, MANIFEST_JSON_MAX);
            goto fail;
        }
        while ((n = gzread(m->gz, chunk, sizeof(chunk))) > 0)
            if (buf_add(&text, chunk, (size_t)n)) {
                s3c_fail(e, S3C_ENOMEM, "--from-manifest %s: over %u bytes", path, MANIFEST_JSON_MAX);
                goto fail;
            }
    } while (0);
    close_file(m);
    if (open_inventory(m, &text, e))
        goto fail;
    buf_release(&text);
    return m;
fail:
    buf_release(&text);
    manifest_free(m);
    return NULL;
}

int manifest_next(struct manifest *m, struct manifest_entry *out, struct s3c_error *e)
{
    for (;;) {
        size_t n;
        int r;

        if (!m->gz) {
            if (!m->inventory || m->i_file >= m->n_files)
                return 0;
            if (open_data(m, m->i_file++, e))
                return -1;
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

void manifest_free(struct manifest *m)
{
    if (!m)
        return;
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
