/*
 * The engine's loop. Four steps a turn, as curl's parallel loop: fill (start
 * objects and requests up to the cap), step (poll and perform), drain (req_done
 * judges each finished request and hands it on through the tables below),
 * adapt (the cap). The top of the engine but for loops.c, which runs it once
 * per event loop: it may call any engine file, none but loops.c calls it.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/lag.h"
#include "store/store_fs.h"
#include "xfer/engine.h"
#include "xfer/land.h"

#define START_CONCURRENCY 64
#define DELETE_OPEN_MAX 16                      /* buckets with a batch being filled */
#define LAND_BACKLOG_MAX 256                    /* small bodies waiting for land workers (16 MiB) */
#define PARKED_MAX 64                           /* answered parts waiting for their MD5: start no more */
#define PROVING_MAX 64                          /* same-second proofs hashing: take no new object */

/*
 * Who takes each kind of request's answer (req_done) and body (req_submit):
 * the one place the engine names its families.
 */
static const struct req_ops req_kinds[RK_COUNT] = {
    [RK_PUT] = { .read = read_src, .ok = on_put },
    [RK_CREATE] = { .ok = on_create, .late = abort_late_upload },
    [RK_PART] = { .read = read_src, .ok = on_part },
    [RK_COMPLETE] = { .ok = on_complete, .failed = complete_failed },
    [RK_ABORT] = { .ok = on_abort, .gave_up = abort_gave_up },
    [RK_GET] = { .sink = write_dst, .ok = on_get },
    [RK_COPY] = { .ok = on_copy, .refused = copy_refused },
    [RK_RENAME] = { .ok = on_rename, .refused = rename_refused },
    [RK_COPY_PART] = { .ok = on_part, .refused = part_copy_refused },
    [RK_HEAD_SRC] = { .ok = on_head_src },
    [RK_DELETE] = { .ok = on_delete_batch, .gave_up = del_batch_fail },
    [RK_DELETE_ONE] = { .ok = on_delete_one, .refused = delete_one_refused },
    [RK_RESTORE] = { .ok = on_restore, .refused = restore_refused },
    [RK_HEAD_INFO] = { .ok = on_head_info },
    [RK_HEAD_PART1] = { .ok = on_head_part1, .refused = head_part1_refused },
    [RK_LIST_PARTS] = { .ok = on_list_parts, .refused = list_parts_refused },
    [RK_HEAD_DST] = { .ok = on_head_dst, .failed = head_dst_failed },
    [RK_GET_TAGS] = { .ok = on_src_tags, .refused = src_tags_refused },
    [RK_PUT_TAGS] = { .ok = on_put_tags },
    [RK_CHECK_TAGS] = { .ok = on_check_tags },
    [RK_ABORT_STALE] = { .ok = on_stale_aborted, .refused = stale_abort_refused, .gave_up = stale_abort_gave_up },
    [RK_CHECK_DST] = { .ok = on_check_dst, .refused = check_dst_refused, .gave_up = check_dst_gave_up },
    [RK_HEAD_SOURCE] = { .ok = on_head_source, .refused = head_source_refused, .gave_up = head_source_gave_up },
    [RK_HEAD_BUCKET] = { .ok = on_head_bucket, .refused = head_bucket_refused, .gave_up = head_bucket_gave_up },
    [RK_PROVE_SRC] = { .ok = on_prove_head, .refused = prove_head_refused, .gave_up = prove_head_gave_up },
    [RK_PROVE_DST] = { .ok = on_prove_head, .refused = prove_head_refused, .gave_up = prove_head_gave_up },
    [RK_GET_VERSIONING] = { .ok = on_versioning, .refused = versioning_refused, .gave_up = versioning_gave_up },
    [RK_RELAY_GET] = { .sink = relay_sink, .ok = on_relay_get },
    [RK_APPEND] = { .ok = on_append, .refused = append_refused },
    [RK_APPEND_HEAD] = { .ok = on_append_head, .refused = append_head_refused },
};

