/*
 * A request's life: requests taken, described to the store (req_submit),
 * judged when they finish (req_done), retried or failed (req_fail), and
 * parked while their MD5 is with the hash workers (hash_start, hash_reap);
 * an object failed for good (obj_fail, obj_abort: its multipart upload is
 * aborted). An object's own life (its phase, its end) is obj.c's, below.
 * Calls no family (answers go on through g->kinds and each hash job's done,
 * engine.h); of the engine's files, only obj.c, part.c, build.c and
 * hashpool.c. It grew past 1,200 lines (1,311) with the checksum choices
 * (issue 14) and the trust work (issue 22); issue 28 moved out an object's
 * own life (obj.c) and req_submit's switch describing every kind of request
 * (build.c, a table of builders below this file): req_submit keeps what
 * every kind shares (a new exchange's state, the SSE-C keys, the hash
 * worker of a streamed body, payload signing, sending), and the hash worker
 * is started here rather than by the builders, so build.c never calls back.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/hash.h"
#include "base/md5.h"
#include "base/str.h"
#include "s3/xml.h"
#include "xfer/engine.h"

#define REPLY_BODY_MAX ((size_t)4 << 20)

static bool req_md5_sent(struct engine *g, struct req *r);
static enum s3c_err body_sha256(struct req *r, char hex[2 * SHA256_LEN + 1], struct s3c_error *e);

/* ---- flexible checksums: whether the store takes them ---------------------------- */

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
 * on CreateMultipartUpload, x-amz-checksum-<algorithm> on PutObject and
 * UploadPart. One that ignores them (Ceph 16) does not: then trailers are
 * not tried at all (it would refuse them) and multipart uploads list no part
 * checksums. Learnt from the first answer to a request that sent one.
 */
static void flex_learn(struct engine *g, struct req *r)
{
    struct sv v;
    bool sent = r->flex || (r->sent_mem && r->hdr_ck[0] && (r->kind == RK_PUT || obj_mpu_crc(r->os)));
    bool echoed;

    if (r == g->flex_probe)
        flex_release(g);
    if (!sent || g->flex_known || g->no_trailers)
        return;
    echoed = r->kind == RK_CREATE ? http_resp_header(&r->http.resp, "x-amz-checksum-algorithm", &v)
                                  : http_resp_header(&r->http.resp, ck_header(obj_ck(r->os->o)), &v);
    if (echoed) {
        g->flex_known = true;
        return;
    }
    g->no_trailers = true;
    if (r->kind == RK_CREATE)
        mpu_of(r->os)->mpu_crc = false;
    xdebug(g, r->os->o, "%s: the store keeps no flexible checksums (none echoed): from now on Content-MD5 and ETags only",
           req_op_name(r->kind));
}

/* ---- requests: building and sending --------------------------------------------- */

struct req *req_get(struct engine *g, struct xfer_obj_state *os, enum req_kind kind)
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
    r->got = 0;
    r->stage_at = r->staged = 0;
    r->local_failed = false;
    r->next = NULL;
    buf_reset(&r->mem);
    buf_reset(&r->query);
    buf_reset(&r->hdr_copy_src);
    r->hdr_md5[0] = r->hdr_range[0] = r->hdr_ck[0] = '\0';
    r->flex_wait = false;
    r->sum_wait = false;
    r->hash.ready = false;
    r->hash.job.also = NULL; /* MD5 jobs unless a SHA is asked for (req_md5_sent, req_sha_mem, mem_digests_later) */
    r->hash.job.no_md5 = false;
    r->hash.job.crc = r->hash.job.also_open = false; /* a CRC beside: mem_digests_later, relays */
    r->use_crc = r->use_sha = false;
    r->md5_live = r->hash_stale = false;
    r->md5_at = r->md5_to = 0;
    memset(&r->hg, 0, sizeof(r->hg));
    s3c_error_clear(&r->local_err);
    os->reqs++;
    return r;
}

/* ---- stages of file GETs (download.c) ------------------------------------------------- */

/* Stages (of 128 KiB) an engine keeps at most: one per GET in flight, and
 * those lent to its hash workers, at most LENT_PER_REQ a GET (engine.h: the
 * MD5 further behind re-reads the file). A GET finding no stage writes
 * straight to the file, an MD5 finding none re-reads it. */
