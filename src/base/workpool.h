/*
 * workpool: worker threads that take jobs from a queue and hand them back,
 * done, to one owner thread (the engine's event loop). The hash workers
 * (xfer/hashpool.c) and the land workers (xfer/land.c) are two of these.
 *
 * The pool owns the threads, the queue, the done list and the owner's wake;
 * the job type owns what a worker does ('run', the body of every thread).
 * A worker holds up to 'slots' jobs at once (the land workers one, the hash
 * workers eight: their lanes): it takes jobs into its free slots with
 * workpool_fill(), and hands each back with workpool_finish(). Threads start
 * lazily, one per submit that finds no idle worker and no free slot in the
 * workers at work, up to the number wanted.
 *
 * Threads: workpool_init, _submit, _take, _wait, _cancel and _release are the
 * owner's; _fill, _finish and _cancelled are the workers'. A job crosses
 * between them only through the queue or the done list, both under the
 * pool's mutex: what the owner wrote into a job before workpool_submit, a
 * worker sees; what a worker wrote before workpool_finish, the owner sees
 * once workpool_take gave the job back. Neither touches a job the other
 * holds. Knows nothing of what the jobs are.
 */
#ifndef S3C_BASE_WORKPOOL_H
#define S3C_BASE_WORKPOOL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#define WORKPOOL_THREADS_MAX 16

/* The link a job type embeds; the pool's while the job is queued or done. */
struct workpool_link {
    struct workpool_link *next;
};

/* The job of type 'type' whose workpool_link member 'member' is at 'link'. */
#define WORKPOOL_JOB(link, type, member) ((type *)(void *)((char *)(link) - offsetof(type, member)))

/* Caller-placed (workpool_init / workpool_release); its fields are the pool's. */
struct workpool {
    pthread_mutex_t mu;             /* guards every field below but cancel and the constants */
    pthread_cond_t work;            /* a job was queued, or stop */
    pthread_cond_t done_cv;         /* a job finished */
    struct workpool_link *todo, **todo_tail;
    int queued;                     /* jobs in todo */
    struct workpool_link *done;     /* finished, newest first */
    int started, idle;              /* threads started; those waiting for work */
    int spare;                      /* free slots of the workers at work: they take new jobs first */
    bool stop;                      /* workpool_release: finish what is queued, then end */
    bool cancel;                    /* workpool_cancel (atomic, no lock: see workpool.c) */
    int want, slots;                /* constants from workpool_init: threads at most, jobs a worker holds */
    void (*run)(struct workpool *); /* constant: a worker's body */
    void (*wake)(void *);           /* constant: called after each finished job, no lock held */
    void *wake_ctx;
    pthread_t th[WORKPOOL_THREADS_MAX];
};

/*
 * A pool of up to 'threads' workers (clamped to 1..WORKPOOL_THREADS_MAX),
 * each holding up to 'slots' jobs, each running run(p) until
 * workpool_fill() says to end; wake(wake_ctx) (NULL: none) after each
 * finished job. No thread starts here.
 */
void workpool_init(struct workpool *p, int threads, int slots, void (*run)(struct workpool *),
                   void (*wake)(void *), void *wake_ctx);

/* Owner: queue 'job' (the pool's until workpool_take gives it back); false
 * (nothing queued) when no worker runs and none could be started. */
bool workpool_submit(struct workpool *p, struct workpool_link *job);

/* Owner: a finished job, or NULL when none is. */
struct workpool_link *workpool_take(struct workpool *p);

/* Owner: wait up to timeout_ms for a job to finish (returns at once if one has). */
void workpool_wait(struct workpool *p, int timeout_ms);

/* Any thread: ask every job to end soon (workpool_cancelled turns true). */
void workpool_cancel(struct workpool *p);

/* Owner: let the workers finish every queued job, join them, destroy the
 * pool's locks. The pool may then be freed. */
void workpool_release(struct workpool *p);

/*
 * Worker: fill the empty (NULL) entries of slot[0 .. p->slots) from the
 * queue, oldest first; with every slot empty, wait for a job. Returns how
 * many slots hold a job; 0 only once the pool stops with nothing left, and
 * then run() returns. '*spare' is the worker's own (start it at 0, pass it
 * back each time): the free slots it told the pool of, so submits fill them
 * before they wake or start another worker.
 */
int workpool_fill(struct workpool *p, struct workpool_link **slot, int *spare);

/* Worker: hand 'job' back to the owner (it is no longer the worker's), then wake it. */
void workpool_finish(struct workpool *p, struct workpool_link *job);

/* Worker: whether workpool_cancel was called. */
bool workpool_cancelled(struct workpool *p);

#endif
