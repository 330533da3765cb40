/*
 * Uploads from standard input: read in order, never seeked, into parts that
 * grow when no size is expected; a window of parts in memory. The parts go
 * as a multipart upload (multipart.c), each once its Content-MD5 (and a SHA
 * checksum) is back from the hash workers when one is needed; or, to a
 * directory bucket when no size is expected, as appends (obj_stdin.append).
 * The family of struct obj_stdin. Calls req.c, verify.c, part.c, resume.c
 * (mpu_release) and multipart.c; no other family.
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "s3/endpoint.h"
#include "xfer/engine.h"

/*
 * Read stdin into in->pending until it holds 'want' bytes or stdin ends
 * (in->eof). Without 'block', only what is there now: parts in flight keep
 * moving while a slow producer writes (poll, not O_NONBLOCK, which would
 * change the file for every process that shares it).
 */
static enum s3c_err stdin_fill(struct obj_stdin *in, uint64_t want, bool block, struct s3c_error *e)
{
    while (!in->pending.data && in->n_spare > 0) {
        struct buf b = in->spare[--in->n_spare];
        if (b.cap > want) {
            in->pending = b;
            in->pending.len = 0;
            in->pending.max = (size_t)want + 1;
        } else {
            buf_release(&b); /* parts grew past it */
        }
    }
    if (!in->pending.data) {
        in->pending = (struct buf)BUF_INIT((size_t)want + 1);
        if (buf_grow(&in->pending, (size_t)want))
            return s3c_fail(e, S3C_ENOMEM, "out of memory for a part of standard input");
    }
    while (in->pending.len < want && !in->eof) {
        struct pollfd p = { .fd = in->head.fd, .events = POLLIN };
        int ready = poll(&p, 1, block ? -1 : 0);
        ssize_t n;

        if (cancel_requested)
            return s3c_fail(e, S3C_ECANCEL, "interrupted");
        if (ready < 0 && errno == EINTR)
            continue;
        if (ready == 0)
            break;
        n = read(in->head.fd, in->pending.data + in->pending.len, (size_t)(want - in->pending.len));
        if (n < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (n < 0)
            return s3c_fail_errno(e, errno, "cannot read standard input");
        if (n == 0)
            in->eof = true;
        in->pending.len += (size_t)n;
    }
    return S3C_OK;
}

/*
 * Whether a stream goes as appends: to a directory bucket (the only kind
 * that takes them), of a size no one said (an expected size is what a
 * multipart upload's parallel parts are for), with a CRC the store keeps of
 * the whole (the proof at the end, and what --resume checks the stream
 * against). Not under --no-overwrite: its If-None-Match: * is for a write
 * that lands whole.
 */
static bool append_wanted(const struct engine *g, const struct xfer_obj_state *os)
{
    const struct xfer_obj_opts *oo = os->o->opts;

    return s3_bucket_is_express(os->o->dst_bucket) && g->opts.expected_size == 0 && g->opts.flexible_checksums &&
           ck_is_crc(obj_ck(os->o)) && !(oo && oo->no_overwrite);
}

/* stdin: read the first part; if stdin ends within it, one PUT from memory,
 * else a multipart upload whose parts are read as they are sent, or appends. */
enum s3c_err stdin_start(struct engine *g, struct xfer_obj_state *os, struct req **out, struct s3c_error *e)
{
    struct obj_stdin *in = stdin_of(os);
    struct req *r;
    uint64_t got;
    enum s3c_err rc;

