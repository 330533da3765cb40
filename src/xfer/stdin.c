/*
 * Uploads from standard input: read in order, never seeked, into parts that
 * grow when no size is expected; a window of parts in memory. The parts go
 * as a multipart upload (multipart.c), each once its Content-MD5 (and a SHA
 * checksum) is back from the hash workers when one is needed. The family of
 * struct obj_stdin. Calls req.c, verify.c, part.c, resume.c (mpu_release)
 * and multipart.c; no other family.
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <unistd.h>

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

/* stdin: read the first part; if stdin ends within it, one PUT from memory,
 * else a multipart upload whose parts are read as they are sent. */
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
    if (got < os->part_size) {
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
    obj_phase_set(g, os, PH_CREATE);
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
    /* Block on stdin only when nothing of ours is in flight to stall. */
    if (stdin_fill(in, want, os->reqs == 0, &e)) {
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
            send_complete(g, os);
        return NULL;
    }
    r = req_get(g, os, RK_PART);
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
    /* A part's flexible checksum only when the upload declared it. */
    return mem_digests_later(g, r, in->mpu.mpu_crc, false) ? NULL : r;
}

void stdin_release(struct xfer_obj_state *os)
{
    struct obj_stdin *in = stdin_of(os);

    mpu_release(&in->mpu);
    buf_release(&in->pending);
    while (in->n_spare > 0)
        buf_release(&in->spare[--in->n_spare]);
}
