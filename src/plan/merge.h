/*
 * merge: the sync plan as a merge of two sorted streams, one entry per file
 * or object (relative key, size, mtime), as the AWS CLI's comparator
 * (awscli/customizations/s3/comparator.py and syncstrategy/) decides it.
 * Pure: no I/O, no clock; the two sides are callbacks, so a local walk, an
 * S3 listing or an external sort (plan/xsort.h) all plug in alike.
 *
 * Order. Both sides must yield strictly increasing 'rel' in unsigned byte
 * order (S3's order of UTF-8 keys: "a-b" < "a.b" < "a/b" < "a0"). The merge
 * checks it: an entry not greater than the one before ends the merge with an
 * error before anything is decided on it, so an unsorted side can never
 * make a present file look missing and get it deleted.
 *
 * The decision for a rel present on:
 *   - the source only: COPY (MERGE_WHY_NEW);
 *   - both: COPY when the strategy says so (merge_should_copy), else SKIP;
 *   - the destination only: DELETE with --delete, else KEEP; KEEP also when
 *     the source side protects it (below).
 *
 * Protection. A source may yield MERGE_PROTECT entries for what it could
 * not read: "dir/" (ending in '/', at its place in key order) protects every
 * destination rel starting with "dir/"; any other rel protects itself alone.
 * Protected destination entries are never deleted, and a protected rel
 * present on both sides is neither copied nor deleted (KEEP). PROTECT
 * entries of the destination side are ignored (what the destination could
 * not read is treated as missing there). Filters (--exclude/--include) are
 * the caller's: a filtered-out entry never reaches the merge, on either
 * side, so it is neither copied nor deleted (the AWS CLI filters both
 * sides the same way).
 *
 * Times. S3 states LastModified to the second (HEAD, GET; listings that
 * show milliseconds are not relied on), a local file has nanoseconds, and a
 * download stamps the object's second on its file (no fraction). Each is
 * compared at the precision both sides have: different seconds decide as the
 * AWS CLI does. The same second cannot say which is newer (a file rewritten,
 * same size, within the second of the last sync): that is MERGE_WHY_SAME_SECOND,
 * a copy unless the caller proves the bytes equal by a checksum (the local
 * file's MD5 against an MD5 ETag, or two equal ETags). S3 to S3, two times
 * of the store's own clock to the millisecond decide. A download's own file
 * (the object's second, no fraction) is not that: a sync after a download
 * stays a no-op, --exact-timestamps too.
 *
 * Recorded mtimes (sync down, merge_opts.recorded_mtime). An upload records
 * its file's mtime in the object's metadata (s3/fattr.h) and a download sets
 * it back, so a downloaded file's mtime is the original file's, usually older
 * than the object's LastModified, not LastModified itself. A listing shows no
 * metadata: only a HEAD of the object does, and a HEAD per key on every sync
 * is what sync exists to avoid. So the listing's times decide where they can,
 * and a HEAD only where they cannot, never in the steady state:
 *   - local mtime == LastModified (to the second): as above (an object that
 *     records nothing, or a file an older s3c stamped);
 *   - the local file is newer than the object: changed since it was
 *     downloaded, or a recorded mtime ahead of the store's clock (skew, or a
 *     file dated in the future). MERGE_WHY_RECORDED_COPY: the engine HEADs
 *     the object and copies unless the mtime it records equals the file's;
 *     recording none, it is copied, as the AWS CLI's rule says;
 *   - the local file is older than the object, and its status changed
 *     (ctime) after the object was written: a download with its recorded
 *     mtime, or a cp -p / touch -d since. Skipped, as the AWS CLI skips it,
 *     without a request;
 *   - older, and its status changed before the object was written: the object
 *     may be a newer upload of the same size. MERGE_WHY_RECORDED: a HEAD, and
 *     a copy when the mtime recorded differs from the file's; recording none,
 *     skipped, as the CLI does. A file the HEAD proves the same has its atime
 *     set (its mtime untouched), which moves its ctime past the object's: the
 *     next sync asks no HEAD for it.
 * With --exact-timestamps every same-sized entry whose times differ is a
 * MERGE_WHY_RECORDED_COPY: the recorded mtime, where there is one, must equal
 * the file's. Sync up needs none of it: the object an upload wrote is newer
 * than its file, so the AWS CLI's rule skips it next time, with or without
 * the recorded mtime; S3 to S3 copies keep the metadata with the bytes.
 *
 * Not thread-safe: one merge, one thread.
 */
#ifndef S3C_PLAN_MERGE_H
#define S3C_PLAN_MERGE_H

#include <stdbool.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/str.h"

enum merge_kind {
    MERGE_FILE = 1,     /* a file or object that exists */
    MERGE_PROTECT,      /* source only: could not be read; see "Protection" */
    MERGE_NAME,         /* source only: known by name alone (a plain key list), no size or
                           time: copied when the destination lacks it, else skipped */
};

