/*
 * Server-side copies, the family of struct obj_copy: how one starts
 * (CopyObject, or a multipart upload of UploadPartCopy parts, multipart.c),
 * the copy source header, and what a copy keeps of its source: CopyObject keeps metadata and tags by itself
 * (directives say otherwise); a multipart copy asks the source first
 * (HeadObject for the headers, GetObjectTagging for the tags) and sends
 * them with CreateMultipartUpload, as the AWS CLI's --copy-props does.
 * A relay (xfer_opts.relay_copies: the source side is another service, or
 * needs other keys) moves the bytes through s3c instead: GETs from the
 * source side into memory, each sent on as PutObject or UploadPart; the
 * bytes read are checked against the source's stored CRC or MD5 ETag, what
 * was sent against the destination's answers, as uploads are.
 * Calls req.c, part.c, verify.c and resume.c (mpu_release); no other family.
 */
#include <string.h>
#include <strings.h>
#include <openssl/rand.h>

#include "auth/sigv4.h"
#include "base/str.h"
#include "s3/endpoint.h"
#include "s3/xml.h"
#include "xfer/engine.h"

/* Metadata flags on the command line (--content-type, --metadata...). */
static bool meta_flags(const struct xfer_obj_opts *oo)
{
    return oo && (oo->content_type || oo->cache_control || oo->content_encoding || oo->content_disposition ||
                  oo->content_language || oo->expires || oo->n_metadata);
}

/*
 * What the copy keeps of its metadata, as the AWS CLI: --metadata-directive
 * decides when given, else --copy-props (default and metadata-directive keep
 * it, none does not). Metadata flags with no --metadata-directive replace
 * those of the source's properties and keep the rest: the source's HEAD is
 * asked for one CopyObject too, which then says REPLACE ('merge').
 */
static bool copy_keeps_meta(const struct xfer_obj_opts *oo, bool *merge)
{
    enum xfer_copy_props props = oo ? oo->copy_props : XFER_PROPS_DEFAULT;
    const char *md = oo ? oo->metadata_directive : NULL;
    bool keep = md ? strcmp(md, "REPLACE") != 0 : props != XFER_PROPS_NONE;

    *merge = keep && !md && meta_flags(oo);
    return keep;
}

bool xfer_copy_changes(const struct xfer_obj_opts *oo)
{
    bool merge;

    if (!copy_keeps_meta(oo, &merge) || merge)
        return true;
    /* S3's "without changing the object's metadata, storage class, website redirect location or
     * encryption attributes". */
    return oo && (oo->storage_class || oo->sse || oo->sse_kms_key_id || oo->sse_c_key || oo->website_redirect);
}

/*
 * What the copy keeps: its metadata (copy_keeps_meta); tags with the default
 * --copy-props only. Directory buckets have no tags: none are asked for or
 * refused there. Storage class, ACL and encryption are never kept: CopyObject
 * and CreateMultipartUpload alike carry the command line's (req.c).
 */
static void copy_props(const struct engine *g, struct obj_copy *c)
{
    const struct xfer_obj *o = c->head.o;
    const struct xfer_obj_opts *oo = o->opts;
    enum xfer_copy_props props = oo ? oo->copy_props : XFER_PROPS_DEFAULT;
    bool directory = s3_bucket_is_express(o->src_bucket) || s3_bucket_is_express(o->dst_bucket);

    c->keep_meta = copy_keeps_meta(oo, &c->merge_meta);
    c->keep_tags = props == XFER_PROPS_DEFAULT && !directory && !g->no_tagging;
    c->drop_tags = props != XFER_PROPS_DEFAULT && !directory;
}

static void copy_keep_headers(struct obj_copy *c, const struct http_resp *resp);
static enum s3c_err copy_begin(struct engine *g, struct xfer_obj_state *os, struct req **out, struct s3c_error *e);
static enum s3c_err relay_start(struct engine *g, struct xfer_obj_state *os, struct req **out, struct s3c_error *e);
static void relay_go(struct engine *g, struct xfer_obj_state *os);
static void relay_tags_in(struct engine *g, struct xfer_obj_state *os);

/* The CopyObject of a copy in one request: its length and source. */
static enum s3c_err copy_single(struct xfer_obj_state *os, struct req *r)
{
    r->len = os->size;
    return copy_source(os->o, &r->hdr_copy_src);
}

/*
 * The one choice of how an object is copied: 0 for one CopyObject, else the
 * part size of a multipart copy. A part size or threshold the user set
 * (--part-size, multipart_chunksize, multipart_threshold) decides as for
 * uploads; otherwise the model of server-side copies (xfer_copy_part_size).
 * A store without UploadPartCopy gets CopyObject (copy_start refuses what is
 * over its 5 GiB).
 */
