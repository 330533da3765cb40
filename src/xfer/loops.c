/*
 * Several event loops for one run (xfer_run). The calling thread's loop
 * (home) takes objects from the caller's source; once more come than it
 * takes at once, it deals the rest into a shared box, and helper loops
 * (each an engine of its own on a thread of its own, with a store clone:
 * curl multi, connections, signing-key cache, S3 Express sessions) take
 * them in batches. Finished objects go home the same way, so every caller
 * callback (next, done, progress) runs on the calling thread. What it must
 * not do: take a lock per request, or let one object's requests run on two
 * loops (its parts, temp file, journal and MD5s stay where it started).
 *
 * The threads of a run, and what each may do (issue 24: nothing blocks a loop):
 * - Loop threads: home (the caller's thread, which also runs the source's
 *   next(): the planner, listing and walking) and up to XFER_LOOPS_MAX-1
 *   helpers. Each runs engine_run (xfer.c): curl's callbacks, request
 *   building and judging, pread/pwrite of part bodies. A loop waits only in
 *   http_loop_step_fd / http_loop_wait_fd (epoll: sockets, its wakeup
 *   eventfd, stdin) or, idle, on the deal's condition (idle_wait). It makes
 *   no call that can sleep on a slow system: name resolution is the
 *   resolver's DNS thread's (http/resolve.c), the journal's fdatasync the
 *   journal worker's (jsync.c), a download's temp file is made and its
 *   space reserved (fallocate(2), never glibc's byte-a-block fallback) by a
 *   land worker (PH_OPEN).
 * - Workers that hand results back through the loop's wakeup: hash workers
 *   (hashpool.c: MD5/SHA of parts, the re-read of a resumed upload's parts
 *   the store has, resume.c, and the local files sync's same-second proof
 *   reads, prove.c), land workers (land.c: small downloads to
 *   disk, the temp files of the others), the journal worker (jsync.c),
 *   one DNS thread per loop's resolver.
 * - Credential refresh threads (auth/keyring.c, auth/express.c): their own
 *   HTTP loops, off the transfer loops.
 * Checked in the e2e suite: the loop-lag probe (base/lag.h) and the blocking-
 * call checker preloaded into every s3c (tests/e2e/slowcalls.c) report any
 * loop thread that blocks. No request is waited for inside the source's
 * next(): a listing's pages (plan/lister.c), a --all-versions listing's
 * pages (cli/listing.c) and an inventory's data files (plan/manifest.c, the
 * next one fetched while the rows of the one before are read) are requests
 * the source polls (store_s3_async: a retry's backoff is a time, not a nap);
 * meanwhile it answers XFER_NEXT_LATER, and the engine steps its loop
 * (those requests and its transfers together) and asks again within
 * XFER_LATER_MS. Where a test asks (S3C_CHECK_NEXT_WAITS=1), the checker
 * reports any wait of the loop inside next() (lag_next_begin/end). A data
 * file's body goes to its temp file from curl's callback on this thread, as
 * a download's bytes do. sync's same-second proof is not made in next(): the
 * engine makes it (prove.c), its file read by the hash workers, its HEADs in
 * flight. Nor is what a source opens inside next() waited for there (rm
 * opens each argument there, run starts each job there, later_ok set): an
 * s3:// manifest or key list is a request in flight (manifest_open with
 * nonblock), a single source's HEAD too (cp, mv: store_s3_head_async), and
 * a run file's sync reads a side that must be sorted in its next(), pages
 * in flight, batches sorted and written by the sorter's thread
 * (xsort_background); one sync drains it before the engine starts. A
 * run file's dry-run line is read a step at a time in next() as the others
 * are. Known left: what a dry run asks the store for beyond its listing
 * and a single source's HEAD (a destination's HEAD for -n and the like, a
 * key list's HEADs, sync's same-second HEADs) is waited for there; alone,
 * a dry run has no engine, but in a run file it is inside next().
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "xfer/engine.h"
#include "base/lag.h"
#include "base/thread.h"

#define DEAL_BATCH 32                   /* objects a loop takes from the box at once, at most */
#define DEAL_SPAWN 64                   /* objects waiting in the box that start the helpers */
#define DEAL_BOX_MAX 1024               /* objects waiting in the box, at most */
#define IDLE_WAIT_MS 100                /* a loop with nothing to do looks again after this */

