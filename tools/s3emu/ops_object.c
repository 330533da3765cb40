/*
 * ops_object: one object at a time: GetObject and HeadObject (ranges,
 * partNumber, conditions), PutObject, CopyObject, DeleteObject and
 * DeleteObjects. Not multipart uploads (ops_mpu.c), and not what versioning
 * makes of a delete (ops_version.c).
 */
#include "ops.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/ck.h"

/* An HTTP date (or ISO 8601) in ms since the epoch; -1 when absent or unparsable. */
static int64_t parse_http_time(struct sv v)
{
    char tmp[64];
    struct tm tm;
    char *end;

    if (!v.p || v.n >= sizeof(tmp))
        return -1;
    memcpy(tmp, v.p, v.n);
    tmp[v.n] = 0;
    memset(&tm, 0, sizeof(tm));
    end = strptime(tmp, "%a, %d %b %Y %H:%M:%S GMT", &tm);
    if (!end) {
        memset(&tm, 0, sizeof(tm));
        end = strptime(tmp, "%Y-%m-%dT%H:%M:%S", &tm);
    }
    if (!end)
        return -1;
    return (int64_t)timegm(&tm) * 1000;
}

/* Response headers of an object (GET, HEAD). */
static void obj_headers(const struct emu_server *s, struct emu_conn *c, const struct emu_bucket *b,
                        const struct emu_obj *o, bool with_checksum)
{
    struct emu_resp *r = &c->resp;
    struct emu_restore rs = emu_model_restore(s, o, emu_wall_ms());
    char t[40];

    static const char *const overrides[][2] = {
        { "response-content-type", "Content-Type" },
        { "response-content-language", "Content-Language" },
        { "response-expires", "Expires" },
        { "response-cache-control", "Cache-Control" },
        { "response-content-disposition", "Content-Disposition" },
        { "response-content-encoding", "Content-Encoding" },
    };
    const char *ov[6];
    const char *line = o->hdrs;
    size_t i;

    ops_http_time(o->mtime_ms, t);
    emu_resp_header(r, "Last-Modified", "%s", t);
    emu_resp_header(r, "ETag", "%s", o->etag);
    for (i = 0; i < 6; i++)
        ov[i] = emu_req_param(&c->req, overrides[i][0]);
    /* Stored headers, minus those a response-* parameter overrides (GET ?response-content-type=...). */
    while (*line) {
        const char *eol = strstr(line, "\r\n");
        size_t len = eol ? (size_t)(eol - line) + 2 : strlen(line);
        bool skip = false;

        for (i = 0; i < 6; i++) {
            size_t hl = strlen(overrides[i][1]);
            if (ov[i] && strncasecmp(line, overrides[i][1], hl) == 0 && line[hl] == ':')
                skip = true;
        }
        if (!skip)
            buf_add(&r->hdrs, line, len);
        line += len;
    }
    for (i = 0; i < 6; i++)
        if (ov[i])
            emu_resp_header(r, overrides[i][1], "%s", ov[i]);
    emu_resp_header(r, "Accept-Ranges", "bytes");
    if (b->versioning != VER_NONE)
        emu_resp_header(r, "x-amz-version-id", "%s", o->vid);
    if (strcmp(o->storage_class, "STANDARD") != 0)
        emu_resp_header(r, "x-amz-storage-class", "%s", o->storage_class);
    if (rs.ongoing) {
        emu_resp_header(r, "x-amz-restore", "ongoing-request=\"true\"");
    } else if (rs.asked) {
        ops_http_time(rs.until_ms, t);
        emu_resp_header(r, "x-amz-restore", "ongoing-request=\"false\", expiry-date=\"%s\"", t);
    }
    ops_tags_count_header(c, &o->tags);
    if (with_checksum && o->ck.algo[0]) {
        char hn[40];
        ops_ck_header_name(o->ck.algo, hn);
        emu_resp_header(r, hn, "%s", o->ck.value);
        emu_resp_header(r, "x-amz-checksum-type", "%s", o->ck.type);
    }
}

static void set_body_blob(struct emu_conn *c, struct emu_blob *blob, uint64_t off, uint64_t len)
{
    struct emu_resp *r = &c->resp;

    r->blob = emu_blob_ref(blob);
    r->bp = blob ? blob->data + off : "";
    r->blen = len;
    r->content_length = len;
}

/* 0 go on; else the status (304 or 412) already answered. */
static int preconditions(struct emu_server *s, struct emu_conn *c, const struct emu_obj *o,
                         const char *im_h, const char *inm_h, const char *ims_h, const char *ius_h)
{
    struct emu_req *q = &c->req;
    struct sv im = emu_req_header(q, im_h), inm = emu_req_header(q, inm_h);
    int64_t ims = parse_http_time(emu_req_header(q, ims_h));
    int64_t ius = parse_http_time(emu_req_header(q, ius_h));
    int64_t mt = o->mtime_ms / 1000 * 1000;
    struct buf x = BUF_INIT(256);
    const char *cond = NULL;
    int st = 0;

    if (im.p && !ops_etag_match(im, o->etag))
        st = 412, cond = im_h;
    else if (!im.p && ius >= 0 && mt > ius)
        st = 412, cond = ius_h;
    else if (inm.p && ops_etag_match(inm, o->etag))
        st = strstr(im_h, "copy") ? 412 : 304, cond = inm_h;
    else if (!inm.p && ims >= 0 && mt <= ims)
        st = strstr(im_h, "copy") ? 412 : 304, cond = ims_h;
    if (st == 412) {
        emu_xml_elem(&x, "Condition", cond);
        ops_error(s, c, 412, "PreconditionFailed", "At least one of the pre-conditions you specified did not hold",
                  buf_cstr(&x));
    } else if (st == 304) {
        char t[40];
        ops_http_time(o->mtime_ms, t);
        c->resp.status = 304;
        emu_resp_header(&c->resp, "ETag", "%s", o->etag);
        emu_resp_header(&c->resp, "Last-Modified", "%s", t);
    }
    buf_release(&x);
    return st;
}

