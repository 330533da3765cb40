/*
 * digest: the hashes of a request body, computed as its bytes arrive, while
 * they are still in the CPU's cache (or, the MD5, a loop round later), and
 * each exactly once: MD5 when the operation makes an ETag of the body
 * (PutObject, UploadPart) or the request carries Content-MD5; SHA-256 only
 * when x-amz-content-sha256 is a hex digest (never for UNSIGNED-PAYLOAD); a
 * CRC or SHA only when an x-amz-checksum-* header asks for it. Of an
 * aws-chunked body, the framing is read as it arrives (frame_scan) and its
 * payload gets the MD5 and the checksum x-amz-trailer names; ops_payload.c
 * checks signatures and the trailer once the body is decoded.
 *
 * The MD5 of a body with a Content-Length waits: its bytes stay in the
 * body's blob, and after each round of its loop the worker hashes the
 * waiting bytes of up to eight bodies side by side (md5_x8_blocks, AVX2),
 * four to five times the bytes per CPU-second of one MD5 at a time. The
 * ETag is most of what an upload costs the emulator, and the emulator shares
 * the benchmark machine's cores with the client it measures. A body that
 * ends with bytes waiting is answered after that round (net.c's CS_HASH);
 * with fewer than four bodies waiting, one hashes alone once 1 MiB of it
 * waits.
 */
#include "emu.h"

#include <openssl/evp.h>
#include <string.h>

#include "base/crc.h"
#include "base/hash.h"

static const char *const algos[] = { "CRC32", "CRC32C", "CRC64NVME", "SHA1", "SHA256" };

/* The body is aws-chunked: its bytes are framing plus payload. */
bool emu_req_aws_chunked(const struct emu_req *q)
{
    struct sv sha = emu_req_header(q, "x-amz-content-sha256");
    struct sv ce = emu_req_header(q, "content-encoding");

    return (sha.p && sv_starts(sha, "STREAMING-")) || (ce.p && memmem(ce.p, ce.n, "aws-chunked", 11));
}

/* The algorithm of the first x-amz-checksum-<algo> header, or NULL. */
static const char *header_algo(const struct emu_req *q)
{
    int i;
    size_t k;

    for (i = 0; i < q->n_hdrs; i++) {
        struct sv nm = q->hdrs[i].name;

        if (nm.n <= 15 || strncasecmp(nm.p, "x-amz-checksum-", 15) != 0)
            continue;
        for (k = 0; k < sizeof(algos) / sizeof(algos[0]); k++)
            if (sv_ieqs((struct sv){ nm.p + 15, nm.n - 15 }, algos[k]))
                return algos[k];
    }
    return NULL;
}

/* ---- the MD5 that waits ---- */

/* This worker's bodies with at least a block of MD5 waiting, oldest first. */
static _Thread_local struct emu_digest *queue_head, *queue_tail;

static void enqueue(struct emu_digest *d)
{
    d->q_next = NULL;
    d->q_prev = queue_tail;
    if (queue_tail)
        queue_tail->q_next = d;
    else
        queue_head = d;
    queue_tail = d;
    d->queued = true;
}

static void dequeue(struct emu_digest *d)
{
    if (!d->queued)
        return;
    if (d->q_prev)
        d->q_prev->q_next = d->q_next;
    else
        queue_head = d->q_next;
    if (d->q_next)
        d->q_next->q_prev = d->q_prev;
    else
        queue_tail = d->q_prev;
    d->q_prev = d->q_next = NULL;
    d->queued = false;
}

/* Nothing waits any more (hashed or given up): out of the queue, the blob let go. */
static void md5_wait_end(struct emu_digest *d)
{
    dequeue(d);
    emu_blob_unref(d->md5_blob);
    d->md5_blob = NULL;
    d->n_pieces = 0;
    d->waiting = 0;
}

