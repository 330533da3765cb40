/*
 * The resolver cache behind resolve.h: names to address lists (getaddrinfo
 * or the hosts override file), refreshed after HTTP_RESOLVE_TTL_S, and the
 * in-flight count of every address, so requests go to the least busy one.
 * It opens no connection and never talks to curl.
 *
 * getaddrinfo blocks (a slow or unreachable DNS server: seconds), and the
 * cache belongs to a loop's thread, which must never block: the system's
 * answers come from a thread of the resolver's own (struct dns_worker,
 * started on the first name to resolve), and a pick uses the answer it has
 * until the fresh one is in. Before the first answer, a pick says "as
 * without the cache" (NULL), and curl resolves the name on its own resolver
 * thread. The hosts file is text in memory: looked up at once.
 */
#include "http/resolve.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>

#include "base/buf.h"
#include "base/str.h"

#define HOSTS_FILE_MAX_BYTES (4u << 20)

struct http_resolve_addr {
    char text[64];              /* IP literal, IPv6 in brackets */
    int in_flight;              /* requests pinned to it and not yet put back */
    bool live;                  /* in the name's last answer */
    long down_until;            /* monotonic seconds: refused a connection, resting */
};

struct host_entry {
    char name[256];             /* "" : a free entry */
    bool pinned;                /* from the hosts file: pinned even with one address */
    long fetched;               /* monotonic seconds of the last answer (or failure) */
    long last_used;
    unsigned rr;                /* where the next tie-break starts */
    int n;                      /* slots of addrs[] in use (live or still in flight) */
    struct http_resolve_addr addrs[HTTP_RESOLVE_MAX_ADDRS];
};

/* One name's system answer, or the ask for it: slot i is host entry i's. */
struct dns_slot {
    char name[256];             /* the name asked or answered ("" : none) */
    bool asked;                 /* the worker is to resolve 'name' */
    bool ready;                 /* got[] is the answer for 'name', not yet taken */
    int n;
    char got[HTTP_RESOLVE_MAX_ADDRS][64];
};

/*
 * What a resolver shares with its DNS thread, under 'mu' (never held across
 * getaddrinfo). Freed by the last of the two to leave ('refs'): the resolver
 * does not wait for a getaddrinfo under way when it is freed.
 */
struct dns_worker {
    pthread_mutex_t mu;
    pthread_cond_t cv;          /* a name was asked, or stop */
    int refs;                   /* the resolver and the thread: 2 while both live */
    bool stop;                  /* the resolver is gone: end */
    struct dns_slot slot[HTTP_RESOLVE_MAX_HOSTS];
};

struct http_resolver {
    char *hosts_text;           /* the override file's text, or NULL */
    struct dns_worker *dns;     /* NULL until a name needs the system's resolver */
    bool dns_failed;            /* no thread could be started: leave names to curl */
    struct host_entry hosts[HTTP_RESOLVE_MAX_HOSTS];
};

static long now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long)ts.tv_sec;
}

/* An address as a literal for a URL's host part: IPv6 in brackets. false if it is none. */
static bool addr_literal(const char *in, char out[64])
{
    unsigned char bin[16];

    if (inet_pton(AF_INET, in, bin) == 1)
        return str_copy(out, 64, in);
    if (inet_pton(AF_INET6, in, bin) == 1)
        return snprintf(out, 64, "[%s]", in) < 64;
    return false;
}

