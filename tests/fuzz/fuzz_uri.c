/*
 * libFuzzer target for what turns user and network text into names:
 * s3:// arguments (s3/uri), endpoint URLs (s3_url_parse), percent-encoding
 * (base/pct), bucket names for virtual hosting, and object keys turned into
 * local paths (fs/path: a hostile listing must never escape the
 * destination). The input is one C string (cut at the first NUL) for the
 * parsers and the whole byte string for keys and encoding. Checks:
 *   - s3_uri_parse accepts exactly what starts with s3:// (any case) and
 *     splits at the first '/' after it; "s3://" + bucket + "/" + key
 *     parses back to the same parts;
 *   - s3_url_parse's views lie inside the input, ports are 1-65535;
 *   - pct_encode writes only unreserved bytes and %XX, and decoding it gives
 *     the input back;
 *   - a key path_join_safe accepts becomes "dest/" + key with no empty, "."
 *     or ".." segment, no NUL or backslash, never absolute.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/pct.h"
#include "fs/path.h"
#include "s3/endpoint.h"
#include "s3/uri.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_uri(const char *s)
{
    struct s3_uri u = S3_URI_INIT, back = S3_URI_INIT;
    struct s3c_error e = S3C_ERROR_INIT;
    struct buf again = BUF_INIT(1 << 20);
    const char *slash;

    if (s3_uri_parse(s, &u, &e) != S3C_OK) {
        /* The message quotes the argument as given (cli/output.c escapes
         * control bytes when it prints): it must only be terminated. */
        if (strlen(e.msg) >= sizeof(e.msg))
            abort();
        if (strncasecmp(s, "s3://", 5) == 0 && s[5] != '/' && strlen(s) < 200)
            abort(); /* only an empty or overlong bucket is refused */
        return;
    }
    if (strncasecmp(s, "s3://", 5) != 0 || strchr(u.bucket, '/'))
        abort();
    slash = strchr(s + 5, '/');
    if (strcmp(u.key, slash ? slash + 1 : "") != 0)
        abort();
    if (u.bucket[0] && buf_addf(&again, "s3://%s/%s", u.bucket, u.key) == S3C_OK &&
        (s3_uri_parse(buf_cstr(&again), &back, &e) != S3C_OK || strcmp(back.bucket, u.bucket) ||
         strcmp(back.key, u.key)))
        abort();
    s3_uri_release(&back);
    s3_uri_release(&u);
    buf_release(&again);
}

static void check_url(const char *s)
{
    struct s3_url u;
    struct s3c_error e = S3C_ERROR_INIT;
    size_t n = strlen(s);

    memset(&u, 0, sizeof(u));
    if (s3_url_parse(s, &u, &e) != S3C_OK)
        return;
    if (u.host.n == 0 || u.host.p < s || u.host.p + u.host.n > s + n)
        abort();
    if (u.path.n && (u.path.p < s || u.path.p + u.path.n > s + n))
        abort();
    if (u.port > 65535)
        abort();
}

static void check_pct(struct sv in, bool keep_slash)
{
    struct buf out = BUF_INIT(1 << 22);
    struct buf dec = BUF_INIT(1 << 22);
    size_t i;

    if (pct_encode(in, keep_slash, &out) != S3C_OK)
        abort(); /* 3 bytes per input byte always fit */
    for (i = 0; i < out.len; i++) {
        char c = out.data[i];
        if (c == '%') {
            if (i + 2 >= out.len)
                abort();
            if (pct_hexval(out.data[i + 1]) < 0 || pct_hexval(out.data[i + 2]) < 0)
                abort();
            buf_addc(&dec, (char)(pct_hexval(out.data[i + 1]) * 16 + pct_hexval(out.data[i + 2])));
            i += 2;
            continue;
        }
        if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
              c == '-' || c == '_' || c == '.' || c == '~' || (keep_slash && c == '/')))
            abort();
        buf_addc(&dec, c);
    }
    if (dec.len != in.n || (in.n && memcmp(dec.data, in.p, in.n) != 0))
        abort();
    buf_release(&out);
    buf_release(&dec);
}

static void check_key_path(struct sv key)
{
    struct buf out = BUF_INIT(1 << 20);
    struct s3c_error e = S3C_ERROR_INIT;
    const char *p, *end;

    if (path_join_safe("dest", key, &out, &e) != S3C_OK) {
        buf_release(&out);
        return;
    }
    if (out.len < 6 || memcmp(out.data, "dest/", 5) != 0)
        abort();
    if (memchr(out.data, '\0', out.len) || memchr(out.data, '\\', out.len))
        abort();
    /* Walk the segments after "dest/": none may climb or be empty (but a trailing '/'). */
    p = out.data + 5;
    end = out.data + out.len;
    while (p < end) {
        const char *s = memchr(p, '/', (size_t)(end - p));
        size_t len = s ? (size_t)(s - p) : (size_t)(end - p);
        if ((len == 0 && !(s && s + 1 == end && p != out.data + 5)) ||
            (len == 1 && p[0] == '.') || (len == 2 && p[0] == '.' && p[1] == '.'))
            abort();
        if (len == 0)
            break;
        p += len + 1;
    }
    buf_release(&out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    struct sv all = { (const char *)data, size };

    if (!s)
        return 0;
    memcpy(s, data, size);
    s[size] = '\0';
    check_uri(s);
    check_url(s);
    (void)s3_bucket_is_virtual_hostable(s, true);
    (void)s3_bucket_is_virtual_hostable(s, false);
    check_pct(all, true);
    check_pct(all, false);
    check_key_path(all);
    free(s);
    return 0;
}