static uint64_t copy_part_size(struct engine *g, uint64_t size)
{
    struct xfer_link l = { g->link_latency_s, g->link_bytes_s, g->n_objects };
    struct xfer_copy_model m = { g->link_latency_s, 0, g->n_objects };

    if (g->no_part_copy || size == 0)
        return 0;
    if (g->opts.part_size || g->opts.multipart_threshold)
        return wants_multipart(g, size) ? xfer_part_size_fit(size, g->opts.part_size, &l) : 0;
    return xfer_copy_part_size(size, &m);
}

/* S3 to S3: one CopyObject, or a multipart upload of UploadPartCopy parts
 * (after a HEAD of the source for its headers, and GetObjectTagging for its
 * tags, when the copy keeps them). */
enum s3c_err copy_start(struct engine *g, struct xfer_obj_state *os, struct req **out, struct s3c_error *e)
{
    struct obj_copy *c = copy_of(os);

    *out = NULL;
    mpu_init(&c->mpu);
    c->src_headers = (struct buf)BUF_INIT(64 << 10);
    c->src_tagging = (struct buf)BUF_INIT(16 << 10);
    c->src_tag_xml = (struct buf)BUF_INIT(32 << 10);
    os->size = os->o->size;
    copy_props(g, c);
    return copy_route(g, os, out, e);
}

/*
 * mv within one directory bucket (xfer_obj.rename): RenameObject, the first of a run as the probe
 * of rename_gate while the store is not known to have it (the others wait for its answer, so a
 * store without it is asked once); otherwise, and once it is known to answer 501, the copy.
 */
enum s3c_err copy_route(struct engine *g, struct xfer_obj_state *os, struct req **out, struct s3c_error *e)
{
    struct xfer_obj *o = os->o;
    struct obj_copy *c = copy_of(os);
    unsigned char rnd[16];
    struct req *r;

    *out = NULL;
    if (!o->rename || g->no_rename)
        return copy_begin(g, os, out, e);
    obj_phase_set(g, os, PH_SINGLE);
    if (!g->rename_ok && g->rename_gate.probe)
        return gate_park(&g->rename_gate, os, e);
    if (RAND_bytes(rnd, sizeof(rnd)) != 1)
        return s3c_fail(e, S3C_EIO, "no random bytes for RenameObject's client token");
    str_hex(rnd, sizeof(rnd), c->rename_token);
    if (!(r = req_get(g, os, RK_RENAME)))
        return s3c_fail(e, S3C_ENOMEM, "out of memory");
    if (copy_source(o, &r->hdr_copy_src)) {
        req_put_back(g, r);
        return s3c_fail(e, S3C_ENOMEM, "key too long");
    }
    if (!g->rename_ok)
        g->rename_gate.probe = r;
    *out = r;
    return S3C_OK;
}

/* The copy itself: relayed, in parts, or one CopyObject. */
static enum s3c_err copy_begin(struct engine *g, struct xfer_obj_state *os, struct req **out, struct s3c_error *e)
{
    struct xfer_obj *o = os->o;
    struct obj_copy *c = copy_of(os);
    uint64_t part_size;
    struct req *r;

    if (g->opts.relay_copies)
        return relay_start(g, os, out, e);
    if (g->no_part_copy && os->size > COPY_OBJECT_MAX)
        return relay_start(g, os, out, e); /* neither CopyObject nor UploadPartCopy can */
    part_size = copy_part_size(g, os->size);
    if (part_size) {
        bool head = c->keep_meta && !o->head; /* the caller's HEAD, when it made one, says it */

        if (c->keep_meta && o->head)
            copy_keep_headers(c, o->head);
        os->part_size = part_size;
        os->n_parts = (uint32_t)((os->size + part_size - 1) / part_size);
        obj_phase_set(g, os, PH_CREATE);
        r = req_get(g, os, head ? RK_HEAD_SRC : c->keep_tags ? RK_GET_TAGS : RK_CREATE);
        if (!r)
            return s3c_fail(e, S3C_ENOMEM, "out of memory");
        *out = r;
        return S3C_OK;
    }
    obj_phase_set(g, os, PH_SINGLE);
    if (c->merge_meta && o->head)
        copy_keep_headers(c, o->head);
    r = req_get(g, os, c->merge_meta && !o->head ? RK_HEAD_SRC : RK_COPY);
    if (!r)
        return s3c_fail(e, S3C_ENOMEM, "out of memory");
    if (r->kind == RK_COPY && copy_single(os, r)) {
        req_put_back(g, r);
        return s3c_fail(e, S3C_ENOMEM, "key too long");
    }
    *out = r;
    return S3C_OK;
}

