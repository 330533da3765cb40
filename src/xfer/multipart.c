/*
 * Multipart uploads, whoever feeds them (a file, stdin, a copy's source):
 * Create, parts (UploadPart, UploadPartCopy), Complete (checked against the
 * parts' ETags, and looked for when its answer was lost), Abort, a
 * journaled upload's ListParts, and a copy's tags set after Complete when
 * they were too long for CreateMultipartUpload's header. Calls req.c,
 * verify.c, resume.c, part.c.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "base/str.h"
#include "s3/xml.h"
#include "xfer/engine.h"

/* A Create that answered after its object failed or the run was
 * interrupted: the upload exists at the store, so abort it now that its id
 * is known. False if there is no upload to abort. */
bool abort_late_upload(struct engine *g, struct req *r)
{
    struct xfer_obj_state *os = r->os;
    struct mpu_state *m = mpu_of(os);
    struct s3_initiate_multipart im = S3_INITIATE_MULTIPART_INIT;
    struct s3c_error e = S3C_ERROR_INIT;
    bool ended;

    if (m->upload_id || r->http.resp.status < 200 || r->http.resp.status >= 300 ||
        s3_parse_initiate_multipart(buf_sv(&r->http.resp.body), &im, NULL) || !im.upload_id[0]) {
        s3_initiate_multipart_release(&im);
        return false;
    }
    m->upload_id = strdup(im.upload_id);
    s3_initiate_multipart_release(&im);
    req_put_back(g, r);
    s3c_fail(&e, S3C_ECANCEL, "%s", cancel_requested ? "interrupted" : "stopped");
    ended = os->phase == PH_END;
    obj_fail(g, os, &e); /* sends the abort, now that there is an id */
    if (ended)
        obj_abort(g, os); /* the object had ended before its id came: obj_fail sent none */
    maybe_finish(g, os);
    return true;
}

void on_create(struct engine *g, struct req *r)
{
    struct xfer_obj_state *os = r->os;
    struct mpu_state *m = mpu_of(os);
    struct s3_initiate_multipart im = S3_INITIATE_MULTIPART_INIT;
    struct s3c_error e = S3C_ERROR_INIT;

    if (s3_parse_initiate_multipart(buf_sv(&r->http.resp.body), &im, &e) || !im.upload_id[0]) {
        if (!e.code)
            s3c_fail(&e, S3C_EPARSE, "CreateMultipartUpload returned no UploadId");
        s3_initiate_multipart_release(&im);
        req_fail(g, r, &e, true, 0);
        return;
    }
    m->upload_id = strdup(im.upload_id);
    s3_initiate_multipart_release(&im);
    req_put_back(g, r);
    if (m->upload_id)
        journal_save(g, os);
    if (!m->upload_id || start_parts(g, os, &e)) {
        if (!e.code)
            s3c_fail(&e, S3C_ENOMEM, "out of memory");
        obj_fail(g, os, &e);
        maybe_finish(g, os);
    }
}

/* The member of 'c' that holds algorithm 'a''s value. */
static const char **ck_field(struct s3_checksums *c, enum ck_algo a)
{
    switch (a) {
    case CK_CRC64NVME: return &c->crc64nvme;
    case CK_CRC32C: return &c->crc32c;
    case CK_CRC32: return &c->crc32;
    case CK_SHA1: return &c->sha1;
    case CK_SHA256: return &c->sha256;
    }
    return &c->crc64nvme;
}

/* Part n's (1-based) raw checksum, as it was sent. */
static void part_ck_raw(const struct xfer_obj_state *os, uint32_t n, unsigned char out[CK_MAX_LEN])
{
    struct mpu_state *m = mpu_of(os);

    if (ck_is_crc(obj_ck(os->o)))
        ck_crc_raw(obj_ck(os->o), m->part_crcs[n - 1], out);
    else
        memcpy(out, m->part_sums[n - 1], CK_MAX_LEN);
}

