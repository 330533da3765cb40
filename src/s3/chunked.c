#include "s3/chunked.h"

#include <stdio.h>
#include <string.h>

#include "base/buf.h"
#include "base/crc.h"
#include "base/str.h"

/* "0\r\n", "x-amz-checksum-crc64nvme:" and the base64 of the digest, CRLF, the final CRLF. */
static uint64_t tail_len(const struct s3_chunked *c)
{
    return 3 + strlen(ck_header(c->algo)) + 1 + 4 * ((ck_len(c->algo) + 2) / 3) + 2 + 2;
}

void s3_chunked_init(struct s3_chunked *c, ssize_t (*read)(void *, char *, size_t, uint64_t), void *ctx,
                     uint64_t payload, size_t chunk)
{
    memset(c, 0, sizeof(*c));
    c->read = read;
    c->read_ctx = ctx;
    c->payload = payload;
    c->chunk = chunk ? chunk : S3_CHUNK_BYTES;
    c->algo = CK_CRC64NVME;
}

void s3_chunked_use(struct s3_chunked *c, enum ck_algo a, ssize_t (*sum)(void *, unsigned char *), void *ctx)
{
    c->algo = a;
    c->sum = sum;
    c->sum_ctx = ctx;
}

static size_t hex_len(uint64_t v)
{
    size_t n = 1;

    while (v >>= 4)
        n++;
    return n;
}

/* Framed size of a chunk of 'len' payload bytes: "hex\r\n" data "\r\n". */
static uint64_t framed(uint64_t len)
{
    return hex_len(len) + 2 + len + 2;
}

static uint64_t n_chunks(const struct s3_chunked *c)
{
    return (c->payload + c->chunk - 1) / c->chunk;
}

uint64_t s3_chunked_len(const struct s3_chunked *c)
{
    uint64_t m = n_chunks(c), total = tail_len(c);

    if (m)
        total += (m - 1) * framed(c->chunk) + framed(c->payload - (m - 1) * c->chunk);
    return total;
}

int s3_chunked_crc(const struct s3_chunked *c, uint64_t *crc)
{
    if (c->crc_off != c->payload || !ck_is_crc(c->algo))
        return 0;
    *crc = c->crc;
    return 1;
}

/* Copy fixed framing text from position 'at' of 's' (length 'len'). */
static ssize_t give(const char *s, size_t len, uint64_t at, char *dst, size_t n)
{
    size_t k = (size_t)(len - at) < n ? (size_t)(len - at) : n;

    memcpy(dst, s + at, k);
    return (ssize_t)k;
}

/* One piece of the framed body at 'off': a chunk's size line, payload, CRLF, or the tail. */
static ssize_t chunked_piece(struct s3_chunked *c, char *dst, size_t n, uint64_t off)
{
    uint64_t m = n_chunks(c), full = framed(c->chunk), k, in, len, chunk_bytes;
    char text[128];
    size_t hl;

    if (n == 0)
        return 0;
    /* Which chunk 'off' falls in: all but the last are the same size. */
    if (m && off < (m - 1) * full) {
        k = off / full;
        in = off % full;
    } else {
        k = m ? m - 1 : 0;
        in = off - (m ? (m - 1) * full : 0);
    }
    len = m ? (k + 1 == m ? c->payload - k * c->chunk : c->chunk) : 0;
    chunk_bytes = m ? framed(len) : 0;
    if (in < chunk_bytes) {
        hl = (size_t)snprintf(text, sizeof(text), "%llx\r\n", (unsigned long long)len);
        if (in < hl)
            return give(text, hl, in, dst, n);
        if (in < hl + len) {
            uint64_t at = k * c->chunk + (in - hl);
            size_t want = (size_t)(len - (in - hl)) < n ? (size_t)(len - (in - hl)) : n;
            ssize_t got = c->read(c->read_ctx, dst, want, at);

            if (got <= 0)
                return got < 0 ? got : -1; /* a short payload is an error, never a short body */
            if (at == 0 && c->crc_off) {
                c->crc = 0; /* resent from the start */
                c->crc_off = 0;
            }
            if (at == c->crc_off) {
                if (ck_is_crc(c->algo))
                    c->crc = ck_update(c->algo, c->crc, dst, (size_t)got);
                c->crc_off += (uint64_t)got;
            }
            return got;
        }
        return give("\r\n", 2, in - hl - len, dst, n);
    }
    /* The tail: the last chunk, the trailer, the end. */
    in -= chunk_bytes;
    if (in >= tail_len(c))
        return 0;
    if (c->crc_off != c->payload)
        return -1; /* the payload did not all pass in order: no honest checksum to send */
    {
        unsigned char raw[CK_MAX_LEN];
        char b64[CK_B64_MAX];
        size_t tl;

        if (ck_is_crc(c->algo)) {
            ck_crc_raw(c->algo, c->crc, raw);
        } else {
            ssize_t rc = c->sum ? c->sum(c->sum_ctx, raw) : -1;
            if (rc < 0)
                return rc; /* not known yet (or never): the caller's answer */
        }
        ck_b64(c->algo, raw, b64);
        tl = (size_t)snprintf(text, sizeof(text), "0\r\n%s:%s\r\n\r\n", ck_header(c->algo), b64);
        if (tl != tail_len(c))
            return -1;
        return give(text, tl, in, dst, n);
    }
}

/*
 * As many pieces as fit: curl sends what one call gives, so a call that
 * stopped at a size line would cost a send (and over TLS a record) of a few
 * bytes. A pause or an error after some bytes comes with the next call.
 */
ssize_t s3_chunked_read(void *ctx, char *dst, size_t n, uint64_t off)
{
    size_t done = 0;

    while (done < n) {
        ssize_t got = chunked_piece(ctx, dst + done, n - done, off + done);

        if (got <= 0) {
            if (done)
                break;
            return got;
        }
        done += (size_t)got;
    }
    return (ssize_t)done;
}
