/*
 * hashpool: the engine's MD5s (and SHAs of flexible checksums), computed on
 * worker threads, one per core.
 *
 * MD5 runs at about 0.6 GB/s on one core: on the event loop it capped a
 * verified transfer near that. Here a job names its bytes (a range of a
 * file, re-read from the page cache a slice at a time, or a buffer in
 * memory) and the MD5 to continue; a worker hashes it and the loop takes the
 * result back. A worker holds up to sixteen jobs at once and, where the CPU
 * has AVX2, hashes them side by side in the lanes of one vector
 * (md5_x8_blocks), or of two interleaved when more than eight are busy
 * (md5_x16_blocks): several parts cost about what one did.
 *
 * A job may also feed the same bytes, in order, to a SHA-1 or SHA-256
 * context ('also'), with or without the MD5, and to a CRC ('crc'): a SHA or
 * CRC has no lanes, but it reads each slice while it is in the cache.
 *
 * Threads start with the first job (base/workpool.h: a worker's slots are
 * its lanes). The loop hears of finished jobs through the wake callback
 * (called from a worker, without locks held) and takes them with
 * hashpool_take(). Knows nothing of the engine.
 */
#ifndef S3C_XFER_HASHPOOL_H
#define S3C_XFER_HASHPOOL_H

#include <stdbool.h>
#include <stdint.h>

#include "base/ck.h"
#include "base/err.h"
#include "base/hash.h"
#include "base/md5.h"
#include "base/workpool.h"

struct hash_job {
    struct workpool_link link;      /* the pool's */
    int fd;                         /* the bytes: [off, off + len) of this file ... */
    const unsigned char *mem;       /* ... or of this memory (fd < 0); the caller's until done */
    uint64_t off, len;
    struct md5 md5;                 /* in: the MD5 so far (md5_init: none); out: with these bytes.
                                       Unless 'final', off + md5.bytes stay whole blocks */
    bool final;                     /* then 'digest' is the MD5 of it all */
    unsigned char digest[16];
    struct hash_ctx *also;          /* NULL, or a SHA (the caller's) fed the same bytes; with
                                       'final', its digest goes to also_digest (and it is reset) */
    bool also_open;                 /* 'final' leaves 'also' open: the caller's next job goes on with it */
    bool no_md5;                    /* 'also' alone: md5 and digest are left as they were */
    unsigned char also_digest[SHA256_LEN];
    bool crc;                       /* also the CRC 'crc_algo' (a CRC algorithm) of the same bytes ... */
    enum ck_algo crc_algo;
    uint64_t crc_val;               /* ... continued from this value (0 to start) */
    struct s3c_error err;           /* the outcome: err.code == S3C_OK when hashed */
    void *ctx;                      /* the caller's */
};

struct hashpool;

/* A pool of 'threads' workers (0: one per core); wake(ctx) after each finished job. */
struct hashpool *hashpool_new(int threads, void (*wake)(void *), void *wake_ctx);

/* Queue a job (the pool owns it until hashpool_take gives it back); false
 * (nothing queued) when no worker could be started. */
bool hashpool_submit(struct hashpool *q, struct hash_job *j);

/* Every job, queued or under way, ends soon with err.code S3C_ECANCEL (the
 * run is stopping: what it would prove no longer matters). NULL: no-op. */
void hashpool_cancel(struct hashpool *q);

/* A finished job, or NULL when none is. */
struct hash_job *hashpool_take(struct hashpool *q);

/* Wait up to timeout_ms for a job to finish (returns at once if one has). */
void hashpool_wait(struct hashpool *q, int timeout_ms);

/* Finish every queued job, stop the workers, free. NULL is a no-op. */
void hashpool_free(struct hashpool *q);

#endif
