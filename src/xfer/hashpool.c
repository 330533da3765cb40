/* hashpool.c — MD5s on worker threads, up to sixteen at a time, and SHAs beside them (see hashpool.h). */
#include "xfer/hashpool.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/thread.h"
#include "base/workpool.h"

#define LANES 16
#define SLICE_BYTES ((size_t)128 << 10)  /* read per job and step: 2 MiB a worker */
#define X8_MIN_LANES 2                    /* one busy lane alone is cheaper scalar (0.73 GB/s against 3.4 / 8) */

struct hashpool {
    struct workpool pool;           /* a worker's slots are its lanes */
};

#define job_of(l) WORKPOOL_JOB(l, struct hash_job, link)

/* A job in a worker's lane: the slice of it in hand. */
struct lane {
    struct hash_job *j;
    uint64_t at;                    /* bytes of the job hashed */
    const unsigned char *p;         /* the slice: next byte, bytes left */
    size_t n;
    unsigned char *buf;             /* SLICE_BYTES, for file jobs */
};

/*
 * Take queued jobs into the free lanes (held[i]: lane i's link); wait for one
 * when every lane is free. A worker at work takes new jobs at its next step,
 * so the pool wakes another only when the queue holds more than the free
 * lanes of those at work (lanes side by side cost about what one does: fill
 * them before spreading out).
 */
static bool lanes_fill(struct workpool *p, struct lane *l, struct workpool_link **held, int *my_free)
{
    int i;

    if (!workpool_fill(p, held, my_free))
        return false;
    for (i = 0; i < LANES; i++) {
        if (held[i] && !l[i].j) {
            l[i].j = job_of(held[i]);
            l[i].at = 0;
            l[i].n = 0;
        }
    }
    return true;
}

/* Lane i's job is done (or failed): it goes back to the loop. */
static void job_done(struct workpool *p, struct lane *l, struct workpool_link **held)
{
    struct hash_job *j = l->j;

    if (!j->err.code && j->final && !j->no_md5)
        md5_final(&j->md5, j->digest);
    if (!j->err.code && j->final && j->also && !j->also_open)
        hash_final(j->also, j->also_digest);
    l->j = NULL;
    *held = NULL;
    workpool_finish(p, &j->link);
}

/* A slice in hand goes to the job's SHA and CRC at once (whole: it is in the
 * cache); without an MD5 to keep, the slice is then done. */
static void lane_also(struct lane *l)
{
    struct hash_job *j = l->j;

    if (j->crc)
        j->crc_val = ck_update(j->crc_algo, j->crc_val, l->p, l->n);
    if (j->also)
        hash_update(j->also, l->p, l->n);
    if (j->no_md5) {
        l->at += l->n;
        l->n = 0;
    }
}

/* The lane's next slice: the job's memory, or read from its file. False when
 * the job failed (its err says why). */
static bool lane_slice(struct lane *l)
{
    struct hash_job *j = l->j;
    size_t want = j->len - l->at < SLICE_BYTES ? (size_t)(j->len - l->at) : SLICE_BYTES;
    ssize_t got;

    if (j->fd < 0) {
        l->p = j->mem + l->at; /* a slice at a time too: the worker comes back for new jobs */
        l->n = want;
        lane_also(l);
        return true;
    }
    do
        got = pread(j->fd, l->buf, want, (off_t)(j->off + l->at));
    while (got < 0 && errno == EINTR);
    if (got <= 0) {
        s3c_fail_errno(&j->err, got < 0 ? errno : EIO, "cannot re-read a downloaded file to check it");
        return false;
    }
    l->p = l->buf;
    l->n = (size_t)got;
    lane_also(l);
    return true;
}

/*
 * Hash 'blocks' whole blocks of the lanes in 'busy' side by side: eight or
 * fewer in the eight lanes of one vector (md5_x8_blocks), more in sixteen
 * (md5_x16_blocks: two vectors interleaved, about 1.3 times what eight cost
 * for twice the bytes). The busy lanes are packed first; an idle kernel lane
 * reads idle_block, 64 blocks long, again and again.
 */
