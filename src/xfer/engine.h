/*
 * xfer/engine: the engine's private types, shared by its files and by no
 * one else (xfer.h is the public contract). Files, from the bottom up:
 * adapt.c and the workers land.c and hashpool.c (call no engine file);
 * obj.c, an object's life (its phase, moved only by obj_phase_set, and its
 * end); part.c, part planning; build.c, what each kind of request says
 * (a table of builders); req.c, a request's life; the helpers
 * verify.c, hedge.c, resume.c, multipart.c, check.c (the source, when known
 * by name alone, and the destination looked at before an object starts),
 * prove.c (sync's same second proven before an object starts, by the plan
 * of samesec.c, which is pure and sits beside part.c); one file per family of objects
 * (enum obj_family: upload.c stdin.c copy.c download.c stdout.c delete.c;
 * stdout.c sits on download.c, whose probe and GET path it shares); xfer.c,
 * the loop; loops.c, the loop run several times on threads of their own
 * (xfer_run). An object's state is a common head (struct xfer_obj_state)
 * first in its family's struct, which only its checked accessor reaches
 * (upload_of... mpu_of, dlc_of for the state families share).
 * A file calls only files below it (scripts/check-layers.sh, make lint):
 * answers reach the families through the tables of handlers below (struct
 * req_ops per request kind, struct obj_ops per family), which xfer.c fills
 * in, and hash jobs through their own done (struct eng_hash).
 */
#ifndef S3C_XFER_ENGINE_H
#define S3C_XFER_ENGINE_H

#include <assert.h>
#include <signal.h>
#include <stddef.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "base/buf.h"
#include "base/ck.h"
#include "base/hash.h"
#include "base/str.h"
#include "s3/xml.h"
#include "store/store_s3.h"
#include "xfer/del.h"
#include "xfer/hashpool.h"
#include "xfer/jsync.h"
#include "xfer/land.h"
#include "xfer/samesec.h"
#include "xfer/xfer.h"

#define SMALL_BODY_MAX ((uint64_t)64 << 10)    /* read whole, send with Content-MD5 */
#define COPY_TAGGING_HEADER_MAX 2048            /* longer tags go after Complete (the AWS CLI's limit) */
#define COPY_OBJECT_MAX ((uint64_t)5 << 30)     /* the largest object one CopyObject copies */
#define RELAY_MEM_MAX ((uint64_t)256 << 20)  /* relayed copies' bytes in memory at once, the run's */
#define RELAY_POOL_MAX 32                     /* relayed parts' buffers kept for reuse, a loop's */
#define DEFAULT_MAX_CONCURRENCY 512               /* adapt.c's ceiling per service when none is configured */

enum req_kind {
    RK_PUT,             /* single PutObject */
    RK_CREATE,          /* CreateMultipartUpload */
    RK_PART,            /* UploadPart */
    RK_COMPLETE,        /* CompleteMultipartUpload */
    RK_ABORT,           /* AbortMultipartUpload */
    RK_GET,             /* GetObject, whole or a range */
    RK_COPY,            /* CopyObject */
    RK_COPY_PART,       /* UploadPartCopy */
    RK_HEAD_SRC,        /* HeadObject of a copy's source, for its headers */
    RK_DELETE,          /* DeleteObjects of a batch (struct del_send) */
    RK_DELETE_ONE,      /* DeleteObject of one key that XML cannot carry */
    RK_HEAD_INFO,       /* HeadObject before a ranged download: size, ETag, stored checksum */
    RK_HEAD_PART1,      /* HeadObject ?partNumber=1: the part size of a multipart object */
    RK_LIST_PARTS,      /* ListParts of a journaled upload (--resume) */
    RK_HEAD_DST,        /* HeadObject of the destination: did a lost Complete land? */
    RK_GET_TAGS,        /* GetObjectTagging of a copy's source, for its tags */
    RK_PUT_TAGS,        /* PutObjectTagging of a copy, after Complete: tags too long for a header,
                           or a store that ignores the header */
    RK_CHECK_TAGS,      /* GetObjectTagging of a copy, after Complete: did the header take? */
    RK_ABORT_STALE,     /* AbortMultipartUpload of the upload a killed run journaled for this key */
    RK_CHECK_DST,       /* HeadObject of the destination before anything is sent (xfer_obj.dst_check) */
    RK_GET_VERSIONING,  /* GetBucketVersioning of a bucket whole-object writes go to (hedge.c) */
    RK_HEAD_SOURCE,     /* HeadObject of a source known by name alone (xfer_obj.src_head), first */
    RK_HEAD_BUCKET,     /* HeadBucket of that source's bucket after its 404: no key, or no bucket? */
    RK_PROVE_SRC,       /* HeadObject of the source for its stored CRC (xfer_obj.same_second, prove.c) */
    RK_PROVE_DST,       /* HeadObject of the destination, the same */
    RK_RESTORE,         /* RestoreObject (restore.c) */
    RK_RELAY_GET,       /* GetObject of a relayed copy's source (the whole, or a part's range), its
                           body into memory, then sent on as PutObject or UploadPart (copy.c) */
    RK_RENAME,          /* RenameObject of mv within one directory bucket (xfer_obj.rename, copy.c) */
    RK_APPEND,          /* PutObject with x-amz-write-offset-bytes: a stream's next bytes appended to
                           its object in a directory bucket (obj_stdin.append, stdin.c) */
    RK_APPEND_HEAD,     /* HeadObject of an appended stream's object: its size and CRC are the
                           stream's (the whole's proof), or an append whose answer was lost landed */
    RK_COUNT
};

/*
 * A probe gate: while what the store makes of a kind of request is not known, the first object
 * that would send one is the probe, and the others wait here (no request of theirs, nothing in
 * flight) until its answer says how they go; then each is routed again, in order (gate_drain). A
 * probe that ends with no verdict (put back: its object failed another way) lets the next waiting
 * one probe. Conditional deletes (delete.c) and RenameObject (copy.c) have one each.
 */
struct probe_gate {
    struct req *probe;
    struct xfer_obj_state **wait;
    size_t n, cap;
};

/* What the store makes of If-Match on DeleteObject (engine.cond_del). */
enum cond_del {
    COND_DEL_UNKNOWN,   /* not learnt yet: sent, the first one as a probe */
    COND_DEL_CHECKED,   /* 412 to a wrong ETag: it checks */
    COND_DEL_IGNORED,   /* it deleted with a wrong ETag: deletes go unconditional, in batches */
    COND_DEL_REFUSED,   /* 501 NotImplemented: the same */
};

/* An object's phase: changed only by obj_phase_set (obj.c), which holds the legal moves. */
enum obj_phase {
    PH_NEW,             /* made, not started yet */
    PH_SOURCE,          /* its source is looked at (xfer_obj.src_head, check.c): size, time, ETag */
    PH_PROVE,           /* sync's same second: a checksum may prove both ends the same (prove.c) */
    PH_CHECK,           /* its destination is looked at (check.c); its family not started yet */
    PH_SINGLE,          /* one request */
    PH_OPEN,            /* download to a file: a land worker makes its temp file (dl_tmp_open) */
    PH_PROBE,           /* ranged download: learning how to verify it (HEADs) */
    PH_CREATE,          /* waiting for the upload id */
    PH_PARTS,           /* parts being sent */
    PH_COMPLETE,        /* CompleteMultipartUpload in flight */
    PH_ABORT,           /* failed; aborting the multipart upload */
    PH_VERIFY,          /* ranged download: every part in, the in-order MD5 still catching up */
    PH_LAND,            /* small download: a worker puts it on disk */
    PH_END,             /* no more requests: finish when none is in flight */
    PH_COUNT
};

/* How a ranged download is checked once every part is in. */
enum dl_check {
    DL_SIZE,            /* by size only: the store gives no way (said in --debug) */
    DL_CRC,             /* the store's full-object CRC, combined from per-part CRCs */
    DL_PARTS,           /* md5 of the part MD5s against the "hex-N" ETag; ranges = the upload's parts */
    DL_SEQ,             /* MD5 of the whole, in order, against a single-part ETag (or a stored
                           full-object SHA, seq_sha, the same way) */
    DL_COMPOSITE,       /* a stored composite checksum ("...-N"): each part's digest (a CRC on the
                           loop, a SHA a hash worker's), ranges = the upload's parts, and the
                           digest of them all against it */
};

/* A stored flexible checksum, as a reply names it (stored_ck). */
struct ck_stored {
    enum ck_algo algo;
    bool composite;                 /* "<base64>-N": the digest of the N parts' digests */
    uint32_t parts;                 /* composite: N */
    unsigned char raw[CK_MAX_LEN];  /* the digest (of the whole, a part, or the part digests) */
    uint64_t crc;                   /* a CRC algorithm's: raw as a number */
    char value[CK_B64_MAX + 8];     /* as the store wrote it */
};

