/*
 * What each kind of request says to the store: its method, bucket, key,
 * query, headers and body, one builder per kind in one table (req_builders,
 * indexed by enum req_kind), as aws-c-s3 gives each request type its own
 * prepare step. req_submit (req.c) does what every kind shares (a new
 * exchange's state, the SSE-C keys, payload signing, the hash worker of a
 * streamed body, sending) and calls the builder through the table.
 * Builders only describe: they send nothing, judge nothing, and call no
 * engine file but part.c (the MIME guess), so req.c sits above them.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/md5.h"
#include "xfer/engine.h"

/* ---- the object's headers ------------------------------------------------------ */

/* The options of an object that has none: every flag off. (Static: a compound
 * literal in the if that chose it would end with that if.) */
static const struct xfer_obj_opts no_opts;

/*
 * What the object written is beside its metadata: storage class, canned ACL
 * and grants, SSE, website redirect. S3 keeps none of these from a copy's source, whatever the metadata
 * directive: every write carries them (PutObject, CreateMultipartUpload,
 * CopyObject), or the object gets the bucket's defaults.
 */
static void add_dest_headers(struct s3_req *q, const struct xfer_obj_opts *oo)
{
    const struct {
        const char *name, *value;
    } h[] = {
        { "x-amz-storage-class", oo->storage_class },
        { "x-amz-acl", oo->acl },
        { "x-amz-server-side-encryption", oo->sse },
        { "x-amz-server-side-encryption-aws-kms-key-id", oo->sse_kms_key_id },
        { "x-amz-website-redirect-location", oo->website_redirect },
        { "x-amz-grant-read", oo->grant_read },
        { "x-amz-grant-read-acp", oo->grant_read_acp },
        { "x-amz-grant-write-acp", oo->grant_write_acp },
        { "x-amz-grant-full-control", oo->grant_full_control },
    };
    size_t i;

    for (i = 0; i < sizeof(h) / sizeof(h[0]); i++)
        if (h[i].value)
            s3_req_header(q, h[i].name, h[i].value);
}

/* Whether --metadata gives the header 'name' itself (it then wins over what s3c would record). */
static bool meta_given(const struct xfer_obj_opts *oo, const char *name)
{
    int i;

    for (i = 0; i < oo->n_metadata; i++)
        if (!strcasecmp(oo->metadata[i][0], name))
            return true;
    return false;
}

/*
 * An uploaded file's mtime, and with --preserve its mode and owner, as user
 * metadata in rclone's keys (s3/fattr.h says why those), unless
 * --no-preserve, or --metadata names the key itself.
 */
static void add_fattr_headers(struct req *r, struct s3_req *q, const struct xfer_obj_opts *oo)
{
    struct obj_upload *up = upload_of(r->os);
    const struct fattr *a = &up->attrs;

    if (oo->no_preserve)
        return;
    if (a->has_mtime && !meta_given(oo, FATTR_H_MTIME)) {
        fattr_mtime_format(a->mtime_s, a->mtime_ns, up->attr_text[0]);
        s3_req_header(q, FATTR_H_MTIME, up->attr_text[0]);
    }
    if (!oo->preserve)
        return;
    if (a->has_mode && !meta_given(oo, FATTR_H_MODE)) {
        snprintf(up->attr_text[1], FATTR_MTIME_MAX, "%o", (unsigned)up->type_mode);
        s3_req_header(q, FATTR_H_MODE, up->attr_text[1]);
    }
    if (a->has_uid && !meta_given(oo, FATTR_H_UID)) {
        snprintf(up->attr_text[2], FATTR_MTIME_MAX, "%u", (unsigned)a->uid);
        s3_req_header(q, FATTR_H_UID, up->attr_text[2]);
    }
    if (a->has_gid && !meta_given(oo, FATTR_H_GID)) {
        snprintf(up->attr_text[3], FATTR_MTIME_MAX, "%u", (unsigned)a->gid);
        s3_req_header(q, FATTR_H_GID, up->attr_text[3]);
    }
}

/* The object's headers from the command line: the standard ones, add_dest_headers, --metadata; an
 * uploaded file's own (add_fattr_headers). */