/* A finished object on its way home. */
struct ret {
    struct ret *next;
    struct xfer_obj *o;
    bool failed;
    struct s3c_error err;
};

struct deal;

/* One loop's side. Fields marked (helper) belong to the helper's thread once it runs. */
struct lane {
    struct deal *d;
    int idx;                            /* 0: home */
    struct engine_hooks hooks;          /* this loop's, with lane = this */
    struct http_loop *loop;             /* for wakeups from the other threads */
    pthread_t thread;
    struct store_s3 *s3;                /* a helper's clone of the home store */
    struct store_s3 *src_s3;            /* ... and of the source side's (xfer_opts.src_store), on its loop; NULL */
    struct xfer_opts opts;              /* a helper's engine options */
    struct xfer_obj *mine[DEAL_BATCH];  /* taken from the box, not given to the engine yet */
    int n_mine, i_mine;
    struct ret *out, **out_tail;        /* (helper) finished objects not handed home yet */
    bool stop_told;                     /* this loop's stop is known to the others, or came from them */
    struct {                            /* what home had learnt when it started the helper */
        bool any_ok, no_part_number, no_trailers, flex_known;
        double link_latency_s, link_bytes_s;
        int fd_cap, hash_threads;
        uint64_t relay_max;             /* its share of RELAY_MEM_MAX */
    } seed;
    struct xfer_stats stats;            /* a helper's, once it ended */
    enum s3c_err rc;                    /* a helper's result */
};

/* What the loops share. One lock, taken per batch of objects or results, never per request. */
struct deal {
    pthread_mutex_t lock;
    pthread_cond_t more;                /* helpers wait here for objects */
    pthread_cond_t back;                /* home waits here for results */
    struct xfer_obj *box[DEAL_BOX_MAX]; /* a ring: objects dealt and not taken */
    int head, count;
    atomic_int peek;                    /* 'count', to look at without the lock */
    bool ended;                         /* no more objects will come into the box */
    atomic_bool stop;                   /* a loop met a run-wide error (stop_err) */
    struct s3c_error stop_err;
    struct ret *rets, **rets_tail;      /* finished objects of the helpers, for home */
    uint64_t lost;                      /* ... that could not be handed back (out of memory) */
    atomic_bool home_wants;             /* home's source waits for results: wake it for them */
    atomic_bool refill_asked;           /* a helper woke home for more objects this turn */
    atomic_int spawned;                 /* helpers started (lanes 1..spawned) */
    struct xfer_stats live[XFER_LOOPS_MAX]; /* helpers' stats as last published (progress) */
    /* Home's alone. */
    int n_loops;                        /* loops wanted, home included */
    bool spawn_tried;
    int outstanding;                    /* objects put in the box and not back */
    bool user_done;                     /* the caller's source said END */
    const struct xfer_opts *user;       /* the caller's options */
    struct lane lanes[XFER_LOOPS_MAX];
};

/* The cores the loops may use (thread_cores: the affinity mask and a cgroup's quota, not the machine's). */
static int usable_cpus(void)
{
    int n = thread_cores();

    return n > XFER_LOOPS_MAX ? XFER_LOOPS_MAX : n;
}

/* How many loops a run may use: one with a bandwidth limit (one token bucket),
 * never more than the fixed concurrency (each loop needs a request in flight). */
static int loops_wanted(const struct xfer_opts *o)
{
    int n = o->loops > 0 ? o->loops : usable_cpus();

    if (o->loops <= 0 && n > XFER_LOOPS_DEFAULT_MAX)
        n = XFER_LOOPS_DEFAULT_MAX;
    if (n > XFER_LOOPS_MAX)
        n = XFER_LOOPS_MAX;
    if (o->bwlimit_bytes_s)
        n = 1;
    if (o->concurrency > 0 && n > o->concurrency)
        n = o->concurrency;
    return n;
}

/* Objects the box holds once home has dealt: enough for a batch per loop and as much again. */
static int box_target(const struct deal *d)
{
    int t = 2 * DEAL_BATCH * d->n_loops;

    return t < DEAL_BOX_MAX ? t : DEAL_BOX_MAX;
}

