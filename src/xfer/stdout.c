/*
 * Downloads to standard output, the family of struct obj_dl_stdout: bytes
 * written in order, never seeked, and only once checked where they can be.
 * Ranged GETs in parallel land in a window of part buffers (win_slot) and go
 * out in order (on_stdout_part), each checked first where the store gives a
 * per-part check (DL_PARTS, DL_COMPOSITE), the whole held back until its
 * check passes when the window holds all of it (stdout_hold_check); the
 * stream's MD5 or SHA is a hash worker's, a written part at a time
 * (stdout_hash_kick); the verdict once all is out (stdout_verify). An object
 * of one range is one GET held in memory and written once checked. Shares
 * the probe, the GET's bytes and the whole-object check with files (calls
 * download.c), and req.c, verify.c, part.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/hash.h"
#include "base/md5.h"
#include "base/str.h"
#include "xfer/engine.h"

#define STDOUT_PART_MAX ((uint64_t)32 << 20)    /* stdout's largest range (xfer_stdout_part_size: half its window) */

static enum s3c_err stdout_start_parts(struct engine *g, struct xfer_obj_state *os, struct s3c_error *e);
static void stdout_hashed(struct engine *g, struct eng_hash *h);

/* ---- starting ------------------------------------------------------------------------ */

/* S3 -> stdout: ranged GETs in parallel into a window of part buffers,
 * written in order (stdout_start_parts); an object of one range (1 MiB at
 * most): one GET held in memory and written once checked, as a small file's
 * body is (chk.held; a mismatch fetches it again), or, unchecked (no
 * verify), written as it comes (a retry resumes where it stopped). */
enum s3c_err stdout_start(struct engine *g, struct xfer_obj_state *os, struct req **out, struct s3c_error *e)
{
    struct obj_dl_stdout *so = dl_stdout_of(os);
    struct req *r;

    *out = NULL;
    os->fd = STDOUT_FILENO;
    os->size = os->o->size;
    os->part_size = xfer_stdout_part_size(os->size, g->opts.part_size);
    if ((os->size > os->part_size || small_multipart(os->o)) && g->opts.verify) {
        /* Ranges: ask for a stored checksum first (on_head_info): cheaper than the
         * MD5 of the whole; without one, a multipart ETag is checked part by part.
         * The caller's HEAD, when it made one, says it: the same question, asked once. */
        obj_phase_set(g, os, PH_PROBE);
        if (os->o->head)
            return dl_caller_head(g, os, e);
        r = req_get(g, os, RK_HEAD_INFO);
        if (!r)
            return s3c_fail(e, S3C_ENOMEM, "out of memory");
        *out = r;
        return S3C_OK;
    }
    if (os->size > os->part_size)
        return stdout_start_parts(g, os, e);
    r = req_get(g, os, RK_GET);
    if (!r)
        return s3c_fail(e, S3C_ENOMEM, "out of memory");
    r->len = os->size;
    /* One range is 1 MiB at most (xfer_stdout_part_size), within r->mem's cap:
     * should it not be, the body fails to fit, it is never written unchecked. */
    so->chk.held = g->opts.verify;
    obj_phase_set(g, os, PH_SINGLE);
    *out = r;
    return S3C_OK;
}

static enum s3c_err stdout_start_parts(struct engine *g, struct xfer_obj_state *os, struct s3c_error *e)
{
    struct obj_dl_stdout *so = dl_stdout_of(os);
    struct dl_check_state *c = dlc_of(os);
    uint64_t n = (os->size + os->part_size - 1) / os->part_size;

