/*
 * xfer: the transfer engine. Objects (uploads, downloads, server-side
 * copies) come from a source callback, become requests (one, or one per
 * part), and run on the store's event loop with a cap on requests in
 * flight that adapts to what the store and the network give. Memory is
 * bounded by the cap and the queue, not by file sizes or counts.
 *
 * Threads: the engine runs on the thread that calls xfer_run(), and, when
 * there are more objects than that loop takes at once, on helper loops of
 * their own threads (xfer_opts.loops); every callback runs on the calling
 * thread, between loop steps (never re-entered).
 */
#ifndef S3C_XFER_XFER_H
#define S3C_XFER_XFER_H

#include <stdbool.h>
#include <stdint.h>

#include "base/ck.h"
#include "base/err.h"
#include "s3/fattr.h"
#include "store/store_s3.h"

enum xfer_op {
    XFER_UPLOAD,    /* local file -> S3 object */
    XFER_DOWNLOAD,  /* S3 object -> local file */
    XFER_COPY,      /* S3 object -> S3 object, server side */
    XFER_DELETE,    /* delete src_bucket/src (version_id when set); batched into DeleteObjects */
    XFER_RESTORE,   /* RestoreObject of src_bucket/src (version_id when set): an archived object's
                       temporary copy, opts->restore_days and restore_tier; one request */
};

/* What a RestoreObject was answered (xfer_obj.restore), set by the engine when it succeeded. */
enum xfer_restore_said {
    XFER_RESTORE_STARTED = 1,       /* 202: the restore was started */
    XFER_RESTORE_DONE_BEFORE,       /* 200: already restored (its expiry set anew) */
    XFER_RESTORE_IN_PROGRESS,       /* 409 RestoreAlreadyInProgress: one already runs */
    XFER_RESTORE_NOT_ARCHIVED,      /* 403 InvalidObjectState: not archived, nothing to restore */
};

/* What an S3 to S3 copy takes from its source, as the AWS CLI's --copy-props. */
enum xfer_copy_props {
    XFER_PROPS_DEFAULT = 0,         /* metadata and tags */
    XFER_PROPS_METADATA,            /* metadata only (what x-amz-metadata-directive covers) */
    XFER_PROPS_NONE,                /* nothing: the command line's flags only */
};

/* Per-object options shared by every object of a command (borrowed). */
struct xfer_obj_opts {
    const char *content_type;       /* NULL: guess from the extension (uploads) */
    bool no_guess_mime;
    const char *cache_control;
    const char *content_encoding;
    const char *content_disposition;
    const char *content_language;
    const char *expires;
    const char *storage_class;
    const char *acl;
    const char *sse;                /* "AES256" or "aws:kms" */
    const char *sse_kms_key_id;
    /* SSE-C, as the AWS CLI: the algorithm (NULL: AES256 when a key is given)
     * and the 32-byte key of the object written (uploads, copies) or read
     * (downloads); the copy_source pair is the key of a copy's source. */
    const char *sse_c;
    const char *sse_c_key;
    const char *sse_c_copy_source;
    const char *sse_c_copy_source_key;
    const char *request_payer;      /* "requester" */
    const char *website_redirect;   /* x-amz-website-redirect-location (--website-redirect) */
    /* --grants: the x-amz-grant-read, -read-acp, -write-acp and -full-control headers, as given */
    const char *grant_read, *grant_read_acp, *grant_write_acp, *grant_full_control;
    const char *metadata_directive; /* COPY or REPLACE (copies): overrides copy_props for metadata */
    enum xfer_copy_props copy_props; /* copies: metadata and tags kept alike by CopyObject and by a
                                       multipart copy (HeadObject, GetObjectTagging first) */
    const char *metadata[32][2];    /* user metadata: {"x-amz-meta-NAME", value} */
    int n_metadata;
    bool no_overwrite;              /* If-None-Match: * */
    enum ck_algo checksum_algo;     /* the flexible checksum uploads carry (--checksum-algorithm;
                                       0: CRC64NVME). A SHA is hashed by the hash workers; multipart:
                                       a CRC's FULL_OBJECT, a SHA's COMPOSITE (S3 keeps no other) */
    bool checksum_mode;             /* --checksum-mode ENABLED: ask for stored checksums even when
                                       response_checksum_validation = when_required */
    bool no_preserve;               /* --no-preserve: uploads record no mtime, downloads stamp the
                                       object's LastModified (the AWS CLI's behaviour) */
    bool preserve;                  /* --preserve: uploads also record mode, uid and gid; downloads
                                       also set the mode (owner too when root) the metadata records */
    int restore_days;               /* XFER_RESTORE: days the restored copy stays (<Days>) */
    const char *restore_tier;       /* XFER_RESTORE: Standard, Bulk or Expedited; NULL: the store's */
};

