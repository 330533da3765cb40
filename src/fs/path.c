#include "fs/path.h"

#include <string.h>

enum s3c_err path_check_relative(struct sv rel, struct s3c_error *e)
{
    size_t i = 0;

    if (rel.n == 0)
        return s3c_fail(e, S3C_EUSAGE, "empty file name");
    if (rel.p[0] == '/')
        return s3c_fail(e, S3C_EUSAGE, "key \"%.*s\" is an absolute path", (int)rel.n, rel.p);
    if (memchr(rel.p, '\0', rel.n) || memchr(rel.p, '\\', rel.n))
        return s3c_fail(e, S3C_EUSAGE, "key \"%.*s\" holds a NUL or a backslash", (int)rel.n, rel.p);
    while (i < rel.n) {
        const char *slash = memchr(rel.p + i, '/', rel.n - i);
        size_t len = slash ? (size_t)(slash - (rel.p + i)) : rel.n - i;

        if (len == 0 && slash)
            return s3c_fail(e, S3C_EUSAGE, "key \"%.*s\" has an empty path segment", (int)rel.n, rel.p);
        if ((len == 1 && rel.p[i] == '.') || (len == 2 && rel.p[i] == '.' && rel.p[i + 1] == '.'))
            return s3c_fail(e, S3C_EUSAGE, "key \"%.*s\" has a \".\" or \"..\" segment", (int)rel.n, rel.p);
        i += len + 1;
        if (slash && i == rel.n)
            break; /* trailing '/': a directory marker */
    }
    return S3C_OK;
}

enum s3c_err path_join_safe(const char *dir, struct sv rel, struct buf *out, struct s3c_error *e)
{
    enum s3c_err rc = path_check_relative(rel, e);
    size_t n = strlen(dir);

    if (rc)
        return rc;
    rc = buf_add(out, dir, n);
    if (!rc && n && dir[n - 1] != '/')
        rc = buf_addc(out, '/');
    if (!rc)
        rc = buf_addsv(out, rel);
    if (rc)
        return s3c_fail(e, rc, "path too long");
    return S3C_OK;
}

bool path_is_tmp_name(const char *name)
{
    size_t n = strlen(name);

    /* ".s3c-" at least one byte of NAME "." 8 hex ".tmp" */
    return n >= 5 + 1 + 1 + 8 + 4 && !strncmp(name, ".s3c-", 5) && !strcmp(name + n - 4, ".tmp") &&
           name[n - 13] == '.' && strspn(name + n - 12, "0123456789abcdef") >= 8;
}