static void add_obj_headers(struct req *r, struct s3_req *q, bool for_create)
{
    const struct xfer_obj_opts *oo = r->os->o->opts;
    const char *ct;
    int i;

    if (!oo)
        oo = &no_opts;
    if (r->os->o->op == XFER_UPLOAD) {
        ct = oo->content_type ? oo->content_type
                              : oo->no_guess_mime ? NULL : xfer_guess_mime(r->os->o->src);
        if (ct)
            s3_req_header(q, "Content-Type", ct);
    } else if (oo->content_type) {
        s3_req_header(q, "Content-Type", oo->content_type);
    }
    {
        const struct {
            const char *name, *value;
        } std[] = {
            { "Cache-Control", oo->cache_control },
            { "Content-Encoding", oo->content_encoding },
            { "Content-Disposition", oo->content_disposition },
            { "Content-Language", oo->content_language },
            { "Expires", oo->expires },
        };
        for (i = 0; i < (int)(sizeof(std) / sizeof(std[0])); i++)
            if (std[i].value)
                s3_req_header(q, std[i].name, std[i].value);
    }
    add_dest_headers(q, oo);
    for (i = 0; i < oo->n_metadata && q->n_headers < S3_REQ_MAX_HEADERS - 4; i++)
        s3_req_header(q, oo->metadata[i][0], oo->metadata[i][1]);
    if (r->os->family == FAM_UPLOAD)
        add_fattr_headers(r, q, oo);
    if (oo->no_overwrite && !for_create)
        s3_req_header(q, "If-None-Match", "*");
}

/*
 * A copy that keeps its source's metadata (CreateMultipartUpload of a copy in
 * parts, or a CopyObject saying REPLACE for metadata flags): the command
 * line's headers, then the source's (its HEAD's) that those do not give, as
 * the AWS CLI lets explicit arguments win; --metadata replaces all of the
 * source's x-amz-meta-*.
 */
static void add_kept_headers(struct req *r, struct s3_req *q, bool for_create)
{
    const struct xfer_obj_opts *oo = r->os->o->opts;
    const struct buf *src = &copy_of(r->os)->src_headers;
    const char *p = src->data, *end = p + src->len;

    if (!oo)
        oo = &no_opts;
    add_obj_headers(r, q, for_create);
    while (p && p < end && q->n_headers < S3_REQ_MAX_HEADERS - 8) {
        const char *v = p + strlen(p) + 1;
        bool given = (!strcasecmp(p, "content-type") && oo->content_type) ||
                     (!strcasecmp(p, "cache-control") && oo->cache_control) ||
                     (!strcasecmp(p, "content-encoding") && oo->content_encoding) ||
                     (!strcasecmp(p, "content-disposition") && oo->content_disposition) ||
                     (!strcasecmp(p, "content-language") && oo->content_language) ||
                     (!strcasecmp(p, "expires") && oo->expires) ||
                     (!strncasecmp(p, "x-amz-meta-", 11) && oo->n_metadata);

        if (!given)
            s3_req_header(q, p, v);
        p = v + strlen(v) + 1;
    }
}

/*
 * SSE-C: the object's key goes with every request that writes or reads its
 * bytes (S3 wants it on parts, and s3transfer sends it on Complete too); a
 * copy's source key goes as x-amz-copy-source-..., or plain on the HEAD of
 * that source. Which kinds carry which key is the table's (sse_c_own, sse_c_src).
 */
enum s3c_err add_sse_c(struct req *r, struct s3_req *q, const struct xfer_obj_opts *oo, struct s3c_error *e)
{
    const struct req_builder *b = &req_builders[r->kind];
    bool copy = r->os->o->op == XFER_COPY;
    enum s3c_err rc;

    if ((b->sse_c_own || (b->sse_c_source && !copy)) && oo->sse_c_key) {
        if ((rc = s3_sse_c_init(&r->ssec, oo->sse_c, oo->sse_c_key, e)))
            return rc;
        s3_req_sse_c(q, &r->ssec, false);
    }
    if ((b->sse_c_src || b->sse_c_source) && copy && oo->sse_c_copy_source_key) {
        if ((rc = s3_sse_c_init(&r->ssec_src, oo->sse_c_copy_source, oo->sse_c_copy_source_key, e)))
            return rc;
        s3_req_sse_c(q, &r->ssec_src, b->sse_c_src && r->kind != RK_HEAD_SRC);
    }
    return S3C_OK;
}

/* Whether downloads of 'o' ask for its stored checksum (response_checksum_validation, --checksum-mode). */
static bool ck_mode(const struct engine *g, const struct xfer_obj *o)
{
    return !g->opts.checksum_mode_off || (o->opts && o->opts->checksum_mode);
}

/* The object's ETag as If-Match, when known: the bytes of one version, not of a newer one. */
static void add_if_match(struct s3_req *q, const struct xfer_obj *o)
{
    if (o->etag && o->etag[0])
        s3_req_header(q, "If-Match", o->etag);
}

/* ---- bodies -------------------------------------------------------------------- */

/* Flexible checksums on streamed bodies and multipart uploads: allowed by the
 * configuration (request_checksum_calculation) and not refused by the store. */
bool flex_ok(const struct engine *g)
{
    return g->opts.flexible_checksums && !g->no_trailers;
}

/* An XML body from r->mem, with the Content-MD5 (r->hdr_md5) that DeleteObjects and
 * PutObjectTagging require: an integrity header, and MD5 is the one every store knows. */