    if (n > UINT32_MAX)
        return s3c_fail(e, S3C_EINTERNAL, "object too large for standard output");
    os->n_parts = (uint32_t)n;
    so->win_k = xfer_window_parts(os->part_size);
    if (so->win_k > os->n_parts)
        so->win_k = os->n_parts;
    so->win = calloc(so->win_k, sizeof(*so->win));
    if (!so->win)
        return s3c_fail(e, S3C_ENOMEM, "out of memory");
    if (c->check == DL_PARTS) {
        /* Ranges are the upload's parts, each MD5'd by a hash worker before it
         * may go out (on_stdout_part). When they all fit in the window, none
         * goes out before the md5 of their MD5s matches the ETag. */
        c->md5s = calloc(os->n_parts, sizeof(*c->md5s));
        if (!c->md5s)
            return s3c_fail(e, S3C_ENOMEM, "out of memory");
        so->win_hold = so->win_k == os->n_parts;
    } else if (c->check == DL_CRC && so->win_k == os->n_parts) {
        /* A stored CRC of the whole and an object the window holds: none of it
         * goes out before the ranges' CRCs, combined, match it. */
        c->part_crcs = calloc(os->n_parts, sizeof(*c->part_crcs));
        if (!c->part_crcs)
            return s3c_fail(e, S3C_ENOMEM, "out of memory");
        so->win_hold = true;
    }
    /* A composite checksum: each part GET by its number, checked against the
     * part's own checksum before it goes out (on_stdout_part). */
    if (!composite_alloc(os))
        return s3c_fail(e, S3C_ENOMEM, "out of memory");
    if (c->seq_sha) {
        /* A stored full-object SHA: the stream's, by a hash worker, a part at a time once written. */
        so->win_md5 = true;
        md5_init(&c->seq_hash.job.md5);
        c->seq_hash.job.also = c->seq_sha;
        c->seq_hash.job.no_md5 = true;
    } else if (g->opts.verify && c->check != DL_CRC && c->check != DL_PARTS && c->check != DL_COMPOSITE &&
               os->o->etag && etag_whole_md5(sv_from(os->o->etag)) && !xfer_etag_not_md5(os->o->src_bucket, NULL)) {
        /* The MD5 of the whole stream is worth its CPU only when the ETag is one
         * and no stored checksum is there to check instead. */
        so->win_md5 = true; /* by a hash worker, a part at a time once written (stdout_hash_kick) */
        md5_init(&c->seq_hash.job.md5);
    }
    obj_phase_set(g, os, PH_PARTS);
    os->next_part = 1;
    so->win_head = 1;
    so->win_free = 1;
    os->next = g->active;
    g->active = os;
    return S3C_OK;
}

/*
 * stdout's ranges start. Parts the window cannot hold (over STDOUT_PART_MAX),
 * or of a guessed size in an object larger than the window (a wrong guess
 * would fail bytes already written), are not checked part by part: lengths then.
 */
void stdout_parts_go(struct engine *g, struct xfer_obj_state *os)
{
    struct dl_check_state *c = dlc_of(os);
    struct s3c_error e = S3C_ERROR_INIT;
    bool parts = c->check == DL_PARTS || c->check == DL_COMPOSITE;

    if (parts && os->part_size > STDOUT_PART_MAX)
        dl_size_only(g, os, "the upload's parts are larger than standard output's ranges");
    else if (parts && c->layout_guessed && os->n_parts > xfer_window_parts(os->part_size))
        dl_size_only(g, os, "the store does not say its part size, and the object is larger than standard "
                            "output's window");
    if (stdout_start_parts(g, os, &e)) {
        obj_fail(g, os, &e);
        maybe_finish(g, os);
    }
}

/* ---- bytes out, in order ------------------------------------------------------------ */

/* Write all of 'p' to stdout. EPIPE (the reader left, as `| head` does) is
 * remembered: the object then ends quietly. */
static bool stdout_write(struct obj_dl_stdout *so, const char *p, size_t n, struct s3c_error *e)
{
    while (n) {
        ssize_t w = write(so->head.fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            if (w < 0 && errno == EPIPE)
                so->reader_gone = true;
            s3c_fail_errno(e, w < 0 ? errno : EIO, "cannot write to standard output");
            return false;
        }
        p += w;
        n -= (size_t)w;
    }
    return true;
}

