/* md5.c — MD5 with an open state, scalar and lanes of AVX2 or AVX-512VL (see md5.h). */
#include "base/md5.h"

#include <pthread.h>
#include <string.h>

#include "base/lag.h"

/* Per step: the shift, and the index of the message word (RFC 1321, 3.4). */
static const uint8_t md5_s[64] = {
    7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22,
    5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20,
    4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23,
    6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21,
};

/* T[i] = floor(2^32 * abs(sin(i + 1))). */
static const uint32_t md5_t[64] = {
    0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf, 0x4787c62a, 0xa8304613, 0xfd469501,
    0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be, 0x6b901122, 0xfd987193, 0xa679438e, 0x49b40821,
    0xf61e2562, 0xc040b340, 0x265e5a51, 0xe9b6c7aa, 0xd62f105d, 0x02441453, 0xd8a1e681, 0xe7d3fbc8,
    0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed, 0xa9e3e905, 0xfcefa3f8, 0x676f02d9, 0x8d2a4c8a,
    0xfffa3942, 0x8771f681, 0x6d9d6122, 0xfde5380c, 0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70,
    0x289b7ec6, 0xeaa127fa, 0xd4ef3085, 0x04881d05, 0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665,
    0xf4292244, 0x432aff97, 0xab9423a7, 0xfc93a039, 0x655b59c3, 0x8f0ccc92, 0xffeff47d, 0x85845dd1,
    0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1, 0xf7537e82, 0xbd3af235, 0x2ad7d2bb, 0xeb86d391,
};

static const uint8_t md5_g[64] = {
    0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
    1, 6, 11, 0, 5, 10, 15, 4, 9, 14, 3, 8, 13, 2, 7, 12,
    5, 8, 11, 14, 1, 4, 7, 10, 13, 0, 3, 6, 9, 12, 15, 2,
    0, 7, 14, 5, 12, 3, 10, 1, 8, 15, 6, 13, 4, 11, 2, 9,
};

static inline uint32_t rol(uint32_t x, int s)
{
    return x << s | x >> (32 - s);
}

static inline uint32_t le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

#define MD5_STEP(f, a, b, c, d, i)                                                  \
    do {                                                                            \
        a += f(b, c, d) + w[md5_g[i]] + md5_t[i];                                   \
        a = b + rol(a, md5_s[i]);                                                   \
    } while (0)
#define F1(x, y, z) ((z) ^ ((x) & ((y) ^ (z))))
#define F2(x, y, z) ((y) ^ ((z) & ((x) ^ (y))))
#define F3(x, y, z) ((x) ^ (y) ^ (z))
#define F4(x, y, z) ((y) ^ ((x) | ~(z)))

void md5_blocks(uint32_t h[4], const unsigned char *p, size_t n)
{
    uint32_t w[16];
    int i;

    for (; n; n--, p += MD5_BLOCK) {
        uint32_t a = h[0], b = h[1], c = h[2], d = h[3];

#pragma GCC unroll 16
        for (i = 0; i < 16; i++)
            w[i] = le32(p + 4 * i);
#pragma GCC unroll 4
        for (i = 0; i < 16; i += 4) {
            MD5_STEP(F1, a, b, c, d, i);
            MD5_STEP(F1, d, a, b, c, i + 1);
            MD5_STEP(F1, c, d, a, b, i + 2);
            MD5_STEP(F1, b, c, d, a, i + 3);
        }
#pragma GCC unroll 4
        for (; i < 32; i += 4) {
            MD5_STEP(F2, a, b, c, d, i);
            MD5_STEP(F2, d, a, b, c, i + 1);
            MD5_STEP(F2, c, d, a, b, i + 2);
            MD5_STEP(F2, b, c, d, a, i + 3);
        }
#pragma GCC unroll 4
        for (; i < 48; i += 4) {
            MD5_STEP(F3, a, b, c, d, i);
            MD5_STEP(F3, d, a, b, c, i + 1);
            MD5_STEP(F3, c, d, a, b, i + 2);
            MD5_STEP(F3, b, c, d, a, i + 3);
        }
#pragma GCC unroll 4
        for (; i < 64; i += 4) {
            MD5_STEP(F4, a, b, c, d, i);
            MD5_STEP(F4, d, a, b, c, i + 1);
            MD5_STEP(F4, c, d, a, b, i + 2);
            MD5_STEP(F4, b, c, d, a, i + 3);
        }
        h[0] += a;
        h[1] += b;
        h[2] += c;
        h[3] += d;
    }
}

