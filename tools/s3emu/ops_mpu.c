/*
 * ops_mpu: multipart uploads: CreateMultipartUpload, UploadPart and
 * UploadPartCopy, Complete (part order, ETags, EntityTooSmall, composite
 * checksums), Abort, ListParts, ListMultipartUploads. An upload becomes an
 * object only in ops_complete_mpu(); no other object is touched here.
 */
#include "ops.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/ck.h"
#include "base/hash.h"

static struct emu_upload *find_upload(struct emu_server *s, struct emu_conn *c, struct emu_bucket *b)
{
    const char *id = emu_req_param(&c->req, "uploadId");
    struct emu_upload *u = id ? emu_store_upload(b, c->req.key, c->req.klen, id) : NULL;

    if (!u)
        ops_no_such_upload(s, c);
    return u;
}

/* The upload 'u' of bucket 'b' goes, with its parts. */
static void upload_drop(struct emu_bucket *b, struct emu_upload *u)
{
    struct buf uk = BUF_INIT(4096);

    buf_add(&uk, u->key, u->klen);
    buf_addc(&uk, 0);
    buf_adds(&uk, u->id);
    emu_sl_del(&b->uploads, uk.data, uk.len);
    emu_store_upload_free(u);
    buf_release(&uk);
}

void ops_create_mpu(struct emu_server *s, struct emu_conn *c, struct emu_bucket *b)
{
    struct emu_req *q = &c->req;
    struct sv cka = emu_req_header(q, "x-amz-checksum-algorithm");
    struct sv ckt = emu_req_header(q, "x-amz-checksum-type");
    struct emu_upload *u = calloc(1, sizeof(*u));
    struct buf k = BUF_INIT(4096);
    struct buf *x = &c->resp.body;

    if (!u)
        goto oom;
    if (!ops_request_acl(s, c, u->acl)) {
        emu_store_upload_free(u);
        return;
    }
    str_copy(u->storage_class, sizeof(u->storage_class), "STANDARD");
    emu_random_hex(s, u->id, 32);
    u->key = malloc(q->klen + 1);
    if (!u->key)
        goto oom;
    memcpy(u->key, q->key, q->klen + 1);
    u->klen = q->klen;
    u->init_ms = emu_wall_ms();
    u->hdrs = ops_capture_headers(q, u->storage_class);
    if (ops_ssec_take(s, c, false, b, u->ssec_md5) || ops_tags_from_header(s, c, &u->tags)) {
        emu_store_upload_free(u);
        return;
    }
    ops_ssec_headers(c, u->ssec_md5);
    if (cka.p) {
        const char *a = ops_ck_algo_norm(cka);
        if (!a) {
            emu_store_upload_free(u);
            ops_error(s, c, 400, "InvalidRequest", "Checksum algorithm provided is unsupported.", NULL);
            return;
        }
        str_copy(u->ck_algo, sizeof(u->ck_algo), a);
        str_copy(u->ck_type, sizeof(u->ck_type),
                 (ckt.p && sv_ieqs(ckt, "FULL_OBJECT")) || !strcmp(a, "CRC64NVME") ? "FULL_OBJECT" : "COMPOSITE");
    }
    if (!u->hdrs || buf_add(&k, q->key, q->klen) || buf_addc(&k, 0) || buf_adds(&k, u->id) ||
        emu_sl_put(&b->uploads, k.data, k.len, u, NULL))
        goto oom;
    buf_release(&k);
    if (u->ck_algo[0]) {
        emu_resp_header(&c->resp, "x-amz-checksum-algorithm", "%s", u->ck_algo);
        emu_resp_header(&c->resp, "x-amz-checksum-type", "%s", u->ck_type);
    }
    ops_xml_open(x, "InitiateMultipartUploadResult");
    emu_xml_elem(x, "Bucket", b->name);
    ops_xml_key(x, "Key", q->key, q->klen, false);
    emu_xml_elem(x, "UploadId", u->id);
    buf_adds(x, "</InitiateMultipartUploadResult>");
    ops_ok_xml(c);
    return;
oom:
    buf_release(&k);
    emu_store_upload_free(u);
    ops_error(s, c, 500, "InternalError", "Out of memory.", NULL);
}