#define STAGES_MAX 256
#define LENT_MAX 96

struct dl_buf *dl_buf_get(struct engine *g, bool stage)
{
    struct dl_buf *b = NULL;

    if (stage ? g->dl_stages >= STAGES_MAX : g->dl_bufs_used - g->dl_stages >= LENT_MAX)
        return NULL;
    if (g->dl_bufs) {
        b = g->dl_bufs;
        g->dl_bufs = b->next;
    } else if (!(b = malloc(sizeof(*b)))) {
        return NULL;
    }
    b->next = NULL;
    b->n = 0;
    g->dl_bufs_used++;
    g->dl_stages += stage;
    return b;
}

void dl_buf_put(struct engine *g, struct dl_buf *b, bool stage)
{
    g->dl_bufs_used--;
    g->dl_stages -= stage;
    b->next = g->dl_bufs;
    g->dl_bufs = b;
}

/* The stages lent to the MD5 go back (its exchange is over, or its hashing starts over). */
void dl_lent_drop(struct engine *g, struct req *r)
{
    while (r->lent) {
        struct dl_buf *b = r->lent;
        r->lent = b->next;
        dl_buf_put(g, b, false);
    }
    r->lent_tail = NULL;
    r->lent_bytes = 0;
}

void dl_bufs_put_req(struct engine *g, struct req *r)
{
    dl_lent_drop(g, r);
    if (r->stage)
        dl_buf_put(g, r->stage, true);
    r->stage = NULL;
    r->staged = 0;
}

void dl_bufs_free(struct engine *g)
{
    while (g->dl_bufs) {
        struct dl_buf *b = g->dl_bufs;
        g->dl_bufs = b->next;
        free(b);
    }
}

/* ---- relayed parts' buffers ----------------------------------------------------------- */

static uint64_t relay_budget(const struct engine *g)
{
    return g->relay_max ? g->relay_max : RELAY_MEM_MAX;
}

/* The bytes a kept buffer holds for a part (relay_sink sizes it exactly: those and a NUL). */
static uint64_t relay_buf_bytes(const struct buf *b)
{
    return b->cap ? b->cap - 1 : 0;
}

/* A relayed part's buffer went back: kept for the next part's GET while the kept and the
 * relays' bytes in memory fit the loop's share; else freed. */
static void relay_buf_keep(struct engine *g, struct buf *b)
{
    if (g->relay_pooled < RELAY_POOL_MAX &&
        g->relay_bytes + g->relay_pool_bytes + relay_buf_bytes(b) <= relay_budget(g)) {
        size_t max = b->max; /* the request's own, for what it carries next */

        b->len = 0;
        g->relay_pool[g->relay_pooled++] = *b;
        g->relay_pool_bytes += relay_buf_bytes(b);
        *b = (struct buf)BUF_INIT(max);
        return;
    }
    buf_release(b);
}

void relay_buf_take(struct engine *g, struct buf *b, uint64_t len)
{
    size_t max;
    int i;

    if (b->cap > len)
        return;
    for (i = g->relay_pooled - 1; i >= 0 && g->relay_pool[i].cap <= len; i--)
        ;
    if (i < 0) {
        /* None large enough: the kept go before this one grows its own, to stay in the share. */
        while (g->relay_pooled && g->relay_bytes + len + g->relay_pool_bytes > relay_budget(g)) {
            g->relay_pool_bytes -= relay_buf_bytes(&g->relay_pool[--g->relay_pooled]);
            buf_release(&g->relay_pool[g->relay_pooled]);
        }
        return;
    }
    max = b->max;
    buf_release(b);
    *b = g->relay_pool[i];
    b->max = max;
    g->relay_pool_bytes -= relay_buf_bytes(b);
    g->relay_pool[i] = g->relay_pool[--g->relay_pooled];
}

void relay_bufs_free(struct engine *g)
{
    while (g->relay_pooled)
        buf_release(&g->relay_pool[--g->relay_pooled]);
    g->relay_pool_bytes = 0;
}

