/*
 * md5: MD5 (RFC 1321) with its state in the open, so a digest can be carried
 * from one thread to another and from one lane of the multi-buffer kernel to
 * another. One stream at a time (md5_update), or eight or sixteen streams of
 * whole blocks at once (md5_x8_blocks, md5_x16_blocks: AVX2, or AVX-512VL
 * where the CPU has it, on x86-64; AdvSIMD (NEON) on aarch64). Pure; no allocation. The engine's MD5s run on its hash workers (xfer/hashpool.h);
 * OpenSSL's (base/hash.h) stays for one-shot digests.
 */
#ifndef S3C_BASE_MD5_H
#define S3C_BASE_MD5_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MD5_BLOCK 64

struct md5 {
    uint32_t h[4];                  /* the chaining value */
    uint64_t bytes;                 /* fed so far */
    unsigned char tail[MD5_BLOCK];  /* the last bytes short of a block */
};

void md5_init(struct md5 *m);
void md5_update(struct md5 *m, const void *p, size_t n);
/* The digest of all that was fed; 'm' is left as after md5_init. */
void md5_final(struct md5 *m, unsigned char out[16]);

/* 'n' whole blocks into one chaining value (the scalar kernel). */
void md5_blocks(uint32_t h[4], const unsigned char *p, size_t n);

/* The lane kernels' instructions: AVX2, or AVX-512VL's ternary logic and
 * rotation on the same eight-lane vectors (half the instructions a step). */
enum md5_kernel {
    MD5_KERNEL_SCALAR,
    MD5_KERNEL_AVX2,                /* x86-64 */
    MD5_KERNEL_AVX512,              /* x86-64 */
    MD5_KERNEL_NEON = MD5_KERNEL_AVX2, /* aarch64: the lane kernel's level there */
};

/* The kernel md5_x8_blocks and md5_x16_blocks use: the best this CPU runs
 * (asked once), unless md5_kernel_set chose a lesser one. */
enum md5_kernel md5_kernel(void);
/* Use 'k' from now on (the tests, to check each kernel a CPU runs); false,
 * nothing changed, when the CPU cannot run it. Not while lanes hash. */
bool md5_kernel_set(enum md5_kernel k);
/* "scalar", "avx2", "avx512vl", "neon": for `s3c version`. */
const char *md5_kernel_name(enum md5_kernel k);

/* Whether md5_x8_blocks runs here (AVX2 at least). */
bool md5_x8_available(void);

/*
 * 'n' whole blocks of each of eight streams at once: lane i advances h[i]
 * over p[i]. Every p[i] must have n * 64 readable bytes (point an idle lane
 * at any such buffer and ignore its h). Only when md5_x8_available().
 */
void md5_x8_blocks(uint32_t h[8][4], const unsigned char *const p[8], size_t n);

/* The same for sixteen streams, two groups of eight interleaved (an MD5 step
 * waits on the last: the second group fills the vector units the first
 * leaves idle). Only when md5_x8_available(). */
void md5_x16_blocks(uint32_t h[16][4], const unsigned char *const p[16], size_t n);

#endif