static bool part_number(struct emu_server *s, struct emu_conn *c, int *out)
{
    uint64_t n;

    if (!sv_to_u64(sv_from(emu_req_param(&c->req, "partNumber")), &n) || n < 1 || n > 10000) {
        ops_error(s, c, 400, "InvalidArgument", "Part number must be an integer between 1 and 10000, inclusive", NULL);
        return false;
    }
    *out = (int)n;
    return true;
}

void ops_upload_part(struct emu_server *s, struct emu_conn *c, struct emu_bucket *b,
                     const struct body_check *bc, bool copy)
{
    struct emu_req *q = &c->req;
    struct emu_upload *u = find_upload(s, c, b);
    struct emu_part p;
    struct buf *x = &c->resp.body;
    char t[48];

    memset(&p, 0, sizeof(p));
    if (!u || !part_number(s, c, &p.num) || ops_ssec_check(s, c, u->ssec_md5, false))
        return;
    ops_ssec_headers(c, u->ssec_md5);
    if (!copy) {
        if (bc->rc)
            return;
        p.ck = bc->ck;
        p.blob = ops_take_body(q);
        memcpy(p.etag, bc->etag, sizeof(p.etag));
    } else {
        struct sv rng = emu_req_header(q, "x-amz-copy-source-range");
        struct emu_bucket *sb = NULL;
        char *skey = NULL;
        size_t sklen = 0;
        struct emu_obj *so = ops_copy_source(s, c, &sb, &skey, &sklen);
        uint64_t a = 0, z;

        free(skey);
        if (!so || ops_ssec_check(s, c, so->ssec_md5, true))
            return;
        z = so->size ? so->size - 1 : 0;
        if (rng.p) {
            const char *dash = memchr(rng.p, '-', rng.n);
            if (!sv_starts(rng, "bytes=") || !dash ||
                !sv_to_u64((struct sv){ rng.p + 6, (size_t)(dash - rng.p) - 6 }, &a) ||
                !sv_to_u64((struct sv){ dash + 1, rng.n - (size_t)(dash - rng.p) - 1 }, &z) || z < a) {
                ops_error(s, c, 400, "InvalidArgument", "The x-amz-copy-source-range value must be of the form "
                          "bytes=first-last where first and last are the zero-based offsets of the first and "
                          "last bytes to copy", NULL);
                return;
            }
            if (z >= so->size) {
                ops_error(s, c, 416, "InvalidRange", "The requested range is not satisfiable", NULL);
                return;
            }
        }
        /* The source's bytes, shared: S3 copies them on its own machines, not on the client's cores. */
        p.blob = so->size ? emu_blob_slice(so->blob, a, z - a + 1) : emu_blob_empty();
        c->resp.delay_ns += ops_copy_delay_ns(s, p.blob ? p.blob->len : 0);
        if (strcmp(sb->region, b->region) != 0)
            c->resp.delay_ns += (int64_t)(s->model.xregion_ms * 1e6); /* as CopyObject's */
    }
    if (!p.blob) {
        ops_error(s, c, 500, "InternalError", "Out of memory.", NULL);
        return;
    }
    if (copy)
        ops_md5_etag(p.blob->data, (size_t)p.blob->len, p.etag);
    p.mtime_ms = emu_wall_ms();
    if (!p.ck.algo[0] && u->ck_algo[0]) {
        str_copy(p.ck.algo, sizeof(p.ck.algo), u->ck_algo);
        ops_ck_b64(u->ck_algo, p.blob->data, (size_t)p.blob->len, p.ck.value);
    }
    switch (emu_store_upload_part(u, &p)) {
    case 0:
        break;
    case 1:
        EMU_STAT(s, stored_again, 1); /* the same part number again (a retry or a duplicate) */
        break;
    default:
        emu_blob_unref(p.blob);
        ops_error(s, c, 500, "InternalError", "Out of memory.", NULL);
        return;
    }
    if (copy) {
        ops_iso_time(p.mtime_ms, t);
        ops_xml_open(x, "CopyPartResult");
        buf_addf(x, "<LastModified>%s</LastModified><ETag>", t);
        emu_xml_esc(x, p.etag, strlen(p.etag));
        buf_adds(x, "</ETag></CopyPartResult>");
        ops_ok_xml(c);
        return;
    }
    emu_resp_header(&c->resp, "ETag", "%s", p.etag);
    if (p.ck.algo[0]) {
        char hn[40];
        ops_ck_header_name(p.ck.algo, hn);
        emu_resp_header(&c->resp, hn, "%s", p.ck.value);
    }
    ops_ok_empty(c, 200);
}

