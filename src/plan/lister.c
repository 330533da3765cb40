/*
 * The parallel listing: ranges of the key space listed at once on the
 * store's loop, read back in key order. What it must not do: hold more than
 * its page budget, yield a key twice or out of order, or touch the engine.
 */
#include "plan/lister.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/stop.h"

#define CUTS_PER_PAGE_MAX 64        /* new ranges from one full page */
#define HEDGE_AFTER_ANSWERS 4       /* answers seen before a page is judged overdue */
#define HEDGE_MULT 4                /* overdue: past 4 times the usual wait... */
#define HEDGE_MIN_EXTRA_MS 50       /* ...and 50 ms more than it */

struct lister_page {
    struct lister_page *next;
    struct s3_list_objects p;
    size_t n;                       /* its objects in the range (the rest lie past the range's end) */
};

struct lister_req;

struct lister_range {
    struct lister_range *next;
    char *after;                    /* keys after this one ("": from the prefix on) */
    char *hi;                       /* NULL: to the end; else keys up to this one */
    char *token;                    /* continuation token of the next page; NULL: StartAfter 'after' */
    struct lister_page *pages, *last_page;
    int n_pages;
    bool done;                      /* no request left to send */
    bool delimit;                   /* the first request of all: delimiter '/', for the common prefixes */
    bool probe;                     /* ask for one key: the range is probably over */
    struct s3_retry_tries tries;    /* of its page out, as store_s3_send counts them */
    int64_t retry_at_ms;
    struct lister_req *req;         /* in flight */
    struct lister_req *twin;        /* the same request again, sent when 'req' was overdue */
    struct listcheck_tokens seen;   /* continuation tokens followed */
};

struct lister_req {
    struct http_xfer x;
    struct store_s3_call call;
    struct buf query;
    struct lister *l;
    struct lister_range *r;
    int64_t sent_ms;
    bool lost;                      /* its twin answered first: its answer is dropped */
    struct lister_req *next_lost;
};

static int64_t now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* S3 Express directory buckets list in no order and take no StartAfter. */
static bool directory_bucket(const char *bucket)
{
    size_t n = strlen(bucket);
    return n > 6 && !strcmp(bucket + n - 6, "--x-s3");
}

static int width_from_env(void)
{
    const char *v = getenv("S3C_LIST_WIDTH");
    char *end;
    long n;

    if (!v || !*v)
        return LISTER_WIDTH_DEFAULT;
    n = strtol(v, &end, 10);
    if (*end || n < 1)
        return LISTER_WIDTH_DEFAULT;
    return n > LISTER_WIDTH_MAX ? LISTER_WIDTH_MAX : (int)n;
}

static void page_free(struct lister_page *pg)
{
    if (!pg)
        return;
    s3_list_objects_release(&pg->p);
    free(pg);
}

static struct lister_range *range_new(const char *after, char *hi_owned)
{
    struct lister_range *r = calloc(1, sizeof(*r));

    if (!r || !(r->after = strdup(after ? after : ""))) {
        free(r);
        free(hi_owned);
        return NULL;
    }
    r->hi = hi_owned;
    return r;
}

static void range_free(struct lister_range *r)
{
    while (r->pages) {
        struct lister_page *pg = r->pages;
        r->pages = pg->next;
        page_free(pg);
    }
    free(r->after);
    free(r->hi);
    free(r->token);
    listcheck_tokens_release(&r->seen);
    free(r);
}

static void req_free(struct lister_req *q)
{
    http_xfer_release(&q->x);
    store_s3_call_release(&q->call);
    buf_release(&q->query);
    free(q);
}

/* The listing is over: the first failure is the one reported. */
static void fail(struct lister *l, const struct s3c_error *e)
{
    if (l->failed)
        return;
    l->failed = true;
    l->err = *e;
}

static void fail_nomem(struct lister *l)
{
    struct s3c_error e = S3C_ERROR_INIT;

    s3c_fail(&e, S3C_ENOMEM, "out of memory");
    fail(l, &e);
}