int http_hosts_lookup(const char *text, const char *host, char out[][64], int max)
{
    int n = 0;

    while (text && *text && n < max) {
        const char *eol = strchr(text, '\n'), *end = eol ? eol : text + strlen(text);
        const char *hash = memchr(text, '#', (size_t)(end - text));
        struct sv line = { text, (size_t)((hash ? hash : end) - text) };
        char addr[64], lit[64];
        bool first = true, match = false;

        text = eol ? eol + 1 : end;
        while (line.n) {
            size_t i = 0, j;

            while (i < line.n && (line.p[i] == ' ' || line.p[i] == '\t' || line.p[i] == '\r'))
                i++;
            j = i;
            while (j < line.n && line.p[j] != ' ' && line.p[j] != '\t' && line.p[j] != '\r')
                j++;
            if (j > i) {
                struct sv word = { line.p + i, j - i };

                if (first) {
                    if (word.n >= sizeof(addr))
                        break;
                    memcpy(addr, word.p, word.n);
                    addr[word.n] = '\0';
                    first = false;
                } else if (word.n == strlen(host) && strncasecmp(word.p, host, word.n) == 0) {
                    match = true;
                }
            }
            line.p += j;
            line.n -= j;
        }
        if (match && addr_literal(addr, lit))
            str_copy(out[n++], 64, lit);
    }
    return n;
}

struct http_resolver *http_resolver_new(const char *hosts_file, struct s3c_error *e)
{
    struct http_resolver *r = calloc(1, sizeof(*r));
    struct buf text = BUF_INIT(HOSTS_FILE_MAX_BYTES);
    FILE *f = NULL;
    char chunk[8192];
    size_t got;

    if (!r) {
        s3c_fail(e, S3C_ENOMEM, "out of memory");
        return NULL;
    }
    if (!hosts_file || !*hosts_file)
        return r;
    f = fopen(hosts_file, "re");
    if (!f) {
        s3c_fail_errno(e, errno, "S3C_HOSTS_FILE %s", hosts_file);
        goto fail;
    }
    while ((got = fread(chunk, 1, sizeof(chunk), f)) > 0) {
        if (buf_add(&text, chunk, got)) {
            s3c_fail(e, S3C_ECONFIG, "S3C_HOSTS_FILE %s: over %u bytes", hosts_file, HOSTS_FILE_MAX_BYTES);
            goto fail;
        }
    }
    fclose(f);
    r->hosts_text = strdup(buf_cstr(&text));
    buf_release(&text);
    if (!r->hosts_text) {
        s3c_fail(e, S3C_ENOMEM, "out of memory");
        http_resolver_free(r);
        return NULL;
    }
    return r;
fail:
    if (f)
        fclose(f);
    buf_release(&text);
    http_resolver_free(r);
    return NULL;
}

static void dns_worker_unref(struct dns_worker *w)
{
    bool last;

    pthread_mutex_lock(&w->mu);
    last = --w->refs == 0;
    w->stop = true;
    pthread_cond_signal(&w->cv);
    pthread_mutex_unlock(&w->mu);
    if (last) {
        pthread_cond_destroy(&w->cv);
        pthread_mutex_destroy(&w->mu);
        free(w);
    }
}

void http_resolver_free(struct http_resolver *r)
{
    if (!r)
        return;
    if (r->dns)
        dns_worker_unref(r->dns);
    free(r->hosts_text);
    free(r);
}

/* The system's answer: the addresses of the family it prefers (its first), deduplicated. */
static int resolve_system(const char *host, char out[][64], int max)
{
    struct addrinfo hints, *res = NULL, *ai;
    int n = 0, family = 0, i;

    memset(&hints, 0, sizeof(hints));
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    if (getaddrinfo(host, NULL, &hints, &res) != 0)
        return 0;
    for (ai = res; ai && n < max; ai = ai->ai_next) {
        char ip[INET6_ADDRSTRLEN], lit[64];
        const void *p;
        bool dup = false;

        if (!family)
            family = ai->ai_family;
        if (ai->ai_family != family)
            continue; /* one family: no pin to an address this host may not route */
        p = family == AF_INET ? (const void *)&((struct sockaddr_in *)ai->ai_addr)->sin_addr
                              : (const void *)&((struct sockaddr_in6 *)ai->ai_addr)->sin6_addr;
        if (!inet_ntop(family, p, ip, sizeof(ip)) || !addr_literal(ip, lit))
            continue;
        for (i = 0; i < n && !dup; i++)
            dup = strcmp(out[i], lit) == 0;
        if (!dup)
            str_copy(out[n++], 64, lit);
    }
    freeaddrinfo(res);
    return n;
}

