#include "s3/uri.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/str.h"

bool s3_uri_is(const char *arg)
{
    return strncasecmp(arg, "s3://", 5) == 0;
}

enum s3c_err s3_uri_parse(const char *arg, struct s3_uri *out, struct s3c_error *e)
{
    const char *rest, *slash;
    size_t blen;

    if (!s3_uri_is(arg))
        return s3c_fail(e, S3C_EUSAGE, "\"%s\" is not an S3 URI (s3://bucket/key)", arg);
    rest = arg + 5;
    slash = strchr(rest, '/');
    blen = slash ? (size_t)(slash - rest) : strlen(rest);
    if (blen == 0 && slash)
        return s3c_fail(e, S3C_EUSAGE, "\"%s\" has no bucket name", arg);
    if (blen > 255)
        return s3c_fail(e, S3C_EUSAGE, "\"%s\": bucket name is too long", arg);
    out->bucket = sv_dup((struct sv){ rest, blen });
    out->key = strdup(slash ? slash + 1 : "");
    if (!out->bucket || !out->key) {
        s3_uri_release(out);
        return s3c_fail(e, S3C_ENOMEM, "out of memory");
    }
    return S3C_OK;
}

void s3_uri_release(struct s3_uri *u)
{
    free(u->bucket);
    free(u->key);
    u->bucket = u->key = NULL;
}
