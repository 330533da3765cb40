/* land.c — small downloads put on disk by worker threads (see land.h). */
#include "xfer/land.h"

#include <stdlib.h>

#include "base/workpool.h"
#include "store/store_fs.h"

#define LAND_THREADS_MAX 8

struct land {
    struct workpool pool;           /* a worker holds one job */
};

#define job_of(l) WORKPOOL_JOB(l, struct land_job, link)

/* Write the whole body to a temp file beside dst and give it dst's name. */
static void land_one(struct land_job *j)
{
    struct buf tmp = BUF_INIT(65536);
    int fd = -1;

    if (fs_tmp_create(j->dst, j->body.len, &fd, &tmp, &j->err) ||
        fs_pwrite_all(fd, j->body.data, j->body.len, 0, j->dst, &j->err)) {
        fs_tmp_abort(fd, buf_cstr(&tmp));
    } else {
        (void)fs_tmp_commit(fd, buf_cstr(&tmp), j->dst, &j->attrs, &j->err);
    }
    buf_release(&tmp);
}

/* A worker's body: one job at a time, each on disk before the next. */
static void worker(struct workpool *p)
{
    struct workpool_link *held = NULL;
    int spare = 0;

    while (workpool_fill(p, &held, &spare)) {
        struct land_job *j = job_of(held);

        held = NULL;
        if (j->work)
            j->work(j);
        else
            land_one(j);
        workpool_finish(p, &j->link);
    }
}

struct land *land_new(int threads, void (*wake)(void *), void *wake_ctx)
{
    struct land *q = calloc(1, sizeof(*q));

    if (!q)
        return NULL;
    workpool_init(&q->pool, threads > LAND_THREADS_MAX ? LAND_THREADS_MAX : threads, 1, worker, wake,
                  wake_ctx);
    return q;
}

bool land_submit(struct land *q, struct land_job *j)
{
    j->err = (struct s3c_error)S3C_ERROR_INIT;
    return workpool_submit(&q->pool, &j->link);
}

struct land_job *land_take(struct land *q)
{
    struct workpool_link *l = workpool_take(&q->pool);

    return l ? job_of(l) : NULL;
}

void land_wait(struct land *q, int timeout_ms)
{
    workpool_wait(&q->pool, timeout_ms);
}

void land_free(struct land *q)
{
    if (!q)
        return;
    workpool_release(&q->pool);
    free(q);
}
