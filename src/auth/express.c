/*
 * express.c: the S3 Express session cache and its refresh threads (see
 * express.h). Owns the threads and the cached session keys; never signs,
 * sends or prints: the fetch callback (store/) makes each CreateSession.
 */
#include "auth/express.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/str.h"

#define ADVISORY_LEAD_MAX_MS 60000  /* aws-c-s3: "about to expire" 60 s before */
#define MANDATORY_LEAD_MAX_MS 10000 /* botocore: mandatory refresh 10 s before */
#define RETRY_MAX_MS 5000           /* a failed refresh is tried again within this */
#define FORCED_PER_GEN_MAX 3        /* ExpiredToken for one session: fetches to try */
#define FORCED_TOTAL_MAX 50         /* and in a whole run */

struct entry {
    bool used;
    struct express_ask ask;         /* the key (bucket, iam.access_key, mode) and the next fetch's input */
    struct creds cur;               /* the session signed with now; access_key NULL: none yet */
    char region[64];                /* the region 'cur' was made for */
    int64_t expires_ms;             /* monotonic */
    int64_t life_ms;
    unsigned gen;                   /* 0: none */
    bool handed;                    /* 'cur' was returned once */
    uint64_t last_used;             /* LRU stamp */
    bool force;                     /* refused as expired: fetch before the next use */
    unsigned forced_gen, forced_for_gen;
    int64_t retry_at_ms;            /* after a failed fetch, none before this */
    struct s3c_error last_err;      /* why the last fetch failed */

    /* The refresh thread writes next*, then 'done'. */
    struct express_cache *cache;
    pthread_t thread;
    bool running;                   /* started and not yet joined */
    atomic_int done;
    int64_t next_sent_ms;
    struct express_got next;
    enum s3c_err next_rc;
    struct s3c_error next_err;
};

struct express_cache {
    express_fetch_fn fetch;
    void *fetch_ctx;
    void (*wake)(void *ctx);
    void *wake_ctx;
    struct entry entries[EXPRESS_CACHE_MAX];
    unsigned threads;               /* refreshes running */
    unsigned gen_seq;
    uint64_t clock;                 /* LRU stamps */
    unsigned forced_total;
    struct express_stats stats;
};

const char *express_mode_name(enum express_mode m)
{
    return m == EXPRESS_READ_ONLY ? "ReadOnly" : "ReadWrite";
}

int64_t express_now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int64_t express_advisory_lead_ms(int64_t life_ms)
{
    return life_ms / 3 < ADVISORY_LEAD_MAX_MS ? life_ms / 3 : ADVISORY_LEAD_MAX_MS;
}

int64_t express_mandatory_lead_ms(int64_t life_ms)
{
    return life_ms / 10 < MANDATORY_LEAD_MAX_MS ? life_ms / 10 : MANDATORY_LEAD_MAX_MS;
}

struct express_cache *express_cache_new(express_fetch_fn fetch, void *fetch_ctx, void (*wake)(void *ctx),
                                        void *wake_ctx)
{
    struct express_cache *c = calloc(1, sizeof(*c));
    int i;

    if (!c)
        return NULL;
    c->fetch = fetch;
    c->fetch_ctx = fetch_ctx;
    c->wake = wake;
    c->wake_ctx = wake_ctx;
    for (i = 0; i < EXPRESS_CACHE_MAX; i++)
        atomic_init(&c->entries[i].done, 0);
    return c;
}

static void *refresh_main(void *arg)
{
    struct entry *en = arg;
    struct express_cache *c = en->cache;

    en->next_sent_ms = express_now_ms();
    en->next_rc = c->fetch(c->fetch_ctx, &en->ask, &en->next, &en->next_err);
    atomic_store(&en->done, 1);
    if (c->wake)
        c->wake(c->wake_ctx);
    return NULL;
}