struct cpart {
    int num;
    char etag[48];
};

struct complete_ctx {
    struct cpart *parts;
    int n, cap;
    int cur_num;
    char cur_etag[48];
    bool bad;
};

/*
 * The object a multipart copy made of the whole of one source, part after
 * part (UploadPartCopy slices, in order, from its first byte to its last):
 * that source's bytes, shared (a reference), so Complete copies nothing.
 * NULL when the parts are anything else.
 */
static struct emu_blob *whole_source(struct emu_part **ps, int n, uint64_t total)
{
    struct emu_blob *src = NULL;
    uint64_t off = 0, at;
    int i;

    for (i = 0; i < n; i++) {
        struct emu_blob *p = emu_blob_parent(ps[i]->blob, &at);

        if (!p || (src && p != src) || at != off)
            return NULL;
        src = p;
        off += ps[i]->blob->len;
    }
    return src && off == total && src->len == total ? emu_blob_ref(src) : NULL;
}

/* A part's raw checksum in the upload's algorithm: the one it was stored with, else of its bytes. */
static size_t part_ck_raw(const struct emu_upload *u, const struct emu_part *p, const void *bytes, uint64_t len,
                          unsigned char out[CK_MAX_LEN])
{
    enum ck_algo a;

    if (!strcmp(p->ck.algo, u->ck_algo) && ck_parse(sv_from(u->ck_algo), &a) &&
        ck_from_b64(a, sv_from(p->ck.value), out))
        return ck_len(a);
    return ops_ck_raw(u->ck_algo, bytes, (size_t)len, out);
}

static void complete_cb(void *ctx, const char *name, const char *text, int depth)
{
    struct complete_ctx *cc = ctx;
    uint64_t v;

    if (!strcmp(name, "PartNumber") && depth == 3) {
        cc->cur_num = sv_to_u64(sv_from(text), &v) && v <= 10000 ? (int)v : -1;
    } else if (!strcmp(name, "ETag") && depth == 3) {
        str_copy(cc->cur_etag, sizeof(cc->cur_etag), text);
    } else if (!strcmp(name, "Part") && depth == 2) {
        if (cc->cur_num <= 0 || cc->n == 10000) {
            cc->bad = true;
            return;
        }
        if (cc->n == cc->cap) {
            int cap = cc->cap ? cc->cap * 2 : 64;
            struct cpart *np = realloc(cc->parts, (size_t)cap * sizeof(*np));
            if (!np) {
                cc->bad = true;
                return;
            }
            cc->parts = np;
            cc->cap = cap;
        }
        cc->parts[cc->n].num = cc->cur_num;
        memcpy(cc->parts[cc->n].etag, cc->cur_etag, sizeof(cc->cur_etag));
        cc->n++;
        cc->cur_num = 0;
        cc->cur_etag[0] = 0;
    }
}

static struct emu_part *upload_find_part(struct emu_upload *u, int num)
{
    int lo = 0, hi = u->n_parts;

    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (u->parts[mid].num < num)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < u->n_parts && u->parts[lo].num == num ? &u->parts[lo] : NULL;
}