enum s3c_err lister_open(struct lister *l, struct store_s3 *s3, const char *bucket, const char *prefix,
                         lister_skip_fn *skip, void *skip_ctx, struct s3c_error *e)
{
    memset(l, 0, sizeof(*l));
    l->s3 = s3;
    l->skip = skip;
    l->skip_ctx = skip_ctx;
    l->ordered = !directory_bucket(bucket);
    l->bucket = strdup(bucket);
    l->prefix = strdup(prefix ? prefix : "");
    l->width = directory_bucket(bucket) ? 1 : width_from_env();
    if (!l->bucket || !l->prefix) {
        lister_close(l);
        return s3c_fail(e, S3C_ENOMEM, "out of memory");
    }
    return S3C_OK;
}

/* ListObjectsV2's query for the next page of 'r', parameters in sorted order. */
static enum s3c_err build_query(const struct lister *l, const struct lister_range *r, struct buf *q)
{
    enum s3c_err rc = l->v1 ? S3C_OK : s3_query_add(q, "list-type", "2");

    if (!rc && r->token)
        rc = s3_query_add(q, "continuation-token", r->token);
    if (!rc && r->delimit)
        rc = s3_query_add(q, "delimiter", "/");
    if (!rc)
        rc = s3_query_add(q, "encoding-type", "url");
    if (!rc && (r->probe || l->page_size > 0)) {
        char max[16];
        snprintf(max, sizeof(max), "%d", r->probe ? 1 : l->page_size);
        rc = s3_query_add(q, "max-keys", max);
    }
    if (!rc && l->prefix[0])
        rc = s3_query_add(q, "prefix", l->prefix);
    if (!rc && !r->token && r->after[0])
        rc = s3_query_add(q, l->v1 ? "marker" : "start-after", r->after);
    return rc;
}

static void on_done(struct http_xfer *x, void *ctx);

static bool submit(struct lister *l, struct lister_range *r, bool twin)
{
    struct lister_req *q = calloc(1, sizeof(*q));
    struct s3_req req = { .method = "GET", .bucket = l->bucket };
    struct s3c_error e = S3C_ERROR_INIT;
    enum s3c_err rc;

    if (!q) {
        fail_nomem(l);
        return false;
    }
    q->call = (struct store_s3_call)STORE_S3_CALL_INIT;
    q->query = (struct buf)BUF_INIT(16384);
    q->l = l;
    q->r = r;
    if (build_query(l, r, &q->query)) {
        req_free(q);
        fail_nomem(l);
        return false;
    }
    req.query = buf_cstr(&q->query);
    q->x.body_max = STORE_S3_LIST_BODY_MAX_BYTES;
    rc = store_s3_prepare(l->s3, &req, &q->call, &q->x, &e);
    q->x.done = on_done;
    q->x.done_ctx = q;
    if (!rc)
        rc = http_loop_submit(store_s3_loop(l->s3), &q->x, &e);
    if (rc) {
        req_free(q);
        fail(l, &e);
        return false;
    }
    q->sent_ms = now_ms();
    if (twin)
        r->twin = q;
    else
        r->req = q;
    l->inflight++;
    l->requests++;
    return true;
}

/*
 * A page overdue against the waits seen (past HEDGE_MULT times their moving
 * average and HEDGE_MIN_EXTRA_MS more) is asked for again on another
 * connection: the first answer wins, the other is dropped. S3's pages have a
 * tail (one in a hundred many times slower), and a listing waits for every
 * page in key order. At most 2 twins and one in twenty requests.
 */
static void hedge_overdue(struct lister *l)
{
    int64_t now = 0, after;
    struct lister_range *r;

    if (l->answered < HEDGE_AFTER_ANSWERS)
        return;
    after = (int64_t)(l->wait_ms * HEDGE_MULT);
    if (after < (int64_t)l->wait_ms + HEDGE_MIN_EXTRA_MS)
        after = (int64_t)l->wait_ms + HEDGE_MIN_EXTRA_MS;
    for (r = l->head; r && l->hedges < 2 + l->requests / 20; r = r->next) {
        if (!r->req || r->twin)
            continue;
        if (!now)
            now = now_ms();
        if (now - r->req->sent_ms < after)
            continue;
        if (!submit(l, r, true))
            return;
        l->hedges++;
    }
}

/*
 * Send what may go now: from the head on, each range with no request out
 * and fewer than two pages waiting, while the width and the page budget
 * allow (the head always may, so the reader never waits on pages of
 * ranges it has not reached).
 */
