/*
 * Which check proves the bytes, and the checks: stored full-object CRCs,
 * ETags as MD5s (single, "-1", md5-of-md5s), Content-MD5 of memory bodies,
 * a stream's and a ranged download's whole, a relay's source. Returns
 * verdicts; never retries, fails or finishes an object itself (its caller
 * decides). Calls req.c, part.c.
 */
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/crc.h"
#include "base/hash.h"
#include "base/str.h"
#include "s3/endpoint.h"
#include "s3/chunked.h"
#include "xfer/engine.h"

/* ---- stored checksums -------------------------------------------------------- */

/*
 * The stored checksum a reply with x-amz-checksum-mode: ENABLED names, if
 * any, of any algorithm: of the whole (FULL_OBJECT), of a part (a GET of
 * ?partNumber= of a COMPOSITE object), or composite ("<base64>-N": the
 * digest of the parts' digests). CRCs first: the cheapest to check.
 */
bool stored_ck(const struct http_resp *resp, struct ck_stored *out)
{
    static const enum ck_algo order[CK_ALGOS] = { CK_CRC64NVME, CK_CRC32C, CK_CRC32, CK_SHA256, CK_SHA1 };
    struct sv v, b64, type;
    const char *dash;
    uint64_t n;
    int i;

    for (i = 0; i < CK_ALGOS; i++) {
        if (!http_resp_header(resp, ck_header(order[i]), &v) || v.n >= sizeof(out->value))
            continue;
        memset(out, 0, sizeof(*out));
        out->algo = order[i];
        memcpy(out->value, v.p, v.n);
        b64 = v;
        if ((dash = memchr(v.p, '-', v.n))) {
            b64.n = (size_t)(dash - v.p);
            if (!sv_to_u64((struct sv){ dash + 1, v.n - b64.n - 1 }, &n) || n < 1 || n > S3_MAX_PARTS)
                continue;
            out->composite = true;
            out->parts = (uint32_t)n;
        } else if (http_resp_header(resp, "x-amz-checksum-type", &type) && sv_ieqs(type, "COMPOSITE") &&
                   !http_resp_header(resp, "x-amz-mp-parts-count", &type)) {
            /* A composite value without its "-N" (moto writes it so): N is the upload's part
             * count, which its multipart ETag states; without one it cannot be checked. (Not a
             * part's answer, ?partNumber=: its value is that part's own, with the whole's type.) */
            char etag[80], hex[33];
            uint32_t parts = 0;

            if (http_resp_header(resp, "etag", &type) && type.n < sizeof(etag)) {
                memcpy(etag, type.p, type.n);
                etag[type.n] = '\0';
                parts = xfer_etag_parts(etag, hex);
            }
            if (parts < 1)
                continue;
            out->composite = true;
            out->parts = parts;
        }
        if (!ck_from_b64(order[i], b64, out->raw))
            continue;
        if (ck_is_crc(order[i]))
            for (n = 0, out->crc = 0; n < ck_len(order[i]); n++)
                out->crc = out->crc << 8 | out->raw[n];
        return true;
    }
    return false;
}

/*
 * The full-object CRC a reply with x-amz-checksum-mode: ENABLED carries, if
 * any: CRC64NVME, CRC32C or CRC32 of type FULL_OBJECT (COMPOSITE values are
 * checksums of part checksums: not usable over our own ranges).
 */
bool stored_checksum(const struct http_resp *resp, enum ck_algo *algo, uint64_t *value)
{
    struct ck_stored st;
    struct sv type;

    if (http_resp_header(resp, "x-amz-checksum-type", &type) && !sv_ieqs(type, "FULL_OBJECT"))
        return false;
    if (!stored_ck(resp, &st) || st.composite || !ck_is_crc(st.algo))
        return false;
    *algo = st.algo;
    *value = st.crc;
    return true;
}

/* ---- S3 Express directory buckets -------------------------------------------------- */

/* A directory bucket's ETags are never MD5s (S3 API reference: "MD5 is not
 * supported by directory buckets"); nor are those SSE-KMS or SSE-C hide. */
bool xfer_etag_not_md5(const char *bucket, const struct http_resp *resp)
{
    return s3_bucket_is_express(bucket) || (resp && sse_hides_md5(resp));
}

