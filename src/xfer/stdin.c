/*
 * Uploads from standard input: read in order, never seeked, into parts that
 * grow when no size is expected; a window of parts in memory. The parts go
 * as a multipart upload (multipart.c), each once its Content-MD5 is back
 * from the hash workers when one is needed. Calls req.c, verify.c, part.c
 * and multipart.c; no other family.
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stddef.h>
#include <unistd.h>

#include "base/md5.h"
#include "xfer/engine.h"

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

/* A body's Content-MD5 is back from the hash workers: send it (or let it go,
 * its object failed or the run stops). */
static void part_hashed(struct engine *g, struct eng_hash *h)
{
    struct req *r = (struct req *)((char *)h - offsetof(struct req, hash));
    struct xfer_obj_state *os = r->os;
    struct s3c_error e = S3C_ERROR_INIT;

    if (os->failed) {
        req_put_back(g, r);
        maybe_finish(g, os);
        return;
    }
    if (stopping(g) || h->job.err.code) {
        if (h->job.err.code)
            e = h->job.err;
        else
            s3c_fail(&e, S3C_ECANCEL, "%s", cancel_requested ? "interrupted" : "stopped");
        req_fail(g, r, &e, false, 0);
        return;
    }
    mem_md5_set(r, h->job.digest);
    submit_or_fail(g, r);
}

/*
 * The digests of a body read from stdin (mem_crc, mem_needs_md5): its
 * Content-MD5, when one is needed, is a hash worker's. True when the request
 * waits for it (part_hashed sends it); false when it can go now (no MD5
 * needed, or no worker could start and it was hashed here).
 */
static bool md5_later(struct engine *g, struct req *r, bool whole_object)
{
    mem_crc(g, r, whole_object);
    if (!mem_needs_md5(g, whole_object))
        return false;
    md5_init(&r->hash.job.md5);
    r->hash.job.final = true;
    r->hash.done = part_hashed;
    if (hash_start(g, &r->hash, -1, r->mem.data, 0, r->mem.len))
        return true;
    mem_digests(g, r, whole_object);
    return false;
}

/* stdin: read the first part; if stdin ends within it, one PUT from memory,
 * else a multipart upload whose parts are read as they are sent. */
enum s3c_err stdin_start(struct engine *g, struct xfer_obj_state *os, struct req **out, struct s3c_error *e)
{
    struct req *r;
    uint64_t got;
    enum s3c_err rc;

    *out = NULL;
    os->stream = true;
    os->fd = STDIN_FILENO;
    /* An expected size fixes the part size (10,000 parts hold it); without
     * one, parts start at the default and grow. */
    os->part_size = xfer_part_size(g->opts.expected_size, g->opts.part_size);
    os->grow = g->opts.expected_size == 0;
    if ((rc = stdin_fill(os, os->part_size, true, e)))
        return rc;
    got = os->pending.len;
    if (got < os->part_size) {
        /* All of stdin fits one part: a single PUT from memory. */
        r = req_get(g, os, RK_PUT);
        if (!r)
            return s3c_fail(e, S3C_ENOMEM, "out of memory");
        buf_release(&r->mem);
        r->mem = os->pending;
        os->pending = (struct buf)BUF_INIT(0);
        r->len = got;
        os->size = got;
        os->phase = PH_SINGLE;
        if (!md5_later(g, r, true))
            *out = r; /* else sent once its Content-MD5 is back (part_hashed) */
        return S3C_OK;
    }
    os->phase = PH_CREATE;
    r = req_get(g, os, RK_CREATE);
    if (!r)
        return s3c_fail(e, S3C_ENOMEM, "out of memory");
    *out = r;
    return S3C_OK;
}

/*
 * The next part of stdin as a part request; NULL when there is none yet (its
 * bytes are still coming, or the window of parts in memory is full), at the
 * end, or on error. Memory: the window plus the part being filled.
 */
struct req *next_stream_part(struct engine *g, struct xfer_obj_state *os)
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
    if (os->eof) {
        active_remove(g, os);
        os->n_parts = r->part;
    }
    /* A part's CRC64NVME only when the upload declared it. */
    return md5_later(g, r, os->mpu_crc) ? NULL : r;
}
