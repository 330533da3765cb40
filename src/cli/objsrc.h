/*
 * objsrc: the objects one argument of cp, mv, rm or sync names, as one
 * stream, whatever the argument is:
 *
 *   s3://b/key                  that object                      OBJSRC_ONE
 *   local/file                  that file                        OBJSRC_ONE
 *   s3://b/pre --recursive      every key under "pre/"           OBJSRC_LIST
 *   s3://b/dir/STAR.log         every key the wildcard matches   OBJSRC_LIST
 *   s3://b/pre --from-manifest  the manifest's keys under "pre/" OBJSRC_MANIFEST
 *   local/dir --recursive       every file under it              OBJSRC_WALK
 *   local/dir/STAR.log          every file the wildcard matches  OBJSRC_WALK
 *                               (one component at a time, as s5cmd's
 *                               Glob: STAR stops at '/'; a matched
 *                               directory is taken whole)
 *   s3://b/... --all-versions   every version and delete marker  OBJSRC_VERSIONS
 *
 * (STAR stands for '*', which cannot sit in this comment.) Each entry has
 * passed, in this order: the containment check of listings (plan/lister.h
 * and plan/listcheck.h: a key listed outside the prefix, or unnamable, is
 * warned about and counted here, once for every verb, never yielded), the
 * directory placeholders the verb leaves out, the wildcard, the
 * --exclude/--include filters and the shard (job_owns). What the verb makes
 * of an entry (destination names, the merge, deletes) is the verb's.
 *
 * Order: a walk yields in byte order of its relative names, a listing in
 * the store's key order (S3 order, except directory buckets), a manifest in
 * the file's order, versions as the store lists them: the source only
 * leaves entries out, never reorders (sync's merge relies on it).
 *
 * Not thread-safe: the thread of the store's loop. Blocking as the
 * underlying source is (a listing page, a directory, a manifest's data
 * file), except that with 'later' a request out (a listing's or a versions
 * listing's page, an s3:// manifest opened with objsrc_opts.later, an
 * inventory's data file) is OBJSRC_LATER, not waited for.
 */
#ifndef S3C_CLI_OBJSRC_H
#define S3C_CLI_OBJSRC_H

#include <stdbool.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/str.h"
#include "cli/listing.h"
#include "plan/filter.h"
#include "plan/lister.h"
#include "plan/walk.h"
#include "s3/uri.h"

struct job;
struct manifest;

enum objsrc_kind {
    OBJSRC_ONE,         /* one object or file, named by the argument */
    OBJSRC_LIST,        /* an S3 listing under a prefix */
    OBJSRC_MANIFEST,    /* an S3 prefix's keys from --from-manifest */
    OBJSRC_WALK,        /* a local tree */
    OBJSRC_VERSIONS,    /* --all-versions: a versions listing */
    OBJSRC_EMPTY,       /* a local root that does not exist, opened with missing_is_empty */
};

/* Which "dir/" placeholder keys (a key ending in '/') a listing leaves out. */
enum objsrc_dirs {
    OBJSRC_DIRS_KEEP,           /* none (rm, cp to S3) */
    OBJSRC_DIRS_SKIP,           /* every one (a download: no file to become) */
    OBJSRC_DIRS_SKIP_EMPTY,     /* those known to hold 0 bytes, and the prefix's own key (sync) */
    OBJSRC_DIRS_MARKERS,        /* --directory-markers: the prefix's own key and those that hold
                                   bytes; a 0-byte "dir/" is an entry (a directory to make) */
};

struct objsrc_entry;

/*
 * A manifest entry with no size or time (a plain key list): the verb may
 * fill them in (cp HEADs the key). False: leave the entry out (the verb
 * reported why).
 */
typedef bool objsrc_fill_fn(void *ctx, struct objsrc_entry *en);

struct objsrc_opts {
    struct store_s3 *s3;        /* for listings and s3:// manifests */
    struct job *job;            /* the shard (job_owns), and where listed skips are counted */
    int count_op;               /* the row they count under (enum xfer_op or JOB_OP_MOVE) */
    const char *arg;            /* the argument: s3://BUCKET[/KEY] or a local path (borrowed) */
    bool recursive;             /* a prefix or a directory, not one object */
    bool raw;                   /* wildcards are literal characters */
    bool all_versions;          /* S3: every version and delete marker (rm) */
    const char *from_manifest;  /* S3 prefix: its keys from this manifest, not a listing (borrowed) */
    const struct filter *filter; /* --exclude/--include, or NULL (borrowed) */
    const char *filter_root;    /* the verb's filter root of 'arg' (borrowed) */
    bool filter_one;            /* OBJSRC_ONE: its base name goes through the filters too (rm) */
    bool tell_filtered;         /* each name the filters keep out is a --json record (cp, mv, rm, sync) */
    enum objsrc_dirs dirs;
    bool empty_dirs;            /* a walk yields empty directories as "dir/" entries of 0 bytes */
    bool follow_symlinks, check_readable, tmp_files; /* the walk's (plan/walk.h), temp files by job_tmp_of */
    bool missing_is_empty;      /* a local root that does not exist is OBJSRC_EMPTY, not S3C_ENOTFOUND */
    const char *match_rel;      /* NULL, or only the entries whose rel this pattern matches (a sync's
                                   destination when its source is a wildcard: what it would name) */
    bool match_rel_path;        /* match_rel is a local path's (wild_path_match), else a key's */
    int page_size;              /* a listing's keys per request (--page-size); 0: the store's */
    bool list_v1;               /* listings with ListObjects, not V2 (--use-list-objects-v1) */
    bool later;                 /* opened on the engine (objsrc.later will be set): an s3:// manifest
                                   is not waited for at the open but by objsrc_next, OBJSRC_LATER
                                   while it is out, its failure then OBJSRC_FAILED with open_failed */
    objsrc_fill_fn *fill;       /* NULL: manifest entries stay as they are */
    void *fill_ctx;
};