static int hexbytes(const char *hex, unsigned char *out, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++) {
        unsigned int v;
        if (sscanf(hex + 2 * i, "%2x", &v) != 1)
            return -1;
        out[i] = (unsigned char)v;
    }
    return 0;
}

void ops_complete_mpu(struct emu_server *s, struct emu_conn *c, struct emu_bucket *b)
{
    struct emu_req *q = &c->req;
    struct emu_upload *u = find_upload(s, c, b);
    struct complete_ctx cc;
    struct emu_part **ps = NULL;
    struct emu_obj *o = NULL;
    struct buf *x = &c->resp.body;
    struct buf md5s = BUF_INIT((size_t)16 * 10000), cks = BUF_INIT((size_t)32 * 10000), uk = BUF_INIT(4096);
    uint64_t total = 0, off = 0, whole = 0;
    enum ck_algo ca = CK_CRC64NVME;
    bool crc_whole = u && ck_parse(sv_from(u->ck_algo), &ca) && ck_is_crc(ca) && strcmp(u->ck_type, "COMPOSITE") != 0;
    char host_etag[48];
    bool shared;
    int i;

    memset(&cc, 0, sizeof(cc));
    if (!u)
        goto out;
    if (q->fault == FAULT_409) {
        /* A conditional Complete that raced another write: S3 tells the client to create the upload
         * again and send every part, so this one is gone. */
        upload_drop(b, u);
        u = NULL;
        ops_error(s, c, 409, "ConditionalRequestConflict", "A conflicting operation occurred. If using "
                  "multipart upload you should initiate another CreateMultipartUpload request and re-upload "
                  "each part.", NULL);
        goto out;
    }
    if (!q->body || emu_xml_walk(q->body->data, (size_t)q->body->len, complete_cb, &cc) || cc.bad || !cc.n) {
        ops_error(s, c, 400, "MalformedXML",
                  "The XML you provided was not well-formed or did not validate against our published schema.", NULL);
        goto out;
    }
    ps = calloc((size_t)cc.n, sizeof(*ps));
    if (!ps)
        goto oom;
    for (i = 0; i < cc.n; i++) {
        struct emu_part *p;
        struct sv want = sv_from(cc.parts[i].etag);

        if (b->directory && cc.parts[i].num != i + 1) {
            ops_error(s, c, 400, "InvalidPartOrder", "The parts of a directory bucket's upload must be "
                      "numbered consecutively from 1.", NULL);
            goto out;
        }
        if (i && cc.parts[i].num <= cc.parts[i - 1].num) {
            ops_error(s, c, 400, "InvalidPartOrder", "The list of parts was not in ascending order. Parts "
                      "must be ordered by part number.", NULL);
            goto out;
        }
        p = upload_find_part(u, cc.parts[i].num);
        if (!p || !ops_etag_match(want, p->etag)) {
            struct buf xx = BUF_INIT(512);
            buf_addf(&xx, "<UploadId>%s</UploadId><PartNumber>%d</PartNumber>", u->id, cc.parts[i].num);
            ops_error(s, c, 400, "InvalidPart", "One or more of the specified parts could not be found.  The "
                      "part may not have been uploaded, or the specified entity tag may not match the part's "
                      "entity tag.", buf_cstr(&xx));
            buf_release(&xx);
            goto out;
        }
        ps[i] = p;
    }
    for (i = 0; i + 1 < cc.n; i++) {
        if (ps[i]->blob->len < s->model.min_part_bytes) {
            struct buf xx = BUF_INIT(512);
            buf_addf(&xx, "<ProposedSize>%llu</ProposedSize><MinSizeAllowed>%llu</MinSizeAllowed>"
                          "<PartNumber>%d</PartNumber><ETag>",
                     (unsigned long long)ps[i]->blob->len, (unsigned long long)s->model.min_part_bytes, ps[i]->num);
            emu_xml_esc(&xx, ps[i]->etag + 1, strlen(ps[i]->etag) - 2);
            buf_adds(&xx, "</ETag>");
            ops_error(s, c, 400, "EntityTooSmall", "Your proposed upload is smaller than the minimum allowed "
                      "object size.", buf_cstr(&xx));
            buf_release(&xx);
            goto out;
        }
    }
    if (ops_put_preconditions(s, c, b))
        goto out;
    for (i = 0; i < cc.n; i++)
        total += ps[i]->blob->len;
    if (total > (uint64_t)5 << 40) {
        ops_err_key(s, c, 400, "EntityTooLarge", "Your proposed upload exceeds the maximum allowed size");
        goto out;
    }
    o = emu_store_obj_new();
    if (!o || !(o->part_ends = calloc((size_t)cc.n, sizeof(uint64_t))))
        goto oom;
    o->blob = whole_source(ps, cc.n, total);
    shared = o->blob != NULL;
    if (!o->blob && !(o->blob = emu_blob_new_target(total)))
        goto oom;
    for (i = 0; i < cc.n; i++) {
        unsigned char d[MD5_LEN];
        uint64_t len = ps[i]->blob->len;

        if (!shared) {
            /* Whole pages move (the part keeps none of them), the rest is copied. */
            uint64_t moved = emu_blob_move_head(ps[i]->blob, o->blob->data + off, len);

            memcpy(o->blob->data + off + moved, ps[i]->blob->data, (size_t)(len - moved));
        }
        if (u->ck_algo[0]) {
            unsigned char raw[CK_MAX_LEN];
            size_t rl = part_ck_raw(u, ps[i], o->blob->data + off, len, raw);

            if (!crc_whole)
                buf_add(&cks, raw, rl);
            else
                whole = i ? ck_combine(ca, whole, ops_crc_value(raw, rl), len) : ops_crc_value(raw, rl);
        }
        off += len;
        o->part_ends[i] = off;
        if (hexbytes(ps[i]->etag + 1, d, MD5_LEN) == 0)
            buf_add(&md5s, d, MD5_LEN);
    }
    if (!shared) {
        o->blob->len = total;
        emu_store_spill(s, o->blob);
    }
    o->size = total;
    o->n_parts = (uint32_t)cc.n;
    {
        unsigned char d[MD5_LEN];
        char hex[33];

        hash_md5(md5s.data ? md5s.data : "", md5s.len, d);
        str_hex(d, MD5_LEN, hex);
        snprintf(o->etag, sizeof(o->etag), "\"%s-%d\"", hex, cc.n);
    }
    if (u->ck_algo[0]) {
        str_copy(o->ck.algo, sizeof(o->ck.algo), u->ck_algo);
        str_copy(o->ck.type, sizeof(o->ck.type), u->ck_type);
        if (!strcmp(u->ck_type, "COMPOSITE")) {
            char v[96];
            ops_ck_b64(u->ck_algo, cks.data ? cks.data : "", cks.len, v);
            snprintf(o->ck.value, sizeof(o->ck.value), "%.80s-%d", v, cc.n);
        } else if (!crc_whole) {
            ops_ck_b64(u->ck_algo, o->blob->data, (size_t)total, o->ck.value);
        } else {
            /* A full-object CRC, joined from the parts' as S3 does: no second pass over the bytes. */
            char v[CK_B64_MAX];

            ck_crc_b64(ca, whole, v);
            str_copy(o->ck.value, sizeof(o->ck.value), v);
        }
    }
    free(o->hdrs);
    o->hdrs = u->hdrs;
    u->hdrs = NULL;
    memcpy(o->storage_class, u->storage_class, sizeof(o->storage_class));
    memcpy(o->acl, u->acl, sizeof(o->acl));
    memcpy(o->ssec_md5, u->ssec_md5, sizeof(o->ssec_md5));
    o->tags = u->tags;
    memset(&u->tags, 0, sizeof(u->tags));
    ops_ssec_headers(c, o->ssec_md5);
    ops_express_obj(s, b, o);
    if (emu_store_put(s, b, q->key, q->klen, o)) {
        o = NULL;
        goto oom;
    }
    buf_add(&uk, u->key, u->klen);
    buf_addc(&uk, 0);
    buf_adds(&uk, u->id);
    emu_sl_del(&b->uploads, uk.data, uk.len);
    emu_store_upload_free(u);
    if (b->versioning == VER_ENABLED)
        emu_resp_header(&c->resp, "x-amz-version-id", "%s", o->vid);
    {
        struct sv h = emu_req_header(q, "host");
        snprintf(host_etag, sizeof(host_etag), "%s", "");
        ops_xml_open(x, "CompleteMultipartUploadResult");
        buf_addf(x, "<Location>http://%.*s/", (int)h.n, h.p ? h.p : "");
        emu_xml_esc(x, b->name, strlen(b->name));
        buf_addc(x, '/');
        emu_xml_esc(x, q->key, q->klen);
        buf_adds(x, "</Location>");
        emu_xml_elem(x, "Bucket", b->name);
        ops_xml_key(x, "Key", q->key, q->klen, false);
        buf_adds(x, "<ETag>");
        emu_xml_esc(x, o->etag, strlen(o->etag));
        buf_adds(x, "</ETag>");
        if (o->ck.algo[0]) {
            char xn[32];
            ops_ck_xml_name(o->ck.algo, xn);
            buf_addf(x, "<%s>%s</%s><ChecksumType>%s</ChecksumType>", xn, o->ck.value, xn, o->ck.type);
        }
        buf_adds(x, "</CompleteMultipartUploadResult>");
    }
    ops_ok_xml(c);
    goto out;
oom:
    emu_store_obj_free(o);
    ops_error(s, c, 500, "InternalError", "Out of memory.", NULL);
out:
    free(cc.parts);
    free(ps);
    buf_release(&md5s);
    buf_release(&cks);
    buf_release(&uk);
}