void ops_get_object(struct emu_server *s, struct emu_conn *c, struct emu_bucket *b, bool head)
{
    struct emu_req *q = &c->req;
    struct emu_resp *r = &c->resp;
    const char *vid = emu_req_param(q, "versionId");
    const char *pn = s->model.ignore_part_number ? NULL : emu_req_param(q, "partNumber");
    struct sv range = emu_req_header(q, "range"), cm = emu_req_header(q, "x-amz-checksum-mode");
    struct emu_obj *o = ops_find_obj(s, c, b, q->key, q->klen, vid);
    uint64_t off = 0, len, size;
    int status = 200;

    if (!o)
        return;
    if (preconditions(s, c, o, "If-Match", "If-None-Match", "If-Modified-Since", "If-Unmodified-Since") ||
        ops_ssec_check(s, c, o->ssec_md5, false) || (!head && ops_archived_refuse(s, c, o)))
        return;
    ops_ssec_headers(c, o->ssec_md5);
    size = o->size;
    len = size;
    if (pn) {
        uint64_t n;

        if (!sv_to_u64(sv_from(pn), &n) || n < 1 || n > 10000 ||
            (o->n_parts ? n > o->n_parts : n != 1)) {
            ops_error(s, c, 416, "InvalidPartNumber", "The requested partnumber is not satisfiable", NULL);
            return;
        }
        if (o->n_parts) {
            off = n == 1 ? 0 : o->part_ends[n - 2];
            len = o->part_ends[n - 1] - off;
            status = 206;
            emu_resp_header(r, "x-amz-mp-parts-count", "%u", o->n_parts);
        }
    } else if (range.p && sv_starts(range, "bytes=") && !memchr(range.p, ',', range.n)) {
        struct sv spec = { range.p + 6, range.n - 6 };
        const char *dash = memchr(spec.p, '-', spec.n);
        uint64_t a = 0, z = 0;
        bool ok = dash != NULL, has_a, has_z;

        if (ok) {
            struct sv sa = { spec.p, (size_t)(dash - spec.p) }, sz = { dash + 1, spec.n - sa.n - 1 };
            has_a = sa.n > 0;
            has_z = sz.n > 0;
            ok = (has_a || has_z) && (!has_a || sv_to_u64(sa, &a)) && (!has_z || sv_to_u64(sz, &z));
            if (ok && has_a && has_z && z < a)
                ok = false; /* syntactically invalid: ignore the header, as HTTP says */
            if (ok) {
                if (!has_a) { /* suffix: the last z bytes */
                    if (z == 0) {
                        ok = false;
                        goto unsatisfiable;
                    }
                    a = z > size ? 0 : size - z;
                    z = size - 1;
                } else if (!has_z || z >= size) {
                    z = size ? size - 1 : 0;
                }
                if (a >= size)
                    goto unsatisfiable;
                off = a;
                len = z - a + 1;
                status = 206;
            }
        }
    }
    if (status == 206)
        emu_resp_header(r, "Content-Range", "bytes %llu-%llu/%llu", (unsigned long long)off,
                        (unsigned long long)(off + len - 1), (unsigned long long)size);
    obj_headers(s, c, b, o, cm.p && sv_ieqs(cm, "ENABLED") && status == 200);
    if (pn && o->n_parts && cm.p && sv_ieqs(cm, "ENABLED") && o->ck.algo[0] && !strcmp(o->ck.type, "COMPOSITE")) {
        /* A part of a composite object: that part's checksum, as S3 gives it
         * (the composite is made of them), computed from the stored bytes. */
        char hn[40], v[96];

        ops_ck_header_name(o->ck.algo, hn);
        ops_ck_b64(o->ck.algo, o->blob->data + off, (size_t)len, v);
        emu_resp_header(r, hn, "%s", v);
        emu_resp_header(r, "x-amz-checksum-type", "COMPOSITE");
    }
    r->status = status;
    set_body_blob(c, o->blob, off, len);
    r->no_body = head;
    return;
unsatisfiable: {
        struct buf x = BUF_INIT(512);
        buf_adds(&x, "<RangeRequested>");
        emu_xml_esc(&x, range.p, range.n);
        buf_addf(&x, "</RangeRequested><ActualObjectSize>%llu</ActualObjectSize>", (unsigned long long)size);
        ops_error(s, c, 416, "InvalidRange", "The requested range is not satisfiable", buf_cstr(&x));
        emu_resp_header(r, "Content-Range", "bytes */%llu", (unsigned long long)size);
        buf_release(&x);
    }
}