struct engine;

/* An MD5 the engine asked of its hash workers (hashpool.h), and who hears of it. */
struct eng_hash {
    struct hash_job job;            /* first: the pool's job, its ctx is this */
    void (*done)(struct engine *g, struct eng_hash *h); /* on the loop, once it is back */
    bool busy;                      /* with the workers: its owner may not be freed */
    bool ready;                     /* job.digest holds the MD5 of the bytes asked for */
};

/*
 * The families of objects: what an object is decides which struct holds its
 * state (the common head, struct xfer_obj_state, first in each) and which
 * row of the engine's obj_ops runs it. obj_start (xfer.c) picks it.
 */
enum obj_family {
    FAM_UPLOAD,         /* a local file to S3 (upload.c): struct obj_upload */
    FAM_STDIN,          /* standard input to S3 (stdin.c): struct obj_stdin */
    FAM_COPY,           /* S3 to S3 (copy.c): struct obj_copy */
    FAM_DL_FILE,        /* S3 to a local file (download.c): struct obj_dl_file */
    FAM_DL_STDOUT,      /* S3 to standard output (stdout.c): struct obj_dl_stdout */
    FAM_DELETE,         /* a delete (delete.c): the head alone */
    FAM_RESTORE,        /* a restore of an archived object (restore.c): the head alone */
    FAM_COUNT
};

/* What every object has, whatever its family (xfer_obj.st). */
struct xfer_obj_state {
    struct xfer_obj *o;
    enum obj_family family;         /* which struct this head begins (the accessors below check it) */
    enum obj_phase phase;           /* changed by obj_phase_set only */
    bool started;                   /* its family's start ran: its end and release are due */
    int fd;                         /* the local end: a file read or written, stdin, stdout; -1 none */
    uint64_t size;
    uint64_t part_size;
    uint32_t n_parts;               /* 0: single request */
    uint32_t next_part;             /* next part number to start, 1-based */
    uint32_t parts_done;
    uint8_t *have;                  /* --resume: parts already in place (the store's, the temp file's),
                                       not sent again (HAVE_TAKEN); NULL */
    int reqs;                       /* requests in flight or waiting to retry */
    bool failed;
    struct s3c_error err;
    /* Whether what the store answered proves the copy (an ETag or echoed checksum equal to what
     * was sent, a download's check); 'unproven' says why not (a static string). Unproven objects
     * succeed, but mv keeps their source (xfer_obj.unproven). */
    bool proven;
    const char *unproven;
    /* A relayed copy (obj_copy.relay): why the bytes read are not proven to be the source's
     * (its ETag is no MD5 of them, the part layout was guessed...); NULL: proven, or not a relay.
     * The copy then succeeds unproven. */
    const char *src_unproven;
    struct prove *prove;            /* PH_PROVE: the same-second proof under way (prove.c); NULL */
    struct xfer_obj_state *next;    /* in the engine's active list */
};

/*
 * sync's same-second proof of one object (xfer_obj.same_second), before its
 * family starts: the plan's steps (xfer/samesec.h) done as a hash job at a
 * time on the local file (its MD5, its parts' MD5s, its CRC) and HEADs in
 * flight (RK_PROVE_SRC, RK_PROVE_DST). Freed when the proof ends.
 */
struct prove {
    struct eng_hash hash;           /* the local file's bytes, one job at a time */
    struct xfer_obj_state *os;
    struct samesec plan;
    int fd;                         /* the local file, opened for the hash workers; -1 */
    uint32_t part, n_parts;         /* SAMESEC_PARTS: the part being hashed (1-based), of how many */
    struct md5 all;                 /* ... the md5 of the part MD5s so far */
};

/* A multipart upload, whoever feeds it (a file, stdin, a copy's source): multipart.c. */
struct mpu_state {
    char *upload_id;
    char (*etags)[72];              /* per part, as the store returned them */
    unsigned char (*md5s)[MD5_LEN]; /* per part, as we sent them */
    bool md5s_unknown;              /* some part was proven by its CRC alone: no md5 of md5s */
    bool mpu_crc;                   /* created with the flexible checksum (obj_ck): each part
                                       carries one (part_crcs; a SHA's in part_sums), Complete lists them */
    uint64_t *part_crcs;            /* mpu_crc with a CRC algorithm: each part's */
    unsigned char (*part_sums)[CK_MAX_LEN]; /* mpu_crc with a SHA algorithm: each part's digest */
    bool head_for_proof;            /* RK_HEAD_DST asks for the proof Complete's answer lacked */
    bool cond_conflict;             /* a Complete under If-None-Match: * was answered 409
                                       ConditionalRequestConflict (another write of the key raced it) */
    /* A local file's upload and its journal (resume.c); the others keep jlock -1. */
    int jlock;                      /* its key's journal record held (journal_upload_lock); -1 */
    bool no_journal;                /* the record is not ours to write: another live run's, or a stale
                                       upload's that could not be aborted (kept for the next run) */
    char *stale_upload_id;          /* the journaled upload of a killed run, being aborted first; NULL */
    uint32_t list_marker;           /* --resume: ListParts page marker */
    bool list_more;                 /* --resume: ListParts has a page after list_marker */
    struct part_check *checks;      /* --resume: a page's listed parts being re-hashed (resume.c) */
    uint32_t checks_out;            /* ... with the hash workers: the object waits, and cannot end */
    void (*checks_then)(struct engine *g, struct xfer_obj_state *os); /* called once all are back */
};

/* How a ranged download, to a file or to stdout, checks the whole. */
struct dl_check_state {
    bool held;                      /* one GET whose body is held in memory until it is checked: a
                                       small file's (then landed by a worker), stdout's one range */
    enum dl_check check;
    enum ck_algo ck_algo;           /* DL_CRC */
    uint64_t ck_want;               /* DL_CRC: the store's value */
    uint64_t *part_crcs;            /* DL_CRC, DL_COMPOSITE of a CRC: per part, combined at the end */
    unsigned char (*part_sums)[CK_MAX_LEN]; /* DL_COMPOSITE of a SHA: each part's digest */
    unsigned char (*md5s)[MD5_LEN]; /* DL_PARTS: per part */
    char etag_hex[33];              /* DL_PARTS: the ETag's md5 of part md5s; DL_SEQ: the ETag */
    struct ck_stored stored;        /* DL_COMPOSITE, or DL_SEQ of a SHA: the store's checksum */
    struct hash_ctx *seq_sha;       /* DL_SEQ of a stored full-object SHA: what seq_hash feeds, in order */
    uint32_t etag_parts;            /* DL_PARTS: the ETag's part count */
    bool layout_guessed;            /* DL_PARTS: the store did not say its part size */
    bool have_prev;                 /* prev_digest holds the previous download's */
    unsigned char prev_digest[MD5_LEN];
    int attempts;                   /* whole-object downloads after a mismatch */
    /* DL_SEQ: the MD5 of the whole in key order, re-read from the temp file by
     * a hash worker as the parts from the start on are in (dl_seq_kick); stdout
     * in ranges: the stream's, a part at a time (stdout_hash_kick). */
    struct eng_hash seq_hash;       /* its job carries the MD5 so far */
    uint64_t seq_off;               /* DL_SEQ: bytes hashed so far */
};

/* A local file to S3 (upload.c). */
struct obj_upload {
    struct xfer_obj_state head;
    struct mpu_state mpu;
    int64_t src_mtime;              /* the source's mtime (journal) */
    struct fattr attrs;             /* the file's mtime, mode, owner, as fstat said (recorded in the
                                       object's metadata: add_fattr_headers) */
    uint32_t type_mode;             /* st_mode, its type bits included (rclone's "mode") */
    char attr_text[4][FATTR_MTIME_MAX]; /* their header values (a request borrows them) */
};

/* Standard input to S3 (stdin.c): read in order, never seeked. */
struct obj_stdin {
    struct xfer_obj_state head;
    struct mpu_state mpu;
    /* Appends (issue 26): a stream of unknown size to a directory bucket goes as PutObjects with
     * x-amz-write-offset-bytes, one at a time, the next read while one is sent. The first, at
     * offset 0, creates the object (an object already there refuses it: a multipart upload
     * then, which replaces it whole); a HEAD at the end proves the whole by its size and CRC. */
    bool append;
    uint64_t appended;              /* bytes the store has taken, in order */
    uint64_t crc;                   /* their CRC (obj_ck, a CRC algorithm) */
    char append_etag[80];           /* the object's ETag after the last append taken: a failed
                                       stream's partial object is deleted only if it is still that */
    struct req *lost;               /* an append answered InvalidWriteOffset on a retry: held while
                                       the HEAD tells whether its first try landed */
    /* --resume: the object's HEAD first; then the stream's first 'skip' bytes (its size) are read
     * and their CRC (in 'crc', their count in 'appended') must be its stored one, 'skip_ck'; the
     * appends go on from there. */
    bool resuming;
    bool skip_known;                /* the HEAD answered */
    uint64_t skip;
    char skip_ck[CK_B64_MAX];
    bool eof;                       /* all of it has been read */
    bool grow;                      /* no expected size, so parts grow (xfer_stream_part_size) */
    struct buf pending;             /* the next part, filled as stdin gives it */
    struct buf spare[16];           /* buffers of parts sent, for the next parts (no fresh pages) */
    int n_spare;
};

