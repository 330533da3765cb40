/*
 * How fast the engine goes: the concurrency controller (adapt: the cap on
 * requests in flight, hill-climbing on throughput), the --bwlimit token
 * bucket, and what finished requests show of the network (link_observe: the
 * first-byte latency and one connection's bandwidth, which size parts).
 * Reads and writes engine counters only; calls no other engine file.
 */
#include "xfer/engine.h"

#define ADAPT_WINDOW_MIN_MS 50
#define ADAPT_WINDOW_MAX_MS 500
#define ADAPT_BUSY 0.9                  /* of a window on the CPU: the loop has no time to wait */
#define LINK_SMALL_BODY (64 << 10)      /* a request body this small takes no time to send */
#define LINK_BIG_BODY (1 << 20)         /* a body this large shows a connection's bandwidth */
#define LINK_WEIGHT 0.125               /* of a new sample in the running means */

/* --bwlimit: a token bucket of bytes; callbacks pause when it is empty. */
bool bw_take(struct engine *g, size_t *n)
{
    if (!g->opts.bwlimit_bytes_s)
        return true;
    if (g->bw_tokens <= 0) {
        g->bw_paused = true;
        return false;
    }
    if ((double)*n > g->bw_tokens)
        *n = (size_t)g->bw_tokens > 0 ? (size_t)g->bw_tokens : 1;
    g->bw_tokens -= (double)*n;
    return true;
}

void bw_refill(struct engine *g, int64_t now)
{
    double rate = (double)g->opts.bwlimit_bytes_s, burst = rate / 20 > 65536 ? rate / 20 : 65536;

    if (!g->opts.bwlimit_bytes_s)
        return;
    g->bw_tokens += rate * (double)(now - g->bw_last_ms) / 1000.0;
    if (g->bw_tokens > burst)
        g->bw_tokens = burst;
    g->bw_last_ms = now;
    if (g->bw_paused && g->bw_tokens > 0) {
        g->bw_paused = false;
        http_loop_resume(g->loop);
    }
}

/* This thread's CPU time (the loop's, not the workers'), in microseconds. */
static int64_t loop_cpu_us(void)
{
    struct timespec ts;

    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts))
        return 0;
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/*
 * Hill-climb on throughput: every window, a request counts as 64 KiB of work
 * plus its bytes, so small-object and large-object runs share one measure.
 * A body sent counts when its answer comes (link_observe), not as curl takes
 * it: each new connection's socket buffer swallows megabytes at once, which
 * looks like throughput to every doubling of slow start.
 * More concurrency is kept while it pays (5% better), given back when it
 * hurts (20% worse), and halved-ish on throttling, as AIMD does.
 * A loop that was on the CPU for ADAPT_BUSY of the window is bound by its
 * core, not by requests in flight: more cannot go faster, and each one more
 * costs a little (a connection, its buffers, a bigger epoll set), too little
 * for the 20% rule to see: the cap then drifted to the ceiling, and a relay
 * of small objects at 20 ms on one core ran 5-12% slower at 1,024 than at 512
 * (bench/results/2026-12-04-relay-ceiling.md). It holds while the loop is busy.
 */
/*
 * The most requests in flight adapt() may reach when none is configured:
 * DEFAULT_MAX_CONCURRENCY per service the run talks to. A relay talks to
 * two (GETs and tags from the source, PUTs and parts to the destination),
 * each with its own limits: under one service's ceiling the two sides take
 * turns, and 10,000 small objects at 100 ms relay in 2.6 x the time of
 * downloading them alone (bench/results/2026-12-04-relay-ceiling.md).
 */
int adapt_ceiling(const struct xfer_opts *o)
{
    if (o->max_concurrency)
        return o->max_concurrency;
    return o->relay_copies ? 2 * DEFAULT_MAX_CONCURRENCY : DEFAULT_MAX_CONCURRENCY;
}