static void xml_body_md5(struct req *r, struct s3_req *q)
{
    q->body = r->mem.data;
    q->body_len = r->mem.len;
    s3_req_header(q, "Content-Type", "application/xml");
    s3_req_header(q, "Content-MD5", r->hdr_md5);
}

/* The SHA trailer of a streamed body (struct s3_chunked's sum): the hash
 * worker's digest; while it is out, the body pauses (req_hashed resumes it). */
static ssize_t req_trailer_sum(void *ctx, unsigned char out[CK_MAX_LEN])
{
    struct req *r = ctx;

    if (r->hash.ready && r->hash.job.also) {
        memcpy(out, r->hash.job.also_digest, ck_len(obj_ck(r->os->o)));
        return 0;
    }
    if (!r->hash.busy)
        return -1; /* no worker has it: the request fails, and is retried */
    r->sum_wait = true;
    return HTTP_READ_PAUSE;
}

/* A streamed body's checksum trailer, when 'on': the configured algorithm's. */
static void req_trailer(struct engine *g, struct req *r, struct s3_req *q, bool on)
{
    q->trailer = r->flex = on;
    q->trailer_algo = obj_ck(r->os->o);
    if (on && !ck_is_crc(q->trailer_algo)) {
        q->trailer_sum = req_trailer_sum;
        q->trailer_sum_ctx = r;
    }
}

/* A body from memory (a small file, a stdin part) with its Content-MD5, and
 * its flexible checksum's header when 'ck'. */
static void body_mem(struct engine *g, struct req *r, struct s3_req *q, bool ck)
{
    q->body = r->mem.data;
    q->body_len = r->mem.len;
    if (r->hdr_md5[0])
        s3_req_header(q, "Content-MD5", r->hdr_md5);
    if (ck && r->hdr_ck[0])
        s3_req_header(q, ck_header(obj_ck(r->os->o)), r->hdr_ck);
    r->sent_mem = true;
    g->stats.bytes_live += r->mem.len;
}

/* A body streamed from the file (the family's read), with a checksum trailer
 * when 'trailer'; req_submit has a hash worker read the same bytes. */
static void body_file(struct engine *g, struct req *r, struct s3_req *q, bool trailer)
{
    q->read = g->kinds[r->kind].read;
    q->read_ctx = r;
    q->read_len = r->len;
    req_trailer(g, r, q, trailer);
}

/* Room for the parts' checksums of a multipart upload that declares one. */
static bool mpu_ck_room(struct engine *g, struct xfer_obj_state *os)
{
    struct mpu_state *m = mpu_of(os);
    size_t n = os->family == FAM_STDIN ? S3_MAX_PARTS : os->n_parts;

    if (ck_is_crc(obj_ck(os->o)))
        return m->part_crcs || (m->part_crcs = calloc(n, sizeof(*m->part_crcs)));
    return m->part_sums || (m->part_sums = calloc(n, sizeof(*m->part_sums)));
}

/* ---- the builders, one per kind ------------------------------------------------ */

/* The request's method and object: the destination's. */
static void at_dst(struct s3_req *q, const char *method, const struct xfer_obj *o)
{
    q->method = method;
    q->bucket = o->dst_bucket;
    q->key = o->dst;
}

/*
 * The request's method and object: the source's, of the version the object
 * names (xfer_obj.version_id: ?versionId=, on every request about the source,
 * so a HEAD, a GET, a part and the tags are all of the one version), with the
 * query parameter 'name'='value' too when 'name' is given.
 */
static enum s3c_err at_src(struct req *r, struct s3_req *q, const char *method, const char *name,
                           const char *value, struct s3c_error *e)
{
    const struct xfer_obj *o = r->os->o;
    enum s3c_err rc = S3C_OK;

    q->method = method;
    q->bucket = o->src_bucket;
    q->key = o->src;
    if (o->version_id && o->version_id[0])
        rc = s3_query_add(&r->query, "versionId", o->version_id);
    if (!rc && name)
        rc = s3_query_add(&r->query, name, value);
    if (r->query.len)
        q->query = buf_cstr(&r->query);
    return rc ? s3c_fail(e, rc, "out of memory") : S3C_OK;
}

/* The query of a request about one multipart upload: ?[name=value&]uploadId=id. */
static enum s3c_err upload_query(struct req *r, struct s3_req *q, const char *name, uint32_t value,
                                 const char *upload_id, struct s3c_error *e)
{
    char num[32];
    enum s3c_err rc = S3C_OK;

    if (name) {
        snprintf(num, sizeof(num), "%" PRIu32, value);
        rc = s3_query_add(&r->query, name, num);
    }
    if (!rc)
        rc = s3_query_add(&r->query, "uploadId", upload_id);
    q->query = buf_cstr(&r->query);
    return rc ? s3c_fail(e, rc, "out of memory") : S3C_OK;
}