/* The request is free for others now (its hash job, if any, is back). */
static void req_recycle(struct engine *g, struct req *r)
{
    bool relayed = r->relay_bytes > 0;

    r->os->reqs--;
    g->relay_bytes -= r->relay_bytes;
    r->relay_bytes = 0;
    dl_bufs_put_req(g, r);
    http_xfer_release(&r->http);
    memset(&r->http, 0, sizeof(r->http));
    if (relayed && r->mem.cap > (1u << 20))
        relay_buf_keep(g, &r->mem);
    else if (r->mem.cap > (1u << 20))
        buf_release(&r->mem);
    r->next = g->free_reqs;
    g->free_reqs = r;
}

void req_put_back(struct engine *g, struct req *r)
{
    if (r == g->flex_probe)
        flex_release(g); /* its object ended another way: others may ask next */
    gate_forget(&g->cond_gate, r); /* the same for the probes of conditional deletes and renames */
    gate_forget(&g->rename_gate, r);
    if (r->parked) {
        r->parked = false;
        g->parked--;
    }
    if (r->hash.busy) {
        /* A worker still reads the request's bytes: it goes when the job is back,
         * and until then its object counts it (os->reqs), so cannot end. */
        r->zombie = true;
        return;
    }
    req_recycle(g, r);
}

/* ---- MD5s on the hash workers ------------------------------------------------------ */

static void wake_loop(void *loop) { http_loop_wakeup(loop); }

/*
 * Hand h->job (its bytes and MD5 filled in by the caller) to the hash
 * workers, started on first use; h->done runs on the loop when it is back
 * (hash_reap). False when no worker could be started (nothing queued).
 */
bool hash_start(struct engine *g, struct eng_hash *h, int fd, const void *mem, uint64_t off, uint64_t len)
{
    if (!g->hash && !(g->hash = hashpool_new(g->hash_threads, wake_loop, g->loop)))
        return false;
    h->job.fd = fd;
    h->job.mem = mem;
    h->job.off = off;
    h->job.len = len;
    h->job.ctx = h;
    h->ready = false;
    if (!hashpool_submit(g->hash, &h->job))
        return false;
    h->busy = true;
    g->hashing++;
    return true;
}

/*
 * A request's hash job is back (called first by whoever hears of it): a
 * worker's failure becomes the request's local failure, and a request put
 * back meanwhile is free now (false: nothing more to do with it).
 */
bool req_hash_back(struct engine *g, struct req *r)
{
    struct eng_hash *h = &r->hash;

    if (h->job.err.code && !r->local_failed) {
        r->local_failed = true;
        r->local_err = h->job.err;
    }
    if (r->zombie) {
        r->zombie = false;
        req_recycle(g, r);
        maybe_finish(g, r->os);
        return false;
    }
    return true;
}

/* A parked request's MD5 is ready (or failed): its answer is taken up again,
 * as req_done would have, had it not waited. */
void req_unpark(struct engine *g, struct req *r)
{
    r->parked = false;
    g->parked--;
    if (r->os->failed) {
        req_put_back(g, r);
        maybe_finish(g, r->os);
    } else if (stopping(g)) {
        struct s3c_error e = S3C_ERROR_INIT;
        s3c_fail(&e, S3C_ECANCEL, "%s", cancel_requested ? "interrupted" : "stopped");
        req_fail(g, r, &e, false, 0);
    } else {
        g->kinds[r->kind].ok(g, r);
    }
}

static void req_hashed(struct engine *g, struct eng_hash *h)
{
    struct req *r = (struct req *)((char *)h - offsetof(struct req, hash));

    if (!req_hash_back(g, r))
        return;
    h->ready = !h->job.err.code;
    if (r->sum_wait) {
        r->sum_wait = false;
        http_loop_resume(g->loop); /* its body's SHA trailer can go now (req_trailer_sum) */
    }
    if (r->parked)
        req_unpark(g, r); /* else still in flight: its answer finds the MD5 ready */
}

/* The MD5 of [off, off + len) of 'fd', for request 'r' (r->hash.job.digest once ready). */
bool req_hash_file(struct engine *g, struct req *r, int fd, uint64_t off, uint64_t len)
{
    r->hash.job.also = NULL;
    r->hash.job.no_md5 = false;
    md5_init(&r->hash.job.md5);
    r->hash.job.final = true;
    r->hash.done = req_hashed;
    return hash_start(g, &r->hash, fd, NULL, off, len);
}

