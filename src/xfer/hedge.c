/*
 * Hedged requests and slow connections. A request whose answer is overdue
 * against the waits the run has seen (their 98th percentile, from a log
 * histogram: O(1) a request, no sort) gets a duplicate on another
 * connection while the budget allows (a token bucket: every request sent
 * adds 'budget' tokens, a duplicate takes one). The first of the two to
 * answer wins; the other is cut off, and none of its bytes is taken. A
 * duplicate overdue in its turn is replaced by a fresh one (overdue). A
 * large transfer that moves under a quarter of the median pace of finished
 * ones, and of the others moving with it, is cut off and sent again on a
 * new connection, as aws-c-s3 does (slow_scan).
 * Only requests a duplicate cannot harm are hedged (hedgeable, from each
 * kind's req_dup in build.c's table): reads and parts freely; a whole-object
 * write (PutObject) only where a second one is invisible: a bucket this run
 * learnt was never versioned (GetBucketVersioning, asked once a run for each
 * bucket, RK_GET_VERSIONING, as an ordinary request of this loop: no loop
 * waits for it), and never with a condition (If-None-Match, If-Match).
 * Told of requests by req.c (struct req_watch); calls req.c and the http loop.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "s3/endpoint.h"
#include "s3/xml.h"
#include "xfer/engine.h"

#define HEDGE_PCT 0.98                          /* a wait past this percentile is overdue... */
#define HEDGE_MEDIAN_MULT 1.5                   /* ...and past 1.5 times the median... */
#define HEDGE_MIN_NS ((int64_t)2000000)         /* ...and past 2 ms */
#define HEDGE_MIN_SAMPLES 32                    /* waits seen before any duplicate */
#define HEDGE_TWINS_MAX 3                       /* duplicates of one request, one at a time */
#define HEDGE_TOKENS_MAX 64.0                   /* duplicates the budget can save up */
#define HEDGE_DEFAULT_BUDGET 0.03               /* duplicates per request sent */
#define HIST_N 160                              /* 4 buckets a power of two, up to 2^40 */
#define HIST_DECAY 4096                         /* samples kept, about: older ones fade */
#define SLOW_MIN_BYTES ((uint64_t)1 << 20)      /* a transfer this large is watched for its pace */
#define SLOW_GRACE_NS ((int64_t)1000000000)     /* and judged after this long moving bytes */
#define SLOW_FACTOR 4                           /* slow: under a quarter of the median pace */
#define SLOW_MIN_SAMPLES 3                      /* finished large transfers before any is judged */
#define SLOW_CHECK_NS ((int64_t)100000000)      /* large transfers are looked at this often */
#define SLOW_RESENDS_MAX 2                      /* a request is cut off as slow at most this often */
#define SLOW_PEERS_MIN 3                        /* transfers moving at once to judge one against the others */
#define SLOW_BUDGET 0.05                        /* slow re-sends per request sent, at most */
#define BIG_WAIT_MULT 4                         /* a large body sent: its answer overdue after 4 delays */
#define BIG_WAIT_EXTRA_NS ((int64_t)50000000)   /* and 50 ms (the socket's buffer still drains) */
#define KNOWN_MAX 8                             /* buckets whose versioning this loop remembers */

/* Counts of values in buckets of a quarter of a power of two (under 8: one each). */
struct hist {
    uint32_t n[HIST_N];
    uint32_t total;
};

struct hedge {
    double budget;                  /* tokens a request sent adds; 0: no duplicates */
    double tokens;
    struct hist wait;               /* ns from a request all sent to its answer's first byte */
    struct hist pace;               /* bytes/s of finished large transfers */
    uint32_t since;                 /* waits added since delay_ns was computed */
    int64_t delay_ns;               /* an answer later than this is overdue; INT64_MAX: none yet */
    struct req *head, *tail;        /* the wait list, oldest first */
    struct req *big;                /* large transfers in flight */
    struct req *pairs;              /* hedged pairs, by their originals */
    int64_t slow_check_ns;          /* when the large ones were last looked at */
    /* Buckets whose versioning the run has learnt (the store's table, under a
     * lock, is asked only until then): whether a whole-object write there may
     * be hedged. */
    struct {
        char bucket[64];
        bool dup_ok;
    } known[KNOWN_MAX];
    unsigned n_known;
};