static void piece_pop(struct emu_digest *d)
{
    memmove(&d->piece[0], &d->piece[1], (size_t)(d->n_pieces - 1) * sizeof(d->piece[0]));
    d->n_pieces--;
}

/*
 * The whole blocks that wait in one run at the head of 'd' (*p: where),
 * 0 when less than a block waits. A block across pieces is put together
 * in 'bounce' and is a run of one.
 */
static size_t head_run(struct emu_digest *d, const unsigned char **p)
{
    size_t got = 0;

    if (d->waiting < MD5_BLOCK)
        return 0;
    if (d->piece[0].n >= MD5_BLOCK) {
        *p = d->piece[0].p;
        return d->piece[0].n / MD5_BLOCK;
    }
    while (got < MD5_BLOCK) {
        size_t k = d->piece[0].n < MD5_BLOCK - got ? d->piece[0].n : MD5_BLOCK - got;

        memcpy(d->bounce + got, d->piece[0].p, k);
        got += k;
        d->piece[0].p += k;
        d->piece[0].n -= k;
        if (!d->piece[0].n)
            piece_pop(d);
    }
    /* The first piece was shorter than a block, so it is gone: there is room in front. */
    memmove(&d->piece[1], &d->piece[0], (size_t)d->n_pieces * sizeof(d->piece[0]));
    d->piece[0].p = d->bounce;
    d->piece[0].n = MD5_BLOCK;
    d->n_pieces++;
    *p = d->bounce;
    return 1;
}

/* 'blocks' blocks at the head of 'd' are hashed: on past them. */
static void md5_advance(struct emu_digest *d, size_t blocks)
{
    size_t k = blocks * MD5_BLOCK;

    d->md5.bytes += k;
    d->piece[0].p += k;
    d->piece[0].n -= k;
    d->waiting -= k;
    if (!d->piece[0].n)
        piece_pop(d);
    if (d->waiting < MD5_BLOCK)
        dequeue(d);
}

/* The whole blocks waiting in 'd', alone. */
static void md5_alone(struct emu_digest *d)
{
    const unsigned char *p;
    size_t blocks;

    while ((blocks = head_run(d, &p))) {
        md5_blocks(d->md5.h, p, blocks);
        md5_advance(d, blocks);
    }
}

/* Everything that waits, and the MD5 waits no more (its state may now end mid-block). */
static void md5_catch_up(struct emu_digest *d)
{
    int i;

    md5_alone(d);
    for (i = 0; i < d->n_pieces; i++)
        md5_update(&d->md5, d->piece[i].p, d->piece[i].n);
    md5_wait_end(d);
}

/*
 * Four bodies or more side by side (x8 with four busy lanes is already twice
 * the bytes per CPU-second of one MD5 alone); with fewer, a body waits until
 * EMU_MD5_WAIT_MAX bytes do (or its body ends) and is then hashed alone.
 * side_by_side(d) is for a body whose pieces ran out in the middle of a
 * round: it and seven others, until what waits of it is hashed.
 */
#define LANES_MIN 4
#define EMU_MD5_WAIT_MAX ((size_t)1 << 20)

static void side_by_side(struct emu_digest *must)
{
    bool x8 = md5_x8_available(); /* asks the CPU once */

    while (!must || must->queued) {
        struct emu_digest *lane[8], *d, *next;
        const unsigned char *p[8];
        uint32_t h[8][4];
        size_t blocks = SIZE_MAX, b;
        int k = 0, i;

        if (must)
            lane[k++] = must;
        for (d = queue_head; d && k < 8; d = d->q_next)
            if (d != must)
                lane[k++] = d;
        if (!x8 || (must ? k == 1 : k < LANES_MIN)) {
            if (must) {
                md5_alone(must);
                return;
            }
            for (d = queue_head; d; d = next) {
                next = d->q_next;
                if (d->waiting >= EMU_MD5_WAIT_MAX || !x8)
                    md5_alone(d);
            }
            return;
        }
        for (i = 0; i < k; i++) {
            b = head_run(lane[i], &p[i]); /* a block or more: it is queued */
            if (b < blocks)
                blocks = b;
            memcpy(h[i], lane[i]->md5.h, sizeof(h[i]));
        }
        /* An idle lane reads the first lane's bytes again; its result is dropped. */
        for (; i < 8; i++) {
            p[i] = p[0];
            memcpy(h[i], h[0], sizeof(h[i]));
        }
        md5_x8_blocks(h, p, blocks);
        EMU_STAT(NULL, md5_x8_bytes, (uint64_t)k * blocks * MD5_BLOCK);
        for (i = 0; i < k; i++) {
            memcpy(lane[i]->md5.h, h[i], sizeof(h[i]));
            md5_advance(lane[i], blocks);
        }
    }
}