/* S3 to S3 (copy.c): what the copy keeps of its source (copy_start decides,
 * from --copy-props and --metadata-directive), and for a multipart copy the
 * source's headers and tags, which CreateMultipartUpload must carry
 * (UploadPartCopy copies bytes only). */
struct obj_copy {
    struct xfer_obj_state head;
    struct mpu_state mpu;
    bool keep_meta;                 /* the source's metadata (else the command line's) */
    bool merge_meta;                /* ... but what metadata flags give (CopyObject says REPLACE) */
    bool keep_tags;                 /* the source's tags (never on a directory bucket) */
    bool drop_tags;                 /* a CopyObject says x-amz-tagging-directive: REPLACE */
    struct buf src_headers;         /* "name\0value\0" pairs */
    struct buf src_tagging;         /* the source's tags as x-amz-tagging; "" none or too long */
    struct buf src_tag_xml;         /* the same as PutObjectTagging's body; "" none */
    size_t n_src_tags;
    bool tags_sent;                 /* CreateMultipartUpload carried x-amz-tagging */
    bool redo_single;               /* its UploadPartCopy was refused (501): once aborted, one CopyObject */
    char rename_token[33];          /* RK_RENAME's x-amz-client-token: random, the object's own */
    bool redo_relay;                /* its CopyObject or UploadPartCopy was refused (403) with the
                                       destination's keys, the source's being others: once aborted,
                                       a relay (and the run's next copies relay from the start) */
    /* A relay: the bytes go through s3c (xfer_opts.relay_copies: the source is on another service,
     * or read with other keys): GETs from the source side (RK_RELAY_GET) into memory, each sent on
     * as PutObject (n_parts 0) or UploadPart once read; parts in memory bounded per object
     * (xfer_window_parts) and per run (engine.relay_bytes). */
    bool relay;
    bool relay_whole_sent;          /* n_parts 0: its one GET is out (relay_next) */
    char relay_etag[80];            /* the source's ETag as its first GET answered (the bytes' proof) */
    /* In parts, from a source whose ETag is the MD5 of its bytes (one PutObject's): their MD5 in
     * order, 'seq', fed by the hash workers a part at a time as each one's turn comes (the
     * 'also' of the part's own job, left open); a part is sent on once 'seq' has it. Parts read
     * ahead of their turn wait in 'seq_held' (their GETs, by part number), within the object's
     * window. */
    bool seq_md5;
    struct hash_ctx *seq;           /* an MD5 context; NULL until a relay needs one */
    bool seq_busy;                  /* a job feeding 'seq' is out (one at a time, in order) */
    uint32_t seq_next;              /* the part whose bytes 'seq' takes next, 1-based */
    struct req *seq_held;
    /* A whole object's relay asks its tags (RK_GET_TAGS) beside its GET, not before it: one
     * round trip less an object. Its PutObject, read and checked, waits in 'put_held' until
     * the tags are in (tags_wait false). */
    bool tags_wait;
    struct req *put_held;
    bool md5_hidden;                /* an answer named SSE-KMS or SSE-C: the ETag is no MD5 */
};

/* S3 to a local file (download.c). */
struct obj_dl_file {
    struct xfer_obj_state head;
    struct dl_check_state chk;      /* ranged: how the whole is checked */
    struct buf tmp_path;            /* the temp file (head.fd) */
    struct land_job land;           /* chk.held: the write to disk, once verified; else (PH_OPEN) the
                                       making of the temp file */
    struct dl_open_args {           /* what that worker reads, set on the loop before it starts */
        const char *state_dir;      /* the journal's directory; NULL: not journaled */
        bool resume;                /* --resume */
        bool ranged;                /* downloaded in ranges (only those are journaled) */
    } open;
    unsigned char *part_in;         /* DL_SEQ: per part, 1 when all its bytes are on disk */
    /* --resume: head.have flags the parts complete in the temp file; the
     * journal records them once the file is synced (dl_journal_flush). */
    struct journal_download *dj;    /* this download's record; NULL: not journaled */
    bool dj_resumed;                /* dj->done is an earlier run's: trust it after dl_resume_apply */
    bool dj_dirty;                  /* parts completed since the record was written */
    int64_t dj_saved_ms;            /* when it was written */
    /* Parts taken from an earlier run are re-read into the whole-object check
     * while the missing ones download: their MD5s or CRCs by a hash worker,
     * one part at a time (dl_rehash_kick, in chk.seq_hash). */
    uint8_t *resumed;               /* per part: taken from the earlier run; NULL: none */
    uint32_t rehash_part;           /* the part being re-read, 1-based; 0: none left */
    struct fattr meta;              /* the mtime, mode and owner the object's metadata records (the
                                       first HEAD or GET that answered: dl_meta_take); what of it the
                                       file gets is dl_attrs's */
    bool meta_seen;                 /* 'meta' was read from an answer */
};

/* One part of a stdout object in memory (allocated once, at the part size). */
struct win_slot {
    char *data;
    uint64_t len;
    uint64_t crc;                   /* DL_CRC: the stored checksum's CRC of these bytes */
    bool full;                      /* holds a whole part, not yet written */
};

/* S3 to standard output (stdout.c): written in order, never seeked. */
struct obj_dl_stdout {
    struct xfer_obj_state head;
    struct dl_check_state chk;      /* in ranges: how the whole is checked */
    uint64_t streamed;              /* bytes written so far */
    bool reader_gone;               /* its reader closed it (EPIPE): end quietly */
    /* In ranges: part n lands in win[(n - 1) % win_k] and is written once
     * every part before it has been; memory is win_k parts. */
    struct win_slot *win;
    uint32_t win_k;
    uint32_t win_head;              /* the next part to write, 1-based */
    uint32_t win_free;              /* the oldest part whose slot is held (written, MD5 not yet taken) */
    bool win_md5;                   /* the stream's MD5 is checked: seq_hash hashes each written part */
    bool win_hold;                  /* DL_PARTS or DL_CRC, every part in the window: none is written
                                       before the whole's check passes (stdout_hold_check) */
    bool win_proven;                /* ... and it did, before the first byte went out */
    bool md5_hidden;                /* a reply named SSE-KMS or SSE-C: the ETag is no MD5 */
    uint64_t stream_crc;            /* DL_CRC: of the bytes written so far */
};

/*
 * Each family's struct from its head, checked: a family never reads
 * another's fields. The head is first in every family's struct, so the
 * block obj_start allocates is freed through it.
 */
#define OBJ_OF(os, type, fam)                                                                                  \
    (assert((os)->family == (fam)), (type *)(void *)((char *)(uintptr_t)(os) - offsetof(type, head)))

static inline struct obj_upload *upload_of(const struct xfer_obj_state *os)
{
    return OBJ_OF(os, struct obj_upload, FAM_UPLOAD);
}

static inline struct obj_stdin *stdin_of(const struct xfer_obj_state *os)
{
    return OBJ_OF(os, struct obj_stdin, FAM_STDIN);
}

/* Whether a request's body is object data (PutObject, UploadPart, an append): sent unsigned (its
 * checksum proves it, no SHA-256 on the loop), paced by --bwlimit, counted as the link's work. Not
 * whether it may be sent twice: an append never is (req_builders' dup, hedge.c). */
static inline bool req_sends_data(enum req_kind k)
{
    return k == RK_PUT || k == RK_PART || k == RK_APPEND;
}

/* Keep a stream's sent part's buffer for a later part (no fresh pages); it counts as the part it was. */
static inline void stdin_keep_buffer(struct xfer_obj_state *os, struct buf *mem)
{
    struct obj_stdin *in = stdin_of(os);

    if (mem->cap > (1u << 20) && in->n_spare < (int)(sizeof(in->spare) / sizeof(in->spare[0]))) {
        in->spare[in->n_spare++] = *mem;
        *mem = (struct buf)BUF_INIT((size_t)SMALL_BODY_MAX + (1 << 20));
    }
}

static inline struct obj_copy *copy_of(const struct xfer_obj_state *os)
{
    return OBJ_OF(os, struct obj_copy, FAM_COPY);
}

static inline struct obj_dl_file *dl_file_of(const struct xfer_obj_state *os)
{
    return OBJ_OF(os, struct obj_dl_file, FAM_DL_FILE);
}

