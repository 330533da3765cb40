#include "t.h"

#include <stdlib.h>

#include "base/buf.h"
#include "base/crc.h"
#include "s3/chunked.h"

struct mem { const unsigned char *p; uint64_t n; int reads; };

static ssize_t mem_read(void *ctx, char *dst, size_t n, uint64_t off)
{
    struct mem *m = ctx;

    m->reads++;
    if (off >= m->n)
        return 0;
    if (n > m->n - off)
        n = (size_t)(m->n - off);
    memcpy(dst, m->p + off, n);
    return (ssize_t)n;
}

/* Read the whole framed body in steps of 'step' bytes into 'out'. */
static int read_all(struct s3_chunked *c, size_t step, struct buf *out)
{
    uint64_t off = 0, total = s3_chunked_len(c);
    char tmp[4096];

    while (off < total) {
        ssize_t got = s3_chunked_read(c, tmp, step < sizeof(tmp) ? step : sizeof(tmp), off);
        if (got <= 0)
            return -1;
        buf_add(out, tmp, (size_t)got);
        off += (uint64_t)got;
    }
    return s3_chunked_read(c, tmp, 1, off) == 0 ? 0 : -1;
}

/* Decode aws-chunked as a store does; the trailer line in 'trailer'. */
static int decode(struct sv in, struct buf *payload, char trailer[128])
{
    for (;;) {
        const char *crlf = memmem(in.p, in.n, "\r\n", 2);
        char hex[32];
        unsigned long long len;
        size_t hl;

        if (!crlf || (hl = (size_t)(crlf - in.p)) >= sizeof(hex))
            return -1;
        memcpy(hex, in.p, hl);
        hex[hl] = '\0';
        len = strtoull(hex, NULL, 16);
        in.p += hl + 2;
        in.n -= hl + 2;
        if (len == 0)
            break;
        if (in.n < len + 2 || memcmp(in.p + len, "\r\n", 2))
            return -1;
        buf_add(payload, in.p, (size_t)len);
        in.p += len + 2;
        in.n -= len + 2;
    }
    if (in.n < 4 || in.n - 4 >= 128 || memcmp(in.p + in.n - 4, "\r\n\r\n", 4))
        return -1;
    memcpy(trailer, in.p, in.n - 4);
    trailer[in.n - 4] = '\0';
    return 0;
}

TEST(chunked_frames_and_trails_a_crc64nvme)
{
    static unsigned char data[300000];
    const uint64_t sizes[] = { 1, 100, 65535, 65536, 65537, 131072, 300000 };
    const size_t steps[] = { 1, 7, 4096 };
    size_t i, j;

    for (i = 0; i < sizeof(data); i++)
        data[i] = (unsigned char)(i * 2654435761u >> 11);
    for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        for (j = 0; j < sizeof(steps) / sizeof(steps[0]); j++) {
            struct mem m = { data, sizes[i], 0 };
            struct s3_chunked c;
            struct buf framed = BUF_INIT(1 << 20), payload = BUF_INIT(1 << 20), want = BUF_INIT(64);
            char trailer[128];
            uint64_t crc = 0;

            if (steps[j] == 1 && sizes[i] > 70000)
                continue; /* byte by byte: small sizes are enough */
            s3_chunked_init(&c, mem_read, &m, sizes[i], 0);
            CHECK_INT(read_all(&c, steps[j], &framed), 0);
            CHECK_INT(framed.len, s3_chunked_len(&c));
            CHECK_INT(decode(buf_sv(&framed), &payload, trailer), 0);
            CHECK_INT(payload.len, sizes[i]);
            CHECK(payload.len == sizes[i] && !memcmp(payload.data, data, (size_t)sizes[i]));
            buf_adds(&want, "x-amz-checksum-crc64nvme:");
            crc_b64_64(crc_crc64nvme_update(0, data, (size_t)sizes[i]), &want);
            CHECK_STR(trailer, buf_cstr(&want));
            CHECK(s3_chunked_crc(&c, &crc) && crc == crc_crc64nvme_update(0, data, (size_t)sizes[i]));
            buf_release(&framed);
            buf_release(&payload);
            buf_release(&want);
        }
    }
}

/* curl rewinds to resend: reading again from 0 gives the same bytes and CRC;
 * a trailer asked for after a gap in the payload is refused. */
TEST(chunked_rewind_and_gap)
{
    static unsigned char data[200000];
    struct mem m = { data, sizeof(data), 0 };
    struct s3_chunked c;
    struct buf a = BUF_INIT(1 << 20), b = BUF_INIT(1 << 20);
    char tmp[64];
    size_t i;

    for (i = 0; i < sizeof(data); i++)
        data[i] = (unsigned char)(i * 7 + 3);
    s3_chunked_init(&c, mem_read, &m, sizeof(data), 1000);
    /* Half way, then from the start again. */
    for (i = 0; i < 40; i++)
        CHECK(s3_chunked_read(&c, tmp, sizeof(tmp), (uint64_t)i * sizeof(tmp)) > 0);
    CHECK_INT(read_all(&c, 333, &a), 0);
    s3_chunked_init(&c, mem_read, &m, sizeof(data), 1000);
    CHECK_INT(read_all(&c, 4096, &b), 0);
    CHECK(a.len == b.len && !memcmp(a.data, b.data, a.len));
    /* Skip straight to the tail: no checksum of bytes that never passed. */
    s3_chunked_init(&c, mem_read, &m, sizeof(data), 1000);
    CHECK_INT(s3_chunked_read(&c, tmp, sizeof(tmp), s3_chunked_len(&c) - 10), -1);
    buf_release(&a);
    buf_release(&b);
}