    *out = NULL;
    in->pending = (struct buf)BUF_INIT(0);
    mpu_init(&in->mpu);
    os->fd = STDIN_FILENO;
    /* An expected size fixes the part size (10,000 parts hold it); without
     * one, parts start at the default and grow. */
    os->part_size = xfer_part_size(g->opts.expected_size, g->opts.part_size);
    in->grow = g->opts.expected_size == 0;
    if ((rc = stdin_fill(in, os->part_size, true, e)))
        return rc;
    got = in->pending.len;
    /* --resume: even a stream that fits one part is checked against what the object holds. */
    if (got < os->part_size && !(g->opts.resume && append_wanted(g, os))) {
        /* All of stdin fits one part: a single PUT from memory. */
        r = req_get(g, os, RK_PUT);
        if (!r)
            return s3c_fail(e, S3C_ENOMEM, "out of memory");
        buf_release(&r->mem);
        r->mem = in->pending;
        in->pending = (struct buf)BUF_INIT(0);
        r->len = got;
        os->size = got;
        obj_phase_set(g, os, PH_SINGLE);
        if (!mem_digests_later(g, r, true, false))
            *out = r; /* else sent once its digests are back (mem_digests_later) */
        return S3C_OK;
    }
    if (append_wanted(g, os)) {
        /* Its appends come from the active list, as a multipart upload's parts do. */
        in->append = true;
        obj_phase_set(g, os, PH_PARTS);
        os->next_part = 1;
        os->next = g->active;
        g->active = os;
        if (g->opts.resume) {
            /* What a killed run appended: the HEAD says how much (on_append_head). */
            in->resuming = true;
            if (!(*out = req_get(g, os, RK_APPEND_HEAD)))
                return s3c_fail(e, S3C_ENOMEM, "out of memory");
        }
        return S3C_OK;
    }
    obj_phase_set(g, os, PH_CREATE);
    r = req_get(g, os, RK_CREATE);
    if (!r)
        return s3c_fail(e, S3C_ENOMEM, "out of memory");
    *out = r;
    return S3C_OK;
}

static void append_prove(struct engine *g, struct xfer_obj_state *os);
static void resume_check_next(struct engine *g, struct xfer_obj_state *os);

/*
 * The next part of stdin as a part request; NULL when there is none yet (its
 * bytes are still coming, or the window of parts in memory is full), at the
 * end, or on error. Memory: the window plus the part being filled.
 */
static struct req *stream_part(struct engine *g, struct xfer_obj_state *os)
{
    struct obj_stdin *in = stdin_of(os);
    struct s3c_error e = S3C_ERROR_INIT;
    uint64_t want = xfer_stream_part_size(os->part_size, os->next_part, in->grow);
    struct req *r;
    size_t got;

    if (os->next_part > S3_MAX_PARTS) {
        if (in->grow)
            s3c_fail(&e, S3C_EUSAGE, "standard input is larger than 10,000 parts hold (%" PRIu64
                     " bytes growing to %" PRIu64 "): give --expected-size", os->part_size,
                     xfer_stream_part_size(os->part_size, S3_MAX_PARTS, true));
        else
            s3c_fail(&e, S3C_EUSAGE, "standard input is larger than --expected-size said: 10,000 "
                     "parts of %" PRIu64 " bytes are full", os->part_size);
        obj_fail(g, os, &e);
        return NULL;
    }
    if (in->resuming) {
        if (os->reqs == 0 && in->skip_known)
            resume_check_next(g, os);
        return NULL;
    }
    if (in->append && (os->reqs > 0 || in->lost)) {
        /* One append at a time (each names the offset the last ended at); meanwhile what
         * stdin has is read, once the first is taken (until then an object already at the
         * key may turn the stream into a multipart upload that sends these bytes first). */
        if (in->appended && stdin_fill(in, want, false, &e))
            obj_fail(g, os, &e);
        return NULL;
    }
    /* Never block on stdin: the loop waits for it in its poll (stdin_wait), so a slow
     * producer holds no loop thread, and an interrupt is seen at once. */
    if (stdin_fill(in, want, false, &e)) {
        obj_fail(g, os, &e);
        return NULL;
    }
    if (in->pending.len < want && !in->eof) {
        g->stdin_wait = true;
        return NULL;
    }
    if (os->reqs >= (int)xfer_window_parts(want))
        return NULL;
    got = in->pending.len;
    if (got == 0) {
        /* The previous part was the last. */
        active_remove(g, os);
        os->n_parts = os->next_part - 1;
        if (os->parts_done == os->n_parts && !os->failed)
            in->append ? append_prove(g, os) : send_complete(g, os);
        return NULL;
    }
    r = req_get(g, os, in->append ? RK_APPEND : RK_PART);
    if (!r)
        return NULL;
    buf_release(&r->mem);
    r->mem = in->pending;
    in->pending = (struct buf)BUF_INIT(0);
    r->part = os->next_part++;
    r->off = os->size;
    r->len = got;
    os->size += got;
    if (in->eof) {
        active_remove(g, os);
        os->n_parts = r->part;
    }
    /* A part's flexible checksum only when the upload declared it; an append's always. */
    return mem_digests_later(g, r, in->append || in->mpu.mpu_crc, false) ? NULL : r;
}

struct req *next_stream_part(struct engine *g, struct xfer_obj_state *os)
{
    struct req *r = stream_part(g, os);