/* RenameObject answered 200: the object is at its new key and gone from the old, as it was. */
void on_rename(struct engine *g, struct req *r)
{
    struct xfer_obj_state *os = r->os;

    g->rename_ok = true;
    os->o->renamed = true;
    os->proven = true; /* nothing travelled: the store moved the object it holds */
    obj_phase_set(g, os, PH_END);
    req_put_back(g, r);
    maybe_finish(g, os);
}

/* RenameObject refused: a store without it (501, or S3's general purpose buckets) gets the copy and
 * mv's delete after it, from now on in this run; other refusals are the object's failure. */
bool rename_refused(struct engine *g, struct req *r, const struct s3c_error *e)
{
    struct xfer_obj_state *os = r->os;
    struct s3c_error ce = S3C_ERROR_INIT;
    struct req *nr = NULL;

    if (e->http_status != 501 && strcmp(e->s3_code, "NotImplemented") != 0)
        return false;
    if (!g->no_rename)
        xdebug(g, os->o, "the store has no RenameObject (%ld %s): copies, then deletes", e->http_status,
               e->s3_code);
    g->no_rename = true;
    req_put_back(g, r);
    if (copy_route(g, os, &nr, &ce))
        obj_fail(g, os, &ce);
    else if (nr)
        submit_or_fail(g, nr);
    maybe_finish(g, os);
    return true;
}

void copy_release(struct xfer_obj_state *os)
{
    struct obj_copy *c = copy_of(os);

    mpu_release(&c->mpu);
    buf_release(&c->src_headers);
    buf_release(&c->src_tagging);
    buf_release(&c->src_tag_xml);
    hash_free(c->seq);
    c->seq = NULL;
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
    /* One version of the source: S3 takes it in the header, not as a parameter of its own. */
    if (!rc && o->version_id && o->version_id[0]) {
        rc = buf_adds(out, "?versionId=");
        if (!rc)
            rc = sigv4_uri_encode(sv_from(o->version_id), 0, out);
    }
    return rc;
}

/* The next step of a copy's start: GetObjectTagging or CreateMultipartUpload
 * (in parts), or the CopyObject (in one request, after the source's HEAD). */
static void copy_next(struct engine *g, struct xfer_obj_state *os, enum req_kind kind)
{
    struct s3c_error e = S3C_ERROR_INIT;
    struct req *c;

    if (copy_of(os)->relay && !os->n_parts) {
        relay_go(g, os); /* its one GET, then PutObject: no multipart upload */
        return;
    }
    obj_phase_set(g, os, kind == RK_COPY ? PH_SINGLE : PH_CREATE);
    if (kind == RK_CREATE && copy_of(os)->relay)
        kind = resume_first(g, os); /* a relay is journaled: a killed one is continued or aborted */
    c = req_get(g, os, kind);
    if (c && kind == RK_COPY && copy_single(os, c))
        s3c_fail(&e, S3C_ENOMEM, "key too long");
    if (!c || e.code || req_submit(g, c, &e)) {
        if (c)
            req_put_back(g, c);
        if (!e.code)
            s3c_fail(&e, S3C_ENOMEM, "out of memory");
        obj_fail(g, os, &e);
        maybe_finish(g, os);
    }
}

/* The headers of the source's HEAD that a multipart copy must carry. */
static void copy_keep_headers(struct obj_copy *c, const struct http_resp *resp)
{
    static const char *keep[] = { "content-type", "cache-control", "content-disposition",
                                  "content-encoding", "content-language", "expires",
                                  "x-amz-website-redirect-location", NULL };
    struct sv name, value;
    size_t pos = 0;
    int i;

    buf_reset(&c->src_headers);
    while (http_resp_next_header(resp, &pos, &name, &value)) {
        bool wanted = name.n > 11 && strncasecmp(name.p, "x-amz-meta-", 11) == 0;
        for (i = 0; !wanted && keep[i]; i++)
            wanted = sv_ieqs(name, keep[i]);
        if (!wanted)
            continue;
        buf_addsv(&c->src_headers, name);
        buf_addc(&c->src_headers, '\0');
        buf_addsv(&c->src_headers, value);
        buf_addc(&c->src_headers, '\0');
    }
}

/* Keep the headers a copy must carry, then its tags or the multipart upload. */
void on_head_src(struct engine *g, struct req *r)
{
    struct xfer_obj_state *os = r->os;
    struct obj_copy *c = copy_of(os);

    copy_keep_headers(c, &r->http.resp);
    req_put_back(g, r);
    copy_next(g, os, !os->n_parts && !c->relay ? RK_COPY : c->keep_tags ? RK_GET_TAGS : RK_CREATE);
}