static void pump(struct lister *l)
{
    int budget = l->width * LISTER_PAGES_PER_WIDTH;
    int64_t now = 0;
    struct lister_range *r;

    if (l->failed || l->closing || !store_s3_may_send(l->s3, l->bucket))
        return;
    for (r = l->head; r && l->inflight < l->width; r = r->next) {
        if (r->done || r->req || r->n_pages >= 2)
            continue;
        if (r->retry_at_ms) {
            if (!now)
                now = now_ms();
            if (r->retry_at_ms > now)
                continue;
            r->retry_at_ms = 0;
        }
        if (r != l->head && l->pages + l->inflight >= budget)
            break;
        if (!submit(l, r, false))
            return;
    }
    hedge_overdue(l);
}

/* Cut 'r' at each of the n NUL-separated 'points' (increasing, inside it). */
static bool cut(struct lister *l, struct lister_range *r, const char *points, size_t n)
{
    struct lister_range *prev = r;
    char *old_hi = r->hi, *first;
    size_t i;

    if (!n)
        return true;
    first = strdup(points);
    if (!first)
        return false;
    r->hi = first;
    for (i = 0; i < n; i++) {
        const char *p = points;
        const char *next = i + 1 < n ? p + strlen(p) + 1 : NULL;
        char *hi = next ? strdup(next) : old_hi;
        struct lister_range *nr;

        if (next && !hi)
            return false;
        nr = range_new(p, hi);
        if (!nr)
            return false;
        if (!next)
            old_hi = NULL; /* nr owns it now */
        nr->next = prev->next;
        prev->next = nr;
        prev = nr;
        l->n_ranges++;
        points = next ? next : points;
    }
    free(old_hi);
    l->cuts += n;
    return true;
}

/* A cut must lie inside the range: past 'after', before 'hi'. */
static bool prefix_inside(const struct lister_range *r, const char *prefix)
{
    return strcmp(prefix, r->after) > 0 && !(r->hi && strcmp(prefix, r->hi) >= 0);
}

/* The first answer had common prefixes: one range per directory, or per run
 * of directories when there are more than two per request in flight (a
 * thousand directories of a few keys each are not a thousand requests). */
static bool cut_at_prefixes(struct lister *l, struct lister_range *r, const struct s3_list_objects *p)
{
    struct buf pts = BUF_INIT(64u << 20);
    size_t i, n = 0, inside = 0, step, k = 0;
    bool ok = true;

    for (i = 0; i < p->n_prefixes; i++)
        inside += prefix_inside(r, p->prefixes[i]);
    step = (inside + 2 * (size_t)l->width - 1) / (2 * (size_t)l->width);
    if (step < 1)
        step = 1;
    for (i = 0; i < p->n_prefixes && ok; i++) {
        if (!prefix_inside(r, p->prefixes[i]) || k++ % step)
            continue;
        ok = !buf_adds(&pts, p->prefixes[i]) && !buf_addc(&pts, '\0');
        n++;
    }
    ok = ok && cut(l, r, pts.data, n);
    buf_release(&pts);
    return ok;
}

/*
 * How many new ranges a full page may cut: the listing earns them as it
 * proves large, two for each full page read so far (so a listing of a few
 * thousand keys sends about the requests of one page after another, where
 * cutting 64 ways at the first page sent 28 times as many), up to
 * CUTS_PER_PAGE_MAX a page and LISTER_RANGES_MAX in all. A large listing
 * still reaches its width within a few round trips: the allowance triples
 * with each round of pages.
 */
static size_t cuts_allowed(struct lister *l)
{
    uint64_t earned = 2 * ++l->full_pages;
    size_t allow = earned > l->page_cuts ? (size_t)(earned - l->page_cuts) : 0;

    if (l->n_ranges >= LISTER_RANGES_MAX)
        return 0;
    if (allow > (size_t)(LISTER_RANGES_MAX - l->n_ranges))
        allow = (size_t)(LISTER_RANGES_MAX - l->n_ranges);
    return allow < CUTS_PER_PAGE_MAX ? allow : CUTS_PER_PAGE_MAX;
}

/*
 * Keys rise: each key of the page sorts after the one before it and the
 * first after where the page was asked to start ('r->after': the
 * start-after sent, or the last key before the token). A store that ignores
 * start-after, or a token that leads back to a page already read, fails it.
 * Keys holding a NUL are passed over: no C string can stand for them as the
 * key the next one must follow.
 */
