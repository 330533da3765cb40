/*
 * crc: the checksums S3 knows besides MD5 and SHA: CRC32 (IEEE, as zlib and
 * gzip), CRC32C (Castagnoli, as iSCSI) and CRC64NVME (as the NVMe spec).
 * On x86-64 CRC32 and CRC32C run on ISA-L at memory speed; on aarch64 on the
 * ARMv8 CRC32 instructions (Debian's libisal-dev is not Multi-Arch: same, so
 * a multiarch cross build cannot have it beside the native one, and s3c
 * links ISA-L on x86-64 only); elsewhere slice-by-8 tables. Debian's ISA-L
 * has no CRC64NVME, so that one is here: folded with PCLMULQDQ (x86-64, 14
 * GB/s on the dev machine) or PMULL (aarch64) where the CPU has it, else a
 * slice-by-8 table (1.5 GB/s).
 *
 * Every *_update takes and returns a *finished* value, as zlib's crc32()
 * does: start from 0, feed pieces in order, and the running value after any
 * piece is the CRC of everything so far. Pure and thread-safe (the CRC64
 * tables and constants are built once, race-free, on first use).
 */
#ifndef S3C_BASE_CRC_H
#define S3C_BASE_CRC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"

uint32_t crc_crc32_update(uint32_t crc, const void *p, size_t n);
uint32_t crc_crc32c_update(uint32_t crc, const void *p, size_t n);
uint64_t crc_crc64nvme_update(uint64_t crc, const void *p, size_t n);

/*
 * The kernels, in levels: each includes the ones before it. What each level
 * runs on this architecture is crc_kernel_name()'s.
 */
enum crc_kernel {
    CRC_KERNEL_TABLE,   /* tables (on x86-64 ISA-L's C reference for CRC32/CRC32C) */
    CRC_KERNEL_CRC32,   /* CRC32/CRC32C in hardware: ISA-L, or ARMv8's CRC32 instructions */
    CRC_KERNEL_FOLD,    /* and CRC64NVME folded by carry-less products: PCLMULQDQ, PMULL */
};

/* The kernels every *_update uses: the best this CPU runs (asked once,
 * from CPUID or getauxval(AT_HWCAP)), unless crc_kernel_set chose less. */
enum crc_kernel crc_kernel(void);
/* "isa-l+pclmul", "armv8-crc32+pmull", "table"...: for `s3c version`. */
const char *crc_kernel_name(enum crc_kernel k);
/* Use 'k' from now on (the tests, to check each kernel a CPU runs against
 * the tables); false, nothing changed, when the CPU cannot run it. Not
 * while other threads compute CRCs. */
bool crc_kernel_set(enum crc_kernel k);

/*
 * The CRC of A followed by B, from crc(A), crc(B) and B's length, as zlib's
 * crc32_combine(): pieces hashed out of order (download parts that finish in
 * any order) give the whole object's CRC without a second pass. O(log len_b).
 */
uint32_t crc_crc32_combine(uint32_t crc_a, uint32_t crc_b, uint64_t len_b);
uint32_t crc_crc32c_combine(uint32_t crc_a, uint32_t crc_b, uint64_t len_b);
uint64_t crc_crc64nvme_combine(uint64_t crc_a, uint64_t crc_b, uint64_t len_b);

/*
 * S3's wire form of a checksum (x-amz-checksum-crc32 and friends): standard
 * base64 of the big-endian bytes, e.g. CRC32("123456789") -> "y/Q5Jg==".
 * Appends to 'out'.
 */
enum s3c_err crc_b64_32(uint32_t crc, struct buf *out);
enum s3c_err crc_b64_64(uint64_t crc, struct buf *out);

#endif