void md5_init(struct md5 *m)
{
    m->h[0] = 0x67452301;
    m->h[1] = 0xefcdab89;
    m->h[2] = 0x98badcfe;
    m->h[3] = 0x10325476;
    m->bytes = 0;
}

void md5_update(struct md5 *m, const void *data, size_t n)
{
    const unsigned char *p = data;
    size_t have = (size_t)(m->bytes % MD5_BLOCK), k;

    lag_hashed("MD5", n);
    m->bytes += n;
    if (have) {
        k = MD5_BLOCK - have < n ? MD5_BLOCK - have : n;
        memcpy(m->tail + have, p, k);
        p += k;
        n -= k;
        if (have + k < MD5_BLOCK)
            return;
        md5_blocks(m->h, m->tail, 1);
    }
    md5_blocks(m->h, p, n / MD5_BLOCK);
    p += n - n % MD5_BLOCK;
    memcpy(m->tail, p, n % MD5_BLOCK);
}

void md5_final(struct md5 *m, unsigned char out[16])
{
    unsigned char pad[2 * MD5_BLOCK] = { 0 };
    size_t have = (size_t)(m->bytes % MD5_BLOCK), len = have < 56 ? MD5_BLOCK : 2 * MD5_BLOCK;
    uint64_t bits = m->bytes * 8;
    int i;

    memcpy(pad, m->tail, have);
    pad[have] = 0x80;
    for (i = 0; i < 8; i++)
        pad[len - 8 + i] = (unsigned char)(bits >> (8 * i));
    md5_blocks(m->h, pad, len / MD5_BLOCK);
    for (i = 0; i < 16; i++)
        out[i] = (unsigned char)(m->h[i / 4] >> (8 * (i % 4)));
    md5_init(m);
}

const char *md5_kernel_name(enum md5_kernel k)
{
#if defined(__aarch64__)
    static const char *const names[] = { "scalar", "neon" };
#else
    static const char *const names[] = { "scalar", "avx2", "avx512vl" };
#endif

    return names[k];
}

/* ---- eight lanes of AVX2 --------------------------------------------------------
 *
 * The multi-buffer technique of ISA-L's md5_mb and minio's md5-simd: MD5 is
 * one long chain of dependent steps, so one stream leaves most of a core
 * idle; eight streams in the eight 32-bit lanes of a vector run the same
 * steps side by side for about the price of one. Blocks are transposed so
 * that vector j holds word j of every lane's block.
 */
#if defined(__x86_64__) || defined(__aarch64__)
static pthread_once_t kernel_once = PTHREAD_ONCE_INIT;
static enum md5_kernel kernel_best, kernel_used;
static void kernel_detect(void);

enum md5_kernel md5_kernel(void)
{
    pthread_once(&kernel_once, kernel_detect);
    return kernel_used;
}

bool md5_kernel_set(enum md5_kernel k)
{
    pthread_once(&kernel_once, kernel_detect);
    if (k > kernel_best)
        return false;
    kernel_used = k;
    return true;
}

bool md5_x8_available(void)
{
    return md5_kernel() != MD5_KERNEL_SCALAR;
}
#endif

/* Four steps of one round, from step i, the state turning as the standard's. */
#define V_QUAD(STEP, F)                                                                       \
    do {                                                                                      \
        STEP(F, a, b, c, d, i);                                                               \
        STEP(F, d, a, b, c, i + 1);                                                           \
        STEP(F, c, d, a, b, i + 2);                                                           \
        STEP(F, b, c, d, a, i + 3);                                                           \
    } while (0)

