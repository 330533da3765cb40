/*
 * ops_reply: the pieces every S3 answer of s3emu is built from: times,
 * ETags, XML elements, the <Error> body and the plain success answers.
 * It knows no operation and never reads the store.
 */
#include "ops.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"

void ops_iso_time(int64_t ms, char out[48])
{
    time_t t = (time_t)(ms / 1000);
    struct tm tm;

    gmtime_r(&t, &tm);
    snprintf(out, 48, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1,
             tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, (int)(ms % 1000));
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

/* S3's encoding-type=url: form-style, '/' kept, space as '+'. */
static void url_enc(struct buf *b, const char *s, size_t n)
{
    static const char hex[] = "0123456789ABCDEF";
    size_t i;

    for (i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];

        if (isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~' || c == '/')
            buf_addc(b, (char)c);
        else if (c == ' ')
            buf_addc(b, '+');
        else
            buf_addf(b, "%%%c%c", hex[c >> 4], hex[c & 15]);
    }
}

void ops_xml_key(struct buf *b, const char *name, const char *s, size_t n, bool url)
{
    buf_addf(b, "<%s>", name);
    if (url) {
        struct buf t = BUF_INIT(1 << 16);
        url_enc(&t, s, n);
        emu_xml_esc(b, buf_cstr(&t), t.len);
        buf_release(&t);
    } else {
        emu_xml_esc(b, s, n);
    }
    buf_addf(b, "</%s>", name);
}

void ops_xml_open(struct buf *b, const char *root)
{
    buf_addf(b, XML_DECL "<%s xmlns=\"" XMLNS "\">", root);
}

void ops_owner_xml(struct buf *b, const char *tag)
{
    buf_addf(b, "<%s><ID>" OWNER_ID "</ID><DisplayName>" OWNER_NAME "</DisplayName></%s>", tag, tag);
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