/* GetObjectTagging of the source answered: its tags go with CreateMultipartUpload,
 * or, too long for a header, with PutObjectTagging once the copy is complete
 * (multipart.c: put_tags_late). */
void on_src_tags(struct engine *g, struct req *r)
{
    struct xfer_obj_state *os = r->os;
    struct obj_copy *c = copy_of(os);
    struct s3_tagging t = S3_TAGGING_INIT;
    struct s3c_error e = S3C_ERROR_INIT;
    enum s3c_err rc;

    buf_reset(&c->src_tagging);
    buf_reset(&c->src_tag_xml);
    rc = s3_parse_tagging(buf_sv(&r->http.resp.body), &t, &e);
    if (!rc)
        rc = s3_tagging_header(&t, &c->src_tagging);
    if (!rc && c->src_tagging.len > COPY_TAGGING_HEADER_MAX)
        buf_reset(&c->src_tagging); /* PutObjectTagging only */
    if (!rc && t.n_tags)
        rc = s3_build_tagging(&t, &c->src_tag_xml, &e);
    c->n_src_tags = t.n_tags;
    s3_tagging_release(&t);
    if (rc) {
        if (!e.code)
            s3c_fail(&e, S3C_ENOMEM, "the source's tags are too long");
        req_fail(g, r, &e, e.code != S3C_ENOMEM, 0);
        return;
    }
    req_put_back(g, r);
    if (c->tags_wait)
        relay_tags_in(g, os);
    else
        copy_next(g, os, RK_CREATE);
}

/* Whether 'e' is a 501, a store without the operation: the run learns it in
 * '*lacks' (said once in --debug, 'what' then the status). */
static bool learn_501(struct engine *g, const struct req *r, const struct s3c_error *e, bool *lacks, const char *what)
{
    if (e->http_status != 501)
        return false;
    if (!*lacks)
        xdebug(g, r->os->o, "%s (%ld %s)", what, e->http_status, e->s3_code);
    *lacks = true;
    return true;
}

/* GetObjectTagging refused with 501: a store without object tagging. Its
 * objects have no tags to keep: this copy and the run's next ones go on
 * without asking (said in --debug). */
bool src_tags_refused(struct engine *g, struct req *r, const struct s3c_error *e)
{
    struct xfer_obj_state *os = r->os;

    if (!learn_501(g, r, e, &g->no_tagging, "the store has no object tagging: copies keep no tags; GetObjectTagging"))
        return false;
    req_put_back(g, r);
    if (copy_of(os)->tags_wait)
        relay_tags_in(g, os);
    else
        copy_next(g, os, RK_CREATE);
    return true;
}

/*
 * UploadPartCopy refused with 501 NotImplemented (s3rver): the store copies
 * whole objects only. The run's next copies go as one CopyObject each
 * (copy_part_size); this one fails for now, which aborts its upload, and
 * once nothing of it is in flight starts again as one CopyObject
 * (copy_redo). Over CopyObject's 5 GiB it starts again as a relay, and so
 * do the run's next ones that big (copy_start).
 */
/*
 * CopyObject or UploadPartCopy refused with 403 where the source side is a store of its own
 * (other keys, on the same service): the destination's keys cannot read the source, so the
 * bytes go through s3c. This copy fails for now (its upload aborted) and, once nothing of it is
 * in flight, starts again as a relay (copy_redo); the run's next copies relay from the start.
 */
static bool denied_relays(struct engine *g, struct req *r, const struct s3c_error *e)
{
    struct xfer_obj_state *os = r->os;

    if (e->http_status != 403 || g->src_s3 == g->s3 || copy_of(os)->relay)
        return false;
    if (!g->opts.relay_copies)
        xdebug(g, os->o, "%s refused (%ld %s) with the destination's keys: copies go through s3c", req_op_name(r->kind),
               e->http_status, e->s3_code);
    g->opts.relay_copies = true;
    copy_of(os)->redo_relay = true;
    req_put_back(g, r);
    obj_fail(g, os, e);
    maybe_finish(g, os);
    return true;
}

bool copy_refused(struct engine *g, struct req *r, const struct s3c_error *e)
{
    return denied_relays(g, r, e);
}