/* The 64 steps of one block, by STEP (one group of lanes, or two side by
 * side) with the round functions F1..F4. */
#define V_ROUNDS(STEP, F1, F2, F3, F4)                                                        \
    do {                                                                                      \
        _Pragma("GCC unroll 4") for (i = 0; i < 16; i += 4) V_QUAD(STEP, F1);                 \
        _Pragma("GCC unroll 4") for (; i < 32; i += 4) V_QUAD(STEP, F2);                      \
        _Pragma("GCC unroll 4") for (; i < 48; i += 4) V_QUAD(STEP, F3);                      \
        _Pragma("GCC unroll 4") for (; i < 64; i += 4) V_QUAD(STEP, F4);                      \
    } while (0)

#if defined(__x86_64__)
#include <immintrin.h>

static void kernel_detect(void)
{
    __builtin_cpu_init();
    kernel_best = !__builtin_cpu_supports("avx2")          ? MD5_KERNEL_SCALAR
                  : __builtin_cpu_supports("avx512f") &&
                            __builtin_cpu_supports("avx512vl") ? MD5_KERNEL_AVX512
                                                               : MD5_KERNEL_AVX2;
    kernel_used = kernel_best;
}

#define X8 __attribute__((target("avx2"))) static inline

X8 __m256i x8_rol(__m256i x, int s)
{
    return _mm256_or_si256(_mm256_slli_epi32(x, s), _mm256_srli_epi32(x, 32 - s));
}

/* Rows r[0..7] (8 words of one lane each) into columns (word j of every lane). */
X8 void x8_transpose(__m256i r[8])
{
    __m256i t0 = _mm256_unpacklo_epi32(r[0], r[1]), t1 = _mm256_unpackhi_epi32(r[0], r[1]);
    __m256i t2 = _mm256_unpacklo_epi32(r[2], r[3]), t3 = _mm256_unpackhi_epi32(r[2], r[3]);
    __m256i t4 = _mm256_unpacklo_epi32(r[4], r[5]), t5 = _mm256_unpackhi_epi32(r[4], r[5]);
    __m256i t6 = _mm256_unpacklo_epi32(r[6], r[7]), t7 = _mm256_unpackhi_epi32(r[6], r[7]);
    __m256i u0 = _mm256_unpacklo_epi64(t0, t2), u1 = _mm256_unpackhi_epi64(t0, t2);
    __m256i u2 = _mm256_unpacklo_epi64(t1, t3), u3 = _mm256_unpackhi_epi64(t1, t3);
    __m256i u4 = _mm256_unpacklo_epi64(t4, t6), u5 = _mm256_unpackhi_epi64(t4, t6);
    __m256i u6 = _mm256_unpacklo_epi64(t5, t7), u7 = _mm256_unpackhi_epi64(t5, t7);

    r[0] = _mm256_permute2x128_si256(u0, u4, 0x20);
    r[1] = _mm256_permute2x128_si256(u1, u5, 0x20);
    r[2] = _mm256_permute2x128_si256(u2, u6, 0x20);
    r[3] = _mm256_permute2x128_si256(u3, u7, 0x20);
    r[4] = _mm256_permute2x128_si256(u0, u4, 0x31);
    r[5] = _mm256_permute2x128_si256(u1, u5, 0x31);
    r[6] = _mm256_permute2x128_si256(u2, u6, 0x31);
    r[7] = _mm256_permute2x128_si256(u3, u7, 0x31);
}

/* The four round functions and the rotation, in AVX2: three instructions each. */
#define V_F1(x, y, z) _mm256_xor_si256(z, _mm256_and_si256(x, _mm256_xor_si256(y, z)))
#define V_F2(x, y, z) _mm256_xor_si256(y, _mm256_and_si256(z, _mm256_xor_si256(x, y)))
#define V_F3(x, y, z) _mm256_xor_si256(_mm256_xor_si256(x, y), z)
/* y ^ (x | ~z) = ~(y ^ (~x & z)) */
#define V_F4(x, y, z) _mm256_xor_si256(_mm256_xor_si256(y, _mm256_andnot_si256(x, z)), ones)
#define V_ROL(x, s) x8_rol(x, s)