static void cancel_error(struct s3c_error *e)
{
    s3c_error_clear(e);
    s3c_fail(e, S3C_ECANCEL, "%s", cancel_requested ? "interrupted" : "stopped");
}

/* Wait on 'cv' (its lock held) for IDLE_WAIT_MS at most. */
static void idle_wait(pthread_cond_t *cv, pthread_mutex_t *lock)
{
    struct timespec until;

    thread_deadline(CLOCK_REALTIME, IDLE_WAIT_MS, &until);
    lag_wait_begin(); /* nothing in flight on this loop: this is its poll */
    pthread_cond_timedwait(cv, lock, &until);
    lag_wait_end();
}

static void wake_all(struct deal *d, const struct lane *self)
{
    int i, n = atomic_load(&d->spawned);

    for (i = 0; i <= n; i++)
        if (&d->lanes[i] != self)
            http_loop_wakeup(d->lanes[i].loop);
}

/* ---- the box (lock held) --------------------------------------------------------- */

/* Move a fair share of the box into ln->mine (empty before). */
static void box_take(struct deal *d, struct lane *ln)
{
    int loops = atomic_load(&d->spawned) + 1;
    int k = (d->count + 2 * loops - 1) / (2 * loops);

    if (k > DEAL_BATCH)
        k = DEAL_BATCH;
    if (k > d->count)
        k = d->count;
    for (ln->n_mine = 0, ln->i_mine = 0; ln->n_mine < k; ln->n_mine++) {
        ln->mine[ln->n_mine] = d->box[d->head];
        d->head = (d->head + 1) % DEAL_BOX_MAX;
        d->count--;
    }
    atomic_store(&d->peek, d->count);
}

static bool lane_pop(struct lane *ln, struct xfer_obj **out)
{
    if (ln->i_mine >= ln->n_mine)
        return false;
    *out = ln->mine[ln->i_mine++];
    return true;
}

static void box_close(struct deal *d)
{
    pthread_mutex_lock(&d->lock);
    d->ended = true;
    pthread_cond_broadcast(&d->more);
    pthread_mutex_unlock(&d->lock);
}

/* ---- a run-wide stop, met by any loop, stops them all --------------------------------- */

static void stop_sync(struct engine *g, struct lane *ln)
{
    struct deal *d = ln->d;

    if (ln->stop_told)
        return;
    if (g->stop) {
        ln->stop_told = true;
        pthread_mutex_lock(&d->lock);
        if (!atomic_load(&d->stop)) {
            d->stop_err = g->stop_err;
            atomic_store(&d->stop, true);
        }
        pthread_cond_broadcast(&d->more);
        pthread_cond_broadcast(&d->back);
        pthread_mutex_unlock(&d->lock);
        wake_all(d, ln);
    } else if (atomic_load(&d->stop)) {
        ln->stop_told = true;
        pthread_mutex_lock(&d->lock);
        g->stop_err = d->stop_err;
        pthread_mutex_unlock(&d->lock);
        g->stop = true;
    }
}

/* ---- helpers ------------------------------------------------------------------------- */

/* A helper's source: its batch, then the box; WAIT while home may deal more. */
static int lane_next(void *ctx, struct xfer_obj **out)
{
    struct lane *h = ctx;
    struct deal *d = h->d;
    bool ask = false;
    int r;

    if (lane_pop(h, out))
        return XFER_NEXT_ONE;
    pthread_mutex_lock(&d->lock);
    if (d->count > 0)
        box_take(d, h);
    r = lane_pop(h, out) ? XFER_NEXT_ONE : d->ended ? XFER_NEXT_END : XFER_NEXT_WAIT;
    if (!d->ended && d->count < box_target(d) / 2 && !atomic_exchange(&d->refill_asked, true))
        ask = true;
    pthread_mutex_unlock(&d->lock);
    if (ask)
        http_loop_wakeup(d->lanes[0].loop); /* running low: home deals more */
    return r;
}

/* A helper's done: the object goes home (the engine leaves it to us: keep_objs). */
static void lane_done(void *ctx, const struct xfer_obj *o, const struct s3c_error *e)
{
    struct lane *h = ctx;
    struct ret *r = calloc(1, sizeof(*r));

    if (!r) {
        /* Out of memory: the caller never hears of this one; the run fails. */
        pthread_mutex_lock(&h->d->lock);
        h->d->lost++;
        pthread_mutex_unlock(&h->d->lock);
        xfer_obj_free((struct xfer_obj *)o);
        return;
    }
    r->o = (struct xfer_obj *)o;
    r->failed = e != NULL;
    if (e)
        r->err = *e;
    *h->out_tail = r;
    h->out_tail = &r->next;
}