bool part_copy_refused(struct engine *g, struct req *r, const struct s3c_error *e)
{
    struct xfer_obj_state *os = r->os;

    if (denied_relays(g, r, e))
        return true;
    if (!learn_501(g, r, e, &g->no_part_copy, "the store does not implement UploadPartCopy: copies go as one "
                   "CopyObject each"))
        return false;
    /* Over CopyObject's 5 GiB: the bytes go through s3c (a relay on this store). */
    copy_of(os)->redo_single = os->size <= COPY_OBJECT_MAX;
    copy_of(os)->redo_relay = os->size > COPY_OBJECT_MAX;
    req_put_back(g, r);
    obj_fail(g, os, e);
    maybe_finish(g, os);
    return true;
}

bool copy_redo(struct engine *g, struct xfer_obj_state *os)
{
    struct obj_copy *c = copy_of(os);
    bool relay = c->redo_relay;
    struct s3c_error e = S3C_ERROR_INIT;
    struct req *r = NULL;

    if (!c->redo_single && !c->redo_relay)
        return false;
    c->redo_single = c->redo_relay = false;
    if (stopping(g))
        return false; /* it ends as it failed */
    xdebug(g, os->o, "%s", relay ? "the copy starts again through s3c (a relay)"
                                 : "its upload aborted, the copy starts again as one CopyObject");
    os->failed = false;
    os->err = (struct s3c_error)S3C_ERROR_INIT;
    mpu_release(&c->mpu);
    memset(&c->mpu, 0, sizeof(c->mpu));
    mpu_init(&c->mpu);
    os->n_parts = 0;
    os->part_size = 0;
    os->next_part = 0;
    if (!relay) {
        /* The source's headers, when the copy keeps them, came with the multipart start. */
        copy_next(g, os, RK_COPY);
        return true;
    }
    if (relay_start(g, os, &r, &e)) {
        obj_fail(g, os, &e);
        return false; /* it ends with that */
    }
    if (r)
        submit_or_fail(g, r);
    return true;
}

/*
 * Whether CopyObject's result proves the copy: it names the ETag of the
 * object made (no bytes pass through s3c, so there is nothing of ours to
 * compare it with: the source's ETag may be no MD5, encrypted or multipart).
 * No ETag: nothing says an object was made.
 */
static bool copy_proven(const struct req *r, const char **why)
{
    struct s3_copy_result cr = S3_COPY_RESULT_INIT;
    bool ok = !s3_parse_copy_result(buf_sv(&r->http.resp.body), &cr, NULL) && cr.etag && cr.etag[0];

    if (!ok)
        *why = "the store answered CopyObject with no ETag";
    s3_copy_result_release(&cr);
    return ok;
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
    os->proven = copy_proven(r, &os->unproven);
    obj_phase_set(g, os, PH_END);
    req_put_back(g, r);
    maybe_finish(g, os);
}

/* ---- relays: the bytes through s3c ------------------------------------------------- */

/*
 * A relay's part size: the source's own layout when its ETag names one ("hex-N": the guess
 * xfer_part_size_guesses makes first, so that the MD5 of the part MD5s sent can be its ETag),
 * else the upload's (xfer_part_size); 0: one PutObject.
 */
static uint64_t relay_part_size(struct engine *g, const struct xfer_obj *o, uint64_t size)
{
    uint64_t guess[4];
    char hex[33];
    uint32_t n = o->etag ? xfer_etag_parts(o->etag, hex) : 0;

    if (!wants_multipart(g, size))
        return 0;
    if (n > 1 && !g->opts.part_size && xfer_part_size_guesses(size, n, 0, guess, 4) > 0 &&
        guess[0] >= ((uint64_t)5 << 20))
        return guess[0];
    return xfer_part_size(size, g->opts.part_size);
}

/* S3 to S3 through s3c: the source's headers and tags first when the copy keeps them and the
 * object is in parts (CreateMultipartUpload carries them); one in PutObject takes its headers
 * from its GET's answer. */
static enum s3c_err relay_start(struct engine *g, struct xfer_obj_state *os, struct req **out, struct s3c_error *e)
{
    struct xfer_obj *o = os->o;
    struct obj_copy *c = copy_of(os);
    enum req_kind first;
    struct req *r;
    char hex[33];