void adapt(struct engine *g)
{
    int64_t now = now_ms(), dt = now - g->window_start_ms;
    int max = adapt_ceiling(&g->opts);
    uint64_t bytes = g->work_bytes - g->window_live_start;
    int64_t cpu = loop_cpu_us();
    double rate, busy;
    int next;

    if (max > g->fd_cap)
        max = g->fd_cap;
    /* A window ends once every request in flight could have finished once
     * (so small-object runs adapt within tens of ms), or after 500 ms. */
    if (dt < ADAPT_WINDOW_MIN_MS || (g->window_reqs < (uint64_t)g->cap && dt < ADAPT_WINDOW_MAX_MS))
        return;
    if (g->opts.progress && now - g->progress_ms >= 250) {
        g->progress_ms = now;
        g->stats.inflight = g->inflight;
        g->stats.seconds = (double)(now - g->t0_ms) / 1000.0;
        g->opts.progress(g->opts.progress_ctx, &g->stats);
    }
    rate = ((double)bytes + (double)g->window_reqs * 65536.0) * 1000.0 / (double)dt;
    busy = (double)(cpu - g->window_cpu_start_us) / 1000.0 / (double)dt;
    if (g->opts.concurrency) {
        /* fixed */
    } else if (g->throttled >= 2 && (uint64_t)g->throttled * 20 > g->window_reqs) {
        /* Throttled on more than 5% of a window's requests: the store asks for less.
         * (A stray 503 among many successes is retried, not a reason to slow down.) */
        g->cap = g->cap * 3 / 4 > 4 ? g->cap * 3 / 4 : 4;
        g->best_rate = 0;
        g->best_cap = g->cap;
        g->slow_start = false;
    } else if (g->window_peak >= g->cap * 9 / 10) {
        if (busy >= ADAPT_BUSY && g->window_cpu_start_us) {
            /* Bound by the core: hold (and remember this rate as the one to beat). */
            if (rate > g->best_rate) {
                g->best_rate = rate;
                g->best_cap = g->cap;
            }
            g->stable_windows = 0;
        } else if (rate > g->best_rate * 1.05) {
            /* Slow start doubles while it pays 10%; then steps of a quarter. */
            bool doubling = g->slow_start && rate > g->best_rate * 1.10;
            g->best_rate = rate;
            g->best_cap = g->cap;
            next = doubling ? g->cap * 2 : g->cap + g->cap / 4 + 1;
            g->cap = next < max ? next : max;
            g->stable_windows = 0;
            if (!doubling)
                g->slow_start = false;
        } else if (rate < g->best_rate * 0.8 && g->cap > g->best_cap) {
            g->cap = g->best_cap;
            g->slow_start = false;
        } else if (++g->stable_windows >= 16) {
            /* Probe now and then: the best point moves as the workload does. */
            g->stable_windows = 0;
            g->best_rate *= 0.9;
            g->slow_start = false;
        }
    }
    if (g->cap > g->stats.peak_concurrency)
        g->stats.peak_concurrency = g->cap;
    g->window_start_ms = now;
    g->window_live_start = g->work_bytes;
    g->window_cpu_start_us = cpu;
    g->window_reqs = 0;
    g->window_peak = g->inflight;
    g->throttled = 0;
}

static void link_mean(double *mean, double sample)
{
    *mean = *mean > 0 ? *mean + LINK_WEIGHT * (sample - *mean) : sample;
}

/*
 * A request answered 2xx: what it shows of the network. A GET's first byte
 * comes one latency after the request went; its body then arrives at the
 * connection's pace. A PUT's answer comes after its body (curl's first-byte
 * time is its first byte sent: the whole exchange counts): a small one shows
 * the latency (as does CreateMultipartUpload), a large one (less the
 * latency) the pace. Copies, deletes and Complete show the store's work, not
 * the network, and are not counted.
 */
void link_observe(struct engine *g, const struct req *r)
{
    const struct http_resp *resp = &r->http.resp;
    double wait = resp->first_s - resp->sent_s, body = resp->total_s - resp->first_s;
    double whole = resp->total_s - resp->sent_s;
    bool put = req_sends_data(r->kind);

    if (put)
        g->work_bytes += r->len; /* received bytes count as they come (write_dst) */

    if (r->kind == RK_GET || r->kind == RK_HEAD_INFO || r->kind == RK_HEAD_PART1) {
        if (!(wait > 0 && wait < 60 && body >= 0))
            return;
        link_mean(&g->link_latency_s, wait);
        if (r->kind == RK_GET && r->len >= LINK_BIG_BODY && body > 0.001)
            link_mean(&g->link_bytes_s, (double)r->len / body);
    } else if ((put || r->kind == RK_CREATE) && whole > 0 && whole < 600) {
        if (r->kind == RK_CREATE || r->len <= LINK_SMALL_BODY)
            link_mean(&g->link_latency_s, whole);
        else if (r->len >= LINK_BIG_BODY && g->link_latency_s > 0 && whole - g->link_latency_s > 0.001)
            link_mean(&g->link_bytes_s, (double)r->len / (whole - g->link_latency_s));
    }
}
