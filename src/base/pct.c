#include "base/pct.h"

static bool is_unreserved(unsigned char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
           c == '-' || c == '_' || c == '.' || c == '~';
}

enum s3c_err pct_encode(struct sv in, bool keep_slash, struct buf *out)
{
    static const char hex[] = "0123456789ABCDEF";
    size_t i, start = 0;

    for (i = 0; i < in.n; i++) {
        unsigned char c = (unsigned char)in.p[i];
        char esc[3];

        if (is_unreserved(c) || (keep_slash && c == '/'))
            continue;
        /* Copy the run of kept bytes, then the escape. */
        if (buf_add(out, in.p + start, i - start))
            return S3C_ENOMEM;
        esc[0] = '%';
        esc[1] = hex[c >> 4];
        esc[2] = hex[c & 15];
        if (buf_add(out, esc, 3))
            return S3C_ENOMEM;
        start = i + 1;
    }
    return buf_add(out, in.p + start, in.n - start) ? S3C_ENOMEM : S3C_OK;
}

int pct_hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}