/* ---- the histograms ---------------------------------------------------------------- */

static int hist_bucket(uint64_t v)
{
    int msb, i;

    if (v < 8)
        return (int)v;
    msb = 63 - __builtin_clzll(v);
    i = msb * 4 + (int)((v >> (msb - 2)) & 3);
    return i < HIST_N ? i : HIST_N - 1;
}

/* The largest value of bucket i. */
static uint64_t hist_top(int i)
{
    if (i < 8)
        return (uint64_t)i;
    return ((uint64_t)(5 + i % 4) << (i / 4 - 2)) - 1;
}

static void hist_add(struct hist *h, uint64_t v)
{
    int i;

    h->n[hist_bucket(v)]++;
    if (++h->total < HIST_DECAY)
        return;
    /* Halve: what the network did long ago weighs less than what it does now. */
    h->total = 0;
    for (i = 0; i < HIST_N; i++) {
        h->n[i] = (h->n[i] + 1) / 2;
        h->total += h->n[i];
    }
}

/* The value under which a fraction q of the samples lie (the top of its bucket). */
static uint64_t hist_quantile(const struct hist *h, double q)
{
    uint64_t want = (uint64_t)(q * h->total), seen = 0;
    int i;

    for (i = 0; i < HIST_N; i++) {
        seen += h->n[i];
        if (seen > want)
            return hist_top(i);
    }
    return hist_top(HIST_N - 1);
}

static void wait_add(struct hedge *h, int64_t ns)
{
    uint64_t p, m;

    if (ns <= 0)
        return;
    hist_add(&h->wait, (uint64_t)ns);
    if (h->wait.total < HEDGE_MIN_SAMPLES || (++h->since < 16 && h->delay_ns != INT64_MAX))
        return;
    h->since = 0;
    p = hist_quantile(&h->wait, HEDGE_PCT);
    m = (uint64_t)((double)hist_quantile(&h->wait, 0.5) * HEDGE_MEDIAN_MULT);
    if (p < m)
        p = m;
    h->delay_ns = p > (uint64_t)HEDGE_MIN_NS ? (int64_t)p : HEDGE_MIN_NS;
}

/* ---- the lists ------------------------------------------------------------------------ */

static void wait_push(struct hedge *h, struct req *r)
{
    r->hg.waiting = true;
    r->hg.prev = h->tail;
    r->hg.next = NULL;
    if (h->tail)
        h->tail->hg.next = r;
    else
        h->head = r;
    h->tail = r;
}

static void wait_remove(struct hedge *h, struct req *r)
{
    if (!r->hg.waiting)
        return;
    r->hg.waiting = false;
    if (r->hg.prev)
        r->hg.prev->hg.next = r->hg.next;
    else
        h->head = r->hg.next;
    if (r->hg.next)
        r->hg.next->hg.prev = r->hg.prev;
    else
        h->tail = r->hg.prev;
    r->hg.prev = r->hg.next = NULL;
}

static void big_push(struct hedge *h, struct req *r)
{
    r->hg.big = true;
    r->hg.big_prev = NULL;
    r->hg.big_next = h->big;
    if (h->big)
        h->big->hg.big_prev = r;
    h->big = r;
}

static void big_remove(struct hedge *h, struct req *r)
{
    if (!r->hg.big)
        return;
    r->hg.big = false;
    if (r->hg.big_prev)
        r->hg.big_prev->hg.big_next = r->hg.big_next;
    else
        h->big = r->hg.big_next;
    if (r->hg.big_next)
        r->hg.big_next->hg.big_prev = r->hg.big_prev;
    r->hg.big_prev = r->hg.big_next = NULL;
}