/* The caller's SHA: "not yet" (-2, passed through) until it has one. */
struct sum_ctx { bool ready; unsigned char d[CK_MAX_LEN]; };

static ssize_t sum_of(void *ctx, unsigned char out[CK_MAX_LEN])
{
    struct sum_ctx *s = ctx;

    if (!s->ready)
        return -2;
    memcpy(out, s->d, CK_MAX_LEN);
    return 0;
}

/* Other algorithms: a CRC32C taken as the payload passes, a SHA-256 given by
 * the caller once it has it; the trailer's length is known up front. */
TEST(chunked_trails_other_algorithms)
{
    static unsigned char data[100000];
    struct mem m = { data, sizeof(data), 0 };
    struct s3_chunked c;
    struct sum_ctx s = { false, { 0 } };
    struct buf framed = BUF_INIT(1 << 20), payload = BUF_INIT(1 << 20);
    char trailer[128], b64[CK_B64_MAX], want[160], tmp[4096];
    unsigned char raw[CK_MAX_LEN];
    uint64_t off = 0, total;
    uint64_t crc = 0;
    size_t i;

    for (i = 0; i < sizeof(data); i++)
        data[i] = (unsigned char)(i * 13 + 1);
    s3_chunked_init(&c, mem_read, &m, sizeof(data), 0);
    s3_chunked_use(&c, CK_CRC32C, NULL, NULL);
    CHECK_INT(read_all(&c, 4096, &framed), 0);
    CHECK_INT(framed.len, s3_chunked_len(&c));
    CHECK_INT(decode(buf_sv(&framed), &payload, trailer), 0);
    ck_digest(CK_CRC32C, data, sizeof(data), raw);
    ck_b64(CK_CRC32C, raw, b64);
    snprintf(want, sizeof(want), "x-amz-checksum-crc32c:%s", b64);
    CHECK_STR(trailer, want);
    CHECK(s3_chunked_crc(&c, &crc) && crc == crc_crc32c_update(0, data, sizeof(data)));

    buf_reset(&framed);
    buf_reset(&payload);
    s3_chunked_init(&c, mem_read, &m, sizeof(data), 0);
    s3_chunked_use(&c, CK_SHA256, sum_of, &s);
    total = s3_chunked_len(&c);
    /* Up to the trailer: the payload goes; the trailer waits for the SHA. */
    for (;;) {
        ssize_t got = s3_chunked_read(&c, tmp, sizeof(tmp), off);
        if (got == -2)
            break;
        CHECK(got > 0);
        if (got <= 0)
            break;
        buf_add(&framed, tmp, (size_t)got);
        off += (uint64_t)got;
    }
    CHECK(off < total);
    ck_digest(CK_SHA256, data, sizeof(data), s.d);
    s.ready = true;
    while (off < total) {
        ssize_t got = s3_chunked_read(&c, tmp, sizeof(tmp), off);
        CHECK(got > 0);
        if (got <= 0)
            break;
        buf_add(&framed, tmp, (size_t)got);
        off += (uint64_t)got;
    }
    CHECK_INT(framed.len, total);
    CHECK_INT(decode(buf_sv(&framed), &payload, trailer), 0);
    CHECK(payload.len == sizeof(data) && !memcmp(payload.data, data, sizeof(data)));
    ck_b64(CK_SHA256, s.d, b64);
    snprintf(want, sizeof(want), "x-amz-checksum-sha256:%s", b64);
    CHECK_STR(trailer, want);
    CHECK(!s3_chunked_crc(&c, &crc)); /* no CRC of a SHA trailer */
    buf_release(&framed);
    buf_release(&payload);
}

/* One call fills the buffer across size lines and chunk ends (a send, not three). */
TEST(chunked_read_fills_the_buffer)
{
    static unsigned char data[300000];
    static char out[400000];
    struct mem m = { data, sizeof(data), 0 };
    struct s3_chunked c;
    uint64_t len;
    ssize_t got;

    s3_chunked_init(&c, mem_read, &m, sizeof(data), 0);
    len = s3_chunked_len(&c);
    got = s3_chunked_read(&c, out, sizeof(out), 0);
    CHECK_INT(got, len);
    CHECK_INT(m.reads, 5); /* one read a chunk of 65536 */
    CHECK_INT(s3_chunked_read(&c, out, sizeof(out), len), 0);
    s3_chunked_init(&c, mem_read, &m, sizeof(data), 0);
    CHECK_INT(s3_chunked_read(&c, out, 100000, 0), 100000);
    CHECK_INT(s3_chunked_read(&c, out, 100000, 100000), 100000);
}