/* The MD5 of 'len' bytes at 'mem' (the request's, untouched until it is back), for 'r'. */
bool req_hash_mem(struct engine *g, struct req *r, const void *mem, uint64_t len)
{
    r->hash.job.also = NULL;
    r->hash.job.no_md5 = false;
    md5_init(&r->hash.job.md5);
    r->hash.job.final = true;
    r->hash.done = req_hashed;
    return hash_start(g, &r->hash, -1, mem, 0, len);
}

/* The job the caller filled in r->hash.job (its MD5 so far, 'also', 'crc'...) over 'len' bytes
 * at 'mem', for 'r', heard of as req_hash_mem's. */
bool req_hash_job(struct engine *g, struct req *r, const void *mem, uint64_t len)
{
    r->hash.done = req_hashed;
    return hash_start(g, &r->hash, -1, mem, 0, len);
}

/* The SHA 'a' (no MD5) of 'len' bytes at 'mem', for 'r' (r->hash.job.also_digest once ready). */
bool req_sha_mem(struct engine *g, struct req *r, enum ck_algo a, const void *mem, uint64_t len)
{
    if (!(r->hash.job.also = req_sha(r, a)))
        return false;
    r->hash.job.no_md5 = true;
    r->hash.job.final = true;
    r->hash.done = req_hashed;
    return hash_start(g, &r->hash, -1, mem, 0, len);
}

/* 'r' was answered but its MD5 is still with the workers: its ok handler runs
 * again when it is back. */
void req_park(struct engine *g, struct req *r)
{
    r->parked = true;
    g->parked++;
}

/* Jobs the workers finished: each goes to whoever asked. */
void hash_reap(struct engine *g)
{
    struct hash_job *j;

    while (g->hash && (j = hashpool_take(g->hash))) {
        struct eng_hash *h = j->ctx;

        h->busy = false;
        g->hashing--;
        h->done(g, h);
    }
}

/* ---- sending (what each kind says is build.c's) ------------------------------------ */

static void on_http_done(struct http_xfer *x, void *ctx)
{
    struct req *r = ctx;
    struct engine *g = r->eng;

    (void)x;
    g->inflight--;
    r->next = g->done;
    g->done = r;
}

/* The request's SHA context for algorithm 'a' (made, or remade for another, on first use), reset; NULL on OOM. */
struct hash_ctx *req_sha(struct req *r, enum ck_algo a)
{
    if (r->sha && r->sha_algo != a) {
        hash_free(r->sha);
        r->sha = NULL;
    }
    if (!r->sha && !(r->sha = a == CK_SHA1 ? hash_sha1_new() : hash_sha256_new()))
        return NULL;
    r->sha_algo = a;
    hash_reset(r->sha);
    return r->sha;
}

struct store_s3 *req_store(const struct engine *g, const struct req *r)
{
    switch (r->kind) {
    case RK_GET:
    case RK_HEAD_SRC:
    case RK_GET_TAGS:
    case RK_HEAD_SOURCE:
    case RK_HEAD_BUCKET:
    case RK_HEAD_INFO:
    case RK_HEAD_PART1:
    case RK_PROVE_SRC:
    case RK_RELAY_GET:
        return g->src_s3;
    case RK_DELETE:
    case RK_DELETE_ONE:
        return g->opts.src_deletes ? g->src_s3 : g->s3;
    default:
        return g->s3;
    }
}

/*
 * Describe 'r' to the store and send it: what every kind shares (a new
 * exchange's state, the request-payer header, the SSE-C keys, the hash
 * worker of a streamed body, payload signing) around its builder from the
 * table (build.c), which says the rest.
 */
