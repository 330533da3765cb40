/*
 * ops_reply: the pieces every S3 answer of s3emu is built from: times,
 * ETags, XML elements, the <Error> body and the plain success answers.
 * It knows no operation and never reads the store.
 */
#include "ops.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/hash.h"

/* Two digits of v (0..99) at p. */
static char *put2(char *p, unsigned v)
{
    p[0] = (char)('0' + v / 10);
    p[1] = (char)('0' + v % 10);
    return p + 2;
}

/*
 * "2026-12-02T14:16:00.123Z" by arithmetic (H. Hinnant's civil_from_days):
 * a listing writes one per key, and gmtime_r + snprintf were a tenth of
 * s3emu's time serving a large listing. Times out of 1970..9999 take the
 * libc way.
 */
void ops_iso_time(int64_t ms, char out[48])
{
    int64_t secs = ms / 1000, z = secs / 86400, era, doe, yoe, doy, mp, y;
    unsigned sod = (unsigned)(secs % 86400), d, m, frac = (unsigned)(ms % 1000);
    char *p = out;

    if (ms < 0 || secs >= 253402300800LL) {     /* 10000-01-01 */
        time_t t = (time_t)(ms / 1000);
        struct tm tm;

        gmtime_r(&t, &tm);
        snprintf(out, 48, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1,
                 tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, (int)(ms % 1000));
        return;
    }
    z += 719468;
    era = z / 146097;
    doe = z - era * 146097;
    yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    mp = (5 * doy + 2) / 153;
    d = (unsigned)(doy - (153 * mp + 2) / 5 + 1);
    m = (unsigned)(mp < 10 ? mp + 3 : mp - 9);
    y = yoe + era * 400 + (m <= 2);
    p = put2(p, (unsigned)(y / 100));
    p = put2(p, (unsigned)(y % 100));
    *p++ = '-';
    p = put2(p, m);
    *p++ = '-';
    p = put2(p, d);
    *p++ = 'T';
    p = put2(p, sod / 3600);
    *p++ = ':';
    p = put2(p, sod / 60 % 60);
    *p++ = ':';
    p = put2(p, sod % 60);
    *p++ = '.';
    *p++ = (char)('0' + frac / 100);
    p = put2(p, frac % 100);
    *p++ = 'Z';
    *p = '\0';
}

void ops_http_time(int64_t ms, char out[40])
{
    time_t t = (time_t)(ms / 1000);
    struct tm tm;

    gmtime_r(&t, &tm);
    strftime(out, 40, "%a, %d %b %Y %H:%M:%S GMT", &tm);
}

void ops_md5_etag(const void *p, size_t n, char out[48])
{
    unsigned char d[MD5_LEN];
    char hex[2 * MD5_LEN + 1];

    hash_md5(p, n, d);
    str_hex(d, MD5_LEN, hex);
    snprintf(out, 48, "\"%s\"", hex);
}

/* Compare ETags ignoring quotes and a W/ prefix; "*" matches anything. */
bool ops_etag_match(struct sv want, const char *have)
{
    struct sv h = sv_from(have);

    if (h.n >= 2 && h.p[0] == '"')
        h.p++, h.n -= 2;
    while (want.n) {
        const char *comma = memchr(want.p, ',', want.n);
        size_t len = comma ? (size_t)(comma - want.p) : want.n;
        struct sv one = sv_trim((struct sv){ want.p, len });

        want.p += len;
        want.n -= len;
        if (comma)
            want.p++, want.n--;
        if (sv_starts(one, "W/"))
            one.p += 2, one.n -= 2;
        if (one.n == 1 && one.p[0] == '*')
            return true;
        if (one.n >= 2 && one.p[0] == '"')
            one.p++, one.n -= 2;
        if (sv_eq(one, h))
            return true;
    }
    return false;
}

/* Bytes that encoding-type=url leaves as they are (form-style, '/' kept). */
static bool url_plain(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
           c == '.' || c == '~' || c == '/';
}

/*
 * S3's encoding-type=url, space as '+'. What it writes ([A-Za-z0-9-_.~/+%])
 * needs no XML escaping, so it goes straight into 'b', room made first.
 */
static void url_enc(struct buf *b, const char *s, size_t n)
{
    static const char hex[] = "0123456789ABCDEF";
    char *w;
    size_t i;

    if (n > SIZE_MAX / 3 || buf_grow(b, 3 * n))
        return;
    w = b->data + b->len;
    for (i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];

        if (url_plain(c)) {
            *w++ = (char)c;
        } else if (c == ' ') {
            *w++ = '+';
        } else {
            *w++ = '%';
            *w++ = hex[c >> 4];
            *w++ = hex[c & 15];
        }
    }
    b->len = (size_t)(w - b->data);
    b->data[b->len] = '\0';
}