/* How each family's objects start, run their parts, end and are freed. */
static const struct obj_ops obj_kinds[FAM_COUNT] = {
    [FAM_UPLOAD] = { .size = sizeof(struct obj_upload), .start = upload_start, .end = journal_release,
                     .release = upload_release, .part_kind = RK_PART },
    [FAM_STDIN] = { .size = sizeof(struct obj_stdin), .start = stdin_start, .release = stdin_release,
                    .next_part = next_stream_part, .failed = stdin_failed, .part_kind = RK_PART },
    [FAM_COPY] = { .size = sizeof(struct obj_copy), .start = copy_start, .end = journal_release,
                   .release = copy_release, .redo = copy_redo, .failed = relay_failed, .part_kind = RK_COPY_PART },
    [FAM_DL_FILE] = { .size = sizeof(struct obj_dl_file), .start = download_start, .end = dl_end,
                      .release = dl_file_release, .part_kind = RK_GET, .ranges = dl_start },
    [FAM_DL_STDOUT] = { .size = sizeof(struct obj_dl_stdout), .start = stdout_start, .end = stdout_obj_end,
                        .release = stdout_release, .part_wait = stdout_window_full, .part_kind = RK_GET,
                        .ranges = stdout_parts_go, .get_sink = stdout_sink, .get_ok = on_stdout_get },
    [FAM_DELETE] = { .size = sizeof(struct xfer_obj_state), .start = del_start },
    [FAM_RESTORE] = { .size = sizeof(struct xfer_obj_state), .start = restore_start },
};

/* Which family an object is of: standard I/O is stdout for a download, stdin for anything else. */
static enum obj_family obj_family_of(const struct xfer_obj *o)
{
    if (o->stdio)
        return o->op == XFER_DOWNLOAD ? FAM_DL_STDOUT : FAM_STDIN;
    switch (o->op) {
    case XFER_UPLOAD: return FAM_UPLOAD;
    case XFER_DOWNLOAD: return FAM_DL_FILE;
    case XFER_COPY: return FAM_COPY;
    case XFER_RESTORE: return FAM_RESTORE;
    case XFER_DELETE: break;
    }
    return FAM_DELETE;
}

/* Who hears of every request sent and finished: hedged requests, slow transfers. */
static const struct req_watch req_watching = { .sent = hedge_sent, .done = hedge_done };

/* ---- filling ------------------------------------------------------------------- */

/* Set up an object and return its first request (NULL when it failed at once
 * and has been finished, or when its first requests are parts on the active list
 * or it waits in a delete batch, or its same-second proof hashes): its destination's
 * HEAD when it needs one looked at, a HEAD its proof asks. */
static struct req *obj_start(struct engine *g, struct xfer_obj *o)
{
    enum obj_family fam = obj_family_of(o);
    struct xfer_obj_state *os = calloc(1, g->ops[fam].size);
    struct s3c_error e = S3C_ERROR_INIT;
    struct req *r = NULL;

    if (!os) {
        s3c_fail(&e, S3C_ENOMEM, "out of memory");
        g->stats.objects_failed++;
        obj_report(g, o, &e);
        return NULL;
    }
    os->o = o;
    os->family = fam;
    os->fd = -1;
    o->st = os;
    g->n_objects++;
    /* A source known by name alone, then --no-clobber & co. on an S3 destination: a HEAD first, in
     * flight like any request (check.c). */
    if (o->src_head) {
        if ((r = source_start(g, os)))
            return r;
        s3c_fail(&e, S3C_ENOMEM, "out of memory");
        goto fail;
    }
    /* sync's same second: a checksum may prove the copy needless (prove.c), then as below. Never with
     * src_head: an entry sync knows by name alone has no time to be in the same second. */
    if (o->same_second && !o->src_head)
        return prove_start(g, os);
    if (check_wanted(g, o) && (r = check_start(g, os)))
        return r;
    os->started = true;
    if (g->ops[fam].start(g, os, &r, &e))
        goto fail;
    return r;
fail:
    os->failed = true;
    os->err = e;
    obj_phase_set(g, os, PH_END);
    obj_finish(g, os);
    return NULL;
}