static void pair_remove(struct hedge *h, struct req *orig)
{
    struct req **pp;

    for (pp = &h->pairs; *pp; pp = &(*pp)->hg.pair_next) {
        if (*pp == orig) {
            *pp = orig->hg.pair_next;
            orig->hg.pair_next = NULL;
            return;
        }
    }
}

/* ---- which requests ------------------------------------------------------------------ */

/*
 * A GetBucketVersioning in flight: its request's owner, as delete.c's
 * batches are (the carrier is what req_submit and the builder read: the
 * bucket; no key, no options). Its state never fails or finishes: the
 * answer's handlers below free it.
 */
struct ver_ask {
    struct xfer_obj carrier;
    struct xfer_obj_state st;
    char bucket[64];
    char no_key[1];
};

static struct ver_ask *ver_ask_of(struct req *r)
{
    return (struct ver_ask *)(void *)((char *)r->os - offsetof(struct ver_ask, st));
}

/* Ask whether 'bucket' keeps versions; when the request cannot go, the bucket counts as versioned. */
static void ver_ask(struct engine *g, const char *bucket)
{
    struct ver_ask *va = calloc(1, sizeof(*va));
    struct s3c_error e = S3C_ERROR_INIT;
    struct req *r = NULL;

    if (va) {
        str_copy(va->bucket, sizeof(va->bucket), bucket);
        va->carrier.op = XFER_UPLOAD;
        va->carrier.dst_bucket = va->bucket;
        va->carrier.dst = va->no_key;
        va->carrier.mtime = -1;
        va->st.o = &va->carrier;
        va->st.family = FAM_DELETE; /* the head alone */
        va->st.fd = -1;
        r = req_get(g, &va->st, RK_GET_VERSIONING);
    }
    if (r && !req_submit(g, r, &e))
        return;
    if (r)
        req_put_back(g, r);
    free(va);
    store_s3_versioning_set(g->s3, bucket, STORE_S3_VER_KEEPS);
}

/* The question about the bucket of 'r' is answered ('v', 'why' for --debug): told to the run, and 'r' freed. */
static void ver_end(struct engine *g, struct req *r, enum store_s3_versioning v, const char *why)
{
    struct ver_ask *va = ver_ask_of(r);

    store_s3_versioning_set(g->s3, va->bucket, v);
    xdebug(g, &va->carrier, "GetBucketVersioning: %s: %s", why,
           v == STORE_S3_VER_NEVER ? "an overdue PutObject may get a duplicate"
                                   : "no PutObject gets a duplicate (--hedge-writes always would)");
    req_put_back(g, r);
    free(va);
}

void on_versioning(struct engine *g, struct req *r)
{
    struct s3_versioning v = S3_VERSIONING_INIT;
    struct s3c_error e = S3C_ERROR_INIT;
    char why[64];

    if (s3_parse_versioning(buf_sv(&r->http.resp.body), &v, &e)) {
        ver_end(g, r, STORE_S3_VER_KEEPS, "an answer that could not be read");
    } else if (!v.status[0]) {
        ver_end(g, r, STORE_S3_VER_NEVER, "never versioned");
    } else {
        /* Suspended keeps the versions made while it was on, and a null one beside them. */
        snprintf(why, sizeof(why), "versioning %.40s", v.status);
        ver_end(g, r, STORE_S3_VER_KEEPS, why);
    }
    s3_versioning_release(&v);
}

/* Refused (AccessDenied is common: writers seldom may read a bucket's settings): not known, so versioned. */
bool versioning_refused(struct engine *g, struct req *r, const struct s3c_error *e)
{
    char why[sizeof(e->s3_code) + 48];

    snprintf(why, sizeof(why), "refused (%ld %s)", e->http_status, e->s3_code);
    ver_end(g, r, STORE_S3_VER_KEEPS, why);
    return true;
}

void versioning_gave_up(struct engine *g, struct req *r, const struct s3c_error *e)
{
    char why[sizeof(e->msg) + 16];

    snprintf(why, sizeof(why), "no answer (%s)", e->msg);
    ver_end(g, r, STORE_S3_VER_KEEPS, why);
}