/* ---- ETags and what was sent ---------------------------------------------------- */

/* ETags that are a plain MD5 ("hex32") can be checked against what we sent. */
bool etag_is_md5(struct sv etag, char hex_out[33])
{
    size_t i;

    if (etag.n >= 2 && etag.p[0] == '"' && etag.p[etag.n - 1] == '"') {
        etag.p++;
        etag.n -= 2;
    }
    if (etag.n != 32)
        return false;
    for (i = 0; i < 32; i++) {
        char c = etag.p[i];
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
            return false;
        hex_out[i] = c;
    }
    hex_out[32] = '\0';
    return true;
}

/* A "hex-1" ETag: its hex in 'hex_out', and 'md5' (of the bytes) becomes the MD5 of itself. */
bool etag_one_part(struct sv etag, char hex_out[33], unsigned char md5[MD5_LEN])
{
    char e[48];

    if (etag.n >= sizeof(e))
        return false;
    memcpy(e, etag.p, etag.n);
    e[etag.n] = '\0';
    if (xfer_etag_parts(e, hex_out) != 1)
        return false;
    hash_md5(md5, MD5_LEN, md5);
    return true;
}

bool sse_hides_md5(const struct http_resp *resp)
{
    struct sv v;

    return (http_resp_header(resp, "x-amz-server-side-encryption", &v) && !sv_eqs(v, "AES256")) ||
           http_resp_header(resp, "x-amz-server-side-encryption-customer-algorithm", &v);
}

/*
 * Whether the store proved the bytes of 'r' by the flexible checksum sent
 * with them (a header, or the aws-chunked trailer): a store that keeps
 * flexible checksums verifies them (400 BadDigest otherwise) and echoes the
 * value in its answer, which must be ours.
 */
static bool ck_echoed(const struct req *r)
{
    enum ck_algo a = obj_ck(r->os->o);
    char ours[CK_B64_MAX];
    uint64_t crc;
    struct sv v;

    if (r->sent_mem && r->hdr_ck[0] && (r->kind == RK_PUT || obj_mpu_crc(r->os)))
        str_copy(ours, sizeof(ours), r->hdr_ck);
    else if (!r->sent_mem && r->flex && r->call.chunked_on && ck_is_crc(a) && s3_chunked_crc(&r->call.chunked, &crc))
        ck_crc_b64(a, crc, ours);
    else if (!r->sent_mem && r->flex && r->call.chunked_on && !ck_is_crc(a) && r->hash.ready)
        ck_b64(a, r->hash.job.also_digest, ours); /* the trailer's, a hash worker's */
    else
        return false;
    return http_resp_header(&r->http.resp, ck_header(a), &v) && sv_eqs(v, ours);
}

/*
 * Check a PutObject or UploadPart answer against what was sent: by the
 * flexible checksum the store echoes (ck_echoed), else by the ETag, the MD5 of the
 * bytes (Content-MD5's for memory bodies, a hash worker's for files). 'md5'
 * gets the bytes' MD5 when it is known (*md5_known). SENT_WAIT: the MD5 is
 * still with the workers; the request is parked and its answer taken up again.
 */
enum sent_verdict verify_sent(struct engine *g, struct req *r, unsigned char md5[MD5_LEN], bool *md5_known,
                              struct s3c_error *e)
{
    struct sv etag;
    char want[33], got[33];