static bool page_rises(struct lister *l, const struct lister_range *r, const struct s3_list_objects *p)
{
    struct s3c_error e = S3C_ERROR_INIT;
    const char *prev = r->after;
    size_t i;

    if (!l->ordered)
        return true;
    for (i = 0; i < p->n_objects; i++) {
        const char *k = p->objects[i].key;

        if (!k[0])
            continue;
        if (!listcheck_rises(prev, k, false))
            break;
        prev = k;
    }
    if (i == p->n_objects)
        return true;
    if (prev != r->after)
        s3c_fail(&e, S3C_EPARSE, "ListObjectsV2: the store listed \"%.100s\" after \"%.100s\": keys out of order",
                 p->objects[i].key, prev);
    else if (r->token)
        s3c_fail(&e, S3C_EPARSE, "ListObjectsV2: the page after key \"%.100s\" (a continuation token) went back to "
                 "\"%.100s\": a token that leads to pages already read", prev, p->objects[i].key);
    else
        s3c_fail(&e, S3C_EPARSE, "ListObjectsV2: asked for keys after \"%.100s\", the store answered \"%.100s\": "
                 "it ignores start-after (S3C_LIST_WIDTH=1 lists without it)", prev, p->objects[i].key);
    fail(l, &e);
    return false;
}

/* A page of 'r' arrived: keep what is the range's, decide what comes next. */
static void take_page(struct lister *l, struct lister_range *r, struct lister_page *pg)
{
    struct s3_list_objects *p = &pg->p;
    size_t n = p->n_objects, i, from = strlen(l->prefix);
    bool was_probe = r->probe, was_delimit = r->delimit;
    struct buf pts = BUF_INIT(1u << 20);
    struct s3c_error e = S3C_ERROR_INIT;
    const char *first, *last;

    r->probe = r->delimit = false;
    if (!page_rises(l, r, p)) {
        page_free(pg);
        return;
    }
    if (was_delimit && p->n_prefixes) {
        /* Its objects are listed again by the ranges it cuts. */
        if (!cut_at_prefixes(l, r, p))
            fail_nomem(l);
        page_free(pg);
        return;
    }
    /* Keys past the range's end belong to the next range. */
    if (r->hi)
        while (n && listcheck_cmp(p->objects[n - 1].key, r->hi) > 0)
            n--;
    pg->n = n;
    /* The page's first and last keys that a request can name (start-after, the cuts):
     * a key holding a NUL cannot be sent back. */
    for (i = 0; i < n && !p->objects[i].key[0]; i++)
        ;
    first = i < n ? p->objects[i].key : NULL;
    for (i = n; i > 0 && !p->objects[i - 1].key[0]; i--)
        ;
    last = i > 0 ? p->objects[i - 1].key : NULL;
    if (n < p->n_objects || !p->is_truncated || !n) {
        r->done = true;
    } else if (!last && (was_delimit || !p->next_continuation_token[0])) {
        s3c_fail(&e, S3C_EPARSE, "ListObjectsV2: a page of keys holding NUL bytes only, without a continuation "
                 "token: no request can ask for the keys after them");
        page_free(pg);
        fail(l, &e);
        return;
    } else {
        char *after = strdup(last ? last : r->after);

        free(r->after);
        free(r->token);
        r->token = NULL;
        r->after = after;
        /* A delimiter listing's token does not continue a plain one. */
        if (!was_delimit && p->next_continuation_token[0]) {
            if (listcheck_token(&r->seen, "ListObjectsV2", p->next_continuation_token, n, &e)) {
                page_free(pg);
                fail(l, &e);
                return;
            }
            if (!(r->token = strdup(p->next_continuation_token))) {
                free(r->after);
                r->after = NULL;
            }
        }
        if (!r->after) {
            page_free(pg);
            fail_nomem(l);
            return;
        }
        if (l->width > 1) {
            for (i = 0; i < n; i++)
                ranges_alphabet_add(&l->alphabet, sv_from(p->objects[i].key), from);
            size_t allow = !was_probe && first && first != last ? cuts_allowed(l) : 0;

            if (allow) {
                size_t k = ranges_split(&l->alphabet, sv_from(first), sv_from(last), r->hi, from, allow, &pts);
                if (!cut(l, r, pts.data, k))
                    fail_nomem(l);
                l->page_cuts += k;
                /* Nothing to cut, and an end near: one key tells whether it is there. */
                r->probe = !k && r->hi;
            }
        }
    }
    buf_release(&pts);
    if (!n) {
        page_free(pg);
        return;
    }
    if (r->last_page)
        r->last_page->next = pg;
    else
        r->pages = pg;
    r->last_page = pg;
    r->n_pages++;
    l->pages++;
}