void ops_xml_key(struct buf *b, const char *name, const char *s, size_t n, bool url)
{
    buf_addc(b, '<');
    buf_adds(b, name);
    buf_addc(b, '>');
    if (url)
        url_enc(b, s, n);
    else
        emu_xml_esc(b, s, n);
    buf_add(b, "</", 2);
    buf_adds(b, name);
    buf_addc(b, '>');
}

void ops_xml_open(struct buf *b, const char *root)
{
    buf_addf(b, XML_DECL "<%s xmlns=\"" XMLNS "\">", root);
}

void ops_owner_xml(struct buf *b, const char *tag)
{
    buf_addc(b, '<');
    buf_adds(b, tag);
    buf_adds(b, "><ID>" OWNER_ID "</ID><DisplayName>" OWNER_NAME "</DisplayName></");
    buf_adds(b, tag);
    buf_addc(b, '>');
}

void ops_error(struct emu_server *s, struct emu_conn *c, int status, const char *code,
               const char *msg, const char *extra_xml)
{
    struct emu_resp *r = &c->resp;
    struct emu_req *q = &c->req;
    char rid[17];

    buf_reset(&r->body);
    buf_reset(&r->hdrs);
    emu_blob_unref(r->blob);
    r->blob = NULL;
    snprintf(rid, sizeof(rid), "%016llX", (unsigned long long)q->id);
    buf_addf(&r->body, XML_DECL "<Error><Code>%s</Code><Message>", code);
    emu_xml_esc(&r->body, msg, strlen(msg));
    buf_adds(&r->body, "</Message>");
    if (extra_xml)
        buf_adds(&r->body, extra_xml);
    buf_addf(&r->body, "<RequestId>%s</RequestId><HostId>s3emu/%s</HostId></Error>", rid, rid);
    emu_resp_xml_body(r, status);
    if (sv_eqs(q->method, "HEAD")) {
        r->no_body = true;
        r->content_length = 0;
    }
    if (status == 503)
        emu_resp_header(r, "Retry-After", "1");
}

void ops_err_key(struct emu_server *s, struct emu_conn *c, int status, const char *code,
                 const char *msg)
{
    struct buf x = BUF_INIT(1 << 16);

    if (c->req.key)
        ops_xml_key(&x, "Key", c->req.key, c->req.klen, false);
    ops_error(s, c, status, code, msg, buf_cstr(&x));
    buf_release(&x);
}

void ops_err_bucket(struct emu_server *s, struct emu_conn *c, int status, const char *code,
                    const char *msg)
{
    struct buf x = BUF_INIT(4096);

    if (c->req.bucket)
        emu_xml_elem(&x, "BucketName", c->req.bucket);
    ops_error(s, c, status, code, msg, buf_cstr(&x));
    buf_release(&x);
}

void ops_no_such_bucket(struct emu_server *s, struct emu_conn *c)
{
    ops_err_bucket(s, c, 404, "NoSuchBucket", "The specified bucket does not exist");
}

void ops_no_such_key(struct emu_server *s, struct emu_conn *c)
{
    ops_err_key(s, c, 404, "NoSuchKey", "The specified key does not exist.");
}

void ops_no_such_upload(struct emu_server *s, struct emu_conn *c)
{
    struct buf x = BUF_INIT(4096);
    const char *id = emu_req_param(&c->req, "uploadId");

    emu_xml_elem(&x, "UploadId", id ? id : "");
    ops_error(s, c, 404, "NoSuchUpload",
              "The specified upload does not exist. The upload ID may be invalid, or the upload may "
              "have been aborted or completed.", buf_cstr(&x));
    buf_release(&x);
}

void ops_ok_xml(struct emu_conn *c)
{
    emu_resp_xml_body(&c->resp, 200);
}

void ops_ok_empty(struct emu_conn *c, int status)
{
    c->resp.status = status;
    c->resp.content_length = 0;
}

char *ops_decode_path(struct sv in, size_t *len)
{
    struct buf b = BUF_INIT(1 << 16);
    size_t i;

    for (i = 0; i < in.n; i++) {
        unsigned int v;
        char h[3];

        if (in.p[i] == '%' && i + 2 < in.n + 0 && isxdigit((unsigned char)in.p[i + 1]) &&
            isxdigit((unsigned char)in.p[i + 2])) {
            h[0] = in.p[i + 1];
            h[1] = in.p[i + 2];
            h[2] = 0;
            v = (unsigned int)strtoul(h, NULL, 16);
            buf_addc(&b, (char)v);
            i += 2;
        } else {
            buf_addc(&b, in.p[i]);
        }
    }
    *len = b.len;
    return buf_detach(&b);
}

bool ops_get_max(struct emu_server *s, struct emu_conn *c, const char *name, int *out)
{
    const char *v = emu_req_param(&c->req, name);
    uint64_t n;

    *out = 1000;
    if (!v)
        return true;
    if (!sv_to_u64(sv_from(v), &n)) {
        ops_error(s, c, 400, "InvalidArgument", "Provided max-keys not an integer or within integer range", NULL);
        return false;
    }
    *out = n > 1000 ? 1000 : (int)n;
    return true;
}
