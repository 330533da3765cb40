/*
 * crc: the checksums S3 knows besides MD5 and SHA: CRC32 (IEEE, as zlib and
 * gzip), CRC32C (Castagnoli, as iSCSI) and CRC64NVME (as the NVMe spec).
 * CRC32 and CRC32C run on ISA-L at memory speed; Debian's ISA-L has no
 * CRC64NVME, so that one is here: folded with PCLMULQDQ where the CPU has it
 * (14 GB/s on the dev machine), else a slice-by-8 table (1.5 GB/s).
 *
 * Every *_update takes and returns a *finished* value, as zlib's crc32()
 * does: start from 0, feed pieces in order, and the running value after any
 * piece is the CRC of everything so far. Pure and thread-safe (the CRC64
 * tables and constants are built once, race-free, on first use).
 */
#ifndef S3C_BASE_CRC_H
#define S3C_BASE_CRC_H

#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"

uint32_t crc_crc32_update(uint32_t crc, const void *p, size_t n);
uint32_t crc_crc32c_update(uint32_t crc, const void *p, size_t n);
uint64_t crc_crc64nvme_update(uint64_t crc, const void *p, size_t n);

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