    *md5_known = false;
    if (r->sent_mem && r->hdr_md5[0]) {
        memcpy(md5, r->mem_md5, MD5_LEN); /* hashed once, for Content-MD5 */
        *md5_known = true;
    } else if (!r->sent_mem && r->hash.ready && !r->hash.job.no_md5) {
        memcpy(md5, r->hash.job.digest, MD5_LEN);
        *md5_known = true;
    }
    if (!g->opts.verify || ck_echoed(r))
        return SENT_OK;
    if (xfer_etag_not_md5(r->os->o->dst_bucket, NULL))
        return SENT_OK; /* a directory bucket: no MD5 ETag; it checked the CRC64NVME sent with the body */
    if (!*md5_known && r->sent_mem) {
        hash_md5(r->mem.data ? r->mem.data : "", r->mem.len, md5);
        *md5_known = true;
    } else if (!*md5_known) {
        /* The CRC was not echoed after all (or none went): the ETag it is. */
        if (!r->hash.busy && !req_hash_file(g, r, r->os->fd, r->off, r->len)) {
            s3c_fail(e, S3C_ENOMEM, "cannot start a thread to hash %s", r->os->o->src);
            return SENT_BAD;
        }
        req_park(g, r);
        return SENT_WAIT;
    }
    if (!http_resp_header(&r->http.resp, "etag", &etag) || !etag_is_md5(etag, got) ||
        xfer_etag_not_md5(r->os->o->dst_bucket, &r->http.resp))
        return SENT_OK; /* the store's ETag is not an MD5: nothing to compare */
    str_hex(md5, MD5_LEN, want);
    if (strcmp(want, got) != 0) {
        s3c_fail(e, S3C_EHTTP, "the store's ETag %s does not match the MD5 %s of the bytes sent", got, want);
        return SENT_BAD;
    }
    return SENT_OK;
}

bool sent_answer_ok(struct engine *g, struct req *r, unsigned char md5[MD5_LEN], bool *md5_known)
{
    struct s3c_error e = S3C_ERROR_INIT;

    if (r->local_failed) {
        req_fail(g, r, &r->local_err, false, 0);
        return false;
    }
    return sent_verdict_ok(g, r, verify_sent(g, r, md5, md5_known, &e), &e); /* SENT_WAIT: back here once the MD5 is */
}

bool sent_verdict_ok(struct engine *g, struct req *r, enum sent_verdict v, const struct s3c_error *e)
{
    if (v == SENT_BAD)
        req_fail(g, r, e, true, 0);
    return v == SENT_OK;
}

/*
 * A 200 is no proof: a store (or a proxy) may answer it and keep nothing. The
 * proof is the checksum sent, echoed, or an ETag equal to the MD5 of the bytes;
 * an ETag that cannot be an MD5 (SSE-KMS, SSE-C, directory buckets) proves
 * nothing by itself.
 */
bool put_proven(const struct req *r, const unsigned char md5[MD5_LEN], bool known, const char **why)
{
    char want[33], got[33];
    struct sv etag;

    if (ck_echoed(r))
        return true;
    if (!http_resp_header(&r->http.resp, "etag", &etag) || !etag.n) {
        *why = "the store answered PutObject with no ETag and no checksum";
        return false;
    }
    if (xfer_etag_not_md5(r->os->o->dst_bucket, &r->http.resp) || !etag_is_md5(etag, got)) {
        *why = "the store's ETag is not an MD5 (encryption, or a directory bucket) and it echoed no checksum";
        return false;
    }
    if (!known) {
        *why = "the MD5 of the bytes sent is not known";
        return false;
    }
    str_hex(md5, MD5_LEN, want);
    if (strcmp(want, got) != 0) {
        *why = "the store's ETag is not the MD5 of the bytes sent";
        return false;
    }
    return true;
}

static int nibble(char c)
{
    return c <= '9' ? c - '0' : c - 'a' + 10; /* etag_is_md5 let only 0-9a-f through */
}

/* The ETag a completed multipart object has, md5(part MD5s)-N, from the part
 * ETags the store returned; false when one is not a plain MD5 (SSE-KMS...). */
bool multipart_etag(const struct xfer_obj_state *os, char want[80])
{
    const struct mpu_state *m = mpu_of(os);
    struct hash_ctx *h = hash_md5_new();
    unsigned char d[MD5_LEN];
    char hex[33];
    uint32_t i, j;

    if (!h)
        return false;
    for (i = 0; i < os->n_parts && !s3_bucket_is_express(os->o->dst_bucket); i++) {
        if (!etag_is_md5(sv_from(m->etags[i]), hex))
            break;
        for (j = 0; j < MD5_LEN; j++)
            d[j] = (unsigned char)(nibble(hex[2 * j]) << 4 | nibble(hex[2 * j + 1]));
        hash_update(h, d, MD5_LEN);
    }
    hash_final(h, d);
    hash_free(h);
    if (i < os->n_parts || s3_bucket_is_express(os->o->dst_bucket))
        return false;
    str_hex(d, MD5_LEN, hex);
    snprintf(want, 80, "%s-%" PRIu32, hex, os->n_parts);
    return true;
}