static inline struct obj_dl_stdout *dl_stdout_of(const struct xfer_obj_state *os)
{
    return OBJ_OF(os, struct obj_dl_stdout, FAM_DL_STDOUT);
}

/* The multipart upload of an object of a family that writes one; NULL for the others. */
static inline struct mpu_state *mpu_find(const struct xfer_obj_state *os)
{
    switch (os->family) {
    case FAM_UPLOAD: return &upload_of(os)->mpu;
    case FAM_STDIN: return &stdin_of(os)->mpu;
    case FAM_COPY: return &copy_of(os)->mpu;
    default: return NULL;
    }
}

/* ... of an object that has one (upload, stdin, copy): checked. */
static inline struct mpu_state *mpu_of(const struct xfer_obj_state *os)
{
    struct mpu_state *m = mpu_find(os);

    assert(m);
    return m;
}

/* The whole's check of a download (to a file or to stdout); NULL for the others. */
static inline struct dl_check_state *dlc_find(const struct xfer_obj_state *os)
{
    switch (os->family) {
    case FAM_DL_FILE: return &dl_file_of(os)->chk;
    case FAM_DL_STDOUT: return &dl_stdout_of(os)->chk;
    default: return NULL;
    }
}

static inline struct dl_check_state *dlc_of(const struct xfer_obj_state *os)
{
    struct dl_check_state *c = dlc_find(os);

    assert(c);
    return c;
}

/* Whether the object's multipart upload declared the flexible checksum (false: it has none). */
static inline bool obj_mpu_crc(const struct xfer_obj_state *os)
{
    const struct mpu_state *m = mpu_find(os);

    return m && m->mpu_crc;
}

/* xfer_obj_state.have, per part: */
enum {
    HAVE_TAKEN = 1,                 /* in place and proven ours: not sent again */
    HAVE_LISTED = 2,                /* a relay's part the store lists (its MD5 in mpu_state.md5s): read
                                       again for the whole's proof, sent again only if it differs */
};

/* A multipart upload's state before anything (its start calls this first). */
static inline void mpu_init(struct mpu_state *m)
{
    m->jlock = -1;
}

/* stdin and stdout: read or written in order, never seeked (their fd is not ours to close). */
static inline bool obj_stream(const struct xfer_obj_state *os)
{
    return os->family == FAM_STDIN || os->family == FAM_DL_STDOUT;
}

/* A request as hedge.c watches it (zero when it is not watched). */
struct req_hedge {
    struct req *twin;               /* the other of a hedged pair, until the first of them is judged */
    struct req *prev, *next;        /* in the wait list: sent, no answer yet, oldest first */
    struct req *big_prev, *big_next; /* in the list of large transfers watched for a slow connection */
    struct req *pair_next;          /* in the list of pairs (originals only) */
    int64_t start_ns;               /* when it was submitted (http_now_ns) */
    bool waiting, big;              /* on those lists */
    bool dup;                       /* sent as the duplicate of its twin */
    bool lost;                      /* its twin answered first: nothing of it is taken */
    bool resend;                    /* cut off as too slow: sent again, on a new connection */
    bool fresh;                     /* its next exchange opens a new connection */
    bool cond;                      /* it carries If-None-Match or If-Match: never duplicated */
    uint8_t slow_resends;           /* times it was cut off as too slow */
    uint8_t twins;                  /* duplicates sent of it (hedge.c's overdue) */
};

#define STAGE_BYTES ((size_t)128 << 10)  /* a file GET's bytes gathered for one pwrite (curl hands 16 KiB) */
#define LENT_PER_REQ 8                   /* stages a GET lends its MD5 at most: further behind, it re-reads the file */

/* A stage: bytes of a file GET gathered for one pwrite, then lent to its MD5. */
struct dl_buf {
    struct dl_buf *next;            /* in the engine's free list, or a request's lent list */
    size_t n;                       /* bytes in data */
    unsigned char data[STAGE_BYTES];
};

/* One exchange with the store, reused for its retries and then for others. */
struct req {
    struct http_xfer http;
    struct store_s3_call call;
    struct xfer_obj_state *os;
    struct engine *eng;
    enum req_kind kind;
    uint32_t part;                  /* 1-based part number, 0 for single requests */
    uint64_t off, len;              /* bytes of the object this request moves */
    int attempt;
    int64_t due_ms;                 /* when a retry may start */
    struct hash_ctx *md5;           /* MD5 of a small body received into memory (on the loop) */
    struct eng_hash hash;           /* MD5 of a file's bytes sent or received, by a hash worker */
    bool parked;                    /* answered; waits for 'hash' (then its ok handler runs again) */
    bool zombie;                    /* put back while 'hash' was busy: freed when it is back */
    bool md5_live;                  /* a file GET whose MD5 is taken as its bytes land (dl_md5_kick) */
    bool hash_stale;                /* 'hash' is busy with an earlier exchange's bytes: drop its result */
    uint64_t md5_at;                /* md5_live: bytes of this exchange in hash.job.md5 */
    uint64_t md5_to;                /* md5_live: bytes of this exchange hashed or on their way (a job, lent) */
    bool use_crc;                   /* a whole GET: checked by the stored checksum in its reply */
    bool use_sha;                   /* a GET whose bytes' SHA is checked (a hash worker's, dl_md5_kick):
                                       the whole's against 'stored', or a composite object's part */
    struct ck_stored stored;        /* use_sha of a whole GET; stdout DL_COMPOSITE: the part's, from its reply */
    enum ck_algo ck_algo;           /* use_crc: which, and its value */
    uint64_t ck_want;
    uint64_t got;                   /* download bytes received (written, or in 'stage') */
    struct dl_buf *stage;           /* a file GET's bytes gathered for one pwrite, or NULL (download.c) */
    struct dl_buf *lent, *lent_tail; /* stages written and lent to the MD5, in order: the first is with a
                                       hash worker (the MD5 reads them, not the file) */
    uint64_t lent_bytes;            /* bytes in 'lent' */
    uint64_t stage_at;              /* bytes of this exchange written to the file: stage's go there */
    size_t staged;                  /* bytes in 'stage' */
    uint64_t crc;                   /* DL_CRC: CRC of the bytes written */
    uint64_t mem_crc;               /* a CRC algorithm's value over a memory body (hdr_ck) */
    unsigned char mem_sum[CK_MAX_LEN]; /* a SHA algorithm's digest of it (a hash worker's) */
    bool flex;                      /* sent a flexible checksum the store may refuse (trailer, declared algorithm) */
    bool flex_wait;                 /* held until the probe says whether the store takes trailers */
    struct buf mem;                 /* small upload body / request XML */
    struct buf query;
    char hdr_md5[32];               /* Content-MD5 of a memory body */
    unsigned char mem_md5[MD5_LEN]; /* the same, raw (mem_digests) */
    bool sent_mem;                  /* this exchange sent 'mem': its MD5 is mem_md5 */
    char hdr_ck[CK_B64_MAX];        /* x-amz-checksum-<algorithm> of a memory body, or "" */
    struct hash_ctx *sha;           /* a SHA algorithm: what a hash worker feeds (req_sha) */
    enum ck_algo sha_algo;          /* ... of this algorithm */
    bool sum_wait;                  /* a SHA trailer waits for the worker: resume the loop when it is back */
    char hdr_range[80];
    struct buf hdr_copy_src;
    struct s3_sse_c ssec, ssec_src; /* SSE-C headers of the object and of a copy's source */
    struct s3c_error local_err;     /* a local failure during the exchange (disk full...) */
    bool local_failed;
    struct req_hedge hg;            /* hedged, or watched for a slow connection (hedge.c) */
    uint64_t relay_bytes;           /* a relayed copy's bytes this request holds in 'mem' (counted in
                                       engine.relay_bytes until it is put back); 0 */
    struct req *next;               /* done list or retry list */
};

struct hedge;

/* What req.c tells of a request's life to whoever watches it (hedge.c);
 * xfer.c fills it in. */
struct req_watch {
    /* It was just submitted. */
    void (*sent)(struct engine *g, struct req *r);
    /* It finished, before it is judged: true when taken (dropped, or sent again). */
    bool (*done)(struct engine *g, struct req *r);
};