/* What the engine needs to prove a sync entry unchanged (xfer_obj.same_second). The local file is
 * o->src (upload) or o->dst (download), of o->size bytes; the source's ETag is o->etag. */
struct xfer_same_second {
    char *dst_etag;                 /* the destination's ETag as listed, or NULL (owned) */
    uint64_t part_size;             /* the configured part size: the first guessed for a multipart
                                       ETag (0: none) */
    bool by_content;                /* sync --checksum: any entry of one size at both ends; a checksum
                                       that differs copies it, none at all leaves it to ... */
    bool by_time_copies;            /* ... size and time, as they decided (plan/merge.h) */
    bool by_time;                   /* set by the engine: no usable checksum, size and time decided */
};

/* One object to move. The engine owns it from submit to the done callback. */
struct xfer_obj {
    enum xfer_op op;
    char *src;                      /* local path, or the source key */
    char *src_bucket;               /* S3 source bucket (download, copy) */
    char *dst;                      /* local path, or the destination key */
    char *dst_bucket;               /* S3 destination bucket (upload, copy) */
    uint64_t size;                  /* source size when known (size_known) */
    bool size_known;
    int64_t mtime;                  /* source LastModified (downloads set it on the file when the object
                                       records no mtime of its own, s3/fattr.h); -1 unknown */
    char *etag;                     /* source ETag when known, quotes included */
    bool rename;                    /* XFER_COPY within one directory bucket by mv: RenameObject (one
                                       request, atomic, nothing copied), the source gone with it; a
                                       store without it (501) gets the copy, and mv its delete */
    bool renamed;                   /* set by the engine: the RenameObject was done (no delete due) */
    bool stdio;                     /* source is stdin (upload) or destination stdout (download) */
    const struct xfer_obj_opts *opts;
    char *version_id;               /* the source's version: the one deleted (XFER_DELETE), read
                                       (XFER_DOWNLOAD: ?versionId= on its GETs and HEADs) or copied
                                       (XFER_COPY: x-amz-copy-source's ?versionId=); NULL: the
                                       current one. Owned */
    struct http_resp *head;         /* the source's HeadObject reply (with x-amz-checksum-mode:
                                       ENABLED) when the caller made one (or the engine, for
                                       src_head), or NULL: a download
                                       (to a file) and a multipart copy take it as their own
                                       instead of asking again. Owned: freed with the object */
    void *user;                     /* caller's, untouched */
    void *owner;                    /* caller's, untouched: the job an object belongs to (run) */
    enum xfer_restore_said restore; /* XFER_RESTORE, set by the engine: what the store answered (0
                                       when the object failed) */
    char *warning;                  /* the engine's: a warning to show with the outcome (done); NULL.
                                       Owned: freed with the object */
    const char *unproven;           /* set by the engine when the object succeeded but nothing the
                                       store answered proves the copy (a 200 with no ETag and no
                                       checksum, a download checked by its size only): why, a
                                       static string; NULL when proven. mv keeps such a source. */
    unsigned dst_check;             /* XFER_CHECK_*: an S3 destination the engine looks at (a HEAD
                                       in flight) before it sends anything; 0: none */
    bool dst_skipped;               /* set by the engine: dst_check said skip, or same_second was
                                       proven; nothing was written; the done callback hears no error */
    bool src_head;                  /* the source's size, time and ETag are not known (a plain key
                                       list's entry; download or copy): the engine HEADs the source
                                       first, a request in flight like any other, and fills size,
                                       size_known, mtime, etag and head from its answer before
                                       dst_check and the transfer. A source that answers no (404,
                                       403...) fails the object, size_known still false */
    bool src_head_explain;          /* with src_head: a 404 with no code is explained by a HEAD of
                                       the bucket (NoSuchKey or NoSuchBucket, as
                                       store_s3_explain_head_404 says it) */
    struct xfer_same_second *same_second; /* sync's entry whose ends have the same size and second
                                       (plan/merge.h: MERGE_WHY_SAME_SECOND), so that which is newer
                                       cannot be told: before its family starts, the engine looks for a
                                       checksum that proves both ends hold the same bytes (prove.c:
                                       the local file's MD5s or CRC on the hash workers, HEADs for
                                       stored CRCs in flight; the order is xfer/samesec.h's). Proven,
                                       it ends as dst_skipped; else it goes on as if never asked.
                                       NULL: none. Owned: freed with the object */
    bool mtime_check;               /* sync down's entry whose listing times cannot decide (plan/merge.h,
                                       "Recorded mtimes"), with src_head: the source's HEAD says the
                                       mtime the object records, compared with the local file's
                                       (o->dst, stat()ed then: xfer_recorded_says). The same, it
                                       ends as dst_skipped, the file's atime set (xfer_recorded_touch);
                                       another, it goes on; none recorded, it goes on only with ... */
    bool mtime_check_copies;        /* ... this (MERGE_WHY_RECORDED_COPY) */
    bool dir_marker;                /* XFER_UPLOAD of an empty directory (--directory-markers): a
                                       0-byte PutObject of the "dir/" key, o->src not read */