/*
 * Digests of a body held in memory, computed once. For whole objects (and
 * parts of uploads that declared it) the flexible checksum that S3 verifies
 * and stores (obj_ck: a CRC here, mem_crc; a SHA a hash
 * worker's, mem_digests_later); and Content-MD5, which every store
 * verifies, unless the store is known to verify that checksum (an earlier
 * answer echoed one): then it alone proves the bytes (verify_sent) and no
 * MD5 is computed (mem_needs_md5).
 */
void mem_crc(struct engine *g, struct req *r, bool whole_object)
{
    enum ck_algo a;

    r->hdr_md5[0] = r->hdr_ck[0] = '\0';
    if (!mem_wants_crc(g, r, whole_object, &a))
        return;
    r->mem_crc = ck_update(a, 0, r->mem.data ? r->mem.data : "", r->mem.len);
    ck_crc_b64(a, r->mem_crc, r->hdr_ck);
}

bool mem_wants_crc(const struct engine *g, const struct req *r, bool whole_object, enum ck_algo *a)
{
    *a = obj_ck(r->os->o);
    return whole_object && g->opts.flexible_checksums && ck_is_crc(*a);
}

bool mem_needs_md5(const struct engine *g, bool whole_object)
{
    return !(whole_object && g->opts.flexible_checksums && g->flex_known && !g->no_trailers);
}

/* Whether a memory body's flexible checksum is a SHA (a hash worker's, mem_digests_later). */
static bool mem_wants_sha(const struct engine *g, const struct req *r, bool whole_object)
{
    return whole_object && g->opts.flexible_checksums && !ck_is_crc(obj_ck(r->os->o));
}

/* A SHA flexible checksum of a memory body, from its raw digest. */
static void mem_sum_set(struct req *r, const unsigned char *raw)
{
    memcpy(r->mem_sum, raw, ck_len(obj_ck(r->os->o)));
    ck_b64(obj_ck(r->os->o), raw, r->hdr_ck);
}

/* Content-MD5 from the body's MD5 (computed here, or by a hash worker). */
void mem_md5_set(struct req *r, const unsigned char md5[MD5_LEN])
{
    struct buf b64 = BUF_INIT(64);

    memcpy(r->mem_md5, md5, MD5_LEN);
    base64_encode(md5, MD5_LEN, &b64);
    str_copy(r->hdr_md5, sizeof(r->hdr_md5), buf_cstr(&b64));
    buf_release(&b64);
}

void mem_digests(struct engine *g, struct req *r, bool whole_object)
{
    unsigned char md5[MD5_LEN], raw[CK_MAX_LEN];

    mem_crc(g, r, whole_object);
    if (mem_wants_sha(g, r, whole_object)) {
        /* Only when no hash worker could start (mem_digests_later). */
        ck_digest(obj_ck(r->os->o), r->mem.data ? r->mem.data : "", r->mem.len, raw);
        mem_sum_set(r, raw);
    }
    if (!mem_needs_md5(g, whole_object))
        return;
    hash_md5(r->mem.data ? r->mem.data : "", r->mem.len, md5);
    mem_md5_set(r, md5);
}

/* A memory body's digests are back from the hash workers: send it (or let it
 * go: its object failed or the run stops). */
bool mem_hash_ended(struct engine *g, struct req *r)
{
    struct xfer_obj_state *os = r->os;
    struct s3c_error e = S3C_ERROR_INIT;

    if (os->failed) {
        req_put_back(g, r);
        maybe_finish(g, os);
        return true;
    }
    if (stopping(g) || r->hash.job.err.code) {
        if (r->hash.job.err.code)
            e = r->hash.job.err;
        else
            s3c_fail(&e, S3C_ECANCEL, "%s", cancel_requested ? "interrupted" : "stopped");
        req_fail(g, r, &e, false, 0);
        return true;
    }
    return false;
}

static void mem_hashed(struct engine *g, struct eng_hash *h)
{
    struct req *r = (struct req *)((char *)h - offsetof(struct req, hash));

    if (mem_hash_ended(g, r))
        return;
    if (!h->job.no_md5)
        mem_md5_set(r, h->job.digest);
    if (h->job.also)
        mem_sum_set(r, h->job.also_digest);
    if (h->job.crc) {
        r->mem_crc = h->job.crc_val;
        ck_crc_b64(h->job.crc_algo, r->mem_crc, r->hdr_ck);
    }
    submit_or_fail(g, r);
}