void send_complete(struct engine *g, struct xfer_obj_state *os)
{
    struct mpu_state *m = mpu_of(os);
    struct s3_complete_part *parts = calloc(os->n_parts, sizeof(*parts));
    struct s3c_error e = S3C_ERROR_INIT;
    struct req *r = req_get(g, os, RK_COMPLETE);
    char (*cks)[CK_B64_MAX] = NULL;     /* base64 of each part's checksum */
    unsigned char raw[CK_MAX_LEN];
    uint32_t i;

    if (!parts || !r) {
        s3c_fail(&e, S3C_ENOMEM, "out of memory");
        goto fail;
    }
    if (m->mpu_crc && !(cks = calloc(os->n_parts, sizeof(*cks)))) {
        s3c_fail(&e, S3C_ENOMEM, "out of memory");
        goto fail;
    }
    if (os->family == FAM_COPY && copy_of(os)->relay && !relay_source_check(g, os, &e))
        goto fail;
    for (i = 0; i < os->n_parts; i++) {
        parts[i].number = i + 1;
        parts[i].etag = m->etags[i];
        if (cks) {
            part_ck_raw(os, i + 1, raw);
            ck_b64(obj_ck(os->o), raw, cks[i]);
            *ck_field(&parts[i].checksums, obj_ck(os->o)) = cks[i];
        }
    }
    if (s3_build_complete_multipart(parts, os->n_parts, &r->mem, &e) || req_submit(g, r, &e))
        goto fail;
    obj_phase_set(g, os, PH_COMPLETE);
    free(parts);
    free(cks);
    return;
fail:
    free(parts);
    free(cks);
    if (r)
        req_put_back(g, r);
    obj_fail(g, os, &e);
}

/* The checksum an UploadPart carried, kept for Complete (which lists them) and its check. */
static void part_ck_sent(struct engine *g, struct req *r)
{
    struct xfer_obj_state *os = r->os;
    struct mpu_state *m = mpu_of(os);
    enum ck_algo a = obj_ck(os->o);
    uint64_t crc;

    if (r->mem.len && r->hdr_ck[0] && ck_is_crc(a))
        m->part_crcs[r->part - 1] = r->mem_crc;
    else if (r->mem.len && r->hdr_ck[0])
        memcpy(m->part_sums[r->part - 1], r->mem_sum, CK_MAX_LEN);
    else if (!r->mem.len && r->call.chunked_on && ck_is_crc(a) && s3_chunked_crc(&r->call.chunked, &crc))
        m->part_crcs[r->part - 1] = crc;
    else if (!r->mem.len && r->call.chunked_on && !ck_is_crc(a) && r->hash.ready && r->hash.job.also)
        memcpy(m->part_sums[r->part - 1], r->hash.job.also_digest, CK_MAX_LEN);
    else
        m->mpu_crc = false; /* a part went without one (the store refused trailers): list none */
}