/* RK_PUT: PutObject, its body from memory (small) or streamed from the file. */
static enum s3c_err build_put(struct engine *g, struct req *r, struct s3_req *q, struct s3c_error *e)
{
    struct xfer_obj_state *os = r->os;

    at_dst(q, "PUT", os->o);
    if (os->family == FAM_COPY && copy_of(os)->keep_meta)
        add_kept_headers(r, q, false); /* a relayed copy's, from its source */
    else
        add_obj_headers(r, q, false);
    if (os->family == FAM_COPY && copy_of(os)->src_tagging.len)
        s3_req_header(q, "x-amz-tagging", buf_cstr(&copy_of(os)->src_tagging));
    if (r->mem.len || r->len == 0)
        body_mem(g, r, q, true);
    else
        body_file(g, r, q, flex_ok(g)); /* the store checks the checksum trailer */
    return S3C_OK;
}

/* RK_CREATE: CreateMultipartUpload, with the object's headers (a copy's kept
 * ones), the checksum the parts will carry, and a copy's tags. */
static enum s3c_err build_create(struct engine *g, struct req *r, struct s3_req *q, struct s3c_error *e)
{
    struct xfer_obj_state *os = r->os;
    struct xfer_obj *o = os->o;

    at_dst(q, "POST", o);
    q->query = "uploads=";
    if (os->family == FAM_COPY && copy_of(os)->keep_meta) {
        add_kept_headers(r, q, true);
    } else {
        add_obj_headers(r, q, true);
        if (o->op == XFER_UPLOAD && flex_ok(g) && mpu_ck_room(g, os)) {
            /* Every part then carries its checksum and S3 keeps the whole object's:
             * a CRC's of the whole, a SHA's of the parts' (S3 keeps no other). */
            s3_req_header(q, "x-amz-checksum-algorithm", ck_name(obj_ck(o)));
            s3_req_header(q, "x-amz-checksum-type", ck_is_crc(obj_ck(o)) ? "FULL_OBJECT" : "COMPOSITE");
            mpu_of(os)->mpu_crc = r->flex = true;
        }
    }
    /* The copy's tags, unless the store is known to ignore them here (then they
     * go with PutObjectTagging after Complete). */
    if (os->family == FAM_COPY) {
        struct obj_copy *c = copy_of(os);

        c->tags_sent = c->src_tagging.len && g->mpu_tagging >= 0;
        if (c->tags_sent)
            s3_req_header(q, "x-amz-tagging", buf_cstr(&c->src_tagging));
    }
    return S3C_OK;
}

/* RK_PART: UploadPart, a stdin part from memory or a file's range streamed. */
static enum s3c_err build_part(struct engine *g, struct req *r, struct s3_req *q, struct s3c_error *e)
{
    struct xfer_obj_state *os = r->os;
    enum s3c_err rc;

    at_dst(q, "PUT", os->o);
    if ((rc = upload_query(r, q, "partNumber", r->part, mpu_of(os)->upload_id, e)))
        return rc;
    if (r->mem.len)
        body_mem(g, r, q, obj_mpu_crc(os));
    else
        body_file(g, r, q, obj_mpu_crc(os) && flex_ok(g));
    return S3C_OK;
}

/* RK_COMPLETE: CompleteMultipartUpload, its XML body already in r->mem. */
static enum s3c_err build_complete(struct engine *g, struct req *r, struct s3_req *q, struct s3c_error *e)
{
    const struct xfer_obj_opts *oo = r->os->o->opts;
    enum s3c_err rc;

    at_dst(q, "POST", r->os->o);
    if ((rc = upload_query(r, q, NULL, 0, mpu_of(r->os)->upload_id, e)))
        return rc;
    q->body = r->mem.data;
    q->body_len = r->mem.len;
    s3_req_header(q, "Content-Type", "application/xml");
    if (oo && oo->no_overwrite)
        s3_req_header(q, "If-None-Match", "*");
    return S3C_OK;
}

/* RK_ABORT: AbortMultipartUpload of this run's upload. */
static enum s3c_err build_abort(struct engine *g, struct req *r, struct s3_req *q, struct s3c_error *e)
{
    at_dst(q, "DELETE", r->os->o);
    if (stdin_partial(g, r->os)) {
        /* A failed stream's appends: its object, if it is still what they made. */
        if (stdin_of(r->os)->append_etag[0])
            s3_req_header(q, "If-Match", stdin_of(r->os)->append_etag);
        return S3C_OK;
    }
    return upload_query(r, q, NULL, 0, mpu_of(r->os)->upload_id, e);
}

/* RK_APPEND: PutObject of a stream's next bytes at the offset the object ends at; the first (offset 0)
 * makes the object, with its headers (an append to an object there may carry none). */