/* Conditional writes: If-None-Match: * and If-Match. 0 go on, else answered. */
int ops_put_preconditions(struct emu_server *s, struct emu_conn *c, struct emu_bucket *b)
{
    struct emu_req *q = &c->req;
    struct sv inm = emu_req_header(q, "if-none-match"), im = emu_req_header(q, "if-match");
    struct emu_obj *o;

    if (!inm.p && !im.p)
        return 0;
    o = emu_store_get(b, q->key, q->klen, NULL);
    if (o && o->delete_marker)
        o = NULL;
    if (inm.p && o && ops_etag_match(inm, o->etag)) {
        ops_error(s, c, 412, "PreconditionFailed", "At least one of the pre-conditions you specified did not hold",
                  "<Condition>If-None-Match</Condition>");
        return 412;
    }
    if (im.p && !o) {
        ops_no_such_key(s, c);
        return 404;
    }
    if (im.p && !ops_etag_match(im, o->etag)) {
        ops_error(s, c, 412, "PreconditionFailed", "At least one of the pre-conditions you specified did not hold",
                  "<Condition>If-Match</Condition>");
        return 412;
    }
    return 0;
}

static void put_done_headers(struct emu_conn *c, struct emu_bucket *b, const struct emu_obj *o)
{
    emu_resp_header(&c->resp, "ETag", "%s", o->etag);
    if (b->versioning == VER_ENABLED)
        emu_resp_header(&c->resp, "x-amz-version-id", "%s", o->vid);
    if (o->ck.algo[0]) {
        char hn[40];
        ops_ck_header_name(o->ck.algo, hn);
        emu_resp_header(&c->resp, hn, "%s", o->ck.value);
        emu_resp_header(&c->resp, "x-amz-checksum-type", "%s", o->ck.type);
    }
}

void ops_put_object(struct emu_server *s, struct emu_conn *c, struct emu_bucket *b,
                    const struct body_check *bc)
{
    struct emu_req *q = &c->req;
    struct emu_obj *o;
    struct emu_tags tags;
    char ssec[28];

    char acl[32];

    if (!ops_request_acl(s, c, acl) || ops_put_preconditions(s, c, b) || ops_ssec_take(s, c, false, b, ssec) || bc->rc)
        return;
    if (q->body && q->body->len > EMU_OBJECT_MAX) {
        ops_err_key(s, c, 400, "EntityTooLarge", "Your proposed upload exceeds the maximum allowed size");
        return;
    }
    if (ops_tags_from_header(s, c, &tags))
        return;
    o = emu_store_obj_new();
    if (!o || !(o->blob = ops_take_body(q))) {
        emu_store_obj_free(o);
        emu_tags_release(&tags);
        ops_error(s, c, 500, "InternalError", "Out of memory.", NULL);
        return;
    }
    o->tags = tags;
    o->size = o->blob->len;
    memcpy(o->etag, bc->etag, sizeof(o->etag));
    free(o->hdrs);
    o->hdrs = ops_capture_headers(q, o->storage_class);
    o->ck = bc->ck;
    str_copy(o->acl, sizeof(o->acl), acl);
    str_copy(o->ssec_md5, sizeof(o->ssec_md5), ssec);
    ops_express_obj(s, b, o);
    {
        const struct emu_obj *old = emu_store_get(b, q->key, q->klen, NULL);
        if (old && !strcmp(old->etag, o->etag) && old->size == o->size)
            EMU_STAT(s, stored_again, 1); /* the same bytes again (a retry or a duplicate) */
    }
    if (emu_store_put(s, b, q->key, q->klen, o)) {
        ops_error(s, c, 500, "InternalError", "Out of memory.", NULL);
        return;
    }
    put_done_headers(c, b, o);
    ops_ssec_headers(c, o->ssec_md5);
    ops_ok_empty(c, 200);
}

/* "crc32c" for "CRC32C": how S3 names algorithms in its checksum type message. */
static void lower_copy(char *dst, size_t n, const char *src)
{
    size_t i;

    for (i = 0; i + 1 < n && src[i]; i++)
        dst[i] = (char)tolower((unsigned char)src[i]);
    dst[i] = 0;
}

/*
 * The checksum of an object with 'n' more bytes (the body of the append 'bc'): a full-object CRC
 * goes on over them (joined with theirs, as Complete joins its parts'), and an append that names
 * another algorithm is refused; any other checksum (a SHA, a composite) covers the bytes it was
 * taken over only, and goes. 0, or -1 when answered.
 */
static int append_checksum(struct emu_server *s, struct emu_conn *c, const struct emu_obj *o,
                           const struct body_check *bc, struct emu_cksum *out)
{
    const struct emu_blob *body = c->req.body;
    unsigned char raw[CK_MAX_LEN], praw[CK_MAX_LEN];
    char want[16], got[16], msg[128], v[CK_B64_MAX];
    uint64_t part;
    enum ck_algo a;

    memset(out, 0, sizeof(*out));
    if (!ck_parse(sv_from(o->ck.algo), &a) || !ck_is_crc(a) || strcmp(o->ck.type, "FULL_OBJECT") != 0 ||
        !ck_from_b64(a, sv_from(o->ck.value), raw))
        return 0;
    if (bc->ck.algo[0] && !bc->ck_ours && strcmp(bc->ck.algo, o->ck.algo) != 0) {
        lower_copy(want, sizeof(want), o->ck.algo);
        lower_copy(got, sizeof(got), bc->ck.algo);
        snprintf(msg, sizeof(msg), "Checksum Type mismatch occurred, expected checksum Type: %s, actual "
                 "checksum Type: %s", want, got);
        ops_error(s, c, 400, "InvalidRequest", msg, NULL);
        return -1;
    }
    if (!strcmp(bc->ck.algo, o->ck.algo) && ck_from_b64(a, sv_from(bc->ck.value), praw))
        part = ops_crc_value(praw, ck_len(a));
    else    /* ours is a CRC32 and the object's another CRC: taken now, the one pass under the lock */
        part = ck_update(a, 0, body->data, (size_t)body->len);
    ck_crc_b64(a, ck_combine(a, ops_crc_value(raw, ck_len(a)), part, body->len), v);
    str_copy(out->algo, sizeof(out->algo), o->ck.algo);
    str_copy(out->value, sizeof(out->value), v);
    str_copy(out->type, sizeof(out->type), "FULL_OBJECT");
    return 0;
}

