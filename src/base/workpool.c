/*
 * workpool.c — worker threads, a queue and a done list (see workpool.h).
 *
 * Memory ordering. Every hand-off of a job is under p->mu: the owner links
 * it into todo under the mutex (workpool_submit), a worker unlinks it under
 * the mutex (workpool_fill), links it into done under the mutex
 * (workpool_finish) and the owner unlinks it under the mutex
 * (workpool_take). The unlock of one side and the lock of the other order
 * every write to the job before the hand-off before every read after it, on
 * any CPU (pthread mutexes are acquire/release barriers, arm64 included).
 * The constants of struct workpool (run, wake, want, slots) are written
 * before the first pthread_create, which orders them before the thread runs.
 *
 * Two things are outside the mutex, on purpose:
 * - the wake callback runs after the unlock: it carries no data (the owner
 *   takes the job through the mutex), and the job was on the done list before
 *   it ran, so a wake is never lost: an owner that looked too early is woken
 *   by it, one that looks later finds the job;
 * - 'cancel' is a relaxed atomic flag: it publishes no data either (a
 *   worker that sees it only ends its jobs early, and their outcome goes back
 *   through the done list under the mutex); a worker that sees it a slice
 *   late does one slice more. Relaxed is enough, on weakly ordered CPUs too.
 */
#include "base/workpool.h"

#include "base/thread.h"

static void *workpool_main(void *arg)
{
    struct workpool *p = arg;

    p->run(p);
    return NULL;
}

void workpool_init(struct workpool *p, int threads, int slots, void (*run)(struct workpool *),
                   void (*wake)(void *), void *wake_ctx)
{
    *p = (struct workpool){ 0 };
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->work, NULL);
    pthread_cond_init(&p->done_cv, NULL);
    p->todo_tail = &p->todo;
    p->want = threads < 1 ? 1 : threads > WORKPOOL_THREADS_MAX ? WORKPOOL_THREADS_MAX : threads;
    p->slots = slots < 1 ? 1 : slots;
    p->run = run;
    p->wake = wake;
    p->wake_ctx = wake_ctx;
}

bool workpool_submit(struct workpool *p, struct workpool_link *job)
{
    bool ok = true;

    job->next = NULL;
    pthread_mutex_lock(&p->mu);
    /* Room in the slots of workers at work: one of them takes it at its next
     * fill. Else an idle worker, or a new one up to the number wanted. */
    if (p->queued + 1 > p->spare && p->idle == 0 && p->started < p->want) {
        if (pthread_create(&p->th[p->started], NULL, workpool_main, p) == 0)
            p->started++;
        else
            ok = p->started > 0;
    }
    if (ok) {
        *p->todo_tail = job;
        p->todo_tail = &job->next;
        p->queued++;
        if (p->queued > p->spare)
            pthread_cond_signal(&p->work);
    }
    pthread_mutex_unlock(&p->mu);
    return ok;
}

int workpool_fill(struct workpool *p, struct workpool_link **slot, int *spare)
{
    int i, busy;

    pthread_mutex_lock(&p->mu);
    p->spare -= *spare;
    for (;;) {
        for (i = 0, busy = 0; i < p->slots; i++) {
            if (!slot[i] && p->todo) {
                slot[i] = p->todo;
                p->todo = p->todo->next;
                if (!p->todo)
                    p->todo_tail = &p->todo;
                p->queued--;
                slot[i]->next = NULL;
            }
            busy += slot[i] != NULL;
        }
        if (busy || p->stop)
            break;
        p->idle++;
        pthread_cond_wait(&p->work, &p->mu);
        p->idle--;
    }
    /* A worker with nothing is idle, not spare: it counts in p->idle. */
    *spare = busy ? p->slots - busy : 0;
    p->spare += *spare;
    pthread_mutex_unlock(&p->mu);
    return busy;
}

void workpool_finish(struct workpool *p, struct workpool_link *job)
{
    pthread_mutex_lock(&p->mu);
    job->next = p->done;
    p->done = job;
    pthread_cond_broadcast(&p->done_cv);
    pthread_mutex_unlock(&p->mu);
    /* The job is the owner's now: only the wake is left (see the top). */
    if (p->wake)
        p->wake(p->wake_ctx);
}

struct workpool_link *workpool_take(struct workpool *p)
{
    struct workpool_link *job;

    pthread_mutex_lock(&p->mu);
    job = p->done;
    if (job)
        p->done = job->next;
    pthread_mutex_unlock(&p->mu);
    if (job)
        job->next = NULL;
    return job;
}

void workpool_wait(struct workpool *p, int timeout_ms)
{
    struct timespec until;

    thread_deadline(CLOCK_REALTIME, timeout_ms, &until);
    pthread_mutex_lock(&p->mu);
    if (!p->done)
        pthread_cond_timedwait(&p->done_cv, &p->mu, &until);
    pthread_mutex_unlock(&p->mu);
}

void workpool_cancel(struct workpool *p)
{
    __atomic_store_n(&p->cancel, true, __ATOMIC_RELAXED);
}

bool workpool_cancelled(struct workpool *p)
{
    return __atomic_load_n(&p->cancel, __ATOMIC_RELAXED);
}

void workpool_release(struct workpool *p)
{
    int i;

    pthread_mutex_lock(&p->mu);
    p->stop = true;
    pthread_cond_broadcast(&p->work);
    pthread_mutex_unlock(&p->mu);
    /* started is the owner's own (only submits, the owner's, change it). */
    for (i = 0; i < p->started; i++)
        pthread_join(p->th[i], NULL);
    pthread_cond_destroy(&p->done_cv);
    pthread_cond_destroy(&p->work);
    pthread_mutex_destroy(&p->mu);
}