void emu_digest_flush(void)
{
    side_by_side(NULL);
}

/*
 * Body bytes for the MD5: while the body's blob is held they wait (a piece
 * of their own, or the end of the last one); else, or when the pieces run
 * out, they are hashed now.
 */
static void md5_take(struct emu_digest *d, const unsigned char *p, size_t n)
{
    struct emu_md5_piece *last = d->n_pieces ? &d->piece[d->n_pieces - 1] : NULL;

    if (d->md5_blob && !(last && last->p + last->n == p) && d->n_pieces == EMU_MD5_PIECES)
        side_by_side(d); /* out of pieces: what waits of it goes now, beside others */
    last = d->n_pieces ? &d->piece[d->n_pieces - 1] : NULL;
    if (d->md5_blob && last && last->p + last->n == p) {
        last->n += n;
    } else if (d->md5_blob && d->n_pieces < EMU_MD5_PIECES) {
        d->piece[d->n_pieces].p = p;
        d->piece[d->n_pieces].n = n;
        d->n_pieces++;
    } else {
        md5_catch_up(d);
        md5_update(&d->md5, p, n);
        return;
    }
    d->waiting += n;
    if (!d->queued && d->waiting >= MD5_BLOCK)
        enqueue(d);
}

enum { FR_SIZE, FR_EXT, FR_LF, FR_DATA, FR_CR, FR_LF2, FR_DONE, FR_BAD };

static void payload(struct emu_digest *d, const void *p, size_t n);

/*
 * Raw bytes of an aws-chunked body: the payload of each chunk to the MD5,
 * the framing ("<hex>[;ext]\r\n<data>\r\n" ... "0...\r\n" and trailers)
 * read past. A body this cannot read gets no MD5 here (FR_BAD): the
 * decoder says what is wrong with it, and the ETag is hashed from what it
 * decodes.
 */
static void frame_scan(struct emu_digest *d, const unsigned char *p, size_t n)
{
    while (n && d->fr_state != FR_DONE && d->fr_state != FR_BAD) {
        int c = *p, v;

        if (d->fr_state == FR_DATA) {
            size_t k = n < d->fr_left ? n : (size_t)d->fr_left;

            payload(d, p, k);
            p += k;
            n -= k;
            if (!(d->fr_left -= k))
                d->fr_state = FR_CR;
            continue;
        }
        switch (d->fr_state) {
        case FR_SIZE:
            v = c >= '0' && c <= '9' ? c - '0' : (c | 32) >= 'a' && (c | 32) <= 'f' ? (c | 32) - 'a' + 10 : -1;
            if (v >= 0 && d->fr_digits < 15) {
                d->fr_left = d->fr_left * 16 + (uint64_t)v;
                d->fr_digits++;
            } else {
                d->fr_state = !d->fr_digits || v >= 0 ? FR_BAD : c == ';' ? FR_EXT : c == '\r' ? FR_LF : FR_BAD;
            }
            break;
        case FR_EXT:
            if (c == '\r')
                d->fr_state = FR_LF;
            break;
        case FR_LF:
            d->fr_state = c != '\n' ? FR_BAD : d->fr_left ? FR_DATA : FR_DONE;
            break;
        case FR_CR:
            d->fr_state = c == '\r' ? FR_LF2 : FR_BAD;
            break;
        default: /* FR_LF2 */
            d->fr_state = c == '\n' ? FR_SIZE : FR_BAD;
            d->fr_left = 0;
            d->fr_digits = 0;
            break;
        }
        p++;
        n--;
    }
}