enum s3c_err req_submit(struct engine *g, struct req *r, struct s3c_error *e)
{
    const struct req_builder *b = &req_builders[r->kind];
    struct xfer_obj *o = r->os->o;
    struct s3_req q;
    const struct xfer_obj_opts *oo = o->opts;
    char sha[2 * SHA256_LEN + 1];
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
    r->got = r->crc = 0;
    r->stage_at = r->staged = 0;
    r->sent_mem = false;
    r->local_failed = false;
    r->flex = false;
    http_xfer_release(&r->http); /* a retry's previous reply */
    memset(&r->http, 0, sizeof(r->http));
    r->http.body_max = REPLY_BODY_MAX;
    r->http.keep_on_cancel = b->keep_on_cancel;
    r->http.slow_answer = b->slow_answer;
    if (oo && oo->request_payer)
        s3_req_header(&q, "x-amz-request-payer", oo->request_payer);
    if ((rc = b->build(g, r, &q, e)))
        return rc;
    /* A body streamed from the file: a hash worker reads the same bytes. */
    if (q.read && !req_md5_sent(g, r))
        return s3c_fail(e, S3C_ENOMEM, "cannot start a thread to hash %s", o->src);
    if (oo && (rc = add_sse_c(r, &q, oo, e)))
        return rc;
    q.object_data = req_sends_data(r->kind);
    if (q.read && store_s3_signs_payload(req_store(g, r))) {
        /* payload_signing_enabled: the file's bytes signed by their SHA-256
         * (then no aws-chunked trailer: the signature covers them). */
        if ((rc = body_sha256(r, sha, e)))
            return rc;
        q.payload_sha256 = sha;
        q.trailer = r->flex = false;
        if (!req_md5_sent(g, r)) /* no trailer's echo to prove them: their MD5 does */
            return s3c_fail(e, S3C_ENOMEM, "cannot start a thread to hash %s", o->src);
    }
    rc = store_s3_prepare(req_store(g, r), &q, &r->call, &r->http, e);
    if (rc)
        return rc;
    if (g->opts.bwlimit_bytes_s && r->mem.len && req_sends_data(r->kind))
        g->bw_tokens -= (double)r->mem.len; /* memory bodies do not pass read_src */
    r->http.done = on_http_done;
    r->http.done_ctx = r;
    r->http.fresh_connect = r->hg.fresh; /* sent again after a slow connection (hedge.c) */
    r->http.big_body = r->kind == RK_GET && r->len >= HTTP_BIG_BODY_BYTES;
    r->hg.fresh = false;
    rc = http_loop_submit(g->loop, &r->http, e);
    if (rc)
        return rc;
    g->inflight++;
    g->stats.requests++;
    if (g->watch)
        g->watch->sent(g, r);
    return S3C_OK;
}

/*
 * payload_signing_enabled: the SHA-256 of the file's bytes 'r' streams,
 * read once more before they go. On the loop thread, as botocore reads a
 * body to hash it before sending: the cost that configuration asks for
 * (a pass over the bytes at SHA-256's speed, every part, every retry).
 */
static enum s3c_err body_sha256(struct req *r, char hex[2 * SHA256_LEN + 1], struct s3c_error *e)
{
    enum { CHUNK = 1 << 20 };
    struct hash_ctx *h = hash_sha256_new();
    unsigned char d[SHA256_LEN];
    char *buf = malloc(CHUNK);
    uint64_t done = 0;
    enum s3c_err rc = S3C_OK;

    if (!h || !buf) {
        rc = s3c_fail(e, S3C_ENOMEM, "out of memory");
        goto out;
    }
    while (done < r->len) {
        size_t want = r->len - done < CHUNK ? (size_t)(r->len - done) : CHUNK;
        ssize_t got = pread(r->os->fd, buf, want, (off_t)(r->off + done));

        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0) {
            rc = got < 0 ? s3c_fail_errno(e, errno, "cannot read %s", r->os->o->src)
                         : s3c_fail(e, S3C_EIO, "%s shrank while it was read", r->os->o->src);
            goto out;
        }
        hash_update(h, buf, (size_t)got);
        done += (uint64_t)got;
    }
    hash_final(h, d);
    str_hex(d, SHA256_LEN, hex);
out:
    free(buf);
    hash_free(h);
    return rc;
}

/*
 * A file's bytes about to be streamed (PutObject, UploadPart): the MD5 their
 * ETag is checked against, by a hash worker reading the file alongside the
 * send, and the SHA their trailer carries when the checksum is one. No MD5
 * when the store is known to check the trailer: its echo proves them
 * (verify_sent). False when no worker could start.
 */