struct merge_entry {
    enum merge_kind kind;
    struct sv rel;      /* key relative to the side's root; NUL-terminated at rel.p[rel.n] */
    uint64_t size;
    int64_t mtime;      /* seconds since 1970 (local mtime, or S3 LastModified) */
    struct sv etag;     /* S3 side: the ETag as listed, quotes included; else empty */
    int32_t mtime_nsec; /* local side: the nanoseconds of mtime; S3 sides: the listing's milliseconds
                           (as nanoseconds) when it shows some, else 0 (whole seconds) */
    bool archived;      /* S3 side: listed as GLACIER or DEEP_ARCHIVE (the verb's Glacier rule) */
    int64_t ctime;      /* local side: the file's status change time, seconds (see "Recorded
                           mtimes"); else 0 */
};

/* A side's next entry: 1 with *out set (its views valid until the next call), 0 at the end, -1 with 'e' set,
 * MERGE_NEXT_LATER when the entry is not here yet (a listing's page is out): merge_next answers MERGE_LATER. */
#define MERGE_NEXT_LATER 2
typedef int (*merge_next_fn)(void *ctx, struct merge_entry *out, struct s3c_error *e);

/* Which way the bytes go: the AWS CLI compares times differently for downloads. */
enum merge_dir {
    MERGE_UPLOAD,       /* local -> S3 */
    MERGE_DOWNLOAD,     /* S3 -> local */
    MERGE_COPY,         /* S3 -> S3 */
};

struct merge_opts {
    enum merge_dir dir;
    bool size_only;         /* --size-only: only a size difference copies */
    bool exact_timestamps;  /* --exact-timestamps: downloads copy unless the times are equal */
    bool delete;            /* --delete: destination-only entries are deleted */
    bool checksum;          /* --checksum: one size at both ends is the caller's to prove by content
                               (MERGE_WHY_CHECKSUM*), size and time only its fallback */
    bool recorded_mtime;    /* downloads set the mtime objects record: see "Recorded mtimes" */
};

enum merge_act {
    MERGE_END = 0,      /* both sides are done */
    MERGE_COPY_IT,      /* copy src over (or to) the destination */
    MERGE_SKIP,         /* on both sides and up to date */
    MERGE_DELETE,       /* destination only, --delete: delete dst */
    MERGE_KEEP,         /* destination only without --delete, or protected: leave it */
    MERGE_LATER,        /* a side said MERGE_NEXT_LATER: nothing decided; call again later */
};

enum merge_why {
    MERGE_WHY_NONE = 0,
    MERGE_WHY_NEW,          /* missing at the destination */
    MERGE_WHY_SIZE,         /* sizes differ */
    MERGE_WHY_TIME,         /* same size, times say so */
    MERGE_WHY_PROTECTED,    /* KEEP: the source could not read it */
    MERGE_WHY_SAME_SECOND,  /* same size, the same second: which is newer cannot be told; copied
                               unless a checksum proves the bytes equal (the caller's) */
    MERGE_WHY_CHECKSUM,     /* --checksum, same size: content decides; without a checksum, size
                               and time, which say it is up to date */
    MERGE_WHY_CHECKSUM_TIME, /* ... which say copy it (a time, or the same second) */
    MERGE_WHY_RECORDED,     /* same size: the mtime the object records decides (a HEAD); recording
                               none, it is up to date ("Recorded mtimes") */
    MERGE_WHY_RECORDED_COPY, /* ... recording none, it is copied */
};

struct merge_action {
    enum merge_act act;
    enum merge_why why;
    const struct merge_entry *src;  /* NULL when the rel is not at the source */
    const struct merge_entry *dst;  /* NULL when the rel is not at the destination */
};

struct merge {
    struct merge_opts o;
    merge_next_fn src_next, dst_next;
    void *src_ctx, *dst_ctx;
    struct merge_entry src, dst;    /* current heads */
    bool src_have, dst_have;        /* a head is loaded and not yet consumed */
    bool src_done, dst_done;
    bool failed;
    struct s3c_error err;           /* why, once failed */
    struct buf src_prev, dst_prev;  /* the rel before the head, for the order check */
    bool src_any, dst_any;
    struct buf protect;             /* the last source PROTECT rel */
    uint64_t n_src, n_dst;          /* entries read from each side */
};

/* Set up a merge of the two sides (no entry is read yet). */
void merge_init(struct merge *m, const struct merge_opts *o, merge_next_fn src_next, void *src_ctx,
                merge_next_fn dst_next, void *dst_ctx);

/*
 * The next decision, in key order. Returns S3C_OK with out->act set
 * (MERGE_END once both sides are done, and again on every later call); the
 * entries out points to are valid until the next call. On a side's failure
 * or an order violation returns its code with 'e' set; the merge is over
 * then (later calls return the same code).
 */
enum s3c_err merge_next(struct merge *m, struct merge_action *out, struct s3c_error *e);

void merge_release(struct merge *m);

/* The AWS CLI's strategy for a rel on both sides: true to copy; *why says which rule. With
 * o->checksum, true for every rel of one size at both ends (MERGE_WHY_CHECKSUM, _TIME). */
bool merge_should_copy(const struct merge_opts *o, const struct merge_entry *src,
                       const struct merge_entry *dst, enum merge_why *why);

/* Unsigned byte order of two rels: <0, 0, >0. */
int merge_cmp(struct sv a, struct sv b);

#endif
