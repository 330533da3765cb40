#include "t.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/workpool.h"
#include "xfer/land.h"

/* A test job: which worker step took it, and how many slots that worker held. */
struct tjob {
    struct workpool_link link;
    int id;
    int taken;                      /* times a worker took it */
    int held;                       /* jobs its worker held when it took it */
    bool cancelled;                 /* the worker saw workpool_cancelled */
};

static int wakes;                   /* wake calls, counted atomically */

static void count_wake(void *ctx)
{
    __atomic_add_fetch((int *)ctx, 1, __ATOMIC_RELAXED);
}

/* A worker with several slots: takes what fits, finishes them all, again. */
static void tjob_run(struct workpool *p)
{
    struct workpool_link *slot[4] = { NULL };
    int spare = 0, busy, i;

    while ((busy = workpool_fill(p, slot, &spare))) {
        for (i = 0; i < p->slots; i++) {
            struct tjob *j = slot[i] ? WORKPOOL_JOB(slot[i], struct tjob, link) : NULL;

            if (!j)
                continue;
            j->taken++;
            j->held = busy;
            j->cancelled = workpool_cancelled(p);
            slot[i] = NULL;
            workpool_finish(p, &j->link);
        }
    }
}

/* Every job comes back once, after a wake; no worker holds more than its
 * slots; threads start only as needed and no more than wanted. */
TEST(workpool_jobs_come_back_once_each)
{
    enum { JOBS = 500 };
    struct tjob *jobs = calloc(JOBS, sizeof(*jobs));
    struct workpool p;
    int i, got = 0;

    CHECK(jobs);
    if (!jobs)
        return;
    wakes = 0;
    workpool_init(&p, 3, 4, tjob_run, count_wake, &wakes);
    CHECK_INT(p.started, 0); /* lazily: none before the first job */
    for (i = 0; i < JOBS; i++) {
        jobs[i].id = i;
        CHECK(workpool_submit(&p, &jobs[i].link));
    }
    while (got < JOBS) {
        struct workpool_link *l = workpool_take(&p);

        if (!l) {
            workpool_wait(&p, 100);
            continue;
        }
        CHECK(l->next == NULL);
        got++;
    }
    CHECK(workpool_take(&p) == NULL);
    CHECK(p.started >= 1 && p.started <= 3);
    workpool_release(&p);
    CHECK_INT(__atomic_load_n(&wakes, __ATOMIC_RELAXED), JOBS); /* one wake a job, no more */
    for (i = 0; i < JOBS; i++) {
        CHECK_INT(jobs[i].taken, 1);
        CHECK(jobs[i].held >= 1 && jobs[i].held <= 4);
        CHECK(!jobs[i].cancelled);
    }
    free(jobs);
}

/* One job at a time, each waited for: the one worker started for the first
 * is idle for the next, so no second one starts. */
TEST(workpool_idle_worker_serves_the_next_job)
{
    struct tjob j = { 0 };
    struct workpool p;
    int i;

    workpool_init(&p, 4, 1, tjob_run, NULL, NULL);
    for (i = 0; i < 20; i++) {
        CHECK(workpool_submit(&p, &j.link));
        while (!workpool_take(&p))
            workpool_wait(&p, 100);
        /* The worker may not be back to waiting yet: let it get there. */
        for (int k = 0; k < 1000; k++) {
            bool idle;

            pthread_mutex_lock(&p.mu);
            idle = p.idle == 1;
            pthread_mutex_unlock(&p.mu);
            if (idle)
                break;
            usleep(1000);
        }
    }
    CHECK_INT(j.taken, 20);
    CHECK_INT(p.started, 1);
    workpool_release(&p);
}

/* Jobs queued before the release are all done by the time it returns, and
 * a cancel is seen by the workers. */
TEST(workpool_release_finishes_the_queue_and_cancel_is_seen)
{
    enum { JOBS = 64 };
    static struct tjob jobs[JOBS];
    struct workpool p;
    int i, got = 0;

    workpool_init(&p, 2, 4, tjob_run, NULL, NULL);
    workpool_cancel(&p);
    for (i = 0; i < JOBS; i++)
        CHECK(workpool_submit(&p, &jobs[i].link));
    workpool_release(&p); /* joins: every queued job finished */
    while (p.done) {
        p.done = p.done->next;
        got++;
    }
    CHECK_INT(got, JOBS);
    for (i = 0; i < JOBS; i++) {
        CHECK_INT(jobs[i].taken, 1);
        CHECK(jobs[i].cancelled);
    }
}

/* land: bodies written whole to their paths, with the mtime asked, through
 * several workers; a path that cannot be created (below a file) fails that
 * job alone. */
TEST(land_writes_bodies_in_place)
{
    enum { FILES = 24 };
    char dir[] = "/tmp/s3c-unit-land-XXXXXX";
    char paths[FILES + 1][64];
    struct land_job jobs[FILES + 1];
    struct land *q = land_new(3, NULL, NULL);
    char blocker[64];
    FILE *f;
    int i, got = 0, failed = 0;

    CHECK(q && mkdtemp(dir));
    if (!q)
        return;
    snprintf(blocker, sizeof(blocker), "%s/file", dir);
    CHECK((f = fopen(blocker, "w")) && !fclose(f));
    for (i = 0; i <= FILES; i++) {
        jobs[i] = (struct land_job){ .body = BUF_INIT(4096) };
        jobs[i].attrs.has_mtime = i < FILES;
        jobs[i].attrs.mtime_s = 1000000 + i;
        snprintf(paths[i], sizeof(paths[i]), i < FILES ? "%s/f%d" : "%s/file/f%d", dir, i);
        jobs[i].dst = paths[i];
        for (int k = 0; k <= i * 37; k++)
            CHECK(!buf_add(&jobs[i].body, "x", 1));
        CHECK(land_submit(q, &jobs[i]));
    }
    while (got < FILES + 1) {
        struct land_job *j = land_take(q);

        if (!j) {
            land_wait(q, 100);
            continue;
        }
        got++;
        failed += j->err.code != S3C_OK;
    }
    land_free(q);
    CHECK_INT(failed, 1);
    CHECK(jobs[FILES].err.code != S3C_OK);
    for (i = 0; i < FILES; i++) {
        struct stat st;

        CHECK_INT(jobs[i].err.code, S3C_OK);
        CHECK(stat(paths[i], &st) == 0);
        CHECK_INT(st.st_size, i * 37 + 1);
        CHECK_INT(st.st_mtime, 1000000 + i);
        unlink(paths[i]);
        buf_release(&jobs[i].body);
    }
    buf_release(&jobs[FILES].body);
    unlink(blocker);
    rmdir(dir);
}