static bool req_md5_sent(struct engine *g, struct req *r)
{
    bool sha = r->flex && !ck_is_crc(obj_ck(r->os->o));
    bool md5 = g->opts.verify && !(r->flex && g->flex_known);

    if ((!md5 && !sha) || r->hash.ready || r->hash.busy)
        return true;
    if (!sha)
        return req_hash_file(g, r, r->os->fd, r->off, r->len);
    if (!req_sha(r, obj_ck(r->os->o)))
        return false;
    md5_init(&r->hash.job.md5);
    r->hash.job.final = true;
    r->hash.job.also = r->sha;
    r->hash.job.no_md5 = !md5;
    r->hash.done = req_hashed;
    return hash_start(g, &r->hash, r->os->fd, NULL, r->off, r->len);
}

/* Whether 'r' would stream its body with a trailer. */
static bool wants_trailer(const struct engine *g, const struct req *r)
{
    return flex_ok(g) && !r->mem.len && r->len > 0 &&
           (r->kind == RK_PUT || (r->kind == RK_PART && obj_mpu_crc(r->os)));
}

void submit_or_fail(struct engine *g, struct req *r)
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

struct req *due_retry(struct engine *g, int64_t now)
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

/* ---- failing and retrying ------------------------------------------------------ */

void obj_fail(struct engine *g, struct xfer_obj_state *os, const struct s3c_error *e)
{
    const struct mpu_state *m = mpu_find(os);

    if (!os->failed) {
        os->failed = true;
        os->err = *e;
        if (g->ops[os->family].failed)
            g->ops[os->family].failed(g, os);
    }
    active_remove(g, os);
    /* A multipart upload that got an id must be aborted, or its parts stay billed; a stream's
     * appends are deleted, or a part of it is read as the whole. */
    if (((m && m->upload_id) || stdin_partial(g, os)) && os->phase != PH_ABORT && os->phase != PH_END) {
        obj_abort(g, os);
        return;
    }
    if (os->phase != PH_ABORT)
        obj_phase_set(g, os, PH_END);
}

/* Send the Abort of the multipart upload 'os' holds (PH_ABORT), or, when it
 * cannot go, end the object (PH_END: the upload stays open). */
void obj_abort(struct engine *g, struct xfer_obj_state *os)
{
    struct req *r = req_get(g, os, RK_ABORT);
    struct s3c_error ae = S3C_ERROR_INIT;

    obj_phase_set(g, os, PH_ABORT);
    if (!r || req_submit(g, r, &ae)) {
        if (r)
            req_put_back(g, r);
        obj_phase_set(g, os, PH_END);
    }
}

bool get_in_full(struct engine *g, struct req *r)
{
    struct s3c_error e = S3C_ERROR_INIT;

    if (r->local_failed) {
        /* Disk full or unwritable: retrying will not help. A store that sent
         * too much is a store error: retry that. */
        req_fail(g, r, &r->local_err, r->local_err.code == S3C_EHTTP, 0);
        return false;
    }
    if (r->got != r->len) {
        s3c_fail(&e, S3C_EHTTP, "short body: got %" PRIu64 " of %" PRIu64 " bytes", r->got, r->len);
        req_fail(g, r, &e, true, 0);
        return false;
    }
    return true;
}

void maybe_finish(struct engine *g, struct xfer_obj_state *os)
{
    const struct dl_check_state *c = dlc_find(os);
    const struct mpu_state *m = mpu_find(os);
    bool (*redo)(struct engine *, struct xfer_obj_state *) = g->ops[os->family].redo;

    if (os->phase == PH_END && os->reqs == 0 && !(c && c->seq_hash.busy) && !(m && m->checks_out) &&
        !(os->prove && os->prove->hash.busy) &&
        !(redo && redo(g, os)))
        obj_finish(g, os);
}