    /* Engine-private. */
    struct xfer_obj_state *st;
};

/*
 * What an existing destination must show for an object to go on
 * (xfer_obj.dst_check; s5cmd's flags, combined as s5cmd combines them: with
 * NEWER, only an older destination lets it go; else with SIZE, only one of
 * another size; else EXISTS stops it). A destination that does not exist
 * never stops one. With XFER_CHECK_EXISTS and opts->no_overwrite, an upload
 * sent in one PutObject sends no HEAD: its If-None-Match: * is the check
 * (the caller takes the 412 as a skip).
 */
enum {
    XFER_CHECK_EXISTS = 1,          /* --no-clobber: any destination stops it */
    XFER_CHECK_SIZE = 2,            /* --if-size-differ: one of another size lets it go */
    XFER_CHECK_NEWER = 4,           /* --if-source-newer: one older than the source lets it go */
};

/* Whether 'o' is skipped by its destination as dst_check says: 'exists', of
 * 'dsize' bytes, last modified at 'dmtime' (epoch seconds). */
bool xfer_dst_skip(const struct xfer_obj *o, bool exists, uint64_t dsize, int64_t dmtime);
/* The same for a local destination, o->dst, stat()ed. */
bool xfer_dst_skip_local(const struct xfer_obj *o);

/* What an object's metadata records of its file (s3/fattr.h), from a HEAD's or a GET's headers. */
void xfer_meta_fattr(const struct http_resp *resp, struct fattr *a);

/* A recorded mtime against the local file 'path' (xfer_obj.mtime_check). Equal when the seconds
 * are and the nanoseconds too, unless either side has none (s3cmd's whole seconds, a file system
 * that keeps none). */