/*
 * All of a stdout object in ranges is out (one of one range was held and
 * checked as a file's one GET is: get_whole_check): check it against the
 * stored full-object checksum (DL_CRC, learnt by the probe), else against
 * its ETag: the md5 of the part MD5s (DL_PARTS: ranges were the upload's
 * parts; an object the window held was proven before its first byte went
 * out), or the MD5 of the whole ("hex", or "hex-1": the MD5 of that MD5).
 * Otherwise only lengths were checked: each range's, each asked If-Match the
 * ETag, written in order. Bytes on stdout cannot be taken back: a mismatch
 * fails the object (exit 1), it is not downloaded again.
 */
static bool stdout_verify(struct engine *g, struct xfer_obj_state *os, struct s3c_error *e)
{
    struct dl_check_state *c = dlc_of(os);
    struct obj_dl_stdout *so = dl_stdout_of(os);
    unsigned char md5[MD5_LEN];
    char want[CK_B64_MAX], got[CK_B64_MAX];

    if (so->win_proven)
        return true; /* held, and proven before its first byte went out (stdout_hold_check) */
    if (c->check == DL_PARTS)
        return dl_check(g, os, e) == DLV_OK;
    if (c->check == DL_COMPOSITE)
        return composite_verify(g, os, e); /* each part was checked before it went out, too */
    if (c->seq_sha)
        return whole_sum_verify(g, os, &c->stored, c->seq_hash.job.also_digest, e);
    if (c->check == DL_CRC) {
        ck_crc_b64(c->ck_algo, so->stream_crc, got);
        ck_crc_b64(c->ck_algo, c->ck_want, want);
        if (so->stream_crc != c->ck_want) {
            s3c_fail(e, S3C_EHTTP, "downloaded bytes have %s %s, the store's checksum is %s",
                     ck_name(c->ck_algo), got, want);
            return false;
        }
        xdebug(g, os->o, "verified: %s %s of %" PRIu32 " ranges matches the stored checksum",
               ck_name(c->ck_algo), got, os->n_parts);
        return true;
    }
    if (!so->win_md5 || so->md5_hidden)
        return true;
    memcpy(md5, c->seq_hash.job.digest, MD5_LEN); /* the hash worker's, all parts in order */
    if (!etag_is_md5(sv_from(os->o->etag), got)) /* else "hex-1": win_md5 is set only for these */
        etag_one_part(sv_from(os->o->etag), got, md5);
    str_hex(md5, MD5_LEN, want);
    if (strcmp(want, got) != 0) {
        s3c_fail(e, S3C_EHTTP, "downloaded bytes have MD5 %s, the store's ETag is %s", want, got);
        return false;
    }
    xdebug(g, os->o, "verified: MD5 of the stream (%" PRIu32 " ranges, hashed in order by a hash worker) matches the ETag",
           os->n_parts);
    return true;
}

/* stdout's bytes are all out and, with an MD5 to check, all hashed: the verdict. */
static void stdout_end(struct engine *g, struct xfer_obj_state *os)
{
    struct s3c_error e = S3C_ERROR_INIT;

    if (stdout_verify(g, os, &e))
        obj_phase_set(g, os, PH_END);
    else
        obj_fail(g, os, &e);
}

/* The MD5 of the stream, in order, by a hash worker: the oldest part written
 * and not yet hashed, one job at a time. Its slot is reused only after. */
static void stdout_hash_kick(struct engine *g, struct xfer_obj_state *os)
{
    struct obj_dl_stdout *so = dl_stdout_of(os);
    struct dl_check_state *c = dlc_of(os);
    struct win_slot *slot = &so->win[(so->win_free - 1) % so->win_k];
    struct s3c_error e = S3C_ERROR_INIT;

    if (c->seq_hash.busy || os->failed || stopping(g) || so->win_free >= so->win_head)
        return;
    c->seq_hash.job.final = so->win_free == os->n_parts;
    c->seq_hash.done = stdout_hashed;
    if (!hash_start(g, &c->seq_hash, -1, slot->data, 0, slot->len)) {
        s3c_fail(&e, S3C_ENOMEM, "cannot start a thread to hash standard output");
        obj_fail(g, os, &e);
    }
}