static enum s3c_err build_append(struct engine *g, struct req *r, struct s3_req *q, struct s3c_error *e)
{
    at_dst(q, "PUT", r->os->o);
    if (r->off == 0)
        add_obj_headers(r, q, false);
    snprintf(r->hdr_range, sizeof(r->hdr_range), "%" PRIu64, r->off);
    s3_req_header(q, "x-amz-write-offset-bytes", r->hdr_range);
    body_mem(g, r, q, true);
    return S3C_OK;
}

/* RK_APPEND_HEAD: HeadObject of an appended stream's object, with its stored CRC. */
static enum s3c_err build_append_head(struct engine *g, struct req *r, struct s3_req *q, struct s3c_error *e)
{
    at_dst(q, "HEAD", r->os->o);
    s3_req_header(q, "x-amz-checksum-mode", "ENABLED");
    return S3C_OK;
}

/* RK_GET_VERSIONING: GetBucketVersioning of the bucket the carrier writes to (hedge.c). */
static enum s3c_err build_get_versioning(struct engine *g, struct req *r, struct s3_req *q, struct s3c_error *e)
{
    q->method = "GET";
    q->bucket = r->os->o->dst_bucket;
    q->query = "versioning";
    return S3C_OK;
}

/* RK_ABORT_STALE: AbortMultipartUpload of the upload a killed run journaled. */
static enum s3c_err build_abort_stale(struct engine *g, struct req *r, struct s3_req *q, struct s3c_error *e)
{
    at_dst(q, "DELETE", r->os->o);
    return upload_query(r, q, NULL, 0, mpu_of(r->os)->stale_upload_id, e);
}

/* RK_LIST_PARTS: ListParts of a journaled upload, a page after list_marker. */
static enum s3c_err build_list_parts(struct engine *g, struct req *r, struct s3_req *q, struct s3c_error *e)
{
    at_dst(q, "GET", r->os->o);
    return upload_query(r, q, "part-number-marker", mpu_of(r->os)->list_marker, mpu_of(r->os)->upload_id, e);
}

/* A GetObject's new exchange: new bytes to hash, into its window slot if it has one. */
static enum s3c_err get_fresh(struct req *r, struct s3c_error *e)
{
    struct xfer_obj_state *os = r->os;
    struct obj_dl_stdout *so = os->family == FAM_DL_STDOUT ? dl_stdout_of(os) : NULL;

    r->hash.ready = false; /* new bytes */
    r->use_crc = r->use_sha = false;
    r->md5_live = false;
    r->md5_to = 0; /* (stages lent meanwhile go with the last exchange's job: dl_md5_hashed) */
    if (r->hash.busy) {
        r->hash_stale = true; /* the last exchange's MD5, still with a worker: dropped when back */
    } else {
        r->md5_at = 0;
        md5_init(&r->hash.job.md5);
    }
    if (so && so->win) {
        /* A retry fetches its range again from the start, into the same slot. */
        struct win_slot *slot = &so->win[(r->part - 1) % so->win_k];
        if (!slot->data && !(slot->data = malloc((size_t)os->part_size)))
            return s3c_fail(e, S3C_ENOMEM, "out of memory for a part of the object");
        slot->len = 0;
    }
    return S3C_OK;
}

/* RK_GET: GetObject, the whole object, a range, the rest after a retry (stdout),
 * or one part of a composite object (stdout); its body goes to the family's sink. */
static enum s3c_err build_get(struct engine *g, struct req *r, struct s3_req *q, struct s3c_error *e)
{
    struct xfer_obj_state *os = r->os;
    struct obj_dl_stdout *so = os->family == FAM_DL_STDOUT ? dl_stdout_of(os) : NULL;
    struct xfer_obj *o = os->o;
    char num[32];
    enum s3c_err rc;

    if ((rc = at_src(r, q, "GET", NULL, NULL, e)) || (rc = get_fresh(r, e)))
        return rc;
    if (so && !so->win && so->streamed) {
        /* stdout: a retry resumes after the bytes already written. */
        r->off = so->streamed;
        r->len = os->size - so->streamed;
        snprintf(r->hdr_range, sizeof(r->hdr_range), "bytes=%" PRIu64 "-", r->off);
        s3_req_header(q, "Range", r->hdr_range);
        add_if_match(q, o);
    } else if (so && so->win && so->chk.check == DL_COMPOSITE && !so->chk.layout_guessed) {
        /* stdout of a composite object: each part with its own checksum, checked before it goes out. */
        snprintf(num, sizeof(num), "%" PRIu32, r->part);
        if ((rc = s3_query_add(&r->query, "partNumber", num)))
            return s3c_fail(e, rc, "out of memory");
        q->query = buf_cstr(&r->query);
        s3_req_header(q, "x-amz-checksum-mode", "ENABLED");
        add_if_match(q, o);
    } else if (os->n_parts) {
        snprintf(r->hdr_range, sizeof(r->hdr_range), "bytes=%" PRIu64 "-%" PRIu64, r->off,
                 r->off + r->len - 1);
        s3_req_header(q, "Range", r->hdr_range);
        add_if_match(q, o);
    } else if (g->opts.verify && ck_mode(g, o)) {
        /* The whole object: its stored checksum, if any, comes with it (write_dst). */
        s3_req_header(q, "x-amz-checksum-mode", "ENABLED");
    }
    r->http.sink = g->kinds[r->kind].sink;
    r->http.sink_ctx = r;
    return S3C_OK;
}

