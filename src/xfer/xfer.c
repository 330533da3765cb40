/*
 * The engine. Four steps a turn, as curl's parallel loop: fill (start
 * requests up to the cap), step (poll and perform), drain (judge what
 * finished: next part, retry later, or fail the object), adapt (the cap).
 *
 * An object's state moves forward in one function per kind of request
 * (on_put, on_part, ...); a request's failure goes through req_fail(),
 * which either schedules a retry (same request, re-signed, re-read from
 * the source) or fails the whole object. Objects finish in obj_finish(),
 * which alone calls the done callback and releases the object.
 */
#include "xfer/xfer.h"

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "base/crc.h"
#include "base/hash.h"
#include "base/str.h"
#include "s3/xml.h"
#include "store/store_fs.h"
#include "xfer/del.h"
#include "xfer/journal.h"
#include "xfer/land.h"

#define SMALL_BODY_MAX ((uint64_t)64 << 10)    /* read whole, send with Content-MD5 */
#define LAND_THREADS 4                          /* workers creating small downloaded files */
#define LAND_BACKLOG_MAX 256                    /* small bodies waiting for them (16 MiB) */
#define DEFAULT_THRESHOLD ((uint64_t)8 << 20)
#define START_CONCURRENCY 64
#define DEFAULT_MAX_CONCURRENCY 512
#define ADAPT_WINDOW_MIN_MS 50
#define ADAPT_WINDOW_MAX_MS 500
#define REPLY_BODY_MAX ((size_t)4 << 20)
#define DELETE_BATCHES_INFLIGHT 8               /* DeleteObjects requests in flight at once */
#define DELETE_OPEN_MAX 16                      /* buckets with a batch being filled */
#define DELETE_BODY_MAX ((size_t)8 << 20)       /* 1,000 keys of 1 KiB, escaped */

static volatile sig_atomic_t cancel_requested;

void xfer_cancel(void)
{
    cancel_requested = 1;
}

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
};

enum obj_phase {
    PH_SINGLE,          /* one request */
    PH_PROBE,           /* ranged download: learning how to verify it (HEADs) */
    PH_CREATE,          /* waiting for the upload id */
    PH_PARTS,           /* parts being sent */
    PH_COMPLETE,        /* CompleteMultipartUpload in flight */
    PH_ABORT,           /* failed; aborting the multipart upload */
    PH_VERIFY,          /* ranged download: every part in, the in-order MD5 still catching up */
    PH_LAND,            /* small download: a worker puts it on disk */
    PH_END,             /* no more requests: finish when none is in flight */
};

/* One part of a stdout object in memory (allocated once, at the part size). */
struct win_slot {
    char *data;
    uint64_t len;
    uint64_t crc;                   /* DL_CRC: the stored checksum's CRC of these bytes */
    bool full;                      /* holds a whole part, not yet written */
};

/* How a ranged download is checked once every part is in. */
enum dl_check {
    DL_SIZE,            /* by size only: the store gives no way (said in --debug) */
    DL_CRC,             /* the store's full-object CRC, combined from per-part CRCs */
    DL_PARTS,           /* md5 of the part MD5s against the "hex-N" ETag; ranges = the upload's parts */
    DL_SEQ,             /* MD5 of the whole, in order, against a single-part ETag */
};

#define SEQ_BUF_BYTES ((size_t)256 << 10)
#define SEQ_TURN_BYTES ((uint64_t)16 << 20)    /* re-read at most this much per loop turn */

/* The stored full-object checksums a download can be checked against. */
enum ck_algo { CK_CRC64NVME, CK_CRC32C, CK_CRC32 };

struct xfer_obj_state {
    struct xfer_obj *o;
    enum obj_phase phase;
    int fd;                         /* upload source or download temp file; -1 */
    struct buf tmp_path;            /* download temp file */
    uint64_t size;
    uint64_t part_size;
    uint32_t n_parts;               /* 0: single request */
    uint32_t next_part;             /* next part number to start, 1-based */
    uint32_t parts_done;
    uint8_t *have;                  /* --resume: parts already in the store, checked; NULL */
    int64_t src_mtime;              /* upload source's mtime (journal) */
    uint32_t list_marker;           /* --resume: ListParts page marker */
    int reqs;                       /* requests in flight or waiting to retry */
    char *upload_id;
    char (*etags)[72];              /* per part, as the store returned them */
    unsigned char (*md5s)[MD5_LEN]; /* per part, as we sent them */
    bool failed;
    struct s3c_error err;
    /* stdin/stdout objects: read or written in order, never seeked. */
    bool stream;
    bool eof;                       /* stdin: all of it has been read */
    bool grow;                      /* stdin: no expected size, so parts grow (xfer_stream_part_size) */
    struct buf pending;             /* stdin: the next part, filled as stdin gives it */
    struct buf spare[16];           /* stdin: buffers of parts sent, for the next parts (no fresh pages) */
    int n_spare;
    uint64_t streamed;              /* stdout: bytes written so far */
    struct hash_ctx *stream_md5;    /* stdout: MD5 of the whole object */
    bool reader_gone;               /* stdout: its reader closed it (EPIPE): end quietly */
    bool small_dl;                  /* a small download: body in memory, landed by a worker */
    struct land_job land;           /* small_dl: the write to disk, once verified */
    /* stdout in ranges: part n lands in win[(n - 1) % win_k] and is written
     * once every part before it has been; memory is win_k parts. */
    struct win_slot *win;
    uint32_t win_k;
    uint32_t win_head;              /* the next part to write, 1-based */
    bool md5_hidden;                /* a reply named SSE-KMS or SSE-C: the ETag is no MD5 */
    uint64_t stream_crc;            /* DL_CRC: of the bytes written so far */
    /* Multipart copy with the COPY directive: the source's headers, which
     * CreateMultipartUpload must carry (UploadPartCopy copies bytes only). */
    struct buf src_headers;         /* "name\0value\0" pairs */
    /* Ranged downloads: the check of the whole (md5s above hold DL_PARTS digests). */
    enum dl_check check;
    enum ck_algo ck_algo;           /* DL_CRC */
    uint64_t ck_want;               /* DL_CRC: the store's value */
    uint64_t *part_crcs;            /* DL_CRC: per part, combined at the end */
    char etag_hex[33];              /* DL_PARTS: the ETag's md5 of part md5s */
    uint32_t etag_parts;            /* DL_PARTS: the ETag's part count */
    bool layout_guessed;            /* DL_PARTS: the store did not say its part size */
    bool have_prev;                 /* prev_digest holds the previous download's */
    unsigned char prev_digest[MD5_LEN];
    int attempts;                   /* whole-object downloads after a mismatch */
    bool mpu_crc;                   /* upload created with CRC64NVME: each part carries one (part_crcs), Complete lists them */
    /* DL_SEQ: the MD5 of the whole in key order: fed live by the range at the
     * frontier, else re-read from the temp file once the parts there are in. */
    struct hash_ctx *seq_md5;
    uint64_t seq_off;               /* bytes hashed so far */
    uint64_t seq_reread;            /* of which re-read from the file */
    unsigned char *part_in;         /* per part: 1 when all its bytes are on disk */
    bool seq_queued;                /* on the engine's seq_work list */
    struct xfer_obj_state *seq_next;
    /* --resume of a ranged download: 'have' flags the parts complete in the temp
     * file; the journal records them once the file is synced (dl_journal_flush). */
    struct journal_download *dj;    /* this download's record; NULL: not journaled */
    bool dj_resumed;                /* dj->done is an earlier run's: trust it after dl_resume_apply */
    bool dj_dirty;                  /* parts completed since the record was written */
    int64_t dj_saved_ms;            /* when it was written */
    /* Parts taken from an earlier run are re-read into the whole-object check
     * a slice per loop step (dl_rehash_step), while the missing ones download. */
    uint8_t *resumed;               /* per part: taken from the earlier run; NULL: none */
    uint32_t rehash_part;           /* the part being re-read, 1-based; 0: none left */
    uint64_t rehash_at;             /* bytes of it read so far */
    struct hash_ctx *rehash_md5;    /* DL_PARTS: its MD5 so far */
    uint64_t rehash_crc;            /* DL_CRC: its CRC so far */
    struct xfer_obj_state *rehash_next; /* in the engine's rehash list */
    struct xfer_obj_state *next;    /* in the engine's active list */
};

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
    struct hash_ctx *md5;           /* of the bytes sent or received */
    uint64_t hashed;                /* bytes fed to md5 so far (in order) */
    uint64_t got;                   /* download bytes written */
    uint64_t crc;                   /* DL_CRC: CRC of the bytes written */
    uint64_t mem_crc;               /* CRC64NVME of a memory body (hdr_crc64) */
    bool flex;                      /* sent a flexible checksum the store may refuse (trailer, declared algorithm) */
    bool flex_wait;                 /* held until the probe says whether the store takes trailers */
    struct buf mem;                 /* small upload body / request XML */
    struct buf query;
    char hdr_md5[32];               /* Content-MD5 of a memory body */
    unsigned char mem_md5[MD5_LEN]; /* the same, raw (mem_digests) */
    bool sent_mem;                  /* this exchange sent 'mem': its MD5 is mem_md5 */
    char hdr_crc64[24];             /* x-amz-checksum-crc64nvme of a memory body, or "" */
    char hdr_range[80];
    struct buf hdr_copy_src;
    struct s3_sse_c ssec, ssec_src; /* SSE-C headers of the object and of a copy's source */
    struct s3c_error local_err;     /* a local failure during the exchange (disk full...) */
    bool local_failed;
    struct req *next;               /* done list or retry list */
};

struct engine {
    struct store_s3 *s3;
    struct http_loop *loop;
    struct xfer_opts opts;
    struct xfer_stats stats;
    struct xfer_obj_state *active;  /* objects with parts still to start */
    struct req *done;               /* finished exchanges, to judge */
    struct req *retry;              /* waiting for their backoff */
    struct req *free_reqs;          /* reusable */
    struct land *land;              /* workers that put small downloads on disk; NULL */
    int landing;                    /* small downloads queued to them */
    int inflight;
    int cap;                        /* requests in flight allowed now */
    int fd_cap;                     /* most requests in flight the open-files limit allows */
    bool source_done;
    int n_objects;                  /* started and not finished */
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
    uint64_t window_live_start;     /* bytes_live when the window began */
    bool slow_start;                /* still doubling the cap */
    double bw_tokens;               /* --bwlimit: bytes that may move now */
    int64_t bw_last_ms;
    bool bw_paused;                 /* some transfer waits for tokens */
    bool stdin_wait;                /* a stdin part waits for more input: wake on stdin too */
    enum s3c_err first_error;
    /* Deletes: batched per bucket (xfer/del.h), several batches in flight. */
    struct xfer_del_queue del;
    int del_sending;                /* batches in flight or waiting to retry */
    int n_deletes;                  /* delete objects started and not finished */
    bool source_wait;               /* the source said WAIT: ask again after the next done */
    bool no_part_number;            /* the store ignores ?partNumber= (Ceph 16) */
    bool no_trailers;               /* the store keeps no flexible checksums (Ceph 16): none from now on */
    bool flex_known;                /* ... or it does: an answer echoed one */
    struct req *flex_probe;         /* the one streamed body with a trailer while that is unknown */
    struct xfer_obj_state *seq_work; /* DL_SEQ objects with parts on disk not yet hashed */
    char *seq_buf;                  /* SEQ_BUF_BYTES, for those re-reads */
    bool any_ok;                    /* some request of the run succeeded */
    bool stop;                      /* a run-wide error: start nothing more (see run_wide_error) */
    struct s3c_error stop_err;      /* that error, as reported for the object that met it */
    struct xfer_obj_state *rehash;  /* downloads with resumed parts still to re-read (dl_rehash_step) */
    char *rehash_buf;               /* DL_REHASH_STEP bytes, allocated on first use */
};

/* SIGINT/SIGTERM, or a run-wide error: finish what is in flight as cancelled. */
static bool stopping(const struct engine *g)
{
    return cancel_requested || g->stop;
}

/* Flexible checksums on streamed bodies and multipart uploads: allowed by the
 * configuration (request_checksum_calculation) and not refused by the store. */
static bool flex_ok(const struct engine *g)
{
    return g->opts.flexible_checksums && !g->no_trailers;
}