static void stdout_hashed(struct engine *g, struct eng_hash *h)
{
    struct obj_dl_stdout *so = (void *)((char *)h - offsetof(struct obj_dl_stdout, chk.seq_hash));
    struct xfer_obj_state *os = &so->head;
    struct s3c_error e = S3C_ERROR_INIT;

    if (stopping(g) && !os->failed) {
        s3c_fail(&e, S3C_ECANCEL, "%s", cancel_requested ? "interrupted" : "stopped");
        obj_fail(g, os, &e);
    } else if (h->job.err.code && !os->failed) {
        obj_fail(g, os, &h->job.err);
    } else if (!os->failed) {
        so->win[(so->win_free - 1) % so->win_k].len = 0;
        if (++so->win_free > os->n_parts)
            stdout_end(g, os);
        else
            stdout_hash_kick(g, os);
    }
    maybe_finish(g, os);
}

/*
 * A held stream (win_hold) with every part in: the md5 of their MD5s against
 * the ETag (or their CRCs combined against the stored CRC) before a byte is
 * written. True when they may go out; on a mismatch every part is fetched
 * again (which one is wrong cannot be told), and a mismatch that persists
 * fails the object with nothing written.
 */
static bool stdout_hold_check(struct engine *g, struct xfer_obj_state *os)
{
    struct obj_dl_stdout *so = dl_stdout_of(os);
    struct s3c_error e = S3C_ERROR_INIT;
    uint32_t i;

    if (os->parts_done < os->n_parts)
        return false;
    switch (dl_check(g, os, &e)) {
    case DLV_OK:
        so->win_hold = false;
        so->win_proven = true;
        return true;
    case DLV_AGAIN:
        for (i = 0; i < so->win_k; i++) {
            so->win[i].full = false;
            so->win[i].len = 0;
        }
        dl_again(g, os, &e);
        return false;
    case DLV_HASHING:
    case DLV_ERROR:
        break;
    }
    obj_fail(g, os, &e);
    return false;
}

/* A range for stdout is in: checked (DL_PARTS, DL_COMPOSITE), then every whole
 * part from the head on is written, in order. */
static void on_stdout_part(struct engine *g, struct req *r)
{
    struct xfer_obj_state *os = r->os;
    struct obj_dl_stdout *so = dl_stdout_of(os);
    struct dl_check_state *c = dlc_of(os);
    struct win_slot *landed = &so->win[(r->part - 1) % so->win_k];
    struct s3c_error e = S3C_ERROR_INIT;

    if ((c->check == DL_PARTS || (c->check == DL_COMPOSITE && !ck_is_crc(c->stored.algo))) && !r->hash.ready) {
        /* The part's MD5 (or a composite's SHA), by a hash worker, before any of it may go out. */
        if (c->check == DL_PARTS ? !req_hash_mem(g, r, landed->data, r->len)
                                  : !req_sha_mem(g, r, c->stored.algo, landed->data, r->len)) {
            s3c_fail(&e, S3C_ENOMEM, "cannot start a thread to hash standard output");
            req_fail(g, r, &e, false, 0);
            return;
        }
        req_park(g, r);
        return;
    }
    if (c->check == DL_COMPOSITE && !composite_part_ok(r, &e)) {
        xdebug(g, os->o, "%s; fetching it again", e.msg);
        req_fail(g, r, &e, true, 0);
        return;
    }
    if (sse_hides_md5(&r->http.resp))
        so->md5_hidden = true;
    if (c->check == DL_PARTS)
        memcpy(c->md5s[r->part - 1], r->hash.job.digest, MD5_LEN);
    else if (c->check == DL_CRC && c->part_crcs)
        c->part_crcs[r->part - 1] = r->crc;
    landed->full = true;
    landed->crc = r->crc; /* write_dst's, for DL_CRC */
    g->stats.bytes += r->len;
    os->parts_done++;
    req_put_back(g, r);
    if (so->win_hold && !stdout_hold_check(g, os)) {
        maybe_finish(g, os);
        return;
    }
    while (so->win_head <= os->n_parts && so->win[(so->win_head - 1) % so->win_k].full) {
        struct win_slot *slot = &so->win[(so->win_head - 1) % so->win_k];

        if (!stdout_write(so, slot->data, slot->len, &e)) {
            obj_fail(g, os, &e);
            maybe_finish(g, os);
            return;
        }
        if (c->check == DL_CRC)
            so->stream_crc = so->streamed ? ck_combine(c->ck_algo, so->stream_crc, slot->crc, slot->len)
                                          : slot->crc;
        so->streamed += slot->len;
        slot->full = false;
        so->win_head++;
        if (!so->win_md5) {
            slot->len = 0;
            so->win_free = so->win_head; /* nothing to hash: the slot is free at once */
        }
    }
    if (so->win_md5)
        stdout_hash_kick(g, os);
    else if (so->win_head > os->n_parts)
        stdout_end(g, os);
    maybe_finish(g, os);
}


