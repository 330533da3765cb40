/*
 * buf: a growable byte buffer with a hard cap. Every buffer that grows from
 * network or file input is a buf with a cap, so hostile input hits the cap,
 * not memory exhaustion. The data is always NUL-terminated (the NUL is not
 * counted in len), so a buf of text can be used as a C string.
 */
#ifndef S3C_BASE_BUF_H
#define S3C_BASE_BUF_H

#include <stddef.h>

#include "base/err.h"
#include "base/str.h"

struct buf {
    char *data;     /* NULL until the first append; then NUL-terminated */
    size_t len;     /* bytes used, not counting the NUL */
    size_t cap;     /* bytes allocated */
    size_t max;     /* cap on len; appending past it fails with S3C_ENOMEM */
};

#define BUF_MAX_DEFAULT ((size_t)64 << 20)
#define BUF_INIT(max_bytes) { NULL, 0, 0, (max_bytes) }

/* Append; fail with S3C_ENOMEM (buf unchanged) past the cap or on OOM. */
enum s3c_err buf_add(struct buf *b, const void *p, size_t n);
enum s3c_err buf_adds(struct buf *b, const char *s);
enum s3c_err buf_addc(struct buf *b, char c);
enum s3c_err buf_addsv(struct buf *b, struct sv s);
enum s3c_err buf_addf(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Ensure room for 'n' more bytes without changing len. */
enum s3c_err buf_grow(struct buf *b, size_t n);

/* Ensure room for 'n' more bytes, growing to exactly that (and the NUL), not to a power of two:
 * for a body whose size is known, and whose buffer is kept for the next of its size. */
enum s3c_err buf_grow_exact(struct buf *b, size_t n);

/* The contents as a C string: "" for an empty buf, never NULL. */
const char *buf_cstr(const struct buf *b);
struct sv buf_sv(const struct buf *b);

/* len = 0, memory kept. */
void buf_reset(struct buf *b);

/* Take ownership of the data (NUL-terminated, never NULL); b becomes empty. */
char *buf_detach(struct buf *b);

/* Free the memory; b is empty and reusable with the same cap. */
void buf_release(struct buf *b);

#endif