    c->relay = true;
    os->part_size = relay_part_size(g, o, os->size);
    os->n_parts = os->part_size ? (uint32_t)((os->size + os->part_size - 1) / os->part_size) : 0;
    /* A source of one PutObject: its ETag is the MD5 of the bytes, taken in order. */
    c->seq_md5 = os->n_parts && g->opts.verify && o->etag && etag_is_md5(sv_from(o->etag), hex) &&
                 !s3_bucket_is_express(o->src_bucket);
    c->seq_next = 1;
    c->seq_busy = false;
    if (c->seq_md5 && c->seq)
        hash_reset(c->seq);
    if (c->seq_md5 && !c->seq && !(c->seq = hash_md5_new()))
        return s3c_fail(e, S3C_ENOMEM, "out of memory");
    if (c->keep_meta && o->head)
        copy_keep_headers(c, o->head);
    c->tags_wait = !os->n_parts && c->keep_tags;
    if (!os->n_parts) {
        relay_go(g, os); /* its GET now, and its tags beside it when they are kept */
        if (!c->tags_wait)
            return S3C_OK;
        if (!(*out = req_get(g, os, RK_GET_TAGS)))
            return s3c_fail(e, S3C_ENOMEM, "out of memory");
        return S3C_OK;
    }
    first = os->n_parts && c->keep_meta && !o->head ? RK_HEAD_SRC : c->keep_tags ? RK_GET_TAGS : resume_first(g, os);
    obj_phase_set(g, os, PH_CREATE);
    if (!(r = req_get(g, os, first)))
        return s3c_fail(e, S3C_ENOMEM, "out of memory");
    *out = r;
    return S3C_OK;
}

/* The bytes start moving: a whole object's one GET, or (after CreateMultipartUpload, by
 * on_create's start_parts) the parts' GETs, all from relay_next on the active list. */
static void relay_go(struct engine *g, struct xfer_obj_state *os)
{
    obj_phase_set(g, os, PH_SINGLE);
    os->next_part = 1;
    os->next = g->active;
    g->active = os;
}

/* relay_next for one object; *full when the loop's memory for relays is. */
static struct req *relay_next_one(struct engine *g, struct xfer_obj_state *os, bool *full)
{
    struct obj_copy *c = copy_of(os);
    uint64_t len = os->n_parts ? os->part_size : os->size;
    struct req *r;

    /* Memory: a window of parts per object, the loop's share of RELAY_MEM_MAX (or one part). */
    if (os->n_parts && os->reqs >= (int)xfer_window_parts(os->part_size))
        return NULL;
    if (g->relay_bytes && g->relay_bytes + len > (g->relay_max ? g->relay_max : RELAY_MEM_MAX)) {
        *full = true;
        return NULL;
    }
    if (!os->n_parts && c->relay_whole_sent)
        return NULL;
    while (os->have && os->next_part <= os->n_parts && os->have[os->next_part - 1] == HAVE_TAKEN)
        os->next_part++; /* --resume: on the store already, and in the whole's proof */
    if (os->n_parts && os->next_part > os->n_parts) {
        active_remove(g, os);
        return NULL;
    }
    if (!(r = req_get(g, os, RK_RELAY_GET)))
        return NULL;
    if (os->n_parts) {
        r->part = os->next_part++;
        r->off = (uint64_t)(r->part - 1) * os->part_size;
        r->len = r->part == os->n_parts ? os->size - r->off : os->part_size;
        if (os->next_part > os->n_parts)
            active_remove(g, os);
    } else {
        c->relay_whole_sent = true;
        r->len = os->size;
        active_remove(g, os);
    }
    relay_buf_take(g, &r->mem, r->len); /* before it is counted: what is kept makes room */
    r->relay_bytes = r->len;
    g->relay_bytes += r->len;
    return r;
}

struct req *relay_next(struct engine *g, struct xfer_obj_state *os)
{
    struct xfer_obj_state *next;
    struct req *r;
    bool full = false;

    /* The first relay on the active list with room in its window: one whose window is full
     * (its parts before are still in flight) does not hold back the relays behind it. */
    for (; os && os->family == FAM_COPY && copy_of(os)->relay && !full; os = next) {
        next = os->next;
        if ((r = relay_next_one(g, os, &full)))
            return r;
    }
    return NULL;
}

enum http_sink_verdict relay_sink(void *ctx, const char *p, size_t n)
{
    struct req *r = ctx;

    if (r->got == 0) {
        buf_reset(&r->mem); /* a retry starts again */
        r->mem.max = (size_t)r->len + 1;
        if (buf_grow_exact(&r->mem, (size_t)r->len)) {
            r->local_failed = true;
            s3c_fail(&r->local_err, S3C_ENOMEM, "out of memory for a part of the copy");
            return HTTP_SINK_ABORT;
        }
    }
    if (r->os->failed)
        return HTTP_SINK_ABORT;
    if (r->got + n > r->len || buf_add(&r->mem, p, n)) {
        r->local_failed = true;
        s3c_fail(&r->local_err, S3C_EHTTP, "the store sent more bytes than asked for");
        return HTTP_SINK_ABORT;
    }
    r->got += n;
    r->eng->stats.bytes_live += n;
    r->eng->work_bytes += n;
    return HTTP_SINK_OK;
}