/* A GET's bytes for stdout (write_dst's, for this family, but for a held
 * body, which write_dst keeps in memory): into the part's slot of the window,
 * or, unchecked (no verify), out as they come. */
enum http_sink_verdict stdout_sink(struct req *r, const char *p, size_t n)
{
    struct obj_dl_stdout *so = dl_stdout_of(r->os);

    if (so->win) {
        /* Within the slot: r->got + n <= r->len <= part size, checked by write_dst. */
        struct win_slot *slot = &so->win[(r->part - 1) % so->win_k];
        memcpy(slot->data + r->got, p, n);
        slot->len = r->got + n;
    } else if (!stdout_write(so, p, n, &r->local_err)) {
        r->local_failed = true;
        return HTTP_SINK_ABORT;
    } else {
        so->streamed += n;
    }
    return HTTP_SINK_OK;
}

/* A GET for stdout is in, every byte (on_get's, for this family): a range of
 * the window, or the one GET, written once its check passed (a held body),
 * or already out (unchecked). */
void on_stdout_get(struct engine *g, struct req *r)
{
    struct xfer_obj_state *os = r->os;
    struct obj_dl_stdout *so = dl_stdout_of(os);
    struct s3c_error e = S3C_ERROR_INIT;

    if (so->win) {
        on_stdout_part(g, r);
        return;
    }
    if (!dl_whole_ok(g, r))
        return; /* a held body: none of it is out, so it is fetched again */
    if (so->chk.held) {
        if (!stdout_write(so, r->mem.data ? r->mem.data : "", r->mem.len, &e)) {
            req_put_back(g, r);
            obj_fail(g, os, &e);
            maybe_finish(g, os);
            return;
        }
        so->streamed += r->mem.len;
    }
    g->stats.bytes += r->len;
    obj_phase_set(g, os, PH_END);
    req_put_back(g, r);
    maybe_finish(g, os);
}

/* ---- the family's table entries (xfer.c) --------------------------------------------- */

/* The next range must wait: the window is full, the head part has to go out (and be hashed) first. */
bool stdout_window_full(const struct xfer_obj_state *os)
{
    const struct obj_dl_stdout *so = dl_stdout_of(os);

    return so->win && os->next_part >= so->win_free + so->win_k;
}

/* The object ends (obj_finish): a reader that left (`s3c cat k | head`) took
 * what it wanted; not a failure of ours (exit 0, as s5cmd). */
void stdout_obj_end(struct engine *g, struct xfer_obj_state *os)
{
    if (os->failed && dl_stdout_of(os)->reader_gone)
        os->failed = false;
}

void stdout_release(struct xfer_obj_state *os)
{
    struct obj_dl_stdout *so = dl_stdout_of(os);
    uint32_t i;

    dl_check_release(&so->chk);
    for (i = 0; so->win && i < so->win_k; i++)
        free(so->win[i].data);
    free(so->win);
}