/* RK_COPY: CopyObject, with the metadata asked for or the source's kept. */
/*
 * RK_RENAME: RenameObject, PUT /KEY?renameObject: the source (x-amz-rename-source, as a copy's) only
 * while it has the ETag it was listed with, the destination only while absent under --no-overwrite,
 * and a client token of the object's own, so that one sent again after a lost answer is a success
 * that does nothing (S3's idempotency).
 */
static enum s3c_err build_rename(struct engine *g, struct req *r, struct s3_req *q, struct s3c_error *e)
{
    struct xfer_obj_state *os = r->os;
    const struct xfer_obj_opts *oo = os->o->opts;

    at_dst(q, "PUT", os->o);
    q->query = "renameObject=";
    s3_req_header(q, "x-amz-rename-source", buf_cstr(&r->hdr_copy_src));
    if (os->o->etag && os->o->etag[0])
        s3_req_header(q, "x-amz-rename-source-if-match", os->o->etag);
    if (oo && oo->no_overwrite)
        s3_req_header(q, "If-None-Match", "*");
    s3_req_header(q, "x-amz-client-token", copy_of(os)->rename_token);
    return S3C_OK;
}

static enum s3c_err build_copy(struct engine *g, struct req *r, struct s3_req *q, struct s3c_error *e)
{
    struct xfer_obj_state *os = r->os;
    const struct xfer_obj_opts *oo = os->o->opts;

    at_dst(q, "PUT", os->o);
    s3_req_header(q, "x-amz-copy-source", buf_cstr(&r->hdr_copy_src));
    if (!copy_of(os)->keep_meta) {
        s3_req_header(q, "x-amz-metadata-directive", "REPLACE");
        add_obj_headers(r, q, false);
    } else if (copy_of(os)->merge_meta) {
        s3_req_header(q, "x-amz-metadata-directive", "REPLACE");
        add_kept_headers(r, q, false);
    } else if (oo) {
        /* The source's metadata, but the class, ACL and encryption asked for. */
        if (oo->metadata_directive)
            s3_req_header(q, "x-amz-metadata-directive", oo->metadata_directive);
        add_dest_headers(q, oo);
        if (oo->no_overwrite)
            s3_req_header(q, "If-None-Match", "*");
    }
    if (copy_of(os)->drop_tags)
        s3_req_header(q, "x-amz-tagging-directive", "REPLACE");
    return S3C_OK;
}

/* RK_COPY_PART: UploadPartCopy of the source's range r->off, r->len. */
static enum s3c_err build_copy_part(struct engine *g, struct req *r, struct s3_req *q, struct s3c_error *e)
{
    enum s3c_err rc;

    at_dst(q, "PUT", r->os->o);
    if ((rc = upload_query(r, q, "partNumber", r->part, mpu_of(r->os)->upload_id, e)))
        return rc;
    s3_req_header(q, "x-amz-copy-source", buf_cstr(&r->hdr_copy_src));
    snprintf(r->hdr_range, sizeof(r->hdr_range), "bytes=%" PRIu64 "-%" PRIu64, r->off, r->off + r->len - 1);
    s3_req_header(q, "x-amz-copy-source-range", r->hdr_range);
    return S3C_OK;
}

/* RK_HEAD_SRC: HeadObject of a copy's source, for the headers the copy keeps. */
static enum s3c_err build_head_src(struct engine *g, struct req *r, struct s3_req *q, struct s3c_error *e)
{
    return at_src(r, q, "HEAD", NULL, NULL, e);
}

/* RK_GET_TAGS: GetObjectTagging of a copy's source, for the tags it keeps. */
static enum s3c_err build_get_tags(struct engine *g, struct req *r, struct s3_req *q, struct s3c_error *e)
{
    return at_src(r, q, "GET", "tagging", "", e);
}

/* RK_HEAD_DST: HeadObject of the destination (did a lost Complete land?). */
static enum s3c_err build_head_dst(struct engine *g, struct req *r, struct s3_req *q, struct s3c_error *e)
{
    at_dst(q, "HEAD", r->os->o);
    return S3C_OK;
}

/* RK_CHECK_DST: HeadObject of the destination before anything is sent (with the object's SSE-C key:
 * a destination encrypted with it answers only to it). */