/* The same in AVX-512VL on the same eight-lane vectors, one instruction each:
 * a ternary-logic function of the three words (its immediate is the truth
 * table, bit x*4 + y*2 + z) and a rotation by a vector of counts
 * (vprolvd; the count stays a register, so it compiles at any -O). Half the
 * instructions of a step, the same lanes: no 512-bit vectors, so no change
 * of clock on CPUs that slow down for them. */
#define Z_F1(x, y, z) _mm256_ternarylogic_epi32(x, y, z, 0xca) /* x ? y : z */
#define Z_F2(x, y, z) _mm256_ternarylogic_epi32(x, y, z, 0xe4) /* z ? x : y */
#define Z_F3(x, y, z) _mm256_ternarylogic_epi32(x, y, z, 0x96) /* x ^ y ^ z */
#define Z_F4(x, y, z) _mm256_ternarylogic_epi32(x, y, z, 0x39) /* y ^ (x | ~z) */
#define Z_ROL(x, s) _mm256_rolv_epi32(x, _mm256_set1_epi32(s))

#define V_STEP(f, a, b, c, d, i)                                                              \
    do {                                                                                      \
        a = _mm256_add_epi32(_mm256_add_epi32(a, f(b, c, d)),                                 \
                             _mm256_add_epi32(w[md5_g[i]], _mm256_set1_epi32((int)md5_t[i]))); \
        a = _mm256_add_epi32(b, ROL(a, md5_s[i]));                                            \
    } while (0)

X8 void x8_load(const uint32_t h[8][4], __m256i *a, __m256i *b, __m256i *c, __m256i *d)
{
    *a = _mm256_setr_epi32((int)h[0][0], (int)h[1][0], (int)h[2][0], (int)h[3][0], (int)h[4][0], (int)h[5][0], (int)h[6][0], (int)h[7][0]);
    *b = _mm256_setr_epi32((int)h[0][1], (int)h[1][1], (int)h[2][1], (int)h[3][1], (int)h[4][1], (int)h[5][1], (int)h[6][1], (int)h[7][1]);
    *c = _mm256_setr_epi32((int)h[0][2], (int)h[1][2], (int)h[2][2], (int)h[3][2], (int)h[4][2], (int)h[5][2], (int)h[6][2], (int)h[7][2]);
    *d = _mm256_setr_epi32((int)h[0][3], (int)h[1][3], (int)h[2][3], (int)h[3][3], (int)h[4][3], (int)h[5][3], (int)h[6][3], (int)h[7][3]);
}

X8 void x8_store(uint32_t h[8][4], __m256i a, __m256i b, __m256i c, __m256i d)
{
    uint32_t va[8], vb[8], vc[8], vd[8];
    int i;

    _mm256_storeu_si256((__m256i *)va, a);
    _mm256_storeu_si256((__m256i *)vb, b);
    _mm256_storeu_si256((__m256i *)vc, c);
    _mm256_storeu_si256((__m256i *)vd, d);
    for (i = 0; i < 8; i++) {
        h[i][0] = va[i];
        h[i][1] = vb[i];
        h[i][2] = vc[i];
        h[i][3] = vd[i];
    }
}

/* Sixteen message words of each of eight lanes at 'off', as columns. */
X8 void x8_words(const unsigned char *const p[8], size_t off, __m256i w[16])
{
    int i;

    for (i = 0; i < 8; i++) {
        w[i] = _mm256_loadu_si256((const __m256i *)(p[i] + off));
        w[8 + i] = _mm256_loadu_si256((const __m256i *)(p[i] + off + 32));
    }
    x8_transpose(w);
    x8_transpose(w + 8);
}

