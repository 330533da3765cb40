/* fattr.c — a file's mtime, mode and owner as S3 user metadata (see fattr.h). */
#include "s3/fattr.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "base/isotime.h"

/* Times a file system can hold and a 64-bit time_t can carry, with room: year 1 to 9999. */
#define FATTR_SECONDS_MIN (-62135596800LL)
#define FATTR_SECONDS_MAX 253402300799LL

void fattr_mtime_format(int64_t s, int32_t ns, char out[FATTR_MTIME_MAX])
{
    int n;

    if (ns <= 0 || ns > 999999999) {
        snprintf(out, FATTR_MTIME_MAX, "%" PRId64, s);
        return;
    }
    /* Before 1970 with a fraction: -0.25 is s = -1, ns = 750000000. */
    if (s < 0)
        n = snprintf(out, FATTR_MTIME_MAX, "%s%" PRId64 ".%09" PRId32, s == -1 ? "-" : "", s + 1,
                     1000000000 - ns);
    else
        n = snprintf(out, FATTR_MTIME_MAX, "%" PRId64 ".%09" PRId32, s, ns);
    while (n > 0 && out[n - 1] == '0')
        out[--n] = '\0';
}

bool fattr_mtime_parse(struct sv v, int64_t *s, int32_t *ns)
{
    uint64_t whole = 0;
    int32_t frac = 0;
    bool neg = false;
    size_t i = 0, digits = 0, w;

    v = sv_trim(v);
    if (v.n && memchr(v.p, 'T', v.n)) {
        char text[64];
        time_t t;

        if (v.n >= sizeof(text))
            return false;
        memcpy(text, v.p, v.n);
        text[v.n] = '\0';
        if (!iso8601_parse(text, &t))
            return false;
        *s = (int64_t)t;
        *ns = 0;
        return *s >= FATTR_SECONDS_MIN && *s <= FATTR_SECONDS_MAX;
    }
    if (i < v.n && (v.p[i] == '-' || v.p[i] == '+'))
        neg = v.p[i++] == '-';
    for (w = i; i < v.n && v.p[i] >= '0' && v.p[i] <= '9'; i++)
        if (i - w < 12)
            whole = whole * 10 + (uint64_t)(v.p[i] - '0');
        else
            return false; /* beyond year 9999 */
    if (i == w)
        return false;
    if (i < v.n && v.p[i] == '.') {
        for (i++; i < v.n && v.p[i] >= '0' && v.p[i] <= '9'; i++, digits++)
            if (digits < 9)
                frac = frac * 10 + (v.p[i] - '0');
        for (; digits < 9; digits++)
            frac *= 10;
    }
    if (i != v.n)
        return false;
    if (neg) {
        *s = -(int64_t)whole - (frac ? 1 : 0);
        *ns = frac ? 1000000000 - frac : 0;
    } else {
        *s = (int64_t)whole;
        *ns = frac;
    }
    return *s >= FATTR_SECONDS_MIN && *s <= FATTR_SECONDS_MAX;
}

/* A number of 'base' 8 or 10 that fits 32 bits. */
static bool num32(struct sv v, unsigned base, uint32_t *out)
{
    uint64_t x = 0;
    size_t i;

    v = sv_trim(v);
    if (!v.n || v.n > 11)
        return false;
    for (i = 0; i < v.n; i++) {
        unsigned d = (unsigned char)v.p[i] - '0';
        if (d >= base)
            return false;
        x = x * base + d;
    }
    if (x > UINT32_MAX)
        return false;
    *out = (uint32_t)x;
    return true;
}

/* The value of 'key' in s3cmd's "k:v/k:v" form, or an empty view. */
static struct sv s3cmd_field(struct sv attrs, const char *key)
{
    size_t kl = strlen(key);
    const char *p = attrs.p, *end = attrs.p + attrs.n;

    while (p < end) {
        const char *e = memchr(p, '/', (size_t)(end - p));
        size_t n = e ? (size_t)(e - p) : (size_t)(end - p);

        if (n > kl && !memcmp(p, key, kl) && p[kl] == ':')
            return (struct sv){ p + kl + 1, n - kl - 1 };
        p += n + 1;
    }
    return SV_NULL;
}

void fattr_from_meta(struct fattr *a, const struct fattr_meta *m)
{
    uint32_t x;
    int64_t s;
    int32_t ns;

    if (fattr_mtime_parse(m->mtime, &s, &ns) ||
        (m->s3cmd.n && fattr_mtime_parse(s3cmd_field(m->s3cmd, "mtime"), &s, &ns))) {
        a->has_mtime = true;
        a->mtime_s = s;
        a->mtime_ns = ns;
    }
    /* rclone's mode is octal, s3cmd's decimal; both carry the file type, which is not ours to take. */
    if (num32(m->mode, 8, &x) || (m->s3cmd.n && num32(s3cmd_field(m->s3cmd, "mode"), 10, &x))) {
        a->has_mode = true;
        a->mode = x & 07777;
    }
    if (num32(m->uid, 10, &x) || (m->s3cmd.n && num32(s3cmd_field(m->s3cmd, "uid"), 10, &x))) {
        a->has_uid = true;
        a->uid = x;
    }
    if (num32(m->gid, 10, &x) || (m->s3cmd.n && num32(s3cmd_field(m->s3cmd, "gid"), 10, &x))) {
        a->has_gid = true;
        a->gid = x;
    }
}
