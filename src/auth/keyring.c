/*
 * keyring: the current keys and their refresh on a thread of its own (see
 * keyring.h). Owns the refresh thread and nothing else: it never signs,
 * sends or prints; the provider (auth/creds*.c) does the fetching.
 */
#include "auth/keyring.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define ADVISORY_LEAD_S 900     /* botocore: refresh 15 minutes before expiry */
#define MANDATORY_LEAD_S 600    /* and wait for it from 10 minutes before */
#define RETRY_MAX_S 30          /* a failed refresh is tried again within this */
#define FORCED_PER_GEN_MAX 3    /* ExpiredToken for one generation: refreshes to try */
#define FORCED_TOTAL_MAX 50     /* and in a whole run, so a server that refuses every key ends */

struct keyring {
    struct creds cur;           /* what requests are signed with now */
    unsigned gen;               /* bumped each time 'cur' changes */
    time_t fetched_at;          /* when 'cur' arrived: its lifetime sets the windows */
    struct creds_src *src;      /* borrowed; NULL: 'cur' never changes */
    void (*wake)(void *ctx);
    void *wake_ctx;

    /* The refresh thread: it writes next, next_rc and next_err, then 'done'. */
    pthread_t thread;
    bool running;               /* a thread was started and not yet joined */
    atomic_int done;
    struct creds next;
    enum s3c_err next_rc;
    struct s3c_error next_err;

    time_t retry_at;            /* after a failed refresh, none before this */
    struct s3c_error last_err;  /* why the last refresh failed */
    bool force;                 /* keyring_expired() wants fresh keys now */
    unsigned forced_gen;        /* the generation the forced refreshes were for */
    unsigned forced_for_gen;    /* how many for it */
    unsigned forced_total;
    unsigned refreshes;
    bool fixed;                 /* no provider or no expiry: 'cur' never changes */
    pthread_mutex_t lock;       /* the engine's loops sign from several threads */
};

struct keyring *keyring_new(struct creds_src *src, struct creds *first, void (*wake)(void *ctx),
                            void *wake_ctx)
{
    struct keyring *k = calloc(1, sizeof(*k));

    if (!k)
        return NULL;
    k->cur = *first;
    memset(first, 0, sizeof(*first));
    k->src = src;
    k->wake = wake;
    k->wake_ctx = wake_ctx;
    k->fetched_at = time(NULL);
    k->fixed = !src || !k->cur.expires;
    atomic_init(&k->done, 0);
    pthread_mutex_init(&k->lock, NULL);
    return k;
}

static void *refresh_main(void *arg)
{
    struct keyring *k = arg;

    k->next_rc = creds_src_fetch(k->src, &k->next, &k->next_err);
    atomic_store(&k->done, 1);
    if (k->wake)
        k->wake(k->wake_ctx);
    return NULL;
}

/* Take what the finished refresh brought: fresh keys, or why not. */
static void take_next(struct keyring *k, time_t now)
{
    if (k->next_rc == S3C_OK && k->next.access_key && k->next.secret_key) {
        creds_release(&k->cur);
        k->cur = k->next;
        memset(&k->next, 0, sizeof(k->next));
        k->gen++;
        k->fetched_at = now;
        k->refreshes++;
        k->retry_at = 0;
        return;
    }
    creds_release(&k->next);
    k->last_err = k->next_err;
    if (k->next_rc == S3C_OK) /* a provider that answered with nothing */
        s3c_fail(&k->last_err, S3C_EAUTH, "refreshing credentials (%s): the provider returned no keys",
                 k->cur.method ? k->cur.method : "?");
    /* Try again soon, sooner as expiry nears. */
    {
        time_t left = k->cur.expires > now ? k->cur.expires - now : 0;
        time_t wait = left / 4;

        k->retry_at = now + (wait < 1 ? 1 : wait > RETRY_MAX_S ? RETRY_MAX_S : wait);
    }
}

static void join_refresh(struct keyring *k, time_t now)
{
    if (!k->running)
        return;
    pthread_join(k->thread, NULL);
    k->running = false;
    atomic_store(&k->done, 0);
    take_next(k, now);
}

