#include "base/crc.h"

#include <pthread.h>
#include <stdbool.h>
#include <string.h>

#include "base/hash.h"

#if defined(__x86_64__)
#include <isa-l/crc.h>
#elif defined(__aarch64__)
#include <arm_acle.h>
#include <arm_neon.h>
#include <sys/auxv.h>
#endif

/* Reflected polynomials of CRC-32 (IEEE) and CRC-32C (Castagnoli). */
#define CRC32_POLY 0xEDB88320u
#define CRC32C_POLY 0x82F63B78u

/* Slice-by-8 tables of a reflected CRC 't' (uint32_t or uint64_t [8][256]):
 * t[0] a byte at a time, t[k] the same byte k bytes further back. */
#define SLICE8_BUILD(t, poly)                                                   \
    do {                                                                        \
        int i_, j_, k_;                                                         \
                                                                                \
        for (i_ = 0; i_ < 256; i_++) {                                          \
            __typeof__(t[0][0]) c_ = (__typeof__(t[0][0]))i_;                   \
                                                                                \
            for (j_ = 0; j_ < 8; j_++)                                          \
                c_ = (c_ & 1) ? (c_ >> 1) ^ (poly) : c_ >> 1;                   \
            t[0][i_] = c_;                                                      \
        }                                                                       \
        for (i_ = 0; i_ < 256; i_++)                                            \
            for (k_ = 1; k_ < 8; k_++)                                          \
                t[k_][i_] = (t[k_ - 1][i_] >> 8) ^ t[0][t[k_ - 1][i_] & 0xff];  \
    } while (0)

/* The kernels in use (crc_kernel_set), and the best this CPU runs. */
static pthread_once_t crc_once = PTHREAD_ONCE_INIT;
static enum crc_kernel kernel_best, kernel_used;

static void crc_init(void);

#if !defined(__x86_64__)
/* Slice-by-8 tables of the two 32-bit CRCs, for CPUs without the CRC
 * instructions (and the tests' reference on those that have them). */
static uint32_t crc32_table[8][256], crc32c_table[8][256];