const char *req_op_name(enum req_kind k)
{
    switch (k) {
    case RK_PUT:
    case RK_APPEND: return "PutObject";
    case RK_CREATE: return "CreateMultipartUpload";
    case RK_PART: return "UploadPart";
    case RK_COMPLETE: return "CompleteMultipartUpload";
    case RK_ABORT:
    case RK_ABORT_STALE: return "AbortMultipartUpload"; /* a stream's appends: DeleteObject (build_abort) */
    case RK_GET:
    case RK_RELAY_GET: return "GetObject";
    case RK_COPY: return "CopyObject";
    case RK_RENAME: return "RenameObject";
    case RK_COPY_PART: return "UploadPartCopy";
    case RK_HEAD_SRC:
    case RK_HEAD_INFO:
    case RK_HEAD_PART1:
    case RK_HEAD_DST:
    case RK_CHECK_DST:
    case RK_HEAD_SOURCE:
    case RK_PROVE_SRC:
    case RK_PROVE_DST:
    case RK_APPEND_HEAD: return "HeadObject";
    case RK_HEAD_BUCKET: return "HeadBucket";
    case RK_GET_TAGS: return "GetObjectTagging";
    case RK_PUT_TAGS: return "PutObjectTagging";
    case RK_CHECK_TAGS: return "GetObjectTagging";
    case RK_DELETE: return "DeleteObjects";
    case RK_DELETE_ONE: return "DeleteObject";
    case RK_LIST_PARTS: return "ListParts";
    case RK_GET_VERSIONING: return "GetBucketVersioning";
    case RK_RESTORE: return "RestoreObject";
    case RK_COUNT: break;
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

/*
 * A write carrying SSE-C (a PutObject, CreateMultipartUpload or CopyObject with a customer key
 * for what it writes) refused with 403 AccessDenied: AWS documents exactly this answer for a
 * bucket that blocks SSE-C, the default of new buckets since April 2026, and no message of its
 * own; so 'e' says it may be that, and how to allow it. Short: stop_run keeps 300 characters.
 */
static void ssec_blocked_hint(const struct req *r, struct s3c_error *e)
{
    const struct xfer_obj_opts *oo = r->os->o->opts;
    size_t n = strlen(e->msg);

    if (e->http_status != 403 || strcmp(e->s3_code, "AccessDenied") != 0 || !oo || !oo->sse_c_key ||
        (r->kind != RK_PUT && r->kind != RK_CREATE && r->kind != RK_COPY))
        return;
    if (n && e->msg[n - 1] == '.')
        e->msg[--n] = '\0';
    snprintf(e->msg + n, sizeof(e->msg) - n, "%s", ": the bucket may block SSE-C writes, as new AWS buckets do "
             "since April 2026; allow them with put-bucket-encryption (BlockedEncryptionTypes NONE), or use --sse");
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
                 r->kind == RK_HEAD_SRC || r->kind == RK_GET_TAGS || r->kind == RK_RELAY_GET;

    if (g->stop)
        return;
    if (n && e->msg[n - 1] == '.')
        e->msg[n - 1] = '\0';
    /* The operation is e->op's (the line names it); the message names the bucket. */
    if (o->op == XFER_COPY && !reads)
        snprintf(msg, sizeof(msg), "%.300s (from s3://%s to s3://%s); stopped, nothing more was tried",
                 e->msg, o->src_bucket, o->dst_bucket);
    else
        snprintf(msg, sizeof(msg), "%.300s (s3://%s); stopped, nothing more was tried", e->msg,
                 reads || o->op == XFER_DELETE || o->op == XFER_RESTORE ? o->src_bucket : o->dst_bucket);
    if (!e->op[0])
        str_copy(e->op, sizeof(e->op), req_op_name(r->kind));
    str_copy(e->msg, sizeof(e->msg), msg);
    g->stop = true;
    g->stop_err = *e;
}

/* A request failed with 'e': retry it after a backoff, or fail its object. */
void req_fail(struct engine *g, struct req *r, const struct s3c_error *e, bool retryable, long backoff_ms)
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
    if (g->kinds[r->kind].gave_up) {
        g->kinds[r->kind].gave_up(g, r, e); /* a DeleteObjects batch: its keys end with it */
        return;
    }
    if (r->kind == RK_ABORT) {
        /* Nothing more to do for an object that already failed. */
        obj_phase_set(g, os, PH_END);
    } else {
        obj_fail(g, os, e);
    }
    req_put_back(g, r);
    maybe_finish(g, os);
}

/* ---- judging a finished exchange ------------------------------------------------ */

/*
 * Judge one finished exchange: what the store said (store_s3_judge), what
 * the engine learns from it (flexible checksums, throttling, a run-wide
 * error), then retry it, fail it (req_fail), or hand the answer to its
 * kind's handlers (g->kinds, engine.h).
 */
void req_done(struct engine *g, struct req *r)
{
    const struct req_ops *ops = &g->kinds[r->kind];
    struct s3c_error e = S3C_ERROR_INIT;
    enum store_s3_verdict v;
    long backoff = 0;
    bool free_retry = false;

    if (g->watch && g->watch->done(g, r))
        return; /* a hedged request's loser, or a slow one sent again */
    g->window_reqs++;
    if (ops->late && (r->os->failed || stopping(g)) && ops->late(g, r))
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
    v = store_s3_judge(req_store(g, r), &r->call, &r->http, r->attempt, &backoff, &free_retry, &e);
    if (v == STORE_S3_OK) {
        flex_learn(g, r);
        link_observe(g, r);
    } else if (r == g->flex_probe && !(r->flex && flex_refused(&e)))
        flex_release(g); /* no verdict: the next streamed body probes again */
    if (v == STORE_S3_FAIL)
        ssec_blocked_hint(r, &e);
    /* A refusal that answers something (HEAD ?partNumber=1, ListParts of a gone upload). */
    if (v == STORE_S3_FAIL && ops->refused && ops->refused(g, r, &e))
        return;
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
            mpu_of(r->os)->mpu_crc = false;
        r->attempt--; /* not the request's fault: a free retry */
        req_fail(g, r, &e, true, 1);
        return;
    }
    if (v == STORE_S3_FAIL && !strcmp(e.s3_code, "BadDigest") && r->attempt + 1 < store_s3_max_attempts(g->s3))
        v = STORE_S3_RETRY; /* the bytes were damaged on the way: send them again */
    /* Not for a killed run's upload's Abort: refused, it leaves a warning, and the run goes on. */
    if (v == STORE_S3_FAIL && r->kind != RK_ABORT && r->kind != RK_ABORT_STALE && run_wide_error(g, &e))
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
        if (ops->failed && ops->failed(g, r, v, &e))
            return;
        req_fail(g, r, &e, v == STORE_S3_RETRY, backoff);
        return;
    }
    ops->ok(g, r);
}

