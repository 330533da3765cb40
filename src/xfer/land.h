/*
 * land: small downloads put on disk by worker threads.
 *
 * Creating a file is the one step of a small download the network cannot
 * hide: on ext4 it costs from 20 µs to over 250 µs of kernel time (the
 * allocator skips recently deleted inodes), on NFS or FUSE a round trip.
 * Done on the event loop it stalls every transfer in flight; done here it
 * overlaps them. A small object's body is received into memory (the engine
 * bounds how many are in flight), then a worker writes it whole into a temp
 * file beside the destination and renames it into place (fs_tmp_*): the
 * destination name never holds a partial file.
 *
 * A job may instead name other work on the destination's file system
 * ('work'): a large download's temp file, made and its space reserved
 * (fallocate of a 100 GB file takes many ms on ext4 or xfs), with --resume
 * after a look at an earlier run's record (xfer/resume.c, dl_tmp_open).
 *
 * Threads start with the first job (base/workpool.h: a worker holds one).
 * The loop hears of finished jobs through the wake callback (called from a
 * worker, without locks held) and takes them with land_take().
 */
#ifndef S3C_XFER_LAND_H
#define S3C_XFER_LAND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/workpool.h"
#include "s3/fattr.h"

struct land_job {
    struct workpool_link link;      /* the pool's */
    const char *dst;                /* the destination path; the caller's until done */
    struct buf body;                /* the bytes; the caller's (the job only reads them) */
    struct fattr attrs;             /* what the file gets beside its bytes (fs_tmp_commit) */
    void *ctx;                      /* the caller's */
    void (*work)(struct land_job *j); /* NULL: land 'body' at 'dst'; else the worker runs this instead,
                                       which sets err */
    struct s3c_error err;           /* the outcome: err.code == S3C_OK when landed (or worked) */
};

struct land;

/* A queue served by up to 'threads' workers; wake(ctx) after each finished job. */
struct land *land_new(int threads, void (*wake)(void *), void *wake_ctx);

/* Queue a job; false (nothing queued) when no worker could be started. */
bool land_submit(struct land *q, struct land_job *j);

/* A finished job, or NULL when none is. */
struct land_job *land_take(struct land *q);

/* Wait up to timeout_ms for a job to finish (returns at once if one has). */
void land_wait(struct land *q, int timeout_ms);

/* Finish every queued job, stop the workers, free. NULL is a no-op. */
void land_free(struct land *q);

#endif