/* Take what the finished fetch brought: a new session, or why not. */
static void take_next(struct express_cache *c, struct entry *en, int64_t now_ms)
{
    if (en->next_rc == S3C_OK && en->next.keys.access_key && en->next.keys.secret_key &&
        en->next.keys.session_token && en->next.life_ms > 0) {
        creds_release(&en->cur);
        en->cur = en->next.keys;
        memset(&en->next.keys, 0, sizeof(en->next.keys));
        en->life_ms = en->next.life_ms;
        en->expires_ms = en->next_sent_ms + en->life_ms;
        en->gen = ++c->gen_seq;
        en->handed = false;
        en->retry_at_ms = 0;
        str_copy(en->region, sizeof(en->region), en->ask.region);
        c->stats.sessions++;
        return;
    }
    creds_release(&en->next.keys);
    en->last_err = en->next_err;
    if (en->next_rc == S3C_OK)
        s3c_fail(&en->last_err, S3C_EAUTH, "CreateSession for %s returned no session credentials", en->ask.bucket);
    c->stats.failures++;
    {
        /* Try again soon, sooner as expiry nears. */
        int64_t left = en->gen && en->expires_ms > now_ms ? en->expires_ms - now_ms : 0;
        int64_t wait = left / 4;

        en->retry_at_ms = now_ms + (wait < 200 ? 200 : wait > RETRY_MAX_MS ? RETRY_MAX_MS : wait);
    }
}

static void join_refresh(struct express_cache *c, struct entry *en)
{
    if (!en->running)
        return;
    pthread_join(en->thread, NULL);
    en->running = false;
    c->threads--;
    atomic_store(&en->done, 0);
    take_next(c, en, express_now_ms());
}

/* Start a fetch on a thread; 'may_wait': without a thread to spare, fetch in place. */
static void start_refresh(struct express_cache *c, struct entry *en, bool may_wait)
{
    s3c_error_clear(&en->next_err);
    en->next_rc = S3C_OK;
    memset(&en->next, 0, sizeof(en->next));
    en->cache = c;
    atomic_store(&en->done, 0);
    if (c->threads < EXPRESS_THREADS_MAX && pthread_create(&en->thread, NULL, refresh_main, en) == 0) {
        en->running = true;
        c->threads++;
        return;
    }
    if (!may_wait)
        return;
    refresh_main(en);
    atomic_store(&en->done, 0);
    take_next(c, en, express_now_ms());
}

static void entry_release(struct express_cache *c, struct entry *en)
{
    join_refresh(c, en);
    creds_release(&en->cur);
    creds_release(&en->ask.iam);
    memset(en, 0, sizeof(*en));
    atomic_init(&en->done, 0);
}

void express_cache_free(struct express_cache *c)
{
    int i;

    if (!c)
        return;
    for (i = 0; i < EXPRESS_CACHE_MAX; i++)
        if (c->entries[i].used)
            entry_release(c, &c->entries[i]);
    free(c);
}

static bool entry_is(const struct entry *en, const char *bucket, const char *akid, enum express_mode mode)
{
    return en->used && en->ask.mode == mode && !strcmp(en->ask.bucket, bucket) && en->ask.iam.access_key &&
           !strcmp(en->ask.iam.access_key, akid);
}

static struct entry *find(struct express_cache *c, const char *bucket, const char *akid, enum express_mode mode)
{
    int i;

    for (i = 0; i < EXPRESS_CACHE_MAX; i++)
        if (entry_is(&c->entries[i], bucket, akid, mode))
            return &c->entries[i];
    return NULL;
}

/* A free slot, or the least recently used one emptied. */
static struct entry *slot(struct express_cache *c)
{
    struct entry *lru = NULL;
    int i;

    for (i = 0; i < EXPRESS_CACHE_MAX; i++) {
        struct entry *en = &c->entries[i];
        if (!en->used)
            return en;
        if (!lru || en->last_used < lru->last_used)
            lru = en;
    }
    entry_release(c, lru);
    c->stats.evicted++;
    return lru;
}

static bool usable(const struct entry *en, int64_t now_ms)
{
    return en && en->gen && !en->force && now_ms < en->expires_ms - express_mandatory_lead_ms(en->life_ms);
}

static void hand_out(struct express_cache *c, struct entry *en, struct express_use *out)
{
    en->last_used = ++c->clock;
    out->keys = &en->cur;
    out->gen = en->gen;
    out->region = en->region;
    out->fresh = !en->handed;
    en->handed = true;
}