/* Eight lanes (one group): the body of the kernel for each instruction set. */
#define X8_BODY(F1, F2, F3, F4)                                                               \
    const __m256i ones = _mm256_set1_epi32(-1);                                               \
    __m256i a, b, c, d, w[16];                                                                \
    size_t off;                                                                               \
    int i;                                                                                    \
                                                                                              \
    (void)ones;                                                                               \
    x8_load(h, &a, &b, &c, &d); /* the chaining values, lane per lane, as columns */          \
    for (off = 0; n; n--, off += MD5_BLOCK) {                                                 \
        __m256i a0 = a, b0 = b, c0 = c, d0 = d;                                               \
                                                                                              \
        x8_words(p, off, w);                                                                  \
        V_ROUNDS(V_STEP, F1, F2, F3, F4);                                                     \
        a = _mm256_add_epi32(a, a0);                                                          \
        b = _mm256_add_epi32(b, b0);                                                          \
        c = _mm256_add_epi32(c, c0);                                                          \
        d = _mm256_add_epi32(d, d0);                                                          \
    }                                                                                         \
    x8_store(h, a, b, c, d)

/* Two groups of eight lanes, step by step side by side: an MD5 step waits on
 * the one before it (about 6 cycles of latency for 10 instructions), so one
 * group leaves most of the vector units idle; a second, independent one
 * fills them. */
#define V_STEP2(f, a, b, c, d, i)                                                             \
    do {                                                                                      \
        __m256i k_ = _mm256_set1_epi32((int)md5_t[i]);                                        \
        a##0 = _mm256_add_epi32(_mm256_add_epi32(a##0, f(b##0, c##0, d##0)),                  \
                                _mm256_add_epi32(w[md5_g[i]], k_));                           \
        a##1 = _mm256_add_epi32(_mm256_add_epi32(a##1, f(b##1, c##1, d##1)),                  \
                                _mm256_add_epi32(v[md5_g[i]], k_));                           \
        a##0 = _mm256_add_epi32(b##0, ROL(a##0, md5_s[i]));                                   \
        a##1 = _mm256_add_epi32(b##1, ROL(a##1, md5_s[i]));                                   \
    } while (0)

#define X16_BODY(F1, F2, F3, F4)                                                              \
    const __m256i ones = _mm256_set1_epi32(-1);                                               \
    __m256i a0, b0, c0, d0, a1, b1, c1, d1, w[16], v[16];                                     \
    size_t off;                                                                               \
    int i;                                                                                    \
                                                                                              \
    (void)ones;                                                                               \
    x8_load(h, &a0, &b0, &c0, &d0);                                                           \
    x8_load(h + 8, &a1, &b1, &c1, &d1);                                                       \
    for (off = 0; n; n--, off += MD5_BLOCK) {                                                 \
        __m256i sa0 = a0, sb0 = b0, sc0 = c0, sd0 = d0, sa1 = a1, sb1 = b1, sc1 = c1,         \
                sd1 = d1;                                                                     \
                                                                                              \
        x8_words(p, off, w);                                                                  \
        x8_words(p + 8, off, v);                                                              \
        V_ROUNDS(V_STEP2, F1, F2, F3, F4);                                                    \
        a0 = _mm256_add_epi32(a0, sa0);                                                       \
        b0 = _mm256_add_epi32(b0, sb0);                                                       \
        c0 = _mm256_add_epi32(c0, sc0);                                                       \
        d0 = _mm256_add_epi32(d0, sd0);                                                       \
        a1 = _mm256_add_epi32(a1, sa1);                                                       \
        b1 = _mm256_add_epi32(b1, sb1);                                                       \
        c1 = _mm256_add_epi32(c1, sc1);                                                       \
        d1 = _mm256_add_epi32(d1, sd1);                                                       \
    }                                                                                         \
    x8_store(h, a0, b0, c0, d0);                                                              \
    x8_store(h + 8, a1, b1, c1, d1)