/* Hand a helper's finished objects home, one lock for all of them. */
static void lane_flush(struct lane *h)
{
    struct deal *d = h->d;
    bool was_empty;

    if (!h->out)
        return;
    pthread_mutex_lock(&d->lock);
    was_empty = !d->rets;
    *d->rets_tail = h->out;
    d->rets_tail = h->out_tail;
    pthread_cond_signal(&d->back);
    pthread_mutex_unlock(&d->lock);
    h->out = NULL;
    h->out_tail = &h->out;
    if (was_empty && atomic_load(&d->home_wants))
        http_loop_wakeup(d->lanes[0].loop);
}

static void lane_publish(void *ctx, const struct xfer_stats *now)
{
    struct lane *h = ctx;

    pthread_mutex_lock(&h->d->lock);
    h->d->live[h->idx] = *now;
    pthread_mutex_unlock(&h->d->lock);
}

static void helper_setup(struct engine *g)
{
    struct lane *h = g->lane;

    g->keep_objs = true;
    g->hash_threads = h->seed.hash_threads;
    g->any_ok = h->seed.any_ok;
    g->no_part_number = h->seed.no_part_number;
    g->no_trailers = h->seed.no_trailers;
    g->flex_known = h->seed.flex_known;
    g->link_latency_s = h->seed.link_latency_s;
    g->link_bytes_s = h->seed.link_bytes_s;
    if (h->seed.fd_cap < g->fd_cap)
        g->fd_cap = h->seed.fd_cap;
    g->relay_max = h->seed.relay_max;
    if (!g->opts.concurrency && g->cap > g->opts.max_concurrency)
        g->cap = g->opts.max_concurrency;
    if (g->cap > g->fd_cap)
        g->cap = g->fd_cap;
    g->best_cap = g->cap;
    g->stats.peak_concurrency = g->cap;
}

static void helper_turn(struct engine *g)
{
    struct lane *h = g->lane;

    stop_sync(g, h);
    lane_flush(h);
}

static bool helper_idle(struct engine *g)
{
    struct lane *h = g->lane;
    struct deal *d = h->d;
    bool go;

    lane_flush(h);
    if (stopping(g))
        return false;
    pthread_mutex_lock(&d->lock);
    if (!d->count && !d->ended && !atomic_load(&d->stop))
        idle_wait(&d->more, &d->lock);
    go = d->count > 0 || !d->ended;
    pthread_mutex_unlock(&d->lock);
    if (go)
        g->source_wait = false; /* ask the box again */
    return go;
}

static void *helper_main(void *arg)
{
    struct lane *h = arg;
    struct s3c_error e = S3C_ERROR_INIT;
    struct xfer_obj *o;

    h->rc = engine_run(h->s3, &h->opts, &h->stats, &h->hooks);
    /* Taken and never started (the run stopped): they end cancelled, at home. */
    cancel_error(&e);
    while (lane_pop(h, &o)) {
        h->stats.objects_failed++;
        lane_done(h, o, &e);
    }
    lane_flush(h);
    pthread_mutex_lock(&h->d->lock);
    pthread_cond_signal(&h->d->back);
    pthread_mutex_unlock(&h->d->lock);
    http_loop_wakeup(h->d->lanes[0].loop);
    return NULL;
}

/* ---- home ---------------------------------------------------------------------------- */

/*
 * Start the helpers and split the budgets: the open-files share, the
 * adaptive ceiling, a fixed concurrency (home keeps the remainder). A helper
 * starts from what home has learnt (the store's regions, whether it takes
 * trailers and ?partNumber=, the network seen). One that cannot start is
 * done without: the box is home's too.
 */