/* Raw register in and out (no inversion). */
static uint32_t crc32_table_raw(const uint32_t t[8][256], uint32_t crc, const unsigned char *b, size_t n)
{
    while (n >= 8) {
        uint32_t lo = crc ^ ((uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24);
        uint32_t hi = (uint32_t)b[4] | (uint32_t)b[5] << 8 | (uint32_t)b[6] << 16 | (uint32_t)b[7] << 24;

        crc = t[7][lo & 0xff] ^ t[6][(lo >> 8) & 0xff] ^ t[5][(lo >> 16) & 0xff] ^ t[4][lo >> 24] ^
              t[3][hi & 0xff] ^ t[2][(hi >> 8) & 0xff] ^ t[1][(hi >> 16) & 0xff] ^ t[0][hi >> 24];
        b += 8;
        n -= 8;
    }
    while (n--)
        crc = (crc >> 8) ^ t[0][(crc ^ *b++) & 0xff];
    return crc;
}
#endif

#if defined(__aarch64__)
/*
 * The ARMv8 CRC32 instructions (optional in v8.0, mandatory from v8.1: every
 * Graviton has them), 8 bytes an instruction. One chain of dependent
 * instructions, so about 8 bytes per 2-3 cycles (10 GB/s or so at
 * Graviton's clocks): well above what one connection brings in, so no
 * interleaved streams to combine. Raw register in and out.
 */
#define ARMV8_CRC(name, op64, op8)                                                             \
    __attribute__((target("+crc"))) static uint32_t name(uint32_t crc, const unsigned char *b, \
                                                          size_t n)                             \
    {                                                                                          \
        uint64_t w[4];                                                                         \
                                                                                               \
        for (; n && ((uintptr_t)b & 7); n--)                                                   \
            crc = op8(crc, *b++);                                                              \
        for (; n >= 32; n -= 32, b += 32) {                                                    \
            memcpy(w, b, 32);                                                                  \
            crc = op64(op64(op64(op64(crc, w[0]), w[1]), w[2]), w[3]);                         \
        }                                                                                      \
        for (; n >= 8; n -= 8, b += 8) {                                                       \
            memcpy(w, b, 8);                                                                   \
            crc = op64(crc, w[0]);                                                             \
        }                                                                                      \
        while (n--)                                                                            \
            crc = op8(crc, *b++);                                                              \
        return crc;                                                                            \
    }
ARMV8_CRC(crc32_armv8, __crc32d, __crc32b)
ARMV8_CRC(crc32c_armv8, __crc32cd, __crc32cb)
#undef ARMV8_CRC
#endif

uint32_t crc_crc32_update(uint32_t crc, const void *p, size_t n)
{
    pthread_once(&crc_once, crc_init);
#if defined(__x86_64__)
    /* crc32_gzip_refl inverts on entry and exit itself, as zlib does. */
    if (kernel_used == CRC_KERNEL_TABLE)
        return crc32_gzip_refl_base(crc, (uint8_t *)p, n);
    return crc32_gzip_refl(crc, p, n);
#else
#if defined(__aarch64__)
    if (kernel_used >= CRC_KERNEL_CRC32)
        return ~crc32_armv8(~crc, p, n);
#endif
    return ~crc32_table_raw(crc32_table, ~crc, p, n);
#endif
}

uint32_t crc_crc32c_update(uint32_t crc, const void *p, size_t n)
{
    pthread_once(&crc_once, crc_init);
#if defined(__x86_64__)
    const unsigned char *b = p;

    /* crc32_iscsi neither inverts nor takes more than INT_MAX bytes. */
    crc = ~crc;
    while (n) {
        size_t step = n > (1u << 30) ? (1u << 30) : n;

        if (kernel_used == CRC_KERNEL_TABLE)
            crc = crc32_iscsi_base((unsigned char *)b, (int)step, crc);
        else
            crc = crc32_iscsi((unsigned char *)b, (int)step, crc);
        b += step;
        n -= step;
    }
    return ~crc;
#else
#if defined(__aarch64__)
    if (kernel_used >= CRC_KERNEL_CRC32)
        return ~crc32c_armv8(~crc, p, n);
#endif
    return ~crc32_table_raw(crc32c_table, ~crc, p, n);
#endif
}

/* Reflected polynomial of CRC-64/NVME (normal form 0xAD93D23594C93659). */
#define CRC64NVME_POLY 0x9A6C9329AC4BC9B5ull

static uint64_t crc64_table[8][256];

static void crc64_build(void)
{
    SLICE8_BUILD(crc64_table, CRC64NVME_POLY);
}

/* The table implementation: any CPU, and the folded one's last bytes. Takes
 * and returns the raw register (no inversion). */
static uint64_t crc64_table_raw(uint64_t crc, const unsigned char *b, size_t n)
{
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
    return crc;
}

/* x^m mod P, reflected as a loaded qword is: bit 63 is x^0, bit 0 x^63. */
static uint64_t crc64_xpow(unsigned m)
{
    uint64_t v = (uint64_t)1 << 63;

    while (m--)
        v = (v & 1) ? (v >> 1) ^ CRC64NVME_POLY : v >> 1;
    return v;
}

/*
 * Folding with carry-less multiplication (Intel, "Fast CRC Computation for
 * Generic Polynomials Using PCLMULQDQ"), 8 blocks of 16 bytes at a time:
 * about 20 times the table's speed. In the reflected order a 16-byte block
 * loaded little-endian holds x^127 in bit 0; a block A followed D bits later
 * by B contributes A*x^D + B, and A*x^D mod P is two 64x64 products with
 * constants x^(D+63) and x^(D-1) mod P (one less than D+64 and D because a
 * reflected carry-less product comes out multiplied by x). What is left, 16
 * bytes, goes through the table: no Barrett constants to get wrong.
 * The same on x86-64 (PCLMULQDQ) and aarch64 (PMULL, PMULL2): the constants
 * are {lo, hi} = {x^(D+63), x^(D-1)}, for D = 1024 (8 blocks) and 128 (1).
 */
static uint64_t crc64_k1024[2], crc64_k128[2];

static void crc64_fold_build(void)
{
    crc64_k1024[0] = crc64_xpow(1024 + 63);
    crc64_k1024[1] = crc64_xpow(1024 - 1);
    crc64_k128[0] = crc64_xpow(128 + 63);
    crc64_k128[1] = crc64_xpow(128 - 1);
}

#if defined(__x86_64__)
#include <immintrin.h>

#define FOLD_TARGET __attribute__((target("pclmul,sse4.1")))
#define V128 __m128i
#define V_LOAD(p) _mm_loadu_si128((const __m128i *)(p))
#define V_STORE(p, x) _mm_storeu_si128((__m128i *)(p), x)
#define V_K(k) _mm_set_epi64x((long long)(k)[1], (long long)(k)[0])
#define V_XOR_LO(x, v) _mm_xor_si128(x, _mm_set_epi64x(0, (long long)(v)))

FOLD_TARGET static inline __m128i crc64_fold(__m128i a, __m128i k, __m128i b)
{
    return _mm_xor_si128(_mm_xor_si128(_mm_clmulepi64_si128(a, k, 0x00), _mm_clmulepi64_si128(a, k, 0x11)), b);
}
#elif defined(__aarch64__)
/* PMULL and PMULL2 are in the "crypto" extension's AES half (HWCAP_PMULL). */
#define FOLD_TARGET __attribute__((target("+crypto")))
#define V128 uint64x2_t
#define V_LOAD(p) vreinterpretq_u64_u8(vld1q_u8(p))
#define V_STORE(p, x) vst1q_u8(p, vreinterpretq_u8_u64(x))
#define V_K(k) vld1q_u64(k)
#define V_XOR_LO(x, v) veorq_u64(x, vsetq_lane_u64(v, vdupq_n_u64(0), 0))

FOLD_TARGET static inline uint64x2_t crc64_fold(uint64x2_t a, uint64x2_t k, uint64x2_t b)
{
    poly128_t lo = vmull_p64((poly64_t)vgetq_lane_u64(a, 0), (poly64_t)vgetq_lane_u64(k, 0));
    poly128_t hi = vmull_high_p64(vreinterpretq_p64_u64(a), vreinterpretq_p64_u64(k));

    return veorq_u64(veorq_u64(vreinterpretq_u64_p128(lo), vreinterpretq_u64_p128(hi)), b);
}
#endif

#if defined(FOLD_TARGET)
/* Raw register in and out, n >= 128. */
FOLD_TARGET static uint64_t crc64_fold_raw(uint64_t crc, const unsigned char *b, size_t n)
{
    V128 x[8], k = V_K(crc64_k1024);
    unsigned char rest[16];
    int i;

    for (i = 0; i < 8; i++)
        x[i] = V_LOAD(b + 16 * i);
    x[0] = V_XOR_LO(x[0], crc);
    b += 128;
    n -= 128;
    while (n >= 128) {
        for (i = 0; i < 8; i++)
            x[i] = crc64_fold(x[i], k, V_LOAD(b + 16 * i));
        b += 128;
        n -= 128;
    }
    k = V_K(crc64_k128);
    for (i = 1; i < 8; i++)
        x[0] = crc64_fold(x[0], k, x[i]);
    while (n >= 16) {
        x[0] = crc64_fold(x[0], k, V_LOAD(b));
        b += 16;
        n -= 16;
    }
    V_STORE(rest, x[0]);
    return crc64_table_raw(crc64_table_raw(0, rest, 16), b, n);
}
#endif

/* What the CPU runs, asked once; every kernel's tables and constants. */
static void crc_init(void)
{
    crc64_build();
    crc64_fold_build();
#if defined(__x86_64__)
    __builtin_cpu_init();
    kernel_best = __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse4.1") ? CRC_KERNEL_FOLD
                                                                                       : CRC_KERNEL_CRC32;
#else
    SLICE8_BUILD(crc32_table, CRC32_POLY);
    SLICE8_BUILD(crc32c_table, CRC32C_POLY);
    kernel_best = CRC_KERNEL_TABLE;
#if defined(__aarch64__)
    {
        unsigned long hw = getauxval(AT_HWCAP);

        if (hw & HWCAP_CRC32)
            kernel_best = hw & HWCAP_PMULL ? CRC_KERNEL_FOLD : CRC_KERNEL_CRC32;
    }
#endif
#endif
    kernel_used = kernel_best;
}

enum crc_kernel crc_kernel(void)
{
    pthread_once(&crc_once, crc_init);
    return kernel_used;
}

const char *crc_kernel_name(enum crc_kernel k)
{
#if defined(__x86_64__)
    static const char *const names[] = { "table", "isa-l", "isa-l+pclmul" };
#elif defined(__aarch64__)
    static const char *const names[] = { "table", "armv8-crc32", "armv8-crc32+pmull" };
#else
    static const char *const names[] = { "table", "table", "table" };
#endif

    return names[k];
}

bool crc_kernel_set(enum crc_kernel k)
{
    pthread_once(&crc_once, crc_init);
    if (k > kernel_best)
        return false;
    kernel_used = k;
    return true;
}

uint64_t crc_crc64nvme_update(uint64_t crc, const void *p, size_t n)
{
    pthread_once(&crc_once, crc_init);
#if defined(FOLD_TARGET)
    if (kernel_used >= CRC_KERNEL_FOLD && n >= 128)
        return ~crc64_fold_raw(~crc, p, n);
#endif
    return ~crc64_table_raw(~crc, p, n);
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
