/*
 * resolve: a small resolver cache that spreads a loop's connections over
 * every address a host name has, as S3's front ends want (one address caps
 * a client's throughput). Each name is resolved once (getaddrinfo, or a
 * hosts-style override file), kept HTTP_RESOLVE_TTL_S seconds, and each
 * request is pinned to the address with the fewest requests in flight.
 * Knows nothing of curl or S3: http.c turns a pick into CURLOPT_CONNECT_TO.
 *
 * Threads: a resolver belongs to its loop's thread, and never blocks it:
 * getaddrinfo runs on a thread of the resolver's own (resolve.c), and a
 * pick uses the last answer until the fresh one is in.
 */
#ifndef S3C_HTTP_RESOLVE_H
#define S3C_HTTP_RESOLVE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"

#define HTTP_RESOLVE_TTL_S 30       /* how long an answer is used before asking again */
#define HTTP_RESOLVE_MAX_ADDRS 16   /* addresses kept per name */
#define HTTP_RESOLVE_MAX_HOSTS 16   /* names kept (the least recently used goes) */
#define HTTP_RESOLVE_DOWN_S 30      /* an address that refused a connection rests this long */

struct http_resolver;
struct http_resolve_addr;

/*
 * A resolver. 'hosts_file' (NULL: none) is a file in /etc/hosts' format
 * ("ADDRESS NAME..." lines, '#' comments) whose names win over the system's
 * resolver and are always pinned; read now, so a bad one fails here (e says why).
 */
struct http_resolver *http_resolver_new(const char *hosts_file, struct s3c_error *e);
void http_resolver_free(struct http_resolver *r);  /* NULL is a no-op */

/*
 * The address a request to host:port should connect to, written to 'addr'
 * (an IP literal, IPv6 in brackets), or NULL when the request should go as
 * it would without this cache: an IP literal host, a name with a single
 * address (no hosts-file entry), a name that does not resolve (curl then
 * says why), a name whose first answer is not in yet (curl resolves it on
 * its own resolver thread meanwhile), or every address resting. A non-NULL
 * pick counts one request in flight until http_resolver_put().
 */
struct http_resolve_addr *http_resolver_pick(struct http_resolver *r, const char *host, char *addr,
                                             size_t addr_n);

/* The request on 'a' is over; 'refused': it could not connect, so 'a' rests a while. */
void http_resolver_put(struct http_resolver *r, struct http_resolve_addr *a, bool refused);

/*
 * Parse hosts-file text: for each line naming 'host', its address goes to
 * out[] (at most 'max'). Returns how many. For the unit tests, and the cache.
 */
int http_hosts_lookup(const char *text, const char *host, char out[][64], int max);

#endif