/* Hand what a memory body still lacks to a hash worker: its MD5, its SHA, its CRC (each of
 * obj_ck's algorithm); true when it is out (mem_hashed sends the body once it is back). */
static bool mem_job(struct engine *g, struct req *r, bool md5, bool sha, bool crc)
{
    struct hash_job *j = &r->hash.job;

    if (sha && !req_sha(r, obj_ck(r->os->o)))
        return false;
    md5_init(&j->md5);
    j->final = true;
    j->also = sha ? r->sha : NULL;
    j->also_open = false;
    j->no_md5 = !md5;
    j->crc = crc;
    j->crc_algo = obj_ck(r->os->o);
    j->crc_val = 0;
    r->hash.done = mem_hashed;
    return hash_start(g, &r->hash, -1, r->mem.data ? r->mem.data : "", 0, r->mem.len);
}

bool mem_digests_later(struct engine *g, struct req *r, bool whole_object, bool small)
{
    bool md5 = mem_needs_md5(g, whole_object), sha = mem_wants_sha(g, r, whole_object), crc = false;
    unsigned char d[MD5_LEN];
    enum ck_algo a;

    if (small) {
        mem_crc(g, r, whole_object); /* small: on the loop, as always */
        if (md5) {
            hash_md5(r->mem.data ? r->mem.data : "", r->mem.len, d);
            mem_md5_set(r, d);
        }
        md5 = false;
    } else {
        r->hdr_md5[0] = r->hdr_ck[0] = '\0';
        crc = mem_wants_crc(g, r, whole_object, &a);
    }
    if (!md5 && !sha && !crc)
        return false;
    if (mem_job(g, r, md5, sha, crc))
        return true;
    mem_digests(g, r, whole_object); /* no worker (or no memory for one): here */
    return false;
}

bool mem_digests_known(struct engine *g, struct req *r, const unsigned char md5[MD5_LEN], const struct hash_job *had)
{
    bool sha = mem_wants_sha(g, r, true), crc;
    enum ck_algo a;

    r->hdr_md5[0] = r->hdr_ck[0] = '\0';
    if (mem_needs_md5(g, true))
        mem_md5_set(r, md5);
    crc = mem_wants_crc(g, r, true, &a);
    if (crc && had->crc && had->crc_algo == a) {
        r->mem_crc = had->crc_val;
        ck_crc_b64(a, r->mem_crc, r->hdr_ck);
        crc = false;
    }
    if (!sha && !crc)
        return false;
    if (mem_job(g, r, false, sha, crc))
        return true;
    mem_digests(g, r, true); /* no worker (or no memory for one): here */
    return false;
}

/* ---- downloads: setting the checks up, a part's ---------------------------------- */

/* An ETag that is the MD5 of the bytes ("hex") or of their MD5 ("hex-1"). */
bool etag_whole_md5(struct sv etag)
{
    char hex[33], e[48];

    if (etag_is_md5(etag, hex))
        return true;
    if (etag.n >= sizeof(e))
        return false;
    memcpy(e, etag.p, etag.n);
    e[etag.n] = '\0';
    return xfer_etag_parts(e, hex) == 1;
}

/* DL_COMPOSITE: room for each part's digest (a CRC's value, or a SHA); false on no memory. */
void dl_check_release(struct dl_check_state *c)
{
    hash_free(c->seq_sha);
    free(c->part_crcs);
    free(c->part_sums);
    free(c->md5s);
}

bool composite_alloc(struct xfer_obj_state *os)
{
    struct dl_check_state *c = dlc_of(os);

    if (c->check != DL_COMPOSITE)
        return true;
    if (ck_is_crc(c->stored.algo))
        return c->part_crcs || (c->part_crcs = calloc(os->n_parts, sizeof(*c->part_crcs)));
    return c->part_sums || (c->part_sums = calloc(os->n_parts, sizeof(*c->part_sums)));
}

/* A stored full-object SHA (c->stored) checks the whole in order, by a hash
 * worker (DL_SEQ, or a stream, with seq_sha): false when it is no such SHA. */