/* The DNS thread: resolve each name asked, and leave the answer in its slot. */
static void *dns_worker_main(void *arg)
{
    struct dns_worker *w = arg;
    char name[256], got[HTTP_RESOLVE_MAX_ADDRS][64];
    int i, n;

    pthread_mutex_lock(&w->mu);
    while (!w->stop) {
        for (i = 0; i < HTTP_RESOLVE_MAX_HOSTS && !w->slot[i].asked; i++)
            ;
        if (i == HTTP_RESOLVE_MAX_HOSTS) {
            pthread_cond_wait(&w->cv, &w->mu);
            continue;
        }
        w->slot[i].asked = false;
        str_copy(name, sizeof(name), w->slot[i].name);
        pthread_mutex_unlock(&w->mu);
        n = resolve_system(name, got, HTTP_RESOLVE_MAX_ADDRS);
        pthread_mutex_lock(&w->mu);
        if (strcmp(w->slot[i].name, name) == 0 && !w->slot[i].asked) {
            w->slot[i].n = n;
            memcpy(w->slot[i].got, got, sizeof(got));
            w->slot[i].ready = true; /* the slot still wants this name */
        }
    }
    pthread_mutex_unlock(&w->mu);
    dns_worker_unref(w);
    return NULL;
}

/* The resolver's DNS thread, started on first use; NULL if none could be. */
static struct dns_worker *dns_worker_of(struct http_resolver *r)
{
    struct dns_worker *w;
    pthread_attr_t attr;
    pthread_t th;
    bool started;

    if (r->dns || r->dns_failed)
        return r->dns;
    w = calloc(1, sizeof(*w));
    if (!w) {
        r->dns_failed = true;
        return NULL;
    }
    pthread_mutex_init(&w->mu, NULL);
    pthread_cond_init(&w->cv, NULL);
    w->refs = 2;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    started = pthread_create(&th, &attr, dns_worker_main, w) == 0;
    pthread_attr_destroy(&attr);
    if (!started) {
        pthread_cond_destroy(&w->cv);
        pthread_mutex_destroy(&w->mu);
        free(w);
        r->dns_failed = true;
        return NULL;
    }
    return r->dns = w;
}

/* Ask the DNS thread for entry i's name, unless already asked. */
static void dns_ask(struct http_resolver *r, int i, const char *name)
{
    struct dns_worker *w = dns_worker_of(r);

    if (!w)
        return;
    pthread_mutex_lock(&w->mu);
    if (strcmp(w->slot[i].name, name) != 0 || !w->slot[i].asked) {
        str_copy(w->slot[i].name, sizeof(w->slot[i].name), name);
        w->slot[i].asked = true;
        w->slot[i].ready = false;
        pthread_cond_signal(&w->cv);
    }
    pthread_mutex_unlock(&w->mu);
}

/* Entry i's system answer if one came in since the last look: how many addresses (0: none yet). */
static int dns_take(struct http_resolver *r, int i, const char *name, char got[][64])
{
    struct dns_worker *w = r->dns;
    int n = 0;

    if (!w)
        return 0;
    pthread_mutex_lock(&w->mu);
    if (w->slot[i].ready && strcmp(w->slot[i].name, name) == 0) {
        w->slot[i].ready = false;
        n = w->slot[i].n;
        memcpy(got, w->slot[i].got, sizeof(w->slot[i].got));
    }
    pthread_mutex_unlock(&w->mu);
    return n;
}

/* Take an answer: known addresses keep their counts, gone ones leave once idle. */
static void host_merge(struct host_entry *h, char got[][64], int n)
{
    int i, j;

    for (j = 0; j < h->n; j++)
        h->addrs[j].live = false;
    for (i = 0; i < n; i++) {
        int slot = -1;

        for (j = 0; j < h->n && slot < 0; j++)
            if (strcmp(h->addrs[j].text, got[i]) == 0)
                slot = j;
        for (j = 0; j < h->n && slot < 0; j++)
            if (!h->addrs[j].live && !h->addrs[j].in_flight && strcmp(h->addrs[j].text, got[i]) != 0) {
                slot = j;
                h->addrs[j].down_until = 0;
                str_copy(h->addrs[j].text, sizeof(h->addrs[j].text), got[i]);
            }
        if (slot < 0 && h->n < HTTP_RESOLVE_MAX_ADDRS) {
            slot = h->n++;
            memset(&h->addrs[slot], 0, sizeof(h->addrs[slot]));
            str_copy(h->addrs[slot].text, sizeof(h->addrs[slot].text), got[i]);
        }
        if (slot >= 0)
            h->addrs[slot].live = true;
    }
}