#define ROL V_ROL
__attribute__((target("avx2"))) static void x8_avx2(uint32_t h[8][4], const unsigned char *const p[8], size_t n)
{
    X8_BODY(V_F1, V_F2, V_F3, V_F4);
}

__attribute__((target("avx2"))) static void x16_avx2(uint32_t h[16][4], const unsigned char *const p[16], size_t n)
{
    X16_BODY(V_F1, V_F2, V_F3, V_F4);
}
#undef ROL

#define ROL Z_ROL
#define X512 __attribute__((target("avx2,avx512f,avx512vl")))
X512 static void x8_avx512(uint32_t h[8][4], const unsigned char *const p[8], size_t n)
{
    X8_BODY(Z_F1, Z_F2, Z_F3, Z_F4);
}

X512 static void x16_avx512(uint32_t h[16][4], const unsigned char *const p[16], size_t n)
{
    X16_BODY(Z_F1, Z_F2, Z_F3, Z_F4);
}
#undef ROL

void md5_x8_blocks(uint32_t h[8][4], const unsigned char *const p[8], size_t n)
{
    if (md5_kernel() == MD5_KERNEL_AVX512)
        x8_avx512(h, p, n);
    else
        x8_avx2(h, p, n);
}

void md5_x16_blocks(uint32_t h[16][4], const unsigned char *const p[16], size_t n)
{
    if (md5_kernel() == MD5_KERNEL_AVX512)
        x16_avx512(h, p, n);
    else
        x16_avx2(h, p, n);
}
#elif defined(__aarch64__)
/* ---- four lanes of NEON, two or four groups side by side ---------------------------
 *
 * The same technique in AdvSIMD's 128-bit vectors (every aarch64 CPU has
 * them): four lanes a vector, and two vectors stepped side by side so that
 * one's latency hides behind the other's work (a step is about seven
 * instructions, a chain of five). Sixteen lanes are two runs of eight: four
 * groups' state and words would not fit in the 32 registers.
 */
#include <arm_neon.h>
#include <sys/auxv.h>

static void kernel_detect(void)
{
    kernel_best = getauxval(AT_HWCAP) & HWCAP_ASIMD ? MD5_KERNEL_NEON : MD5_KERNEL_SCALAR;
    kernel_used = kernel_best;
}

#define N_F1(x, y, z) ((z) ^ ((x) & ((y) ^ (z))))
#define N_F2(x, y, z) ((y) ^ ((z) & ((x) ^ (y))))
#define N_F3(x, y, z) ((x) ^ (y) ^ (z))
#define N_F4(x, y, z) ((y) ^ ((x) | ~(z)))

static inline uint32x4_t n4_rol(uint32x4_t x, int s)
{
    return (x << s) | (x >> (32 - s));
}

/* Sixteen message words of four lanes at 'off', as columns: 4x4 transposes. */
static inline void n4_words(const unsigned char *const p[4], size_t off, uint32x4_t w[16])
{
    int q;

    for (q = 0; q < 4; q++) {
        uint32x4_t r0 = vreinterpretq_u32_u8(vld1q_u8(p[0] + off + 16 * q));
        uint32x4_t r1 = vreinterpretq_u32_u8(vld1q_u8(p[1] + off + 16 * q));
        uint32x4_t r2 = vreinterpretq_u32_u8(vld1q_u8(p[2] + off + 16 * q));
        uint32x4_t r3 = vreinterpretq_u32_u8(vld1q_u8(p[3] + off + 16 * q));
        uint64x2_t t0 = vreinterpretq_u64_u32(vtrn1q_u32(r0, r1)), t1 = vreinterpretq_u64_u32(vtrn2q_u32(r0, r1));
        uint64x2_t t2 = vreinterpretq_u64_u32(vtrn1q_u32(r2, r3)), t3 = vreinterpretq_u64_u32(vtrn2q_u32(r2, r3));

        w[4 * q + 0] = vreinterpretq_u32_u64(vtrn1q_u64(t0, t2));
        w[4 * q + 1] = vreinterpretq_u32_u64(vtrn1q_u64(t1, t3));
        w[4 * q + 2] = vreinterpretq_u32_u64(vtrn2q_u64(t0, t2));
        w[4 * q + 3] = vreinterpretq_u32_u64(vtrn2q_u64(t1, t3));
    }
}