/* The algorithm an aws-chunked body's trailer will name (x-amz-trailer: x-amz-checksum-<algo>), or NULL. */
static const char *trailer_algo(const struct emu_req *q)
{
    struct sv t = emu_req_header(q, "x-amz-trailer");
    size_t k;

    if (!t.p || t.n <= 15 || strncasecmp(t.p, "x-amz-checksum-", 15) != 0)
        return NULL;
    for (k = 0; k < sizeof(algos) / sizeof(algos[0]); k++)
        if (sv_ieqs((struct sv){ t.p + 15, t.n - 15 }, algos[k]))
            return algos[k];
    return NULL;
}

void emu_digest_start(struct emu_digest *d, const struct emu_req *q)
{
    struct sv sha = emu_req_header(q, "x-amz-content-sha256");

    if (d->want) { /* the last body ended early (the connection survived): start clean */
        md5_wait_end(d);
        if (d->sha256)
            hash_reset(d->sha256);
    }
    d->want = 0;
    d->done = 0;
    d->fed = 0;
    d->ck_algo = NULL;
    d->framed = emu_req_aws_chunked(q);
    d->fr_state = FR_SIZE;
    d->fr_digits = 0;
    d->fr_left = 0;
    /* A directory bucket's ETag is no MD5 (ops_express.c makes it random), so its
     * bodies are hashed for one only when the request sends a Content-MD5. */
    if (((q->op == OP_PUT_OBJECT || q->op == OP_UPLOAD_PART) && !q->express) || emu_req_header(q, "content-md5").p)
        d->want |= EMU_DIG_MD5;
    /* Of an aws-chunked body, the payload read out of its framing: the MD5 and the
     * trailer's checksum (ops_payload.c checks signatures and the rest once it is decoded). */
    if (sha.n == 64 && !d->framed)
        d->want |= EMU_DIG_SHA256;
    d->ck_algo = d->framed ? trailer_algo(q) : header_algo(q);
    if (d->ck_algo)
        d->want |= EMU_DIG_CK;
    if (d->want & EMU_DIG_MD5) {
        md5_init(&d->md5);
        if (q->has_cl && q->body) /* its bytes stay put: the MD5 may wait for them */
            d->md5_blob = emu_blob_ref(q->body);
    }
    /* Contexts live as long as the connection; a failed allocation only means hashing later. */
    if ((d->want & EMU_DIG_SHA256) && !d->sha256 && !(d->sha256 = hash_sha256_new()))
        d->want &= ~(unsigned)EMU_DIG_SHA256;
    if (d->want & EMU_DIG_CK) {
        d->crc32 = 0;
        d->crc64 = 0;
        if (!strcmp(d->ck_algo, "SHA256") && !d->sha256 && !(d->sha256 = hash_sha256_new()))
            d->want &= ~(unsigned)EMU_DIG_CK;
        if (!strcmp(d->ck_algo, "SHA1")) {
            if (!d->sha1)
                d->sha1 = EVP_MD_CTX_new();
            if (!d->sha1 || !EVP_DigestInit_ex(d->sha1, EVP_sha1(), NULL))
                d->want &= ~(unsigned)EMU_DIG_CK;
        }
    }
}