/* One run of xfer_run(): everything the loop and the families share. */
struct engine {
    struct store_s3 *s3;
    struct store_s3 *src_s3;        /* the source side's store (xfer_opts.src_store), on this loop;
                                       s3 when one store serves both (req_store picks) */
    const struct req_ops *kinds;    /* per enum req_kind: who takes its body and answers (xfer.c) */
    const struct obj_ops *ops;      /* per enum obj_family: how its objects start and end (xfer.c) */
    const struct req_watch *watch;  /* told of every request sent and finished (xfer.c); NULL */
    struct hedge *hedge;            /* hedged requests and slow transfers (hedge.c); NULL: none */
    struct http_loop *loop;
    struct xfer_opts opts;
    struct xfer_stats stats;
    struct xfer_obj_state *active;  /* objects with parts still to start */
    struct req *done;               /* finished exchanges, to judge */
    struct req *retry;              /* waiting for their backoff */
    struct req *free_reqs;          /* reusable */
    struct land *land;              /* workers that put small downloads on disk; NULL */
    struct jsync *jsync;            /* the download journals' fdatasync and records; NULL until one */
    int landing;                    /* small downloads queued to them */
    int inflight;
    int cap;                        /* requests in flight allowed now */
    int fd_cap;                     /* most requests in flight the open-files limit allows */
    bool source_done;
    int n_objects;                  /* started and not finished */
    struct xfer_obj *held;          /* taken from the source, waiting for its bucket's region */
    /* Adaptive concurrency: throughput of the last window at the last cap. */
    int64_t window_start_ms;
    uint64_t window_reqs;           /* requests finished in the window */
    double best_rate;
    int best_cap;
    int throttled;                  /* throttling replies in this window */
    int stable_windows;
    int window_peak;                /* most requests in flight during the window */
    int64_t t0_ms;                  /* start of the run */
    int64_t progress_ms;            /* last progress callback */
    uint64_t window_live_start;     /* work_bytes when the window began */
    int64_t window_cpu_start_us;    /* this loop thread's CPU time when the window began */
    uint64_t work_bytes;            /* bytes received, and bytes sent whose answer came (adapt) */
    bool slow_start;                /* still doubling the cap */
    /* The network as seen by finished requests (link_observe), for sizing parts; 0: not yet. */
    double link_latency_s;          /* first-byte latency */
    double link_bytes_s;            /* bytes per second of one connection */
    double bw_tokens;               /* --bwlimit: bytes that may move now */
    int64_t bw_last_ms;
    bool bw_paused;                 /* some transfer waits for tokens */
    bool stdin_wait;                /* a stdin part waits for more input: wake on stdin too */
    enum s3c_err first_error;
    /* Deletes: batched per bucket (xfer/del.h), several batches in flight. */
    struct xfer_del_queue del;
    int del_sending;                /* batches in flight or waiting to retry */
    int n_deletes;                  /* delete objects started and not finished */
    /* Deletes of an object as it was (xfer_obj.etag on an XFER_DELETE: mv's sources): DeleteObject
     * with If-Match, while the store is not known to ignore or refuse it (delete.c). */
    enum cond_del cond_del;
    struct probe_gate cond_gate;    /* its probe: the first, sent once with an If-Match no object
                                       has (412 says the store checks it, a 2xx that it ignores it) */
    bool source_wait;               /* the source said WAIT: ask again after the next done */
    bool source_later;              /* the source said LATER: ask again after this turn's loop step */
    bool no_part_number;            /* the store ignores ?partNumber= (Ceph 16) */
    bool no_tagging;                /* the store has no object tagging (GetObjectTagging: 501) */
    bool no_part_copy;              /* the store has no UploadPartCopy (501): one CopyObject a copy */
    bool no_rename;                 /* the store has no RenameObject (501): copies, then deletes */
    bool rename_ok;                 /* a RenameObject succeeded: the store has it */
    struct probe_gate rename_gate;  /* the first RenameObject, while neither is known */
    int mpu_tagging;                /* x-amz-tagging on CreateMultipartUpload: 1 the store applies
                                       it, -1 it ignores it (Ceph 16), 0 not known yet */
    bool no_trailers;               /* the store keeps no flexible checksums (Ceph 16): none from now on */
    bool flex_known;                /* ... or it does: an answer echoed one */
    struct req *flex_probe;         /* the one streamed body with a trailer while that is unknown */
    struct hashpool *hash;          /* workers computing MD5s; NULL until the first */
    int hashing;                    /* jobs with them */
    int parked;                     /* requests answered, waiting for their MD5 */
    int proving;                    /* same-second proofs with a hash job out (prove.c): no new
                                       object is taken while PROVING_MAX are */
    uint64_t relay_bytes;           /* relayed copies' bytes in memory (req.relay_bytes): at most
                                       relay_max, or one part */
    uint64_t relay_max;             /* this loop's share of RELAY_MEM_MAX (loops.c); 0: all of it */
    /* Buffers of relayed parts that went back (req_recycle), kept for the next GETs (relay_buf_take):
     * a fresh buffer of a part's size is a fault a page when first written, 21% of a relay's CPU.
     * Their bytes (cap) and relay_bytes stay within relay_max together. */
    struct buf relay_pool[RELAY_POOL_MAX];
    int relay_pooled;
    uint64_t relay_pool_bytes;
    bool any_ok;                    /* some request of the run succeeded */
    bool stop;                      /* a run-wide error: start nothing more (see run_wide_error) */
    struct s3c_error stop_err;      /* that error, as reported for the object that met it */
    struct dl_buf *dl_bufs;         /* free stages of file GETs (download.c) */
    int dl_bufs_used, dl_stages;    /* stages not free, and of them those of GETs (not lent) */
    /* One loop of several (loops.c); with one loop, hooks is NULL and the rest zero. */
    const struct engine_hooks *hooks;
    void *lane;                     /* loops.c's side of this loop */
    bool keep_objs;                 /* done() takes each object over (a helper loop hands it home) */
    int hash_threads;               /* hash workers of this loop; 0: one per core */
};

/*
 * How a loop among several (loops.c) hands objects and results across:
 * called on the loop's own thread. setup once the engine is made, before
 * its first turn; turn once a turn, after fill; idle when the engine has
 * nothing left of its own and its source says END or WAIT: true (after
 * waiting a little for the other loops) to go on, false to end.
 */
struct engine_hooks {
    void *lane;                     /* becomes g->lane */
    void (*setup)(struct engine *g);
    void (*turn)(struct engine *g);
    bool (*idle)(struct engine *g);
};

/*
 * What the engine does with one kind of request: a row per enum req_kind,
 * so req.c sends a body and hands an answer on without naming who takes it.
 * NULL: nothing of that kind. Each handler takes the request over (puts it
 * back or retries it) when it returns true or returns nothing.
 */
struct req_ops {
    /* The body of a request streamed from a file (PutObject, UploadPart). */
    ssize_t (*read)(void *ctx, char *dst, size_t n, uint64_t offset);
    /* Where a 2xx answer's body goes (GetObject). */
    enum http_sink_verdict (*sink)(void *ctx, const char *p, size_t n);
    /* The store said yes. Never NULL. */
    void (*ok)(struct engine *g, struct req *r);
    /* An answer that came after its object failed or the run stopped: true if taken. */
    bool (*late)(struct engine *g, struct req *r);
    /* A refusal that is an answer (before any retry or run-wide stop): true if taken. */
    bool (*refused)(struct engine *g, struct req *r, const struct s3c_error *e);
    /* A failure about to be retried or to fail the object: true if taken ('e' may be reworded). */
    bool (*failed)(struct engine *g, struct req *r, enum store_s3_verdict v, struct s3c_error *e);
    /* Retries are over: ends the request's objects instead of obj_fail. */
    void (*gave_up)(struct engine *g, struct req *r, const struct s3c_error *e);
};

/* What differs by family (enum obj_family) in an object's life: a row each, filled in by xfer.c. */
struct obj_ops {
    size_t size;                    /* the family's struct, whose head is first */
    /* Set the object up (the family's own fields first); its first request in
     * *out (NULL: none to send now). On failure 'e' says why, no request is
     * held, and the caller finishes it. */
    enum s3c_err (*start)(struct engine *g, struct xfer_obj_state *os, struct req **out, struct s3c_error *e);
    /* obj_finish: the family's own ending (a download's temp file); may be NULL. */
    void (*end)(struct engine *g, struct xfer_obj_state *os);
    /* Free what the family's struct holds (not the struct); may be NULL. */
    void (*release)(struct xfer_obj_state *os);
    /* An object ended with nothing in flight: true when the family starts it again
     * another way instead (a copy whose parts the store refused); may be NULL. */
    bool (*redo)(struct engine *g, struct xfer_obj_state *os);
    /* The object just failed (obj_fail): let go of what it holds that no answer will bring back
     * (a relay's parts read ahead of their turn); may be NULL. */
    void (*failed)(struct engine *g, struct xfer_obj_state *os);
    /* The parts on the active list: the family's next one (stdin reads its own), or NULL for
     * numbered ranges of part_kind, which wait while part_wait says so (stdout's window). */
    struct req *(*next_part)(struct engine *g, struct xfer_obj_state *os);
    bool (*part_wait)(const struct xfer_obj_state *os);
    enum req_kind part_kind;
    /* Downloads: the ranges start once the layout is known (after the probe); where a GET's bytes
     * go and who takes its answer when the family has its own (stdout's), else NULL (download.c's). */
    void (*ranges)(struct engine *g, struct xfer_obj_state *os);
    enum http_sink_verdict (*get_sink)(struct req *r, const char *p, size_t n);
    void (*get_ok)(struct engine *g, struct req *r);
};