/*
 * Whether a duplicate of a whole-object write to the bucket of 'r' would be
 * invisible. --hedge-writes never and always answer outright. auto: a
 * directory bucket keeps no versions; any other, once the run learnt it was
 * never versioned; while that is unknown, being asked, or could not be
 * learnt: no. The question goes once the run has seen half the waits it
 * needs before any duplicate (a run too short to hedge never asks), after
 * the bucket's region is known (a first request is the region's probe).
 */
static bool write_dup_ok(struct engine *g, const struct req *r)
{
    struct hedge *h = g->hedge;
    const char *b = r->os->o->dst_bucket;
    enum store_s3_versioning v;
    unsigned i;

    if (g->opts.hedge_writes == XFER_HEDGE_WRITES_NEVER)
        return false;
    if (g->opts.hedge_writes == XFER_HEDGE_WRITES_ALWAYS)
        return true;
    if (!b || !*b)
        return false;
    if (s3_bucket_is_express(b))
        return true;
    for (i = 0; i < h->n_known; i++)
        if (!strcmp(h->known[i].bucket, b))
            return h->known[i].dup_ok;
    if (h->wait.total < HEDGE_MIN_SAMPLES / 2 || !store_s3_may_send(g->s3, b))
        return false;
    v = store_s3_versioning(g->s3, b, true);
    if (v == STORE_S3_VER_UNKNOWN)
        ver_ask(g, b);
    if (v == STORE_S3_VER_UNKNOWN || v == STORE_S3_VER_ASKING)
        return false;
    if (h->n_known < KNOWN_MAX && strlen(b) < sizeof(h->known[0].bucket)) {
        str_copy(h->known[h->n_known].bucket, sizeof(h->known[0].bucket), b);
        h->known[h->n_known++].dup_ok = v == STORE_S3_VER_NEVER;
    }
    return v == STORE_S3_VER_NEVER;
}

/* Whether 'r' carries a condition (If-None-Match: *, If-Match): its twin
 * could answer 412 where it succeeded. Read as sent, whoever added it. */
static bool conditional(const struct req *r)
{
    size_t i;

    for (i = 0; i < r->http.n_headers; i++)
        if (!strcasecmp(r->http.headers[i].name, "If-None-Match") ||
            !strcasecmp(r->http.headers[i].name, "If-Match"))
            return true;
    return false;
}

/*
 * Whether a duplicate of 'r' may be sent while 'r' may still land: its
 * kind's req_dup (build.c). Reads, and parts (the same bytes stored again
 * under the same number), their bodies read again from the file or copied
 * from memory; a whole-object write (PutObject) where write_dup_ok says it
 * leaves no trace, and never with a condition (hg.cond, read when it was
 * sent). Never streams (stdin's parts and stdout's window are written
 * once, in order).
 */
static bool hedgeable(struct engine *g, const struct req *r)
{
    if (obj_stream(r->os) || r == g->flex_probe)
        return false;
    /* A streamed body's SHA trailer is a hash worker's, for one exchange at a time. */
    if ((r->kind == RK_PUT || r->kind == RK_PART) && !r->mem.len && !ck_is_crc(obj_ck(r->os->o)))
        return false;
    switch (req_builders[r->kind].dup) {
    case DUP_FREE:
        return true;
    case DUP_WHOLE_WRITE:
        return !r->hg.cond && write_dup_ok(g, r);
    default:
        return false;
    }
}

/* Whether the wait of 'r' for its answer shows the store's latency. */
static bool shows_latency(const struct req *r)
{
    return r->kind == RK_GET || r->kind == RK_HEAD_INFO || r->kind == RK_HEAD_PART1 || r->kind == RK_HEAD_SRC ||
           r->kind == RK_PUT || r->kind == RK_PART;
}

/* "GetObject (part 3)": what --debug calls a request. */
static void req_label(const struct req *r, char out[64])
{
    if (r->part)
        snprintf(out, 64, "%s (part %" PRIu32 ")", req_op_name(r->kind), r->part);
    else
        snprintf(out, 64, "%s", req_op_name(r->kind));
}