static void start_refresh(struct keyring *k)
{
    s3c_error_clear(&k->next_err);
    k->next_rc = S3C_OK;
    atomic_store(&k->done, 0);
    if (pthread_create(&k->thread, NULL, refresh_main, k) == 0) {
        k->running = true;
        return;
    }
    /* No thread to be had: fetch in place (this once the loop waits). */
    refresh_main(k);
    take_next(k, time(NULL));
}

void keyring_free(struct keyring *k)
{
    if (!k)
        return;
    if (k->running) {
        pthread_join(k->thread, NULL);
        creds_release(&k->next);
    }
    creds_release(&k->cur);
    pthread_mutex_destroy(&k->lock);
    free(k);
}

/* keyring_get's work, with the lock held. */
static const struct creds *get_locked(struct keyring *k, time_t now, unsigned *gen, struct s3c_error *e)
{
    if (k->running && atomic_load(&k->done))
        join_refresh(k, now);
    if (k->src && k->cur.expires) {
        time_t life = k->cur.expires - k->fetched_at;
        time_t adv_lead = life / 2 < ADVISORY_LEAD_S ? life / 2 : ADVISORY_LEAD_S;
        time_t mand_lead = life / 3 < MANDATORY_LEAD_S ? life / 3 : MANDATORY_LEAD_S;

        if (k->force || now >= k->cur.expires - mand_lead) {
            /* Keys about to expire (or refused as expired): wait for fresh ones. */
            if (!k->running && (k->force || now >= k->retry_at)) {
                if (k->force)
                    creds_src_skip_cache(k->src); /* the cache may hold the refused keys */
                start_refresh(k);
            }
            join_refresh(k, now);
            k->force = false;
        } else if (now >= k->cur.expires - adv_lead && !k->running && now >= k->retry_at) {
            start_refresh(k);
        }
        if (now >= k->cur.expires) {
            if (k->last_err.code)
                s3c_fail(e, S3C_EAUTH, "%s", k->last_err.msg);
            else
                s3c_fail(e, S3C_EAUTH, "the credentials (%s) expired and could not be refreshed",
                         k->cur.method ? k->cur.method : "?");
            return NULL;
        }
    }
    *gen = k->gen;
    return &k->cur;
}

const struct creds *keyring_get(struct keyring *k, time_t now, unsigned *gen, struct s3c_error *e)
{
    const struct creds *cr;

    pthread_mutex_lock(&k->lock);
    cr = get_locked(k, now, gen, e);
    pthread_mutex_unlock(&k->lock);
    return cr;
}

enum s3c_err keyring_copy(struct keyring *k, time_t now, struct creds *mine, unsigned *gen, struct s3c_error *e)
{
    const struct creds *cr;
    enum s3c_err rc = S3C_OK;
    unsigned g;

    /* Keys that never change: the copy made once stays good, no lock. */
    if (k->fixed && mine->access_key)
        return S3C_OK;
    pthread_mutex_lock(&k->lock);
    cr = get_locked(k, now, &g, e);
    if (!cr)
        rc = e->code ? e->code : S3C_EAUTH;
    else if (g != *gen || !mine->access_key) {
        rc = creds_copy(mine, cr);
        if (rc)
            s3c_fail(e, rc, "credentials: out of memory");
        *gen = g;
    }
    pthread_mutex_unlock(&k->lock);
    return rc;
}

static bool expired_locked(struct keyring *k, unsigned gen)
{
    if (gen != k->gen)
        return true; /* signed before the keys changed: the new ones may do */
    if (!k->src || !k->cur.expires)
        return false;
    if (k->force && k->forced_gen == gen)
        return true; /* a refresh for these keys is already asked for */
    if (k->forced_total >= FORCED_TOTAL_MAX)
        return false;
    if (k->forced_gen != gen) {
        k->forced_gen = gen;
        k->forced_for_gen = 0;
    }
    if (k->forced_for_gen >= FORCED_PER_GEN_MAX)
        return false;
    k->forced_for_gen++;
    k->forced_total++;
    k->force = true;
    return true;
}

bool keyring_expired(struct keyring *k, unsigned gen)
{
    bool yes;

    pthread_mutex_lock(&k->lock);
    yes = expired_locked(k, gen);
    pthread_mutex_unlock(&k->lock);
    return yes;
}

unsigned keyring_refreshes(const struct keyring *k)
{
    return k->refreshes;
}