void ops_append_object(struct emu_server *s, struct emu_conn *c, struct emu_bucket *b,
                       const struct body_check *bc)
{
    struct emu_req *q = &c->req;
    struct emu_obj *o;
    struct emu_blob *grown;
    struct emu_cksum ck;
    uint64_t off, *ends;
    uint32_t parts, cap;
    int i;

    if (!b->directory) {
        ops_error(s, c, 501, "NotImplemented", "This bucket does not support appends: "
                  "x-amz-write-offset-bytes is for directory buckets.", NULL);
        return;
    }
    if (!sv_to_u64(emu_req_header(q, "x-amz-write-offset-bytes"), &off)) {
        ops_error(s, c, 400, "InvalidArgument", "x-amz-write-offset-bytes must be a non-negative integer.", NULL);
        return;
    }
    if (!q->body || !q->body->len) {
        ops_error(s, c, 400, "InvalidRequest", "Request body cannot be empty when 'write offset' is specified.",
                  NULL);
        return;
    }
    o = emu_store_get(b, q->key, q->klen, NULL);
    if (!o || o->delete_marker) {
        if (off) {
            ops_error(s, c, 400, "InvalidWriteOffset", "The write offset value that you specified does not "
                      "match the current object size.", NULL);
            return;
        }
        ops_put_object(s, c, b, bc); /* the first bytes: a PutObject, metadata and all */
        return;
    }
    if (ops_put_preconditions(s, c, b) || ops_ssec_check(s, c, o->ssec_md5, false) || bc->rc)
        return;
    for (i = 0; i < q->n_hdrs; i++) {
        if (q->hdrs[i].name.n > 11 && !strncasecmp(q->hdrs[i].name.p, "x-amz-meta-", 11)) {
            ops_error(s, c, 400, "InvalidRequest", "Cannot specify both a write offset value and "
                      "user-defined object metadata for existing objects.", NULL);
            return;
        }
    }
    if (off != o->size) {
        ops_error(s, c, 400, "InvalidWriteOffset", "The write offset value that you specified does not match "
                  "the current object size.", NULL);
        return;
    }
    if (q->body->len > EMU_OBJECT_MAX) {
        ops_err_key(s, c, 400, "EntityTooLarge", "Your proposed upload exceeds the maximum allowed size");
        return;
    }
    parts = (o->n_parts ? o->n_parts : 1) + 1;
    if (parts > s->model.append_max_parts) {
        char msg[128];

        snprintf(msg, sizeof(msg), "An object may have at most %u parts: this append would be part %u.",
                 s->model.append_max_parts, parts);
        ops_error(s, c, 400, "TooManyParts", msg, NULL);
        return;
    }
    if (append_checksum(s, c, o, bc, &ck))
        return;
    /* Room for the part ends by powers of two: realloc to the size it has is no copy. */
    for (cap = 2; cap < parts; cap *= 2)
        ;
    ends = realloc(o->part_ends, (size_t)cap * sizeof(*ends));
    if (!ends) {
        ops_error(s, c, 500, "InternalError", "Out of memory.", NULL);
        return;
    }
    o->part_ends = ends;
    grown = emu_blob_append(o->blob, o->size, q->body->data, q->body->len);
    if (!grown) {
        ops_error(s, c, 500, "InternalError", "Out of memory.", NULL);
        return;
    }
    if (!o->n_parts)
        ends[0] = o->size;
    o->blob = grown;
    o->size += q->body->len;
    ends[parts - 1] = o->size;
    o->n_parts = parts;
    o->mtime_ms = emu_wall_ms();
    o->ck = ck;
    /* A new ETag, no MD5 of the whole a client could check the bytes against: random, and -N. */
    o->etag[0] = '"';
    emu_random_hex(s, o->etag + 1, 32);
    snprintf(o->etag + 33, sizeof(o->etag) - 33, "-%u\"", parts);
    put_done_headers(c, b, o);
    ops_ok_empty(c, 200);
}

void ops_delete_object(struct emu_server *s, struct emu_conn *c, struct emu_bucket *b)
{
    struct emu_req *q = &c->req;
    const char *vid = emu_req_param(q, "versionId");
    struct buf mv = BUF_INIT(64);
    bool marker;

    /* A conditional delete (If-Match: ETag or *) of the current version: 412 when it changed, 404
     * when there is none, as S3 since 2025; a store that ignores the header (delete_ignores_if_match)
     * deletes all the same. */
    if (!vid && emu_req_header(q, "if-match").p && !s->model.delete_ignores_if_match &&
        ops_put_preconditions(s, c, b))
        return;
    ops_version_delete(s, c, b, q->key, q->klen, vid, &mv, &marker);
    if (marker)
        emu_resp_header(&c->resp, "x-amz-delete-marker", "true");
    if (mv.len)
        emu_resp_header(&c->resp, "x-amz-version-id", "%s", buf_cstr(&mv));
    buf_release(&mv);
    ops_ok_empty(c, 204);
}

