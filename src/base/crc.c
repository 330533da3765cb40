#include "base/crc.h"

#include <isa-l/crc.h>
#include <pthread.h>

#include "base/hash.h"

uint32_t crc_crc32_update(uint32_t crc, const void *p, size_t n)
{
    /* crc32_gzip_refl inverts on entry and exit itself, as zlib does. */
    return crc32_gzip_refl(crc, p, n);
}

uint32_t crc_crc32c_update(uint32_t crc, const void *p, size_t n)
{
    const unsigned char *b = p;

    /* crc32_iscsi neither inverts nor takes more than INT_MAX bytes. */
    crc = ~crc;
    while (n) {
        size_t step = n > (1u << 30) ? (1u << 30) : n;

        crc = crc32_iscsi((unsigned char *)b, (int)step, crc);
        b += step;
        n -= step;
    }
    return ~crc;
}

/* Reflected polynomial of CRC-64/NVME (normal form 0xAD93D23594C93659). */
#define CRC64NVME_POLY 0x9A6C9329AC4BC9B5ull

static uint64_t crc64_table[8][256];
static pthread_once_t crc64_once = PTHREAD_ONCE_INIT;

static void crc64_build(void)
{
    int i, j, k;

    for (i = 0; i < 256; i++) {
        uint64_t c = (uint64_t)i;

        for (j = 0; j < 8; j++)
            c = (c & 1) ? (c >> 1) ^ CRC64NVME_POLY : c >> 1;
        crc64_table[0][i] = c;
    }
    for (i = 0; i < 256; i++)
        for (k = 1; k < 8; k++)
            crc64_table[k][i] = (crc64_table[k - 1][i] >> 8) ^
                                crc64_table[0][crc64_table[k - 1][i] & 0xff];
}

uint64_t crc_crc64nvme_update(uint64_t crc, const void *p, size_t n)
{
    const unsigned char *b = p;

    pthread_once(&crc64_once, crc64_build);
    crc = ~crc;
    while (n >= 8) {
        uint64_t w = (uint64_t)b[0] | (uint64_t)b[1] << 8 | (uint64_t)b[2] << 16 |
                     (uint64_t)b[3] << 24 | (uint64_t)b[4] << 32 | (uint64_t)b[5] << 40 |
                     (uint64_t)b[6] << 48 | (uint64_t)b[7] << 56;

        w ^= crc;
        crc = crc64_table[7][w & 0xff] ^ crc64_table[6][(w >> 8) & 0xff] ^
              crc64_table[5][(w >> 16) & 0xff] ^ crc64_table[4][(w >> 24) & 0xff] ^
              crc64_table[3][(w >> 32) & 0xff] ^ crc64_table[2][(w >> 40) & 0xff] ^
              crc64_table[1][(w >> 48) & 0xff] ^ crc64_table[0][w >> 56];
        b += 8;
        n -= 8;
    }
    while (n--)
        crc = (crc >> 8) ^ crc64_table[0][(crc ^ *b++) & 0xff];
    return ~crc;
}

/*
 * Combining, for reflected CRCs of width 'w' whose initial value and final
 * xor are all ones (CRC32, CRC32C, CRC64NVME): crc(A||B) is crc(A) times
 * x^(8*len(B)) modulo the polynomial, plus crc(B). The conditioning cancels
 * out, so finished values combine directly (zlib's multmodp/x2nmodp).
 * Polynomials are bit-reversed: the top bit of a word is x^0.
 */
static uint64_t gf_mulmod(uint64_t a, uint64_t b, uint64_t poly, int w)
{
    uint64_t m = (uint64_t)1 << (w - 1), p = 0;

    while (a) {
        if (a & m) {
            p ^= b;
            a ^= m;
        }
        m >>= 1;
        b = (b & 1) ? (b >> 1) ^ poly : b >> 1;
    }
    return p;
}

static uint64_t crc_combine(uint64_t a, uint64_t b, uint64_t len_b, uint64_t poly, int w)
{
    uint64_t shift = (uint64_t)1 << (w - 1);           /* x^0 */
    uint64_t sq = (uint64_t)1 << (w - 1 - 8);          /* x^8: one byte */

    /* x^(8*len_b) by squaring: sq runs through x^(8*2^k). */
    for (; len_b; len_b >>= 1) {
        if (len_b & 1)
            shift = gf_mulmod(sq, shift, poly, w);
        sq = gf_mulmod(sq, sq, poly, w);
    }
    return gf_mulmod(shift, a, poly, w) ^ b;
}

uint32_t crc_crc32_combine(uint32_t crc_a, uint32_t crc_b, uint64_t len_b)
{
    return (uint32_t)crc_combine(crc_a, crc_b, len_b, 0xEDB88320u, 32);
}

uint32_t crc_crc32c_combine(uint32_t crc_a, uint32_t crc_b, uint64_t len_b)
{
    return (uint32_t)crc_combine(crc_a, crc_b, len_b, 0x82F63B78u, 32);
}

uint64_t crc_crc64nvme_combine(uint64_t crc_a, uint64_t crc_b, uint64_t len_b)
{
    return crc_combine(crc_a, crc_b, len_b, CRC64NVME_POLY, 64);
}

enum s3c_err crc_b64_32(uint32_t crc, struct buf *out)
{
    unsigned char be[4] = { crc >> 24, crc >> 16, crc >> 8, crc };

    return base64_encode(be, sizeof(be), out);
}

enum s3c_err crc_b64_64(uint64_t crc, struct buf *out)
{
    unsigned char be[8];
    int i;

    for (i = 0; i < 8; i++)
        be[i] = (unsigned char)(crc >> (56 - 8 * i));
    return base64_encode(be, sizeof(be), out);
}