enum s3c_err express_get(struct express_cache *c, const char *bucket, const char *region, enum express_mode mode,
                         const struct creds *iam, int64_t now_ms, struct express_use *out, struct s3c_error *e)
{
    struct entry *en;

    memset(out, 0, sizeof(*out));
    if (!iam || !iam->access_key || !iam->secret_key)
        return s3c_fail(e, S3C_EAUTH, "S3 Express: no credentials to create a session with");
    if (strlen(bucket) >= EXPRESS_BUCKET_MAX)
        return s3c_fail(e, S3C_EUSAGE, "bucket name \"%.100s\" is too long", bucket);
    /* A ReadWrite session of the same bucket and keys serves reads too. */
    if (mode == EXPRESS_READ_ONLY) {
        struct entry *rw = find(c, bucket, iam->access_key, EXPRESS_READ_WRITE);
        if (rw && rw->running && atomic_load(&rw->done))
            join_refresh(c, rw);
        if (usable(rw, now_ms)) {
            hand_out(c, rw, out);
            return S3C_OK;
        }
    }
    en = find(c, bucket, iam->access_key, mode);
    if (!en) {
        en = slot(c);
        en->used = true;
        str_copy(en->ask.bucket, sizeof(en->ask.bucket), bucket);
        en->ask.mode = mode;
        if (creds_copy(&en->ask.iam, iam)) {
            en->used = false;
            return s3c_fail(e, S3C_ENOMEM, "out of memory");
        }
    }
    if (en->running && atomic_load(&en->done))
        join_refresh(c, en);
    if (!en->running) {
        /* The keys of one id may have been refreshed in place (a new token). */
        if (!en->ask.iam.session_token != !iam->session_token ||
            (iam->session_token && strcmp(en->ask.iam.session_token, iam->session_token) != 0))
            if (creds_copy(&en->ask.iam, iam))
                return s3c_fail(e, S3C_ENOMEM, "out of memory");
        if (!en->gen || en->force)
            str_copy(en->ask.region, sizeof(en->ask.region), region); /* a new fetch signs for it */
    }
    if (usable(en, now_ms)) {
        /* Valid: refresh ahead of time, on a thread, and sign with it meanwhile. */
        if (now_ms >= en->expires_ms - express_advisory_lead_ms(en->life_ms) && !en->running &&
            now_ms >= en->retry_at_ms) {
            start_refresh(c, en, false);
            if (en->running)
                c->stats.ahead++;
        }
        hand_out(c, en, out);
        return S3C_OK;
    }
    /* Nothing valid left (none yet, refused as expired, about to expire): wait. */
    if (!en->running && (en->force || now_ms >= en->retry_at_ms))
        start_refresh(c, en, true);
    if (en->running) {
        c->stats.waited++;
        join_refresh(c, en);
    }
    en->force = false;
    now_ms = express_now_ms();
    if (en->gen && now_ms < en->expires_ms) {
        hand_out(c, en, out);
        return S3C_OK;
    }
    if (en->last_err.code)
        return s3c_fail(e, en->last_err.code, "%s", en->last_err.msg);
    return s3c_fail(e, S3C_EAUTH, "S3 Express: the session for %s expired and could not be renewed", bucket);
}

bool express_expired(struct express_cache *c, unsigned gen)
{
    struct entry *en = NULL;
    int i;

    for (i = 0; i < EXPRESS_CACHE_MAX && !en; i++)
        if (c->entries[i].used && c->entries[i].gen == gen)
            en = &c->entries[i];
    if (!en)
        return true; /* replaced by a newer session already (or evicted): that one may do */
    if (en->force)
        return true; /* a fetch is asked for already */
    if (c->forced_total >= FORCED_TOTAL_MAX)
        return false;
    if (en->forced_gen != gen) {
        en->forced_gen = gen;
        en->forced_for_gen = 0;
    }
    if (en->forced_for_gen >= FORCED_PER_GEN_MAX)
        return false;
    en->forced_for_gen++;
    c->forced_total++;
    en->force = true;
    return true;
}

void express_stats(const struct express_cache *c, struct express_stats *out)
{
    *out = c->stats;
}
