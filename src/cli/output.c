#include "cli/output.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/hash.h"
#include "base/stop.h"
#include "plan/filter.h"

static struct out_opts opts, run_opts;
static bool status_shown;
static bool stdout_is_data; /* out_stdout_is_data: records go to stderr */

enum to { TO_STDOUT, TO_STDERR };

static enum to records(void);

void out_stdout_is_data(void)
{
    fflush(stdout); /* what was written before is out ahead of the object's bytes */
    stdout_is_data = true;
}

bool out_status_enabled(void)
{
    return !opts.quiet && !opts.only_errors && !opts.json && !opts.no_progress && isatty(STDERR_FILENO);
}

/* Erase the status line before printing anything else. */
static void status_clear(void)
{
    if (status_shown) {
        fputs("\r\033[K", stderr);
        fflush(stderr);
        status_shown = false;
    }
}

void out_status(const char *text)
{
    if (!out_status_enabled())
        return;
    status_clear();
    if (!text)
        return;
    fflush(stdout);
    fprintf(stderr, "%s", text);
    fflush(stderr);
    status_shown = true;
}

void out_init(const struct out_opts *o)
{
    opts = run_opts = *o;
}

void out_line_opts(const struct out_opts *o)
{
    opts = o ? *o : run_opts;
}

const struct out_opts *out_opts(void)
{
    return &opts;
}

/* A write to stdout that met EPIPE: its reader left (`s3c ls -r | head -1`), so
 * the work ends (base/stop.h), quietly: nobody reads what would come. */
static void stdout_check(void)
{
    if (ferror(stdout) && errno == EPIPE)
        stop_request(STOP_READER_GONE);
}

/* Errors that only say the work was stopped because stdout's reader left. */
static bool reader_gone(const struct s3c_error *e)
{
    return stop_requested() == STOP_READER_GONE && (!e || e->code == S3C_ECANCEL);
}

/* Write now: stderr's lines after what stdout holds, neither over the status line. */
static void put_now(enum to to, const char *p, size_t n)
{
    status_clear();
    if (to == TO_STDERR) {
        fflush(stdout);
        fwrite(p, 1, n, stderr);
        return;
    }
    fwrite(p, 1, n, stdout);
    stdout_check();
}

/*
 * A run file's lines in line order (out_slot_open): each line writes into
 * its slot; the oldest open slot (the head) writes through, the others hold
 * their text, each piece tagged with its stream, until every line before
 * theirs has ended.
 */
struct out_slot {
    struct buf held;        /* pieces: [stream byte][u32 length][bytes] */
    enum to records;        /* where its records go: as they went when the line was read */
    bool closed;
    struct out_slot *next;
};

static bool ordered;
static struct out_slot *slot_head, *slot_tail, *slot_cur;
static size_t held_bytes, held_max = (size_t)16 << 20; /* past it, lines behind the head get no more work */

/* Where results, records and tables go: stdout, unless an object's bytes do;
 * a run's line keeps the place of its time (a line after it that writes an
 * object to stdout runs once it is done). */
static enum to records(void)
{
    if (slot_cur)
        return slot_cur->records;
    return stdout_is_data ? TO_STDERR : TO_STDOUT;
}

static void emit(enum to to, const char *p, size_t n)
{
    struct out_slot *s = slot_cur;
    uint32_t len = (uint32_t)n;
    unsigned char tag = (unsigned char)to;

    if (!n)
        return;
    if (!s || s == slot_head || n > UINT32_MAX) {
        put_now(to, p, n);
        return;
    }
    if (buf_grow(&s->held, 5 + n)) {
        put_now(to, p, n); /* past the slot's cap: out of order, never lost */
        return;
    }
    buf_add(&s->held, &tag, 1);
    buf_add(&s->held, &len, 4);
    buf_add(&s->held, p, n);
    held_bytes += 5 + n;
}

static void emit_buf(enum to to, const struct buf *b)
{
    emit(to, b->data, b->len);
}

void out_order_lines(void)
{
    const char *v = getenv("S3C_RUN_HELD_MAX"); /* tests: a small bound, to see lines wait for it */

    if (v && *v)
        held_max = strtoull(v, NULL, 10);
    ordered = !isatty(STDOUT_FILENO);
}

struct out_slot *out_slot_open(void)
{
    struct out_slot *s;