void on_part(struct engine *g, struct req *r)
{
    struct xfer_obj_state *os = r->os;
    struct mpu_state *m = mpu_of(os);
    struct s3c_error e = S3C_ERROR_INIT;
    unsigned char md5[MD5_LEN];
    struct sv etag = SV_NULL;
    bool known = false;

    if (r->kind == RK_COPY_PART) {
        struct s3_copy_result cr = S3_COPY_RESULT_INIT;
        if (s3_parse_copy_result(buf_sv(&r->http.resp.body), &cr, &e) || !cr.etag[0]) {
            if (!e.code)
                s3c_fail(&e, S3C_EPARSE, "UploadPartCopy returned no ETag");
            s3_copy_result_release(&cr);
            req_fail(g, r, &e, true, 0);
            return;
        }
        str_copy(m->etags[r->part - 1], sizeof(m->etags[0]), cr.etag);
        s3_copy_result_release(&cr);
    } else {
        if (!sent_answer_ok(g, r, md5, &known))
            return;
        if (!http_resp_header(&r->http.resp, "etag", &etag) || etag.n >= sizeof(m->etags[0])) {
            s3c_fail(&e, S3C_EHTTP, "UploadPart returned no ETag");
            req_fail(g, r, &e, true, 0);
            return;
        }
        memcpy(m->etags[r->part - 1], etag.p, etag.n);
        m->etags[r->part - 1][etag.n] = '\0';
        if (known)
            memcpy(m->md5s[r->part - 1], md5, MD5_LEN);
        else
            m->md5s_unknown = true; /* proven by its CRC64NVME: Complete is checked by the CRCs */
        if (m->mpu_crc)
            part_ck_sent(g, r);
        g->stats.bytes += r->len;
    }
    os->parts_done++;
    if (os->family == FAM_STDIN)
        stdin_keep_buffer(os, &r->mem);
    req_put_back(g, r);
    if (os->failed) {
        maybe_finish(g, os);
        return;
    }
    if (os->parts_done == os->n_parts && (os->family != FAM_STDIN || stdin_of(os)->eof))
        send_complete(g, os);
    maybe_finish(g, os);
}

static void list_parts_next(struct engine *g, struct xfer_obj_state *os);

/* --resume: ListParts answered: the parts the store has are not sent again,
 * once the hash workers have shown them ours (resume_listed). */
void on_list_parts(struct engine *g, struct req *r)
{
    struct xfer_obj_state *os = r->os;
    struct mpu_state *m = mpu_of(os);
    struct s3_list_parts lp = S3_LIST_PARTS_INIT;
    struct s3c_error e = S3C_ERROR_INIT;
    bool waits;

    if (s3_parse_list_parts(buf_sv(&r->http.resp.body), &lp, &e)) {
        s3_list_parts_release(&lp);
        req_fail(g, r, &e, true, 0);
        return;
    }
    m->list_more = lp.is_truncated && lp.next_part_number_marker > m->list_marker &&
                   lp.next_part_number_marker < S3_MAX_PARTS;
    if (m->list_more)
        m->list_marker = (uint32_t)lp.next_part_number_marker;
    req_put_back(g, r);
    waits = resume_listed(g, os, &lp, obj_ck(os->o), list_parts_next);
    s3_list_parts_release(&lp);
    if (!waits)
        list_parts_next(g, os);
    maybe_finish(g, os);
}

/* --resume: a page's parts are checked: the next page, or the parts the store lacks. */
static void list_parts_next(struct engine *g, struct xfer_obj_state *os)
{
    struct mpu_state *m = mpu_of(os);
    struct s3c_error e = S3C_ERROR_INIT;
    struct req *nr;

    if (stopping(g) && !os->failed) {
        s3c_fail(&e, S3C_ECANCEL, "%s", cancel_requested ? "interrupted" : "stopped");
        obj_fail(g, os, &e);
    } else if (os->failed) {
        /* ended meanwhile: nothing more to send */
    } else if (m->list_more) {
        if (!(nr = req_get(g, os, RK_LIST_PARTS))) {
            s3c_fail(&e, S3C_ENOMEM, "out of memory");
            obj_fail(g, os, &e);
        } else {
            submit_or_fail(g, nr);
        }
    } else if (start_parts(g, os, &e)) {
        obj_fail(g, os, &e);
    } else if (os->parts_done == os->n_parts) {
        active_remove(g, os);
        send_complete(g, os);
    }
    maybe_finish(g, os);
}

/* The journaled upload is gone (completed or aborted elsewhere): start afresh. */
static void resume_restart(struct engine *g, struct req *r)
{
    struct xfer_obj_state *os = r->os;
    struct req *nr;

    journal_drop(g, os);
    mpu_state_free(os);
    os->parts_done = 0;
    req_put_back(g, r);
    nr = req_get(g, os, RK_CREATE);
    if (!nr) {
        struct s3c_error e = S3C_ERROR_INIT;
        s3c_fail(&e, S3C_ENOMEM, "out of memory");
        obj_fail(g, os, &e);
    } else {
        submit_or_fail(g, nr);
    }
    maybe_finish(g, os);
}