static void spawn(struct engine *g, struct deal *d)
{
    int n = d->n_loops, i, cores = usable_cpus();
    int max = adapt_ceiling(&g->opts) / n;
    int fixed = d->user->concurrency > 0 ? d->user->concurrency / n : 0;
    int fd_share = g->fd_cap / n;

    d->spawn_tried = true;
    if (max < 4)
        max = 4;
    if (fd_share < 4)
        fd_share = 4;
    for (i = 1; i < n; i++) {
        struct lane *h = &d->lanes[i];
        struct s3c_error e = S3C_ERROR_INIT;

        h->s3 = store_s3_clone(g->s3, &e);
        if (!h->s3)
            break;
        h->loop = store_s3_loop(h->s3);
        h->opts = *d->user;
        if (d->user->src_store && !(h->src_s3 = h->opts.src_store = store_s3_clone_on(d->user->src_store, h->loop, &e))) {
            store_s3_free(h->s3);
            h->s3 = NULL;
            break;
        }
        h->opts.next = lane_next;
        h->opts.next_ctx = h;
        h->opts.done = lane_done;
        h->opts.done_ctx = h;
        h->opts.progress = d->user->progress ? lane_publish : NULL;
        h->opts.progress_ctx = h;
        h->opts.concurrency = fixed;
        h->opts.max_concurrency = max;
        h->seed.any_ok = g->any_ok;
        h->seed.no_part_number = g->no_part_number;
        h->seed.no_trailers = g->no_trailers;
        h->seed.flex_known = g->flex_known;
        h->seed.link_latency_s = g->link_latency_s;
        h->seed.link_bytes_s = g->link_bytes_s;
        h->seed.fd_cap = fd_share;
        h->seed.hash_threads = cores / n > 1 ? cores / n : 1;
        h->seed.relay_max = RELAY_MEM_MAX / (uint64_t)n; /* relays' bytes in memory: the run's, shared */
        if (pthread_create(&h->thread, NULL, helper_main, h)) {
            store_s3_free(h->src_s3); /* first: it borrows the other's loop */
            store_s3_free(h->s3);
            h->s3 = h->src_s3 = NULL;
            break;
        }
        atomic_store(&d->spawned, i);
    }
    if (!atomic_load(&d->spawned))
        return;
    g->fd_cap = fd_share;
    g->relay_max = RELAY_MEM_MAX / (uint64_t)n;
    g->opts.max_concurrency = max;
    if (fixed)
        g->cap = d->user->concurrency - (n - 1) * fixed;
    else if (g->cap > max)
        g->cap = max;
    if (g->cap > g->fd_cap)
        g->cap = g->fd_cap;
    store_s3_debugf(g->s3, "xfer: %d event loops", atomic_load(&d->spawned) + 1);
}

/*
 * Home's loop is full (fill stopped with the source still giving): deal what
 * the source gives into the box, up to its target. A delete or a standard
 * I/O object stays home (deletes share DeleteObjects batches; stdin is
 * polled by home's loop): it becomes home's next object and dealing stops.
 */
static void deal_more(struct engine *g, struct deal *d)
{
    struct xfer_obj *batch[DEAL_BOX_MAX];
    int n = 0, room, i;

    if (d->user_done || g->source_done || g->source_wait || g->source_later || g->held ||
        (d->spawn_tried && !atomic_load(&d->spawned)))
        return;
    room = (d->spawn_tried ? box_target(d) : DEAL_SPAWN) - atomic_load(&d->peek);
    while (n < room) {
        struct xfer_obj *o = NULL;
        int r;

        lag_next_begin();
        r = d->user->next(d->user->next_ctx, &o);
        lag_next_end();

        if (r == XFER_NEXT_ONE && (o->op == XFER_DELETE || o->stdio)) {
            g->held = o;
            break;
        }
        if (r == XFER_NEXT_ONE) {
            batch[n++] = o;
            continue;
        }
        if (r == XFER_NEXT_WAIT)
            g->source_wait = true;
        else if (r == XFER_NEXT_LATER)
            g->source_later = true;
        else
            d->user_done = true;
        break;
    }
    if (!n && !d->user_done)
        return;
    pthread_mutex_lock(&d->lock);
    for (i = 0; i < n; i++)
        d->box[(d->head + d->count++) % DEAL_BOX_MAX] = batch[i];
    atomic_store(&d->peek, d->count);
    if (d->user_done)
        d->ended = true;
    pthread_cond_broadcast(&d->more);
    pthread_mutex_unlock(&d->lock);
    d->outstanding += n;
    if (!d->spawn_tried && atomic_load(&d->peek) >= DEAL_SPAWN)
        spawn(g, d);
}