/*
 * A whole object read: its bytes against the source's stored CRC (the GET asked for it; the
 * hash worker took that CRC, relay_hash), else its ETag when that is their MD5 ('md5': the
 * worker's). False with 'e' on a mismatch; nothing to check with leaves os->src_unproven
 * saying so.
 */
static bool relay_whole_ok(struct engine *g, struct req *r, const unsigned char md5[MD5_LEN], struct s3c_error *e)
{
    struct xfer_obj_state *os = r->os;
    const struct hash_job *j = &r->hash.job;
    enum ck_algo algo;
    uint64_t want;
    char hex[33], got[33];
    struct sv etag;

    if (!g->opts.verify)
        return true;
    if (stored_checksum(&r->http.resp, &algo, &want) && j->crc && j->crc_algo == algo) {
        if (j->crc_val == want)
            return true;
        s3c_fail(e, S3C_EHTTP, "the bytes read from the source do not match its stored %s", ck_name(algo));
        return false;
    }
    if (http_resp_header(&r->http.resp, "etag", &etag) && etag_is_md5(etag, hex) &&
        !xfer_etag_not_md5(os->o->src_bucket, &r->http.resp)) {
        str_hex(md5, MD5_LEN, got);
        if (!strcmp(got, hex))
            return true;
        s3c_fail(e, S3C_EHTTP, "the bytes read from the source do not match its ETag (MD5 %s, not %s)", got, hex);
        return false;
    }
    os->src_unproven = "the source has no stored checksum and its ETag is no MD5 of its bytes: what was read is unproven";
    return true;
}

/* A relay's read, checked as far as it can be now, goes on as PutObject or UploadPart: its
 * bytes (and their count in the loop's budget) move over to the write; 'md5' is theirs. */
static void relay_send(struct engine *g, struct req *r, const unsigned char md5[MD5_LEN])
{
    struct xfer_obj_state *os = r->os;
    struct s3c_error e = S3C_ERROR_INIT;
    struct req *p;

    if (!os->n_parts && copy_of(os)->tags_wait) {
        copy_of(os)->put_held = r; /* its PutObject carries the tags: sent once they are in */
        return;
    }

    if (os->have && r->part && os->have[r->part - 1] == HAVE_LISTED) {
        /* --resume: the store has this part; read again for the whole's MD5, sent again only if
         * the part's MD5 is not the one the store listed. */
        os->have[r->part - 1] = 0;
        if (!memcmp(mpu_of(os)->md5s[r->part - 1], md5, MD5_LEN)) {
            g->stats.bytes_live -= r->len;
            req_put_back(g, r);
            if (++os->parts_done == os->n_parts)
                send_complete(g, os);
            maybe_finish(g, os);
            return;
        }
        xdebug(g, os->o, "part %" PRIu32 " on the store is not what the source has there: sent again", r->part);
    }

    if (!(p = req_get(g, os, os->n_parts ? RK_PART : RK_PUT))) {
        s3c_fail(&e, S3C_ENOMEM, "out of memory");
        req_fail(g, r, &e, false, 0);
        return;
    }
    buf_release(&p->mem);
    p->mem = r->mem;
    r->mem = (struct buf)BUF_INIT(0);
    p->relay_bytes = r->relay_bytes;
    r->relay_bytes = 0;
    p->part = r->part;
    p->off = r->off;
    p->len = r->len;
    g->stats.bytes_live -= r->len; /* counted again as they are sent */
    if (os->n_parts) {
        p->hdr_md5[0] = p->hdr_ck[0] = '\0'; /* a part's one check is Content-MD5 */
        mem_md5_set(p, md5);
        req_put_back(g, r);
        submit_or_fail(g, p);
    } else if (!mem_digests_known(g, p, md5, &r->hash.job)) {
        req_put_back(g, r);
        submit_or_fail(g, p);
    } else {
        req_put_back(g, r); /* p is sent once the rest of its digests are back (mem_hashed) */
    }
}

/* The held read of part 'n', taken off the list; NULL when it is not there (yet). */
static struct req *seq_take(struct obj_copy *c, uint32_t n)
{
    struct req **pp;

    for (pp = &c->seq_held; *pp; pp = &(*pp)->next)
        if ((*pp)->part == n) {
            struct req *r = *pp;
            *pp = r->next;
            r->next = NULL;
            return r;
        }
    return NULL;
}

/* The tags of a whole object's relay are in (or the store has none to give): its PutObject
 * goes, if its GET is in and checked. */
static void relay_tags_in(struct engine *g, struct xfer_obj_state *os)
{
    struct obj_copy *c = copy_of(os);
    struct req *r = c->put_held;

    c->tags_wait = false;
    c->put_held = NULL;
    if (r && !os->failed)
        relay_send(g, r, r->hash.job.digest);
    else if (r)
        req_put_back(g, r);
    maybe_finish(g, os);
}