/* ListParts refused: the journaled upload is gone (S3 says NoSuchUpload,
 * Ceph 16 NoSuchKey), so start afresh. */
bool list_parts_refused(struct engine *g, struct req *r, const struct s3c_error *e)
{
    if (e->http_status != 404 || !strcmp(e->s3_code, "NoSuchBucket"))
        return false;
    resume_restart(g, r);
    return true;
}

/* The size of part n (1-based) of a multipart upload. */
static uint64_t part_len(const struct xfer_obj_state *os, uint32_t n)
{
    uint64_t off = 0;
    uint32_t i;

    if (os->family != FAM_STDIN)
        return n == os->n_parts ? os->size - (uint64_t)(n - 1) * os->part_size : os->part_size;
    for (i = 1; i < n; i++)
        off += xfer_stream_part_size(os->part_size, i, stdin_of(os)->grow);
    return n == os->n_parts ? os->size - off : xfer_stream_part_size(os->part_size, n, stdin_of(os)->grow);
}

/*
 * What Complete's answer must name for the parts sent: a CRC of the whole
 * (FULL_OBJECT), the parts' CRCs combined; or the composite checksum
 * ("...-N"), the digest of the parts' digests. False on no memory.
 */
static bool complete_ck_want(struct engine *g, const struct xfer_obj_state *os, bool composite,
                             char want[CK_B64_MAX + 8])
{
    struct mpu_state *m = mpu_of(os);
    enum ck_algo a = obj_ck(os->o);
    uint64_t crc = 0;
    uint32_t n;

    if (composite)
        return parts_composite(a, m->part_crcs, (const unsigned char(*)[CK_MAX_LEN])m->part_sums, os->n_parts,
                               want);
    for (n = 1; n <= os->n_parts; n++)
        crc = n == 1 ? m->part_crcs[0] : ck_combine(a, crc, m->part_crcs[n - 1], part_len(os, n));
    ck_crc_b64(a, crc, want);
    return true;
}

/*
 * Complete's answer for an upload whose parts were proven by their flexible
 * checksums (no MD5s to make its ETag from): the checksum it names for the
 * whole, if it names one, must be what the parts sent make (complete_ck_want).
 */
static bool complete_ck_ok(struct engine *g, const struct xfer_obj_state *os, const struct buf *body,
                           struct s3c_error *e)
{
    struct mpu_state *m = mpu_of(os);
    struct s3_complete_multipart cm = S3_COMPLETE_MULTIPART_INIT;
    const char *name = ck_name(obj_ck(os->o)), *got;
    char want[CK_B64_MAX + 8];
    bool ok = true;

    if (m->mpu_crc && !s3_parse_complete_multipart(buf_sv(body), &cm, NULL) &&
        (got = *ck_field(&cm.checksums, obj_ck(os->o))) && got[0]) {
        ok = complete_ck_want(g, os, strchr(got, '-') != NULL, want) && !strcmp(want, got);
        if (!ok)
            s3c_fail(e, S3C_EHTTP, "the store's %s %s of the whole does not match %s, its parts'", name, got, want);
        else
            xdebug(g, os->o, "verified: parts by the %s the store echoed, the whole by its %s %s (no MD5)", name,
                   name, got);
    }
    s3_complete_multipart_release(&cm);
    return ok;
}

/*
 * A copy with tags is complete. They went with CreateMultipartUpload
 * (x-amz-tagging) when they fitted the header, as the AWS CLI sends them; but
 * a store may ignore that header there (Ceph 16 does), so the first such copy
 * reads its tags back (GetObjectTagging) to learn which store this is. Tags
 * too long for the header, or that the store dropped, are set with
 * PutObjectTagging. The object ends when the last of these answers; with
 * none to send (any other upload), it ends now.
 */