bool seq_sha_start(struct xfer_obj_state *os)
{
    struct dl_check_state *c = dlc_of(os);

    if (c->stored.composite || ck_is_crc(c->stored.algo))
        return false;
    if (!c->seq_sha)
        c->seq_sha = c->stored.algo == CK_SHA1 ? hash_sha1_new() : hash_sha256_new();
    return c->seq_sha != NULL;
}

/*
 * DL_COMPOSITE on stdout: a part's digest (write_dst's CRC, or a hash
 * worker's SHA) is kept for the composite, and checked against the part's
 * own checksum, which its partNumber GET's reply names. False (in 'e') when
 * it does not match: the part is fetched again, none of it written.
 */
bool composite_part_ok(struct req *r, struct s3c_error *e)
{
    struct xfer_obj_state *os = r->os;
    struct dl_check_state *c = dlc_of(os);
    enum ck_algo a = c->stored.algo;
    unsigned char raw[CK_MAX_LEN];
    char got[CK_B64_MAX];

    if (ck_is_crc(a)) {
        ck_crc_raw(a, r->crc, raw);
        c->part_crcs[r->part - 1] = r->crc;
    } else {
        memcpy(raw, r->hash.job.also_digest, CK_MAX_LEN);
        memcpy(c->part_sums[r->part - 1], raw, CK_MAX_LEN);
    }
    if (!stored_ck(&r->http.resp, &r->stored) || r->stored.composite || r->stored.algo != a)
        return true; /* the store named no checksum of the part: the composite, at the end, checks it */
    if (!memcmp(raw, r->stored.raw, ck_len(a)))
        return true;
    ck_b64(a, raw, got);
    s3c_fail(e, S3C_EHTTP, "part %" PRIu32 " has %s %s, the store's checksum of it is %s", r->part, ck_name(a), got,
             r->stored.value);
    return false;
}

/* ---- downloads: the whole ------------------------------------------------------- */

/* A whole object's CRC ('got') against the store's ('want'); 'say' puts a match in --debug. */
bool whole_crc_verify(struct engine *g, const struct xfer_obj_state *os, enum ck_algo a, uint64_t got,
                      uint64_t want, bool say, struct s3c_error *e)
{
    char g64[CK_B64_MAX], w64[CK_B64_MAX];

    ck_crc_b64(a, got, g64);
    ck_crc_b64(a, want, w64);
    if (got != want) {
        s3c_fail(e, S3C_EHTTP, "downloaded bytes have %s %s, the store's checksum is %s", ck_name(a), g64, w64);
        return false;
    }
    if (say)
        xdebug(g, os->o, "verified: %s %s of the whole matches the stored checksum (no MD5)", ck_name(a), g64);
    return true;
}

/* A SHA of the whole ('got', a hash worker's) against the store's full-object one. */
bool whole_sum_verify(struct engine *g, const struct xfer_obj_state *os, const struct ck_stored *want,
                      const unsigned char *got, struct s3c_error *e)
{
    char g64[CK_B64_MAX];

    ck_b64(want->algo, got, g64);
    if (memcmp(got, want->raw, ck_len(want->algo))) {
        s3c_fail(e, S3C_EHTTP, "downloaded bytes have %s %s, the store's checksum is %s", ck_name(want->algo), g64,
                 want->value);
        return false;
    }
    xdebug(g, os->o, "verified: %s %s of the whole (a hash worker's) matches the stored checksum (no MD5)",
           ck_name(want->algo), g64);
    return true;
}

bool parts_composite(enum ck_algo a, const uint64_t *crcs, const unsigned char (*sums)[CK_MAX_LEN], uint32_t n,
                     char out[CK_B64_MAX + 8])
{
    unsigned char *raws = malloc((size_t)n * ck_len(a) + 1);
    uint32_t i;

    if (!raws)
        return false;
    for (i = 0; i < n; i++) {
        unsigned char raw[CK_MAX_LEN];
        if (ck_is_crc(a))
            ck_crc_raw(a, crcs[i], raw);
        else
            memcpy(raw, sums[i], CK_MAX_LEN);
        memcpy(raws + (size_t)i * ck_len(a), raw, ck_len(a));
    }
    ck_composite(a, raws, n, out);
    free(raws);
    return true;
}

