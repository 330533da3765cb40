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

static struct out_opts opts, run_opts;
static bool status_shown;
static bool stdout_is_data; /* out_stdout_is_data: records go to stderr */

/* Where results, records and tables go: stdout, unless an object's bytes do. */
static FILE *records(void)
{
    return stdout_is_data ? stderr : stdout;
}

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

void out_line(const char *fmt, ...)
{
    struct buf line = BUF_INIT(1 << 20);
    char *text = NULL;
    va_list ap;
    int n;

    if (opts.quiet || opts.only_errors)
        return;
    status_clear();
    va_start(ap, fmt);
    n = vasprintf(&text, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    /* The names in a result line are shown escaped: one line per result. */
    out_escape(&line, (struct sv){ text, (size_t)n });
    buf_addc(&line, '\n');
    fwrite(line.data, 1, line.len, records());
    buf_release(&line);
    free(text);
    stdout_check();
}

void out_text(const char *s)
{
    fputs(s, records());
    stdout_check();
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
 * Write 's' to stderr as out_escape() shows it: an error or warning stays
 * one line whatever a key, an argument or a config value holds, and a
 * hostile object name cannot drive the terminal.
 */
static void put_clean(const char *s)
{
    struct buf b = BUF_INIT(1 << 20);

    out_escape(&b, sv_from(s));
    if (b.len)
        fwrite(b.data, 1, b.len, stderr);
    buf_release(&b);
}

void out_set_origin(const char *where)
{
    origin = where ? where : "";
}

void out_error(const char *op, const struct s3c_error *e)
{
    if (reader_gone(e))
        return;
    status_clear();
    fflush(stdout);
    fputs("s3c: ", stderr);
    put_clean(origin);
    fputs("ERROR \"", stderr);
    put_clean(op);
    fputs("\": ", stderr);
    put_clean(e->msg);
    if (e->http_status) {
        fprintf(stderr, " (%ld ", e->http_status);
        put_clean(e->s3_code);
        fputc(')', stderr);
    }
    fputc('\n', stderr);
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

static void put_detail(const struct s3c_error *e)
{
    if (e->s3_code[0] || e->http_status) {
        fputs("An error occurred (", stderr);
        if (e->s3_code[0] && !head_status_code(e))
            put_clean(e->s3_code);
        else
            fprintf(stderr, "%ld", e->http_status);
        fputc(')', stderr);
        if (e->op[0]) {
            fputs(" when calling the ", stderr);
            put_clean(e->op);
            fputs(" operation", stderr);
        }
        fputs(": ", stderr);
    }
    put_clean(e->msg);
}

void out_aws_error(const char *op, const struct s3c_error *e)
{
    if (!e->s3_code[0] || !e->op[0]) {
        out_error(op, e); /* no error code of the store's: s3c's own line, which names the operation */
        return;
    }
    if (reader_gone(e))
        return;
    status_clear();
    fflush(stdout);
    put_detail(e);
    fputc('\n', stderr);
}

static void result_json(const struct out_result *r, const struct s3c_error *e)
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

void out_result(const struct out_result *r, const struct s3c_error *e)
{
    if (opts.json) {
        result_json(r, e);
        return;
    }
    /* --quiet: nothing at all, failures and warnings too, as the AWS CLI (no result printer); the
     * exit code tells. --only-show-errors keeps them. */
    if (opts.quiet)
        return;
    if (!e) {
        const char *dry = r->dryrun ? "(dryrun) " : "";
        if (r->dst)
            out_line("%s%s: %s to %s", dry, r->op, r->src, r->dst);
        else if (r->version_id)
            out_line("%s%s: %s (version %s)", dry, r->op, r->src, r->version_id);
        else
            out_line("%s%s: %s", dry, r->op, r->src);
        return;
    }
    if (reader_gone(e))
        return;
    status_clear();
    fflush(stdout);
    put_clean(origin);
    if (r->fatal) {
        fputs("fatal error: ", stderr);
        put_detail(e);
        fputc('\n', stderr);
        return;
    }
    if (e->code == S3C_ESKIPPED) {
        fputs("warning: Skipping file ", stderr);
        put_clean(r->src);
        fputs(". ", stderr);
        put_clean(e->msg);
        fputc('\n', stderr);
        return;
    }
    put_clean(r->op);
    fputs(" failed: ", stderr);
    put_clean(r->src);
    if (r->dst) {
        fputs(" to ", stderr);
        put_clean(r->dst);
    }
    if (r->version_id) {
        fputs(" (version ", stderr);
        put_clean(r->version_id);
        fputc(')', stderr);
    }
    fputc(' ', stderr);
    put_detail(e);
    fputc('\n', stderr);
}

void out_usage_error(const struct s3c_error *e)
{
    if (reader_gone(e))
        return;
    fflush(stdout);
    fputs("s3c: ", stderr);
    put_clean(origin);
    put_clean(e->msg);
    fputc('\n', stderr);
}

void out_warn(const char *fmt, ...)
{
    va_list ap;
    char text[8192];

    status_clear();
    fflush(stdout);
    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    fputs("s3c: ", stderr);
    put_clean(origin);
    fputs("warning: ", stderr);
    put_clean(text);
    fputc('\n', stderr);
}

void out_debug(void *ctx, const char *line)
{
    (void)ctx;
    flockfile(stderr); /* the engine's loops write from several threads: whole lines */
    fputs("s3c: debug: ", stderr);
    put_clean(line);
    fputc('\n', stderr);
    funlockfile(stderr);
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
    fputs(buf_cstr(&line), records());
    buf_release(&line);
    stdout_check();
}