void ops_abort_mpu(struct emu_server *s, struct emu_conn *c, struct emu_bucket *b)
{
    struct emu_upload *u = find_upload(s, c, b);

    if (!u)
        return;
    upload_drop(b, u);
    ops_ok_empty(c, 204);
}

void ops_list_parts(struct emu_server *s, struct emu_conn *c, struct emu_bucket *b)
{
    struct emu_req *q = &c->req;
    struct emu_upload *u = find_upload(s, c, b);
    const char *pm = emu_req_param(q, "part-number-marker");
    struct buf *x = &c->resp.body;
    uint64_t marker = 0;
    int max, i, count = 0, last = 0;
    bool truncated = false;

    if (!u || !ops_get_max(s, c, "max-parts", &max))
        return;
    if (pm)
        sv_to_u64(sv_from(pm), &marker);
    ops_xml_open(x, "ListPartsResult");
    emu_xml_elem(x, "Bucket", b->name);
    ops_xml_key(x, "Key", q->key, q->klen, false);
    emu_xml_elem(x, "UploadId", u->id);
    ops_owner_xml(x, "Initiator");
    ops_owner_xml(x, "Owner");
    emu_xml_elem(x, "StorageClass", u->storage_class);
    buf_addf(x, "<PartNumberMarker>%llu</PartNumberMarker>", (unsigned long long)marker);
    {
        struct buf parts = BUF_INIT((size_t)8 << 20);

        for (i = 0; i < u->n_parts; i++) {
            struct emu_part *p = &u->parts[i];
            char t[48];

            if ((uint64_t)p->num <= marker)
                continue;
            if (count == max) {
                truncated = true;
                break;
            }
            ops_iso_time(p->mtime_ms, t);
            buf_addf(&parts, "<Part><PartNumber>%d</PartNumber><LastModified>%s</LastModified><ETag>", p->num, t);
            emu_xml_esc(&parts, p->etag, strlen(p->etag));
            buf_addf(&parts, "</ETag><Size>%llu</Size>", (unsigned long long)p->blob->len);
            if (p->ck.algo[0]) {
                char xn[32];
                ops_ck_xml_name(p->ck.algo, xn);
                buf_addf(&parts, "<%s>%s</%s>", xn, p->ck.value, xn);
            }
            buf_adds(&parts, "</Part>");
            count++;
            last = p->num;
        }
        buf_addf(x, "<NextPartNumberMarker>%d</NextPartNumberMarker><MaxParts>%d</MaxParts>"
                    "<IsTruncated>%s</IsTruncated>", last, max, truncated ? "true" : "false");
        if (u->ck_algo[0])
            buf_addf(x, "<ChecksumAlgorithm>%s</ChecksumAlgorithm><ChecksumType>%s</ChecksumType>",
                     u->ck_algo, u->ck_type);
        buf_addsv(x, buf_sv(&parts));
        buf_release(&parts);
    }
    buf_adds(x, "</ListPartsResult>");
    ops_ok_xml(c);
}