/* ---- a request's life ------------------------------------------------------------------ */

struct hedge *hedge_new(double budget)
{
    struct hedge *h = calloc(1, sizeof(*h));

    if (!h)
        return NULL;
    h->budget = budget < 0 ? 0 : budget > 0 ? budget : HEDGE_DEFAULT_BUDGET;
    h->delay_ns = INT64_MAX;
    return h;
}

void hedge_free(struct hedge *h)
{
    free(h);
}

/* From inside curl: the body's last byte is handed over, the wait for the answer starts. */
static void body_sent(struct http_xfer *x, void *ctx)
{
    struct req *r = ctx;

    (void)x;
    if (r->eng->hedge && !r->hg.waiting)
        wait_push(r->eng->hedge, r);
}

void hedge_sent(struct engine *g, struct req *r)
{
    struct hedge *h = g->hedge;

    if (!h)
        return;
    r->hg.start_ns = http_now_ns();
    r->hg.cond = conditional(r); /* now: the headers' names are the request's until it is prepared again */
    if (!r->hg.dup) {
        h->tokens += h->budget;
        if (h->tokens > HEDGE_TOKENS_MAX)
            h->tokens = HEDGE_TOKENS_MAX;
    }
    if (r->len >= SLOW_MIN_BYTES && (r->kind == RK_GET || r->kind == RK_PUT || r->kind == RK_PART) &&
        r->hg.slow_resends < SLOW_RESENDS_MAX && !g->opts.bwlimit_bytes_s)
        big_push(h, r);
    if (!h->budget || !hedgeable(g, r))
        return;
    if (r->len >= SLOW_MIN_BYTES && r->kind != RK_GET)
        return; /* a large body's answer: looked at with the large transfers (slow_scan) */
    if (r->http.resp.sent_ns)
        wait_push(h, r); /* no body: waiting since the submit */
    else
        r->http.sent = body_sent;
}

/* 'w' answered first: 'l' loses, and is cut off at the next look (no loop call here). */
static void decide(struct engine *g, struct req *w, struct req *l)
{
    if (l->hg.lost)
        return;
    l->hg.lost = true;
    if (w->hg.dup) {
        g->stats.hedge_wins++;
        /* The original's wait was at least this long: the tail stays in the histogram. */
        if (l->http.resp.sent_ns && !l->http.resp.head_ns)
            wait_add(g->hedge, http_now_ns() - l->http.resp.sent_ns);
    }
}

/* The body of a GET with a twin: the first to bring bytes wins, the other's are refused. */
static enum http_sink_verdict hedge_sink(void *ctx, const char *p, size_t n)
{
    struct req *r = ctx;

    if (r->hg.lost)
        return HTTP_SINK_ABORT;
    if (r->hg.twin)
        decide(r->eng, r, r->hg.twin);
    return r->eng->kinds[r->kind].sink(ctx, p, n);
}

/* A duplicate of 'r', submitted on another connection (curl's pool never
 * gives a connection with a transfer on it); NULL when none could be. */
static struct req *twin_of(struct engine *g, struct hedge *h, struct req *r)
{
    struct s3c_error e = S3C_ERROR_INIT;
    struct req *t = req_get(g, r->os, r->kind);

    if (!t)
        return NULL;
    t->part = r->part;
    t->off = r->off;
    t->len = r->len;
    t->attempt = r->attempt;
    if ((r->kind == RK_PUT || r->kind == RK_PART) && r->mem.len) {
        if (buf_add(&t->mem, r->mem.data, r->mem.len)) {
            req_put_back(g, t);
            return NULL;
        }
        memcpy(t->hdr_md5, r->hdr_md5, sizeof(t->hdr_md5));
        memcpy(t->hdr_ck, r->hdr_ck, sizeof(t->hdr_ck));
        memcpy(t->mem_md5, r->mem_md5, sizeof(t->mem_md5));
        memcpy(t->mem_sum, r->mem_sum, sizeof(t->mem_sum));
        t->mem_crc = r->mem_crc;
    }
    t->hg.dup = true;
    if (req_submit(g, t, &e)) {
        req_put_back(g, t);
        return NULL;
    }
    h->tokens -= 1;
    g->stats.hedged++;
    t->hg.twin = r;
    if (r->kind == RK_GET)
        r->http.sink = t->http.sink = hedge_sink;
    return t;
}