enum xfer_recorded {
    XFER_RECORDED_NONE,             /* the object records no mtime (or the file is gone) */
    XFER_RECORDED_SAME,
    XFER_RECORDED_DIFFERS,
};
enum xfer_recorded xfer_recorded_says(const struct http_resp *resp, const char *path);

/* Set the atime of 'path' to now, its mtime untouched: its ctime then says it was looked at after
 * the object was written (plan/merge.h, "Recorded mtimes"). Failures are ignored. */
void xfer_recorded_touch(const char *path);

struct xfer_stats;

/* Whether an overdue whole-object write (PutObject) may get a duplicate (xfer_opts.hedge_writes).
 * Reads and parts are hedged whatever this says; CopyObject, CompleteMultipartUpload and deletes never. */
enum xfer_hedge_writes {
    XFER_HEDGE_WRITES_AUTO,         /* only to a bucket known never to have been versioned
                                       (GetBucketVersioning without a Status, asked once a run), or
                                       a directory bucket; never while unknown, refused or failed */
    XFER_HEDGE_WRITES_NEVER,        /* never: a second write could fire a second event notification */
    XFER_HEDGE_WRITES_ALWAYS,       /* whatever the bucket (a duplicate may leave a second version) */
};

/* What a source of work answers. */
enum {
    XFER_NEXT_END = 0,              /* nothing more, ever */
    XFER_NEXT_ONE = 1,              /* *out is set */
    XFER_NEXT_WAIT = 2,             /* nothing now; ask again after the next object is done
                                       (if nothing is in flight then, that is the end) */
    XFER_NEXT_LATER = 3,            /* nothing yet (a listing's page is out on the store's loop):
                                       ask again after the loop's next step, within XFER_LATER_MS;
                                       never the end */
};
#define XFER_LATER_MS 10

/* The source of work: one of XFER_NEXT_*. */
typedef int (*xfer_next_fn)(void *ctx, struct xfer_obj **out);

/* Called once per object when it is done; 'e' is NULL on success. The
 * engine frees the object after this returns (see xfer_obj_free). */
typedef void (*xfer_done_fn)(void *ctx, const struct xfer_obj *o, const struct s3c_error *e);

struct xfer_opts {
    int concurrency;                /* fixed requests in flight; 0: adaptive */
    int max_concurrency;            /* ceiling for adaptive; 0: 512 */
    uint64_t part_size;             /* fixed part size; 0: from the object size */
    uint64_t multipart_threshold;   /* 0: 8 MiB */
    uint64_t bwlimit_bytes_s;       /* 0: none */
    uint64_t expected_size;         /* stdin uploads: expected bytes, to pick the part size */
    bool verify;                    /* check MD5/ETag and checksums (default true) */
    bool flexible_checksums;        /* uploads carry a flexible checksum the store verifies and keeps
                                       (xfer_obj_opts.checksum_algo) */
    bool checksum_mode_off;         /* downloads do not ask for stored checksums (x-amz-checksum-mode)
                                       unless their object's checksum_mode says so: response_checksum_
                                       validation = when_required */
    int loops;                      /* event loops, each on its own thread with its own connections;
                                       0: one per core s3c may use (thread_cores), at most
                                       XFER_LOOPS_DEFAULT_MAX (1 with --bwlimit); helpers start
                                       only once objects queue up */
    double hedge_budget;            /* duplicates of overdue requests allowed per request sent:
                                       0: 3%; negative: none */
    enum xfer_hedge_writes hedge_writes; /* which whole-object writes may be hedged */
    const char *state_dir;          /* journal multipart uploads here (xfer/journal.h); NULL: none */
    bool resume;                    /* continue journaled uploads of unchanged files (ListParts);
                                       journal ranged downloads, continue those of unchanged objects,
                                       and keep their temp files when interrupted */
    /* The source side of S3 to S3 copies when it is another store than the one xfer_run is given
     * (its own keys, endpoint, region: --source-profile...), borrowed; made on that store's loop
     * (store_s3_opts.loop) and on the caller's thread. Every request that reads a source (HEAD,
     * GET, GetObjectTagging) goes to it; CopyObject and UploadPartCopy, which the destination
     * sends, do not. NULL: one store for both sides. */
    struct store_s3 *src_store;
    bool src_deletes;               /* with src_store: deletes are of sources (mv), not of the
                                       destination (sync --delete) */
    bool relay_copies;              /* copies move their bytes through s3c (GETs from the source
                                       side, PutObject or UploadPart to the destination), not
                                       CopyObject: the source is on another service, or the
                                       destination's keys cannot read it */
    xfer_next_fn next;
    void *next_ctx;
    xfer_done_fn done;
    void *done_ctx;
    /* Called about 4 times a second with the stats so far (may be NULL). */
    void (*progress)(void *ctx, const struct xfer_stats *now);
    void *progress_ctx;
};