/*
 * A ListObjectsV2 page that failed for good (its retries spent): 500, 501 or
 * 400 (not 503, which asks to slow down). A store without V2, or with it
 * broken: s3rver 3.7.1 on Node 17 and later answers 500 to every page that is
 * not the last (its continuation token needs a cipher OpenSSL 3 no longer
 * has). The range is asked again at once with ListObjects, and the listing
 * stays with it: this lister pages by the last key (marker, as start-after),
 * never by token, so v1 lists the same keys (said in --debug). Once only: a
 * v1 failure is the listing's error. Directory buckets have no v1.
 */
static bool v2_failed(struct lister *l, const struct http_xfer *x, const struct s3c_error *e)
{
    long st = x->resp.status;

    if (l->v1 || directory_bucket(l->bucket) || !(st == 500 || st == 501 || st == 400))
        return false;
    l->v1 = true;
    store_s3_debugf(l->s3, "list s3://%s/%s: ListObjectsV2 answered %ld %s: listing with ListObjects (v1) from now on",
                    l->bucket, l->prefix, st, e->s3_code);
    return true;
}

static void on_done(struct http_xfer *x, void *ctx)
{
    struct lister_req *q = ctx;
    struct lister *l = q->l;
    struct lister_range *r = q->r;
    struct s3c_error e = S3C_ERROR_INIT;
    struct lister_page *pg;
    enum store_s3_verdict v;
    long backoff_ms = 0;
    bool free_retry = false;
    struct lister_req *other;

    l->inflight--;
    if (q->lost) {
        struct lister_req **p = &l->lost;

        while (*p && *p != q)
            p = &(*p)->next_lost;
        if (*p)
            *p = q->next_lost;
        req_free(q);
        return;
    }
    other = r->req == q ? r->twin : r->req;
    r->req = r->twin = NULL;
    if (other) {
        /* The first answer is the range's; the other is dropped when it comes
         * (or cut off by lister_close). */
        other->lost = true;
        other->next_lost = l->lost;
        l->lost = other;
        if (q != other && q->sent_ms > other->sent_ms && x->resp.status)
            l->hedge_wins++;
    }
    if (l->failed || l->closing) {
        req_free(q);
        return;
    }
    if (x->resp.status == 0 && x->resp.curl_code == 42 /* CURLE_ABORTED_BY_CALLBACK: cancelled */) {
        s3c_fail(&e, S3C_ECANCEL, "interrupted");
        fail(l, &e);
        req_free(q);
        return;
    }
    v = store_s3_judge(l->s3, &q->call, x, r->tries.attempt, &backoff_ms, &free_retry, &e);
    if (v == STORE_S3_RETRY && !s3_retry_count(&r->tries, free_retry, store_s3_max_attempts(l->s3)))
        v = STORE_S3_FAIL; /* free retries past theirs count: never more tries than the budget */
    if (v == STORE_S3_RETRY) {
        r->retry_at_ms = now_ms() + (backoff_ms > 0 ? backoff_ms : 0);
        req_free(q);
        pump(l);
        return;
    }
    if (v != STORE_S3_OK && v2_failed(l, x, &e)) {
        r->tries = (struct s3_retry_tries)S3_RETRY_TRIES_INIT;
        r->retry_at_ms = 0;
        req_free(q);
        pump(l);
        return;
    }
    if (v != STORE_S3_OK) {
        fail(l, &e);
        req_free(q);
        return;
    }
    r->tries = (struct s3_retry_tries)S3_RETRY_TRIES_INIT;
    {
        double w = (double)(now_ms() - q->sent_ms);

        l->wait_ms = l->answered++ ? l->wait_ms * 0.9 + w * 0.1 : w;
    }
    pg = calloc(1, sizeof(*pg));
    if (!pg) {
        req_free(q);
        fail_nomem(l);
        return;
    }
    if (s3_xml_parse(S3_REPLY_LIST_OBJECTS, buf_sv(&x->resp.body), &pg->p, NULL, &e)) {
        req_free(q);
        page_free(pg);
        fail(l, &e);
        return;
    }
    req_free(q);
    take_page(l, r, pg);
    pump(l);
}