/*
 * Bring entry h (index i) up to date without blocking: the hosts file now;
 * the system's answer when the DNS thread has one, asked again once the
 * last is HTTP_RESOLVE_TTL_S old (the old addresses serve meanwhile).
 */
static void host_refresh(struct http_resolver *r, struct host_entry *h, int i, long now)
{
    char got[HTTP_RESOLVE_MAX_ADDRS][64];
    int n;

    if (now - h->fetched >= HTTP_RESOLVE_TTL_S) {
        n = r->hosts_text ? http_hosts_lookup(r->hosts_text, h->name, got, HTTP_RESOLVE_MAX_ADDRS) : 0;
        h->pinned = n > 0;
        h->fetched = now;
        if (n) {
            host_merge(h, got, n);
            return;
        }
        dns_ask(r, i, h->name);
    }
    if (!h->pinned && (n = dns_take(r, i, h->name, got)) > 0)
        host_merge(h, got, n); /* none: keep what we had (if anything) until the next try */
}

/* The entry of 'host': found, or a free or idle least recently used one taken over; NULL if none. */
static struct host_entry *host_entry_for(struct http_resolver *r, const char *host, long now)
{
    struct host_entry *victim = NULL;
    int i, j;

    for (i = 0; i < HTTP_RESOLVE_MAX_HOSTS; i++)
        if (strcasecmp(r->hosts[i].name, host) == 0)
            return &r->hosts[i];
    for (i = 0; i < HTTP_RESOLVE_MAX_HOSTS; i++) {
        struct host_entry *h = &r->hosts[i];
        bool busy = false;

        for (j = 0; j < h->n; j++)
            busy |= h->addrs[j].in_flight > 0;
        if (!busy && (!victim || h->last_used < victim->last_used))
            victim = h;
    }
    if (!victim)
        return NULL;
    memset(victim, 0, sizeof(*victim));
    str_copy(victim->name, sizeof(victim->name), host);
    victim->fetched = now - HTTP_RESOLVE_TTL_S - 1; /* never fetched */
    return victim;
}

struct http_resolve_addr *http_resolver_pick(struct http_resolver *r, const char *host, char *addr,
                                             size_t addr_n)
{
    struct http_resolve_addr *best = NULL;
    struct host_entry *h;
    long now = now_s();
    int live = 0, i;
    char lit[64];

    if (!host[0] || strlen(host) >= sizeof(h->name) || addr_literal(host, lit) || host[0] == '[')
        return NULL;
    h = host_entry_for(r, host, now);
    if (!h)
        return NULL;
    h->last_used = now;
    host_refresh(r, h, (int)(h - r->hosts), now);
    for (i = 0; i < h->n; i++) {
        struct http_resolve_addr *a = &h->addrs[(h->rr + (unsigned)i) % (unsigned)h->n];

        if (!a->live)
            continue;
        live++;
        if (a->down_until > now)
            continue;
        if (!best || a->in_flight < best->in_flight)
            best = a;
    }
    if (!best || (live < 2 && !h->pinned))
        return NULL;
    h->rr++;
    best->in_flight++;
    str_copy(addr, addr_n, best->text);
    return best;
}

void http_resolver_put(struct http_resolver *r, struct http_resolve_addr *a, bool refused)
{
    (void)r;
    if (!a)
        return;
    if (a->in_flight > 0)
        a->in_flight--;
    if (refused)
        a->down_until = now_s() + HTTP_RESOLVE_DOWN_S;
}
