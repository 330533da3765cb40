#include "base/str.h"

#include "base/pct.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct sv sv_from(const char *s)
{
    struct sv v = { s ? s : "", s ? strlen(s) : 0 };
    return v;
}

bool sv_eq(struct sv a, struct sv b)
{
    return a.n == b.n && (a.n == 0 || memcmp(a.p, b.p, a.n) == 0);
}

bool sv_eqs(struct sv a, const char *s)
{
    return sv_eq(a, sv_from(s));
}

bool sv_ieqs(struct sv a, const char *s)
{
    size_t n = strlen(s);
    return a.n == n && (n == 0 || strncasecmp(a.p, s, n) == 0);
}

bool sv_starts(struct sv a, const char *prefix)
{
    size_t n = strlen(prefix);
    return a.n >= n && memcmp(a.p, prefix, n) == 0;
}

static bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

struct sv sv_trim(struct sv a)
{
    while (a.n && is_space(a.p[0])) {
        a.p++;
        a.n--;
    }
    while (a.n && is_space(a.p[a.n - 1]))
        a.n--;
    return a;
}

char *sv_dup(struct sv a)
{
    char *s = malloc(a.n + 1);

    if (!s)
        return NULL;
    if (a.n)
        memcpy(s, a.p, a.n);
    s[a.n] = '\0';
    return s;
}

bool sv_is_dir(struct sv a)
{
    return a.n && a.p[a.n - 1] == '/';
}

bool sv_to_u64(struct sv a, uint64_t *out)
{
    uint64_t v = 0;
    size_t i;

    if (a.n == 0)
        return false;
    for (i = 0; i < a.n; i++) {
        unsigned d = (unsigned char)a.p[i] - '0';
        if (d > 9 || v > (UINT64_MAX - d) / 10)
            return false;
        v = v * 10 + d;
    }
    *out = v;
    return true;
}

bool str_copy(char *dst, size_t dst_size, const char *src)
{
    size_t n = strlen(src);

    if (dst_size == 0)
        return false;
    if (n >= dst_size) {
        memcpy(dst, src, dst_size - 1);
        dst[dst_size - 1] = '\0';
        return false;
    }
    memcpy(dst, src, n + 1);
    return true;
}

uint64_t str_fnv1a(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    size_t i;

    for (i = 0; i < n; i++) {
        h ^= b[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

void str_hex(const unsigned char *in, size_t n, char *out)
{
    static const char digits[] = "0123456789abcdef";
    size_t i;

    for (i = 0; i < n; i++) {
        out[2 * i] = digits[in[i] >> 4];
        out[2 * i + 1] = digits[in[i] & 15];
    }
    out[2 * n] = '\0';
}

bool str_unhex(const char *hex, unsigned char *out, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++) {
        int hi = pct_hexval(hex[2 * i]), lo = hi < 0 ? -1 : pct_hexval(hex[2 * i + 1]);

        if (lo < 0)
            return false;
        out[i] = (unsigned char)(hi << 4 | lo);
    }
    return true;
}

size_t str_utf8_next(const unsigned char *p, size_t n, uint32_t *cp)
{
    uint32_t c = p[0], min;
    size_t len, i;

    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    if (c >= 0xc2 && c <= 0xdf)
        len = 2, c &= 0x1f, min = 0x80;
    else if (c >= 0xe0 && c <= 0xef)
        len = 3, c &= 0x0f, min = 0x800;
    else if (c >= 0xf0 && c <= 0xf4)
        len = 4, c &= 0x07, min = 0x10000;
    else
        return 0;
    if (n < len)
        return 0;
    for (i = 1; i < len; i++) {
        if ((p[i] & 0xc0) != 0x80)
            return 0;
        c = c << 6 | (p[i] & 0x3f);
    }
    if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
        return 0;
    *cp = c;
    return len;
}

bool sv_is_utf8(struct sv a)
{
    const unsigned char *p = (const unsigned char *)a.p;
    size_t i = 0, len;
    uint32_t cp;

    for (; i < a.n; i += len)
        if (!(len = str_utf8_next(p + i, a.n - i, &cp)))
            return false;
    return true;
}