#define DELETE_MAX 1000

struct del_ctx {
    char *keys[DELETE_MAX + 1];
    char *vids[DELETE_MAX + 1];
    char *etags[DELETE_MAX + 1];    /* <ETag>: deleted only while the object has it (S3 since 2025) */
    int n;
    char *cur_key, *cur_vid, *cur_etag;
    bool quiet, bad;
};

static void del_cb(void *ctx, const char *name, const char *text, int depth)
{
    struct del_ctx *d = ctx;

    if (!strcmp(name, "Quiet") && depth == 2) {
        d->quiet = !strcmp(text, "true");
    } else if (!strcmp(name, "Key") && depth == 3) {
        free(d->cur_key);
        d->cur_key = strdup(text);
    } else if (!strcmp(name, "VersionId") && depth == 3) {
        free(d->cur_vid);
        d->cur_vid = strdup(text);
    } else if (!strcmp(name, "ETag") && depth == 3) {
        free(d->cur_etag);
        d->cur_etag = strdup(text);
    } else if (!strcmp(name, "Object") && depth == 2) {
        if (!d->cur_key || d->n == DELETE_MAX + 1) {
            d->bad = true;
            return;
        }
        d->keys[d->n] = d->cur_key;
        d->vids[d->n] = d->cur_vid;
        d->etags[d->n] = d->cur_etag;
        d->n++;
        d->cur_key = d->cur_vid = d->cur_etag = NULL;
    }
}

void ops_delete_objects(struct emu_server *s, struct emu_conn *c, struct emu_bucket *b)
{
    struct emu_req *q = &c->req;
    struct del_ctx *d = calloc(1, sizeof(*d));
    struct buf *x = &c->resp.body;
    int i;

    if (!d) {
        ops_error(s, c, 500, "InternalError", "Out of memory.", NULL);
        return;
    }
    if (!q->body || emu_xml_walk(q->body->data, (size_t)q->body->len, del_cb, d) || d->bad ||
        d->n == 0 || d->n > DELETE_MAX) {
        ops_error(s, c, 400, "MalformedXML",
                  "The XML you provided was not well-formed or did not validate against our published schema.", NULL);
        goto out;
    }
    for (i = 0; b->directory && i < d->n; i++) {
        if (!ops_express_delete_key_ok(d->keys[i])) {
            ops_error(s, c, 400, "InvalidArgument", "Object keys in DeleteObjects requests on directory "
                      "buckets need a character other than white space and no control character but "
                      "tab, newline and carriage return.", NULL);
            goto out;
        }
    }
    ops_xml_open(x, "DeleteResult");
    for (i = 0; i < d->n; i++) {
        struct buf mv = BUF_INIT(64);
        size_t kl = strlen(d->keys[i]);
        bool marker;

        if (kl == 0 || kl > MAX_KEY_BYTES) {
            buf_adds(x, "<Error>");
            ops_xml_key(x, "Key", d->keys[i], kl, false);
            buf_adds(x, "<Code>InvalidArgument</Code><Message>Invalid key</Message></Error>");
            continue;
        }
        if (emu_model_deny_key(s, q, d->keys[i])) {
            buf_adds(x, "<Error>");
            ops_xml_key(x, "Key", d->keys[i], kl, false);
            buf_adds(x, "<Code>AccessDenied</Code><Message>Access Denied</Message></Error>");
            continue;
        }
        if (d->etags[i] && !d->vids[i] && !s->model.delete_ignores_if_match) {
            /* As DeleteObject's If-Match: the current version must carry the ETag, and be there. */
            struct emu_obj *o = emu_store_get(b, d->keys[i], kl, NULL);

            if (!o || o->delete_marker) {
                buf_adds(x, "<Error>");
                ops_xml_key(x, "Key", d->keys[i], kl, false);
                buf_adds(x, "<Code>NoSuchKey</Code><Message>The specified key does not exist.</Message></Error>");
                continue;
            }
            if (!ops_etag_match(sv_from(d->etags[i]), o->etag)) {
                buf_adds(x, "<Error>");
                ops_xml_key(x, "Key", d->keys[i], kl, false);
                buf_adds(x, "<Code>PreconditionFailed</Code><Message>At least one of the pre-conditions "
                            "you specified did not hold</Message></Error>");
                continue;
            }
        }
        ops_version_delete(s, c, b, d->keys[i], kl, d->vids[i], &mv, &marker);
        if (!d->quiet) {
            buf_adds(x, "<Deleted>");
            ops_xml_key(x, "Key", d->keys[i], kl, false);
            if (d->vids[i])
                emu_xml_elem(x, "VersionId", d->vids[i]);
            if (marker) {
                buf_adds(x, "<DeleteMarker>true</DeleteMarker>");
                if (!d->vids[i])
                    emu_xml_elem(x, "DeleteMarkerVersionId", buf_cstr(&mv));
            }
            buf_adds(x, "</Deleted>");
        }
        buf_release(&mv);
    }
    buf_adds(x, "</DeleteResult>");
    ops_ok_xml(c);
out:
    for (i = 0; i < d->n; i++) {
        free(d->keys[i]);
        free(d->vids[i]);
        free(d->etags[i]);
    }
    free(d->cur_key);
    free(d->cur_vid);
    free(d->cur_etag);
    free(d);
}

