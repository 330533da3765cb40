#include "base/buf.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Room for 'n' more bytes and the NUL: to a power of two, or 'exact'ly. */
static enum s3c_err grow(struct buf *b, size_t n, bool exact)
{
    size_t want, cap;
    char *p;

    if (n > b->max || b->len > b->max - n)
        return S3C_ENOMEM;
    want = b->len + n + 1;
    if (want <= b->cap)
        return S3C_OK;
    cap = exact ? want : b->cap ? b->cap : 64;
    while (cap < want)
        cap *= 2;
    p = realloc(b->data, cap);
    if (!p)
        return S3C_ENOMEM;
    b->data = p;
    b->cap = cap;
    return S3C_OK;
}

enum s3c_err buf_grow(struct buf *b, size_t n)
{
    return grow(b, n, false);
}

enum s3c_err buf_grow_exact(struct buf *b, size_t n)
{
    return grow(b, n, true);
}

enum s3c_err buf_add(struct buf *b, const void *p, size_t n)
{
    if (buf_grow(b, n))
        return S3C_ENOMEM;
    if (n)
        memcpy(b->data + b->len, p, n);
    b->len += n;
    b->data[b->len] = '\0';
    return S3C_OK;
}

enum s3c_err buf_adds(struct buf *b, const char *s)
{
    return buf_add(b, s, strlen(s));
}

enum s3c_err buf_addc(struct buf *b, char c)
{
    return buf_add(b, &c, 1);
}

enum s3c_err buf_addsv(struct buf *b, struct sv s)
{
    return buf_add(b, s.p, s.n);
}

enum s3c_err buf_addf(struct buf *b, const char *fmt, ...)
{
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return S3C_EINTERNAL;
    if (buf_grow(b, (size_t)n))
        return S3C_ENOMEM;
    va_start(ap, fmt);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
    return S3C_OK;
}

const char *buf_cstr(const struct buf *b)
{
    return b->data ? b->data : "";
}

struct sv buf_sv(const struct buf *b)
{
    struct sv s = { b->data ? b->data : "", b->len };
    return s;
}

void buf_reset(struct buf *b)
{
    b->len = 0;
    if (b->data)
        b->data[0] = '\0';
}

char *buf_detach(struct buf *b)
{
    char *p = b->data;

    if (!p)
        p = calloc(1, 1);
    b->data = NULL;
    b->len = b->cap = 0;
    return p;
}

void buf_release(struct buf *b)
{
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}