void ops_list_mpus(struct emu_server *s, struct emu_conn *c, struct emu_bucket *b)
{
    struct emu_req *q = &c->req;
    const char *prefix = emu_req_param(q, "prefix");
    const char *km = emu_req_param(q, "key-marker");
    const char *um = emu_req_param(q, "upload-id-marker");
    struct buf *x = &c->resp.body, items = BUF_INIT((size_t)16 << 20), seek = BUF_INIT(4096);
    size_t plen = prefix ? strlen(prefix) : 0;
    struct emu_sl_node *n;
    const struct emu_upload *last = NULL;
    int max, count = 0;
    bool truncated = false;

    if (!ops_get_max(s, c, "max-uploads", &max))
        goto out;
    if (km && *km) {
        buf_adds(&seek, km);
        if (um && *um) {
            buf_addc(&seek, 0);
            buf_adds(&seek, um);
        } else {
            buf_addc(&seek, 0);
            buf_addc(&seek, (char)0x7f); /* past every upload of key-marker */
        }
        n = emu_sl_seek(&b->uploads, seek.data, seek.len, 1);
    } else {
        n = emu_sl_seek(&b->uploads, prefix ? prefix : "", plen, 0);
    }
    for (; n; n = emu_sl_next(n)) {
        const struct emu_upload *u = n->val;
        char t[48];

        if (plen && (u->klen < plen || memcmp(u->key, prefix, plen) != 0)) {
            if (u->klen >= plen && memcmp(u->key, prefix, plen) > 0)
                break;
            continue;
        }
        if (count == max) {
            truncated = true;
            break;
        }
        ops_iso_time(u->init_ms, t);
        buf_adds(&items, "<Upload>");
        ops_xml_key(&items, "Key", u->key, u->klen, false);
        emu_xml_elem(&items, "UploadId", u->id);
        ops_owner_xml(&items, "Initiator");
        ops_owner_xml(&items, "Owner");
        emu_xml_elem(&items, "StorageClass", u->storage_class);
        emu_xml_elem(&items, "Initiated", t);
        buf_adds(&items, "</Upload>");
        count++;
        last = u;
    }
    ops_xml_open(x, "ListMultipartUploadsResult");
    emu_xml_elem(x, "Bucket", b->name);
    ops_xml_key(x, "KeyMarker", km ? km : "", km ? strlen(km) : 0, false);
    emu_xml_elem(x, "UploadIdMarker", um ? um : "");
    if (truncated && last) {
        ops_xml_key(x, "NextKeyMarker", last->key, last->klen, false);
        emu_xml_elem(x, "NextUploadIdMarker", last->id);
    }
    ops_xml_key(x, "Prefix", prefix ? prefix : "", plen, false);
    buf_addf(x, "<MaxUploads>%d</MaxUploads><IsTruncated>%s</IsTruncated>", max, truncated ? "true" : "false");
    buf_addsv(x, buf_sv(&items));
    buf_adds(x, "</ListMultipartUploadsResult>");
    ops_ok_xml(c);
out:
    buf_release(&items);
    buf_release(&seek);
}