/*
 * The digest of the parts' digests of a DL_COMPOSITE download (part_crcs or
 * part_sums, as they came) against the store's composite checksum.
 */
/* A composite value the store wrote without its "-N" (x-amz-checksum-type: COMPOSITE, N from
 * the ETag: stored_ck) is the same digest of as many parts as 'got' ("<base64>-<n>"). */
static bool composite_same_unsuffixed(const char *got, const struct ck_stored *st, uint32_t n)
{
    size_t vl = strlen(st->value);

    return !strchr(st->value, '-') && n == st->parts && !strncmp(got, st->value, vl) && got[vl] == '-';
}

bool composite_verify(struct engine *g, struct xfer_obj_state *os, struct s3c_error *e)
{
    struct dl_check_state *c = dlc_of(os);
    enum ck_algo a = c->stored.algo;
    char got[CK_B64_MAX + 8];

    if (!parts_composite(a, c->part_crcs, (const unsigned char(*)[CK_MAX_LEN])c->part_sums, os->n_parts, got)) {
        s3c_fail(e, S3C_ENOMEM, "out of memory");
        return false;
    }
    if (strcmp(got, c->stored.value) && !composite_same_unsuffixed(got, &c->stored, os->n_parts)) {
        s3c_fail(e, S3C_EHTTP, "downloaded bytes give the composite %s %s, the store's is %s%s", ck_name(a), got,
                 c->stored.value, c->layout_guessed ? " (its part size was guessed)" : "");
        return false;
    }
    xdebug(g, os->o, "verified: composite %s %s of %" PRIu32 " parts (of %" PRIu64 " bytes%s) matches the stored "
           "checksum (no MD5)", ck_name(a), got, os->n_parts, os->part_size, c->layout_guessed ? ", size guessed" : "");
    return true;
}

/*
 * Every part of a ranged download is in: check the whole against what the
 * store holds (c->check). The verdict says what to do; download.c does it.
 * A check that proves nothing better (DL_SIZE, two equal downloads of a
 * guessed layout) is DLV_OK, said in --debug.
 */
enum dl_verdict dl_check(struct engine *g, struct xfer_obj_state *os, struct s3c_error *e)
{
    struct dl_check_state *c = dlc_of(os);
    char want[64], got[64];
    uint32_t i;

    if (c->check == DL_CRC) {
        uint64_t crc = c->part_crcs[0];

        for (i = 1; i < os->n_parts; i++)
            crc = ck_combine(c->ck_algo, crc, c->part_crcs[i],
                             i + 1 == os->n_parts ? os->size - (uint64_t)i * os->part_size : os->part_size);
        ck_crc_b64(c->ck_algo, crc, got);
        ck_crc_b64(c->ck_algo, c->ck_want, want);
        if (crc == c->ck_want) {
            xdebug(g, os->o, "verified: %s %s of %" PRIu32 " ranges matches the stored checksum",
                   ck_name(c->ck_algo), got, os->n_parts);
            return DLV_OK;
        }
        s3c_fail(e, S3C_EHTTP, "downloaded bytes have %s %s, the store's checksum is %s",
                 ck_name(c->ck_algo), got, want);
        return DLV_AGAIN;
    }
    if (c->check == DL_SEQ) {
        unsigned char d[MD5_LEN];

        if (c->seq_off < os->size || c->seq_hash.busy)
            return DLV_HASHING;
        if (c->seq_sha)
            return whole_sum_verify(g, os, &c->stored, c->seq_hash.job.also_digest, e) ? DLV_OK : DLV_AGAIN;
        memcpy(d, c->seq_hash.job.digest, MD5_LEN);
        str_hex(d, MD5_LEN, got);
        if (!strcmp(got, c->etag_hex)) {
            xdebug(g, os->o, "verified: MD5 of the whole (%" PRIu32 " ranges, %" PRIu64 " bytes re-read in order"
                   " from the file by a hash worker) matches the ETag", os->n_parts, os->size);
            return DLV_OK;
        }
        s3c_fail(e, S3C_EHTTP, "downloaded bytes have MD5 %s, the store's ETag is %s", got, c->etag_hex);
        return DLV_AGAIN;
    }
    if (c->check == DL_COMPOSITE)
        return composite_verify(g, os, e) ? DLV_OK : DLV_AGAIN;
    if (c->check == DL_PARTS) {
        struct hash_ctx *h = hash_md5_new();
        unsigned char d[MD5_LEN];

        if (!h) {
            s3c_fail(e, S3C_ENOMEM, "out of memory");
            return DLV_ERROR;
        }
        hash_update(h, c->md5s, (size_t)os->n_parts * MD5_LEN);
        hash_final(h, d);
        hash_free(h);
        str_hex(d, MD5_LEN, got);
        if (!strcmp(got, c->etag_hex)) {
            xdebug(g, os->o, "verified: md5 of %" PRIu32 " part MD5s (parts of %" PRIu64 " bytes%s) matches the ETag",
                   os->n_parts, os->part_size, c->layout_guessed ? ", size guessed" : "");
            return DLV_OK;
        }
        if (c->layout_guessed && c->have_prev && !memcmp(d, c->prev_digest, MD5_LEN)) {
            /* Two downloads agree byte for byte, part by part: the guess was wrong, not the bytes. */
            xdebug(g, os->o, "not verified: the store does not say its part size and parts of %" PRIu64
                   " bytes do not give its ETag; two downloads gave identical bytes", os->part_size);
            os->unproven = "the download could not be checked against its ETag (the store does not say its part size)";
            return DLV_OK;
        }
        memcpy(c->prev_digest, d, MD5_LEN);
        c->have_prev = true;
        s3c_fail(e, S3C_EHTTP, "downloaded bytes give ETag %s-%" PRIu32 ", the store's is %s-%" PRIu32 "%s", got,
                 os->n_parts, c->etag_hex, c->etag_parts,
                 c->layout_guessed ? " (its part size was guessed)" : "");
        return DLV_AGAIN;
    }
    return DLV_OK;
}