#define XFER_LOOPS_MAX 64
#define XFER_LOOPS_DEFAULT_MAX 16

struct xfer_stats {
    uint64_t objects_ok, objects_failed;
    uint64_t bytes;                 /* payload bytes of finished requests */
    uint64_t bytes_live;            /* payload bytes sent or received so far, retries included */
    int inflight;                   /* requests in flight now */
    uint64_t requests, retries;
    uint64_t hedged;                /* duplicates sent of requests whose answer was overdue (in requests) */
    uint64_t hedge_wins;            /* ... that answered first */
    uint64_t slow_resent;           /* transfers cut off as too slow and sent again on a new connection */
    int peak_concurrency;
    double seconds;
};

/*
 * Run every object from opts->next to completion on store 's'. Returns
 * S3C_OK when all succeeded; otherwise the code of a failure (each failed
 * object was reported to opts->done). 'stats' may be NULL.
 *
 * A run-wide error (NoSuchBucket, InvalidAccessKeyId, SignatureDoesNotMatch,
 * and AccessDenied before any request succeeded) stops the run: the object
 * that met it is reported with it (the message names the S3 operation and
 * the bucket; with several loops, each loop that met it before hearing of
 * the others' names its own), every other object in flight ends with S3C_ECANCEL (callers
 * print nothing for those), multipart uploads are aborted, temp files
 * removed, next() is not called again, and the error's code is returned.
 * SIGINT (xfer_cancel) does the same and returns S3C_ECANCEL.
 */
enum s3c_err xfer_run(struct store_s3 *s, const struct xfer_opts *opts, struct xfer_stats *stats);

/* Allocate an object with every field zero, mtime -1; NULL on OOM. */
struct xfer_obj *xfer_obj_new(enum xfer_op op);
void xfer_obj_free(struct xfer_obj *o);

/* 'configured', or 8 MiB, raised to fit 'size' bytes in 10,000 parts, at most 5 GiB: an explicit
 * part size as kept, and the floor of xfer_part_size_fit. */
uint64_t xfer_part_size(uint64_t size, uint64_t configured);

/* What the engine has seen of the network, for sizing parts (xfer_part_size_fit). */
struct xfer_link {
    double latency_s;       /* first-byte latency of a request; 0: not seen yet (20 ms assumed) */
    double conn_bytes_s;    /* bytes per second one connection moves; 0: not seen yet (90 MB/s assumed) */
    int objects;            /* objects in flight sharing the connections, this one included */
};

/*
 * The part size for an object of 'size' bytes that goes in parts: 'configured'
 * when set (xfer_part_size). Otherwise long enough that a request's first-byte
 * latency is at most a ninth of it (8 x latency x bandwidth), short enough that
 * the object alone fills 16 connections (its share when others are in flight,
 * and 2 parts at least), a power of two of MiB, never under xfer_part_size's
 * floor (8 MiB, 10,000 parts) nor over 5 GiB.
 */
