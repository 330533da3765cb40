#include "cli/output.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static struct out_opts opts;
static bool status_shown;

bool out_status_enabled(void)
{
    return !opts.quiet && !opts.only_errors && !opts.json && isatty(STDERR_FILENO);
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
    opts = *o;
}

const struct out_opts *out_opts(void)
{
    return &opts;
}

void out_line(const char *fmt, ...)
{
    va_list ap;

    if (opts.quiet || opts.only_errors)
        return;
    status_clear();
    va_start(ap, fmt);
    vfprintf(stdout, fmt, ap);
    va_end(ap);
    fputc('\n', stdout);
}

void out_text(const char *s)
{
    fputs(s, stdout);
}

static const char *origin = "";

/*
 * Write 's' to stderr with control bytes shown as \n, \r, \t or \xNN: an
 * error or warning stays one line whatever a key, an argument or a config
 * value holds, and a hostile object name cannot drive the terminal.
 */
static void put_clean(const char *s)
{
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;

        if (c >= 0x20 && c != 0x7f)
            fputc(c, stderr);
        else if (c == '\n')
            fputs("\\n", stderr);
        else if (c == '\r')
            fputs("\\r", stderr);
        else if (c == '\t')
            fputs("\\t", stderr);
        else
            fprintf(stderr, "\\x%02x", c);
    }
}

void out_set_origin(const char *where)
{
    origin = where ? where : "";
}

void out_error(const char *op, const struct s3c_error *e)
{
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

void out_usage_error(const struct s3c_error *e)
{
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

    buf_addc(b, '"');
    for (; *p; p++) {
        switch (*p) {
        case '"': buf_adds(b, "\\\""); break;
        case '\\': buf_adds(b, "\\\\"); break;
        case '\n': buf_adds(b, "\\n"); break;
        case '\r': buf_adds(b, "\\r"); break;
        case '\t': buf_adds(b, "\\t"); break;
        default:
            if (*p < 0x20)
                buf_addf(b, "\\u%04x", *p);
            else
                buf_addc(b, (char)*p);
        }
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
    field(j, name);
    if (value)
        json_escape(&j->b, value);
    else
        buf_adds(&j->b, "null");
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
    fputs(buf_cstr(&line), stdout);
    buf_release(&line);
}