/* Home's source: its batch, then the box, then the caller's source. */
static int home_next(void *ctx, struct xfer_obj **out)
{
    struct lane *ln = ctx;
    struct deal *d = ln->d;
    int r;

    if (lane_pop(ln, out))
        return XFER_NEXT_ONE;
    if (atomic_load(&d->peek) > 0) {
        pthread_mutex_lock(&d->lock);
        box_take(d, ln);
        pthread_mutex_unlock(&d->lock);
        d->outstanding -= ln->n_mine;
        if (lane_pop(ln, out))
            return XFER_NEXT_ONE;
    }
    if (d->user_done)
        return XFER_NEXT_END;
    r = d->user->next(d->user->next_ctx, out);
    if (r == XFER_NEXT_END) {
        d->user_done = true;
        box_close(d);
    }
    return r;
}

/* One loop's counts added to another's (progress, and the run's end). */
static void stats_add(struct xfer_stats *to, const struct xfer_stats *from)
{
    to->objects_ok += from->objects_ok;
    to->objects_failed += from->objects_failed;
    to->bytes += from->bytes;
    to->bytes_live += from->bytes_live;
    to->inflight += from->inflight;
    to->requests += from->requests;
    to->retries += from->retries;
    to->hedged += from->hedged;
    to->hedge_wins += from->hedge_wins;
    to->slow_resent += from->slow_resent;
    to->peak_concurrency += from->peak_concurrency;
}

static void home_progress(void *ctx, const struct xfer_stats *now)
{
    struct lane *ln = ctx;
    struct deal *d = ln->d;
    struct xfer_stats sum = *now;
    int i, n = atomic_load(&d->spawned);

    pthread_mutex_lock(&d->lock);
    for (i = 1; i <= n; i++)
        stats_add(&sum, &d->live[i]);
    pthread_mutex_unlock(&d->lock);
    d->user->progress(d->user->progress_ctx, &sum);
}

/* The helpers' finished objects: the caller hears of each, on this thread.
 * Returns how many; *lost: some could not come back (out of memory). */
static int home_reap(struct deal *d, bool *lost)
{
    struct ret *r, *next;
    uint64_t n_lost;
    int n = 0;

    pthread_mutex_lock(&d->lock);
    r = d->rets;
    d->rets = NULL;
    d->rets_tail = &d->rets;
    n_lost = d->lost;
    d->lost = 0;
    pthread_mutex_unlock(&d->lock);
    d->outstanding -= (int)n_lost;
    *lost = n_lost > 0;
    for (; r; r = next) {
        next = r->next;
        d->outstanding--;
        n++;
        if (d->user->done)
            d->user->done(d->user->done_ctx, r->o, r->failed ? &r->err : NULL);
        xfer_obj_free(r->o);
        free(r);
    }
    return n;
}

static void home_take_back(struct engine *g, struct deal *d)
{
    bool lost;

    if (!atomic_load(&d->spawned))
        return; /* no helper: nothing comes back */
    if (home_reap(d, &lost))
        g->source_wait = false; /* a done may let the source give more (mv's deletes) */
    if (lost && !g->first_error)
        g->first_error = S3C_ENOMEM;
}

/* The run stops: what waits in the box, or in home's batch, ends cancelled. */
static void home_drain(struct engine *g, struct lane *ln)
{
    struct deal *d = ln->d;
    struct xfer_obj *left[DEAL_BOX_MAX + DEAL_BATCH];
    struct s3c_error e = S3C_ERROR_INIT;
    int k = 0, i;

    while (lane_pop(ln, &left[k]))
        k++;
    pthread_mutex_lock(&d->lock);
    for (; d->count > 0; d->count--, d->outstanding--) {
        left[k++] = d->box[d->head];
        d->head = (d->head + 1) % DEAL_BOX_MAX;
    }
    atomic_store(&d->peek, 0);
    d->ended = true;
    pthread_cond_broadcast(&d->more);
    pthread_mutex_unlock(&d->lock);
    cancel_error(&e);
    for (i = 0; i < k; i++) {
        g->stats.objects_failed++;
        if (d->user->done)
            d->user->done(d->user->done_ctx, left[i], &e);
        xfer_obj_free(left[i]);
    }
}

