#include "base/err.h"

#include <stdio.h>
#include <string.h>

static void vfill(struct s3c_error *e, enum s3c_err code, const char *fmt, va_list ap)
{
    e->code = code;
    vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
}

enum s3c_err s3c_fail(struct s3c_error *e, enum s3c_err code, const char *fmt, ...)
{
    va_list ap;

    if (!e)
        return code;
    va_start(ap, fmt);
    vfill(e, code, fmt, ap);
    va_end(ap);
    return code;
}

enum s3c_err s3c_fail_errno(struct s3c_error *e, int errnum, const char *fmt, ...)
{
    va_list ap;
    size_t n;

    if (!e)
        return S3C_EIO;
    va_start(ap, fmt);
    vfill(e, S3C_EIO, fmt, ap);
    va_end(ap);
    e->sys_errno = errnum;
    n = strlen(e->msg);
    snprintf(e->msg + n, sizeof(e->msg) - n, ": %s", strerror(errnum));
    return S3C_EIO;
}

void s3c_error_clear(struct s3c_error *e)
{
    static const struct s3c_error init = S3C_ERROR_INIT;

    if (e)
        *e = init;
}

const char *s3c_err_name(enum s3c_err code)
{
    switch (code) {
    case S3C_OK: return "ok";
    case S3C_EUSAGE: return "usage";
    case S3C_ECONFIG: return "config";
    case S3C_EIO: return "i/o";
    case S3C_ENOMEM: return "out of memory";
    case S3C_EPARSE: return "parse";
    case S3C_ENET: return "network";
    case S3C_EHTTP: return "http";
    case S3C_ENOTFOUND: return "not found";
    case S3C_EAUTH: return "auth";
    case S3C_ECANCEL: return "cancelled";
    case S3C_EINTERNAL: return "internal";
    case S3C_ESKIPPED: return "skipped";
    case S3C_ENOMATCH: return "no match";
    }
    return "unknown";
}