    if (!ordered || !(s = calloc(1, sizeof(*s))))
        return NULL; /* (no memory: the line writes through, as without order) */
    s->held = (struct buf)BUF_INIT(BUF_MAX_DEFAULT);
    s->records = records();
    if (slot_tail)
        slot_tail->next = s;
    else
        slot_head = s;
    slot_tail = s;
    return s;
}

void out_slot_use(struct out_slot *s)
{
    slot_cur = s;
}

/* The head is done: write out what the slots after it hold, up to the next one still open. */
static void slots_advance(void)
{
    while (slot_head && slot_head->closed) {
        struct out_slot *s = slot_head;
        size_t i = 0;

        slot_head = s->next;
        if (!slot_head)
            slot_tail = NULL;
        if (slot_cur == s)
            slot_cur = NULL;
        buf_release(&s->held);
        free(s);
        if (!slot_head)
            break;
        s = slot_head;
        while (i + 5 <= s->held.len) {
            uint32_t len;

            memcpy(&len, s->held.data + i + 1, 4);
            put_now((enum to)s->held.data[i], s->held.data + i + 5, len);
            i += 5 + len;
        }
        held_bytes -= s->held.len;
        buf_release(&s->held);
    }
}

void out_slot_close(struct out_slot *s)
{
    if (!s)
        return;
    s->closed = true;
    slots_advance();
}

bool out_slots_full(void)
{
    return held_bytes >= held_max;
}

bool out_slot_may_grow(const struct out_slot *s)
{
    return !s || s == slot_head || !out_slots_full();
}

