#include "t.h"

#include <stdlib.h>

#include "base/buf.h"
#include "base/crc.h"

static const char check[] = "123456789";

TEST(crc_catalogue_check_values)
{
    CHECK(crc_crc32_update(0, check, 9) == 0xCBF43926u);
    CHECK(crc_crc32c_update(0, check, 9) == 0xE3069283u);
    CHECK(crc_crc64nvme_update(0, check, 9) == 0xAE8B14860A799888ull);
    CHECK(crc_crc32_update(0, "", 0) == 0);
    CHECK(crc_crc32c_update(0, "", 0) == 0);
    CHECK(crc_crc64nvme_update(0, "", 0) == 0);
}

TEST(crc_streaming_equals_one_shot)
{
    unsigned char data[1000];
    uint32_t a = 0, c = 0;
    uint64_t g = 0;
    size_t i, off;

    for (i = 0; i < sizeof(data); i++)
        data[i] = (unsigned char)(i * 131 + 7);
    for (off = 0; off < sizeof(data); off += 77) {
        size_t n = sizeof(data) - off < 77 ? sizeof(data) - off : 77;
        a = crc_crc32_update(a, data + off, n);
        c = crc_crc32c_update(c, data + off, n);
        g = crc_crc64nvme_update(g, data + off, n);
    }
    CHECK(a == crc_crc32_update(0, data, sizeof(data)));
    CHECK(c == crc_crc32c_update(0, data, sizeof(data)));
    CHECK(g == crc_crc64nvme_update(0, data, sizeof(data)));
}

/* S3 sends base64 of the big-endian CRC bytes. */
TEST(crc_s3_base64_forms)
{
    struct buf b = BUF_INIT(64);

    CHECK_INT(crc_b64_32(crc_crc32_update(0, check, 9), &b), S3C_OK);
    CHECK_STR(buf_cstr(&b), "y/Q5Jg==");
    buf_reset(&b);
    CHECK_INT(crc_b64_32(crc_crc32c_update(0, check, 9), &b), S3C_OK);
    CHECK_STR(buf_cstr(&b), "4waSgw==");
    buf_reset(&b);
    CHECK_INT(crc_b64_64(crc_crc64nvme_update(0, check, 9), &b), S3C_OK);
    CHECK_STR(buf_cstr(&b), "rosUhgp5mIg=");
    buf_release(&b);
}

/* crc(A||B) from crc(A), crc(B), len(B): every split of a buffer, empty ends included. */
TEST(crc_combine_any_split)
{
    static unsigned char data[3000];
    size_t i, cut;
    int bad = 0;

    for (i = 0; i < sizeof(data); i++)
        data[i] = (unsigned char)(i * 2654435761u >> 13);
    for (cut = 0; cut <= sizeof(data); cut += (cut < 20 ? 1 : 97)) {
        size_t nb = sizeof(data) - cut;
        if (crc_crc32_combine(crc_crc32_update(0, data, cut), crc_crc32_update(0, data + cut, nb), nb) !=
            crc_crc32_update(0, data, sizeof(data)))
            bad++;
        if (crc_crc32c_combine(crc_crc32c_update(0, data, cut), crc_crc32c_update(0, data + cut, nb), nb) !=
            crc_crc32c_update(0, data, sizeof(data)))
            bad++;
        if (crc_crc64nvme_combine(crc_crc64nvme_update(0, data, cut),
                                  crc_crc64nvme_update(0, data + cut, nb), nb) !=
            crc_crc64nvme_update(0, data, sizeof(data)))
            bad++;
    }
    CHECK_INT(bad, 0);
    /* The catalogue string in two pieces. */
    CHECK(crc_crc64nvme_combine(crc_crc64nvme_update(0, "1234", 4), crc_crc64nvme_update(0, "56789", 5), 5) ==
          0xAE8B14860A799888ull);
    CHECK(crc_crc32_combine(crc_crc32_update(0, "12345678", 8), crc_crc32_update(0, "9", 1), 1) == 0xCBF43926u);
}

/* Parts far apart: a 5 GiB piece of zeros, whose CRC is built by combining too. */
TEST(crc_combine_large_lengths)
{
    static unsigned char zeros[1 << 16];
    uint64_t z64 = crc_crc64nvme_update(0, zeros, sizeof(zeros)), big = z64, ref;
    uint32_t z32 = crc_crc32c_update(0, zeros, sizeof(zeros)), big32 = z32;
    uint64_t len = sizeof(zeros);
    int i;

    /* Doubling: crc(Z^2n) = combine(crc(Z^n), crc(Z^n), n). */
    for (i = 0; i < 16; i++) {
        big = crc_crc64nvme_combine(big, big, len);
        big32 = crc_crc32c_combine(big32, big32, len);
        len *= 2;
    }
    /* 4 GiB of zeros, the other way: one piece at a time. */
    ref = 0;
    {
        uint32_t ref32 = 0;
        uint64_t k;
        for (k = 0; k < ((uint64_t)1 << 16); k++) {
            ref = crc_crc64nvme_combine(ref, z64, sizeof(zeros));
            ref32 = crc_crc32c_combine(ref32, z32, sizeof(zeros));
        }
        CHECK(ref32 == big32);
    }
    CHECK(ref == big);
    CHECK(len == ((uint64_t)1 << 32));
}