/*
 * 'r' is overdue. An original gets a twin and the pair is listed. A twin
 * overdue in its turn (the store's tail caught both: with a 1% tail and a
 * hundred pairs a run, most runs would wait a whole tail for one) is
 * replaced: cut off, and a fresh one sent, at most HEDGE_TWINS_MAX times a
 * request; the original keeps running either way.
 */
static void overdue(struct engine *g, struct hedge *h, struct req *r, int64_t waited_ns)
{
    struct req *o = r->hg.dup ? r->hg.twin : r, *old = r->hg.dup ? r : NULL, *t;
    char label[64];

    if (!o || o->hg.lost || r->hg.lost || o->http.resp.head_ns || o->hg.twins >= HEDGE_TWINS_MAX)
        return;
    t = twin_of(g, h, o);
    if (!t)
        return;
    o->hg.twins++;
    o->hg.twin = t;
    if (old) {
        old->hg.twin = NULL;
        old->hg.lost = true; /* its done comes to hedge_done: dropped */
        if (http_xfer_running(&old->http))
            http_loop_cancel(g->loop, &old->http);
    } else {
        o->hg.pair_next = h->pairs;
        h->pairs = o;
    }
    req_label(o, label);
    xdebug(g, o->os->o, "%s: no answer after %.0f ms (overdue after %.0f ms): %s", label, (double)waited_ns / 1e6,
           (double)h->delay_ns / 1e6, old ? "its duplicate replaced by another" : "a duplicate sent");
}

/* Cut off the loser of each pair once the other has answered. */
static void settle_pairs(struct engine *g, struct hedge *h)
{
    struct req *a, *b;

    for (a = h->pairs; a; a = a->hg.pair_next) {
        b = a->hg.twin;
        if (!a->hg.lost && !b->hg.lost) {
            if (a->http.resp.head_ns)
                decide(g, a, b);
            else if (b->http.resp.head_ns)
                decide(g, b, a);
        }
        if (a->hg.lost && http_xfer_running(&a->http))
            http_loop_cancel(g->loop, &a->http); /* its done comes to hedge_done: dropped */
        if (b->hg.lost && http_xfer_running(&b->http))
            http_loop_cancel(g->loop, &b->http);
    }
}

/*
 * A large upload all sent whose answer is overdue: hedged as small requests
 * are, but later (the bytes still in the socket's buffer drain first).
 */
static void big_overdue(struct engine *g, struct hedge *h, struct req *r, int64_t now)
{
    int64_t waited = now - r->http.resp.sent_ns;

    if (!h->budget || h->delay_ns == INT64_MAX || r->http.resp.head_ns || !hedgeable(g, r) ||
        waited < BIG_WAIT_MULT * h->delay_ns + BIG_WAIT_EXTRA_NS)
        return;
    if (h->tokens < 1 || stopping(g) || r->os->failed)
        return;
    big_remove(h, r); /* its body is all sent: nothing more to watch */
    overdue(g, h, r, waited);
}

/* How far along a large transfer is: its bytes moved and since when; false
 * when it is not to be judged (a twin's, not running, no answer yet, or a
 * body all sent: then 'r' is overdue or not, big_overdue's business). So an
 * upload is cut off as slow only while some of its body was never handed
 * over: the store has not had all of its Content-Length and stores nothing,
 * and the one sent again is a retry, not a duplicate (a PutObject all sent is
 * hedged only where hedgeable says so). */
