/* land.c — small downloads put on disk by worker threads (see land.h). */
#include "xfer/land.h"

#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "base/thread.h"
#include "store/store_fs.h"

#define LAND_THREADS_MAX 8

struct land {
    pthread_mutex_t mu;
    pthread_cond_t work;            /* a job was queued, or stop */
    pthread_cond_t done_cv;         /* a job finished */
    struct land_job *todo, **todo_tail;
    struct land_job *done;
    int want, started;              /* threads wanted, started */
    int idle;                       /* workers waiting for work */
    bool stop;
    void (*wake)(void *);
    void *wake_ctx;
    pthread_t th[LAND_THREADS_MAX];
};

/* Write the whole body to a temp file beside dst and give it dst's name. */
static void land_one(struct land_job *j)
{
    struct buf tmp = BUF_INIT(65536);
    int fd = -1;

    if (fs_tmp_create(j->dst, j->body.len, &fd, &tmp, &j->err) ||
        fs_pwrite_all(fd, j->body.data, j->body.len, 0, j->dst, &j->err)) {
        fs_tmp_abort(fd, buf_cstr(&tmp));
    } else {
        (void)fs_tmp_commit(fd, buf_cstr(&tmp), j->dst, j->mtime, &j->err);
    }
    buf_release(&tmp);
}

static void *worker(void *arg)
{
    struct land *q = arg;

    pthread_mutex_lock(&q->mu);
    for (;;) {
        struct land_job *j;

        while (!q->todo && !q->stop) {
            q->idle++;
            pthread_cond_wait(&q->work, &q->mu);
            q->idle--;
        }
        if (!q->todo)
            break; /* stop, and nothing left to do */
        j = q->todo;
        q->todo = j->next;
        if (!q->todo)
            q->todo_tail = &q->todo;
        pthread_mutex_unlock(&q->mu);

        land_one(j);

        pthread_mutex_lock(&q->mu);
        j->next = q->done;
        q->done = j;
        pthread_cond_broadcast(&q->done_cv);
        pthread_mutex_unlock(&q->mu);
        if (q->wake)
            q->wake(q->wake_ctx);
        pthread_mutex_lock(&q->mu);
    }
    pthread_mutex_unlock(&q->mu);
    return NULL;
}

struct land *land_new(int threads, void (*wake)(void *), void *wake_ctx)
{
    struct land *q = calloc(1, sizeof(*q));

    if (!q)
        return NULL;
    pthread_mutex_init(&q->mu, NULL);
    pthread_cond_init(&q->work, NULL);
    pthread_cond_init(&q->done_cv, NULL);
    q->todo_tail = &q->todo;
    q->want = threads < 1 ? 1 : threads > LAND_THREADS_MAX ? LAND_THREADS_MAX : threads;
    q->wake = wake;
    q->wake_ctx = wake_ctx;
    return q;
}

bool land_submit(struct land *q, struct land_job *j)
{
    bool ok = true;

    j->next = NULL;
    j->err = (struct s3c_error)S3C_ERROR_INIT;
    pthread_mutex_lock(&q->mu);
    /* A worker more while none is idle, up to the number wanted. */
    if (q->idle == 0 && q->started < q->want) {
        if (pthread_create(&q->th[q->started], NULL, worker, q) == 0)
            q->started++;
        else
            ok = q->started > 0;
    }
    if (ok) {
        *q->todo_tail = j;
        q->todo_tail = &j->next;
        pthread_cond_signal(&q->work);
    }
    pthread_mutex_unlock(&q->mu);
    return ok;
}

struct land_job *land_take(struct land *q)
{
    struct land_job *j;

    pthread_mutex_lock(&q->mu);
    j = q->done;
    if (j)
        q->done = j->next;
    pthread_mutex_unlock(&q->mu);
    if (j)
        j->next = NULL;
    return j;
}

void land_wait(struct land *q, int timeout_ms)
{
    struct timespec until;

    thread_deadline(CLOCK_REALTIME, timeout_ms, &until);
    pthread_mutex_lock(&q->mu);
    if (!q->done)
        pthread_cond_timedwait(&q->done_cv, &q->mu, &until);
    pthread_mutex_unlock(&q->mu);
}

void land_free(struct land *q)
{
    if (!q)
        return;
    thread_pool_end(&q->mu, &q->work, &q->done_cv, &q->stop, q->th, q->started);
    free(q);
}