static enum s3c_err build_check_dst(struct engine *g, struct req *r, struct s3_req *q, struct s3c_error *e)
{
    at_dst(q, "HEAD", r->os->o);
    return S3C_OK;
}

/* RK_HEAD_SOURCE: HeadObject of a source known by name alone, before anything else: its size, time
 * and ETag, and what the family would have asked its own HEAD for (a stored checksum, the headers a
 * copy keeps), since the family takes this answer as the caller's (xfer_obj.head). */
static enum s3c_err build_head_source(struct engine *g, struct req *r, struct s3_req *q, struct s3c_error *e)
{
    if (ck_mode(g, r->os->o))
        s3_req_header(q, "x-amz-checksum-mode", "ENABLED");
    return at_src(r, q, "HEAD", NULL, NULL, e);
}

/* RK_HEAD_BUCKET: HeadBucket of the source's bucket, after its HEAD answered 404 with no code. */
static enum s3c_err build_head_bucket(struct engine *g, struct req *r, struct s3_req *q, struct s3c_error *e)
{
    q->method = "HEAD";
    q->bucket = r->os->o->src_bucket;
    return S3C_OK;
}

/*
 * RK_PROVE_SRC, RK_PROVE_DST: HeadObject of one end for its stored checksums (sync's same-second
 * proof, prove.c), always asking for them (x-amz-checksum-mode: ENABLED), with the SSE-C key that
 * end is read with, plain: the destination's own; the source's, a copy's source key when given,
 * else the own key (as sync's HEADs sent them before the engine made them).
 */
static enum s3c_err build_prove(struct req *r, struct s3_req *q, bool src, struct s3c_error *e)
{
    const struct xfer_obj *o = r->os->o;
    const struct xfer_obj_opts *oo = o->opts ? o->opts : &no_opts;
    bool copy_key = src && oo->sse_c_copy_source_key;
    const char *key = copy_key ? oo->sse_c_copy_source_key : oo->sse_c_key;
    enum s3c_err rc;

    if (!src)
        at_dst(q, "HEAD", o);
    else if ((rc = at_src(r, q, "HEAD", NULL, NULL, e)))
        return rc;
    s3_req_header(q, "x-amz-checksum-mode", "ENABLED");
    if (key) {
        if ((rc = s3_sse_c_init(&r->ssec, copy_key ? oo->sse_c_copy_source : oo->sse_c, key, e)))
            return rc;
        s3_req_sse_c(q, &r->ssec, false);
    }
    return S3C_OK;
}

static enum s3c_err build_prove_src(struct engine *g, struct req *r, struct s3_req *q, struct s3c_error *e)
{
    return build_prove(r, q, true, e);
}

static enum s3c_err build_prove_dst(struct engine *g, struct req *r, struct s3_req *q, struct s3c_error *e)
{
    return build_prove(r, q, false, e);
}

/* RK_PUT_TAGS: PutObjectTagging of a copy after Complete, its XML body in r->mem. */
static enum s3c_err build_put_tags(struct engine *g, struct req *r, struct s3_req *q, struct s3c_error *e)
{
    at_dst(q, "PUT", r->os->o);
    q->query = "tagging=";
    xml_body_md5(r, q);
    return S3C_OK;
}

/* RK_CHECK_TAGS: GetObjectTagging of a copy after Complete (did the header take?). */
static enum s3c_err build_check_tags(struct engine *g, struct req *r, struct s3_req *q, struct s3c_error *e)
{
    at_dst(q, "GET", r->os->o);
    q->query = "tagging=";
    return S3C_OK;
}

/* RK_HEAD_INFO: HeadObject before a ranged download (size, ETag, stored checksum). */
static enum s3c_err build_head_info(struct engine *g, struct req *r, struct s3_req *q, struct s3c_error *e)
{
    if (ck_mode(g, r->os->o))
        s3_req_header(q, "x-amz-checksum-mode", "ENABLED");
    add_if_match(q, r->os->o);
    return at_src(r, q, "HEAD", NULL, NULL, e);
}

/* RK_HEAD_PART1: HeadObject ?partNumber=1, the part size of a multipart object. */
static enum s3c_err build_head_part1(struct engine *g, struct req *r, struct s3_req *q, struct s3c_error *e)
{
    add_if_match(q, r->os->o);
    return at_src(r, q, "HEAD", "partNumber", "1", e);
}

/* RK_DELETE: DeleteObjects of a batch, its XML body in r->mem. */
static enum s3c_err build_delete(struct engine *g, struct req *r, struct s3_req *q, struct s3c_error *e)
{
    q->method = "POST";
    q->bucket = r->os->o->src_bucket;
    q->query = "delete=";
    xml_body_md5(r, q);
    return S3C_OK;
}