/* ---- a relay's source ------------------------------------------------------------- */

bool relay_source_check(struct engine *g, struct xfer_obj_state *os, struct s3c_error *e)
{
    const struct mpu_state *m = mpu_of(os);
    const char *etag = copy_of(os)->relay_etag;
    struct md5 all;
    unsigned char d[MD5_LEN];
    char hex[33], got[33];
    uint32_t i, n = etag[0] ? xfer_etag_parts(etag, hex) : 0;

    if (!g->opts.verify)
        return true;
    if (copy_of(os)->md5_hidden) {
        os->src_unproven = "the source is encrypted (SSE-KMS or SSE-C): its ETag is no MD5, what was read is unproven";
        return true;
    }
    if (copy_of(os)->seq_md5) {
        hash_final(copy_of(os)->seq, d); /* its last block or two: the bytes went in on the workers */
        str_hex(d, MD5_LEN, got);
        if (etag_is_md5(sv_from(etag), hex) && !strcmp(got, hex))
            return true;
        /* Every range asked If-Match its ETag: not another version, bytes spoilt on the way. */
        s3c_fail(e, S3C_EHTTP, "the bytes read from the source do not match its ETag (MD5 %s, not %s): "
                 "the copy is not completed", got, etag);
        return false;
    }
    if (n != os->n_parts || m->md5s_unknown || xfer_etag_not_md5(os->o->src_bucket, NULL)) {
        os->src_unproven = "the source's ETag does not name the parts it was read in: what was read is unproven";
        return true;
    }
    md5_init(&all);
    for (i = 0; i < os->n_parts; i++)
        md5_update(&all, m->md5s[i], MD5_LEN);
    md5_final(&all, d);
    str_hex(d, MD5_LEN, got);
    if (!strcmp(got, hex))
        return true;
    for (i = 0; os->have && i < os->n_parts; i++)
        if (os->have[i] == HAVE_TAKEN) {
            /* Parts an interrupted run sent, not read again: nothing else vouches for them. */
            s3c_fail(e, S3C_EHTTP, "the parts an interrupted run left on the destination, with those read now, "
                     "are not the source's (MD5 of the parts' MD5s %s, its ETag %s): the copy is not completed, "
                     "and the next run starts it afresh", got, etag);
            return false;
        }
    /* The layout was a guess (relay_part_size): another gives other MD5s. */
    os->src_unproven = "the source's ETag is not the MD5 of the parts read (its part size was guessed): "
                       "what was read is unproven";
    return true;
}
