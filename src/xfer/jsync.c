/* jsync.c — a download journal's fdatasync and record writes, on a worker (see jsync.h). */
#include "xfer/jsync.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/workpool.h"

struct jsync {
    struct workpool pool;       /* one worker: jobs run in the order submitted */
};

struct jsync_job {
    struct workpool_link link;
    char *dir;
    bool drop;                  /* remove rec.dest's record; else save 'rec' */
    int fd;                     /* a save's: a dup of the temp file's, to sync first; or -1 */
    struct journal_download rec; /* a save's record (its own copy); a removal's dest */
};

#define job_of(l) WORKPOOL_JOB(l, struct jsync_job, link)

static void job_free(struct jsync_job *j)
{
    if (j->fd >= 0)
        close(j->fd);
    free(j->dir);
    journal_download_release(&j->rec);
    free(j);
}

static void worker(struct workpool *p)
{
    struct workpool_link *held = NULL;
    int spare = 0;

    while (workpool_fill(p, &held, &spare)) {
        struct jsync_job *j = job_of(held);
        struct s3c_error e = S3C_ERROR_INIT;

        held = NULL;
        if (j->drop)
            journal_download_remove(j->dir, j->rec.dest);
        else if (j->fd < 0 || fdatasync(j->fd) == 0)
            (void)journal_download_save(j->dir, &j->rec, &e); /* no record: no resume, nothing worse */
        workpool_finish(p, &j->link);
    }
}

/* Free the jobs the worker is done with. */
static void reap(struct jsync *q)
{
    struct workpool_link *l;

    while ((l = workpool_take(&q->pool)))
        job_free(job_of(l));
}

struct jsync *jsync_new(void)
{
    struct jsync *q = calloc(1, sizeof(*q));

    if (q)
        workpool_init(&q->pool, 1, 1, worker, NULL, NULL);
    return q;
}

static char *dup_or_empty(const char *s)
{
    return strdup(s ? s : "");
}

static bool submit(struct jsync *q, struct jsync_job *j)
{
    reap(q);
    if (!workpool_submit(&q->pool, &j->link)) {
        job_free(j);
        return false;
    }
    return true;
}

bool jsync_save(struct jsync *q, const char *dir, int fd, const struct journal_download *rec)
{
    struct jsync_job *j = calloc(1, sizeof(*j));
    struct journal_download *c;

    if (!j)
        return false;
    j->fd = -1;
    c = &j->rec;
    *c = *rec;
    c->dest = dup_or_empty(rec->dest);
    c->bucket = dup_or_empty(rec->bucket);
    c->key = dup_or_empty(rec->key);
    c->version = dup_or_empty(rec->version);
    c->etag = dup_or_empty(rec->etag);
    c->tmp = dup_or_empty(rec->tmp);
    c->done = rec->n_parts ? malloc(rec->n_parts) : NULL;
    j->dir = strdup(dir);
    if (c->done && rec->done)
        memcpy(c->done, rec->done, rec->n_parts);
    j->fd = fd >= 0 ? dup(fd) : -1;
    if ((fd >= 0 && j->fd < 0) || !j->dir || !c->dest || !c->bucket || !c->key || !c->version || !c->etag || !c->tmp ||
        (rec->n_parts && !c->done)) {
        job_free(j);
        return false;
    }
    return submit(q, j);
}

bool jsync_drop(struct jsync *q, const char *dir, const char *dest)
{
    struct jsync_job *j = calloc(1, sizeof(*j));

    if (!j)
        return false;
    j->fd = -1;
    j->drop = true;
    j->dir = strdup(dir);
    j->rec.dest = strdup(dest);
    if (!j->dir || !j->rec.dest) {
        job_free(j);
        return false;
    }
    return submit(q, j);
}

void jsync_free(struct jsync *q)
{
    if (!q)
        return;
    reap(q);
    workpool_release(&q->pool);
    /* The workers are joined and the pool's lock is gone: the jobs they
     * finished since are the owner's alone, taken without it. */
    while (q->pool.done) {
        struct workpool_link *l = q->pool.done;

        q->pool.done = l->next;
        job_free(job_of(l));
    }
    free(q);
}