void relay_failed(struct engine *g, struct xfer_obj_state *os)
{
    struct obj_copy *c = copy_of(os);

    if (c->put_held)
        req_put_back(g, c->put_held);
    c->put_held = NULL;

    while (c->seq_held) {
        struct req *r = c->seq_held;
        c->seq_held = r->next;
        r->next = NULL;
        req_put_back(g, r);
    }
}

/*
 * A relay's read goes to a hash worker, never hashed on the loop: its MD5 (Content-MD5 of the
 * part, or the whole's proof by its ETag), unless 'seq_only'; for a whole object the CRC it is
 * checked by (the source's stored one, else the one the destination is sent); and, with 'seq',
 * the MD5 of the whole in order ('also': its turn has come). Back in on_relay_get. False when
 * no worker could start.
 */
static bool relay_hash(struct engine *g, struct req *r, bool seq_only, bool seq)
{
    struct obj_copy *c = copy_of(r->os);
    struct hash_job *j = &r->hash.job;
    enum ck_algo a = CK_CRC64NVME;
    uint64_t want;

    if (!seq_only)
        md5_init(&j->md5);
    j->no_md5 = seq_only; /* then the part's MD5, already in j->digest, stays there */
    j->final = true;
    j->also = seq ? c->seq : NULL;
    j->also_open = true;
    j->crc = !r->os->n_parts && (stored_checksum(&r->http.resp, &a, &want) || mem_wants_crc(g, r, true, &a));
    j->crc_algo = a;
    j->crc_val = 0;
    if (!req_hash_job(g, r, r->mem.data ? r->mem.data : "", r->mem.len))
        return false;
    c->seq_busy |= seq;
    req_park(g, r); /* back in on_relay_get once hashed */
    return true;
}

/* The next part whose turn it is to feed the whole's MD5, when it is read and none is out. */
static void relay_seq_kick(struct engine *g, struct xfer_obj_state *os)
{
    struct obj_copy *c = copy_of(os);
    struct s3c_error e = S3C_ERROR_INIT;
    struct req *r;

    if (c->seq_busy || os->failed || !(r = seq_take(c, c->seq_next)))
        return;
    if (!relay_hash(g, r, true, true)) {
        s3c_fail(&e, S3C_ENOMEM, "cannot start a thread to hash %s", os->o->src);
        req_fail(g, r, &e, false, 0);
    }
}

/*
 * A relay's GET is in, every byte: hashed first (relay_hash), then the whole checked and sent
 * on as PutObject, or the part as UploadPart (its MD5 is the one Content-MD5 says), once the
 * whole's MD5 in order has it (seq_md5: a part read ahead of its turn waits in seq_held).
 */
void on_relay_get(struct engine *g, struct req *r)
{
    struct xfer_obj_state *os = r->os;
    struct obj_copy *c = copy_of(os);
    struct s3c_error e = S3C_ERROR_INIT;
    struct sv etag;
    bool fed;

    if (!get_in_full(g, r))
        return;
    if (!r->hash.ready) {
        if (relay_hash(g, r, false, c->seq_md5 && r->part == c->seq_next && !c->seq_busy))
            return;
        s3c_fail(&e, S3C_ENOMEM, "cannot start a thread to hash %s", os->o->src);
        req_fail(g, r, &e, false, 0);
        return;
    }
    fed = r->hash.job.also != NULL; /* this job fed the whole's MD5 in order */
    r->hash.job.also = NULL;
    if (fed) {
        c->seq_busy = false;
        c->seq_next++;
    }
    if (!os->n_parts && !relay_whole_ok(g, r, r->hash.job.digest, &e)) {
        req_fail(g, r, &e, true, 0); /* read again */
        return;
    }
    if (!c->relay_etag[0] && http_resp_header(&r->http.resp, "etag", &etag) && etag.n < sizeof(c->relay_etag))
        memcpy(c->relay_etag, etag.p, etag.n);
    c->md5_hidden |= sse_hides_md5(&r->http.resp);
    if (!os->n_parts && c->keep_meta && !os->o->head)
        copy_keep_headers(c, &r->http.resp); /* the GET's answer has the headers a HEAD would */
    if (c->seq_md5 && !fed) {
        r->next = c->seq_held; /* its turn is to come: waits (its object's window holds it) */
        c->seq_held = r;
        relay_seq_kick(g, os);
        return;
    }
    relay_send(g, r, r->hash.job.digest);
    if (c->seq_md5)
        relay_seq_kick(g, os);
}