static void put_tags_late(struct engine *g, struct xfer_obj_state *os)
{
    struct mpu_state *m = mpu_of(os);
    struct s3c_error e = S3C_ERROR_INIT;
    unsigned char md5[MD5_LEN];
    struct obj_copy *c = NULL;
    enum req_kind kind;
    struct req *r;

    if (os->family != FAM_COPY || !(c = copy_of(os))->src_tag_xml.len || (c->tags_sent && g->mpu_tagging > 0)) {
        obj_phase_set(g, os, PH_END);
        return;
    }
    kind = c->tags_sent && g->mpu_tagging == 0 ? RK_CHECK_TAGS : RK_PUT_TAGS;
    free(m->upload_id);    /* completed: nothing to abort any more */
    m->upload_id = NULL;
    obj_phase_set(g, os, PH_SINGLE);
    r = req_get(g, os, kind);
    if (r && kind == RK_PUT_TAGS && buf_add(&r->mem, c->src_tag_xml.data, c->src_tag_xml.len))
        s3c_fail(&e, S3C_ENOMEM, "out of memory");
    if (r && kind == RK_PUT_TAGS && !e.code) {
        hash_md5(r->mem.data, r->mem.len, md5);
        mem_md5_set(r, md5);
    }
    if (r && !e.code && !req_submit(g, r, &e))
        return;
    if (r)
        req_put_back(g, r);
    if (!e.code)
        s3c_fail(&e, S3C_ENOMEM, "out of memory");
    obj_fail(g, os, &e);
}

/* PutObjectTagging of a copy answered: the copy is whole. */
void on_put_tags(struct engine *g, struct req *r)
{
    struct xfer_obj_state *os = r->os;

    obj_phase_set(g, os, PH_END);
    req_put_back(g, r);
    maybe_finish(g, os);
}

/* A copy's tags read back after Complete: the store kept x-amz-tagging, or they are set now. */
void on_check_tags(struct engine *g, struct req *r)
{
    struct xfer_obj_state *os = r->os;
    struct s3_tagging t = S3_TAGGING_INIT;
    bool kept = !s3_parse_tagging(buf_sv(&r->http.resp.body), &t, NULL) && t.n_tags == copy_of(os)->n_src_tags;

    s3_tagging_release(&t);
    req_put_back(g, r);
    if (kept && !g->mpu_tagging)
        g->mpu_tagging = 1;
    if (!kept && g->mpu_tagging >= 0) {
        g->mpu_tagging = -1;
        xdebug(g, os->o, "the store ignored x-amz-tagging on CreateMultipartUpload: copies' tags go with "
                         "PutObjectTagging after Complete");
    }
    if (kept) {
        obj_phase_set(g, os, PH_END);
    } else {
        copy_of(os)->tags_sent = false;
        put_tags_late(g, os);
    }
    maybe_finish(g, os);
}

/*
 * Whether Complete's answer proves the upload: the checksum of the whole the
 * parts sent make (complete_ck_want), or an ETag of the multipart form
 * "...-N" for our N parts (its MD5 part was checked against our parts' by
 * on_complete where it can be). A 200 with neither proves nothing: a store
 * or proxy may answer it and keep nothing.
 */