void out_line(const char *fmt, ...)
{
    struct buf line = BUF_INIT(1 << 20);
    char *text = NULL;
    va_list ap;
    int n;

    if (opts.quiet || opts.only_errors)
        return;
    va_start(ap, fmt);
    n = vasprintf(&text, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    /* The names in a result line are shown escaped: one line per result. */
    out_escape(&line, (struct sv){ text, (size_t)n });
    buf_addc(&line, '\n');
    emit_buf(records(), &line);
    buf_release(&line);
    free(text);
}

void out_text(const char *s)
{
    emit(records(), s, strlen(s));
}

static const char *origin = "";

void out_escape(struct buf *b, struct sv s)
{
    const unsigned char *p = (const unsigned char *)s.p;
    size_t i = 0, len, k;
    uint32_t cp;

    while (i < s.n) {
        len = str_utf8_next(p + i, s.n - i, &cp);
        if (len && cp >= 0x20 && cp != 0x7f && !(cp >= 0x80 && cp <= 0x9f)) {
            buf_add(b, p + i, len);
        } else if (len == 1 && cp == '\n') {
            buf_adds(b, "\\n");
        } else if (len == 1 && cp == '\r') {
            buf_adds(b, "\\r");
        } else if (len == 1 && cp == '\t') {
            buf_adds(b, "\\t");
        } else {
            /* A control (C1 ones are two bytes) or a byte that starts no UTF-8. */
            if (!len)
                len = 1;
            for (k = 0; k < len; k++)
                buf_addf(b, "\\x%02x", p[i + k]);
        }
        i += len;
    }
}

/*
 * Add 's' to an error or warning line as out_escape() shows it: the line
 * stays one line whatever a key, an argument or a config value holds, and a
 * hostile object name cannot drive the terminal.
 */
static void clean(struct buf *b, const char *s)
{
    out_escape(b, sv_from(s));
}

/* An error or warning line, built whole, out on stderr as one write. */
#define ERR_LINE_INIT BUF_INIT(1 << 20)

static void err_line_end(struct buf *b)
{
    buf_addc(b, '\n');
    emit_buf(TO_STDERR, b);
    buf_release(b);
}

void out_set_origin(const char *where)
{
    origin = where ? where : "";
}

void out_error(const char *op, const struct s3c_error *e)
{
    struct buf b = ERR_LINE_INIT;

    if (reader_gone(e))
        return;
    buf_adds(&b, "s3c: ");
    clean(&b, origin);
    buf_adds(&b, "ERROR \"");
    clean(&b, op);
    buf_adds(&b, "\": ");
    clean(&b, e->msg);
    if (e->http_status) {
        buf_addf(&b, " (%ld ", e->http_status);
        clean(&b, e->s3_code);
        buf_addc(&b, ')');
    }
    err_line_end(&b);
}

/* "An error occurred (NoSuchKey) when calling the GetObject operation: ..." for a
 * store's error, as botocore words it; the message alone for a local one. */
/* A HEAD's reply has no body, so no code of the store's: botocore shows its status ("(403)"), where
 * s3c's code was made from the status alone (one HeadBucket explained is kept: NoSuchBucket). */
static bool head_status_code(const struct s3c_error *e)
{
    static const char *const from_status[] = { "BadRequest", "Unauthorized", "Forbidden", "NotFound",
                                               "MethodNotAllowed", "Conflict", "PreconditionFailed",
                                               "NotModified", NULL };
    int i;

    if (!e->http_status || strncmp(e->op, "Head", 4) != 0)
        return false;
    for (i = 0; from_status[i]; i++)
        if (!strcmp(e->s3_code, from_status[i]))
            return true;
    return false;
}

static void put_detail(struct buf *b, const struct s3c_error *e)
{
    if (e->s3_code[0] || e->http_status) {
        buf_adds(b, "An error occurred (");
        if (e->s3_code[0] && !head_status_code(e))
            clean(b, e->s3_code);
        else
            buf_addf(b, "%ld", e->http_status);
        buf_addc(b, ')');
        if (e->op[0]) {
            buf_adds(b, " when calling the ");
            clean(b, e->op);
            buf_adds(b, " operation");
        }
        buf_adds(b, ": ");
    }
    clean(b, e->msg);
}

void out_aws_error(const char *op, const struct s3c_error *e)
{
    struct buf b = ERR_LINE_INIT;

    if (!e->s3_code[0] || !e->op[0]) {
        out_error(op, e); /* no error code of the store's: s3c's own line, which names the operation */
        return;
    }
    if (reader_gone(e))
        return;
    put_detail(&b, e);
    err_line_end(&b);
}

static void result_json(const struct out_result *r, const char *status, const struct s3c_error *e)
{
    struct json j = JSON_INIT;

    json_str(&j, "operation", r->op);
    json_bool(&j, "success", e == NULL);
    if (r->dryrun)
        json_bool(&j, "dryrun", true);
    json_str(&j, "source", r->src);
    if (r->dst)
        json_str(&j, "destination", r->dst);
    if (r->version_id)
        json_str(&j, "version_id", r->version_id);
    if (r->has_size)
        json_u64(&j, "size", r->size);
    if (status && !e)
        json_str(&j, "status", status);
    if (r->has_size && !e) {
        struct json o = JSON_INIT;
        struct buf obj = BUF_INIT(64);

        json_u64(&o, "size", r->size); /* s5cmd's "object" of a success */
        json_end_into(&o, &obj);
        json_raw(&j, "object", buf_cstr(&obj));
        buf_release(&obj);
    }
    if (r->left) {
        json_bool(&j, "skipped", true);
        json_str(&j, "reason", r->left);
    }
    if (e) {
        if (e->code == S3C_ESKIPPED)
            json_bool(&j, "skipped", true);
        if (r->fatal)
            json_bool(&j, "fatal", true);
        json_str(&j, "error", e->msg);
        if (e->s3_code[0])
            json_str(&j, "error_code", e->s3_code);
        if (e->op[0])
            json_str(&j, "error_operation", e->op);
        if (e->http_status)
            json_i64(&j, "http_status", e->http_status);
    }
    json_end(&j);
}

/*
 * A local path as the AWS CLI shows it in a result line (its
 * utils.relative_path): the directory made absolute against the working
 * directory and normalised as text ("." and ".." and doubled slashes gone,
 * links not followed), then relative to the working directory, then the
 * file's name: "./d/../a.txt" as "./a.txt", "/tmp/h.txt" from /tmp/rt as
 * "../h.txt", "d//y" as "d/y". An S3 name, "-", or a path when the working
 * directory is unknown stays as given.
 */
/* The '/'-separated components of an absolute path into 'comp'/'len' (at most 'max'); how many, or
 * max + 1 when there are more. */
static size_t components(const char *path, const char **comp, size_t *len, size_t max)
{
    size_t n = 0;

    while (*path) {
        const char *end = strchrnul(path, '/');

        if (end > path) {
            if (n == max)
                return max + 1;
            comp[n] = path;
            len[n++] = (size_t)(end - path);
        }
        path = *end ? end + 1 : end;
    }
    return n;
}

static const char *aws_shown(const char *p, struct buf *b)
{
    enum { DEPTH = 512 };
    static char cwd[4096];
    const char *comp[DEPTH], *cw[DEPTH], *base = strrchr(p, '/');
    size_t ncomp, ncw, i, common = 0, len[DEPTH], cwlen[DEPTH];
    struct buf dir = BUF_INIT(1 << 16), abs = BUF_INIT(1 << 16);
    struct s3c_error e = S3C_ERROR_INIT;
    enum s3c_err rc;

    if (!strncmp(p, "s3://", 5) || !strcmp(p, "-") || (!cwd[0] && !getcwd(cwd, sizeof(cwd))))
        return p;
    /* The directory as os.path.abspath makes it (filter_root's, as the CLI's filters see it),
     * from an absolute path: the working directory is read once, not once a line. */
    rc = p[0] == '/' ? buf_adds(&abs, p) : buf_addf(&abs, "%s/%s", cwd, p);
    if (!rc)
        rc = filter_root(buf_cstr(&abs), false, &dir, &e);
    buf_release(&abs);
    if (rc) {
        buf_release(&dir);
        return p;
    }
    ncomp = components(buf_cstr(&dir), comp, len, DEPTH);
    ncw = components(cwd, cw, cwlen, DEPTH);
    if (ncomp > DEPTH || ncw > DEPTH) {
        buf_release(&dir);
        return p; /* deeper than any real path: as given */
    }
    while (common < ncomp && common < ncw && len[common] == cwlen[common] &&
           !memcmp(comp[common], cw[common], len[common]))
        common++;
    buf_reset(b);
    for (i = common; i < ncw; i++)
        buf_adds(b, "../");
    for (i = common; i < ncomp; i++)
        buf_addf(b, "%.*s/", (int)len[i], comp[i]);
    if (!b->len)
        buf_adds(b, "./");
    buf_adds(b, base ? base + 1 : p);
    buf_release(&dir);
    return buf_cstr(b);
}

void out_result(const struct out_result *r, const struct s3c_error *e)
{
    out_result_said(r, NULL, NULL, e);
}

void out_result_said(const struct out_result *r, const char *status, const char *note, const struct s3c_error *e)
{
    struct buf b = ERR_LINE_INIT, src_b = BUF_INIT(1 << 16), dst_b = BUF_INIT(1 << 16);
    const char *src, *dst;

    if (opts.json) {
        result_json(r, status, e);
        return;
    }
    if (r->left)
        return;
    /* --quiet: nothing at all, failures and warnings too, as the AWS CLI (no result printer); the
     * exit code tells. --only-show-errors keeps them. */
    if (opts.quiet)
        return;
    src = r->fatal ? r->src : aws_shown(r->src, &src_b);
    dst = !r->dst || r->fatal ? r->dst : aws_shown(r->dst, &dst_b);
    if (!e) {
        const char *dry = r->dryrun ? "(dryrun) " : "";
        const char *open = note ? " (" : "", *close = note ? ")" : "";
        if (!note)
            note = "";
        if (dst)
            out_line("%s%s: %s to %s%s%s%s", dry, r->op, src, dst, open, note, close);
        else if (r->version_id)
            out_line("%s%s: %s (version %s)%s%s%s", dry, r->op, src, r->version_id, open, note, close);
        else
            out_line("%s%s: %s%s%s%s", dry, r->op, src, open, note, close);
        goto out;
    }
    if (reader_gone(e))
        goto out;
    clean(&b, origin);
    if (r->fatal) {
        buf_adds(&b, "fatal error: ");
        put_detail(&b, e);
    } else if (e->code == S3C_ESKIPPED) {
        buf_adds(&b, "warning: Skipping file ");
        clean(&b, r->src);
        buf_adds(&b, ". ");
        clean(&b, e->msg);
    } else {
        clean(&b, r->op);
        buf_adds(&b, " failed: ");
        clean(&b, src);
        if (dst) {
            buf_adds(&b, " to ");
            clean(&b, dst);
        }
        if (r->version_id) {
            buf_adds(&b, " (version ");
            clean(&b, r->version_id);
            buf_addc(&b, ')');
        }
        buf_addc(&b, ' ');
        put_detail(&b, e);
    }
    err_line_end(&b);
out:
    buf_release(&b);
    buf_release(&src_b);
    buf_release(&dst_b);
}

void out_usage_error(const struct s3c_error *e)
{
    struct buf b = ERR_LINE_INIT;

    if (reader_gone(e))
        return;
    buf_adds(&b, "s3c: ");
    clean(&b, origin);
    clean(&b, e->msg);
    err_line_end(&b);
}

bool out_warnings_shown(void)
{
    return !opts.quiet && !opts.only_errors;
}

void out_warn(const char *fmt, ...)
{
    struct buf b = ERR_LINE_INIT;
    va_list ap;
    char text[8192];

    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    buf_adds(&b, "s3c: ");
    clean(&b, origin);
    buf_adds(&b, "warning: ");
    clean(&b, text);
    err_line_end(&b);
}

void out_debug(void *ctx, const char *line)
{
    struct buf b = BUF_INIT(1 << 20);

    (void)ctx;
    buf_adds(&b, "s3c: debug: ");
    clean(&b, line);
    buf_addc(&b, '\n');
    fwrite(b.data, 1, b.len, stderr); /* the engine's loops trace from several threads: one write a line */
    buf_release(&b);
}

void json_escape(struct buf *b, const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t n = strlen(s), i = 0, len;
    uint32_t cp;

    buf_addc(b, '"');
    while (i < n) {
        len = str_utf8_next(p + i, n - i, &cp);
        if (!len) {
            /* Not UTF-8: JSON cannot carry the byte; its text \xNN (json_str
             * adds the exact bytes in base64 beside it). */
            buf_addf(b, "\\\\x%02x", p[i]);
            i++;
            continue;
        }
        switch (cp) {
        case '"': buf_adds(b, "\\\""); break;
        case '\\': buf_adds(b, "\\\\"); break;
        case '\n': buf_adds(b, "\\n"); break;
        case '\r': buf_adds(b, "\\r"); break;
        case '\t': buf_adds(b, "\\t"); break;
        default:
            if (cp < 0x20)
                buf_addf(b, "\\u%04x", (unsigned)cp);
            else
                buf_add(b, p + i, len);
        }
        i += len;
    }
    buf_addc(b, '"');
}

static void field(struct json *j, const char *name)
{
    buf_adds(&j->b, j->fields++ ? "," : "{");
    json_escape(&j->b, name);
    buf_addc(&j->b, ':');
}

void json_str(struct json *j, const char *name, const char *value)
{
    struct buf b64 = BUF_INIT(1 << 20), b64_name = BUF_INIT(4096);

    field(j, name);
    if (!value) {
        buf_adds(&j->b, "null");
        return;
    }
    json_escape(&j->b, value);
    if (sv_is_utf8(sv_from(value)))
        return;
    /* A name that is not UTF-8 (a local file's, a key some stores keep):
     * its exact bytes too, so no record loses what it names. */
    buf_addf(&b64_name, "%s_base64", name);
    if (!base64_encode(value, strlen(value), &b64)) {
        field(j, buf_cstr(&b64_name));
        json_escape(&j->b, buf_cstr(&b64));
    }
    buf_release(&b64);
    buf_release(&b64_name);
}

void json_u64(struct json *j, const char *name, uint64_t value)
{
    field(j, name);
    buf_addf(&j->b, "%" PRIu64, value);
}

void json_i64(struct json *j, const char *name, int64_t value)
{
    field(j, name);
    buf_addf(&j->b, "%" PRId64, value);
}

void json_bool(struct json *j, const char *name, bool value)
{
    field(j, name);
    buf_adds(&j->b, value ? "true" : "false");
}

void json_raw(struct json *j, const char *name, const char *raw)
{
    field(j, name);
    buf_adds(&j->b, raw);
}

void json_end_into(struct json *j, struct buf *out)
{
    if (!j->fields)
        buf_addc(&j->b, '{');
    buf_addc(&j->b, '}');
    buf_addsv(out, buf_sv(&j->b));
    buf_release(&j->b);
    j->fields = 0;
}

void json_end(struct json *j)
{
    struct buf line = BUF_INIT(1 << 20);

    json_end_into(j, &line);
    buf_addc(&line, '\n');
    emit_buf(records(), &line);
    buf_release(&line);
}