/* What the check of a ranged download's whole says (dl_check). */
enum dl_verdict {
    DLV_OK,             /* the bytes are the store's, or nothing better can tell (--debug says) */
    DLV_HASHING,        /* DL_SEQ: bytes on disk still to hash in order (dl_seq_kick) */
    DLV_AGAIN,          /* a mismatch, in 'e': download the whole again, or fail */
    DLV_ERROR,          /* the check could not run, in 'e' */
};

/* The flexible checksum uploads of 'o' carry (--checksum-algorithm; CRC64NVME by default). */
static inline enum ck_algo obj_ck(const struct xfer_obj *o)
{
    return o->opts ? o->opts->checksum_algo : CK_CRC64NVME;
}

/* Whether a failed stream's appends left a part of it in its object, to delete (obj_fail: RK_ABORT
 * deletes it if it is still what they made); under --resume it is kept, for the next run. */
static inline bool stdin_partial(const struct engine *g, const struct xfer_obj_state *os)
{
    return os->family == FAM_STDIN && stdin_of(os)->append && stdin_of(os)->appended > 0 && !g->opts.resume;
}

/* Set by xfer_cancel() (a signal handler), read by every loop's thread: an
 * atomic (lock-free, so safe in a signal handler) rather than a sig_atomic_t. */
extern atomic_int cancel_requested;

static inline int64_t now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* part.c: the engine's part planning (calls obj.c) */
void plan_parts(struct engine *g, struct xfer_obj_state *os);
bool small_multipart(const struct xfer_obj *o);
bool wants_multipart(struct engine *g, uint64_t size);
enum s3c_err start_parts(struct engine *g, struct xfer_obj_state *os, struct s3c_error *e);

/* adapt.c: the concurrency cap, the --bwlimit bucket, the network seen (calls no other engine file) */
bool bw_take(struct engine *g, size_t *n);
void bw_refill(struct engine *g, int64_t now);
int adapt_ceiling(const struct xfer_opts *o);
void adapt(struct engine *g);
void link_observe(struct engine *g, const struct req *r);

/* What a duplicate of a kind of request would do while the first may still land (hedge.c). */
enum req_dup {
    DUP_NEVER,          /* harm: a second upload id, a second delete marker, a copy done
                           twice, a Complete whose twin finds the upload gone... never hedged */
    DUP_FREE,           /* nothing: reads, and parts (the same bytes stored again under the
                           same number): hedged freely */
    DUP_WHOLE_WRITE,    /* a whole object written again: a second version, a second event
                           notification, a 412 for a conditional twin. Hedged only where that is
                           invisible (xfer_opts.hedge_writes), never with If-Match/If-None-Match */
};

/* build.c: what each kind of request says to the store (calls part.c only) */
struct req_builder {
    /* Fill 'q' for 'r' (method, bucket, key, query, headers, body): what differs
     * by kind. On failure 'e' says why and the request is not sent. */
    enum s3c_err (*build)(struct engine *g, struct req *r, struct s3_req *q, struct s3c_error *e);
    bool keep_on_cancel;            /* answered even after an interrupt (http.keep_on_cancel) */
    bool slow_answer;               /* a store may think it over for minutes (http.slow_answer) */
    bool sse_c_own;                 /* carries the object's SSE-C key */
    bool sse_c_src;                 /* carries a copy's source's SSE-C key */
    bool sse_c_source;              /* carries the key of the object's source: a download's own,
                                       a copy's source's (plain, as on RK_HEAD_SRC) */
    enum req_dup dup;               /* whether hedge.c may send a duplicate of it */
};
/* Per enum req_kind: its builder, and what req_submit does for it. */
extern const struct req_builder req_builders[RK_COUNT];
bool flex_ok(const struct engine *g);
/* The SSE-C headers of 'r' (its kind's sse_c_own, sse_c_src); 'oo' not NULL. */
enum s3c_err add_sse_c(struct req *r, struct s3_req *q, const struct xfer_obj_opts *oo, struct s3c_error *e);