static bool complete_proven(struct engine *g, const struct xfer_obj_state *os, const struct buf *body,
                            const char **why)
{
    struct mpu_state *m = mpu_of(os);
    struct s3_complete_multipart cm = S3_COMPLETE_MULTIPART_INIT;
    char want[CK_B64_MAX + 8];
    const char *got, *dash = NULL;
    uint64_t n = 0;
    size_t len;
    bool ok = false;

    if (s3_parse_complete_multipart(buf_sv(body), &cm, NULL)) {
        *why = "the store's answer to CompleteMultipartUpload cannot be read";
        goto out;
    }
    if (os->o->op == XFER_UPLOAD && m->mpu_crc && (got = *ck_field(&cm.checksums, obj_ck(os->o))) && got[0] &&
        complete_ck_want(g, os, strchr(got, '-') != NULL, want) && !strcmp(want, got)) {
        ok = true;
        goto out;
    }
    got = cm.etag;
    len = got ? strlen(got) : 0;
    if (len >= 2 && got[0] == '"' && got[len - 1] == '"') {
        got++;
        len -= 2;
    }
    if (len)
        dash = memchr(got, '-', len);
    ok = dash && sv_to_u64((struct sv){ dash + 1, len - (size_t)(dash + 1 - got) }, &n) && n == os->n_parts;
    if (!ok)
        *why = len ? "the store's ETag for CompleteMultipartUpload does not name our parts"
                   : "the store answered CompleteMultipartUpload with no ETag and no checksum";
out:
    s3_complete_multipart_release(&cm);
    return ok;
}

static bool head_for_proof(struct engine *g, struct xfer_obj_state *os);

void on_complete(struct engine *g, struct req *r)
{
    struct xfer_obj_state *os = r->os;
    struct mpu_state *m = mpu_of(os);
    struct s3c_error e = S3C_ERROR_INIT;
    enum s3_body_kind kind = s3_xml_body_kind(buf_sv(&r->http.resp.body));

    /* S3 may answer 200 and then fail, with an <Error> body. */
    if (kind != S3_BODY_RESULT) {
        struct s3_error er = S3_ERROR_INIT;
        s3_parse_error(buf_sv(&r->http.resp.body), &er, NULL);
        s3c_fail(&e, S3C_EHTTP, "CompleteMultipartUpload failed: %s",
                 er.code[0] ? er.code : "malformed reply");
        str_copy(e.s3_code, sizeof(e.s3_code), er.code[0] ? er.code : "InternalError");
        e.http_status = 200;
        s3_error_release(&er);
        req_fail(g, r, &e, true, 0);
        return;
    }
    /* Parts proven by their checksums: the whole's, which the store made of them, is ours. */
    if (g->opts.verify && r->os->o->op == XFER_UPLOAD && m->md5s_unknown) {
        if (!complete_ck_ok(g, os, &r->http.resp.body, &e)) {
            req_put_back(g, r);
            obj_fail(g, os, &e);
            maybe_finish(g, os);
            return;
        }
    }
    /* An upload's final ETag is md5(part md5s)-N: check it when the parts were ours. */
    if (g->opts.verify && r->os->o->op == XFER_UPLOAD && !m->md5s_unknown) {
        struct s3_complete_multipart cm = S3_COMPLETE_MULTIPART_INIT;
        if (!s3_parse_complete_multipart(buf_sv(&r->http.resp.body), &cm, NULL) && cm.etag[0]) {
            struct hash_ctx *h = hash_md5_new();
            unsigned char d[MD5_LEN];
            char want[80], hex[33];
            const char *got = cm.etag;
            size_t gl = strlen(got);

            if (h) {
                hash_update(h, m->md5s, (size_t)os->n_parts * MD5_LEN);
                hash_final(h, d);
                hash_free(h);
                str_hex(d, MD5_LEN, hex);
                snprintf(want, sizeof(want), "%s-%" PRIu32, hex, os->n_parts);
                if (gl >= 2 && got[0] == '"')
                    got++, gl -= 2;
                if (strlen(want) == gl && strncmp(want, got, gl) != 0 && !sse_hides_md5(&r->http.resp)) {
                    s3c_fail(&e, S3C_EHTTP, "the store's ETag %.*s does not match %s", (int)gl, got, want);
                    s3_complete_multipart_release(&cm);
                    req_put_back(g, r);
                    obj_fail(g, os, &e);
                    maybe_finish(g, os);
                    return;
                }
            }
        }
        s3_complete_multipart_release(&cm);
    }
    os->proven = complete_proven(g, os, &r->http.resp.body, &os->unproven);
    journal_drop(g, os);
    req_put_back(g, r);
    /* Some stores (Ceph RGW 16) answer Complete with an empty <ETag>: the
     * object's own ETag, read back, is the proof when our parts make it. */
    if (!os->proven && head_for_proof(g, os))
        return; /* on_head_dst ends the object */
    put_tags_late(g, os);
    maybe_finish(g, os);
}