static void home_setup(struct engine *g)
{
    (void)g;
}

static void home_turn(struct engine *g)
{
    struct lane *ln = g->lane;
    struct deal *d = ln->d;

    home_take_back(g, d);
    stop_sync(g, ln);
    atomic_store(&d->refill_asked, false);
    if (stopping(g))
        home_drain(g, ln);
    else
        deal_more(g, d);
    atomic_store(&d->home_wants, g->source_wait);
}

/* Home has nothing of its own left: go on while helpers hold objects of the run. */
static bool home_idle(struct engine *g)
{
    struct lane *ln = g->lane;
    struct deal *d = ln->d;

    home_take_back(g, d);
    if (stopping(g))
        home_drain(g, ln);
    if (atomic_load(&d->peek) > 0) {
        g->source_wait = false; /* dealt before the source said WAIT, and no helper took them */
        return true;
    }
    if (d->outstanding <= 0) {
        box_close(d); /* idle helpers end */
        return false;
    }
    pthread_mutex_lock(&d->lock);
    if (!d->rets && !d->lost)
        idle_wait(&d->back, &d->lock);
    pthread_mutex_unlock(&d->lock);
    return true;
}

/* ---- the run ------------------------------------------------------------------------- */

static struct deal *deal_new(int n, const struct xfer_opts *user, struct store_s3 *s)
{
    struct deal *d = calloc(1, sizeof(*d));
    int i;

    if (!d)
        return NULL;
    pthread_mutex_init(&d->lock, NULL);
    pthread_cond_init(&d->more, NULL);
    pthread_cond_init(&d->back, NULL);
    atomic_init(&d->peek, 0);
    atomic_init(&d->stop, false);
    atomic_init(&d->home_wants, false);
    atomic_init(&d->refill_asked, false);
    atomic_init(&d->spawned, 0);
    d->rets_tail = &d->rets;
    d->n_loops = n;
    d->user = user;
    for (i = 0; i < n; i++) {
        struct lane *ln = &d->lanes[i];

        ln->d = d;
        ln->idx = i;
        ln->out_tail = &ln->out;
        ln->hooks.lane = ln;
        ln->hooks.setup = i ? helper_setup : home_setup;
        ln->hooks.turn = i ? helper_turn : home_turn;
        ln->hooks.idle = i ? helper_idle : home_idle;
    }
    d->lanes[0].loop = store_s3_loop(s);
    return d;
}

static void deal_free(struct deal *d)
{
    pthread_cond_destroy(&d->back);
    pthread_cond_destroy(&d->more);
    pthread_mutex_destroy(&d->lock);
    free(d);
}

enum s3c_err xfer_run(struct store_s3 *s, const struct xfer_opts *opts, struct xfer_stats *stats)
{
    int n = loops_wanted(opts), i, spawned;
    struct xfer_stats home_stats = { 0 };
    struct xfer_opts home;
    struct deal *d;
    enum s3c_err rc;

    if (n < 2 || !(d = deal_new(n, opts, s)))
        return engine_run(s, opts, stats, NULL);
    home = *opts;
    home.next = home_next;
    home.next_ctx = &d->lanes[0];
    if (opts->progress) {
        home.progress = home_progress;
        home.progress_ctx = &d->lanes[0];
    }
    rc = engine_run(s, &home, &home_stats, &d->lanes[0].hooks);
    box_close(d);
    spawned = atomic_load(&d->spawned);
    for (i = 1; i <= spawned; i++) {
        struct lane *h = &d->lanes[i];

        pthread_join(h->thread, NULL);
        stats_add(&home_stats, &h->stats);
        if (!rc && h->rc)
            rc = h->rc;
    }
    /* Home ends once every object dealt is back; anything still here came too late. */
    {
        bool lost;

        home_reap(d, &lost);
        if (lost && !rc)
            rc = S3C_ENOMEM;
    }
    for (i = 1; i <= spawned; i++) {
        store_s3_free(d->lanes[i].src_s3); /* first: it borrows the other's loop */
        store_s3_free(d->lanes[i].s3);
    }
    if (stats)
        *stats = home_stats;
    deal_free(d);
    return rc;
}