uint64_t xfer_part_size_fit(uint64_t size, uint64_t configured, const struct xfer_link *l);

/*
 * S3's server-side copy rate per request (CopyObject, or one UploadPartCopy),
 * bytes/s, from published measurements (bench/README.md): 56-83 MB/s.
 */
#define XFER_COPY_BYTES_S 64e6

/* What the engine knows of a store's server-side copies (xfer_copy_part_size). */
struct xfer_copy_model {
    double latency_s;       /* first-byte latency of a request; 0: not seen yet (20 ms assumed) */
    double copy_bytes_s;    /* bytes per second one copy request copies; 0: XFER_COPY_BYTES_S */
    int objects;            /* objects in flight sharing the connections, this one included */
};

/*
 * How to copy an object of 'size' bytes server-side when the user set no part
 * size nor threshold: 0 for one CopyObject, else the part size of a multipart
 * copy (UploadPartCopy), from the model 'm' (part.c says how). Objects over
 * 5 GiB always get a part size.
 */
uint64_t xfer_copy_part_size(uint64_t size, const struct xfer_copy_model *m);

/* Parts of a stream (stdin or stdout) held in memory at once for parts of 'part' bytes:
 * 64 MiB worth, at least 2 and at most 16. */
uint32_t xfer_window_parts(uint64_t part);

/* The range size for an object of 'size' bytes written to stdout ('configured': the
 * configured part size, 0 for none); 'size' or more means one GET. */
uint64_t xfer_stdout_part_size(uint64_t size, uint64_t configured);

/* The size of part 'n' (1-based) of a stdin upload whose parts start at 'base' bytes;
 * with 'grow' (no --expected-size) they double every 2,000 parts, four times at most. */
uint64_t xfer_stream_part_size(uint64_t base, uint32_t n, bool grow);

/* The part count N of a multipart ETag "hex-N" (quotes allowed), with the hex
 * in 'hex'; 0 when the ETag has another form. */
uint32_t xfer_etag_parts(const char *etag, char hex[33]);

/* Whether an object's ETag cannot be the MD5 of its bytes: 'bucket' is a
 * directory bucket (S3 Express), or 'resp' (a HEAD's or GET's answer; NULL:
 * not known) says SSE-KMS or SSE-C. */
bool xfer_etag_not_md5(const char *bucket, const struct http_resp *resp);

/* Whether 'n' parts of 'part_size' bytes, the last one shorter or equal, make 'size' bytes. */
bool xfer_parts_fit(uint64_t size, uint32_t n, uint64_t part_size);

/*
 * Part sizes that an uploader may have used for an object of 'size' bytes in
 * 'n' parts, most likely first: 'configured', s3c's own choice, then the
 * common client defaults (8 MiB, 5, 16, 15, 50, 64, 100, 128 MiB...) and their
 * doublings. Only sizes that fit (xfer_parts_fit) are written, each once, at
 * most 'max'; returns how many. For stores that do not say an object's part
 * size (no ?partNumber=), so that the md5-of-md5s ETag can still be checked.
 */
int xfer_part_size_guesses(uint64_t size, uint32_t n, uint64_t configured, uint64_t *out, int max);

/* Content-Type for a file name as the AWS CLI guesses it (base/mime.h); "binary/octet-stream"
 * when it guesses none (what S3 stores then). */
const char *xfer_guess_mime(const char *name);

/* Whether an S3 to S3 copy with 'oo' changes what the object is (its metadata
 * replaced, its storage class or encryption given), so that S3 lets an object
 * be copied onto itself, as the AWS CLI does; an ACL alone is no change to S3. */
bool xfer_copy_changes(const struct xfer_obj_opts *oo);

/* Ask a running engine (from a signal handler) to stop: in-flight requests
 * are cancelled, multipart uploads aborted, temp files removed (with
 * opts.resume, those of journaled downloads with parts in are kept). */
void xfer_cancel(void);

#endif