static int64_t now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void xdebug(struct engine *g, const struct xfer_obj *o, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void xdebug(struct engine *g, const struct xfer_obj *o, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;

    if (!store_s3_debug_on(g->s3))
        return;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    store_s3_debugf(g->s3, "xfer: s3://%s/%s: %s", o->src_bucket ? o->src_bucket : o->dst_bucket,
                    o->src_bucket ? o->src : o->dst, msg);
}

/* ---- stored checksums -------------------------------------------------------- */

static const char *ck_name(enum ck_algo a)
{
    return a == CK_CRC64NVME ? "CRC64NVME" : a == CK_CRC32C ? "CRC32C" : "CRC32";
}

static uint64_t ck_update(enum ck_algo a, uint64_t crc, const void *p, size_t n)
{
    switch (a) {
    case CK_CRC64NVME: return crc_crc64nvme_update(crc, p, n);
    case CK_CRC32C: return crc_crc32c_update((uint32_t)crc, p, n);
    case CK_CRC32: return crc_crc32_update((uint32_t)crc, p, n);
    }
    return 0;
}

static uint64_t ck_combine(enum ck_algo a, uint64_t x, uint64_t y, uint64_t len_y)
{
    switch (a) {
    case CK_CRC64NVME: return crc_crc64nvme_combine(x, y, len_y);
    case CK_CRC32C: return crc_crc32c_combine((uint32_t)x, (uint32_t)y, len_y);
    case CK_CRC32: return crc_crc32_combine((uint32_t)x, (uint32_t)y, len_y);
    }
    return 0;
}

/* S3's wire form of a value (base64 of its big-endian bytes) into 'out'. */
static void ck_b64(enum ck_algo a, uint64_t v, char out[24])
{
    struct buf b = BUF_INIT(32);

    if (a == CK_CRC64NVME)
        crc_b64_64(v, &b);
    else
        crc_b64_32((uint32_t)v, &b);
    str_copy(out, 24, buf_cstr(&b));
    buf_release(&b);
}

/*
 * The full-object checksum a reply with x-amz-checksum-mode: ENABLED carries,
 * if any: CRC64NVME, CRC32C or CRC32 of type FULL_OBJECT (COMPOSITE values,
 * "...-N", are checksums of part checksums: not usable over our own ranges).
 */
static bool stored_checksum(const struct http_resp *resp, enum ck_algo *algo, uint64_t *value)
{
    static const struct {
        const char *header;
        enum ck_algo algo;
        size_t bytes;
    } known[] = {
        { "x-amz-checksum-crc64nvme", CK_CRC64NVME, 8 },
        { "x-amz-checksum-crc32c", CK_CRC32C, 4 },
        { "x-amz-checksum-crc32", CK_CRC32, 4 },
    };
    struct sv type, v;
    size_t i, j;

    if (http_resp_header(resp, "x-amz-checksum-type", &type) && !sv_ieqs(type, "FULL_OBJECT"))
        return false;
    for (i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
        struct buf raw = BUF_INIT(64);
        bool ok;

        if (!http_resp_header(resp, known[i].header, &v) || memchr(v.p, '-', v.n))
            continue;
        ok = !base64_decode(v, &raw) && raw.len == known[i].bytes;
        if (ok) {
            *algo = known[i].algo;
            *value = 0;
            for (j = 0; j < raw.len; j++)
                *value = *value << 8 | (unsigned char)raw.data[j];
        }
        buf_release(&raw);
        if (ok)
            return true;
    }
    return false;
}

/* ---- objects ---------------------------------------------------------------- */

struct xfer_obj *xfer_obj_new(enum xfer_op op)
{
    struct xfer_obj *o = calloc(1, sizeof(*o));

    if (o) {
        o->op = op;
        o->mtime = -1;
    }
    return o;
}

void xfer_obj_free(struct xfer_obj *o)
{
    if (!o)
        return;
    free(o->src);
    free(o->src_bucket);
    free(o->dst);
    free(o->dst_bucket);
    free(o->etag);
    free(o->version_id);
    free(o);
}

static void obj_state_free(struct xfer_obj_state *os)
{
    uint32_t i;

    if (os->fd >= 0 && !os->stream)
        close(os->fd);
    for (i = 0; os->win && i < os->win_k; i++)
        free(os->win[i].data);
    free(os->win);
    buf_release(&os->pending);
    while (os->n_spare > 0)
        buf_release(&os->spare[--os->n_spare]);
    buf_release(&os->src_headers);
    hash_free(os->stream_md5);
    free(os->part_crcs);
    hash_free(os->seq_md5);
    free(os->part_in);
    buf_release(&os->tmp_path);
    buf_release(&os->land.body);
    if (os->dj)
        journal_download_release(os->dj);
    free(os->dj);
    free(os->resumed);
    hash_free(os->rehash_md5);
    free(os->upload_id);
    free(os->have);
    free(os->etags);
    free(os->md5s);
    free(os);
}

static void seq_remove(struct engine *g, struct xfer_obj_state *os)
{
    struct xfer_obj_state **pp;

    if (!os->seq_queued)
        return;
    for (pp = &g->seq_work; *pp; pp = &(*pp)->seq_next) {
        if (*pp == os) {
            *pp = os->seq_next;
            break;
        }
    }
    os->seq_next = NULL;
    os->seq_queued = false;
}

static void seq_queue(struct engine *g, struct xfer_obj_state *os)
{
    if (os->seq_queued)
        return;
    os->seq_queued = true;
    os->seq_next = g->seq_work;
    g->seq_work = os;
}

static void dl_journal_drop(struct engine *g, struct xfer_obj_state *os);
static bool dl_keep_for_resume(struct engine *g, struct xfer_obj_state *os);

/* Take 'os' off the engine's rehash list (if it is there). */
static void rehash_remove(struct engine *g, struct xfer_obj_state *os)
{
    struct xfer_obj_state **pp;

    for (pp = &g->rehash; *pp; pp = &(*pp)->rehash_next) {
        if (*pp == os) {
            *pp = os->rehash_next;
            os->rehash_next = NULL;
            return;
        }
    }
}

/* The only place an object ends: temp files go or get their name, the caller hears. */
static void obj_finish(struct engine *g, struct xfer_obj_state *os)
{
    struct xfer_obj *o = os->o;

    rehash_remove(g, os);
    if (os->failed && os->reader_gone) {
        /* stdout's reader left (`s3c cat k | head`): it took what it wanted;
         * not a failure of ours (exit 0, as s5cmd). */
        os->failed = false;
    }
    if (os->stream || os->small_dl) {
        /* stdin/stdout, or a small download a worker landed (or never began):
         * no file of ours to keep or remove. */
    } else if (!os->failed && o->op == XFER_DOWNLOAD) {
        enum s3c_err rc = fs_tmp_commit(os->fd, buf_cstr(&os->tmp_path), o->dst, o->mtime, &os->err);
        os->fd = -1;
        if (rc)
            os->failed = true;
        dl_journal_drop(g, os);
    } else if (o->op == XFER_DOWNLOAD && dl_keep_for_resume(g, os)) {
        close(os->fd); /* the temp file stays, named in the journal, for the next --resume */
        os->fd = -1;
    } else if (o->op == XFER_DOWNLOAD) {
        fs_tmp_abort(os->fd, buf_cstr(&os->tmp_path));
        os->fd = -1;
        dl_journal_drop(g, os);
    }
    if (os->failed) {
        g->stats.objects_failed++;
        if (!g->first_error)
            g->first_error = os->err.code ? os->err.code : S3C_EINTERNAL;
    } else {
        g->stats.objects_ok++;
    }
    seq_remove(g, os);
    g->n_objects--;
    if (o->op == XFER_DELETE)
        g->n_deletes--;
    g->source_wait = false; /* a done may let the source produce more */
    if (g->opts.done)
        g->opts.done(g->opts.done_ctx, o, os->failed ? &os->err : NULL);
    o->st = NULL;
    obj_state_free(os);
    xfer_obj_free(o);
}

static void active_remove(struct engine *g, struct xfer_obj_state *os)
{
    struct xfer_obj_state **pp;

    for (pp = &g->active; *pp; pp = &(*pp)->next) {
        if (*pp == os) {
            *pp = os->next;
            os->next = NULL;
            return;
        }
    }
}

/* ---- requests: building ------------------------------------------------------- */

static struct req *req_get(struct engine *g, struct xfer_obj_state *os, enum req_kind kind)
{
    struct req *r = g->free_reqs;

    if (r) {
        g->free_reqs = r->next;
    } else {
        r = calloc(1, sizeof(*r));
        if (!r)
            return NULL;
        r->call = (struct store_s3_call)STORE_S3_CALL_INIT;
        r->mem = (struct buf)BUF_INIT((size_t)SMALL_BODY_MAX + (1 << 20));
        r->query = (struct buf)BUF_INIT(4096);
        r->hdr_copy_src = (struct buf)BUF_INIT(8192);
    }
    r->eng = g;
    r->os = os;
    r->kind = kind;
    r->part = 0;
    r->off = r->len = 0;
    r->attempt = 0;
    r->got = r->hashed = 0;
    r->local_failed = false;
    r->next = NULL;
    buf_reset(&r->mem);
    buf_reset(&r->query);
    buf_reset(&r->hdr_copy_src);
    r->hdr_md5[0] = r->hdr_range[0] = r->hdr_crc64[0] = '\0';
    r->flex_wait = false;
    s3c_error_clear(&r->local_err);
    os->reqs++;
    return r;
}

static void flex_release(struct engine *g);

static void req_put_back(struct engine *g, struct req *r)
{
    if (r == g->flex_probe)
        flex_release(g); /* its object ended another way: others may ask next */
    r->os->reqs--;
    http_xfer_release(&r->http);
    memset(&r->http, 0, sizeof(r->http));
    if (r->mem.cap > (1u << 20))
        buf_release(&r->mem);
    r->next = g->free_reqs;
    g->free_reqs = r;
}

/* --bwlimit: a token bucket of bytes; callbacks pause when it is empty. */
static bool bw_take(struct engine *g, size_t *n)
{
    if (!g->opts.bwlimit_bytes_s)
        return true;
    if (g->bw_tokens <= 0) {
        g->bw_paused = true;
        return false;
    }
    if ((double)*n > g->bw_tokens)
        *n = (size_t)g->bw_tokens > 0 ? (size_t)g->bw_tokens : 1;
    g->bw_tokens -= (double)*n;
    return true;
}

static void bw_refill(struct engine *g, int64_t now)
{
    double rate = (double)g->opts.bwlimit_bytes_s, burst = rate / 20 > 65536 ? rate / 20 : 65536;

    if (!g->opts.bwlimit_bytes_s)
        return;
    g->bw_tokens += rate * (double)(now - g->bw_last_ms) / 1000.0;
    if (g->bw_tokens > burst)
        g->bw_tokens = burst;
    g->bw_last_ms = now;
    if (g->bw_paused && g->bw_tokens > 0) {
        g->bw_paused = false;
        http_loop_resume(g->loop);
    }
}

static ssize_t read_src(void *ctx, char *dst, size_t n, uint64_t offset)
{
    struct req *r = ctx;
    ssize_t got;

    if (!bw_take(r->eng, &n))
        return HTTP_READ_PAUSE;
    do
        got = pread(r->os->fd, dst, n, (off_t)(r->off + offset));
    while (got < 0 && errno == EINTR);
    if (got <= 0) {
        r->local_failed = true;
        if (got < 0)
            s3c_fail_errno(&r->local_err, errno, "cannot read %s", r->os->o->src);
        else
            s3c_fail(&r->local_err, S3C_EIO, "%s shrank while it was read", r->os->o->src);
        return -1;
    }
    /* Hash in order; a rewind (curl resending) restarts the hash. */
    if (offset == 0 && r->hashed) {
        hash_reset(r->md5);
        r->hashed = 0;
    }
    if (offset == r->hashed) {
        hash_update(r->md5, dst, (size_t)got);
        r->hashed += (uint64_t)got;
    }
    r->eng->stats.bytes_live += (uint64_t)got;
    return got;
}

/* Write all of 'p' to stdout. EPIPE (the reader left, as `| head` does) is
 * remembered: the object then ends quietly. */
static bool stdout_write(struct xfer_obj_state *os, const char *p, size_t n, struct s3c_error *e)
{
    while (n) {
        ssize_t w = write(os->fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            if (w < 0 && errno == EPIPE)
                os->reader_gone = true;
            s3c_fail_errno(e, w < 0 ? errno : EIO, "cannot write to standard output");
            return false;
        }
        p += w;
        n -= (size_t)w;
    }
    return true;
}

static enum http_sink_verdict write_dst(void *ctx, const char *p, size_t n)
{
    struct req *r = ctx;
    size_t allowed = n;

    if (r->os->stream && r->os->failed)
        return HTTP_SINK_ABORT; /* stdout closed or the object failed: stop fetching */
    if (r->eng->opts.bwlimit_bytes_s) {
        /* Writes take the whole chunk or pause: curl hands the same chunk again. */
        if (!bw_take(r->eng, &allowed))
            return HTTP_SINK_PAUSE;
        r->eng->bw_tokens -= (double)(n - allowed);
    }
    if (r->got + n > r->len) {
        r->local_failed = true;
        s3c_fail(&r->local_err, S3C_EHTTP, "the store sent more bytes than asked for");
        return HTTP_SINK_ABORT;
    }
    if (r->os->win) {
        /* Within the slot: r->got + n <= r->len <= part size, checked above. */
        struct win_slot *slot = &r->os->win[(r->part - 1) % r->os->win_k];
        memcpy(slot->data + r->got, p, n);
        slot->len = r->got + n;
    } else if (r->os->stream) {
        if (!stdout_write(r->os, p, n, &r->local_err)) {
            r->local_failed = true;
            return HTTP_SINK_ABORT;
        }
        hash_update(r->os->stream_md5, p, n);
        r->os->streamed += n;
    } else if (r->os->small_dl) {
        if (r->got == 0)
            buf_reset(&r->mem); /* a retry starts again */
        if (buf_add(&r->mem, p, n)) {
            r->local_failed = true;
            s3c_fail(&r->local_err, S3C_ENOMEM, "out of memory");
            return HTTP_SINK_ABORT;
        }
    } else if (fs_pwrite_all(r->os->fd, p, n, r->off + r->got, r->os->o->dst, &r->local_err)) {
        r->local_failed = true;
        return HTTP_SINK_ABORT;
    }
    /* Per-request MD5: what a whole GET is checked by; ranges need it only as parts
     * (stdout ranges have the stream's own check, stdout_verify). */
    if (!r->os->win && (!r->os->n_parts || r->os->check == DL_PARTS))
        hash_update(r->md5, p, n);
    if (r->os->check == DL_CRC)
        r->crc = ck_update(r->os->ck_algo, r->crc, p, n);
    else if (r->os->check == DL_SEQ && r->off + r->got == r->os->seq_off) {
        hash_update(r->os->seq_md5, p, n); /* this range is at the frontier: no re-read */
        r->os->seq_off += n;
    }
    r->got += n;
    r->eng->stats.bytes_live += n;
    return HTTP_SINK_OK;
}

static void add_obj_headers(struct req *r, struct s3_req *q, bool for_create)
{
    const struct xfer_obj_opts *oo = r->os->o->opts;
    const char *ct;
    int i;

    if (!oo)
        oo = &(const struct xfer_obj_opts){ 0 };
    if (r->os->o->op == XFER_UPLOAD) {
        ct = oo->content_type ? oo->content_type
                              : oo->no_guess_mime ? NULL : xfer_guess_mime(r->os->o->src);
        if (ct)
            s3_req_header(q, "Content-Type", ct);
    } else if (oo->content_type) {
        s3_req_header(q, "Content-Type", oo->content_type);
    }
    {
        const struct {
            const char *name, *value;
        } std[] = {
            { "Cache-Control", oo->cache_control },
            { "Content-Encoding", oo->content_encoding },
            { "Content-Disposition", oo->content_disposition },
            { "Content-Language", oo->content_language },
            { "Expires", oo->expires },
            { "x-amz-storage-class", oo->storage_class },
            { "x-amz-acl", oo->acl },
            { "x-amz-server-side-encryption", oo->sse },
            { "x-amz-server-side-encryption-aws-kms-key-id", oo->sse_kms_key_id },
        };
        for (i = 0; i < (int)(sizeof(std) / sizeof(std[0])); i++)
            if (std[i].value)
                s3_req_header(q, std[i].name, std[i].value);
    }
    for (i = 0; i < oo->n_metadata && q->n_headers < S3_REQ_MAX_HEADERS - 4; i++)
        s3_req_header(q, oo->metadata[i][0], oo->metadata[i][1]);
    if (oo->no_overwrite && !for_create)
        s3_req_header(q, "If-None-Match", "*");
}

/*
 * SSE-C: the object's key goes with every request that writes or reads its
 * bytes (S3 wants it on parts, and s3transfer sends it on Complete too); a
 * copy's source key goes as x-amz-copy-source-..., or plain on the HEAD of
 * that source.
 */
static enum s3c_err add_sse_c(struct req *r, struct s3_req *q, const struct xfer_obj_opts *oo,
                              struct s3c_error *e)
{
    bool copy = r->os->o->op == XFER_COPY, own, src;
    enum s3c_err rc;

    switch (r->kind) {
    case RK_PUT: case RK_CREATE: case RK_PART: case RK_COMPLETE: case RK_GET:
    case RK_HEAD_INFO: case RK_HEAD_PART1:
        own = true, src = false;
        break;
    case RK_COPY: case RK_COPY_PART:
        own = src = true;
        break;
    case RK_HEAD_SRC:
        own = false, src = true;
        break;
    default:
        own = src = false;
        break;
    }
    if (own && oo->sse_c_key) {
        if ((rc = s3_sse_c_init(&r->ssec, oo->sse_c, oo->sse_c_key, e)))
            return rc;
        s3_req_sse_c(q, &r->ssec, false);
    }
    if (src && copy && oo->sse_c_copy_source_key) {
        if ((rc = s3_sse_c_init(&r->ssec_src, oo->sse_c_copy_source, oo->sse_c_copy_source_key, e)))
            return rc;
        s3_req_sse_c(q, &r->ssec_src, r->kind != RK_HEAD_SRC);
    }
    return S3C_OK;
}

/* Describe request 'r' as an S3 request and hand it to the loop. */
static void on_http_done(struct http_xfer *x, void *ctx);
static void dl_verify(struct engine *g, struct xfer_obj_state *os);
static void on_head_info(struct engine *g, struct req *r);
static void on_head_part1(struct engine *g, struct req *r, bool ok);
static void submit_or_fail(struct engine *g, struct req *r);
static void plan_parts(struct engine *g, struct xfer_obj_state *os);
static bool small_multipart(const struct xfer_obj *o);
static const char *req_op_name(enum req_kind k);
static void obj_fail(struct engine *g, struct xfer_obj_state *os, const struct s3c_error *e);
static void maybe_finish(struct engine *g, struct xfer_obj_state *os);

static enum s3c_err req_submit(struct engine *g, struct req *r, struct s3c_error *e)
{
    struct xfer_obj_state *os = r->os;
    struct xfer_obj *o = os->o;
    struct s3_req q;
    const struct xfer_obj_opts *oo = o->opts;
    char num[32];
    enum s3c_err rc = S3C_OK;

    memset(&q, 0, sizeof(q));
    buf_reset(&r->query);
    /* One MD5 context per request slot, reset for each exchange. */
    if (!r->md5)
        r->md5 = hash_md5_new();
    else
        hash_reset(r->md5);
    if (!r->md5)
        return s3c_fail(e, S3C_ENOMEM, "out of memory");
    r->hashed = r->got = r->crc = 0;
    r->sent_mem = false;
    r->local_failed = false;
    r->flex = false;
    http_xfer_release(&r->http); /* a retry's previous reply */
    memset(&r->http, 0, sizeof(r->http));
    r->http.body_max = REPLY_BODY_MAX;
    /* An interrupt stops every request but these: a Create may have made its
     * upload already (let it answer, so the upload can be aborted: see
     * abort_late_upload), and an Abort is the clean-up itself. */
    r->http.keep_on_cancel = r->kind == RK_CREATE || r->kind == RK_ABORT;
    if (oo && oo->request_payer)
        s3_req_header(&q, "x-amz-request-payer", oo->request_payer);

    switch (r->kind) {
    case RK_PUT:
        q.method = "PUT";
        q.bucket = o->dst_bucket;
        q.key = o->dst;
        add_obj_headers(r, &q, false);
        if (r->mem.len || r->len == 0) {
            q.body = r->mem.data;
            q.body_len = r->mem.len;
            s3_req_header(&q, "Content-MD5", r->hdr_md5);
            if (r->hdr_crc64[0])
                s3_req_header(&q, "x-amz-checksum-crc64nvme", r->hdr_crc64);
            r->sent_mem = true;
            r->hashed = r->mem.len;
            g->stats.bytes_live += r->mem.len;
        } else {
            q.read = read_src;
            q.read_ctx = r;
            q.read_len = r->len;
            q.trailer_crc64 = r->flex = flex_ok(g); /* the store checks a CRC64NVME trailer */
        }
        break;
    case RK_CREATE:
        q.method = "POST";
        q.bucket = o->dst_bucket;
        q.key = o->dst;
        q.query = "uploads=";
        if (o->op == XFER_COPY && !(oo && oo->metadata_directive && !strcmp(oo->metadata_directive, "REPLACE"))) {
            const char *p = os->src_headers.data, *end = p + os->src_headers.len;
            while (p && p < end && q.n_headers < S3_REQ_MAX_HEADERS - 8) {
                const char *v = p + strlen(p) + 1;
                s3_req_header(&q, p, v);
                p = v + strlen(v) + 1;
            }
            if (oo && oo->storage_class)
                s3_req_header(&q, "x-amz-storage-class", oo->storage_class);
            if (oo && oo->acl)
                s3_req_header(&q, "x-amz-acl", oo->acl);
        } else {
            add_obj_headers(r, &q, true);
            if (o->op == XFER_UPLOAD && flex_ok(g) &&
                (os->part_crcs || (os->part_crcs = calloc(os->stream ? S3_MAX_PARTS : os->n_parts,
                                                          sizeof(*os->part_crcs))))) {
                /* Every part then carries its CRC64NVME and S3 keeps the whole object's. */
                s3_req_header(&q, "x-amz-checksum-algorithm", "CRC64NVME");
                s3_req_header(&q, "x-amz-checksum-type", "FULL_OBJECT");
                os->mpu_crc = r->flex = true;
            }
        }
        break;
    case RK_HEAD_SRC:
        q.method = "HEAD";
        q.bucket = o->src_bucket;
        q.key = o->src;
        break;
    case RK_HEAD_DST:
        q.method = "HEAD";
        q.bucket = o->dst_bucket;
        q.key = o->dst;
        break;
    case RK_HEAD_INFO:
    case RK_HEAD_PART1:
        q.method = "HEAD";
        q.bucket = o->src_bucket;
        q.key = o->src;
        if (r->kind == RK_HEAD_PART1)
            q.query = "partNumber=1";
        else
            s3_req_header(&q, "x-amz-checksum-mode", "ENABLED");
        if (o->etag && o->etag[0])
            s3_req_header(&q, "If-Match", o->etag);
        break;
    case RK_PART:
    case RK_COPY_PART:
        q.method = "PUT";
        q.bucket = o->dst_bucket;
        q.key = o->dst;
        snprintf(num, sizeof(num), "%" PRIu32, r->part);
        rc = s3_query_add(&r->query, "partNumber", num);
        if (!rc)
            rc = s3_query_add(&r->query, "uploadId", os->upload_id);
        q.query = buf_cstr(&r->query);
        if (r->kind == RK_PART && r->mem.len) {
            /* A stdin part: sent from memory, with Content-MD5. */
            q.body = r->mem.data;
            q.body_len = r->mem.len;
            s3_req_header(&q, "Content-MD5", r->hdr_md5);
            if (os->mpu_crc && r->hdr_crc64[0])
                s3_req_header(&q, "x-amz-checksum-crc64nvme", r->hdr_crc64);
            r->sent_mem = true;
            r->hashed = r->mem.len;
            g->stats.bytes_live += r->mem.len;
        } else if (r->kind == RK_PART) {
            q.read = read_src;
            q.read_ctx = r;
            q.read_len = r->len;
            q.trailer_crc64 = r->flex = os->mpu_crc && flex_ok(g);
        } else {
            s3_req_header(&q, "x-amz-copy-source", buf_cstr(&r->hdr_copy_src));
            snprintf(r->hdr_range, sizeof(r->hdr_range), "bytes=%" PRIu64 "-%" PRIu64, r->off,
                     r->off + r->len - 1);
            s3_req_header(&q, "x-amz-copy-source-range", r->hdr_range);
        }
        break;
    case RK_COMPLETE:
        q.method = "POST";
        q.bucket = o->dst_bucket;
        q.key = o->dst;
        rc = s3_query_add(&r->query, "uploadId", os->upload_id);
        q.query = buf_cstr(&r->query);
        q.body = r->mem.data;
        q.body_len = r->mem.len;
        s3_req_header(&q, "Content-Type", "application/xml");
        if (oo && oo->no_overwrite)
            s3_req_header(&q, "If-None-Match", "*");
        break;
    case RK_ABORT:
        q.method = "DELETE";
        q.bucket = o->dst_bucket;
        q.key = o->dst;
        rc = s3_query_add(&r->query, "uploadId", os->upload_id);
        q.query = buf_cstr(&r->query);
        break;
    case RK_LIST_PARTS:
        q.method = "GET";
        q.bucket = o->dst_bucket;
        q.key = o->dst;
        snprintf(num, sizeof(num), "%" PRIu32, os->list_marker);
        rc = s3_query_add(&r->query, "part-number-marker", num);
        if (!rc)
            rc = s3_query_add(&r->query, "uploadId", os->upload_id);
        q.query = buf_cstr(&r->query);
        break;
    case RK_GET:
        q.method = "GET";
        q.bucket = o->src_bucket;
        q.key = o->src;
        if (os->win) {
            /* A retry fetches its range again from the start, into the same slot. */
            struct win_slot *slot = &os->win[(r->part - 1) % os->win_k];
            if (!slot->data && !(slot->data = malloc((size_t)os->part_size)))
                return s3c_fail(e, S3C_ENOMEM, "out of memory for a part of the object");
            slot->len = 0;
        }
        if (os->stream && !os->win && os->streamed) {
            /* stdout: a retry resumes after the bytes already written. */
            r->off = os->streamed;
            r->len = os->size - os->streamed;
            snprintf(r->hdr_range, sizeof(r->hdr_range), "bytes=%" PRIu64 "-", r->off);
            s3_req_header(&q, "Range", r->hdr_range);
            if (o->etag && o->etag[0])
                s3_req_header(&q, "If-Match", o->etag);
        } else if (os->n_parts) {
            snprintf(r->hdr_range, sizeof(r->hdr_range), "bytes=%" PRIu64 "-%" PRIu64, r->off,
                     r->off + r->len - 1);
            s3_req_header(&q, "Range", r->hdr_range);
            if (o->etag && o->etag[0])
                s3_req_header(&q, "If-Match", o->etag);
        }
        r->http.sink = write_dst;
        r->http.sink_ctx = r;
        break;
    case RK_COPY:
        q.method = "PUT";
        q.bucket = o->dst_bucket;
        q.key = o->dst;
        s3_req_header(&q, "x-amz-copy-source", buf_cstr(&r->hdr_copy_src));
        if (oo && oo->metadata_directive)
            s3_req_header(&q, "x-amz-metadata-directive", oo->metadata_directive);
        if (oo && oo->metadata_directive && !strcmp(oo->metadata_directive, "REPLACE"))
            add_obj_headers(r, &q, false);
        else if (oo && oo->no_overwrite)
            s3_req_header(&q, "If-None-Match", "*");
        break;
    case RK_DELETE:
        q.method = "POST";
        q.bucket = o->src_bucket;
        q.query = "delete=";
        q.body = r->mem.data;
        q.body_len = r->mem.len;
        s3_req_header(&q, "Content-Type", "application/xml");
        /* DeleteObjects requires an integrity header; Content-MD5 is the one every store knows. */
        s3_req_header(&q, "Content-MD5", r->hdr_md5);
        break;
    case RK_DELETE_ONE:
        q.method = "DELETE";
        q.bucket = o->src_bucket;
        q.key = o->src;
        if (o->version_id && o->version_id[0]) {
            rc = s3_query_add(&r->query, "versionId", o->version_id);
            q.query = buf_cstr(&r->query);
        }
        break;
    }
    if (rc)
        return s3c_fail(e, rc, "out of memory");
    if (oo && (rc = add_sse_c(r, &q, oo, e)))
        return rc;
    q.object_data = r->kind == RK_PUT || r->kind == RK_PART;
    rc = store_s3_prepare(g->s3, &q, &r->call, &r->http, e);
    if (rc)
        return rc;
    if (g->opts.bwlimit_bytes_s && r->mem.len && (r->kind == RK_PUT || r->kind == RK_PART))
        g->bw_tokens -= (double)r->mem.len; /* memory bodies do not pass read_src */
    r->http.done = on_http_done;
    r->http.done_ctx = r;
    rc = http_loop_submit(g->loop, &r->http, e);
    if (rc)
        return rc;
    g->inflight++;
    g->stats.requests++;
    return S3C_OK;
}

static void on_http_done(struct http_xfer *x, void *ctx)
{
    struct req *r = ctx;
    struct engine *g = r->eng;

    (void)x;
    g->inflight--;
    r->next = g->done;
    g->done = r;
}

/* ---- failing and retrying ------------------------------------------------------ */

static void del_batch_fail(struct engine *g, struct req *r, const struct s3c_error *e);
static void on_delete_batch(struct engine *g, struct req *r);

static void obj_fail(struct engine *g, struct xfer_obj_state *os, const struct s3c_error *e)
{
    if (!os->failed) {
        os->failed = true;
        os->err = *e;
    }
    active_remove(g, os);
    /* A multipart upload that got an id must be aborted, or its parts stay billed. */
    if (os->upload_id && os->phase != PH_ABORT && os->phase != PH_END) {
        struct req *r = req_get(g, os, RK_ABORT);
        struct s3c_error ae = S3C_ERROR_INIT;

        os->phase = PH_ABORT;
        if (!r || req_submit(g, r, &ae)) {
            if (r)
                req_put_back(g, r);
            os->phase = PH_END;
        }
        return;
    }
    if (os->phase != PH_ABORT)
        os->phase = PH_END;
}

static void maybe_finish(struct engine *g, struct xfer_obj_state *os)
{
    if (os->phase == PH_END && os->reqs == 0)
        obj_finish(g, os);
}

/* A request failed with 'e': retry it after a backoff, or fail its object. */
static void req_fail(struct engine *g, struct req *r, const struct s3c_error *e, bool retryable,
                     long backoff_ms)
{
    struct xfer_obj_state *os = r->os;

    if (retryable && (!stopping(g) || r->kind == RK_ABORT) && (!os->failed || r->kind == RK_ABORT) &&
        r->attempt + 1 < store_s3_max_attempts(g->s3)) {
        r->attempt++;
        g->stats.retries++;
        if (backoff_ms <= 0)
            backoff_ms = 50L << (r->attempt > 6 ? 6 : r->attempt);
        xdebug(g, os->o, "%s: %s; try %d in %ld ms", req_op_name(r->kind), e->msg, r->attempt + 1, backoff_ms);
        r->due_ms = now_ms() + backoff_ms;
        r->next = g->retry;
        g->retry = r;
        return;
    }
    if (r->kind == RK_DELETE) {
        del_batch_fail(g, r, e);
        return;
    }
    if (r->kind == RK_ABORT) {
        /* Nothing more to do for an object that already failed. */
        os->phase = PH_END;
    } else {
        obj_fail(g, os, e);
    }
    req_put_back(g, r);
    maybe_finish(g, os);
}

/* ---- requests: what a success means ---------------------------------------------- */

/* ETags that are a plain MD5 ("hex32") can be checked against what we sent. */
static bool etag_is_md5(struct sv etag, char hex_out[33])
{
    size_t i;

    if (etag.n >= 2 && etag.p[0] == '"' && etag.p[etag.n - 1] == '"') {
        etag.p++;
        etag.n -= 2;
    }
    if (etag.n != 32)
        return false;
    for (i = 0; i < 32; i++) {
        char c = etag.p[i];
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
            return false;
        hex_out[i] = c;
    }
    hex_out[32] = '\0';
    return true;
}

/* A "hex-1" ETag: its hex in 'hex_out', and 'md5' (of the bytes) becomes the MD5 of itself. */
static bool etag_one_part(struct sv etag, char hex_out[33], unsigned char md5[MD5_LEN])
{
    char e[48];

    if (etag.n >= sizeof(e))
        return false;
    memcpy(e, etag.p, etag.n);
    e[etag.n] = '\0';
    if (xfer_etag_parts(e, hex_out) != 1)
        return false;
    hash_md5(md5, MD5_LEN, md5);
    return true;
}

static bool sse_hides_md5(const struct http_resp *resp)
{
    struct sv v;

    return (http_resp_header(resp, "x-amz-server-side-encryption", &v) && !sv_eqs(v, "AES256")) ||
           http_resp_header(resp, "x-amz-server-side-encryption-customer-algorithm", &v);
}

/* Check the ETag of a PUT/UploadPart reply against the MD5 of what we sent. */
static bool verify_sent(struct engine *g, struct req *r, unsigned char md5[MD5_LEN], struct s3c_error *e)
{
    struct sv etag;
    char want[33], got[33];

    if (r->sent_mem)
        memcpy(md5, r->mem_md5, MD5_LEN); /* hashed once, for Content-MD5 */
    else
        hash_final(r->md5, md5);
    if (!g->opts.verify || r->hashed != r->len)
        return true;
    if (!http_resp_header(&r->http.resp, "etag", &etag) || !etag_is_md5(etag, got) ||
        sse_hides_md5(&r->http.resp))
        return true; /* the store's ETag is not an MD5: nothing to compare */
    str_hex(md5, MD5_LEN, want);
    if (strcmp(want, got) != 0) {
        s3c_fail(e, S3C_EHTTP, "the store's ETag %s does not match the MD5 %s of the bytes sent", got, want);
        return false;
    }
    return true;
}

static enum s3c_err start_parts(struct engine *g, struct xfer_obj_state *os, struct s3c_error *e)
{
    size_t room = os->stream ? S3_MAX_PARTS : os->n_parts;

    if (!os->etags)
        os->etags = calloc(room, sizeof(*os->etags));
    if (!os->md5s)
        os->md5s = calloc(room, sizeof(*os->md5s));
    if (!os->etags || !os->md5s)
        return s3c_fail(e, S3C_ENOMEM, "out of memory");
    os->phase = PH_PARTS;
    os->next_part = 1;
    os->next = g->active;
    g->active = os;
    return S3C_OK;
}

/* A Create that answered after its object failed or the run was
 * interrupted: the upload exists at the store, so abort it now that its id
 * is known. False if there is no upload to abort. */
static bool abort_late_upload(struct engine *g, struct req *r)
{
    struct xfer_obj_state *os = r->os;
    struct s3_initiate_multipart im = S3_INITIATE_MULTIPART_INIT;
    struct s3c_error e = S3C_ERROR_INIT;

    if (os->upload_id || r->http.resp.status < 200 || r->http.resp.status >= 300 ||
        s3_parse_initiate_multipart(buf_sv(&r->http.resp.body), &im, NULL) || !im.upload_id[0]) {
        s3_initiate_multipart_release(&im);
        return false;
    }
    os->upload_id = strdup(im.upload_id);
    s3_initiate_multipart_release(&im);
    req_put_back(g, r);
    s3c_fail(&e, S3C_ECANCEL, "%s", cancel_requested ? "interrupted" : "stopped");
    os->phase = PH_CREATE; /* not ended yet: obj_fail sends the abort */
    obj_fail(g, os, &e);
    maybe_finish(g, os);
    return true;
}

static void journal_save(struct engine *g, struct xfer_obj_state *os);
static void submit_or_fail(struct engine *g, struct req *r);

static void on_create(struct engine *g, struct req *r)
{
    struct xfer_obj_state *os = r->os;
    struct s3_initiate_multipart im = S3_INITIATE_MULTIPART_INIT;
    struct s3c_error e = S3C_ERROR_INIT;

    if (s3_parse_initiate_multipart(buf_sv(&r->http.resp.body), &im, &e) || !im.upload_id[0]) {
        if (!e.code)
            s3c_fail(&e, S3C_EPARSE, "CreateMultipartUpload returned no UploadId");
        s3_initiate_multipart_release(&im);
        req_fail(g, r, &e, true, 0);
        return;
    }
    os->upload_id = strdup(im.upload_id);
    s3_initiate_multipart_release(&im);
    req_put_back(g, r);
    if (os->upload_id)
        journal_save(g, os);
    if (!os->upload_id || start_parts(g, os, &e)) {
        if (!e.code)
            s3c_fail(&e, S3C_ENOMEM, "out of memory");
        obj_fail(g, os, &e);
        maybe_finish(g, os);
    }
}

static void send_complete(struct engine *g, struct xfer_obj_state *os)
{
    struct s3_complete_part *parts = calloc(os->n_parts, sizeof(*parts));
    struct s3c_error e = S3C_ERROR_INIT;
    struct req *r = req_get(g, os, RK_COMPLETE);
    char (*crcs)[16] = NULL;            /* base64 of each part's CRC64NVME */
    uint32_t i;

    if (!parts || !r) {
        s3c_fail(&e, S3C_ENOMEM, "out of memory");
        goto fail;
    }
    if (os->mpu_crc && !(crcs = calloc(os->n_parts, sizeof(*crcs)))) {
        s3c_fail(&e, S3C_ENOMEM, "out of memory");
        goto fail;
    }
    for (i = 0; i < os->n_parts; i++) {
        parts[i].number = i + 1;
        parts[i].etag = os->etags[i];
        if (crcs) {
            struct buf b = BUF_INIT(sizeof(crcs[0]));
            crc_b64_64(os->part_crcs[i], &b);
            str_copy(crcs[i], sizeof(crcs[0]), buf_cstr(&b));
            buf_release(&b);
            parts[i].checksums.crc64nvme = crcs[i];
        }
    }
    if (s3_build_complete_multipart(parts, os->n_parts, &r->mem, &e) || req_submit(g, r, &e))
        goto fail;
    os->phase = PH_COMPLETE;
    free(parts);
    free(crcs);
    return;
fail:
    free(parts);
    free(crcs);
    if (r)
        req_put_back(g, r);
    obj_fail(g, os, &e);
}

static void on_part(struct engine *g, struct req *r)
{
    struct xfer_obj_state *os = r->os;
    struct s3c_error e = S3C_ERROR_INIT;
    unsigned char md5[MD5_LEN];
    struct sv etag = SV_NULL;

    if (r->kind == RK_COPY_PART) {
        struct s3_copy_result cr = S3_COPY_RESULT_INIT;
        if (s3_parse_copy_result(buf_sv(&r->http.resp.body), &cr, &e) || !cr.etag[0]) {
            if (!e.code)
                s3c_fail(&e, S3C_EPARSE, "UploadPartCopy returned no ETag");
            s3_copy_result_release(&cr);
            req_fail(g, r, &e, true, 0);
            return;
        }
        str_copy(os->etags[r->part - 1], sizeof(os->etags[0]), cr.etag);
        s3_copy_result_release(&cr);
    } else {
        if (r->local_failed) {
            req_fail(g, r, &r->local_err, false, 0);
            return;
        }
        if (!verify_sent(g, r, md5, &e)) {
            req_fail(g, r, &e, true, 0);
            return;
        }
        if (!http_resp_header(&r->http.resp, "etag", &etag) || etag.n >= sizeof(os->etags[0])) {
            s3c_fail(&e, S3C_EHTTP, "UploadPart returned no ETag");
            req_fail(g, r, &e, true, 0);
            return;
        }
        memcpy(os->etags[r->part - 1], etag.p, etag.n);
        os->etags[r->part - 1][etag.n] = '\0';
        memcpy(os->md5s[r->part - 1], md5, MD5_LEN);
        if (os->mpu_crc) {
            uint64_t crc;
            if (r->mem.len && r->hdr_crc64[0])
                os->part_crcs[r->part - 1] = r->mem_crc;
            else if (!r->mem.len && r->call.chunked_on && s3_chunked_crc(&r->call.chunked, &crc))
                os->part_crcs[r->part - 1] = crc;
            else
                os->mpu_crc = false; /* a part went without one (the store refused trailers): list none */
        }
        g->stats.bytes += r->len;
    }
    os->parts_done++;
    if (os->stream && r->mem.cap > (1u << 20) && os->n_spare < (int)(sizeof(os->spare) / sizeof(os->spare[0]))) {
        /* Keep the part's buffer for a later part: it counts as the part it was. */
        os->spare[os->n_spare++] = r->mem;
        r->mem = (struct buf)BUF_INIT((size_t)SMALL_BODY_MAX + (1 << 20));
    }
    req_put_back(g, r);
    if (os->failed) {
        maybe_finish(g, os);
        return;
    }
    if (os->parts_done == os->n_parts && (!os->stream || os->eof))
        send_complete(g, os);
    maybe_finish(g, os);
}

/* ---- --resume: journaled multipart uploads ------------------------------------------ */

/* The source's absolute path: what the journal keys a resume on. */
static bool source_path(const struct xfer_obj_state *os, char out[4096])
{
    return realpath(os->o->src, out) != NULL;
}

/* Journal a new multipart upload of a local file, for a later --resume (best effort). */
static void journal_save(struct engine *g, struct xfer_obj_state *os)
{
    struct s3c_error e = S3C_ERROR_INIT;
    struct journal_upload j;
    char src[4096];

    if (!g->opts.state_dir || os->o->op != XFER_UPLOAD || os->stream || !source_path(os, src))
        return;
    j.bucket = os->o->dst_bucket;
    j.key = os->o->dst;
    j.upload_id = os->upload_id;
    j.source = src;
    j.size = os->size;
    j.mtime_s = os->src_mtime;
    j.part_size = os->part_size;
    (void)journal_upload_save(g->opts.state_dir, &j, &e); /* no journal: no resume, nothing worse */
}

/* The upload completed or was aborted: nothing to resume. */
static void journal_drop(struct engine *g, struct xfer_obj_state *os)
{
    if (g->opts.state_dir && os->o->op == XFER_UPLOAD && !os->stream && os->upload_id)
        journal_upload_remove(g->opts.state_dir, os->o->dst_bucket, os->o->dst);
}

/* --resume: a journaled upload of this very file (same path, size, mtime, part size)? */
static bool resume_find(struct engine *g, struct xfer_obj_state *os)
{
    struct s3c_error e = S3C_ERROR_INIT;
    struct journal_upload j;
    char src[4096];
    bool ok;

    if (!g->opts.resume || !g->opts.state_dir || !source_path(os, src) ||
        journal_upload_load(g->opts.state_dir, os->o->dst_bucket, os->o->dst, &j, &e) != 1)
        return false;
    ok = !strcmp(j.source, src) && j.size == os->size && j.mtime_s == os->src_mtime &&
         j.part_size == os->part_size;
    if (ok) {
        os->upload_id = strdup(j.upload_id);
        os->have = calloc(os->n_parts, 1);
        os->etags = calloc(os->n_parts, sizeof(*os->etags));
        os->md5s = calloc(os->n_parts, sizeof(*os->md5s));
        ok = os->upload_id && os->have && os->etags && os->md5s;
    }
    journal_upload_release(&j);
    return ok;
}

/* A part the store already has counts only if its ETag is the MD5 of our bytes at that place. */
static void resume_check_part(struct xfer_obj_state *os, const struct s3_part *p)
{
    unsigned char d[MD5_LEN], chunk[1 << 16];
    char hex[33], want[33];
    struct hash_ctx *h;
    uint64_t off, len, at, crc = 0;
    uint32_t n = p->number;

    if (n < 1 || n > os->n_parts || os->have[n - 1] || !p->etag ||
        !etag_is_md5(sv_from(p->etag), want) || strlen(p->etag) >= sizeof(os->etags[0]))
        return;
    off = (uint64_t)(n - 1) * os->part_size;
    len = n == os->n_parts ? os->size - off : os->part_size;
    if (p->size != len || !(h = hash_md5_new()))
        return;
    for (at = 0; at < len;) {
        size_t want_n = len - at < sizeof(chunk) ? (size_t)(len - at) : sizeof(chunk);
        ssize_t got = pread(os->fd, chunk, want_n, (off_t)(off + at));
        if (got <= 0) {
            hash_free(h);
            return;     /* unreadable: send it again, and fail there if need be */
        }
        hash_update(h, chunk, (size_t)got);
        if (os->mpu_crc)
            crc = crc_crc64nvme_update(crc, chunk, (size_t)got);
        at += (uint64_t)got;
    }
    hash_final(h, d);
    hash_free(h);
    str_hex(d, MD5_LEN, hex);
    if (strcasecmp(hex, want))
        return;
    os->have[n - 1] = 1;
    if (os->mpu_crc)
        os->part_crcs[n - 1] = crc;
    str_copy(os->etags[n - 1], sizeof(os->etags[0]), p->etag);
    memcpy(os->md5s[n - 1], d, MD5_LEN);
    os->parts_done++;
}

static void on_list_parts(struct engine *g, struct req *r)
{
    struct xfer_obj_state *os = r->os;
    struct s3_list_parts lp = S3_LIST_PARTS_INIT;
    struct s3c_error e = S3C_ERROR_INIT;
    size_t i;

    if (s3_parse_list_parts(buf_sv(&r->http.resp.body), &lp, &e)) {
        s3_list_parts_release(&lp);
        req_fail(g, r, &e, true, 0);
        return;
    }
    /* Created with CRC64NVME (by a run with flexible checksums): the parts sent now carry it too. */
    os->mpu_crc = lp.checksum_algorithm && !strcasecmp(lp.checksum_algorithm, "CRC64NVME") &&
                  (os->part_crcs || (os->part_crcs = calloc(os->n_parts, sizeof(*os->part_crcs))));
    for (i = 0; i < lp.n_parts; i++)
        resume_check_part(os, &lp.parts[i]);
    req_put_back(g, r);
    if (lp.is_truncated && lp.next_part_number_marker > os->list_marker &&
        lp.next_part_number_marker < S3_MAX_PARTS) {
        struct req *nr = req_get(g, os, RK_LIST_PARTS);
        os->list_marker = (uint32_t)lp.next_part_number_marker;
        s3_list_parts_release(&lp);
        if (!nr) {
            s3c_fail(&e, S3C_ENOMEM, "out of memory");
            obj_fail(g, os, &e);
        } else {
            submit_or_fail(g, nr);
        }
        maybe_finish(g, os);
        return;
    }
    s3_list_parts_release(&lp);
    if (start_parts(g, os, &e)) {
        obj_fail(g, os, &e);
    } else if (os->parts_done == os->n_parts) {
        active_remove(g, os);
        send_complete(g, os);
    }
    maybe_finish(g, os);
}

/* The journaled upload is gone (completed or aborted elsewhere): start afresh. */
static void resume_restart(struct engine *g, struct req *r)
{
    struct xfer_obj_state *os = r->os;
    struct req *nr;

    journal_drop(g, os);
    free(os->upload_id);
    free(os->have);
    free(os->etags);
    free(os->md5s);
    os->upload_id = NULL;
    os->have = NULL;
    os->etags = NULL;
    os->md5s = NULL;
    os->parts_done = 0;
    req_put_back(g, r);
    nr = req_get(g, os, RK_CREATE);
    if (!nr) {
        struct s3c_error e = S3C_ERROR_INIT;
        s3c_fail(&e, S3C_ENOMEM, "out of memory");
        obj_fail(g, os, &e);
    } else {
        submit_or_fail(g, nr);
    }
    maybe_finish(g, os);
}

static void on_complete(struct engine *g, struct req *r)
{
    struct xfer_obj_state *os = r->os;
    struct s3c_error e = S3C_ERROR_INIT;
    enum s3_body_kind kind = s3_xml_body_kind(buf_sv(&r->http.resp.body));

    /* S3 may answer 200 and then fail, with an <Error> body. */
    if (kind != S3_BODY_RESULT) {
        struct s3_error er = S3_ERROR_INIT;
        s3_parse_error(buf_sv(&r->http.resp.body), &er, NULL);
        s3c_fail(&e, S3C_EHTTP, "CompleteMultipartUpload failed: %s",
                 er.code[0] ? er.code : "malformed reply");
        str_copy(e.s3_code, sizeof(e.s3_code), er.code[0] ? er.code : "InternalError");
        e.http_status = 200;
        s3_error_release(&er);
        req_fail(g, r, &e, true, 0);
        return;
    }
    /* An upload's final ETag is md5(part md5s)-N: check it when the parts were ours. */
    if (g->opts.verify && r->os->o->op == XFER_UPLOAD) {
        struct s3_complete_multipart cm = S3_COMPLETE_MULTIPART_INIT;
        if (!s3_parse_complete_multipart(buf_sv(&r->http.resp.body), &cm, NULL) && cm.etag[0]) {
            struct hash_ctx *h = hash_md5_new();
            unsigned char d[MD5_LEN];
            char want[80], hex[33];
            const char *got = cm.etag;
            size_t gl = strlen(got);

            if (h) {
                hash_update(h, os->md5s, (size_t)os->n_parts * MD5_LEN);
                hash_final(h, d);
                hash_free(h);
                str_hex(d, MD5_LEN, hex);
                snprintf(want, sizeof(want), "%s-%" PRIu32, hex, os->n_parts);
                if (gl >= 2 && got[0] == '"')
                    got++, gl -= 2;
                if (strlen(want) == gl && strncmp(want, got, gl) != 0 && !sse_hides_md5(&r->http.resp)) {
                    s3c_fail(&e, S3C_EHTTP, "the store's ETag %.*s does not match %s", (int)gl, got, want);
                    s3_complete_multipart_release(&cm);
                    os->phase = PH_PARTS;
                    req_put_back(g, r);
                    obj_fail(g, os, &e);
                    maybe_finish(g, os);
                    return;
                }
            }
        }
        s3_complete_multipart_release(&cm);
    }
    journal_drop(g, os);
    os->phase = PH_END;
    req_put_back(g, r);
    maybe_finish(g, os);
}

static int nibble(char c)
{
    return c <= '9' ? c - '0' : c - 'a' + 10; /* etag_is_md5 let only 0-9a-f through */
}

/* The ETag a completed multipart object has, md5(part MD5s)-N, from the part
 * ETags the store returned; false when one is not a plain MD5 (SSE-KMS...). */
static bool multipart_etag(const struct xfer_obj_state *os, char want[80])
{
    struct hash_ctx *h = hash_md5_new();
    unsigned char d[MD5_LEN];
    char hex[33];
    uint32_t i, j;

    if (!h)
        return false;
    for (i = 0; i < os->n_parts; i++) {
        if (!etag_is_md5(sv_from(os->etags[i]), hex))
            break;
        for (j = 0; j < MD5_LEN; j++)
            d[j] = (unsigned char)(nibble(hex[2 * j]) << 4 | nibble(hex[2 * j + 1]));
        hash_update(h, d, MD5_LEN);
    }
    hash_final(h, d);
    hash_free(h);
    if (i < os->n_parts)
        return false;
    str_hex(d, MD5_LEN, hex);
    snprintf(want, 80, "%s-%" PRIu32, hex, os->n_parts);
    return true;
}

/* A retried Complete found no upload: the first try may have completed it and
 * lost its answer (a reset or a cut body). The object is ours if it carries
 * the ETag our parts make; HEAD it to see. */
static void check_lost_complete(struct engine *g, struct req *r, const struct s3c_error *e)
{
    struct xfer_obj_state *os = r->os;
    struct s3c_error he = S3C_ERROR_INIT;
    char want[80];
    struct req *h;

    req_put_back(g, r);
    h = multipart_etag(os, want) ? req_get(g, os, RK_HEAD_DST) : NULL;
    if (!h || req_submit(g, h, &he)) {
        if (h)
            req_put_back(g, h);
        obj_fail(g, os, e);
        maybe_finish(g, os);
    }
}

static void on_head_dst(struct engine *g, struct req *r)
{
    struct xfer_obj_state *os = r->os;
    struct s3c_error e = S3C_ERROR_INIT;
    char want[80] = "";
    struct sv etag = SV_NULL;
    bool ours;

    if (http_resp_header(&r->http.resp, "etag", &etag) && etag.n >= 2 && etag.p[0] == '"') {
        etag.p++;
        etag.n -= 2;
    }
    ours = multipart_etag(os, want) && sv_eqs(etag, want);
    if (!ours) {
        s3c_fail(&e, S3C_EHTTP, "CompleteMultipartUpload was retried and the upload is gone, "
                                "but the object is not the one its parts make (ETag %.*s, want %s)",
                 (int)etag.n, etag.p ? etag.p : "", want);
        str_copy(e.s3_code, sizeof(e.s3_code), "NoSuchUpload");
    }
    req_put_back(g, r); /* 'etag' points into its reply: done with it now */
    if (ours) {
        journal_drop(g, os);
        os->phase = PH_END; /* it landed */
    } else {
        obj_fail(g, os, &e);
    }
    maybe_finish(g, os);
}

static void on_single(struct engine *g, struct req *r)
{
    struct xfer_obj_state *os = r->os;
    struct s3c_error e = S3C_ERROR_INIT;
    unsigned char md5[MD5_LEN];

    if (r->local_failed) {
        req_fail(g, r, &r->local_err, false, 0);
        return;
    }
    if (r->kind == RK_PUT && !verify_sent(g, r, md5, &e)) {
        req_fail(g, r, &e, true, 0);
        return;
    }
    if (r->kind == RK_COPY && s3_xml_body_kind(buf_sv(&r->http.resp.body)) != S3_BODY_RESULT) {
        s3c_fail(&e, S3C_EHTTP, "CopyObject answered 200 without a result");
        str_copy(e.s3_code, sizeof(e.s3_code), "InternalError");
        req_fail(g, r, &e, true, 0);
        return;
    }
    if (r->kind == RK_PUT)
        g->stats.bytes += r->len;
    os->phase = PH_END;
    req_put_back(g, r);
    maybe_finish(g, os);
}

/*
 * All of a stdout object is out: check it against the stored full-object
 * checksum (DL_CRC, learnt by the probe), else against its ETag when that is
 * an MD5. Otherwise only lengths were checked: each range's, each asked
 * If-Match the ETag, written in order. Bytes on stdout cannot be taken back:
 * a mismatch fails the object (exit 1), it is not downloaded again.
 */
static bool stdout_verify(struct engine *g, struct xfer_obj_state *os, struct s3c_error *e)
{
    unsigned char md5[MD5_LEN];
    char want[33], got[33];

    if (os->check == DL_CRC) {
        ck_b64(os->ck_algo, os->stream_crc, got);
        ck_b64(os->ck_algo, os->ck_want, want);
        if (os->stream_crc != os->ck_want) {
            s3c_fail(e, S3C_EHTTP, "downloaded bytes have %s %s, the store's checksum is %s",
                     ck_name(os->ck_algo), got, want);
            return false;
        }
        xdebug(g, os->o, "verified: %s %s of %" PRIu32 " ranges matches the stored checksum",
               ck_name(os->ck_algo), got, os->n_parts);
        return true;
    }
    if (!os->stream_md5 || os->md5_hidden)
        return true;
    hash_final(os->stream_md5, md5);
    etag_is_md5(sv_from(os->o->etag), got); /* it is: stream_md5 exists only then */
    str_hex(md5, MD5_LEN, want);
    if (strcmp(want, got) != 0) {
        s3c_fail(e, S3C_EHTTP, "downloaded bytes have MD5 %s, the store's ETag is %s", want, got);
        return false;
    }
    return true;
}

/* A range for stdout is in: write every whole part from the head on, in order. */
static void on_stdout_part(struct engine *g, struct req *r)
{
    struct xfer_obj_state *os = r->os;
    struct s3c_error e = S3C_ERROR_INIT;

    if (sse_hides_md5(&r->http.resp))
        os->md5_hidden = true;
    os->win[(r->part - 1) % os->win_k].full = true;
    os->win[(r->part - 1) % os->win_k].crc = r->crc; /* write_dst's, for DL_CRC */
    g->stats.bytes += r->len;
    os->parts_done++;
    req_put_back(g, r);
    while (os->win_head <= os->n_parts && os->win[(os->win_head - 1) % os->win_k].full) {
        struct win_slot *slot = &os->win[(os->win_head - 1) % os->win_k];

        if (!stdout_write(os, slot->data, slot->len, &e)) {
            obj_fail(g, os, &e);
            maybe_finish(g, os);
            return;
        }
        if (os->stream_md5)
            hash_update(os->stream_md5, slot->data, slot->len);
        if (os->check == DL_CRC)
            os->stream_crc = os->streamed ? ck_combine(os->ck_algo, os->stream_crc, slot->crc, slot->len)
                                          : slot->crc;
        os->streamed += slot->len;
        slot->len = 0;
        slot->full = false;
        os->win_head++;
    }
    if (os->win_head > os->n_parts) {
        if (stdout_verify(g, os, &e))
            os->phase = PH_END;
        else
            obj_fail(g, os, &e);
    }
    maybe_finish(g, os);
}

/* ---- small downloads: landed by workers ----------------------------------------- */

static void wake_loop(void *loop) { http_loop_wakeup(loop); }

/* Hand a verified small body to a worker; the object ends when it is on disk. */
static void land_start(struct engine *g, struct xfer_obj_state *os, struct buf *body)
{
    struct land_job *j = &os->land;

    /* The request's buffer goes with the job; the request gets a fresh one. */
    j->body = *body;
    *body = (struct buf)BUF_INIT((size_t)SMALL_BODY_MAX + (1 << 20));
    j->dst = os->o->dst;
    j->mtime = os->o->mtime;
    j->ctx = os;
    os->phase = PH_LAND;
    if (!land_submit(g->land, j)) {
        s3c_fail(&os->err, S3C_ENOMEM, "cannot start a thread to write %s", os->o->dst);
        os->failed = true;
        os->phase = PH_END;
        maybe_finish(g, os);
        return;
    }
    g->landing++;
}

/* Small downloads the workers finished: they end now. */
static void land_reap(struct engine *g)
{
    struct land_job *j;

    while (g->land && (j = land_take(g->land))) {
        struct xfer_obj_state *os = j->ctx;

        g->landing--;
        buf_release(&j->body);
        if (j->err.code) {
            os->err = j->err;
            os->failed = true;
        }
        os->phase = PH_END;
        maybe_finish(g, os);
    }
}

/* ---- --resume: journaled ranged downloads ------------------------------------------ */

#define DL_JOURNAL_EVERY_MS 1000    /* at most one fdatasync + record a second per download */

static bool wants_multipart(struct engine *g, uint64_t size);

/* The destination's absolute path, which the journal keys a download on (its
 * directory may not exist yet, so no realpath). */
static bool dest_path(const char *dst, struct buf *out)
{
    char cwd[4096];

    buf_reset(out);
    if (dst[0] == '/')
        return buf_adds(out, dst) == S3C_OK;
    return getcwd(cwd, sizeof(cwd)) && buf_addf(out, "%s/%s", cwd, dst) == S3C_OK;
}

/* Write the record: 'have' as the parts done. */
static void dl_journal_save(struct engine *g, struct xfer_obj_state *os)
{
    struct s3c_error e = S3C_ERROR_INIT;

    os->dj->done = os->have;
    (void)journal_download_save(g->opts.state_dir, os->dj, &e); /* no record: no resume, nothing worse */
    os->dj->done = NULL;
    os->dj_saved_ms = now_ms();
}

/* Record the parts completed so far, at most once a second unless 'now': the
 * temp file is fdatasync'd first, so the record never claims a part a crash
 * could still lose (a part whose pwrite returned survives kill -9 anyway). */
static void dl_journal_flush(struct engine *g, struct xfer_obj_state *os, bool now)
{
    if (!os->dj || !os->have || !os->dj_dirty || (!now && now_ms() - os->dj_saved_ms < DL_JOURNAL_EVERY_MS))
        return;
    if (fdatasync(os->fd) != 0)
        return; /* not synced: claim nothing more */
    os->dj_dirty = false;
    dl_journal_save(g, os);
}

static void dl_journal_drop(struct engine *g, struct xfer_obj_state *os)
{
    if (os->dj)
        journal_download_remove(g->opts.state_dir, os->dj->dest);
}

/* An interrupted (SIGINT, SIGTERM, run-wide stop) journaled download keeps its
 * temp file and record when some part is in, for the next --resume. */
static bool dl_keep_for_resume(struct engine *g, struct xfer_obj_state *os)
{
    uint32_t i;

    if (!os->dj || os->fd < 0 || !(stopping(g) || os->err.code == S3C_ECANCEL))
        return false;
    if (os->dj_resumed)
        return true; /* stopped before its parts were looked at: the earlier run's record stands */
    if (!os->have)
        return false;
    for (i = 0; i < os->n_parts && !os->have[i]; i++)
        ;
    if (i == os->n_parts)
        return false;
    dl_journal_flush(g, os, true);
    return !os->dj_dirty;
}

/* A fresh record for this download, to be completed by dl_resume_apply. */
static struct journal_download *dl_journal_new(const struct xfer_obj *o, const char *dest, const char *tmp_abs)
{
    struct journal_download *j = calloc(1, sizeof(*j));

    if (!j)
        return NULL;
    j->dest = strdup(dest);
    j->bucket = strdup(o->src_bucket);
    j->key = strdup(o->src);
    j->version = strdup(o->version_id ? o->version_id : "");
    j->etag = strdup(o->etag ? o->etag : "");
    j->tmp = strdup(tmp_abs);
    j->size = o->size;
    j->mtime_s = o->mtime;
    if (!j->dest || !j->bucket || !j->key || !j->version || !j->etag || !j->tmp) {
        journal_download_release(j);
        free(j);
        return NULL;
    }
    return j;
}

/* Whether an earlier run's record is of this object as the listing shows it
 * now (the ETag may still be unknown: dl_resume_apply checks it again). */
static bool dl_journal_matches(const struct journal_download *j, const struct xfer_obj *o)
{
    return !strcmp(j->bucket, o->src_bucket) && !strcmp(j->key, o->src) &&
           !strcmp(j->version, o->version_id ? o->version_id : "") && j->size == o->size &&
           (!o->etag || !strcmp(j->etag, o->etag));
}

/*
 * Create the temp file of a download. With --resume, a ranged download
 * reopens the temp file an earlier run left for this destination when its
 * record matches the object; a stale record and its temp file go, quietly.
 * The download is then journaled (os->dj).
 */
static enum s3c_err dl_tmp_open(struct engine *g, struct xfer_obj_state *os, struct s3c_error *e)
{
    struct xfer_obj *o = os->o;
    struct buf dest = BUF_INIT(8192), abs = BUF_INIT(8192);
    struct s3c_error ignored = S3C_ERROR_INIT;
    struct journal_download j;
    enum s3c_err rc;
    int found;

    if (!g->opts.state_dir || !wants_multipart(g, os->size) || !dest_path(o->dst, &dest)) {
        buf_release(&dest);
        return fs_tmp_create(o->dst, os->size, &os->fd, &os->tmp_path, e);
    }
    found = journal_download_load(g->opts.state_dir, buf_cstr(&dest), &j, &ignored);
    if (found == 1 && g->opts.resume && dl_journal_matches(&j, o) && fs_tmp_is_for(j.tmp, buf_cstr(&dest)) &&
        !fs_tmp_reopen(j.tmp, os->size, &os->fd, &ignored) && (os->dj = malloc(sizeof(*os->dj))) &&
        !buf_adds(&os->tmp_path, j.tmp)) {
        *os->dj = j;
        os->dj_resumed = true;
        buf_release(&dest);
        return S3C_OK;
    }
    if (os->fd >= 0) {
        close(os->fd);
        os->fd = -1;
    }
    free(os->dj);
    os->dj = NULL;
    if (found == 1) {
        if (fs_tmp_is_for(j.tmp, buf_cstr(&dest)))
            unlink(j.tmp); /* an interrupted download of another version, or one not resumed */
        journal_download_release(&j);
    }
    if (found)
        journal_download_remove(g->opts.state_dir, buf_cstr(&dest));
    rc = fs_tmp_create(o->dst, os->size, &os->fd, &os->tmp_path, e);
    if (!rc && g->opts.resume) {
        const char *slash = strrchr(buf_cstr(&dest), '/');
        const char *tbase = strrchr(buf_cstr(&os->tmp_path), '/');

        tbase = tbase ? tbase + 1 : buf_cstr(&os->tmp_path);
        if (!buf_add(&abs, dest.data, (size_t)(slash - dest.data + 1)) && !buf_adds(&abs, tbase))
            os->dj = dl_journal_new(o, buf_cstr(&dest), buf_cstr(&abs)); /* NULL: not journaled */
    }
    buf_release(&dest);
    buf_release(&abs);
    return rc;
}

#define DL_REHASH_STEP ((size_t)8 << 20)   /* bytes re-read per loop step: transfers keep moving */

/* The next part taken from the earlier run after part 'n' (0: none). */
static uint32_t dl_next_resumed(const struct xfer_obj_state *os, uint32_t n)
{
    for (n++; n <= os->n_parts; n++)
        if (os->resumed[n - 1])
            return n;
    return 0;
}

/* A resumed download cannot go on (its temp file cannot be read, the run stops, no memory). */
static void dl_rehash_fail(struct engine *g, struct xfer_obj_state *os, const struct s3c_error *e)
{
    rehash_remove(g, os);
    obj_fail(g, os, e);
    maybe_finish(g, os);
}

/*
 * Re-read up to DL_REHASH_STEP bytes of the first listed download's resumed
 * parts into its whole-object check (MD5 per part, or CRC per part). A part
 * re-read counts as done like a fetched one; the last one done starts the
 * check. Runs between loop steps, so the missing parts download meanwhile.
 */
static void dl_rehash_step(struct engine *g)
{
    struct xfer_obj_state *os = g->rehash;
    struct s3c_error e = S3C_ERROR_INIT;
    uint64_t off, len;
    uint32_t n;
    size_t want;
    ssize_t got;

    if (!os)
        return;
    if (os->failed || stopping(g)) {
        s3c_fail(&e, S3C_ECANCEL, "%s", cancel_requested ? "interrupted" : "stopped");
        dl_rehash_fail(g, os, &e);
        return;
    }
    n = os->rehash_part;
    off = (uint64_t)(n - 1) * os->part_size;
    len = n == os->n_parts ? os->size - off : os->part_size;
    if (!g->rehash_buf && !(g->rehash_buf = malloc(DL_REHASH_STEP))) {
        s3c_fail(&e, S3C_ENOMEM, "out of memory");
        dl_rehash_fail(g, os, &e);
        return;
    }
    if (os->check == DL_PARTS && !os->rehash_md5 && !(os->rehash_md5 = hash_md5_new())) {
        s3c_fail(&e, S3C_ENOMEM, "out of memory");
        dl_rehash_fail(g, os, &e);
        return;
    }
    want = len - os->rehash_at < DL_REHASH_STEP ? (size_t)(len - os->rehash_at) : DL_REHASH_STEP;
    do
        got = pread(os->fd, g->rehash_buf, want, (off_t)(off + os->rehash_at));
    while (got < 0 && errno == EINTR);
    if (got <= 0) {
        s3c_fail_errno(&e, got < 0 ? errno : EIO, "cannot re-read %s, kept by an interrupted download",
                       buf_cstr(&os->tmp_path));
        dl_rehash_fail(g, os, &e);
        return;
    }
    if (os->check == DL_PARTS)
        hash_update(os->rehash_md5, g->rehash_buf, (size_t)got);
    else
        os->rehash_crc = ck_update(os->ck_algo, os->rehash_crc, g->rehash_buf, (size_t)got);
    os->rehash_at += (uint64_t)got;
    if (os->rehash_at < len)
        return;
    if (os->check == DL_PARTS) {
        hash_final(os->rehash_md5, os->md5s[n - 1]);
        hash_free(os->rehash_md5);
        os->rehash_md5 = NULL;
    } else {
        os->part_crcs[n - 1] = os->rehash_crc;
    }
    os->rehash_crc = 0;
    os->rehash_at = 0;
    os->parts_done++;
    if (!(os->rehash_part = dl_next_resumed(os, n)))
        rehash_remove(g, os);
    if (os->parts_done == os->n_parts) {
        dl_verify(g, os);
        maybe_finish(g, os);
    }
}

/*
 * The ranges are planned and the ETag known: complete the record, and when an
 * earlier run's parts are of this very object and cut (ETag, size, part size),
 * take them as done: never fetched, re-read from the temp file into the
 * whole-object check (dl_rehash_step). Anything else starts afresh in the
 * same temp file.
 */
static void dl_resume_apply(struct engine *g, struct xfer_obj_state *os)
{
    struct journal_download *j = os->dj;
    uint32_t n, resumed = 0;
    char *etag = NULL;

    if (!j)
        return;
    if (!os->o->etag || !(os->have = calloc(os->n_parts, 1)) || !(etag = strdup(os->o->etag))) {
        free(os->have);
        os->have = NULL;
        dl_journal_drop(g, os);
        journal_download_release(j);
        free(j);
        os->dj = NULL;
        return;
    }
    if (os->dj_resumed && !strcmp(j->etag, etag) && j->part_size == os->part_size && j->n_parts == os->n_parts) {
        for (n = 1; n <= os->n_parts; n++)
            resumed += j->done[n - 1];
        memcpy(os->have, j->done, os->n_parts);
        if (os->check == DL_SIZE) {
            os->parts_done = resumed; /* nothing to re-read them for */
        } else if (os->check == DL_SEQ) {
            /* On disk: hashed in key order with the rest by dl_seq_work. */
            os->parts_done = resumed;
            memcpy(os->part_in, j->done, os->n_parts);
            if (resumed)
                seq_queue(g, os);
        } else if (resumed) {
            os->resumed = j->done;
            j->done = NULL;
            os->rehash_part = dl_next_resumed(os, 0);
            os->rehash_next = g->rehash;
            g->rehash = os;
        }
        xdebug(g, os->o, "resumed: %" PRIu32 " of %" PRIu32 " parts already in %s", resumed, os->n_parts,
               buf_cstr(&os->tmp_path));
    }
    os->dj_resumed = false;
    free(j->done);
    j->done = NULL;
    free(j->etag);
    j->etag = etag;
    j->part_size = os->part_size;
    j->n_parts = os->n_parts;
    dl_journal_save(g, os);
}

/* Part n of a journaled download is in the temp file. */
static void dl_part_written(struct engine *g, struct xfer_obj_state *os, uint32_t n)
{
    if (!os->have)
        return;
    os->have[n - 1] = 1;
    os->dj_dirty = true;
    dl_journal_flush(g, os, false);
}

static void on_get(struct engine *g, struct req *r)
{
    struct xfer_obj_state *os = r->os;
    struct s3c_error e = S3C_ERROR_INIT;
    unsigned char md5[MD5_LEN];
    struct sv etag;
    char want[33], got[33];

    if (r->local_failed) {
        /* Disk full or unwritable: retrying will not help. A store that sent
         * too much is a store error: retry that. */
        req_fail(g, r, &r->local_err, r->local_err.code == S3C_EHTTP, 0);
        return;
    }
    if (r->got != r->len) {
        s3c_fail(&e, S3C_EHTTP, "short body: got %" PRIu64 " of %" PRIu64 " bytes", r->got, r->len);
        req_fail(g, r, &e, true, 0);
        return;
    }
    if (os->win) {
        on_stdout_part(g, r);
        return;
    }
    hash_final(os->stream ? os->stream_md5 : r->md5, md5);
    /* A whole-object GET: a single-part ETag is the MD5 of the bytes, a
     * one-part multipart ETag ("hex-1") the MD5 of that MD5. */
    if (g->opts.verify && os->n_parts == 0 && http_resp_header(&r->http.resp, "etag", &etag) &&
        !sse_hides_md5(&r->http.resp) && (etag_is_md5(etag, got) || etag_one_part(etag, got, md5))) {
        str_hex(md5, MD5_LEN, want);
        if (strcmp(want, got) != 0) {
            s3c_fail(&e, S3C_EHTTP, "downloaded bytes have MD5 %s, the store's ETag is %s", want, got);
            /* Bytes already on stdout cannot be taken back: report, do not retry. */
            req_fail(g, r, &e, !os->stream, 0);
            return;
        }
    }
    g->stats.bytes += r->len;
    if (os->n_parts) {
        if (os->check == DL_PARTS)
            memcpy(os->md5s[r->part - 1], md5, MD5_LEN);
        else if (os->check == DL_CRC)
            os->part_crcs[r->part - 1] = r->crc;
        else if (os->check == DL_SEQ) {
            os->part_in[r->part - 1] = 1;
            if (os->seq_off < os->size)
                seq_queue(g, os);
        }
        os->parts_done++;
        dl_part_written(g, os, r->part);
        req_put_back(g, r);
        if (os->parts_done == os->n_parts && !os->failed)
            dl_verify(g, os);
        maybe_finish(g, os);
        return;
    }
    if (os->small_dl) {
        land_start(g, os, &r->mem);
        req_put_back(g, r);
        return;
    }
    os->phase = PH_END;
    req_put_back(g, r);
    maybe_finish(g, os);
}

/* ---- ranged downloads: verifying the whole ------------------------------------- */

/* A mismatch over the whole object: download all of it again, or fail it. */
static void dl_again(struct engine *g, struct xfer_obj_state *os, const struct s3c_error *e)
{
    if (stopping(g) || ++os->attempts >= store_s3_max_attempts(g->s3)) {
        obj_fail(g, os, e);
        return;
    }
    xdebug(g, os->o, "%s; downloading it again", e->msg);
    g->stats.retries++;
    g->stats.bytes -= g->stats.bytes >= os->size ? os->size : g->stats.bytes;
    os->parts_done = 0;
    os->next_part = 1;
    os->phase = PH_PARTS;
    os->next = g->active;
    g->active = os;
    if (os->check == DL_SEQ) {
        seq_remove(g, os);
        hash_reset(os->seq_md5);
        os->seq_off = os->seq_reread = 0;
        memset(os->part_in, 0, os->n_parts);
    }
    if (os->have) {
        /* Every part again, resumed ones too; the record claims none until they are in. */
        memset(os->have, 0, os->n_parts);
        os->dj_dirty = false;
        dl_journal_save(g, os);
    }
}

/* Every part is in: check the whole against what the store holds, then end,
 * download again, or fail. */
static void dl_verify(struct engine *g, struct xfer_obj_state *os)
{
    struct s3c_error e = S3C_ERROR_INIT;
    char want[64], got[64];
    uint32_t i;

    if (os->check == DL_CRC) {
        uint64_t crc = os->part_crcs[0];

        for (i = 1; i < os->n_parts; i++)
            crc = ck_combine(os->ck_algo, crc, os->part_crcs[i],
                             i + 1 == os->n_parts ? os->size - (uint64_t)i * os->part_size : os->part_size);
        ck_b64(os->ck_algo, crc, got);
        ck_b64(os->ck_algo, os->ck_want, want);
        if (crc == os->ck_want) {
            xdebug(g, os->o, "verified: %s %s of %" PRIu32 " ranges matches the stored checksum",
                   ck_name(os->ck_algo), got, os->n_parts);
            os->phase = PH_END;
            return;
        }
        s3c_fail(&e, S3C_EHTTP, "downloaded bytes have %s %s, the store's checksum is %s",
                 ck_name(os->ck_algo), got, want);
        dl_again(g, os, &e);
        return;
    }
    if (os->check == DL_SEQ) {
        unsigned char d[MD5_LEN];

        if (os->seq_off < os->size) {
            os->phase = PH_VERIFY; /* dl_seq_work comes back once all is hashed */
            seq_queue(g, os);
            return;
        }
        hash_final(os->seq_md5, d);
        str_hex(d, MD5_LEN, got);
        if (!strcmp(got, os->etag_hex)) {
            xdebug(g, os->o, "verified: MD5 of the whole (%" PRIu32 " ranges, %" PRIu64 " of %" PRIu64
                   " bytes re-read in order from the file) matches the ETag", os->n_parts, os->seq_reread, os->size);
            os->phase = PH_END;
            return;
        }
        s3c_fail(&e, S3C_EHTTP, "downloaded bytes have MD5 %s, the store's ETag is %s", got, os->etag_hex);
        dl_again(g, os, &e);
        return;
    }
    if (os->check == DL_PARTS) {
        struct hash_ctx *h = hash_md5_new();
        unsigned char d[MD5_LEN];

        if (!h) {
            s3c_fail(&e, S3C_ENOMEM, "out of memory");
            obj_fail(g, os, &e);
            return;
        }
        hash_update(h, os->md5s, (size_t)os->n_parts * MD5_LEN);
        hash_final(h, d);
        hash_free(h);
        str_hex(d, MD5_LEN, got);
        if (!strcmp(got, os->etag_hex)) {
            xdebug(g, os->o, "verified: md5 of %" PRIu32 " part MD5s (parts of %" PRIu64 " bytes%s) matches the ETag",
                   os->n_parts, os->part_size, os->layout_guessed ? ", size guessed" : "");
            os->phase = PH_END;
            return;
        }
        if (os->layout_guessed && os->have_prev && !memcmp(d, os->prev_digest, MD5_LEN)) {
            /* Two downloads agree byte for byte, part by part: the guess was wrong, not the bytes. */
            xdebug(g, os->o, "not verified: the store does not say its part size and parts of %" PRIu64
                   " bytes do not give its ETag; two downloads gave identical bytes", os->part_size);
            os->phase = PH_END;
            return;
        }
        memcpy(os->prev_digest, d, MD5_LEN);
        os->have_prev = true;
        s3c_fail(&e, S3C_EHTTP, "downloaded bytes give ETag %s-%" PRIu32 ", the store's is %s-%" PRIu32 "%s", got,
                 os->n_parts, os->etag_hex, os->etag_parts,
                 os->layout_guessed ? " (its part size was guessed)" : "");
        dl_again(g, os, &e);
        return;
    }
    os->phase = PH_END;
}

/*
 * DL_SEQ: hash, in key order, bytes that are on disk but were not at the
 * frontier when they came (at most SEQ_TURN_BYTES a loop turn, so the loop
 * keeps serving transfers). An object whose parts are all in and whose
 * bytes are all hashed gets its verdict.
 */
static void dl_seq_work(struct engine *g)
{
    uint64_t budget = SEQ_TURN_BYTES;

    while (g->seq_work && budget) {
        struct xfer_obj_state *os = g->seq_work;
        struct s3c_error e = S3C_ERROR_INIT;

        while (os->seq_off < os->size && budget) {
            uint64_t k = os->seq_off / os->part_size;
            uint64_t end = (k + 1) * os->part_size < os->size ? (k + 1) * os->part_size : os->size;
            size_t n = (size_t)(end - os->seq_off);

            if (!os->part_in[k])
                break;
            if (n > SEQ_BUF_BYTES)
                n = SEQ_BUF_BYTES;
            if (n > budget)
                n = (size_t)budget;
            if (fs_pread_all(os->fd, g->seq_buf, n, os->seq_off, os->o->dst, &e))
                break;
            hash_update(os->seq_md5, g->seq_buf, n);
            os->seq_off += n;
            os->seq_reread += n;
            budget -= n;
        }
        if (!budget && !e.code)
            break; /* more next turn */
        seq_remove(g, os);
        if (e.code) {
            obj_fail(g, os, &e);
            maybe_finish(g, os);
        } else if (os->phase == PH_VERIFY) {
            dl_verify(g, os);
            maybe_finish(g, os);
        }
    }
}

/* The ranges are planned: allocate what the check needs and start the parts. */
static void dl_start(struct engine *g, struct xfer_obj_state *os)
{
    struct s3c_error e = S3C_ERROR_INIT;

    if (os->check == DL_CRC && !(os->part_crcs = calloc(os->n_parts, sizeof(*os->part_crcs))))
        s3c_fail(&e, S3C_ENOMEM, "out of memory");
    if (os->check == DL_SEQ && (!(os->seq_md5 = hash_md5_new()) || !(os->part_in = calloc(os->n_parts, 1)) ||
                                (!g->seq_buf && !(g->seq_buf = malloc(SEQ_BUF_BYTES)))))
        s3c_fail(&e, S3C_ENOMEM, "out of memory");
    if (!e.code && os->check == DL_PARTS && !(os->md5s = calloc(os->n_parts, sizeof(*os->md5s))))
        s3c_fail(&e, S3C_ENOMEM, "out of memory");
    if (!e.code)
        dl_resume_apply(g, os);
    if (e.code || start_parts(g, os, &e)) {
        obj_fail(g, os, &e);
        maybe_finish(g, os);
        return;
    }
    if (os->parts_done == os->n_parts) {
        /* Every part was in the temp file: only the check is left. */
        active_remove(g, os);
        dl_verify(g, os);
        maybe_finish(g, os);
    }
}

/* Ranges of our own size, checked by size only; 'why' goes to --debug. */
static void dl_size_only(struct engine *g, struct xfer_obj_state *os, const char *why)
{
    xdebug(g, os->o, "checked by size only: %s", why);
    os->check = DL_SIZE;
    plan_parts(g, os);
}

/* The store does not say the part size: take the likeliest that makes the
 * ETag's part count (a wrong guess costs a second download, see dl_verify). */
static void dl_guess_layout(struct engine *g, struct xfer_obj_state *os)
{
    uint64_t p;

    if (xfer_part_size_guesses(os->size, os->etag_parts, g->opts.part_size, &p, 1) != 1) {
        dl_size_only(g, os, "the store does not say its part size, and no usual one makes the ETag's part count");
        return;
    }
    os->check = DL_PARTS;
    os->layout_guessed = true;
    os->part_size = p;
    os->n_parts = os->etag_parts;
}

/* HEAD with x-amz-checksum-mode: ENABLED answered: pick the check and the ranges. */
static enum s3c_err stdout_start_parts(struct engine *g, struct xfer_obj_state *os, struct s3c_error *e);

/* stdout, probed: a stored full-object checksum checks the stream (ranges of our
 * own size, combined in order); without one, lengths do. Then the ranges start. */
static void stdout_probed(struct engine *g, struct req *r)
{
    struct xfer_obj_state *os = r->os;
    struct s3c_error e = S3C_ERROR_INIT;

    if (stored_checksum(&r->http.resp, &os->ck_algo, &os->ck_want))
        os->check = DL_CRC;
    else
        xdebug(g, os->o, "checked by the length of every range: a multipart ETag and no stored checksum");
    req_put_back(g, r);
    if (stdout_start_parts(g, os, &e)) {
        obj_fail(g, os, &e);
        maybe_finish(g, os);
    }
}

static void on_head_info(struct engine *g, struct req *r)
{
    struct xfer_obj_state *os = r->os;
    struct xfer_obj *o = os->o;
    const struct http_resp *resp = &r->http.resp;
    struct s3c_error e = S3C_ERROR_INIT;
    struct sv v;
    uint64_t len = 0;
    char etag[80] = "", hex[33];

    if (http_resp_header(resp, "etag", &v) && v.n < sizeof(etag)) {
        memcpy(etag, v.p, v.n);
        etag[v.n] = '\0';
    }
    if (!http_resp_header(resp, "content-length", &v) || !sv_to_u64(v, &len) || len != os->size) {
        s3c_fail(&e, S3C_EHTTP, "the object changed since it was listed: %" PRIu64 " bytes, now %" PRIu64,
                 os->size, len);
        req_fail(g, r, &e, false, 0);
        return;
    }
    if (!o->etag && etag[0])
        o->etag = strdup(etag); /* every range then asks for this version (If-Match) */
    if (os->stream) {
        stdout_probed(g, r);
        return;
    }
    if (stored_checksum(resp, &os->ck_algo, &os->ck_want)) {
        os->check = DL_CRC;
        plan_parts(g, os);
    } else if ((os->etag_parts = xfer_etag_parts(etag, os->etag_hex)) && !sse_hides_md5(resp)) {
        if (!g->no_part_number) {
            struct req *p1;

            req_put_back(g, r);
            p1 = req_get(g, os, RK_HEAD_PART1);
            if (p1)
                submit_or_fail(g, p1);
            else
                dl_size_only(g, os, "out of memory");
            if (p1)
                return;
            dl_start(g, os);
            return;
        }
        dl_guess_layout(g, os);
    } else if (!sse_hides_md5(resp) && etag_is_md5(sv_from(etag), hex)) {
        os->check = DL_SEQ;
        memcpy(os->etag_hex, hex, sizeof(hex));
        plan_parts(g, os);
    } else {
        dl_size_only(g, os, sse_hides_md5(resp) ? "encrypted with a key whose ETag is not an MD5, and no stored checksum"
                            : "no stored checksum and no MD5 ETag");
    }
    req_put_back(g, r);
    dl_start(g, os);
}

/* HEAD ?partNumber=1 answered ('ok'), or refused: the upload's part size, if the store says it. */
static void on_head_part1(struct engine *g, struct req *r, bool ok)
{
    struct xfer_obj_state *os = r->os;
    const struct http_resp *resp = &r->http.resp;
    uint64_t count = 0, p = 0;
    struct sv v;
    bool counted = ok && http_resp_header(resp, "x-amz-mp-parts-count", &v) && sv_to_u64(v, &count);

    if (counted && count == os->etag_parts && http_resp_header(resp, "content-length", &v) &&
        sv_to_u64(v, &p) && xfer_parts_fit(os->size, os->etag_parts, p)) {
        os->check = DL_PARTS;
        os->part_size = p;
        os->n_parts = os->etag_parts;
    } else if (counted) {
        dl_size_only(g, os, "its parts are not all of one size");
    } else {
        if (!g->no_part_number)
            xdebug(g, os->o, "the store ignores ?partNumber=: part sizes will be guessed from the ETag");
        g->no_part_number = true;
        dl_guess_layout(g, os);
    }
    req_put_back(g, r);
    dl_start(g, os);
}

/* Keep the headers a copy must carry, then start the multipart upload. */
static void on_head_src(struct engine *g, struct req *r)
{
    static const char *keep[] = { "content-type", "cache-control", "content-disposition",
                                  "content-encoding", "content-language", "expires",
                                  "x-amz-website-redirect-location", NULL };
    struct xfer_obj_state *os = r->os;
    struct s3c_error e = S3C_ERROR_INIT;
    struct sv name, value;
    size_t pos = 0;
    struct req *c;
    int i;

    buf_reset(&os->src_headers);
    while (http_resp_next_header(&r->http.resp, &pos, &name, &value)) {
        bool wanted = name.n > 11 && strncasecmp(name.p, "x-amz-meta-", 11) == 0;
        for (i = 0; !wanted && keep[i]; i++)
            wanted = sv_ieqs(name, keep[i]);
        if (!wanted)
            continue;
        buf_addsv(&os->src_headers, name);
        buf_addc(&os->src_headers, '\0');
        buf_addsv(&os->src_headers, value);
        buf_addc(&os->src_headers, '\0');
    }
    req_put_back(g, r);
    os->phase = PH_CREATE;
    c = req_get(g, os, RK_CREATE);
    if (!c || req_submit(g, c, &e)) {
        if (c)
            req_put_back(g, c);
        if (!e.code)
            s3c_fail(&e, S3C_ENOMEM, "out of memory");
        obj_fail(g, os, &e);
        maybe_finish(g, os);
    }
}

static const char *req_op_name(enum req_kind k)
{
    switch (k) {
    case RK_PUT: return "PutObject";
    case RK_CREATE: return "CreateMultipartUpload";
    case RK_PART: return "UploadPart";
    case RK_COMPLETE: return "CompleteMultipartUpload";
    case RK_ABORT: return "AbortMultipartUpload";
    case RK_GET: return "GetObject";
    case RK_COPY: return "CopyObject";
    case RK_COPY_PART: return "UploadPartCopy";
    case RK_HEAD_SRC:
    case RK_HEAD_INFO:
    case RK_HEAD_PART1:
    case RK_HEAD_DST: return "HeadObject";
    case RK_DELETE: return "DeleteObjects";
    case RK_DELETE_ONE: return "DeleteObject";
    case RK_LIST_PARTS: return "ListParts";
    }
    return "request";
}

/*
 * Answers that no other object of the run can get past: the bucket does not
 * exist, or the credentials are wrong. AccessDenied counts too while nothing
 * has succeeded yet (then it is the key or the bucket, not one object's policy).
 */
static bool run_wide_error(const struct engine *g, const struct s3c_error *e)
{
    return !strcmp(e->s3_code, "NoSuchBucket") || !strcmp(e->s3_code, "InvalidAccessKeyId") ||
           !strcmp(e->s3_code, "SignatureDoesNotMatch") ||
           (!g->any_ok && (!strcmp(e->s3_code, "AccessDenied") || !strcmp(e->s3_code, "Forbidden")));
}

/* Stop the run after 'e' (rewritten to name the operation and the bucket): the
 * object that met it fails with it, everything else ends as cancelled (not
 * reported), nothing new starts, multipart uploads are aborted. */
static void stop_run(struct engine *g, struct req *r, struct s3c_error *e)
{
    const struct xfer_obj *o = r->os->o;
    char msg[sizeof(e->msg)];
    size_t n = strlen(e->msg);
    bool reads = r->kind == RK_GET || r->kind == RK_HEAD_INFO || r->kind == RK_HEAD_PART1 ||
                 r->kind == RK_HEAD_SRC;

    if (g->stop)
        return;
    if (n && e->msg[n - 1] == '.')
        e->msg[n - 1] = '\0';
    if (o->op == XFER_COPY && !reads)
        snprintf(msg, sizeof(msg), "%s from s3://%s to s3://%s: %.300s; stopped, nothing more was tried",
                 req_op_name(r->kind), o->src_bucket, o->dst_bucket, e->msg);
    else
        snprintf(msg, sizeof(msg), "%s in s3://%s: %.300s; stopped, nothing more was tried", req_op_name(r->kind),
                 reads || o->op == XFER_DELETE ? o->src_bucket : o->dst_bucket, e->msg);
    str_copy(e->msg, sizeof(e->msg), msg);
    g->stop = true;
    g->stop_err = *e;
}

/* Answers of a store that cannot take a flexible checksum (aws-chunked trailer,
 * x-amz-checksum-algorithm), rather than of a bad request. */
static bool flex_refused(const struct s3c_error *e)
{
    return e->http_status == 501 ||
           (e->http_status == 400 &&
            (!strcmp(e->s3_code, "XAmzContentSHA256Mismatch") || !strcmp(e->s3_code, "InvalidArgument") ||
             !strcmp(e->s3_code, "InvalidRequest") || !strcmp(e->s3_code, "NotImplemented") ||
             !strcmp(e->s3_code, "BadRequest")));
}

/* Requests held while the probe was out go now (built again: with or without trailers). */
static void flex_release(struct engine *g)
{
    struct req *r;

    g->flex_probe = NULL;
    for (r = g->retry; r; r = r->next) {
        if (r->flex_wait) {
            r->flex_wait = false;
            r->due_ms = 0;
        }
    }
}

/*
 * A store that keeps flexible checksums echoes them: x-amz-checksum-algorithm
 * on CreateMultipartUpload, x-amz-checksum-crc64nvme on PutObject and
 * UploadPart. One that ignores them (Ceph 16) does not: then trailers are
 * not tried at all (it would refuse them) and multipart uploads list no part
 * checksums. Learnt from the first answer to a request that sent one.
 */
static void flex_learn(struct engine *g, struct req *r)
{
    struct sv v;
    bool sent = r->flex || (r->sent_mem && r->hdr_crc64[0] && (r->kind == RK_PUT || r->os->mpu_crc));
    bool echoed;

    if (r == g->flex_probe)
        flex_release(g);
    if (!sent || g->flex_known || g->no_trailers)
        return;
    echoed = r->kind == RK_CREATE ? http_resp_header(&r->http.resp, "x-amz-checksum-algorithm", &v)
                                  : http_resp_header(&r->http.resp, "x-amz-checksum-crc64nvme", &v);
    if (echoed) {
        g->flex_known = true;
        return;
    }
    g->no_trailers = true;
    if (r->kind == RK_CREATE)
        r->os->mpu_crc = false;
    xdebug(g, r->os->o, "%s: the store keeps no flexible checksums (none echoed): from now on Content-MD5 and ETags only",
           req_op_name(r->kind));
}

/* Judge one finished exchange. */
static void req_done(struct engine *g, struct req *r)
{
    struct s3c_error e = S3C_ERROR_INIT;
    enum store_s3_verdict v;
    long backoff = 0;
    bool free_retry = false;

    g->window_reqs++;
    if (r->kind == RK_CREATE && (r->os->failed || stopping(g)) && abort_late_upload(g, r))
        return;
    if (r->os->failed && r->kind != RK_ABORT) {
        /* The object failed meanwhile: this request's outcome no longer matters. */
        req_put_back(g, r);
        maybe_finish(g, r->os);
        return;
    }
    if (stopping(g) && r->kind != RK_ABORT) {
        s3c_fail(&e, S3C_ECANCEL, "%s", cancel_requested ? "interrupted" : "stopped");
        req_fail(g, r, &e, false, 0);
        return;
    }
    v = store_s3_judge(g->s3, &r->call, &r->http, r->attempt, &backoff, &free_retry, &e);
    if (v == STORE_S3_OK)
        flex_learn(g, r);
    else if (r == g->flex_probe && !(r->flex && flex_refused(&e)))
        flex_release(g); /* no verdict: the next streamed body probes again */
    if (v == STORE_S3_FAIL && r->kind == RK_HEAD_PART1 && e.http_status >= 400 && e.http_status < 500) {
        /* The store refuses ?partNumber=: verify as if it ignored it. */
        on_head_part1(g, r, false);
        return;
    }
    /* The upload is gone: S3 says NoSuchUpload, Ceph 16 NoSuchKey. */
    if (v == STORE_S3_FAIL && r->kind == RK_LIST_PARTS && e.http_status == 404 && strcmp(e.s3_code, "NoSuchBucket")) {
        resume_restart(g, r);
        return;
    }
    if (v != STORE_S3_OK && r->flex && flex_refused(&e)) {
        /* Ceph 16: XAmzContentSHA256Mismatch to STREAMING-UNSIGNED-PAYLOAD-TRAILER.
         * Requests sent before the first refusal came back are retried the same way. */
        if (!g->no_trailers)
            xdebug(g, r->os->o, "%s: the store refuses flexible checksums on streamed bodies (%ld %s): "
                   "from now on Content-MD5 and ETags only", req_op_name(r->kind), e.http_status, e.s3_code);
        g->no_trailers = true;
        if (r == g->flex_probe)
            flex_release(g);
        if (r->kind == RK_CREATE)
            r->os->mpu_crc = false;
        r->attempt--; /* not the request's fault: a free retry */
        req_fail(g, r, &e, true, 1);
        return;
    }
    if (v == STORE_S3_FAIL && !strcmp(e.s3_code, "BadDigest") && r->attempt + 1 < store_s3_max_attempts(g->s3))
        v = STORE_S3_RETRY; /* the bytes were damaged on the way: send them again */
    if (v == STORE_S3_FAIL && r->kind != RK_ABORT && run_wide_error(g, &e))
        stop_run(g, r, &e);
    if (v == STORE_S3_OK)
        g->any_ok = true;
    if (v != STORE_S3_OK) {
        if (r->kind == RK_GET && r->local_failed) {
            req_fail(g, r, &r->local_err, false, 0);
            return;
        }
        if (!strcmp(e.s3_code, "SlowDown") || e.http_status == 429 || e.http_status == 503)
            g->throttled++;
        if (free_retry)
            r->attempt--;
        if (r->kind == RK_COMPLETE && r->attempt > 0 && !strcmp(e.s3_code, "NoSuchUpload")) {
            check_lost_complete(g, r, &e);
            return;
        }
        if (r->kind == RK_HEAD_DST && v == STORE_S3_FAIL) {
            struct s3c_error he = e;
            s3c_fail(&e, he.code, "CompleteMultipartUpload was retried and the upload is gone, "
                                  "and no object took its place (HEAD: %s)", he.msg);
        }
        req_fail(g, r, &e, v == STORE_S3_RETRY, backoff);
        return;
    }
    switch (r->kind) {
    case RK_PUT:
    case RK_COPY: on_single(g, r); break;
    case RK_CREATE: on_create(g, r); break;
    case RK_PART:
    case RK_COPY_PART: on_part(g, r); break;
    case RK_COMPLETE: on_complete(g, r); break;
    case RK_ABORT:
        journal_drop(g, r->os);
        r->os->phase = PH_END;
        req_put_back(g, r);
        maybe_finish(g, r->os);
        break;
    case RK_LIST_PARTS: on_list_parts(g, r); break;
    case RK_GET: on_get(g, r); break;
    case RK_HEAD_SRC: on_head_src(g, r); break;
    case RK_DELETE: on_delete_batch(g, r); break;
    case RK_DELETE_ONE: on_single(g, r); break;
    case RK_HEAD_INFO: on_head_info(g, r); break;
    case RK_HEAD_PART1: on_head_part1(g, r, true); break;
    case RK_HEAD_DST: on_head_dst(g, r); break;
    }
}

/* ---- starting objects ------------------------------------------------------------ */

static enum s3c_err copy_source(const struct xfer_obj *o, struct buf *out)
{
    enum s3c_err rc = buf_addc(out, '/');

    if (!rc)
        rc = sigv4_uri_encode(sv_from(o->src_bucket), 0, out);
    if (!rc)
        rc = buf_addc(out, '/');
    if (!rc)
        rc = sigv4_uri_encode(sv_from(o->src), 1, out);
    return rc;
}

static void plan_parts(struct engine *g, struct xfer_obj_state *os)
{
    os->part_size = xfer_part_size(os->size, g->opts.part_size);
    os->n_parts = (uint32_t)((os->size + os->part_size - 1) / os->part_size);
}

/* An object below the threshold uploaded in several parts: downloaded part by
 * part, so that its md5-of-md5s ETag can be checked. */
static bool small_multipart(const struct xfer_obj *o)
{
    char hex[33];

    return o->size > 0 && xfer_etag_parts(o->etag, hex) > 1;
}

static bool wants_multipart(struct engine *g, uint64_t size)
{
    uint64_t threshold = g->opts.multipart_threshold ? g->opts.multipart_threshold : DEFAULT_THRESHOLD;

    return size > 0 && (size >= threshold || size > ((uint64_t)5 << 30));
}

/*
 * Digests of a body held in memory, computed once: Content-MD5 (every store
 * verifies it) and, for whole objects, the CRC64NVME flexible checksum that
 * S3 verifies and stores (stores without flexible checksums ignore it).
 */
static void mem_digests(struct engine *g, struct req *r, bool whole_object)
{
    unsigned char md5[MD5_LEN];
    struct buf b64 = BUF_INIT(64);
    const char *p = r->mem.data ? r->mem.data : "";

    hash_md5(p, r->mem.len, md5);
    memcpy(r->mem_md5, md5, MD5_LEN);
    base64_encode(md5, MD5_LEN, &b64);
    str_copy(r->hdr_md5, sizeof(r->hdr_md5), buf_cstr(&b64));
    r->hdr_crc64[0] = '\0';
    if (whole_object && g->opts.flexible_checksums) {
        buf_reset(&b64);
        r->mem_crc = crc_crc64nvme_update(0, p, r->mem.len);
        crc_b64_64(r->mem_crc, &b64);
        str_copy(r->hdr_crc64, sizeof(r->hdr_crc64), buf_cstr(&b64));
    }
    buf_release(&b64);
}

/*
 * stdin -> S3: read the first part; if stdin ends within it, one PUT from
 * memory, else a multipart upload whose parts are read as they are sent.
 * S3 -> stdout: ranged GETs in parallel into a window of part buffers, written
 * in order (stdout_start_parts); an object of one range: one GET written as it
 * comes (a retry resumes where it stopped).
 */
/*
 * Read stdin into os->pending until it holds 'want' bytes or stdin ends
 * (os->eof). Without 'block', only what is there now: parts in flight keep
 * moving while a slow producer writes (poll, not O_NONBLOCK, which would
 * change the file for every process that shares it).
 */
static enum s3c_err stdin_fill(struct xfer_obj_state *os, uint64_t want, bool block, struct s3c_error *e)
{
    while (!os->pending.data && os->n_spare > 0) {
        struct buf b = os->spare[--os->n_spare];
        if (b.cap > want) {
            os->pending = b;
            os->pending.len = 0;
            os->pending.max = (size_t)want + 1;
        } else {
            buf_release(&b); /* parts grew past it */
        }
    }
    if (!os->pending.data) {
        os->pending = (struct buf)BUF_INIT((size_t)want + 1);
        if (buf_grow(&os->pending, (size_t)want))
            return s3c_fail(e, S3C_ENOMEM, "out of memory for a part of standard input");
    }
    while (os->pending.len < want && !os->eof) {
        struct pollfd p = { .fd = os->fd, .events = POLLIN };
        int ready = poll(&p, 1, block ? -1 : 0);
        ssize_t n;

        if (cancel_requested)
            return s3c_fail(e, S3C_ECANCEL, "interrupted");
        if (ready < 0 && errno == EINTR)
            continue;
        if (ready == 0)
            break;
        n = read(os->fd, os->pending.data + os->pending.len, (size_t)(want - os->pending.len));
        if (n < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (n < 0)
            return s3c_fail_errno(e, errno, "cannot read standard input");
        if (n == 0)
            os->eof = true;
        os->pending.len += (size_t)n;
    }
    return S3C_OK;
}

static enum s3c_err stdout_start_parts(struct engine *g, struct xfer_obj_state *os, struct s3c_error *e)
{
    uint64_t n = (os->size + os->part_size - 1) / os->part_size;
    char hex[33];

    if (n > UINT32_MAX)
        return s3c_fail(e, S3C_EINTERNAL, "object too large for standard output");
    os->n_parts = (uint32_t)n;
    os->win_k = xfer_window_parts(os->part_size);
    if (os->win_k > os->n_parts)
        os->win_k = os->n_parts;
    os->win = calloc(os->win_k, sizeof(*os->win));
    if (!os->win)
        return s3c_fail(e, S3C_ENOMEM, "out of memory");
    /* The MD5 of the whole stream is worth its CPU only when the ETag is one. */
    if (g->opts.verify && os->o->etag && etag_is_md5(sv_from(os->o->etag), hex) &&
        !(os->stream_md5 = hash_md5_new()))
        return s3c_fail(e, S3C_ENOMEM, "out of memory");
    os->phase = PH_PARTS;
    os->next_part = 1;
    os->win_head = 1;
    os->next = g->active;
    g->active = os;
    return S3C_OK;
}

static struct req *obj_start_stdio(struct engine *g, struct xfer_obj_state *os)
{
    struct xfer_obj *o = os->o;
    struct s3c_error e = S3C_ERROR_INIT;
    struct req *r = NULL;
    uint64_t got = 0;
    char hex[33];

    os->stream = true;
    if (o->op == XFER_DOWNLOAD) {
        os->fd = STDOUT_FILENO;
        os->size = o->size;
        os->part_size = xfer_stdout_part_size(os->size, g->opts.part_size);
        if (os->size > os->part_size && g->opts.verify && !(o->etag && etag_is_md5(sv_from(o->etag), hex))) {
            /* A multipart ETag checks no ranges: ask for a stored checksum first (stdout_probed). */
            os->phase = PH_PROBE;
            r = req_get(g, os, RK_HEAD_INFO);
            if (!r) {
                s3c_fail(&e, S3C_ENOMEM, "out of memory");
                goto fail;
            }
            return r;
        }
        if (os->size > os->part_size) {
            if (stdout_start_parts(g, os, &e))
                goto fail;
            return NULL;
        }
        os->stream_md5 = hash_md5_new();
        r = os->stream_md5 ? req_get(g, os, RK_GET) : NULL;
        if (!r) {
            s3c_fail(&e, S3C_ENOMEM, "out of memory");
            goto fail;
        }
        r->len = os->size;
        os->phase = PH_SINGLE;
        return r;
    }
    os->fd = STDIN_FILENO;
    /* An expected size fixes the part size (10,000 parts hold it); without
     * one, parts start at the default and grow. */
    os->part_size = xfer_part_size(g->opts.expected_size, g->opts.part_size);
    os->grow = g->opts.expected_size == 0;
    if (stdin_fill(os, os->part_size, true, &e))
        goto fail;
    got = os->pending.len;
    if (got < os->part_size) {
        /* All of stdin fits one part: a single PUT from memory. */

        r = req_get(g, os, RK_PUT);
        if (!r) {
            s3c_fail(&e, S3C_ENOMEM, "out of memory");
            goto fail;
        }
        buf_release(&r->mem);
        r->mem = os->pending;
        os->pending = (struct buf)BUF_INIT(0);
        r->len = got;
        os->size = got;
        mem_digests(g, r, true);
        os->phase = PH_SINGLE;
        return r;
    }
    os->phase = PH_CREATE;
    r = req_get(g, os, RK_CREATE);
    if (!r) {
        s3c_fail(&e, S3C_ENOMEM, "out of memory");
        goto fail;
    }
    return r;
fail:
    os->failed = true;
    os->err = e;
    os->phase = PH_END;
    obj_finish(g, os);
    return NULL;
}

/* ---- deletes: DeleteObjects batches ------------------------------------------------- */

/*
 * A batch in flight: the request's owner. The carrier is what req_submit
 * reads (the bucket and request payer); the batch's own objects wait with
 * no request of theirs and finish together when the reply is judged.
 */
struct del_send {
    struct xfer_obj carrier;
    struct xfer_obj_opts oo;
    struct xfer_obj_state st;       /* counts the request, never fails or finishes */
    struct xfer_del_batch *batch;
};

static struct del_send *del_send_of(struct req *r)
{
    return (struct del_send *)(void *)((char *)r->os - offsetof(struct del_send, st));
}

/* A per-key <Error> as an object's error: "Access Denied (AccessDenied)". */
static void del_key_error(struct s3c_error *e, const struct s3_delete_error *de)
{
    const char *code = de->code && de->code[0] ? de->code : "InternalError";
    enum s3c_err c = !strcmp(code, "AccessDenied") ? S3C_EAUTH : S3C_EHTTP;

    if (de->message && de->message[0] && strcmp(de->message, code) != 0)
        s3c_fail(e, c, "%s (%s)", de->message, code);
    else
        s3c_fail(e, c, "%s", code);
    str_copy(e->s3_code, sizeof(e->s3_code), code);
}

/*
 * Finish every object of 'b': all with 'all' when set, else by their per-key
 * result. Frees 'b'. A run-wide error (the bucket is gone...) is the first
 * key's; the others end as cancelled, as the rest of a stopped run does.
 */
static void del_batch_finish(struct engine *g, struct xfer_del_batch *b, const struct s3c_error *all)
{
    struct s3c_error stopped = S3C_ERROR_INIT;
    size_t i;

    if (all && g->stop && all->code != S3C_ECANCEL)
        s3c_fail(&stopped, S3C_ECANCEL, "stopped");
    for (i = 0; i < b->n; i++) {
        struct xfer_obj_state *os = b->items[i].ctx;

        if (all) {
            os->failed = true;
            os->err = i > 0 && stopped.code ? stopped : *all;
        } else if (b->items[i].err) {
            os->failed = true;
            del_key_error(&os->err, b->items[i].err);
        }
        os->phase = PH_END;
        obj_finish(g, os); /* frees the object the item's key points into */
    }
    xfer_del_batch_free(b);
}

static void del_send_finish(struct engine *g, struct del_send *ds, const struct s3c_error *all)
{
    g->del_sending--;
    del_batch_finish(g, ds->batch, all);
    free(ds);
}

/* The whole DeleteObjects request failed (after its retries): so did each of its keys. */
static void del_batch_fail(struct engine *g, struct req *r, const struct s3c_error *e)
{
    struct del_send *ds = del_send_of(r);
    struct s3c_error copy = *e; /* 'e' may live in the request */

    req_put_back(g, r);
    del_send_finish(g, ds, &copy);
}

static void on_delete_batch(struct engine *g, struct req *r)
{
    struct s3_delete_result res = S3_DELETE_RESULT_INIT;
    struct s3c_error e = S3C_ERROR_INIT;
    struct sv body = buf_sv(&r->http.resp.body);
    struct del_send *ds;

    /* A 200 may still carry an <Error> document: retry it as S3 would have answered 5xx. */
    if (s3_xml_body_kind(body) != S3_BODY_RESULT) {
        struct s3_error er = S3_ERROR_INIT;
        s3_parse_error(body, &er, NULL);
        s3c_fail(&e, S3C_EHTTP, "DeleteObjects failed: %s", er.code[0] ? er.code : "malformed reply");
        str_copy(e.s3_code, sizeof(e.s3_code), er.code[0] ? er.code : "InternalError");
        s3_error_release(&er);
        req_fail(g, r, &e, true, 0);
        return;
    }
    if (s3_parse_delete_result(body, &res, &e)) {
        s3_delete_result_release(&res);
        req_fail(g, r, &e, true, 0);
        return;
    }
    ds = del_send_of(r);
    xfer_del_match(ds->batch, &res);
    req_put_back(g, r);
    del_send_finish(g, ds, NULL);
    s3_delete_result_release(&res);
}

/*
 * Open batches go when nothing can fill them any more: the source ended, or
 * it waits and every object still running is a delete (mv's deletes follow
 * copies: while a copy runs, its delete may yet join the batch).
 */
static bool del_flushable(const struct engine *g)
{
    return g->source_done || (g->source_wait && g->n_objects == g->n_deletes);
}

/* The DeleteObjects request of the next closed batch, when one may be sent now. */
static struct req *del_next_batch(struct engine *g)
{
    struct xfer_del_batch *b;

    if (g->del_sending >= DELETE_BATCHES_INFLIGHT)
        return NULL;
    if (!g->del.ready && g->del.open && del_flushable(g))
        xfer_del_flush(&g->del);
    while ((b = xfer_del_take(&g->del))) {
        struct s3c_error e = S3C_ERROR_INIT;
        struct del_send *ds = calloc(1, sizeof(*ds));
        struct req *r = NULL;

        g->del_sending++;
        if (!ds) {
            s3c_fail(&e, S3C_ENOMEM, "out of memory");
            g->del_sending--;
            del_batch_finish(g, b, &e);
            continue;
        }
        ds->batch = b;
        ds->carrier.op = XFER_DELETE;
        ds->carrier.src_bucket = b->bucket;
        ds->carrier.mtime = -1;
        ds->oo.request_payer = b->payer;
        ds->carrier.opts = &ds->oo;
        ds->st.o = &ds->carrier;
        ds->st.fd = -1;
        ds->st.phase = PH_SINGLE;
        r = req_get(g, &ds->st, RK_DELETE);
        if (!r) {
            s3c_fail(&e, S3C_ENOMEM, "out of memory");
            del_send_finish(g, ds, &e);
            continue;
        }
        r->mem.max = DELETE_BODY_MAX;
        if (xfer_del_body(b, &r->mem, &e)) {
            req_put_back(g, r);
            del_send_finish(g, ds, &e);
            continue;
        }
        mem_digests(g, r, false);
        return r;
    }
    return NULL;
}

/*
 * A delete object: queued in its bucket's batch (*out NULL), or, for a key
 * XML 1.0 cannot carry, a DeleteObject of its own (the key travels in the URL).
 */
static enum s3c_err del_start(struct engine *g, struct xfer_obj_state *os, struct req **out,
                              struct s3c_error *e)
{
    struct xfer_obj *o = os->o;
    const char *payer = o->opts ? o->opts->request_payer : NULL;

    *out = NULL;
    os->phase = PH_SINGLE;
    if (!o->src_bucket || !o->src_bucket[0] || !o->src || !o->src[0])
        return s3c_fail(e, S3C_EUSAGE, "delete: an object needs a bucket and a key");
    if (s3_xml_key_ok(sv_from(o->src)) && (!o->version_id || s3_xml_key_ok(sv_from(o->version_id))))
        return xfer_del_add(&g->del, o->src_bucket, payer, o->src, o->version_id, os, e);
    *out = req_get(g, os, RK_DELETE_ONE);
    return *out ? S3C_OK : s3c_fail(e, S3C_ENOMEM, "out of memory");
}

/* Interrupted: deletes not yet sent fail as interrupted. */
static void del_cancel(struct engine *g, const struct s3c_error *e)
{
    struct xfer_del_batch *b;

    while ((b = xfer_del_take_any(&g->del)))
        del_batch_finish(g, b, e);
}

/* Set up an object and return its first request (NULL when it failed at once
 * and has been finished, or when its first requests are parts on the active list). */
static struct req *obj_start(struct engine *g, struct xfer_obj *o)
{
    struct xfer_obj_state *os = calloc(1, sizeof(*os));
    struct s3c_error e = S3C_ERROR_INIT;
    struct req *r = NULL;
    int64_t mtime;

    if (!os) {
        s3c_fail(&e, S3C_ENOMEM, "out of memory");
        g->stats.objects_failed++;
        if (g->opts.done)
            g->opts.done(g->opts.done_ctx, o, &e);
        xfer_obj_free(o);
        return NULL;
    }
    os->o = o;
    os->fd = -1;
    os->tmp_path = (struct buf)BUF_INIT(65536);
    o->st = os;
    g->n_objects++;

    os->pending = (struct buf)BUF_INIT(0);
    os->src_headers = (struct buf)BUF_INIT(64 << 10);
    if (o->stdio)
        return obj_start_stdio(g, os);
    switch (o->op) {
    case XFER_UPLOAD:
        if (fs_open_read(o->src, &os->fd, &os->size, &mtime, &e))
            goto fail;
        os->src_mtime = mtime;
        if (wants_multipart(g, os->size)) {
            plan_parts(g, os);
            os->phase = PH_CREATE;
            r = req_get(g, os, resume_find(g, os) ? RK_LIST_PARTS : RK_CREATE);
            break;
        }
        os->phase = PH_SINGLE;
        r = req_get(g, os, RK_PUT);
        if (!r)
            break;
        r->len = os->size;
        if (os->size <= SMALL_BODY_MAX) {

            if (buf_grow(&r->mem, (size_t)os->size)) {
                s3c_fail(&e, S3C_ENOMEM, "out of memory");
                goto fail_req;
            }
            if (fs_pread_all(os->fd, r->mem.data, (size_t)os->size, 0, o->src, &e))
                goto fail_req;
            r->mem.len = (size_t)os->size;
            mem_digests(g, r, true);
        }
        break;
    case XFER_DOWNLOAD:
        os->size = o->size;
        if (os->size <= SMALL_BODY_MAX && !wants_multipart(g, os->size) &&
            (g->land || (g->land = land_new(LAND_THREADS, wake_loop, g->loop)))) {
            /* Received into memory; a worker creates the file (land.h). */
            os->small_dl = true;
            os->phase = PH_SINGLE;
            r = req_get(g, os, RK_GET);
            if (r)
                r->len = os->size;
            break;
        }
        if (dl_tmp_open(g, os, &e))
            goto fail;
        if (g->opts.verify && (wants_multipart(g, os->size) || small_multipart(o))) {
            /* Ranged: first learn how the whole can be checked (on_head_info). */
            os->phase = PH_PROBE;
            r = req_get(g, os, RK_HEAD_INFO);
            break;
        }
        if (wants_multipart(g, os->size)) {
            plan_parts(g, os);
            dl_start(g, os);
            return NULL;
        }
        os->phase = PH_SINGLE;
        r = req_get(g, os, RK_GET);
        if (r)
            r->len = os->size;
        break;
    case XFER_COPY:
        os->size = o->size;
        if (wants_multipart(g, os->size)) {
            bool replace = o->opts && o->opts->metadata_directive &&
                           !strcmp(o->opts->metadata_directive, "REPLACE");
            plan_parts(g, os);
            os->phase = PH_CREATE;
            r = req_get(g, os, replace ? RK_CREATE : RK_HEAD_SRC);
            break;
        }
        os->phase = PH_SINGLE;
        r = req_get(g, os, RK_COPY);
        if (r) {
            r->len = os->size;
            if (copy_source(o, &r->hdr_copy_src)) {
                s3c_fail(&e, S3C_ENOMEM, "key too long");
                goto fail_req;
            }
        }
        break;
    case XFER_DELETE:
        g->n_deletes++;
        if (del_start(g, os, &r, &e))
            goto fail;
        if (!r)
            return NULL; /* waits in a batch */
        break;
    }
    if (!r) {
        s3c_fail(&e, S3C_ENOMEM, "out of memory");
        goto fail;
    }
    return r;
fail_req:
    req_put_back(g, r);
fail:
    os->failed = true;
    os->err = e;
    os->phase = PH_END;
    obj_finish(g, os);
    return NULL;
}

/*
 * The next part of stdin as a part request; NULL when there is none yet (its
 * bytes are still coming, or the window of parts in memory is full), at the
 * end, or on error. Memory: the window plus the part being filled.
 */
static struct req *next_stream_part(struct engine *g, struct xfer_obj_state *os)
{
    struct s3c_error e = S3C_ERROR_INIT;
    uint64_t want = xfer_stream_part_size(os->part_size, os->next_part, os->grow);
    struct req *r;
    size_t got;

    if (os->next_part > S3_MAX_PARTS) {
        if (os->grow)
            s3c_fail(&e, S3C_EUSAGE, "standard input is larger than 10,000 parts hold (%" PRIu64
                     " bytes growing to %" PRIu64 "): give --expected-size", os->part_size,
                     xfer_stream_part_size(os->part_size, S3_MAX_PARTS, true));
        else
            s3c_fail(&e, S3C_EUSAGE, "standard input is larger than --expected-size said: 10,000 "
                     "parts of %" PRIu64 " bytes are full", os->part_size);
        obj_fail(g, os, &e);
        return NULL;
    }
    /* Block on stdin only when nothing of ours is in flight to stall. */
    if (stdin_fill(os, want, os->reqs == 0, &e)) {
        obj_fail(g, os, &e);
        return NULL;
    }
    if (os->pending.len < want && !os->eof) {
        g->stdin_wait = true;
        return NULL;
    }
    if (os->reqs >= (int)xfer_window_parts(want))
        return NULL;
    got = os->pending.len;
    if (got == 0) {
        /* The previous part was the last. */
        active_remove(g, os);
        os->n_parts = os->next_part - 1;
        if (os->parts_done == os->n_parts && !os->failed)
            send_complete(g, os);
        return NULL;
    }
    r = req_get(g, os, RK_PART);
    if (!r)
        return NULL;
    buf_release(&r->mem);
    r->mem = os->pending;
    os->pending = (struct buf)BUF_INIT(0);
    r->part = os->next_part++;
    r->off = os->size;
    r->len = got;
    os->size += got;
    mem_digests(g, r, os->mpu_crc); /* a part's CRC64NVME only when the upload declared it */
    if (os->eof) {
        active_remove(g, os);
        os->n_parts = r->part;
    }
    return r;
}

static struct req *next_part(struct engine *g)
{
    struct xfer_obj_state *os = g->active;
    struct req *r;
    uint32_t n;

    if (!os)
        return NULL;
    if (os->stream && !os->win)
        return next_stream_part(g, os);
    /* --resume: parts the store already has are not sent again. */
    while (os->have && os->next_part <= os->n_parts && os->have[os->next_part - 1])
        os->next_part++;
    if (os->next_part > os->n_parts) {
        active_remove(g, os);
        return next_part(g);
    }
    if (os->win && os->next_part >= os->win_head + os->win_k)
        return NULL; /* stdout's window is full: the head part has to go out first */
    n = os->next_part++;
    if (os->next_part > os->n_parts)
        active_remove(g, os);
    r = req_get(g, os, os->o->op == XFER_DOWNLOAD ? RK_GET : os->o->op == XFER_COPY ? RK_COPY_PART : RK_PART);
    if (!r)
        return NULL;
    r->part = n;
    r->off = (uint64_t)(n - 1) * os->part_size;
    r->len = n == os->n_parts ? os->size - r->off : os->part_size;
    if (r->kind == RK_COPY_PART && copy_source(os->o, &r->hdr_copy_src)) {
        req_put_back(g, r);
        return NULL;
    }
    return r;
}

static struct req *due_retry(struct engine *g, int64_t now)
{
    struct req **pp;

    for (pp = &g->retry; *pp; pp = &(*pp)->next) {
        if ((*pp)->due_ms <= now) {
            struct req *r = *pp;
            *pp = r->next;
            r->next = NULL;
            return r;
        }
    }
    return NULL;
}

/* Whether 'r' would stream its body with a trailer. */
static bool wants_trailer(const struct engine *g, const struct req *r)
{
    return flex_ok(g) && !r->mem.len && r->len > 0 &&
           (r->kind == RK_PUT || (r->kind == RK_PART && r->os->mpu_crc));
}

static void submit_or_fail(struct engine *g, struct req *r)
{
    struct s3c_error e = S3C_ERROR_INIT;

    if (wants_trailer(g, r) && !g->flex_known) {
        if (g->flex_probe && g->flex_probe != r) {
            /* Whether the store takes trailers is being asked: wait for the answer
             * rather than send bodies it may refuse (held on the retry list). */
            r->flex_wait = true;
            r->due_ms = INT64_MAX;
            r->next = g->retry;
            g->retry = r;
            return;
        }
        g->flex_probe = r;
    }
    if (req_submit(g, r, &e)) {
        if (r == g->flex_probe)
            flex_release(g);
        req_fail(g, r, &e, false, 0);
    }
}

static void fill(struct engine *g)
{
    int64_t now = now_ms();

    while (g->inflight < g->cap) {
        struct req *r;

        if (g->opts.bwlimit_bytes_s && g->bw_tokens <= 0)
            break;
        r = due_retry(g, now);
        struct xfer_obj *o = NULL;

        if (!r && !stopping(g))
            r = next_part(g);
        if (!r && !stopping(g))
            r = del_next_batch(g);
        if (!r) {
            /* A closed batch waiting for room holds the source back: memory stays bounded. */
            if (g->source_done || g->source_wait || stopping(g) || g->del.ready)
                break;
            /* Each started object may hold a file open, even while it waits
             * to retry: start no more than the open-files limit allows. */
            if (g->n_objects >= g->fd_cap)
                break;
            /* Bodies waiting for a worker are memory: bound them. */
            if (g->landing >= LAND_BACKLOG_MAX)
                break;
            switch (g->opts.next(g->opts.next_ctx, &o)) {
            case XFER_NEXT_ONE:
                break;
            case XFER_NEXT_WAIT:
                g->source_wait = true;
                continue; /* open batches may go now */
            default:
                g->source_done = true;
                continue;
            }
            r = obj_start(g, o);
            if (!r)
                continue;
        }
        submit_or_fail(g, r);
    }
}

/* ---- adaptive concurrency ---------------------------------------------------------- */

/*
 * Hill-climb on throughput: every window, a request counts as 64 KiB of work
 * plus its bytes, so small-object and large-object runs share one measure.
 * More concurrency is kept while it pays (5% better), given back when it
 * hurts (20% worse), and halved-ish on throttling, as AIMD does.
 */
static void adapt(struct engine *g)
{
    int64_t now = now_ms(), dt = now - g->window_start_ms;
    int max = g->opts.max_concurrency ? g->opts.max_concurrency : DEFAULT_MAX_CONCURRENCY;
    uint64_t bytes = g->stats.bytes_live - g->window_live_start;
    double rate;
    int next;

    if (max > g->fd_cap)
        max = g->fd_cap;
    /* A window ends once every request in flight could have finished once
     * (so small-object runs adapt within tens of ms), or after 500 ms. */
    if (dt < ADAPT_WINDOW_MIN_MS || (g->window_reqs < (uint64_t)g->cap && dt < ADAPT_WINDOW_MAX_MS))
        return;
    if (g->opts.progress && now - g->progress_ms >= 250) {
        g->progress_ms = now;
        g->stats.inflight = g->inflight;
        g->stats.seconds = (double)(now - g->t0_ms) / 1000.0;
        g->opts.progress(g->opts.progress_ctx, &g->stats);
    }
    rate = ((double)bytes + (double)g->window_reqs * 65536.0) * 1000.0 / (double)dt;
    if (g->opts.concurrency) {
        /* fixed */
    } else if (g->throttled >= 2 && (uint64_t)g->throttled * 20 > g->window_reqs) {
        /* Throttled on more than 5% of a window's requests: the store asks for less.
         * (A stray 503 among many successes is retried, not a reason to slow down.) */
        g->cap = g->cap * 3 / 4 > 4 ? g->cap * 3 / 4 : 4;
        g->best_rate = 0;
        g->best_cap = g->cap;
        g->slow_start = false;
    } else if (g->window_peak >= g->cap * 9 / 10) {
        if (rate > g->best_rate * 1.05) {
            /* Slow start doubles while it pays 10%; then steps of a quarter. */
            bool doubling = g->slow_start && rate > g->best_rate * 1.10;
            g->best_rate = rate;
            g->best_cap = g->cap;
            next = doubling ? g->cap * 2 : g->cap + g->cap / 4 + 1;
            g->cap = next < max ? next : max;
            g->stable_windows = 0;
            if (!doubling)
                g->slow_start = false;
        } else if (rate < g->best_rate * 0.8 && g->cap > g->best_cap) {
            g->cap = g->best_cap;
            g->slow_start = false;
        } else if (++g->stable_windows >= 16) {
            /* Probe now and then: the best point moves as the workload does. */
            g->stable_windows = 0;
            g->best_rate *= 0.9;
            g->slow_start = false;
        }
    }
    if (g->cap > g->stats.peak_concurrency)
        g->stats.peak_concurrency = g->cap;
    g->window_start_ms = now;
    g->window_live_start = g->stats.bytes_live;
    g->window_reqs = 0;
    g->window_peak = g->inflight;
    g->throttled = 0;
}

/* ---- the loop ---------------------------------------------------------------------- */

static void cancel_all(struct engine *g)
{
    struct s3c_error e = S3C_ERROR_INIT;
    struct req *r, **pp;

    s3c_fail(&e, S3C_ECANCEL, "%s", cancel_requested ? "interrupted" : "stopped");
    del_cancel(g, &e);
    while (g->seq_work) {
        struct xfer_obj_state *os = g->seq_work;
        seq_remove(g, os);
        obj_fail(g, os, &e);
        maybe_finish(g, os);
    }
    while (g->active) {
        struct xfer_obj_state *os = g->active;
        obj_fail(g, os, &e);
        maybe_finish(g, os);
    }
    for (pp = &g->retry; (r = *pp);) {
        if (r->kind == RK_ABORT) {
            pp = &r->next; /* aborts still run: they are the clean-up */
            continue;
        }
        *pp = r->next;
        req_fail(g, r, &e, false, 0);
    }
}

enum s3c_err xfer_run(struct store_s3 *s, const struct xfer_opts *opts, struct xfer_stats *stats)
{
    struct engine *g = calloc(1, sizeof(*g));
    int64_t t0 = now_ms();
    bool cancelled = false;
    enum s3c_err rc;

    if (!g)
        return S3C_ENOMEM;
    g->s3 = s;
    g->loop = store_s3_loop(s);
    g->opts = *opts;
    /* A request in flight holds a socket and often a file: keep them inside
     * the open-files limit (raised to the hard limit first), with room to spare. */
    g->fd_cap = (int)((fs_raise_nofile() - 64) / 2);
    if (g->fd_cap < 4)
        g->fd_cap = 4;
    g->cap = opts->concurrency > 0 ? opts->concurrency : START_CONCURRENCY;
    g->del = (struct xfer_del_queue)XFER_DEL_QUEUE_INIT(DELETE_OPEN_MAX);
    if (g->cap > g->fd_cap)
        g->cap = g->fd_cap;
    g->best_cap = g->cap;
    g->window_start_ms = t0;
    g->t0_ms = t0;
    g->bw_last_ms = t0;
    g->slow_start = true;
    g->bw_tokens = 65536;
    g->stats.peak_concurrency = g->cap;
    for (;;) {
        struct req *done;
        int64_t now;
        int wait_ms = 100;

        if (stopping(g) && !cancelled) {
            cancelled = true;
            http_loop_cancel_all(g->loop);
            cancel_all(g);
        }
        bw_refill(g, now_ms());
        g->stdin_wait = false;
        fill(g);
        dl_rehash_step(g);
        if (g->inflight > g->window_peak)
            g->window_peak = g->inflight;
        if (g->inflight == 0 && !g->retry && !g->done && !g->active && !g->seq_work && !g->rehash &&
            xfer_del_idle(&g->del) && !g->landing) {
            /* A source that waits with nothing in flight has nothing left to wait for. */
            if (g->source_done || g->source_wait || cancelled)
                break;
            if (g->opts.bwlimit_bytes_s && g->bw_tokens <= 0)
                usleep(5000); /* waiting for bandwidth tokens */
            continue;
        }
        now = now_ms();
        if (g->retry) {
            struct req *r;
            int64_t soonest = INT64_MAX;
            for (r = g->retry; r; r = r->next)
                if (r->due_ms < soonest)
                    soonest = r->due_ms;
            wait_ms = soonest <= now ? 0 : (int)(soonest - now < 100 ? soonest - now : 100);
        }
        if (g->opts.bwlimit_bytes_s && wait_ms > 10)
            wait_ms = 10; /* come back to refill the bucket */
        if (g->seq_work || g->rehash)
            wait_ms = 0; /* bytes to hash or resumed parts to re-read: only a look at the sockets */
        if (g->inflight > 0)
            http_loop_step_fd(g->loop, wait_ms > 0 || g->seq_work || g->rehash ? wait_ms : 1, g->stdin_wait ? STDIN_FILENO : -1);
        else if (g->landing > 0 && !g->done && wait_ms > 0)
            land_wait(g->land, wait_ms);
        else if (wait_ms > 0 && !g->done)
            usleep((useconds_t)wait_ms * 1000);
        land_reap(g);
        while ((done = g->done)) {
            g->done = done->next;
            done->next = NULL;
            req_done(g, done);
        }
        dl_seq_work(g);
        adapt(g);
    }
    land_free(g->land);
    g->stats.seconds = (double)(now_ms() - t0) / 1000.0;
    if (stats)
        *stats = g->stats;
    rc = cancel_requested ? S3C_ECANCEL : g->stop ? g->stop_err.code : g->first_error;
    while (g->free_reqs) {
        struct req *r = g->free_reqs;
        g->free_reqs = r->next;
        store_s3_call_release(&r->call);
        hash_free(r->md5);
        buf_release(&r->mem);
        buf_release(&r->query);
        buf_release(&r->hdr_copy_src);
        free(r);
    }
    free(g->seq_buf);
    free(g->rehash_buf);
    free(g);
    return rc;
}