static bool archived(const struct emu_obj *o)
{
    return !strcmp(o->storage_class, "GLACIER") || !strcmp(o->storage_class, "DEEP_ARCHIVE");
}

bool ops_archived_refuse(struct emu_server *s, struct emu_conn *c, const struct emu_obj *o)
{
    struct buf x = BUF_INIT(256);

    struct emu_restore rs = emu_model_restore(s, o, emu_wall_ms());

    if (!archived(o) || (rs.asked && !rs.ongoing && rs.until_ms > emu_wall_ms()))
        return false;
    emu_xml_elem(&x, "StorageClass", o->storage_class);
    ops_error(s, c, 403, "InvalidObjectState", "The operation is not valid for the object's storage class",
              buf_cstr(&x));
    buf_release(&x);
    return true;
}

void ops_restore_object(struct emu_server *s, struct emu_conn *c, struct emu_bucket *b)
{
    struct emu_req *q = &c->req;
    struct emu_obj *o = ops_find_obj(s, c, b, q->key, q->klen, emu_req_param(q, "versionId"));
    const char *days = q->body ? memmem(q->body->data, (size_t)q->body->len, "<Days>", 6) : NULL;
    int64_t now = emu_wall_ms();
    struct emu_restore rs;
    long n = 1;

    if (!o)
        return;
    if (days) {
        const char *end = q->body->data + q->body->len;
        for (n = 0, days += 6; days < end && *days >= '0' && *days <= '9' && n < 100000; days++)
            n = n * 10 + (*days - '0');
    }
    if (!archived(o)) {
        struct buf x = BUF_INIT(256);
        emu_xml_elem(&x, "StorageClass", o->storage_class);
        ops_error(s, c, 403, "InvalidObjectState", "Restore is not allowed for the object's current storage class",
                  buf_cstr(&x));
        buf_release(&x);
        return;
    }
    rs = emu_model_restore(s, o, now);
    if (rs.ongoing) {
        ops_error(s, c, 409, "RestoreAlreadyInProgress", "Object restore is already in progress", NULL);
        return;
    }
    /* 200: restored already, a new expiry from now; 202: started, ready after the model's restore_ms. */
    c->resp.status = rs.asked && rs.until_ms > now ? 200 : 202;
    if (c->resp.status == 202) {
        o->restore_asked_ms = now;
        o->restore_days_ms = (n > 0 ? n : 1) * 86400000LL;
        o->restored_until_ms = 0;
    } else {
        o->restored_until_ms = now + (n > 0 ? n : 1) * 86400000LL;
    }
}

/* x-amz-copy-source: "[/]bucket/key[?versionId=v]", URL-encoded. Answers errors itself. */
struct emu_obj *ops_copy_source(struct emu_server *s, struct emu_conn *c, struct emu_bucket **sb_out,
                                char **skey_out, size_t *sklen_out)
{
    struct sv src = emu_req_header(&c->req, "x-amz-copy-source");
    const char *qm, *sl;
    char *bucket = NULL, *vid = NULL, *key = NULL;
    size_t bl, kl = 0;
    struct emu_bucket *sb;
    struct emu_obj *o = NULL;

    if (src.n && src.p[0] == '/')
        src.p++, src.n--;
    qm = memchr(src.p, '?', src.n);
    if (qm) {
        struct sv v = { qm + 1, src.n - (size_t)(qm - src.p) - 1 };
        if (sv_starts(v, "versionId="))
            vid = sv_dup((struct sv){ v.p + 10, v.n - 10 });
        src.n = (size_t)(qm - src.p);
    }
    sl = memchr(src.p, '/', src.n);
    if (!sl || sl == src.p || (size_t)(sl - src.p) + 1 == src.n) {
        ops_error(s, c, 400, "InvalidArgument", "Invalid copy source object key", NULL);
        goto out;
    }
    bucket = ops_decode_path((struct sv){ src.p, (size_t)(sl - src.p) }, &bl);
    key = ops_decode_path((struct sv){ sl + 1, src.n - (size_t)(sl - src.p) - 1 }, &kl);
    sb = emu_store_bucket(s, bucket);
    if (!sb) {
        struct buf x = BUF_INIT(4096);
        emu_xml_elem(&x, "BucketName", bucket);
        ops_error(s, c, 404, "NoSuchBucket", "The specified bucket does not exist", buf_cstr(&x));
        buf_release(&x);
        goto out;
    }
    o = ops_find_obj(s, c, sb, key, kl, vid);
    if (!o)
        goto out;
    if (preconditions(s, c, o, "x-amz-copy-source-if-match", "x-amz-copy-source-if-none-match",
                      "x-amz-copy-source-if-modified-since", "x-amz-copy-source-if-unmodified-since")) {
        o = NULL;
        goto out;
    }
    if (ops_archived_refuse(s, c, o)) {
        o = NULL;
        goto out;
    }
    if (sb->versioning != VER_NONE)
        emu_resp_header(&c->resp, "x-amz-copy-source-version-id", "%s", o->vid);
    *sb_out = sb;
    *skey_out = key;
    *sklen_out = kl;
    key = NULL;
out:
    free(bucket);
    free(key);
    free(vid);
    return o;
}

/*
 * S3 copies on its own machines, at a rate per request (bench/README.md has
 * the published figures): the answer waits copy_ms plus the bytes at
 * copy_mbps, on top of the first-byte latency. The emulator itself copies
 * nothing (the bytes are shared), so this time is all the model's.
 */