static struct req *next_part(struct engine *g)
{
    struct xfer_obj_state *os = g->active;
    struct req *r;
    uint32_t n;

    if (!os)
        return NULL;
    if (g->ops[os->family].next_part)
        return g->ops[os->family].next_part(g, os);
    if (os->family == FAM_COPY && copy_of(os)->relay)
        return relay_next(g, os);
    /* --resume: parts the store already has are not sent again. */
    while (os->have && os->next_part <= os->n_parts && os->have[os->next_part - 1])
        os->next_part++;
    if (os->next_part > os->n_parts) {
        active_remove(g, os);
        return next_part(g);
    }
    if (g->ops[os->family].part_wait && g->ops[os->family].part_wait(os))
        return NULL; /* stdout's window is full: the head part has to go out (and be hashed) first */
    if (g->parked >= PARKED_MAX)
        return NULL; /* the hash workers are behind: what waits for them is still in the page cache */
    n = os->next_part++;
    if (os->next_part > os->n_parts)
        active_remove(g, os);
    r = req_get(g, os, g->ops[os->family].part_kind);
    if (!r)
        return NULL;
    r->part = n;
    r->off = (uint64_t)(n - 1) * os->part_size;
    r->len = n == os->n_parts ? os->size - r->off : os->part_size;
    if (r->kind == RK_COPY_PART && copy_source(os->o, &r->hdr_copy_src)) {
        req_put_back(g, r);
        return NULL;
    }
    return r;
}

/* The bucket an object's requests go to. */
static const char *obj_bucket(const struct xfer_obj *o)
{
    return o->op == XFER_DOWNLOAD || o->op == XFER_DELETE || o->op == XFER_RESTORE ? o->src_bucket : o->dst_bucket;
}

/*
 * Whether 'o' must wait: the first request to its bucket is still out to
 * learn where the bucket lives (store_s3_may_send), and the rest would be
 * signed for a region that may be wrong. With nothing in flight there is
 * nothing to wait for.
 */
static bool obj_must_wait(struct engine *g, const struct xfer_obj *o)
{
    const char *b = obj_bucket(o);
    struct store_s3 *s = o->op == XFER_DOWNLOAD || (o->op == XFER_DELETE && g->opts.src_deletes) ? g->src_s3 : g->s3;

    return g->inflight > 0 && b && *b && !store_s3_may_send(s, b);
}

/*
 * retry_mode = adaptive, once the store throttled: the client-side rate
 * limiter says when 'r' may go. Until then it waits with the retries (its
 * attempt unchanged) and nothing more is sent this turn.
 */
static bool hold_for_rate(struct engine *g, struct req *r, int64_t now)
{
    long wait_ms = store_s3_rate_wait_ms(req_store(g, r));

    if (wait_ms <= 0)
        return false;
    r->due_ms = now + wait_ms;
    r->next = g->retry;
    g->retry = r;
    return true;
}

