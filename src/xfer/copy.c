/*
 * Server-side copies: how one starts (CopyObject, or a multipart upload of
 * UploadPartCopy parts, multipart.c), the copy source header, the source's
 * headers a multipart copy must carry. Calls req.c and part.c; no other family.
 */
#include <string.h>
#include <strings.h>

#include "auth/sigv4.h"
#include "base/str.h"
#include "s3/xml.h"
#include "xfer/engine.h"

/* S3 to S3: one CopyObject, or a multipart upload of UploadPartCopy parts
 * (after a HEAD of the source for the headers it must carry, unless REPLACE). */
enum s3c_err copy_start(struct engine *g, struct xfer_obj_state *os, struct req **out, struct s3c_error *e)
{
    struct xfer_obj *o = os->o;
    struct req *r;

    *out = NULL;
    os->size = o->size;
    if (wants_multipart(g, os->size)) {
        bool replace = o->opts && o->opts->metadata_directive &&
                       !strcmp(o->opts->metadata_directive, "REPLACE");
        plan_parts(g, os);
        os->phase = PH_CREATE;
        r = req_get(g, os, replace ? RK_CREATE : RK_HEAD_SRC);
        if (!r)
            return s3c_fail(e, S3C_ENOMEM, "out of memory");
        *out = r;
        return S3C_OK;
    }
    os->phase = PH_SINGLE;
    r = req_get(g, os, RK_COPY);
    if (!r)
        return s3c_fail(e, S3C_ENOMEM, "out of memory");
    r->len = os->size;
    if (copy_source(o, &r->hdr_copy_src)) {
        req_put_back(g, r);
        return s3c_fail(e, S3C_ENOMEM, "key too long");
    }
    *out = r;
    return S3C_OK;
}

enum s3c_err copy_source(const struct xfer_obj *o, struct buf *out)
{
    enum s3c_err rc = buf_addc(out, '/');

    if (!rc)
        rc = sigv4_uri_encode(sv_from(o->src_bucket), 0, out);
    if (!rc)
        rc = buf_addc(out, '/');
    if (!rc)
        rc = sigv4_uri_encode(sv_from(o->src), 1, out);
    return rc;
}

/* Keep the headers a copy must carry, then start the multipart upload. */
void on_head_src(struct engine *g, struct req *r)
{
    static const char *keep[] = { "content-type", "cache-control", "content-disposition",
                                  "content-encoding", "content-language", "expires",
                                  "x-amz-website-redirect-location", NULL };
    struct xfer_obj_state *os = r->os;
    struct s3c_error e = S3C_ERROR_INIT;
    struct sv name, value;
    size_t pos = 0;
    struct req *c;
    int i;

    buf_reset(&os->src_headers);
    while (http_resp_next_header(&r->http.resp, &pos, &name, &value)) {
        bool wanted = name.n > 11 && strncasecmp(name.p, "x-amz-meta-", 11) == 0;
        for (i = 0; !wanted && keep[i]; i++)
            wanted = sv_ieqs(name, keep[i]);
        if (!wanted)
            continue;
        buf_addsv(&os->src_headers, name);
        buf_addc(&os->src_headers, '\0');
        buf_addsv(&os->src_headers, value);
        buf_addc(&os->src_headers, '\0');
    }
    req_put_back(g, r);
    os->phase = PH_CREATE;
    c = req_get(g, os, RK_CREATE);
    if (!c || req_submit(g, c, &e)) {
        if (c)
            req_put_back(g, c);
        if (!e.code)
            s3c_fail(&e, S3C_ENOMEM, "out of memory");
        obj_fail(g, os, &e);
        maybe_finish(g, os);
    }
}

/* CopyObject answered: S3 may answer 200 and then fail, with no result. */
void on_copy(struct engine *g, struct req *r)
{
    struct xfer_obj_state *os = r->os;
    struct s3c_error e = S3C_ERROR_INIT;

    if (r->local_failed) {
        req_fail(g, r, &r->local_err, false, 0);
        return;
    }
    if (s3_xml_body_kind(buf_sv(&r->http.resp.body)) != S3_BODY_RESULT) {
        s3c_fail(&e, S3C_EHTTP, "CopyObject answered 200 without a result");
        str_copy(e.s3_code, sizeof(e.s3_code), "InternalError");
        req_fail(g, r, &e, true, 0);
        return;
    }
    os->phase = PH_END;
    req_put_back(g, r);
    maybe_finish(g, os);
}
