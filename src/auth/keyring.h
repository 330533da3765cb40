/*
 * keyring: the keys a run signs with now, and their refresh. It holds the
 * current credentials of the provider the chain chose (auth/creds.h) and,
 * when they expire, fetches the next ones on a thread of its own ahead of
 * time, so the loop that signs never waits on STS, SSO, IMDS or a process.
 * It signs nothing and sends nothing; store/ asks it for keys per request.
 *
 * Windows, as botocore's RefreshableCredentials: a refresh starts 15 minutes
 * before expiry (advisory) and is waited for from 10 minutes before it
 * (mandatory). Short-lived keys (tests, or a 15-minute role) scale the
 * windows down to 1/2 and 1/3 of their lifetime, so keys that live 10 s are
 * refreshed after 5 s rather than on every request.
 *
 * Threads: keyring_get, keyring_copy and keyring_expired may be called from
 * several threads (the engine's loops): they take the keyring's lock, but
 * keyring_copy of keys that never change (static ones), which takes none
 * after its first copy. The pointer keyring_get returns is good until the
 * next call that may refresh, so only a single-threaded user may keep it;
 * a loop among several signs with its own copy (keyring_copy). The refresh
 * thread touches only the provider and the 'next' slot, and hands them back
 * with one atomic flag.
 */
#ifndef S3C_AUTH_KEYRING_H
#define S3C_AUTH_KEYRING_H

#include <stdbool.h>
#include <time.h>

#include "auth/creds.h"
#include "base/err.h"

struct keyring;

/*
 * A keyring starting with 'first' (moved in: *first is CREDS_INIT after)
 * from provider 'src' (borrowed, may be NULL: the keys never change).
 * 'wake' (may be NULL) is called from the refresh thread when fresh keys are
 * ready, so a sleeping loop takes them early. NULL only when out of memory.
 */
struct keyring *keyring_new(struct creds_src *src, struct creds *first, void (*wake)(void *ctx),
                            void *wake_ctx);

/* Waits for a refresh in flight, then frees everything (secrets wiped). */
void keyring_free(struct keyring *k);

/*
 * The keys to sign with at 'now', and their generation in *gen (bumped each
 * time they change). Starts a background refresh inside the advisory
 * window; inside the mandatory window, or after keyring_expired() asked for
 * one, waits for it (or fetches in place). Returns NULL with 'e' set when no
 * valid keys can be had (the provider's failure, naming it).
 */
const struct creds *keyring_get(struct keyring *k, time_t now, unsigned *gen, struct s3c_error *e);

/*
 * keyring_get for one of several threads: the keys to sign with at 'now'
 * copied into 'mine' (the caller's, released with creds_release) when their
 * generation is not *gen (or nothing was copied yet), and *gen set to theirs.
 * S3C_OK, or keyring_get's failure in 'e' ('mine' left as it was).
 */
enum s3c_err keyring_copy(struct keyring *k, time_t now, struct creds *mine, unsigned *gen, struct s3c_error *e);

/*
 * The store said keys of generation 'gen' had expired (ExpiredToken and
 * friends). True when a retry can use other keys: newer ones exist, or the
 * provider can refresh (a refresh is then forced at the next keyring_get).
 * False for keys that cannot change (static keys): the error is final.
 */
bool keyring_expired(struct keyring *k, unsigned gen);

/* How many times fresh keys replaced the current ones (for --debug and tests). */
unsigned keyring_refreshes(const struct keyring *k);

#endif