static void fill(struct engine *g)
{
    int64_t now = now_ms();

    while (g->inflight < g->cap) {
        struct req *r;

        if (g->opts.bwlimit_bytes_s && g->bw_tokens <= 0)
            break;
        r = due_retry(g, now);
        struct xfer_obj *o = NULL;

        if (!r && !stopping(g))
            r = next_part(g);
        if (!r && !stopping(g)) {
            if (g->cond_gate.n)
                gate_drain(g, &g->cond_gate, g->cond_del != COND_DEL_UNKNOWN, del_route);
            if (g->rename_gate.n)
                gate_drain(g, &g->rename_gate, g->rename_ok || g->no_rename, copy_route);
            r = del_next_batch(g);
        }
        if (!r) {
            /* A closed batch waiting for room holds the source back: memory stays bounded. */
            if (g->source_done || g->source_wait || g->source_later || stopping(g) || g->del.ready)
                break;
            /* Each started object may hold a file open, even while it waits
             * to retry: start no more than the open-files limit allows. */
            if (g->n_objects >= g->fd_cap)
                break;
            /* Bodies waiting for a worker are memory: bound them. */
            if (g->landing >= LAND_BACKLOG_MAX)
                break;
            /* So are proofs with the hash workers, each with its file open. */
            if (g->proving >= PROVING_MAX)
                break;
            if (g->held) {
                o = g->held;
                g->held = NULL;
            } else {
                int got;

                lag_next_begin(); /* the source may not wait on this loop (S3C_CHECK_NEXT_WAITS) */
                got = g->opts.next(g->opts.next_ctx, &o);
                lag_next_end();
                switch (got) {
                case XFER_NEXT_ONE:
                    break;
                case XFER_NEXT_WAIT:
                    g->source_wait = true;
                    continue; /* open batches may go now */
                case XFER_NEXT_LATER:
                    g->source_later = true; /* its page comes in with the loop's step */
                    continue;
                default:
                    g->source_done = true;
                    continue;
                }
            }
            if (obj_must_wait(g, o)) {
                g->held = o;
                break;
            }
            r = obj_start(g, o);
            if (!r)
                continue;
        }
        if (hold_for_rate(g, r, now))
            break;
        submit_or_fail(g, r);
    }
}

/* ---- the loop ---------------------------------------------------------------------- */

static void cancel_all(struct engine *g)
{
    struct s3c_error e = S3C_ERROR_INIT;
    struct req *r, **pp;

    s3c_fail(&e, S3C_ECANCEL, "%s", cancel_requested ? "interrupted" : "stopped");
    del_cancel(g, &e);
    gate_cancel(g, &g->rename_gate, &e);
    if (g->held) {
        /* Taken from the source but never started: it fails as it stands. */
        g->stats.objects_failed++;
        obj_report(g, g->held, &e);
        g->held = NULL;
    }
    while (g->active) {
        struct xfer_obj_state *os = g->active;
        obj_fail(g, os, &e);
        maybe_finish(g, os);
    }
    for (pp = &g->retry; (r = *pp);) {
        if (r->kind == RK_ABORT) {
            pp = &r->next; /* aborts still run: they are the clean-up */
            continue;
        }
        *pp = r->next;
        req_fail(g, r, &e, false, 0);
    }
}