int64_t ops_copy_delay_ns(struct emu_server *s, uint64_t bytes)
{
    double ns = s->model.copy_ms * 1e6;

    if (s->model.copy_mbps > 0)
        ns += (double)bytes / s->model.copy_mbps * 1e3;
    return (int64_t)ns;
}

void ops_copy_object(struct emu_server *s, struct emu_conn *c, struct emu_bucket *b)
{
    struct emu_req *q = &c->req;
    struct sv dir = emu_req_header(q, "x-amz-metadata-directive");
    struct sv cka = emu_req_header(q, "x-amz-checksum-algorithm");
    struct sv scl = emu_req_header(q, "x-amz-storage-class");
    struct sv tdir = emu_req_header(q, "x-amz-tagging-directive");
    struct sv src;
    struct emu_bucket *sb = NULL;
    char *skey = NULL, t[48], xn[32], acl[32], ssec[28];
    size_t sklen = 0;
    struct emu_obj *so, *o;
    bool replace = dir.p && sv_ieqs(dir, "REPLACE");
    struct buf *x = &c->resp.body;

    if (dir.p && !replace && !sv_ieqs(dir, "COPY")) {
        ops_error(s, c, 400, "InvalidArgument", "Unknown metadata directive.", NULL);
        return;
    }
    if (tdir.p && !sv_ieqs(tdir, "COPY") && !sv_ieqs(tdir, "REPLACE")) {
        ops_error(s, c, 400, "InvalidArgument", "Unknown tagging directive.", NULL);
        return;
    }
    so = ops_copy_source(s, c, &sb, &skey, &sklen);
    if (!so)
        return;
    /* In place, something must change: metadata, class or encryption (S3's words); but a version
     * named (?versionId=) may be copied onto its key: how S3 restores an old version. */
    src = emu_req_header(q, "x-amz-copy-source");
    if (sb == b && sklen == q->klen && !memcmp(skey, q->key, sklen) && !replace && !scl.p && !cka.p &&
        !memmem(src.p, src.n, "?versionId=", 11) &&
        !emu_req_header(q, "x-amz-server-side-encryption").p &&
        !emu_req_header(q, "x-amz-server-side-encryption-customer-algorithm").p) {
        ops_error(s, c, 400, "InvalidRequest",
                  "This copy request is illegal because it is trying to copy an object to itself without "
                  "changing the object's metadata, storage class, website redirect location or encryption "
                  "attributes.", NULL);
        goto out;
    }
    if (so->size > EMU_OBJECT_MAX) {
        ops_error(s, c, 400, "InvalidRequest", "The specified copy source is larger than the maximum "
                  "allowable size for a copy source: 5368709120", NULL);
        goto out;
    }
    if (ops_put_preconditions(s, c, b) || !ops_request_acl(s, c, acl) || ops_ssec_check(s, c, so->ssec_md5, true) ||
        ops_ssec_take(s, c, false, b, ssec))
        goto out;
    o = emu_store_obj_new();
    if (!o) {
        ops_error(s, c, 500, "InternalError", "Out of memory.", NULL);
        goto out;
    }
    str_copy(o->acl, sizeof(o->acl), acl);
    str_copy(o->ssec_md5, sizeof(o->ssec_md5), ssec);
    /* Tags: the source's (COPY, the default), or x-amz-tagging's (REPLACE). */
    if (tdir.p && sv_ieqs(tdir, "REPLACE")) {
        if (ops_tags_from_header(s, c, &o->tags)) {
            emu_store_obj_free(o);
            goto out;
        }
    } else if (emu_tags_copy(&o->tags, &so->tags)) {
        emu_store_obj_free(o);
        ops_error(s, c, 500, "InternalError", "Out of memory.", NULL);
        goto out;
    }
    ops_ssec_headers(c, ssec);
    o->blob = emu_blob_ref(so->blob); /* shared bytes: a copy costs no copy */
    o->size = so->size;
    /* A directory bucket's ETag is no MD5: a copy out of one gets the MD5 S3 gives it. */
    if (so->n_parts || sb->directory)
        ops_md5_etag(o->blob->data, (size_t)o->size, o->etag);
    else
        memcpy(o->etag, so->etag, sizeof(o->etag));
    free(o->hdrs);
    if (replace) {
        o->hdrs = ops_capture_headers(q, o->storage_class);
    } else {
        /* The source's metadata; class and encryption are the request's (S3:
         * STANDARD and the bucket's default when it gives none). */
        o->hdrs = ops_copy_headers(so->hdrs, q);
        if (scl.p)
            snprintf(o->storage_class, sizeof(o->storage_class), "%.*s", (int)scl.n, scl.p);
    }
    if (!o->hdrs) {
        emu_store_obj_free(o);
        ops_error(s, c, 500, "InternalError", "Out of memory.", NULL);
        goto out;
    }
    {
        const char *algo = cka.p ? ops_ck_algo_norm(cka) : (so->ck.algo[0] ? so->ck.algo : NULL);
        if (algo) {
            str_copy(o->ck.algo, sizeof(o->ck.algo), algo);
            ops_ck_b64(algo, o->blob->data, (size_t)o->size, o->ck.value);
            str_copy(o->ck.type, sizeof(o->ck.type), "FULL_OBJECT");
        }
    }
    ops_express_obj(s, b, o);
    if (emu_store_put(s, b, q->key, q->klen, o)) {
        ops_error(s, c, 500, "InternalError", "Out of memory.", NULL);
        goto out;
    }
    c->resp.delay_ns += ops_copy_delay_ns(s, o->size);
    if (strcmp(sb->region, b->region) != 0)
        c->resp.delay_ns += (int64_t)(s->model.xregion_ms * 1e6);
    if (b->versioning == VER_ENABLED)
        emu_resp_header(&c->resp, "x-amz-version-id", "%s", o->vid);
    ops_iso_time(o->mtime_ms, t);
    ops_xml_open(x, "CopyObjectResult");
    buf_addf(x, "<LastModified>%s</LastModified><ETag>", t);
    emu_xml_esc(x, o->etag, strlen(o->etag));
    buf_adds(x, "</ETag>");
    if (o->ck.algo[0]) {
        ops_ck_xml_name(o->ck.algo, xn);
        buf_addf(x, "<%s>%s</%s><ChecksumType>%s</ChecksumType>", xn, o->ck.value, xn, o->ck.type);
    }
    buf_adds(x, "</CopyObjectResult>");
    ops_ok_xml(c);
out:
    free(skey);
}

