/*
 * listing: what ls and du walk. One ListObjectsV2 or ListObjectVersions
 * listing as a stream of entries (common prefixes, objects, versions,
 * delete markers), one page held at a time, each key optionally tested
 * against an s5cmd wildcard (plan/wild.h).
 *
 * plan/lister.h is the engine's stream of objects (no delimiter, current
 * versions only) for cp/mv/rm/sync; this one adds what a listing command
 * needs besides: a delimiter and its common prefixes, versions and delete
 * markers, and the order `aws s3 ls` prints a page in (the page's common
 * prefixes first, then its objects).
 *
 * Every entry passes plan/listcheck.h first, as plan/lister.h's do: a key
 * or common prefix outside the prefix, or a key holding a NUL, is skipped
 * and told to o.skip (by default a warning line, and l->skipped counts it);
 * a page that does not move the listing on (a token or marker pair
 * followed before, entries that do not rise) ends it with an error.
 *
 * Not thread-safe: the thread of the store's loop. Each page is one
 * request on the store, waited for, except with 'nonblock' a versions
 * page: listing_next answers LISTING_LATER while it is out (on the
 * engine, whose steps of the loop bring it; rm --all-versions).
 */
#ifndef S3C_CLI_LISTING_H
#define S3C_CLI_LISTING_H

#include <stdbool.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/err.h"
#include "plan/filter.h"
#include "plan/lister.h"
#include "s3/xml.h"
#include "store/store_s3.h"

struct xsort;

/* What to list. Strings are borrowed: they must outlive the listing. */
struct listing_opts {
    const char *bucket;
    const char *prefix;         /* NULL or "" for the whole bucket */
    const char *delimiter;      /* NULL or "": every key under the prefix */
    const char *pattern;        /* NULL, or a wildcard each key must match (whole key) */
    bool versions;              /* ListObjectVersions: every version and delete marker */
    int page_size;              /* keys a request; 0: the store's default (1000) */
    bool v1;                    /* ListObjects (marker) instead of V2 (s5cmd's --use-list-objects-v1) */
    bool restore_status;        /* V2: each archived object's restore status too (listing_entry) */
    /* --exclude/--include, or NULL: tried on each key's name relative to the
     * argument (wild_relative with a pattern, else the key after the
     * prefix), as cp does; common prefixes are not filtered. */
    const struct filter *filter;
    const char *filter_root;    /* filter_root() of the argument */
    /* Entries in key order (common prefixes first) whatever order the store
     * lists in, through an external sort (plan/xsort.h): for directory
     * buckets. The whole listing is read before the first entry returns. */
    bool sorted;
    /* Told of each entry kept from the caller (plan/lister.h's skip); NULL:
     * listing_warn_skip() prints the warning. */
    lister_skip_fn *skip;
    void *skip_ctx;
};

enum listing_kind {
    LISTING_PREFIX,             /* a common prefix (only with a delimiter): key only */
    LISTING_OBJECT,             /* an object, or one version of it */
    LISTING_DELETE_MARKER,      /* a delete marker (versions only): no size, etag, class */
};

struct listing_entry {
    enum listing_kind kind;
    const char *key;            /* the whole key, or the common prefix */
    const char *version_id;     /* "" unless versions; "null" for pre-versioning objects */
    bool is_latest;             /* the current version of its key (always true without versions) */
    uint64_t size;
    int64_t mtime_epoch;
    const char *last_modified;  /* as sent */
    const char *etag;           /* as sent, quotes included; "" for a delete marker */
    const char *storage_class;  /* as sent ("" when the store sent none) */
    const char *restore_in_progress; /* with listing_opts.restore_status: "true", "false" (restored);
                                       NULL or "": no restore, or not asked */
    const char *restore_expiry; /* restored: until when, as sent; NULL or "" */
};

struct listing {
    struct store_s3 *s3;
    struct listing_opts o;
    struct s3_list_objects objs;    /* the current page, without versions */
    struct s3_list_versions vers;   /* the current page, with versions */
    struct s3_list_versions held;   /* versions: the page before, whose last entry waits for this one */
    bool holding, held_out;         /* 'held' waits for the next page; its last entry was handed out */
    char *token;                    /* continuation token of the next page */
    char *key_marker;               /* versions: where the next page starts */
    char *version_marker;
    size_t i_prefix, i_entry;       /* next unread of the current page */
    bool started, more;             /* a page was fetched; another one follows */
    struct listing_entry cur;
    struct xsort *sorted;           /* with o.sorted: every entry, sorted */
    struct buf unpacked;            /* with o.sorted: the strings of 'cur' */
    struct listcheck_tokens seen;   /* tokens (marker pairs) followed */
    char *last;                     /* the greatest entry of the pages read: the next must rise past it */
    uint64_t skipped;               /* entries kept from the caller */
    bool nonblock;                  /* a versions page out: listing_next answers LISTING_LATER, never waits */
    struct store_s3_async page;     /* the versions page out (or waiting for a retry) */
    struct http_xfer page_x;        /* its exchange */
    struct buf page_q;              /* its query */
    bool page_started;              /* 'page' holds a request */
};

/*
 * The warning for a listed key kept from the verbs, on stderr (or a --json
 * record): "warning: Skipping file s3://BUCKET/KEY. WHY". 'e' is set to
 * S3C_ESKIPPED with WHY, for the caller to count (exit 2 when nothing
 * failed, as the AWS CLI's skipped files).
 */
void listing_warn_skip(const char *bucket, const char *key, enum listcheck_verdict why, struct s3c_error *e);

/*
 * Set o->prefix and o->pattern from the key part of an s3:// argument: a
 * key with a wildcard lists its literal prefix (kept in 'prefix', which must
 * outlive the listing) and matches every key against the pattern; any
 * other key is the prefix itself, its escapes removed (also kept in
 * 'prefix'). S3C_ENOMEM past prefix's cap.
 */
enum s3c_err listing_set_key(struct listing_opts *o, const char *key, struct buf *prefix,
                             struct s3c_error *e);

/* Prepare a listing; no request yet. 'l' is then safe to listing_close(). */
void listing_open(struct listing *l, struct store_s3 *s3, const struct listing_opts *o);

#define LISTING_LATER 2

/*
 * The next entry: 1 with *out valid until the next call, 0 at the end, -1
 * with 'e' set when a page failed (the listing is over then). Entries come
 * in the store's order: per page, common prefixes, then keys in key order
 * (with versions, each key's newest version first). With 'nonblock', a
 * versions page not here yet is LISTING_LATER: step the store's loop (the
 * engine does) and ask again soon (XFER_LATER_MS: a retry's backoff ends
 * in a poll); the entries returned before stay valid until then.
 */
int listing_next(struct listing *l, const struct listing_entry **out, struct s3c_error *e);

/*
 * True when no entry of the current page is left to return, so the next
 * listing_next() will fetch another page (or end) and the strings of the
 * entries returned so far will be gone. A caller that keeps pointers to
 * several entries (a batch of deletes) flushes them when this says so.
 */
bool listing_page_done(struct listing *l);

void listing_close(struct listing *l);

#endif