enum s3c_err engine_run(struct store_s3 *s, const struct xfer_opts *opts, struct xfer_stats *stats,
                        const struct engine_hooks *hooks)
{
    struct engine *g = calloc(1, sizeof(*g));
    int64_t t0 = now_ms();
    bool cancelled = false;
    enum s3c_err rc;

    if (!g)
        return S3C_ENOMEM;
    g->s3 = s;
    g->src_s3 = opts->src_store ? opts->src_store : s;
    g->loop = store_s3_loop(s);
    g->opts = *opts;
    g->kinds = req_kinds;
    g->ops = obj_kinds;
    /* A request in flight holds a socket and often a file: keep them inside
     * the open-files limit (raised to the hard limit first), with room to spare. */
    g->fd_cap = (int)((fs_raise_nofile() - 64) / 2);
    if (g->fd_cap < 4)
        g->fd_cap = 4;
    g->cap = opts->concurrency > 0 ? opts->concurrency : START_CONCURRENCY;
    g->del = (struct xfer_del_queue)XFER_DEL_QUEUE_INIT(DELETE_OPEN_MAX);
    if (g->cap > g->fd_cap)
        g->cap = g->fd_cap;
    g->best_cap = g->cap;
    g->window_start_ms = t0;
    g->t0_ms = t0;
    g->bw_last_ms = t0;
    g->slow_start = true;
    g->bw_tokens = 65536;
    g->stats.peak_concurrency = g->cap;
    if ((g->hedge = hedge_new(opts->hedge_budget)))
        g->watch = &req_watching;
    g->hooks = hooks;
    if (hooks) {
        g->lane = hooks->lane;
        hooks->setup(g);
    }
    lag_loop_enter(); /* this thread is an event loop until the run ends (S3C_LOOP_LAG_MS) */
    for (;;) {
        struct req *done;
        int64_t now;
        int wait_ms = 100;

        if (stopping(g) && !cancelled) {
            cancelled = true;
            http_loop_cancel_all(g->loop);
            hashpool_cancel(g->hash); /* MD5s under way end at their next slice */
            cancel_all(g);
        }
        bw_refill(g, now_ms());
        g->stdin_wait = false;
        fill(g);
        if (g->hooks)
            g->hooks->turn(g); /* objects and results across the loops (loops.c) */
        if (g->inflight > g->window_peak)
            g->window_peak = g->inflight;
        if (g->inflight == 0 && !g->retry && !g->done && !g->active && !g->held && !g->source_later &&
            xfer_del_idle(&g->del) && !g->landing && !g->hashing) {
            /* A source that waits with nothing in flight has nothing left to wait for
             * (but for what the other loops may still hand this one: it waited for it). */
            if (g->source_done || g->source_wait || cancelled) {
                if (g->hooks && g->hooks->idle(g))
                    continue;
                break;
            }
            if (g->opts.bwlimit_bytes_s && g->bw_tokens <= 0)
                http_loop_wait_fd(g->loop, 5, -1); /* waiting for bandwidth tokens */
            continue;
        }
        now = now_ms();
        if (g->retry) {
            struct req *r;
            int64_t soonest = INT64_MAX;
            for (r = g->retry; r; r = r->next)
                if (r->due_ms < soonest)
                    soonest = r->due_ms;
            wait_ms = soonest <= now ? 0 : (int)(soonest - now < 100 ? soonest - now : 100);
        }
        if (g->opts.bwlimit_bytes_s && wait_ms > 10)
            wait_ms = 10; /* come back to refill the bucket */
        if (g->inflight > 0 && hedge_wait_ms(g) < wait_ms)
            wait_ms = hedge_wait_ms(g); /* an answer comes due, or slow transfers are looked at */
        if (g->source_later && wait_ms > XFER_LATER_MS)
            wait_ms = XFER_LATER_MS; /* the source's listing: an overdue page or a retry due soon */
        if (g->inflight > 0)
            http_loop_step_fd(g->loop, wait_ms > 0 ? wait_ms : 1, g->stdin_wait ? STDIN_FILENO : -1);
        else if (wait_ms > 0 && !g->done)
            /* Nothing in flight: wait for a worker (land or hash: each wakes the
             * loop as a job ends), another loop, stdin or a retry coming due. */
            http_loop_wait_fd(g->loop, wait_ms, g->stdin_wait ? STDIN_FILENO : -1);
        g->source_later = false; /* stepped: the source may have its page now */
        land_reap(g);
        hash_reap(g);
        while ((done = g->done)) {
            g->done = done->next;
            done->next = NULL;
            req_done(g, done);
        }
        hedge_tick(g);
        adapt(g);
    }
    lag_loop_leave();
    jsync_free(g->jsync); /* the records asked for are on disk before the run returns */
    land_free(g->land);
    hashpool_free(g->hash);
    hedge_free(g->hedge);
    gate_free(&g->cond_gate);
    gate_free(&g->rename_gate);
    g->stats.seconds = (double)(now_ms() - t0) / 1000.0;
    if (stats)
        *stats = g->stats;
    rc = cancel_requested ? S3C_ECANCEL : g->stop ? g->stop_err.code : g->first_error;
    while (g->free_reqs) {
        struct req *r = g->free_reqs;
        g->free_reqs = r->next;
        store_s3_call_release(&r->call);
        hash_free(r->md5);
        hash_free(r->sha);
        buf_release(&r->mem);
        buf_release(&r->query);
        buf_release(&r->hdr_copy_src);
        free(r);
    }
    dl_bufs_free(g);
    relay_bufs_free(g);
    free(g);
    return rc;
}