/* obj.c: an object's phase, end and lists; the run-wide stop, --debug (calls no other engine file) */
bool stopping(const struct engine *g);
void xdebug(struct engine *g, const struct xfer_obj *o, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The one place an object's phase changes: checks the move is legal, tells it under --debug. */
void obj_phase_set(struct engine *g, struct xfer_obj_state *os, enum obj_phase to);
/* Whether an object may go from phase 'from' to 'to' (the table obj_phase_set checks); its name. */
bool obj_phase_legal(enum obj_phase from, enum obj_phase to);
const char *obj_phase_name(enum obj_phase p);
void obj_finish(struct engine *g, struct xfer_obj_state *os);
/* The caller hears of 'o' (done), then it is freed, unless a helper loop keeps it (keep_objs). */
void obj_report(struct engine *g, struct xfer_obj *o, const struct s3c_error *e);
void active_remove(struct engine *g, struct xfer_obj_state *os);

/* req.c: requests' life, the judge of answers, retries (calls obj.c and part.c) */
bool hash_start(struct engine *g, struct eng_hash *h, int fd, const void *mem, uint64_t off, uint64_t len);
bool req_hash_file(struct engine *g, struct req *r, int fd, uint64_t off, uint64_t len);
bool req_hash_mem(struct engine *g, struct req *r, const void *mem, uint64_t len);
/* The job the caller filled in r->hash.job (MD5 so far, 'also', 'crc'), over 'len' bytes at 'mem'. */
bool req_hash_job(struct engine *g, struct req *r, const void *mem, uint64_t len);
struct hash_ctx *req_sha(struct req *r, enum ck_algo a);
bool req_sha_mem(struct engine *g, struct req *r, enum ck_algo a, const void *mem, uint64_t len);
void req_park(struct engine *g, struct req *r);
bool req_hash_back(struct engine *g, struct req *r);
void req_unpark(struct engine *g, struct req *r);
void hash_reap(struct engine *g);
struct req *req_get(struct engine *g, struct xfer_obj_state *os, enum req_kind kind);
void req_put_back(struct engine *g, struct req *r);
enum s3c_err req_submit(struct engine *g, struct req *r, struct s3c_error *e);
/* The store 'r' goes to: the source side's for what reads a source, the destination's else. */
struct store_s3 *req_store(const struct engine *g, const struct req *r);
void submit_or_fail(struct engine *g, struct req *r);
struct req *due_retry(struct engine *g, int64_t now);
void obj_fail(struct engine *g, struct xfer_obj_state *os, const struct s3c_error *e);
/* A GET's answer is all there: false when it failed the request instead (a local failure, a
 * short body: retried, or the object fails). */
bool get_in_full(struct engine *g, struct req *r);
void obj_abort(struct engine *g, struct xfer_obj_state *os);
void maybe_finish(struct engine *g, struct xfer_obj_state *os);
void req_fail(struct engine *g, struct req *r, const struct s3c_error *e, bool retryable, long backoff_ms);
void req_done(struct engine *g, struct req *r);
const char *req_op_name(enum req_kind k);

/* check.c: the source (xfer_obj.src_head) and the destination looked at before an object starts
 * (calls obj.c, part.c, req.c) */
/* Whether 'o' needs a HEAD of its destination first (xfer_obj.dst_check). */
bool check_wanted(struct engine *g, const struct xfer_obj *o);
/* Move 'os' to PH_CHECK and return its HEAD to send; NULL (out of memory) leaves it in PH_NEW. */
struct req *check_start(struct engine *g, struct xfer_obj_state *os);
void on_check_dst(struct engine *g, struct req *r);
/* 'os', its family not started, ends having written nothing (xfer_obj.dst_skipped); 'why' for --debug. */
void check_skipped(struct engine *g, struct xfer_obj_state *os, const char *why);
bool check_dst_refused(struct engine *g, struct req *r, const struct s3c_error *e);
void check_dst_gave_up(struct engine *g, struct req *r, const struct s3c_error *e);
/* Move 'os' to PH_SOURCE and return the HEAD of its source to send (xfer_obj.src_head); NULL (out of
 * memory) leaves it in PH_NEW. */
struct req *source_start(struct engine *g, struct xfer_obj_state *os);
void on_head_source(struct engine *g, struct req *r);
bool head_source_refused(struct engine *g, struct req *r, const struct s3c_error *e);
void head_source_gave_up(struct engine *g, struct req *r, const struct s3c_error *e);
void on_head_bucket(struct engine *g, struct req *r);
bool head_bucket_refused(struct engine *g, struct req *r, const struct s3c_error *e);
void head_bucket_gave_up(struct engine *g, struct req *r, const struct s3c_error *e);

/* prove.c: sync's same-second proof before an object starts (calls check.c and below) */
/* Move 'os' (xfer_obj.same_second) to PH_PROVE and take the plan's first step: the request to send,
 * or NULL (a hash job is out, or the object went on or ended). */
struct req *prove_start(struct engine *g, struct xfer_obj_state *os);
void on_prove_head(struct engine *g, struct req *r);
bool prove_head_refused(struct engine *g, struct req *r, const struct s3c_error *e);
void prove_head_gave_up(struct engine *g, struct req *r, const struct s3c_error *e);

/* verify.c: which check proves the bytes, and the checks (calls req.c) */
bool stored_checksum(const struct http_resp *resp, enum ck_algo *algo, uint64_t *value);
bool stored_ck(const struct http_resp *resp, struct ck_stored *out);
bool etag_is_md5(struct sv etag, char hex_out[33]);
bool etag_one_part(struct sv etag, char hex_out[33], unsigned char md5[MD5_LEN]);
bool sse_hides_md5(const struct http_resp *resp);
enum sent_verdict { SENT_OK, SENT_BAD, SENT_WAIT };
enum sent_verdict verify_sent(struct engine *g, struct req *r, unsigned char md5[MD5_LEN], bool *md5_known,
                              struct s3c_error *e);
/*
 * An upload's answer (PutObject or UploadPart): true when it may be taken up.
 * False when reading the bytes failed or they do not match what the store
 * says it got (the request is failed or retried), or when their MD5 is still
 * on a hash worker (parked: the answer comes back here once it is).
 */
bool sent_answer_ok(struct engine *g, struct req *r, unsigned char md5[MD5_LEN], bool *md5_known);
/* What a check's verdict does with its request: true when its answer may be taken up; false when
 * it waits for a hash worker (SENT_WAIT, parked) or is failed to be tried again (SENT_BAD, 'e'). */
bool sent_verdict_ok(struct engine *g, struct req *r, enum sent_verdict v, const struct s3c_error *e);
bool multipart_etag(const struct xfer_obj_state *os, char want[80]);
/* Whether a PutObject answer, already judged by verify_sent, proves the bytes: the flexible
 * checksum sent echoed, or an ETag that is the MD5 'md5' ('known') of them; else 'why'. */
bool put_proven(const struct req *r, const unsigned char md5[MD5_LEN], bool known, const char **why);
void mem_crc(struct engine *g, struct req *r, bool whole_object);
/* Whether a memory body sends a CRC as its flexible checksum (a whole object's): then '*a' is it. */
bool mem_wants_crc(const struct engine *g, const struct req *r, bool whole_object, enum ck_algo *a);
bool mem_needs_md5(const struct engine *g, bool whole_object);
void mem_md5_set(struct req *r, const unsigned char md5[MD5_LEN]);
void mem_digests(struct engine *g, struct req *r, bool whole_object);
/*
 * The digests of a memory body about to be sent (mem_crc, mem_needs_md5,
 * and a SHA flexible checksum): what needs a hash worker goes to one, and
 * the request is sent when it is back. True when it waits; false when it
 * can go now. 'small': its MD5 is taken here (a body of SMALL_BODY_MAX or less).
 */
bool mem_digests_later(struct engine *g, struct req *r, bool whole_object, bool small);
/* A memory body's hash job is back: true when there is nothing more to do with it (its object
 * failed, the run stops, the job failed: the request is put back or failed, here). */
bool mem_hash_ended(struct engine *g, struct req *r);
/*
 * mem_digests_later for a whole object whose MD5 ('md5') a hash worker took already, with
 * the CRC 'had' names when it took one (had->crc: a relay's read, hashed once): only what
 * else the destination needs goes to a worker (a CRC of another algorithm, a SHA).
 */
bool mem_digests_known(struct engine *g, struct req *r, const unsigned char md5[MD5_LEN], const struct hash_job *had);
bool whole_crc_verify(struct engine *g, const struct xfer_obj_state *os, enum ck_algo a, uint64_t got,
                      uint64_t want, bool say, struct s3c_error *e);
/* The composite checksum of 'n' parts ("<base64>-N") from their CRCs (a CRC
 * algorithm) or raw SHAs ('sums'); false on no memory. */
bool parts_composite(enum ck_algo a, const uint64_t *crcs, const unsigned char (*sums)[CK_MAX_LEN], uint32_t n,
                     char out[CK_B64_MAX + 8]);
bool etag_whole_md5(struct sv etag);
bool composite_alloc(struct xfer_obj_state *os);
/* Free what a download's check holds. */
void dl_check_release(struct dl_check_state *c);
bool seq_sha_start(struct xfer_obj_state *os);
bool composite_part_ok(struct req *r, struct s3c_error *e);
bool whole_sum_verify(struct engine *g, const struct xfer_obj_state *os, const struct ck_stored *want,
                      const unsigned char *got, struct s3c_error *e);
/* A composite checksum of the whole from the parts' digests, against the stored one. */
bool composite_verify(struct engine *g, struct xfer_obj_state *os, struct s3c_error *e);
enum dl_verdict dl_check(struct engine *g, struct xfer_obj_state *os, struct s3c_error *e);

/* resume.c: --resume, the engine's side of the journals (calls req.c, part.c) */
void journal_save(struct engine *g, struct xfer_obj_state *os);
void journal_drop(struct engine *g, struct xfer_obj_state *os);
bool journal_kept(struct engine *g, const struct xfer_obj_state *os);
enum req_kind resume_first(struct engine *g, struct xfer_obj_state *os);
void journal_release(struct engine *g, struct xfer_obj_state *os);
void on_stale_aborted(struct engine *g, struct req *r);
bool stale_abort_refused(struct engine *g, struct req *r, const struct s3c_error *e);
void stale_abort_gave_up(struct engine *g, struct req *r, const struct s3c_error *e);
bool resume_listed(struct engine *g, struct xfer_obj_state *os, const struct s3_list_parts *lp, enum ck_algo a,
                   void (*then)(struct engine *g, struct xfer_obj_state *os));
/* Free an upload's id and per-part arrays (have, etags, md5s) and set them to NULL. */
void mpu_state_free(struct xfer_obj_state *os);
/* Free all a multipart upload holds, and its journal lock (the record stays). */
void mpu_release(struct mpu_state *m);
void dl_journal_save(struct engine *g, struct xfer_obj_state *os);
void dl_journal_drop(struct engine *g, struct xfer_obj_state *os);
bool dl_keep_for_resume(struct engine *g, struct xfer_obj_state *os);
void dl_tmp_open(struct land_job *j);
uint32_t dl_next_resumed(const struct xfer_obj_state *os, uint32_t n);
void dl_resume_apply(struct engine *g, struct xfer_obj_state *os);
void dl_part_written(struct engine *g, struct xfer_obj_state *os, uint32_t n);

/* multipart.c: multipart uploads, for every family that writes (calls the helpers above) */
bool abort_late_upload(struct engine *g, struct req *r);
void on_create(struct engine *g, struct req *r);
void send_complete(struct engine *g, struct xfer_obj_state *os);
void on_part(struct engine *g, struct req *r);
void on_list_parts(struct engine *g, struct req *r);
bool list_parts_refused(struct engine *g, struct req *r, const struct s3c_error *e);
void on_complete(struct engine *g, struct req *r);
bool complete_failed(struct engine *g, struct req *r, enum store_s3_verdict v, struct s3c_error *e);
void on_head_dst(struct engine *g, struct req *r);
bool head_dst_failed(struct engine *g, struct req *r, enum store_s3_verdict v, struct s3c_error *e);
void on_abort(struct engine *g, struct req *r);
void abort_gave_up(struct engine *g, struct req *r, const struct s3c_error *e);

/* hedge.c: duplicates of overdue requests, slow transfers sent again (calls req.c) */
struct hedge *hedge_new(double budget);
void hedge_free(struct hedge *h);
void hedge_sent(struct engine *g, struct req *r);
bool hedge_done(struct engine *g, struct req *r);
void hedge_tick(struct engine *g);
int hedge_wait_ms(struct engine *g);
/* RK_GET_VERSIONING's answers: the bucket's versioning learnt, or not (then it counts as versioned). */
void on_versioning(struct engine *g, struct req *r);
bool versioning_refused(struct engine *g, struct req *r, const struct s3c_error *e);
void versioning_gave_up(struct engine *g, struct req *r, const struct s3c_error *e);

/* upload.c: the local-file family */
enum s3c_err upload_start(struct engine *g, struct xfer_obj_state *os, struct req **out, struct s3c_error *e);
void upload_release(struct xfer_obj_state *os);
ssize_t read_src(void *ctx, char *dst, size_t n, uint64_t offset);
void on_put(struct engine *g, struct req *r);

/* stdin.c: the standard-input family (its parts go through multipart.c) */
enum s3c_err stdin_start(struct engine *g, struct xfer_obj_state *os, struct req **out, struct s3c_error *e);
struct req *next_stream_part(struct engine *g, struct xfer_obj_state *os);
void stdin_release(struct xfer_obj_state *os);
void stdin_failed(struct engine *g, struct xfer_obj_state *os);
void on_append(struct engine *g, struct req *r);
bool append_refused(struct engine *g, struct req *r, const struct s3c_error *e);
void on_append_head(struct engine *g, struct req *r);
bool append_head_refused(struct engine *g, struct req *r, const struct s3c_error *e);

/* copy.c: the server-side copy family */
enum s3c_err copy_start(struct engine *g, struct xfer_obj_state *os, struct req **out, struct s3c_error *e);
/* The x-amz-copy-source of 'o' into 'out': "/bucket/key", encoded, "?versionId=V" after it when
 * o names a version (CopyObject and UploadPartCopy alike). */
enum s3c_err copy_source(const struct xfer_obj *o, struct buf *out);
void copy_release(struct xfer_obj_state *os);
void on_head_src(struct engine *g, struct req *r);
void on_src_tags(struct engine *g, struct req *r);
bool src_tags_refused(struct engine *g, struct req *r, const struct s3c_error *e);
bool part_copy_refused(struct engine *g, struct req *r, const struct s3c_error *e);
/* RK_COPY refused: with 403, where the source side has keys of its own, the copy relays. */
bool copy_refused(struct engine *g, struct req *r, const struct s3c_error *e);
/* A copy's first request by what the run knows of the store: RenameObject (or the gate), else the
 * copy itself. */
enum s3c_err copy_route(struct engine *g, struct xfer_obj_state *os, struct req **out, struct s3c_error *e);
/* RK_RENAME answered: done; refused with 501: the copy instead (xfer_obj.rename). */
void on_rename(struct engine *g, struct req *r);
bool rename_refused(struct engine *g, struct req *r, const struct s3c_error *e);
/* obj_ops.redo of copies: one whose parts were refused (redo_single), ended with
 * nothing in flight, starts again as one CopyObject. False when there is nothing to redo. */
bool copy_redo(struct engine *g, struct xfer_obj_state *os);
void on_put_tags(struct engine *g, struct req *r);
void on_check_tags(struct engine *g, struct req *r);
/* The next GET of the relays at the head of the active list 'os' (a whole object's, or a
 * part's: the first of them with room in its window), NULL while none has room or the loop's
 * share of RELAY_MEM_MAX is full. A relay with nothing left to read leaves the list. */
struct req *relay_next(struct engine *g, struct xfer_obj_state *os);
enum http_sink_verdict relay_sink(void *ctx, const char *p, size_t n);
void on_relay_get(struct engine *g, struct req *r);
/* obj_ops.failed of copies: a relay's parts waiting for their turn are put back. */
void relay_failed(struct engine *g, struct xfer_obj_state *os);
/* Before a relay's CompleteMultipartUpload: whether the bytes read are the source's, by the MD5
 * of all of them in order (seq_md5) or of their parts' MD5s against its ETag. False with 'e'
 * when they are not (not completed, then); os->src_unproven says why nothing could tell. */
bool relay_source_check(struct engine *g, struct xfer_obj_state *os, struct s3c_error *e);
void on_copy(struct engine *g, struct req *r);

/* download.c: downloads to a file, and what stdout's share with them: the probe of how the whole
 * is checked, the GET's bytes and its whole-object check, the whole downloaded again */
enum s3c_err download_start(struct engine *g, struct xfer_obj_state *os, struct req **out, struct s3c_error *e);
void dl_start(struct engine *g, struct xfer_obj_state *os);
enum s3c_err dl_caller_head(struct engine *g, struct xfer_obj_state *os, struct s3c_error *e);
/* Ranges of our own size, checked by their length only; 'why' goes to --debug. */
void dl_size_only(struct engine *g, struct xfer_obj_state *os, const char *why);
bool dl_whole_ok(struct engine *g, struct req *r);
/* A mismatch over the whole object: download all of it again, or fail it. */
void dl_again(struct engine *g, struct xfer_obj_state *os, const struct s3c_error *e);
void on_head_info(struct engine *g, struct req *r);
void on_head_part1(struct engine *g, struct req *r);
bool head_part1_refused(struct engine *g, struct req *r, const struct s3c_error *e);
/* Stages of file GETs (req.c): one taken (a GET's when 'stage', else one to
 * lend to the MD5), one given back, those a request lent dropped, all of a
 * request's given back (it is recycled), all freed (the engine ends). */
struct dl_buf *dl_buf_get(struct engine *g, bool stage);
void dl_buf_put(struct engine *g, struct dl_buf *b, bool stage);
void dl_lent_drop(struct engine *g, struct req *r);
void dl_bufs_put_req(struct engine *g, struct req *r);
void dl_bufs_free(struct engine *g);
/* A relay's GET of 'len' bytes takes a kept buffer into 'b' (when one is large enough; its own
 * otherwise, allocated as the bytes come); all kept freed (the engine ends). */
void relay_buf_take(struct engine *g, struct buf *b, uint64_t len);
void relay_bufs_free(struct engine *g);
bool dl_md5_kick(struct engine *g, struct req *r, bool final);
enum http_sink_verdict write_dst(void *ctx, const char *p, size_t n);
void on_get(struct engine *g, struct req *r);
void land_reap(struct engine *g);
void dl_end(struct engine *g, struct xfer_obj_state *os);
void dl_file_release(struct xfer_obj_state *os);

/* stdout.c: downloads to standard output: a window of parts written in order (calls download.c) */
enum s3c_err stdout_start(struct engine *g, struct xfer_obj_state *os, struct req **out, struct s3c_error *e);
void stdout_parts_go(struct engine *g, struct xfer_obj_state *os);
enum http_sink_verdict stdout_sink(struct req *r, const char *p, size_t n);
void on_stdout_get(struct engine *g, struct req *r);
bool stdout_window_full(const struct xfer_obj_state *os);
void stdout_obj_end(struct engine *g, struct xfer_obj_state *os);
void stdout_release(struct xfer_obj_state *os);

/* req.c: probe gates (struct probe_gate). gate_park: 'os' waits. gate_drain: once the store is
 * 'learnt', or no probe is out, the waiting go through 'route' (one may become the next probe).
 * gate_cancel: the waiting fail with 'e'. gate_forget: 'r' is put back (not the probe any more). */
typedef enum s3c_err (*gate_route_fn)(struct engine *g, struct xfer_obj_state *os, struct req **out,
                                      struct s3c_error *e);
enum s3c_err gate_park(struct probe_gate *pg, struct xfer_obj_state *os, struct s3c_error *e);
void gate_drain(struct engine *g, struct probe_gate *pg, bool learnt, gate_route_fn route);
void gate_cancel(struct engine *g, struct probe_gate *pg, const struct s3c_error *e);
void gate_forget(struct probe_gate *pg, const struct req *r);
void gate_free(struct probe_gate *pg);

/* xfer.c: the loop; run on the calling thread, 'hooks' NULL when it is the only one */
enum s3c_err engine_run(struct store_s3 *s, const struct xfer_opts *opts, struct xfer_stats *stats,
                        const struct engine_hooks *hooks);

/* delete.c: the delete family */
void del_batch_fail(struct engine *g, struct req *r, const struct s3c_error *e);
void on_delete_batch(struct engine *g, struct req *r);
struct req *del_next_batch(struct engine *g);
/* Where a delete goes by what the run knows of the store (a batch, a DeleteObject, the gate). */
enum s3c_err del_route(struct engine *g, struct xfer_obj_state *os, struct req **out, struct s3c_error *e);
enum s3c_err del_start(struct engine *g, struct xfer_obj_state *os, struct req **out, struct s3c_error *e);
void on_delete_one(struct engine *g, struct req *r);
bool delete_one_refused(struct engine *g, struct req *r, const struct s3c_error *e);
/* build.c: whether a delete of 'o' goes as a DeleteObject with If-Match (it names the ETag copied,
 * and the store is not known to ignore or refuse the header), and what that If-Match is for 'r'
 * (the ETag, or the probe's), NULL when none. */
bool del_conditional(const struct engine *g, const struct xfer_obj *o);
const char *del_if_match(const struct engine *g, const struct req *r);
void del_cancel(struct engine *g, const struct s3c_error *e);

/* restore.c: RestoreObject, one request an object; its XML body in r->mem. */
enum s3c_err restore_start(struct engine *g, struct xfer_obj_state *os, struct req **out, struct s3c_error *e);
void on_restore(struct engine *g, struct req *r);
bool restore_refused(struct engine *g, struct req *r, const struct s3c_error *e);

#endif