/* Payload bytes to every digest wanted. */
static void payload(struct emu_digest *d, const void *p, size_t n)
{
    d->fed += n;
    if (d->want & EMU_DIG_MD5)
        md5_take(d, p, n);
    if ((d->want & EMU_DIG_SHA256) || ((d->want & EMU_DIG_CK) && !strcmp(d->ck_algo, "SHA256")))
        hash_update(d->sha256, p, n);
    if (!(d->want & EMU_DIG_CK))
        return;
    switch (d->ck_algo[3]) {
    case '3': /* CRC32, CRC32C */
        d->crc32 = d->ck_algo[5] ? crc_crc32c_update(d->crc32, p, n) : crc_crc32_update(d->crc32, p, n);
        break;
    case '6': /* CRC64NVME */
        d->crc64 = crc_crc64nvme_update(d->crc64, p, n);
        break;
    case '1': /* SHA1 */
        EVP_DigestUpdate(d->sha1, p, n);
        break;
    default: /* SHA256: fed above */
        break;
    }
}

void emu_digest_feed(struct emu_digest *d, const void *p, size_t n)
{
    if (!n || !d->want)
        return;
    if (d->framed)
        frame_scan(d, p, n);
    else
        payload(d, p, n);
}

void emu_digest_finish(struct emu_digest *d)
{
    unsigned char sha[SHA256_LEN];
    int i;

    if (d->want & EMU_DIG_MD5) {
        side_by_side(d); /* what waits of it, beside others' */
        md5_catch_up(d);
        md5_final(&d->md5, d->md5_out);
        if (!d->framed || d->fr_state == FR_DONE)
            EMU_STAT(NULL, md5_bytes, d->fed);
    }
    if (d->framed && d->fr_state != FR_DONE) /* the decoder will say what is wrong; it hashes what it decodes */
        d->want = 0;
    if ((d->want & EMU_DIG_SHA256) || ((d->want & EMU_DIG_CK) && !strcmp(d->ck_algo, "SHA256"))) {
        hash_final(d->sha256, sha);
        memcpy(d->sha256_out, sha, sizeof(sha));
    }
    if (d->want & EMU_DIG_CK) {
        const char *a = d->ck_algo;

        if (!strcmp(a, "CRC32") || !strcmp(a, "CRC32C")) {
            for (i = 0; i < 4; i++)
                d->ck_out[i] = (unsigned char)(d->crc32 >> (24 - 8 * i));
            d->ck_len = 4;
        } else if (!strcmp(a, "CRC64NVME")) {
            for (i = 0; i < 8; i++)
                d->ck_out[i] = (unsigned char)(d->crc64 >> (56 - 8 * i));
            d->ck_len = 8;
        } else if (!strcmp(a, "SHA1")) {
            unsigned int len = 0;

            EVP_DigestFinal_ex(d->sha1, d->ck_out, &len);
            d->ck_len = len;
        } else {
            memcpy(d->ck_out, sha, sizeof(sha));
            d->ck_len = SHA256_LEN;
        }
    }
    d->done = d->want;
    d->want = 0;
}

void emu_digest_release(struct emu_digest *d)
{
    md5_wait_end(d);
    hash_free(d->sha256);
    EVP_MD_CTX_free(d->sha1);
    memset(d, 0, sizeof(*d));
}

void emu_body_md5(const struct emu_conn *c, const void *p, size_t n, unsigned char out[16])
{
    if ((c->dig.done & EMU_DIG_MD5) && c->dig.fed == n)
        memcpy(out, c->dig.md5_out, 16);
    else
        hash_md5(p, n, out);
}

void emu_body_sha256_hex(const struct emu_conn *c, const void *p, size_t n, char out[65])
{
    if (c->dig.done & EMU_DIG_SHA256)
        str_hex(c->dig.sha256_out, SHA256_LEN, out);
    else
        hash_sha256_hex(p, n, out);
}

size_t emu_body_checksum(const struct emu_conn *c, const char *algo, size_t n, unsigned char out[32])
{
    if (!(c->dig.done & EMU_DIG_CK) || strcmp(c->dig.ck_algo, algo) != 0 || c->dig.fed != n)
        return 0;
    memcpy(out, c->dig.ck_out, c->dig.ck_len);
    return c->dig.ck_len;
}