static bool big_progress(const struct req *r, int64_t *since, uint64_t *moved)
{
    if (r->hg.twin || !http_xfer_running(&r->http))
        return false;
    if (r->kind == RK_GET) {
        if (!r->http.resp.head_ns)
            return false; /* no answer yet: a matter of latency, not of pace */
        *since = r->http.resp.head_ns;
        *moved = r->got;
        return true;
    }
    if (r->http.resp.sent_ns)
        return false;
    *since = r->hg.start_ns;
    *moved = http_xfer_body_sent(&r->http);
    return true;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? -1 : x > y;
}

/*
 * Large transfers moving far slower than the run's finished ones, and than
 * the others moving now (SLOW_PEERS_MIN of them at least): cut off, sent
 * again; large uploads whose answer is overdue: hedged. The peers matter
 * when the store (or this host) is what is slow: 2 x 1 GiB up to a store
 * short of CPU re-sent 48 to 86 of its 128 parts, all of them slow together
 * against parts finished earlier, and made the store slower still. At most
 * SLOW_BUDGET of the requests sent (and 2) are re-sent this way.
 */
static void slow_scan(struct engine *g, struct hedge *h, int64_t now)
{
    struct req *r, *next;
    double median, peers = 0, *paces = NULL;
    size_t n = 0, cap = 0;
    int64_t since;
    uint64_t moved;
    char label[64];

    median = h->pace.total >= SLOW_MIN_SAMPLES ? (double)hist_quantile(&h->pace, 0.5) : 0;
    for (r = h->big; r; r = next) {
        next = r->hg.big_next;
        if (r->kind != RK_GET && r->http.resp.sent_ns && !r->hg.twin && http_xfer_running(&r->http))
            big_overdue(g, h, r, now); /* all sent: waiting for the answer */
    }
    if (median <= 0 || (double)g->stats.slow_resent >= 2 + SLOW_BUDGET * (double)g->stats.requests)
        return;
    /* The peers' median: the pace of every transfer moving for a quarter of
     * the grace at least (not only those past it: transfers started a few
     * ms apart pass it in turn, and the first would be judged alone). */
    for (r = h->big; r; r = r->hg.big_next) {
        if (!big_progress(r, &since, &moved) || now - since < SLOW_GRACE_NS / 4)
            continue;
        if (n == cap) {
            double *p = realloc(paces, (cap = cap ? cap * 2 : 64) * sizeof(*p));
            if (!p)
                break;
            paces = p;
        }
        paces[n++] = (double)moved * 1e9 / (double)(now - since);
    }
    if (n >= SLOW_PEERS_MIN) {
        qsort(paces, n, sizeof(*paces), cmp_double);
        peers = paces[n / 2];
    }
    free(paces);
    for (r = h->big; r; r = next) {
        double pace;

        next = r->hg.big_next;
        if (!big_progress(r, &since, &moved) || now - since < SLOW_GRACE_NS)
            continue;
        pace = (double)moved * 1e9 / (double)(now - since);
        if (pace * SLOW_FACTOR >= median || (peers > 0 && pace * SLOW_FACTOR >= peers))
            continue;
        if ((double)g->stats.slow_resent >= 2 + SLOW_BUDGET * (double)g->stats.requests)
            break;
        req_label(r, label);
        xdebug(g, r->os->o, "%s: %" PRIu64 " of %" PRIu64 " bytes in %.1f s (%.0f KB/s, the run's median is "
               "%.0f KB/s): cut off, sent again on a new connection", label, moved, r->len,
               (double)(now - since) / 1e9, pace / 1e3, (peers > 0 && peers < median ? peers : median) / 1e3);
        big_remove(h, r);
        r->hg.resend = true;
        r->hg.slow_resends++;
        g->stats.slow_resent++; /* counted now, for the budget (hedge_done counted it when it came back) */
        http_loop_cancel(g->loop, &r->http); /* its done comes to hedge_done */
    }
}