struct objsrc_entry {
    const char *key;            /* the S3 key, or the local path (root/rel); valid until the next call */
    struct sv rel;              /* the name below the argument: what filters, the shard and destinations go by */
    bool has_attrs;             /* size, mtime and etag are known (not a manifest's plain key) */
    bool special;               /* OBJSRC_BAD: a FIFO, device or socket (else unreadable) */
    uint64_t size;
    int64_t mtime;              /* seconds since 1970 */
    int32_t mtime_nsec;         /* a walk's nanoseconds, a listing's milliseconds (as nanoseconds) */
    int64_t ctime;              /* a walk's: the file's status change time (seconds); else 0 */
    const char *etag;           /* as listed, quotes included; "" when unknown */
    const char *version_id;     /* OBJSRC_VERSIONS: as listed ("" before versioning); else "" */
    const char *storage_class;  /* a listing's, as listed ("" when the store sent none); else NULL */
};

struct objsrc {
    struct objsrc_opts o;
    enum objsrc_kind kind;
    struct s3_uri u;            /* S3 argument (its key's escapes removed when it has no wildcard) */
    char *lit;                  /* a local argument without a wildcard, its escapes removed (o.arg) */
    char *prefix;               /* LIST, MANIFEST: the listing prefix ("" or ending in '/') */
    const char *pattern;        /* a wildcard argument: keys or paths must match it */
    uint64_t matched;           /* keys or files the pattern matched */
    bool one_given;             /* ONE: its entry was yielded */
    struct lister lister;
    bool lister_open;
    struct manifest *manifest;
    struct listing versions;
    bool versions_open;
    bool versions_exact;        /* one key without --recursive: its versions only */
    struct buf vprefix;         /* the versions listing's prefix */
    struct walk *walk;
    char *walk_root;            /* the directory walked */
    char *walk_match;           /* what comes before each rel to match the pattern ("dir/") */
    struct buf path, match;     /* the current walk entry's path, and its name to match */
    struct objsrc_entry cur;
    bool later;                 /* the engine asks (XFER_NEXT_LATER): a listing waits for its page
                                   by answering OBJSRC_LATER, never by stepping the loop itself */
    bool open_failed;           /* OBJSRC_FAILED was the open's (objsrc_opts.later): the verb tells it
                                   as it tells a failed objsrc_open */
};

#define OBJSRC_INIT { .kind = OBJSRC_ONE, .u = S3_URI_INIT }

/*
 * Open the source 'o' names into 'src' (OBJSRC_INIT, or closed; the strings
 * of 'o' are borrowed: they must outlive it; 'src' must not move while open,
 * its listing holds it): no request yet, except a manifest's own file
 * (waited for here unless o->later).
 * The kind (objsrc.kind) is set as soon as it is known, so that a verb can
 * tell an error as its kind asks. On failure 'e' says why (a
 * walk's S3C_ENOTFOUND or S3C_EIO, a manifest's, S3C_ENOMEM) and 'src' is
 * still safe to objsrc_close(). The verb tells its errors as it does.
 */
enum s3c_err objsrc_open(struct objsrc *src, const struct objsrc_opts *o, struct s3c_error *e);

enum objsrc_next {
    OBJSRC_FAILED = -1,         /* the listing failed ('e'): the source is over */
    OBJSRC_END = 0,             /* no more */
    OBJSRC_ENTRY = 1,           /* *out is the next entry */
    OBJSRC_BAD = 2,             /* a walk's entry that cannot be read or is no regular file: out->rel
                                   names it (out->key its path), 'e' says why; the walk goes on */
    OBJSRC_LATER = 3,           /* 'later' set: a listing's (or versions listing's) next page or a
                                   manifest's data file is not here yet; step the store's loop and
                                   ask again soon (XFER_LATER_MS) */
};

/* The next entry, valid until the next call or objsrc_close(). */
enum objsrc_next objsrc_next(struct objsrc *src, const struct objsrc_entry **out, struct s3c_error *e);

/* A walk's root is a directory (not one file). */
bool objsrc_root_is_dir(const struct objsrc *src);

/* Waits for a listing's requests in flight, frees all; 'src' is then OBJSRC_INIT again. */
void objsrc_close(struct objsrc *src);

#endif