/* The folded CRC64NVME (PCLMULQDQ) against the table, bit by bit: random
 * lengths around its 128- and 16-byte steps, random starting values and
 * misaligned starts. */
TEST(crc64nvme_folded_equals_table)
{
    static unsigned char data[70000];
    unsigned seed = 12345;
    size_t i;
    int t;

    for (i = 0; i < sizeof(data); i++) {
        seed = seed * 1103515245u + 12345u;
        data[i] = (unsigned char)(seed >> 16);
    }
    for (t = 0; t < 3000; t++) {
        size_t off, n;
        uint64_t start, a, b = 0;

        seed = seed * 1103515245u + 12345u;
        off = (seed >> 8) % 64;
        seed = seed * 1103515245u + 12345u;
        n = t < 400 ? (size_t)t : (seed >> 4) % (sizeof(data) - 64);
        seed = seed * 1103515245u + 12345u;
        start = (uint64_t)seed << 32 | (seed * 2654435761u);
        a = crc_crc64nvme_update(start, data + off, n);
        /* The reference: the same bytes 7 at a time (below the folding's 128). */
        b = start;
        for (i = 0; i < n; i += 7)
            b = crc_crc64nvme_update(b, data + off + i, n - i < 7 ? n - i : 7);
        if (a != b) {
            CHECK(a == b);
            return;
        }
    }
}

/* Bit at a time, straight from the definition: the reference every kernel
 * (tables, ISA-L, ARMv8 CRC32, PCLMULQDQ, PMULL) is held to. Finished
 * values in and out, as the *_update functions. */
static uint64_t crc_bitwise(uint64_t crc, const unsigned char *b, size_t n, uint64_t poly, int w)
{
    uint64_t mask = w == 64 ? ~0ull : ((uint64_t)1 << w) - 1;
    int k;

    crc = ~crc & mask;
    while (n--) {
        crc ^= *b++;
        for (k = 0; k < 8; k++)
            crc = (crc & 1) ? (crc >> 1) ^ poly : crc >> 1;
    }
    return ~crc & mask;
}

static unsigned kernel_rnd(unsigned *seed)
{
    *seed = *seed * 1103515245u + 12345u;
    return *seed >> 8;
}

/* Random buffers, misaligned starts, random starting values, each cut at a
 * random point and fed in two pieces: every kernel of this CPU against the
 * bitwise reference. Lengths short (the kernels' heads and tails) and long
 * (their 32-, 128- and 16-byte loops). */
static void crc_kernel_against_bitwise(void)
{
    static unsigned char data[9000];
    unsigned seed = 777u + (unsigned)crc_kernel();
    size_t i;
    int t;

    for (i = 0; i < sizeof(data); i++)
        data[i] = (unsigned char)kernel_rnd(&seed);
    for (t = 0; t < 400; t++) {
        size_t off = kernel_rnd(&seed) % 16;
        size_t n = t < 200 ? (size_t)t : kernel_rnd(&seed) % (sizeof(data) - 16);
        size_t cut = n ? kernel_rnd(&seed) % (n + 1) : 0;
        const unsigned char *b = data + off;
        uint32_t s32 = kernel_rnd(&seed) * 2654435761u;
        uint64_t s64 = (uint64_t)kernel_rnd(&seed) << 40 ^ kernel_rnd(&seed);
        uint32_t a32 = crc_crc32_update(crc_crc32_update(s32, b, cut), b + cut, n - cut);
        uint32_t c32 = crc_crc32c_update(crc_crc32c_update(s32, b, cut), b + cut, n - cut);
        uint64_t g64 = crc_crc64nvme_update(crc_crc64nvme_update(s64, b, cut), b + cut, n - cut);

        if (a32 != crc_bitwise(s32, b, n, 0xEDB88320u, 32) || c32 != crc_bitwise(s32, b, n, 0x82F63B78u, 32) ||
            g64 != crc_bitwise(s64, b, n, 0x9A6C9329AC4BC9B5ull, 64)) {
            CHECK(!"a kernel differs from the bitwise CRC");
            fprintf(stderr, "  kernel %s, length %zu cut at %zu, offset %zu\n", crc_kernel_name(crc_kernel()), n,
                    cut, off);
            return;
        }
    }
}

TEST(crc_each_kernel_equals_bitwise)
{
    enum crc_kernel best = crc_kernel(), k;

    for (k = CRC_KERNEL_TABLE; k <= best; k++) {
        CHECK(crc_kernel_set(k));
        CHECK(crc_kernel() == k);
        crc_kernel_against_bitwise();
    }
    CHECK(crc_kernel_set(best));
    CHECK(!crc_kernel_set(best + 1) || best == CRC_KERNEL_FOLD);
    CHECK(crc_kernel() == best);
}