void hedge_tick(struct engine *g)
{
    struct hedge *h = g->hedge;
    int64_t now;

    if (!h)
        return;
    now = http_now_ns();
    settle_pairs(g, h);
    while (h->head) {
        struct req *r = h->head;
        int64_t waited = now - r->http.resp.sent_ns;

        if (r->http.resp.head_ns || !http_xfer_running(&r->http)) {
            wait_remove(h, r); /* answered: nothing to hedge */
            continue;
        }
        if (waited < h->delay_ns)
            break; /* nor any after it: they were sent later */
        wait_remove(h, r);
        if (h->tokens >= 1 && !stopping(g) && !r->os->failed)
            overdue(g, h, r, waited);
    }
    if (h->big && now - h->slow_check_ns >= SLOW_CHECK_NS) {
        h->slow_check_ns = now;
        slow_scan(g, h, now);
    }
}

/* How long the loop may wait before hedge_tick has something to do. */
int hedge_wait_ms(struct engine *g)
{
    struct hedge *h = g->hedge;
    int64_t now, due = INT64_MAX;

    if (!h || (!h->head && !h->big))
        return 100;
    now = http_now_ns();
    if (h->head && h->delay_ns != INT64_MAX)
        due = h->head->http.resp.sent_ns + h->delay_ns;
    if (h->big && h->slow_check_ns + SLOW_CHECK_NS < due)
        due = h->slow_check_ns + SLOW_CHECK_NS;
    if (due <= now)
        return 0;
    return due - now > 100000000 ? 100 : (int)((due - now) / 1000000) + 1;
}

/* What a finished request shows: its wait for the answer, a large one's pace. */
static void observe(struct hedge *h, const struct req *r)
{
    const struct http_resp *resp = &r->http.resp;
    int64_t now = http_now_ns();

    if (resp->status < 200 || resp->status >= 300 || resp->curl_code || !resp->head_ns || !resp->sent_ns)
        return;
    if (shows_latency(r) && h->budget)
        wait_add(h, resp->head_ns - resp->sent_ns);
    if (r->len < SLOW_MIN_BYTES)
        return;
    if (r->kind == RK_GET && now - resp->head_ns > 1000000)
        hist_add(&h->pace, (uint64_t)((double)r->len * 1e9 / (double)(now - resp->head_ns)));
    else if ((r->kind == RK_PUT || r->kind == RK_PART) && resp->sent_ns - r->hg.start_ns > 1000000)
        hist_add(&h->pace, (uint64_t)((double)r->len * 1e9 / (double)(resp->sent_ns - r->hg.start_ns)));
}

/*
 * The first of a pair to be judged: the winner if it answered first (or
 * at all), and the other is cut off; without any answer (a connection
 * lost, the run stopped) it is dropped and the other goes on alone. Either
 * way exactly one of the two goes on to be judged.
 */
static void settle(struct engine *g, struct hedge *h, struct req *r)
{
    struct req *t = r->hg.twin;

    pair_remove(h, r->hg.dup ? t : r);
    r->hg.twin = t->hg.twin = NULL;
    if (!r->hg.lost && !t->hg.lost && !r->http.resp.head_ns) {
        r->hg.lost = true;
    } else if (!r->hg.lost) {
        decide(g, r, t);
        if (http_xfer_running(&t->http))
            http_loop_cancel(g->loop, &t->http);
    }
}

bool hedge_done(struct engine *g, struct req *r)
{
    struct hedge *h = g->hedge;

    if (!h)
        return false;
    wait_remove(h, r);
    big_remove(h, r);
    if (r->hg.resend) {
        r->hg.resend = false; /* counted when it was cut off (slow_scan) */
        if (r->os->failed || stopping(g))
            return false; /* judged as it stands: a cancelled exchange */
        r->hg.fresh = true;
        r->due_ms = 0;
        r->next = g->retry;
        g->retry = r;
        return true;
    }
    if (r->hg.twin)
        settle(g, h, r);
    if (r->hg.lost) {
        struct xfer_obj_state *os = r->os;
        req_put_back(g, r);
        maybe_finish(g, os);
        return true;
    }
    observe(h, r);
    return false;
}
