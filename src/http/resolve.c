/*
 * The resolver cache behind resolve.h: names to address lists (getaddrinfo
 * or the hosts override file), refreshed after HTTP_RESOLVE_TTL_S, and the
 * in-flight count of every address, so requests go to the least busy one.
 * It opens no connection and never talks to curl.
 */
#include "http/resolve.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
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

struct http_resolver {
    char *hosts_text;           /* the override file's text, or NULL */
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

void http_resolver_free(struct http_resolver *r)
{
    if (!r)
        return;
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

/* Take a fresh answer: known addresses keep their counts, gone ones leave once idle. */
static void host_refresh(struct http_resolver *r, struct host_entry *h, long now)
{
    char got[HTTP_RESOLVE_MAX_ADDRS][64];
    int n, i, j;

    n = r->hosts_text ? http_hosts_lookup(r->hosts_text, h->name, got, HTTP_RESOLVE_MAX_ADDRS) : 0;
    h->pinned = n > 0;
    if (!n)
        n = resolve_system(h->name, got, HTTP_RESOLVE_MAX_ADDRS);
    h->fetched = now;
    if (!n)
        return; /* keep what we had (if anything) until the next try */
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
    if (now - h->fetched >= HTTP_RESOLVE_TTL_S)
        host_refresh(r, h, now);
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