static void lanes_simd(struct lane *l, const bool busy[LANES], int n_busy, size_t blocks)
{
    static const unsigned char idle_block[MD5_BLOCK * 64];
    uint32_t h[16][4] = { { 0 } };
    const unsigned char *p[16];
    int idx[16], width = n_busy > 8 ? 16 : 8, n = 0, i;
    size_t done, k;

    for (i = 0; i < LANES; i++) {
        if (!busy[i])
            continue;
        idx[n] = i;
        p[n] = l[i].p;
        memcpy(h[n], l[i].j->md5.h, sizeof(h[n]));
        n++;
    }
    for (i = n; i < width; i++)
        p[i] = idle_block;
    for (done = 0; done < blocks; done += k) {
        k = n == width || blocks - done < 64 ? blocks - done : 64;
        if (width == 16)
            md5_x16_blocks(h, p, k);
        else
            md5_x8_blocks(h, p, k);
        for (i = 0; i < n; i++)
            p[i] += k * MD5_BLOCK;
    }
    for (i = 0; i < n; i++) {
        struct lane *x = &l[idx[i]];

        memcpy(x->j->md5.h, h[i], sizeof(h[i]));
        x->j->md5.bytes += blocks * MD5_BLOCK;
        x->p += blocks * MD5_BLOCK;
        x->n -= blocks * MD5_BLOCK;
        x->at += blocks * MD5_BLOCK;
    }
}

/* The rest of one lane's slice, alone. */
static void lane_scalar(struct lane *l)
{
    md5_update(&l->j->md5, l->p, l->n);
    l->at += l->n;
    l->n = 0;
}

/* A worker's body: fill the lanes, give each a slice, hash them side by side. */
static void worker(struct workpool *p)
{
    struct lane l[LANES] = { 0 };
    struct workpool_link *held[LANES] = { NULL };
    unsigned char *bufs = malloc(LANES * SLICE_BYTES);
    bool x8 = md5_x8_available();
    int i, my_free = 0;

    for (i = 0; i < LANES; i++)
        l[i].buf = bufs ? bufs + (size_t)i * SLICE_BYTES : NULL;
    while (lanes_fill(p, l, held, &my_free)) {
        size_t blocks = SIZE_MAX;
        bool busy[LANES] = { false };
        int n_busy = 0;

        /* Every busy lane gets a slice; finished and failed jobs go back. */
        for (i = 0; i < LANES; i++) {
            if (!l[i].j)
                continue;
            if (!bufs && l[i].j->fd >= 0)
                s3c_fail(&l[i].j->err, S3C_ENOMEM, "out of memory to check a download");
            if (workpool_cancelled(p) && !l[i].j->err.code)
                s3c_fail(&l[i].j->err, S3C_ECANCEL, "interrupted");
            if (!l[i].j->err.code && !l[i].n && l[i].at < l[i].j->len)
                (void)lane_slice(&l[i]);
            if (l[i].j->err.code || l[i].at == l[i].j->len) {
                job_done(p, &l[i], &held[i]);
                continue;
            }
            /* The end of a job, short of a block (or an MD5 left mid-block,
             * which the engine never hands over): alone. */
            if (l[i].n < MD5_BLOCK || l[i].j->md5.bytes % MD5_BLOCK) {
                lane_scalar(&l[i]);
                continue;
            }
            busy[i] = true;
            n_busy++;
            if (l[i].n / MD5_BLOCK < blocks)
                blocks = l[i].n / MD5_BLOCK;
        }
        if (x8 && n_busy >= X8_MIN_LANES) {
            lanes_simd(l, busy, n_busy, blocks);
            continue;
        }
        for (i = 0; i < LANES; i++)
            if (busy[i])
                lane_scalar(&l[i]);
    }
    free(bufs);
}

struct hashpool *hashpool_new(int threads, void (*wake)(void *), void *wake_ctx)
{
    struct hashpool *q = calloc(1, sizeof(*q));

    if (!q)
        return NULL;
    if (threads <= 0)
        threads = thread_cores();
    workpool_init(&q->pool, threads, LANES, worker, wake, wake_ctx);
    return q;
}

bool hashpool_submit(struct hashpool *q, struct hash_job *j)
{
    j->err = (struct s3c_error)S3C_ERROR_INIT;
    return workpool_submit(&q->pool, &j->link);
}

void hashpool_cancel(struct hashpool *q)
{
    if (q)
        workpool_cancel(&q->pool);
}

struct hash_job *hashpool_take(struct hashpool *q)
{
    struct workpool_link *l = workpool_take(&q->pool);

    return l ? job_of(l) : NULL;
}

void hashpool_wait(struct hashpool *q, int timeout_ms)
{
    workpool_wait(&q->pool, timeout_ms);
}

void hashpool_free(struct hashpool *q)
{
    if (!q)
        return;
    workpool_release(&q->pool);
    free(q);
}