/* HEAD the object Complete made, when its answer proved nothing and our parts'
 * ETags make the one it must carry; true when that HEAD was sent. */
static bool head_for_proof(struct engine *g, struct xfer_obj_state *os)
{
    struct mpu_state *m = mpu_of(os);
    struct s3c_error he = S3C_ERROR_INIT;
    char want[80];
    struct req *h;

    if (!multipart_etag(os, want) || !(h = req_get(g, os, RK_HEAD_DST)))
        return false;
    m->head_for_proof = true;
    if (req_submit(g, h, &he)) {
        m->head_for_proof = false;
        req_put_back(g, h);
        return false;
    }
    return true;
}

/* A retried Complete found no upload: the first try may have completed it and
 * lost its answer (a reset or a cut body). The object is ours if it carries
 * the ETag our parts make; HEAD it to see. */
static void check_lost_complete(struct engine *g, struct req *r, const struct s3c_error *e)
{
    struct xfer_obj_state *os = r->os;
    struct s3c_error he = S3C_ERROR_INIT;
    char want[80];
    struct req *h;

    req_put_back(g, r);
    h = multipart_etag(os, want) ? req_get(g, os, RK_HEAD_DST) : NULL;
    if (!h || req_submit(g, h, &he)) {
        if (h)
            req_put_back(g, h);
        obj_fail(g, os, e);
        maybe_finish(g, os);
    }
}

/*
 * A retried Complete that finds no upload may have landed the first time.
 * One under --no-overwrite that raced another write of the key (409
 * ConditionalRequestConflict) is sent again, as S3 says (s3/retry.c): it then
 * lands, or finds the key taken (412: a skip), or finds its upload gone (S3
 * tells a client to start the upload again): if the key then holds another
 * object, the other write won and this one is a skip too.
 */
bool complete_failed(struct engine *g, struct req *r, enum store_s3_verdict v, struct s3c_error *e)
{
    if (e->http_status == 409 && !strcmp(e->s3_code, "ConditionalRequestConflict"))
        mpu_of(r->os)->cond_conflict = true;
    if (r->attempt > 0 && !strcmp(e->s3_code, "NoSuchUpload")) {
        /* Landed or dropped, the upload is gone: no Abort to send, no record to keep. */
        struct mpu_state *m = mpu_of(r->os);

        journal_drop(g, r->os);
        free(m->upload_id);
        m->upload_id = NULL;
        check_lost_complete(g, r, e);
        return true;
    }
    return false;
}

void on_head_dst(struct engine *g, struct req *r)
{
    struct xfer_obj_state *os = r->os;
    struct mpu_state *m = mpu_of(os);
    struct s3c_error e = S3C_ERROR_INIT;
    char want[80] = "";
    struct sv etag = SV_NULL;
    bool ours;

    if (http_resp_header(&r->http.resp, "etag", &etag) && etag.n >= 2 && etag.p[0] == '"') {
        etag.p++;
        etag.n -= 2;
    }
    ours = multipart_etag(os, want) && sv_eqs(etag, want);
    if (m->head_for_proof) {
        /* Complete landed; only the proof was missing. */
        m->head_for_proof = false;
        req_put_back(g, r);
        os->proven = ours;
        if (!ours)
            os->unproven = "the store answered CompleteMultipartUpload with no ETag, and the object's "
                           "ETag read back is not the one our parts make";
        put_tags_late(g, os);
        maybe_finish(g, os);
        return;
    }
    if (!ours && m->cond_conflict) {
        /* --no-overwrite's race lost to another write of the key: as its 412, a skip. */
        s3c_fail(&e, S3C_EHTTP, "another write created the key while CompleteMultipartUpload ran "
                                "(409 ConditionalRequestConflict), so this upload was not applied");
        e.http_status = 412;
        str_copy(e.s3_code, sizeof(e.s3_code), "PreconditionFailed");
    } else if (!ours) {
        s3c_fail(&e, S3C_EHTTP, "CompleteMultipartUpload was retried and the upload is gone, "
                                "but the object is not the one its parts make (ETag %.*s, want %s)",
                 (int)etag.n, etag.p ? etag.p : "", want);
        str_copy(e.s3_code, sizeof(e.s3_code), "NoSuchUpload");
    }
    req_put_back(g, r); /* 'etag' points into its reply: done with it now */
    if (ours) {
        os->proven = true; /* the ETag our parts make */
        journal_drop(g, os);
        put_tags_late(g, os); /* it landed */
    } else {
        obj_fail(g, os, &e);
    }
    maybe_finish(g, os);
}