/* ---- probe gates ------------------------------------------------------------------- */

enum s3c_err gate_park(struct probe_gate *pg, struct xfer_obj_state *os, struct s3c_error *e)
{
    if (pg->n == pg->cap) {
        size_t cap = pg->cap ? 2 * pg->cap : 64;
        struct xfer_obj_state **w = realloc(pg->wait, cap * sizeof(*w));

        if (!w)
            return s3c_fail(e, S3C_ENOMEM, "out of memory");
        pg->wait = w;
        pg->cap = cap;
    }
    pg->wait[pg->n++] = os;
    return S3C_OK;
}

void gate_drain(struct engine *g, struct probe_gate *pg, bool learnt, gate_route_fn route)
{
    size_t i = 0;

    while (i < pg->n && (learnt || !pg->probe)) {
        struct xfer_obj_state *os = pg->wait[i++];
        struct s3c_error e = S3C_ERROR_INIT;
        struct req *r = NULL;

        if (route(g, os, &r, &e)) {
            obj_fail(g, os, &e);
            maybe_finish(g, os);
        } else if (r) {
            submit_or_fail(g, r);
        }
    }
    memmove(pg->wait, pg->wait + i, (pg->n - i) * sizeof(*pg->wait));
    pg->n -= i;
}

void gate_cancel(struct engine *g, struct probe_gate *pg, const struct s3c_error *e)
{
    while (pg->n) {
        struct xfer_obj_state *os = pg->wait[--pg->n];

        obj_fail(g, os, e);
        maybe_finish(g, os);
    }
}

void gate_forget(struct probe_gate *pg, const struct req *r)
{
    if (pg->probe == r)
        pg->probe = NULL;
}

void gate_free(struct probe_gate *pg)
{
    free(pg->wait);
    *pg = (struct probe_gate){ 0 };
}