    /* A failure here (stdin unreadable, too long, not what --resume found) may leave nothing
     * in flight whose answer would end the object. */
    if (!r && os->failed)
        maybe_finish(g, os);
    return r;
}

/* ---- appends ------------------------------------------------------------------- */

/* The last append is taken: the whole stream is in; a HEAD proves it (on_append_head). */
static void append_prove(struct engine *g, struct xfer_obj_state *os)
{
    struct req *r = req_get(g, os, RK_APPEND_HEAD);

    obj_phase_set(g, os, PH_COMPLETE);
    if (r)
        submit_or_fail(g, r);
    else
        obj_fail(g, os, &(struct s3c_error){ .code = S3C_ENOMEM, .msg = "out of memory" });
}

/* Append 'r' is in the object, which now has ETag 'etag' (SV_NULL: none said). */
static void append_took(struct engine *g, struct req *r, struct sv etag)
{
    struct xfer_obj_state *os = r->os;
    struct obj_stdin *in = stdin_of(os);

    in->crc = in->appended ? ck_combine(obj_ck(os->o), in->crc, r->mem_crc, r->len) : r->mem_crc;
    in->appended += r->len;
    in->append_etag[0] = '\0';
    if (etag.n < sizeof(in->append_etag)) {
        memcpy(in->append_etag, etag.p, etag.n);
        in->append_etag[etag.n] = '\0';
    }
    g->stats.bytes += r->len;
    os->parts_done++;
    stdin_keep_buffer(os, &r->mem);
    req_put_back(g, r);
    if (!os->failed && in->eof && os->parts_done == os->n_parts)
        append_prove(g, os);
    maybe_finish(g, os);
}

void on_append(struct engine *g, struct req *r)
{
    unsigned char md5[MD5_LEN];
    struct sv etag = SV_NULL;
    bool known;

    if (!sent_answer_ok(g, r, md5, &known))
        return;
    http_resp_header(&r->http.resp, "etag", &etag);
    append_took(g, r, etag);
}

/*
 * The first append found an object at the key (offset 0 is the size of no
 * object but an empty one): a multipart upload replaces it whole instead, its
 * first part the bytes that append held (no read of stdin went past them).
 */
static void append_to_multipart(struct engine *g, struct req *r)
{
    struct xfer_obj_state *os = r->os;
    struct obj_stdin *in = stdin_of(os);
    struct req *nr;

    xdebug(g, os->o, "an object is at s3://%s/%s already: a multipart upload replaces it (appends would add to it)",
           os->o->dst_bucket, os->o->dst);
    in->append = false;
    active_remove(g, os);
    buf_release(&in->pending);
    in->pending = r->mem;
    r->mem = (struct buf)BUF_INIT(0);
    os->size = os->parts_done = os->n_parts = 0;
    os->next_part = 1;
    req_put_back(g, r);
    obj_phase_set(g, os, PH_CREATE);
    if ((nr = req_get(g, os, RK_CREATE)))
        submit_or_fail(g, nr);
    else
        obj_fail(g, os, &(struct s3c_error){ .code = S3C_ENOMEM, .msg = "out of memory" });
    maybe_finish(g, os);
}

/*
 * InvalidWriteOffset: the object is not the size the append names. On a first
 * try at offset 0, another object is there (append_to_multipart); else our own
 * earlier try may have landed with its answer lost, or another writer changed
 * the object: a HEAD tells (on_append_head), the append held meanwhile.
 */
bool append_refused(struct engine *g, struct req *r, const struct s3c_error *e)
{
    struct xfer_obj_state *os = r->os;
    struct req *h;

    if (strcmp(e->s3_code, "InvalidWriteOffset") != 0)
        return false;
    if (r->off == 0 && r->attempt == 0) {
        append_to_multipart(g, r);
        return true;
    }
    if (!(h = req_get(g, os, RK_APPEND_HEAD)))
        return false;
    stdin_of(os)->lost = r;
    submit_or_fail(g, h);
    return true;
}

/* ---- --resume: the stream's start checked against what the object holds ------- */

/* The stream's check failed: nothing is appended; the object stays as it is. */
static void resume_fail(struct engine *g, struct xfer_obj_state *os, const char *why)
{
    struct s3c_error e = S3C_ERROR_INIT;

    s3c_fail(&e, S3C_EPARSE, "--resume: s3://%s/%s %s: nothing appended (without --resume the stream "
             "replaces it)", os->o->dst_bucket, os->o->dst, why);
    obj_fail(g, os, &e);
}

/* The check is through all the object holds: its CRC is the stream's start, or not. */
static void resume_checked(struct engine *g, struct xfer_obj_state *os)
{
    struct obj_stdin *in = stdin_of(os);
    char ck[CK_B64_MAX], why[200];

    ck_crc_b64(obj_ck(os->o), in->crc, ck);
    if (strcmp(ck, in->skip_ck) != 0) {
        snprintf(why, sizeof(why), "(%" PRIu64 " bytes, %s %s) is not the start of this stream (%s %s)", in->skip,
                 ck_name(obj_ck(os->o)), in->skip_ck, ck_name(obj_ck(os->o)), ck);
        resume_fail(g, os, why);
        return;
    }
    xdebug(g, os->o, "--resume: s3://%s/%s holds the stream's first %" PRIu64 " bytes: appends go on from there",
           os->o->dst_bucket, os->o->dst, in->skip);
    in->resuming = false;
    os->size = in->appended;
}

/* The next of the stream's bytes the object holds are hashed (a worker's CRC, continued): on. */
static void resume_hashed(struct engine *g, struct eng_hash *h)
{
    struct req *r = (struct req *)((char *)h - offsetof(struct req, hash));
    struct xfer_obj_state *os = r->os;
    struct obj_stdin *in = stdin_of(os);
    size_t tail = r->mem.len - (size_t)r->len;

    if (mem_hash_ended(g, r))
        return;
    in->crc = h->job.crc_val;
    in->appended += r->len;
    if (tail) {
        /* Read past what the object holds (the first part): the rest is the first append's. */
        memmove(r->mem.data, r->mem.data + r->len, tail);
        r->mem.len = tail;
        buf_release(&in->pending);
        in->pending = r->mem;
        r->mem = (struct buf)BUF_INIT(0);
    } else {
        stdin_keep_buffer(os, &r->mem);
    }
    req_put_back(g, r);
    if (in->appended == in->skip)
        resume_checked(g, os);
    maybe_finish(g, os);
}

/* Read the next of the stream's bytes the object holds and hash them on a worker (resume_hashed). */
static void resume_check_next(struct engine *g, struct xfer_obj_state *os)
{
    struct obj_stdin *in = stdin_of(os);
    uint64_t left = in->skip - in->appended, want = left < os->part_size ? left : os->part_size, n;
    struct s3c_error e = S3C_ERROR_INIT;
    struct hash_job *j;
    struct req *r;
    char why[160];

    if (stdin_fill(in, want, false, &e)) {
        obj_fail(g, os, &e);
        return;
    }
    if (in->pending.len < want && !in->eof) {
        g->stdin_wait = true;
        return;
    }
    if (in->pending.len == 0) {
        snprintf(why, sizeof(why), "holds %" PRIu64 " bytes, but the stream ends after %" PRIu64, in->skip,
                 in->appended);
        resume_fail(g, os, why);
        return;
    }
    if (!(r = req_get(g, os, RK_APPEND))) {
        obj_fail(g, os, &(struct s3c_error){ .code = S3C_ENOMEM, .msg = "out of memory" });
        return;
    }
    n = in->pending.len < left ? in->pending.len : left;
    buf_release(&r->mem);
    r->mem = in->pending;
    in->pending = (struct buf)BUF_INIT(0);
    r->len = n;
    j = &r->hash.job;
    md5_init(&j->md5);
    j->final = true;
    j->also = NULL;
    j->no_md5 = true;
    j->crc = true;
    j->crc_algo = obj_ck(os->o);
    j->crc_val = in->crc;
    r->hash.done = resume_hashed;
    if (!hash_start(g, &r->hash, -1, r->mem.data, 0, n)) {
        j->crc_val = ck_update(j->crc_algo, in->crc, r->mem.data, (size_t)n); /* no worker: here */
        resume_hashed(g, &r->hash);
    }
}

/* The HEAD before a resumed stream: what the object holds, and its CRC, which the stream must start with. */
static void resume_head(struct engine *g, struct req *r)
{
    struct xfer_obj_state *os = r->os;
    struct obj_stdin *in = stdin_of(os);
    enum ck_algo a = obj_ck(os->o);
    struct sv v, type, etag;
    char why[160];

    in->skip_known = true;
    if (!http_resp_header(&r->http.resp, "content-length", &v) || !sv_to_u64(v, &in->skip)) {
        req_put_back(g, r);
        resume_fail(g, os, "answered HEAD with no size");
        maybe_finish(g, os);
        return;
    }
    if (http_resp_header(&r->http.resp, "etag", &etag) && etag.n < sizeof(in->append_etag)) {
        memcpy(in->append_etag, etag.p, etag.n);
        in->append_etag[etag.n] = '\0';
    }
    if (in->skip == 0) {
        in->resuming = false; /* an empty object: appends from its start */
    } else if (!http_resp_header(&r->http.resp, ck_header(a), &v) || v.n >= sizeof(in->skip_ck) ||
               memchr(v.p, '-', v.n) ||
               (http_resp_header(&r->http.resp, "x-amz-checksum-type", &type) && !sv_eqs(type, "FULL_OBJECT"))) {
        snprintf(why, sizeof(why), "(%" PRIu64 " bytes) has no full-object %s to check the stream against", in->skip,
                 ck_name(a));
        req_put_back(g, r);
        resume_fail(g, os, why);
        maybe_finish(g, os);
        return;
    } else {
        memcpy(in->skip_ck, v.p, v.n);
        in->skip_ck[v.n] = '\0';
    }
    req_put_back(g, r);
    maybe_finish(g, os);
}

/* The HEAD before a resumed stream found no object: the stream goes from its start. */
bool append_head_refused(struct engine *g, struct req *r, const struct s3c_error *e)
{
    struct xfer_obj_state *os = r->os;
    struct obj_stdin *in = stdin_of(os);

    if (!in->resuming || in->skip_known || e->http_status != 404)
        return false;
    in->skip_known = true;
    in->resuming = false;
    req_put_back(g, r);
    maybe_finish(g, os);
    return true;
}

/*
 * The HEAD of an appended stream's object: its size and CRC against the
 * bytes taken (and a held append's, stdin.lost). Equal: the whole is proven,
 * or the held append landed. Else another writer changed the object; an
 * offset-0 append that did not land finds an object not ours there.
 */
void on_append_head(struct engine *g, struct req *r)
{
    struct xfer_obj_state *os = r->os;
    struct obj_stdin *in = stdin_of(os);
    struct req *lost = in->lost;
    enum ck_algo a = obj_ck(os->o);
    struct s3c_error e = S3C_ERROR_INIT;
    uint64_t want = in->appended, want_crc = in->crc, size = 0;
    char ck[CK_B64_MAX] = "";
    struct sv v, etag = SV_NULL;
    bool sized, has_ck;

    if (in->resuming) {
        resume_head(g, r);
        return;
    }
    if (lost) {
        want_crc = want ? ck_combine(a, want_crc, lost->mem_crc, lost->len) : lost->mem_crc;
        want += lost->len;
    }
    ck_crc_b64(a, want_crc, ck);
    sized = http_resp_header(&r->http.resp, "content-length", &v) && sv_to_u64(v, &size) && size == want;
    has_ck = http_resp_header(&r->http.resp, ck_header(a), &v);
    http_resp_header(&r->http.resp, "etag", &etag);
    if (sized && has_ck && sv_eqs(v, ck)) {
        if (lost) {
            xdebug(g, os->o, "append at %" PRIu64 ": its answer was lost, but it landed", lost->off);
            in->lost = NULL;
            append_took(g, lost, etag); /* 'etag' is in r's answer: r goes back after */
            req_put_back(g, r);
            maybe_finish(g, os);
            return;
        }
        os->proven = true;
    } else if (sized && !has_ck && !lost) {
        os->unproven = "the store keeps no CRC of the appended object: only its size is checked";
    } else if (lost && lost->off == 0) {
        in->lost = NULL;
        req_put_back(g, r);
        append_to_multipart(g, lost);
        return;
    } else {
        s3c_fail(&e, S3C_EHTTP, "s3://%s/%s is %" PRIu64 " bytes (%s %.*s) after %" PRIu64 " bytes appended, not "
                 "%" PRIu64 " (%s %s): the store did not append, or another writer changed it", os->o->dst_bucket, os->o->dst, size, ck_name(a),
                 has_ck ? (int)v.n : 4, has_ck ? v.p : "none", in->appended, want, ck_name(a), ck);
        if (lost) {
            in->lost = NULL;
            req_put_back(g, lost);
        }
        req_put_back(g, r);
        obj_fail(g, os, &e);
        maybe_finish(g, os);
        return;
    }
    obj_phase_set(g, os, PH_END);
    req_put_back(g, r);
    maybe_finish(g, os);
}

/* The stream failed: an append held for a HEAD goes back; the error says what its appends left. */
void stdin_failed(struct engine *g, struct xfer_obj_state *os)
{
    struct obj_stdin *in = stdin_of(os);
    size_t n = strlen(os->err.msg);

    if (in->lost) {
        req_put_back(g, in->lost);
        in->lost = NULL;
    }
    if (stdin_partial(g, os))
        snprintf(os->err.msg + n, sizeof(os->err.msg) - n, " (the %" PRIu64 " bytes appended to s3://%s/%s are "
                 "deleted)", in->appended, os->o->dst_bucket, os->o->dst);
    else if (in->append && in->appended && !in->resuming)
        snprintf(os->err.msg + n, sizeof(os->err.msg) - n, " (s3://%s/%s keeps the stream's first %" PRIu64
                 " bytes: the same command with the same input appends the rest)", os->o->dst_bucket, os->o->dst,
                 in->appended);
}

void stdin_release(struct xfer_obj_state *os)
{
    struct obj_stdin *in = stdin_of(os);


    mpu_release(&in->mpu);
    buf_release(&in->pending);
    while (in->n_spare > 0)
        buf_release(&in->spare[--in->n_spare]);
}
