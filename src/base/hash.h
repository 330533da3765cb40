/*
 * hash: digests and encodings over OpenSSL: SHA-256, SHA-1, HMAC-SHA256, MD5, base64.
 * Streaming contexts so a digest is computed in the same pass as the bytes
 * move. (CRC32C/CRC64NVME live in base/crc.h.)
 */
#ifndef S3C_BASE_HASH_H
#define S3C_BASE_HASH_H

#include <stddef.h>

#include "base/buf.h"

#define SHA256_LEN 32
#define SHA1_LEN 20
#define MD5_LEN 16

/* One-shot digests. */
void hash_sha256(const void *p, size_t n, unsigned char out[SHA256_LEN]);
void hash_sha256_hex(const void *p, size_t n, char out[2 * SHA256_LEN + 1]);
void hash_hmac_sha256(const void *key, size_t key_len, const void *p, size_t n,
                      unsigned char out[SHA256_LEN]);
void hash_md5(const void *p, size_t n, unsigned char out[MD5_LEN]);
void hash_sha1(const void *p, size_t n, unsigned char out[SHA1_LEN]);

/* Streaming SHA-256, SHA-1 and MD5 (opaque EVP contexts). */
struct hash_ctx;
struct hash_ctx *hash_sha256_new(void);   /* NULL on OOM */
struct hash_ctx *hash_sha1_new(void);
struct hash_ctx *hash_md5_new(void);
void hash_update(struct hash_ctx *h, const void *p, size_t n);
/* Writes the digest (32, 20 or 16 bytes) and resets the context for reuse. */
void hash_final(struct hash_ctx *h, unsigned char *out);
/* Start over, as if just created (for a retry that re-reads from the start). */
void hash_reset(struct hash_ctx *h);
void hash_free(struct hash_ctx *h);       /* NULL is a no-op */

/* SHA-256 of the empty string, hex: the payload hash of a bodiless request. */
#define SHA256_EMPTY_HEX "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

/* Standard base64 (with padding) of 'n' bytes appended to 'out'. */
enum s3c_err base64_encode(const void *p, size_t n, struct buf *out);
/* Decode; S3C_EPARSE on bad input. */
enum s3c_err base64_decode(struct sv in, struct buf *out);

#endif