/* RK_RESTORE: RestoreObject of the source, its <RestoreRequest> in r->mem (restore.c). */
static enum s3c_err build_restore(struct engine *g, struct req *r, struct s3_req *q, struct s3c_error *e)
{
    enum s3c_err rc = at_src(r, q, "POST", "restore", "", e);

    if (!rc)
        xml_body_md5(r, q);
    return rc;
}

#define COND_PROBE_ETAG "\"s3c-probe-no-object-has-this-etag\"" /* the probe's If-Match (delete.c) */

bool del_conditional(const struct engine *g, const struct xfer_obj *o)
{
    return o->etag && o->etag[0] && !o->version_id && (g->cond_del == COND_DEL_UNKNOWN || g->cond_del == COND_DEL_CHECKED);
}

const char *del_if_match(const struct engine *g, const struct req *r)
{
    if (!del_conditional(g, r->os->o))
        return NULL;
    return r == g->cond_gate.probe ? COND_PROBE_ETAG : r->os->o->etag;
}

/* RK_DELETE_ONE: DeleteObject of one key (of one version, when given), with If-Match as delete.c says. */
static enum s3c_err build_delete_one(struct engine *g, struct req *r, struct s3_req *q, struct s3c_error *e)
{
    const char *if_match = del_if_match(g, r);

    if (if_match)
        s3_req_header(q, "If-Match", if_match);
    return at_src(r, q, "DELETE", NULL, NULL, e);
}

/*
 * Every kind's builder and what req_submit does for it: keep_on_cancel, a
 * request an interrupt lets answer (a Create may have made its upload already:
 * let it answer, so the upload can be aborted, see abort_late_upload; an
 * Abort is the clean-up itself); slow_answer, one a store may think over for
 * minutes, sending keep-alive spaces (the read timeout ends it for silence
 * only, http.h); sse_c_own and sse_c_src, the SSE-C keys it carries (add_sse_c).
 */
const struct req_builder req_builders[RK_COUNT] = {
    [RK_PUT] = { .build = build_put, .sse_c_own = true, .dup = DUP_WHOLE_WRITE },
    [RK_CREATE] = { .build = build_create, .keep_on_cancel = true, .sse_c_own = true },
    [RK_PART] = { .build = build_part, .sse_c_own = true, .dup = DUP_FREE },
    [RK_COMPLETE] = { .build = build_complete, .slow_answer = true, .sse_c_own = true },
    [RK_ABORT] = { .build = build_abort, .keep_on_cancel = true },
    [RK_GET] = { .build = build_get, .sse_c_own = true, .dup = DUP_FREE },
    [RK_COPY] = { .build = build_copy, .slow_answer = true, .sse_c_own = true, .sse_c_src = true },
    [RK_COPY_PART] = { .build = build_copy_part, .slow_answer = true, .sse_c_own = true, .sse_c_src = true },
    [RK_HEAD_SRC] = { .build = build_head_src, .sse_c_src = true, .dup = DUP_FREE },
    [RK_DELETE] = { .build = build_delete, .slow_answer = true },
    [RK_DELETE_ONE] = { .build = build_delete_one },
    [RK_RESTORE] = { .build = build_restore },
    [RK_HEAD_INFO] = { .build = build_head_info, .sse_c_own = true, .dup = DUP_FREE },
    [RK_HEAD_PART1] = { .build = build_head_part1, .sse_c_own = true, .dup = DUP_FREE },
    [RK_LIST_PARTS] = { .build = build_list_parts },
    [RK_HEAD_DST] = { .build = build_head_dst },
    [RK_GET_TAGS] = { .build = build_get_tags },
    [RK_PUT_TAGS] = { .build = build_put_tags },
    [RK_CHECK_TAGS] = { .build = build_check_tags },
    [RK_ABORT_STALE] = { .build = build_abort_stale },
    [RK_CHECK_DST] = { .build = build_check_dst, .sse_c_own = true, .dup = DUP_FREE },
    [RK_GET_VERSIONING] = { .build = build_get_versioning },
    [RK_HEAD_SOURCE] = { .build = build_head_source, .sse_c_source = true, .dup = DUP_FREE },
    [RK_HEAD_BUCKET] = { .build = build_head_bucket, .dup = DUP_FREE },
    [RK_PROVE_SRC] = { .build = build_prove_src, .dup = DUP_FREE }, /* its SSE-C key: build_prove's */
    [RK_PROVE_DST] = { .build = build_prove_dst, .dup = DUP_FREE },
    /* Its body lands in r->mem, which a duplicate would share: never hedged. */
    [RK_RELAY_GET] = { .build = build_get, .sse_c_source = true },
    [RK_RENAME] = { .build = build_rename },
    /* Never hedged: a second append at one offset is refused, and the first may be slow, not lost. */
    [RK_APPEND] = { .build = build_append, .sse_c_own = true },
    [RK_APPEND_HEAD] = { .build = build_append_head, .sse_c_own = true },
};