#define N_STEP2(f, a, b, c, d, i)                                                             \
    do {                                                                                      \
        a##0 += f(b##0, c##0, d##0) + w[md5_g[i]] + md5_t[i];                                 \
        a##1 += f(b##1, c##1, d##1) + v[md5_g[i]] + md5_t[i];                                 \
        a##0 = b##0 + n4_rol(a##0, md5_s[i]);                                                 \
        a##1 = b##1 + n4_rol(a##1, md5_s[i]);                                                 \
    } while (0)

void md5_x8_blocks(uint32_t h[8][4], const unsigned char *const p[8], size_t n)
{
    uint32x4_t a0, b0, c0, d0, a1, b1, c1, d1, w[16], v[16];
    size_t off;
    int i;

    if (md5_kernel() == MD5_KERNEL_SCALAR) {
        for (i = 0; i < 8; i++)
            md5_blocks(h[i], p[i], n);
        return;
    }
    /* The chaining values, lane per lane, as columns. */
    a0 = (uint32x4_t){ h[0][0], h[1][0], h[2][0], h[3][0] };
    b0 = (uint32x4_t){ h[0][1], h[1][1], h[2][1], h[3][1] };
    c0 = (uint32x4_t){ h[0][2], h[1][2], h[2][2], h[3][2] };
    d0 = (uint32x4_t){ h[0][3], h[1][3], h[2][3], h[3][3] };
    a1 = (uint32x4_t){ h[4][0], h[5][0], h[6][0], h[7][0] };
    b1 = (uint32x4_t){ h[4][1], h[5][1], h[6][1], h[7][1] };
    c1 = (uint32x4_t){ h[4][2], h[5][2], h[6][2], h[7][2] };
    d1 = (uint32x4_t){ h[4][3], h[5][3], h[6][3], h[7][3] };
    for (off = 0; n; n--, off += MD5_BLOCK) {
        uint32x4_t sa0 = a0, sb0 = b0, sc0 = c0, sd0 = d0, sa1 = a1, sb1 = b1, sc1 = c1, sd1 = d1;

        n4_words(p, off, w);
        n4_words(p + 4, off, v);
        V_ROUNDS(N_STEP2, N_F1, N_F2, N_F3, N_F4);
        a0 += sa0;
        b0 += sb0;
        c0 += sc0;
        d0 += sd0;
        a1 += sa1;
        b1 += sb1;
        c1 += sc1;
        d1 += sd1;
    }
    for (i = 0; i < 4; i++) {
        h[i][0] = a0[i];
        h[i][1] = b0[i];
        h[i][2] = c0[i];
        h[i][3] = d0[i];
        h[4 + i][0] = a1[i];
        h[4 + i][1] = b1[i];
        h[4 + i][2] = c1[i];
        h[4 + i][3] = d1[i];
    }
}

void md5_x16_blocks(uint32_t h[16][4], const unsigned char *const p[16], size_t n)
{
    md5_x8_blocks(h, p, n);
    md5_x8_blocks(h + 8, p + 8, n);
}
#else
enum md5_kernel md5_kernel(void)
{
    return MD5_KERNEL_SCALAR;
}

bool md5_kernel_set(enum md5_kernel k)
{
    return k == MD5_KERNEL_SCALAR;
}

bool md5_x8_available(void)
{
    return false;
}

void md5_x8_blocks(uint32_t h[8][4], const unsigned char *const p[8], size_t n)
{
    int i;

    for (i = 0; i < 8; i++)
        md5_blocks(h[i], p[i], n);
}
void md5_x16_blocks(uint32_t h[16][4], const unsigned char *const p[16], size_t n)
{
    md5_x8_blocks(h, p, n);
    md5_x8_blocks(h + 8, p + 8, n);
}
#endif
