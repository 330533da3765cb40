/*
 * ck: S3's flexible checksums (x-amz-checksum-*): the five algorithms, their
 * names and headers, raw digests and their wire form (base64 of the digest;
 * a CRC's is its big-endian bytes), and the composite checksum of a
 * multipart object ("<base64 of the digest of the part digests>-N"). Pure;
 * hashes whatever it is handed on the calling thread, so the engine gives it
 * only small bodies and digests: bulk SHA work is its hash workers'.
 */
#ifndef S3C_BASE_CK_H
#define S3C_BASE_CK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/str.h"

enum ck_algo { CK_CRC64NVME, CK_CRC32C, CK_CRC32, CK_SHA1, CK_SHA256 };

#define CK_ALGOS 5
#define CK_MAX_LEN 32               /* raw bytes of the longest (SHA-256) */
#define CK_B64_MAX 48               /* its base64, with the NUL */

const char *ck_name(enum ck_algo a);            /* "CRC64NVME", as S3 spells it */
const char *ck_header(enum ck_algo a);          /* "x-amz-checksum-crc64nvme" */
size_t ck_len(enum ck_algo a);                  /* raw digest bytes: 4, 8, 20 or 32 */
bool ck_is_crc(enum ck_algo a);                 /* a CRC: runs at memory speed and combines */
/* The algorithm S3 names 'name' (any case); false when none. */
bool ck_parse(struct sv name, enum ck_algo *out);

/* CRCs as crc.h keeps them (a finished value; 0 to start), for CRC algorithms only. */
uint64_t ck_update(enum ck_algo a, uint64_t crc, const void *p, size_t n);
uint64_t ck_combine(enum ck_algo a, uint64_t x, uint64_t y, uint64_t len_y);
/* A CRC's raw digest: its big-endian bytes (ck_len of them). */
void ck_crc_raw(enum ck_algo a, uint64_t crc, unsigned char out[CK_MAX_LEN]);

/* The raw digest of p[0, n) in one go (on the calling thread: small bodies, digests). */
void ck_digest(enum ck_algo a, const void *p, size_t n, unsigned char out[CK_MAX_LEN]);

/* Wire form: base64 of ck_len(a) raw bytes into 'out' (CK_B64_MAX). */
void ck_b64(enum ck_algo a, const unsigned char *raw, char out[CK_B64_MAX]);
/* A CRC's wire form. */
void ck_crc_b64(enum ck_algo a, uint64_t crc, char out[CK_B64_MAX]);
/* Wire form to raw; false unless it is ck_len(a) bytes of valid base64. */
bool ck_from_b64(enum ck_algo a, struct sv b64, unsigned char out[CK_MAX_LEN]);

/*
 * A composite checksum as S3 makes it for a multipart upload: the digest of
 * the parts' raw digests, concatenated in part order, in base64, then "-N".
 * 'raws' holds n * ck_len(a) bytes.
 */
void ck_composite(enum ck_algo a, const unsigned char *raws, uint32_t n, char out[CK_B64_MAX + 8]);

#endif
