/*
 * chunked: a streamed request body framed as aws-chunked with one trailing
 * checksum (x-amz-content-sha256: STREAMING-UNSIGNED-PAYLOAD-TRAILER), so the
 * store verifies a checksum of bytes that is only known once they have been
 * read (CRC64NVME unless s3_chunked_use says another):
 *
 *   10000\r\n<65536 bytes>\r\n ... 1a2\r\n<418 bytes>\r\n 0\r\n
 *   x-amz-checksum-crc64nvme:<base64>\r\n \r\n
 *
 * The framed body is produced at any offset (curl may rewind to resend); a
 * CRC is taken in order as the payload passes and starts over on a rewind;
 * a SHA is the caller's (computed elsewhere: a SHA on the sending thread
 * would slow every transfer), asked for when the trailer is due.
 * No I/O of its own: the payload comes from the caller's read function.
 */
#ifndef S3C_S3_CHUNKED_H
#define S3C_S3_CHUNKED_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/ck.h"

#define S3_CHUNK_BYTES ((size_t)64 << 10)

struct s3_chunked {
    /* The payload, as struct http_body's read: bytes at 'off', -1 on error,
     * or a negative "not now" (HTTP_READ_PAUSE) passed through unchanged. */
    ssize_t (*read)(void *ctx, char *dst, size_t n, uint64_t off);
    void *read_ctx;
    uint64_t payload;               /* decoded length */
    size_t chunk;                   /* payload bytes per chunk (the last is shorter) */
    uint64_t crc;                   /* a CRC algorithm: of payload[0, crc_off) */
    uint64_t crc_off;
    enum ck_algo algo;              /* the trailer's checksum */
    /* A SHA algorithm: its raw digest into 'out', 0; or a negative that the
     * read returns as it is (-1, or the caller's "not now": asked again later). */
    ssize_t (*sum)(void *ctx, unsigned char out[CK_MAX_LEN]);
    void *sum_ctx;
};

/* Frame 'payload' bytes from 'read' in chunks of 'chunk' (0: S3_CHUNK_BYTES), with a CRC64NVME trailer. */
void s3_chunked_init(struct s3_chunked *c, ssize_t (*read)(void *, char *, size_t, uint64_t), void *ctx,
                     uint64_t payload, size_t chunk);

/* Trail algorithm 'a' instead (after init, before the first read); a SHA needs 'sum'. */
void s3_chunked_use(struct s3_chunked *c, enum ck_algo a, ssize_t (*sum)(void *, unsigned char *), void *ctx);

/* Length of the framed body (the Content-Length to send). */
uint64_t s3_chunked_len(const struct s3_chunked *c);

/* struct http_body's read over the framed body ('ctx' is the struct s3_chunked).
 * The trailer needs the whole payload to have passed in order: -1 otherwise. */
ssize_t s3_chunked_read(void *ctx, char *dst, size_t n, uint64_t off);

/* After the body went out: true and the payload's CRC (a CRC algorithm's) in *crc. */
int s3_chunked_crc(const struct s3_chunked *c, uint64_t *crc);

#endif