/* The HEAD after a lost Complete failed: say so in the object's error (then req_fail). */
bool head_dst_failed(struct engine *g, struct req *r, enum store_s3_verdict v, struct s3c_error *e)
{
    struct xfer_obj_state *os = r->os;
    struct mpu_state *m = mpu_of(os);

    if (m->head_for_proof) {
        /* Complete landed; the HEAD that was to prove it did not answer: unproven, not failed. */
        m->head_for_proof = false;
        req_put_back(g, r);
        os->unproven = "the store answered CompleteMultipartUpload with no ETag, and reading the "
                       "object's ETag back failed";
        put_tags_late(g, os);
        maybe_finish(g, os);
        return true;
    }
    if (v == STORE_S3_FAIL && m->cond_conflict) {
        struct s3c_error he = *e;
        s3c_fail(e, he.code, "CompleteMultipartUpload raced another write of the key (409 "
                             "ConditionalRequestConflict) and the store dropped the upload; nothing was "
                             "written: run again (HEAD: %s)", he.msg);
    } else if (v == STORE_S3_FAIL) {
        struct s3c_error he = *e;
        s3c_fail(e, he.code, "CompleteMultipartUpload was retried and the upload is gone, "
                             "and no object took its place (HEAD: %s)", he.msg);
    }
    return false;
}

/* AbortMultipartUpload answered: the object (already failed) ends. */
void on_abort(struct engine *g, struct req *r)
{
    journal_drop(g, r->os);
    obj_phase_set(g, r->os, PH_END);
    req_put_back(g, r);
    maybe_finish(g, r->os);
}

/*
 * AbortMultipartUpload failed, retries included: the upload stays open at the
 * store. The object (already failed) ends; a warning with its outcome says so
 * and what becomes of it: a journaled upload keeps its record, so that the
 * next run of a command that writes this key aborts it (resume_first).
 */
void abort_gave_up(struct engine *g, struct req *r, const struct s3c_error *e)
{
    struct xfer_obj_state *os = r->os;
    struct mpu_state *m = mpu_of(os);
    char msg[1024];

    if (!m->upload_id) /* a stream's appends (stdin_partial) */
        snprintf(msg, sizeof(msg), "could not delete s3://%s/%s, which holds a part of the stream (%.300s)",
                 os->o->dst_bucket, os->o->dst, e->msg);
    else
        snprintf(msg, sizeof(msg), "could not abort multipart upload %s of s3://%s/%s (%.300s); %s", m->upload_id,
                 os->o->dst_bucket, os->o->dst, e->msg,
                 journal_kept(g, os) ? "its journal record is kept, so the next run tries again"
                                     : "it stays open (and billed) until it is aborted");
    free(os->o->warning);
    os->o->warning = strdup(msg); /* NULL: no warning, nothing else lost */
    obj_phase_set(g, os, PH_END);
    req_put_back(g, r);
    maybe_finish(g, os);
}
