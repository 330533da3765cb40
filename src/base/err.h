/*
 * err: the error enum every module returns, and the detail struct a caller
 * may pass to learn why. Library code fills a struct s3c_error and returns its
 * code; it never prints and never exits. Only main() maps codes to exit codes.
 */
#ifndef S3C_BASE_ERR_H
#define S3C_BASE_ERR_H

#include <stdarg.h>

enum s3c_err {
    S3C_OK = 0,
    S3C_EUSAGE,     /* bad flag, argument or command line: exit 252 */
    S3C_ECONFIG,    /* bad or missing configuration value, no credentials: exit 253 */
    S3C_EIO,        /* local I/O failed; sys_errno says how */
    S3C_ENOMEM,     /* out of memory, or a capped buffer would overflow */
    S3C_EPARSE,     /* malformed input (XML, INI, URL, number) */
    S3C_ENET,       /* connect, TLS, timeout, reset: no HTTP answer */
    S3C_EHTTP,      /* the server answered with an error status */
    S3C_ENOTFOUND,  /* the object, bucket or file does not exist */
    S3C_EAUTH,      /* missing credentials, or access denied */
    S3C_ECANCEL,    /* stopped by a signal or by the user */
    S3C_EINTERNAL,  /* a bug in s3c */
    S3C_ESKIPPED,   /* a file or key refused before its transfer (unreadable,
                       special, a name leaving the destination): exit 2 when
                       nothing failed, as the AWS CLI's skipped files */
    S3C_ENOMATCH,   /* a prefix or wildcard matched no object: exit 1 */
};

/* Detail beside the code: everything a one-line message needs. */
struct s3c_error {
    enum s3c_err code;  /* same value the failing function returned */
    int sys_errno;      /* errno for S3C_EIO, else 0 */
    long http_status;   /* HTTP status for S3C_EHTTP and friends, else 0 */
    char s3_code[64];   /* S3 <Code>, e.g. "NoSuchBucket"; "" if none */
    char op[40];        /* the S3 operation that failed, e.g. "GetObject"; "" if none */
    char msg[512];      /* one line, no credentials, no trailing newline */
};

#define S3C_ERROR_INIT { S3C_OK, 0, 0, "", "", "" }

/*
 * Record 'code' and a printf-style message in 'e' (which may be NULL) and
 * return 'code', so callers can write: return s3c_fail(e, S3C_EIO, "...").
 */
enum s3c_err s3c_fail(struct s3c_error *e, enum s3c_err code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Like s3c_fail, and also sets sys_errno to 'errnum' and appends strerror. */
enum s3c_err s3c_fail_errno(struct s3c_error *e, int errnum, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Reset 'e' to S3C_ERROR_INIT. */
void s3c_error_clear(struct s3c_error *e);

/* A short English name for a code ("usage", "i/o", ...). */
const char *s3c_err_name(enum s3c_err code);

#endif