static bool start(struct lister *l)
{
    l->head = range_new("", NULL);
    if (!l->head) {
        fail_nomem(l);
        return false;
    }
    l->n_ranges = 1;
    l->head->delimit = l->width > 1;
    pump(l);
    return true;
}

int lister_next(struct lister *l, const struct s3_object **out, struct s3c_error *e)
{
    if (!l->opened) {
        l->opened = true;
        start(l);
    }
    for (;;) {
        struct lister_range *r;
        bool retry_wait;
        /* Short waits while pages are out, so an overdue one is asked again in time. */
        int wait_ms = l->inflight && l->answered >= HEDGE_AFTER_ANSWERS ? 10 : 100;

        if (l->cur && l->i < l->cur->n) {
            const struct s3_object *o = &l->cur->p.objects[l->i++];
            enum listcheck_verdict v = listcheck_key(l->prefix, o->key, false);

            if (v != LISTCHECK_OK) {
                /* The verbs never see it: no delete, copy or name made of it. */
                l->skipped++;
                if (l->skip)
                    l->skip(l->skip_ctx, listcheck_shown(o->key), v);
                continue;
            }
            *out = o;
            return 1;
        }
        if (l->cur) {
            page_free(l->cur);
            l->cur = NULL;
            l->pages--;
        }
        if (l->failed) {
            *e = l->err;
            return -1;
        }
        r = l->head;
        if (!r)
            return 0;
        if (r->pages) {
            l->cur = r->pages;
            r->pages = l->cur->next;
            if (!r->pages)
                r->last_page = NULL;
            r->n_pages--;
            l->i = 0;
            pump(l);
            continue;
        }
        if (r->done) {
            l->head = r->next;
            l->n_ranges--;
            range_free(r);
            pump(l);
            continue;
        }
        pump(l);
        retry_wait = !r->req && r->retry_at_ms;
        if (retry_wait && stop_requested()) {
            struct s3c_error se = S3C_ERROR_INIT;

            /* A wait between tries obeys the user too (base/stop.h). */
            s3c_fail(&se, S3C_ECANCEL, "interrupted");
            fail(l, &se);
            continue;
        }
        if (l->nonblock)
            return LISTER_LATER; /* the caller steps the loop: pages come in meanwhile */
        if (retry_wait) {
            int64_t left = r->retry_at_ms - now_ms();
            wait_ms = left < 1 ? 1 : left > 100 ? 100 : (int)left;
        }
        if (!http_loop_step(store_s3_loop(l->s3), wait_ms) && retry_wait)
            http_loop_nap(store_s3_loop(l->s3), wait_ms); /* nothing in flight: the wait is the loop's, not a sleep */
    }
}

void lister_stop(struct lister *l)
{
    l->closing = true;
}

void lister_close(struct lister *l)
{
    if (l->s3) {
        l->closing = true;
        /* Twins that lost are cut off, not waited for (a tail's page may take seconds). */
        while (l->lost) {
            struct lister_req *q = l->lost;

            if (!http_xfer_running(&q->x)) {
                l->lost = q->next_lost;
                continue; /* freed by its done already: not expected */
            }
            http_loop_cancel(store_s3_loop(l->s3), &q->x);
        }
        while (l->inflight > 0)
            http_loop_step(store_s3_loop(l->s3), 100);
        if (l->requests > 1)
            store_s3_debugf(l->s3, "list s3://%s/%s: %llu requests (%llu sent again when overdue, %llu of those "
                            "answered first), %llu cuts, width %d", l->bucket, l->prefix,
                            (unsigned long long)l->requests, (unsigned long long)l->hedges,
                            (unsigned long long)l->hedge_wins, (unsigned long long)l->cuts, l->width);
    }
    page_free(l->cur);
    while (l->head) {
        struct lister_range *r = l->head;
        l->head = r->next;
        range_free(r);
    }
    free(l->bucket);
    free(l->prefix);
    memset(l, 0, sizeof(*l));
}