/* A hash of a rename's source and destination (0xff, no byte of UTF-8, between): what a client
 * token must name again. */
static uint64_t rename_hash(const char *src, size_t sn, const char *dst, size_t dn)
{
    return str_fnv1a(str_fnv1a(str_fnv1a(STR_FNV1A_BASIS, src, sn), "\xff", 1), dst, dn);
}

/*
 * RenameObject: PUT /KEY?renameObject with x-amz-rename-source: /BUCKET/SRCKEY (URL-encoded), on a
 * directory bucket only (others: 501). The source's conditions are x-amz-rename-source-if-match and
 * -if-none-match, the destination's If-Match and If-None-Match; x-amz-client-token makes a rename
 * sent again after it was done a success that does nothing. The object keeps everything: bytes,
 * ETag, checksum, metadata, LastModified.
 */
void ops_rename_object(struct emu_server *s, struct emu_conn *c, struct emu_bucket *b)
{
    struct emu_req *q = &c->req;
    struct sv src = emu_req_header(q, "x-amz-rename-source"), tok = emu_req_header(q, "x-amz-client-token");
    const char *sl;
    char *bucket = NULL, *key = NULL;
    size_t bl, kl = 0;
    struct emu_obj *so;
    uint64_t what;
    unsigned i;

    if (!b->directory) {
        ops_error(s, c, 501, "NotImplemented", "RenameObject is only supported for directory buckets.", NULL);
        return;
    }
    if (tok.n > 64) {
        ops_error(s, c, 400, "InvalidArgument", "The client token is longer than 64 characters.", NULL);
        return;
    }
    if (src.n && src.p[0] == '/')
        src.p++, src.n--;
    sl = src.p ? memchr(src.p, '/', src.n) : NULL;
    if (!sl || sl == src.p || (size_t)(sl - src.p) + 1 == src.n) {
        ops_error(s, c, 400, "InvalidArgument", "Invalid rename source", NULL);
        return;
    }
    bucket = ops_decode_path((struct sv){ src.p, (size_t)(sl - src.p) }, &bl);
    key = ops_decode_path((struct sv){ sl + 1, src.n - (size_t)(sl - src.p) - 1 }, &kl);
    if (!bucket || !key) {
        ops_error(s, c, 500, "InternalError", "Out of memory.", NULL);
        goto out;
    }
    if (strcmp(bucket, b->name) != 0) {
        ops_error(s, c, 400, "InvalidRequest", "The rename source must be in the bucket of the request.", NULL);
        goto out;
    }
    if ((kl && key[kl - 1] == '/') || (q->klen && q->key[q->klen - 1] == '/')) {
        ops_error(s, c, 400, "InvalidRequest", "RenameObject does not rename keys that end with '/'.", NULL);
        goto out;
    }
    what = rename_hash(key, kl, q->key, q->klen);
    for (i = 0; tok.n && i < b->n_renames && i < 32; i++) {
        if (b->renames[i].what == what && sv_eqs(tok, b->renames[i].token)) {
            ops_ok_empty(c, 200); /* done already: nothing more */
            goto out;
        }
    }
    so = emu_store_get(b, key, kl, NULL);
    if (!so || so->delete_marker) {
        ops_no_such_key(s, c);
        goto out;
    }
    if (preconditions(s, c, so, "x-amz-rename-source-if-match", "x-amz-rename-source-if-none-match",
                      "x-amz-rename-source-if-modified-since", "x-amz-rename-source-if-unmodified-since") ||
        ops_put_preconditions(s, c, b))
        goto out;
    if (kl != q->klen || memcmp(key, q->key, kl) != 0) {
        emu_sl_del(&b->keys, key, kl); /* directory buckets keep one version: 'so' is all of it */
        if (emu_store_put(s, b, q->key, q->klen, so)) {
            emu_sl_put(&b->keys, key, kl, so, NULL);
            ops_error(s, c, 500, "InternalError", "Out of memory.", NULL);
            goto out;
        }
    }
    if (tok.n) {
        i = b->n_renames++ % 32;
        snprintf(b->renames[i].token, sizeof(b->renames[i].token), "%.*s", (int)tok.n, tok.p);
        b->renames[i].what = what;
    }
    ops_ok_empty(c, 200);
out:
    free(bucket);
    free(key);
}
