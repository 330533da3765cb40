/*
 * Downloads to a file, the family of struct obj_dl_file: how one starts
 * (small: into memory and landed by a worker; ranged: probed for its check,
 * then parts), each range's share of the whole's check, the whole checked
 * (dl_check) and downloaded again on a mismatch, resumed parts re-read, the
 * temp file's ending. And what downloads to stdout (stdout.c, above) share
 * with it: the probe of how the whole is checked (on_head_info, head_part1,
 * dl_check_from), the GET's bytes (write_dst: CRCs as they pass, MD5s handed
 * to the hash workers; stdout's own window through obj_ops.get_sink), a
 * whole-object GET's check (dl_whole_ok). Calls req.c, verify.c, resume.c,
 * part.c, adapt.c and land.c; no other family.
 */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/hash.h"
#include "base/md5.h"
#include "base/str.h"
#include "store/store_fs.h"
#include "xfer/engine.h"
#include "xfer/journal.h"

#define LAND_THREADS 4                          /* workers creating small downloaded files */
#define SEQ_JOB_BYTES ((uint64_t)64 << 20)      /* DL_SEQ: re-read per job at most (an interrupt waits for one) */
#define MD5_STEP_BYTES ((uint64_t)1 << 20)      /* a GET's MD5 lagging this much re-reads the file */

static void dl_verify(struct engine *g, struct xfer_obj_state *os);
static void land_start(struct engine *g, struct xfer_obj_state *os, struct buf *body);
static void dl_seq_kick(struct engine *g, struct xfer_obj_state *os);
static void dl_seq_hashed(struct engine *g, struct eng_hash *h);
static void dl_rehashed(struct engine *g, struct eng_hash *h);
static void dl_rehash_kick(struct engine *g, struct xfer_obj_state *os);
static bool dl_check_from(struct engine *g, struct xfer_obj_state *os, const struct http_resp *resp,
                          const char *etag);
static void dl_probed(struct engine *g, struct xfer_obj_state *os, bool learn);
static void dl_lent_next(struct engine *g, struct req *r);
static bool dl_md5_catch_up(struct engine *g, struct req *r);

/* The file download whose in-order hash job (chk.seq_hash) 'h' is. */
static struct xfer_obj_state *dl_file_of_hash(struct eng_hash *h)
{
    struct obj_dl_file *f = (void *)((char *)h - offsetof(struct obj_dl_file, chk.seq_hash));

    return &f->head;
}

/* ---- starting -------------------------------------------------------------------- */

static void wake_loop(void *loop) { http_loop_wakeup(loop); }

/* ---- the file's mtime, mode and owner ------------------------------------------------- */

/* The first answer about the object (a HEAD, a GET, a range) gives what its metadata records
 * (s3/fattr.h): every later one is of the same version (If-Match), so one is enough. */
static void dl_meta_take(struct xfer_obj_state *os, const struct http_resp *resp)
{
    struct obj_dl_file *f;

    if (os->family != FAM_DL_FILE || !resp || (f = dl_file_of(os))->meta_seen)
        return;
    xfer_meta_fattr(resp, &f->meta);
    f->meta_seen = true;
}

/*
 * What the downloaded file gets: the mtime its metadata records, else the
 * object's LastModified (to the second), so that the next sync finds nothing
 * to do either way (plan/merge.h); with --no-preserve, LastModified always.
 * With --preserve, the mode and owner recorded too (fs_tmp_commit sets an
 * owner only as root, and setuid or setgid bits only with it).
 */
static struct fattr dl_attrs(const struct xfer_obj_state *os)
{
    const struct obj_dl_file *f = dl_file_of(os);
    const struct xfer_obj_opts *oo = os->o->opts;
    struct fattr a = FATTR_INIT;

    a.has_mtime = os->o->mtime >= 0;
    a.mtime_s = os->o->mtime;
    if (oo && oo->no_preserve)
        return a;
    if (f->meta.has_mtime) {
        a.has_mtime = true;
        a.mtime_s = f->meta.mtime_s;
        a.mtime_ns = f->meta.mtime_ns;
    }
    if (oo && oo->preserve) {
        a.has_mode = f->meta.has_mode;
        a.mode = f->meta.mode;
        a.has_uid = f->meta.has_uid;
        a.uid = f->meta.uid;
        a.has_gid = f->meta.has_gid;
        a.gid = f->meta.gid;
    }
    return a;
}

/*
 * A download to a file: small ones into memory (landed by a worker); the
 * rest into a temp file that a land worker makes first (PH_OPEN: creating a
 * file and reserving its space can take many ms, and with --resume an
 * earlier run's record is read), then dl_opened goes on.
 */
enum s3c_err download_start(struct engine *g, struct xfer_obj_state *os, struct req **out, struct s3c_error *e)
{
    struct obj_dl_file *f = dl_file_of(os);
    struct dl_check_state *c = dlc_of(os);
    struct xfer_obj *o = os->o;
    struct req *r;

    *out = NULL;
    f->tmp_path = (struct buf)BUF_INIT(65536);
    os->size = o->size;
    if (!g->land && !(g->land = land_new(LAND_THREADS, wake_loop, g->loop)))
        return s3c_fail(e, S3C_ENOMEM, "out of memory");
    if (os->size <= SMALL_BODY_MAX && !wants_multipart(g, os->size)) {
        /* Received into memory; a worker creates the file (land.h). */
        c->held = true;
        obj_phase_set(g, os, PH_SINGLE);
        r = req_get(g, os, RK_GET);
        if (!r)
            return s3c_fail(e, S3C_ENOMEM, "out of memory");
        r->len = os->size;
        *out = r;
        return S3C_OK;
    }
    f->open.state_dir = g->opts.state_dir;
    f->open.resume = g->opts.resume;
    f->open.ranged = wants_multipart(g, os->size);
    f->land.work = dl_tmp_open;
    f->land.ctx = os;
    obj_phase_set(g, os, PH_OPEN);
    if (!land_submit(g->land, &f->land))
        return s3c_fail(e, S3C_ENOMEM, "cannot start a thread to create a temp file for %s", o->dst);
    g->landing++;
    return S3C_OK;
}

/* The first request after the temp file is made, or NULL when none is (or the ranges started). */
static enum s3c_err dl_after_open(struct engine *g, struct xfer_obj_state *os, struct req **out, struct s3c_error *e)
{
    struct xfer_obj *o = os->o;
    struct req *r;

    *out = NULL;
    if (g->opts.verify && (wants_multipart(g, os->size) || small_multipart(o))) {
        /* Ranged: first learn how the whole can be checked (on_head_info), from
         * the caller's HEAD when it made one: the same question, asked once. */
        obj_phase_set(g, os, PH_PROBE);
        if (o->head)
            return dl_caller_head(g, os, e);
        r = req_get(g, os, RK_HEAD_INFO);
        if (!r)
            return s3c_fail(e, S3C_ENOMEM, "out of memory");
        *out = r;
        return S3C_OK;
    }
    if (wants_multipart(g, os->size)) {
        plan_parts(g, os);
        dl_start(g, os);
        return S3C_OK;
    }
    obj_phase_set(g, os, PH_SINGLE);
    r = req_get(g, os, RK_GET);
    if (!r)
        return s3c_fail(e, S3C_ENOMEM, "out of memory");
    r->len = os->size;
    *out = r;
    return S3C_OK;
}

/* A land worker made the temp file (dl_tmp_open): the download goes on. Its
 * first request waits its turn on the retry list (fill sends it, as it would
 * a new object's, within the caps and the request rate). */
static void dl_opened(struct engine *g, struct xfer_obj_state *os)
{
    struct obj_dl_file *f = dl_file_of(os);
    struct s3c_error e = S3C_ERROR_INIT;
    struct req *r = NULL;

    f->land.work = NULL;
    if (f->land.err.code) {
        e = f->land.err;
        obj_fail(g, os, &e);
    } else if (stopping(g)) {
        s3c_fail(&e, S3C_ECANCEL, "%s", cancel_requested ? "interrupted" : "stopped");
        obj_fail(g, os, &e);
    } else if (dl_after_open(g, os, &r, &e)) {
        if (r)
            req_put_back(g, r);
        obj_fail(g, os, &e);
    } else if (r) {
        r->due_ms = 0;
        r->next = g->retry;
        g->retry = r;
    }
    maybe_finish(g, os);
}

/* ---- probing: how the whole will be checked ---------------------------------------- */

void dl_size_only(struct engine *g, struct xfer_obj_state *os, const char *why)
{
    struct dl_check_state *c = dlc_of(os);

    xdebug(g, os->o, "checked by size only: %s", why);
    c->check = DL_SIZE;
    os->unproven = "the download was checked by its size only (no stored checksum, no usable MD5 ETag)";
    if (os->family == FAM_DL_STDOUT)
        os->part_size = xfer_stdout_part_size(os->size, g->opts.part_size);
    else
        plan_parts(g, os);
}

/* The store does not say the part size: take the likeliest that makes the
 * ETag's part count (a wrong guess costs a second download, see dl_verify). */
static void dl_guess_layout(struct engine *g, struct xfer_obj_state *os)
{
    struct dl_check_state *c = dlc_of(os);
    uint64_t p;

    if (xfer_part_size_guesses(os->size, c->etag_parts, g->opts.part_size, &p, 1) != 1) {
        dl_size_only(g, os, "the store does not say its part size, and no usual one makes the ETag's part count");
        return;
    }
    if (c->check != DL_COMPOSITE)
        c->check = DL_PARTS;
    c->layout_guessed = true;
    os->part_size = p;
    os->n_parts = c->etag_parts;
}

/* The ranges of a file are planned: allocate what the check needs and start the parts. */
void dl_start(struct engine *g, struct xfer_obj_state *os)
{
    struct obj_dl_file *f = dl_file_of(os);
    struct dl_check_state *c = dlc_of(os);
    struct s3c_error e = S3C_ERROR_INIT;

    if (c->check == DL_CRC && !(c->part_crcs = calloc(os->n_parts, sizeof(*c->part_crcs))))
        s3c_fail(&e, S3C_ENOMEM, "out of memory");
    if (c->check == DL_SEQ && !(f->part_in = calloc(os->n_parts, 1)))
        s3c_fail(&e, S3C_ENOMEM, "out of memory");
    md5_init(&c->seq_hash.job.md5);
    c->seq_hash.job.also = c->seq_sha; /* DL_SEQ of a stored SHA: that, not the MD5 */
    c->seq_hash.job.no_md5 = c->seq_sha != NULL;
    if (!e.code && c->check == DL_PARTS && !(c->md5s = calloc(os->n_parts, sizeof(*c->md5s))))
        s3c_fail(&e, S3C_ENOMEM, "out of memory");
    if (!e.code && !composite_alloc(os))
        s3c_fail(&e, S3C_ENOMEM, "out of memory");
    if (!e.code && c->check != DL_COMPOSITE)
        dl_resume_apply(g, os); /* (a composite check re-reads no resumed parts: they download again) */
    if (!e.code && (c->check == DL_PARTS || c->check == DL_CRC))
        dl_rehash_kick(g, os); /* parts an earlier run left in the file, into the check */
    if (!e.code && c->check == DL_SEQ)
        dl_seq_kick(g, os); /* parts an earlier run left in the file */
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

/* The part layout is settled (or not to be had): the ranges start (the family's: obj_ops.ranges). */
static void dl_layout_known(struct engine *g, struct xfer_obj_state *os)
{
    g->ops[os->family].ranges(g, os);
}

/* The source's HEAD (the engine's own, or the one its caller made) says the
 * object is still the one listed; its ETag then pins every range (If-Match).
 * False, with 'e', when it changed. 'etag' gets the ETag, quotes kept. */
static bool dl_head_same(struct xfer_obj_state *os, const struct http_resp *resp, char etag[80],
                         struct s3c_error *e)
{
    struct xfer_obj *o = os->o;
    struct sv v;
    uint64_t len = 0;

    etag[0] = '\0';
    if (http_resp_header(resp, "etag", &v) && v.n < 80) {
        memcpy(etag, v.p, v.n);
        etag[v.n] = '\0';
    }
    if (!http_resp_header(resp, "content-length", &v) || !sv_to_u64(v, &len) || len != os->size) {
        s3c_fail(e, S3C_EHTTP, "the object changed since it was listed: %" PRIu64 " bytes, now %" PRIu64,
                 os->size, len);
        return false;
    }
    if (!o->etag && etag[0])
        o->etag = strdup(etag); /* every range then asks for this version (If-Match) */
    return true;
}

/*
 * How the whole is checked, from the source's HEAD (the engine's own or its
 * caller's), for a file and for stdout alike: a stored full-object checksum;
 * a composite one (part by part, ranges cut at the upload's parts); a stored
 * SHA of the whole (in order, by a hash worker); a multipart ETag (part by
 * part); the MD5 of the whole; else lengths. A file's ranges are planned here,
 * stdout's are of its own size (stdout_start). True when the upload's parts
 * must be learnt first (dl_probed).
 */
static bool dl_check_from(struct engine *g, struct xfer_obj_state *os, const struct http_resp *resp,
                          const char *etag)
{
    struct dl_check_state *c = dlc_of(os);
    struct xfer_obj *o = os->o;
    bool md5_etag = !xfer_etag_not_md5(o->src_bucket, resp);
    char hex[33];

    if (stored_checksum(resp, &c->ck_algo, &c->ck_want)) {
        c->check = DL_CRC;
    } else if (stored_ck(resp, &c->stored) && c->stored.composite) {
        c->check = DL_COMPOSITE;
        c->etag_parts = c->stored.parts;
        return true;
    } else if (stored_ck(resp, &c->stored) && seq_sha_start(os)) {
        if (os->family != FAM_DL_STDOUT)
            c->check = DL_SEQ; /* (stdout's: stdout_start_parts) */
    } else if ((c->etag_parts = xfer_etag_parts(etag, c->etag_hex)) > (os->family == FAM_DL_STDOUT ? 1 : 0) && md5_etag) {
        return true; /* (stdout's "hex-1": the MD5 of the whole, below) */
    } else if (os->family == FAM_DL_STDOUT) {
        if (!md5_etag || !etag_whole_md5(sv_from(etag)))
            xdebug(g, o, "checked by the length of every range: no stored checksum and no MD5 ETag");
    } else if (md5_etag && etag_is_md5(sv_from(etag), hex)) {
        c->check = DL_SEQ;
        memcpy(c->etag_hex, hex, sizeof(hex));
    } else {
        dl_size_only(g, os, sse_hides_md5(resp) ? "encrypted with a key whose ETag is not an MD5, and no stored checksum"
                            : xfer_etag_not_md5(o->src_bucket, NULL) ? "a directory bucket's ETag is no MD5, and no stored checksum"
                            : "no stored checksum and no MD5 ETag");
        return false;
    }
    if (os->family != FAM_DL_STDOUT)
        plan_parts(g, os);
    return false;
}

/* After dl_check_from: the upload's part size from HEAD ?partNumber=1
 * (head_part1), or guessed when the store does not say it; then the ranges. */
static void dl_probed(struct engine *g, struct xfer_obj_state *os, bool learn)
{
    struct req *p1;

    if (!learn) {
        dl_layout_known(g, os);
        return;
    }
    if (g->no_part_number) {
        dl_guess_layout(g, os);
    } else if ((p1 = req_get(g, os, RK_HEAD_PART1))) {
        submit_or_fail(g, p1);
        return;
    } else {
        dl_size_only(g, os, "out of memory");
    }
    dl_layout_known(g, os);
}

/* The caller made the HEAD of the source (xfer_obj.head): the engine asks none. */
enum s3c_err dl_caller_head(struct engine *g, struct xfer_obj_state *os, struct s3c_error *e)
{
    char etag[80];

    dl_meta_take(os, os->o->head);
    if (!dl_head_same(os, os->o->head, etag, e))
        return e->code;
    dl_probed(g, os, dl_check_from(g, os, os->o->head, etag));
    return S3C_OK;
}

void on_head_info(struct engine *g, struct req *r)
{
    struct xfer_obj_state *os = r->os;
    struct s3c_error e = S3C_ERROR_INIT;
    char etag[80];
    bool learn;

    dl_meta_take(os, &r->http.resp);
    if (!dl_head_same(os, &r->http.resp, etag, &e)) {
        req_fail(g, r, &e, false, 0);
        return;
    }
    learn = dl_check_from(g, os, &r->http.resp, etag);
    req_put_back(g, r);
    dl_probed(g, os, learn);
}

/* HEAD ?partNumber=1 answered ('ok'), or refused: the upload's part size, if the store says it. */
static void head_part1(struct engine *g, struct req *r, bool ok)
{
    struct xfer_obj_state *os = r->os;
    struct dl_check_state *c = dlc_of(os);
    const struct http_resp *resp = &r->http.resp;
    uint64_t count = 0, p = 0;
    struct sv v;
    bool counted = ok && http_resp_header(resp, "x-amz-mp-parts-count", &v) && sv_to_u64(v, &count);

    if (counted && count == c->etag_parts && http_resp_header(resp, "content-length", &v) &&
        sv_to_u64(v, &p) && xfer_parts_fit(os->size, c->etag_parts, p)) {
        if (c->check != DL_COMPOSITE)
            c->check = DL_PARTS;
        os->part_size = p;
        os->n_parts = c->etag_parts;
    } else if (counted) {
        dl_size_only(g, os, "its parts are not all of one size");
    } else {
        if (!g->no_part_number)
            xdebug(g, os->o, "the store ignores ?partNumber=: part sizes will be guessed from the ETag");
        g->no_part_number = true;
        dl_guess_layout(g, os);
    }
    req_put_back(g, r);
    dl_layout_known(g, os);
}

void on_head_part1(struct engine *g, struct req *r)
{
    head_part1(g, r, true);
}

/* The store refuses ?partNumber=: verify as if it ignored it. */
bool head_part1_refused(struct engine *g, struct req *r, const struct s3c_error *e)
{
    if (e->http_status < 400 || e->http_status >= 500)
        return false;
    head_part1(g, r, false);
    return true;
}

/* ---- bytes and answers ------------------------------------------------------------ */

/*
 * The first bytes of a whole-object GET: its reply carries the store's
 * full-object checksum when there is one (asked with x-amz-checksum-mode), and
 * that CRC, at memory speed, checks the bytes instead of their MD5. stdout's
 * one GET is held in memory (chk.held) and checked the same way.
 */
static void get_pick_check(struct req *r)
{
    struct xfer_obj_state *os = r->os;

    if (!r->eng->opts.verify || (os->family == FAM_DL_STDOUT && !dlc_of(os)->held))
        return;
    r->use_crc = stored_checksum(&r->http.resp, &r->ck_algo, &r->ck_want);
    /* A stored SHA of the whole: a hash worker's, as the bytes land (dl_md5_kick). */
    r->use_sha = !r->use_crc && stored_ck(&r->http.resp, &r->stored) && !r->stored.composite &&
                 !ck_is_crc(r->stored.algo);
    if (!r->use_crc && !r->use_sha && stored_ck(&r->http.resp, &r->stored))
        xdebug(r->eng, os->o, "a composite %s in one GET cannot be checked without its parts; its ETag is",
               ck_name(r->stored.algo));
}

/* A hash job of a GET's bytes is back (dl_md5_kick's): on with the next, or,
 * the answer in and the MD5 whole, the answer is taken up again. */
static void dl_md5_hashed(struct engine *g, struct eng_hash *h)
{
    struct req *r = (struct req *)((char *)h - offsetof(struct req, hash));

    if (r->hash_stale)
        s3c_error_clear(&h->job.err); /* an earlier exchange's: not this one's failure */
    if (!req_hash_back(g, r))
        return;
    if (r->hash_stale) {
        /* An earlier exchange's bytes: this one starts over. */
        r->hash_stale = false;
        r->md5_at = r->md5_to = 0;
        md5_init(&h->job.md5);
        h->ready = false;
        dl_lent_drop(g, r);
    } else if (!h->job.err.code) {
        r->md5_at += h->job.len;
        h->ready = h->job.final;
        dl_lent_next(g, r); /* (busy again when another stage was lent) */
    } else {
        dl_lent_drop(g, r);
    }
    if (h->busy)
        return; /* the next lent stage, back here when hashed */
    if (!r->parked) {
        /* Still receiving: the MD5, behind what is written, catches up from the
         * file at once, so that the next stages are lent again. */
        if (!h->ready && !r->local_failed && r->md5_live && r->md5_at < r->stage_at && !h->job.err.code &&
            !dl_md5_catch_up(g, r))
            r->md5_live = false;
        return;
    }
    if (!h->ready && !r->local_failed && dl_md5_kick(g, r, true))
        return; /* the rest, and then the answer */
    req_unpark(g, r);
}

/*
 * A file GET's MD5, by a hash worker, as its bytes land: the next slice of
 * whole blocks once MD5_STEP_BYTES more are on disk (many GETs in flight fill
 * a worker's lanes; the page cache is still hot), and, with 'final', the rest
 * and the digest. One job at a time per request. False when no worker could start.
 */
static bool dl_md5_job(struct req *r, bool final)
{
    if (r->md5_at == 0) {
        /* The exchange's first job: a stored SHA's (whole, or a composite's part), else the MD5. */
        enum ck_algo a = r->os->n_parts ? dlc_of(r->os)->stored.algo : r->stored.algo;
        r->hash.job.also = r->use_sha ? req_sha(r, a) : NULL;
        r->hash.job.no_md5 = r->use_sha;
        if (r->use_sha && !r->hash.job.also)
            return false;
    }
    r->hash.job.final = final;
    r->hash.done = dl_md5_hashed;
    return true;
}

/* A job of the file's bytes [md5_at, upto) (what was written, not lent). */
static bool dl_md5_file(struct engine *g, struct req *r, uint64_t upto, bool final)
{
    if (!dl_md5_job(r, final) || !hash_start(g, &r->hash, r->os->fd, NULL, r->off + r->md5_at, upto - r->md5_at))
        return false;
    r->md5_to = upto;
    return true;
}

bool dl_md5_kick(struct engine *g, struct req *r, bool final)
{
    uint64_t upto = final ? r->len : r->stage_at / MD5_BLOCK * MD5_BLOCK;

    if (r->hash.busy || r->hash.ready || (!final && upto - r->md5_at < MD5_STEP_BYTES))
        return true;
    return dl_md5_file(g, r, upto, final);
}

static bool dl_md5_catch_up(struct engine *g, struct req *r)
{
    return dl_md5_file(g, r, r->stage_at / MD5_BLOCK * MD5_BLOCK, false);
}

/* The first stage lent goes to a hash worker; false when none could start. */
static bool dl_lent_start(struct engine *g, struct req *r)
{
    struct dl_buf *b = r->lent;

    return dl_md5_job(r, r->md5_at + b->n == r->len) && hash_start(g, &r->hash, -1, b->data, 0, b->n);
}

/*
 * The stage just written (its bytes at 'at' of the exchange) is lent to the
 * MD5 as it is, when the MD5 has all before it (hashed, or lent): a hash
 * worker reads the received bytes in memory instead of reading them back
 * from the file, and a fresh stage takes the next bytes. Else (the MD5 is
 * behind, re-reading the file; no stage to spare) nothing: dl_md5_kick.
 */
static void dl_stage_lend(struct engine *g, struct req *r, uint64_t at)
{
    struct dl_buf *b = r->stage, *fresh;

    if (!r->md5_live || r->hash.ready || r->md5_to != at || r->lent_bytes >= LENT_PER_REQ * STAGE_BYTES ||
        !(fresh = dl_buf_get(g, false)))
        return;
    r->stage = fresh; /* (the fresh one is the stage now, the written one lent) */
    if (r->lent_tail)
        r->lent_tail->next = b;
    else
        r->lent = b;
    r->lent_tail = b;
    r->lent_bytes += b->n;
    r->md5_to += b->n;
    if (!r->hash.busy && !dl_lent_start(g, r)) {
        dl_lent_drop(g, r);
        r->md5_live = false; /* no worker now: the rest at the end (on_get), or the error then */
    }
}

/* A stage's job is back (dl_md5_hashed): the stage is free, and the next lent one starts. */
static void dl_lent_next(struct engine *g, struct req *r)
{
    struct dl_buf *b = r->lent;

    if (b && r->hash.job.mem == b->data) {
        r->lent = b->next; /* (else a job of the file's bytes, before the stages lent) */
        if (!r->lent)
            r->lent_tail = NULL;
        r->lent_bytes -= b->n;
        dl_buf_put(g, b, false);
    }
    if (r->lent && !dl_lent_start(g, r))
        dl_lent_drop(g, r);
}

/* Write what is staged to the file (and lend it to the MD5); false, with local_err, when it cannot be. */
static bool dl_stage_flush(struct req *r)
{
    uint64_t at = r->stage_at;

    if (!r->staged)
        return true;
    if (fs_pwrite_all(r->os->fd, r->stage->data, r->staged, r->off + at, r->os->o->dst, &r->local_err))
        return false;
    r->stage->n = r->staged;
    r->stage_at += r->staged;
    r->staged = 0;
    dl_stage_lend(r->eng, r, at);
    return true;
}

/*
 * A file GET's bytes: gathered into stages, each written with one pwrite
 * (curl hands its bytes 16 KiB at a time: 64,000 system calls a GiB
 * otherwise), then lent to the MD5. Straight to the file when the engine has
 * no stage to spare. False, with local_err, when the file cannot be written.
 */
static bool dl_stage_add(struct req *r, const char *p, size_t n)
{
    if (!r->stage && !(r->stage = dl_buf_get(r->eng, true))) {
        if (fs_pwrite_all(r->os->fd, p, n, r->off + r->got, r->os->o->dst, &r->local_err))
            return false;
        r->stage_at += n;
        return true;
    }
    while (n) {
        size_t take = STAGE_BYTES - r->staged < n ? STAGE_BYTES - r->staged : n;

        memcpy(r->stage->data + r->staged, p, take);
        r->staged += take;
        p += take;
        n -= take;
        if (r->staged == STAGE_BYTES && !dl_stage_flush(r))
            return false;
    }
    return true;
}

/* The first bytes of a file GET: is its MD5 wanted (a DL_PARTS range, or a whole
 * object with an MD5 ETag and no stored checksum)? Then taken as they land. */
static void get_pick_md5(struct req *r)
{
    struct xfer_obj_state *os = r->os;
    struct dl_check_state *c = dlc_of(os);
    struct sv etag;

    if (os->family == FAM_DL_STDOUT || c->held || !r->eng->opts.verify)
        return;
    if (os->n_parts) {
        r->use_sha = c->check == DL_COMPOSITE && !ck_is_crc(c->stored.algo);
        r->md5_live = c->check == DL_PARTS || r->use_sha;
    } else {
        r->md5_live = r->use_sha || (!r->use_crc && http_resp_header(&r->http.resp, "etag", &etag) &&
                                     !xfer_etag_not_md5(os->o->src_bucket, &r->http.resp) && etag_whole_md5(etag));
    }
}

enum http_sink_verdict write_dst(void *ctx, const char *p, size_t n)
{
    struct req *r = ctx;
    struct dl_check_state *c = dlc_of(r->os);
    enum http_sink_verdict (*sink)(struct req *, const char *, size_t) = r->eng->ops[r->os->family].get_sink;
    size_t allowed = n;

    if (r->got == 0) {
        if (!r->os->n_parts)
            get_pick_check(r);
        get_pick_md5(r);
    }

    if (r->os->family == FAM_DL_STDOUT && r->os->failed)
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
    if (c->held) {
        if (r->got == 0)
            buf_reset(&r->mem); /* a retry starts again */
        if (buf_add(&r->mem, p, n)) {
            r->local_failed = true;
            s3c_fail(&r->local_err, S3C_ENOMEM, "out of memory");
            return HTTP_SINK_ABORT;
        }
    } else if (sink) {
        /* stdout's window, or its stream written as it comes (stdout.c) */
        enum http_sink_verdict v = sink(r, p, n);
        if (v != HTTP_SINK_OK)
            return v;
    } else if (!dl_stage_add(r, p, n)) {
        r->local_failed = true;
        return HTTP_SINK_ABORT;
    }
    /* CRCs as the bytes pass (memory speed); an MD5 only of a small body in
     * memory. A file's MD5s are a hash worker's, of each stage written
     * (dl_stage_lend), or re-read from the file when behind (on_get). */
    if (r->use_crc)
        r->crc = ck_update(r->ck_algo, r->crc, p, n);
    else if (c->check == DL_CRC)
        r->crc = ck_update(c->ck_algo, r->crc, p, n);
    else if (c->check == DL_COMPOSITE && ck_is_crc(c->stored.algo))
        r->crc = ck_update(c->stored.algo, r->crc, p, n);
    else if ((c->held) && r->eng->opts.verify)
        hash_update(r->md5, p, n);
    r->got += n;
    r->eng->stats.bytes_live += n;
    r->eng->work_bytes += n;
    if (r->md5_live && !dl_md5_kick(r->eng, r, false))
        r->md5_live = false; /* no worker now: the rest at the end (on_get), or the error then */
    return HTTP_SINK_OK;
}

/*
 * A whole-object GET is in: check it by the stored checksum its reply carried
 * (get_pick_check), else by its ETag when that is an MD5 ("hex", or "hex-1":
 * the MD5 of that MD5). A file's MD5 is a hash worker's: SENT_WAIT while it is
 * not back (the request is parked, and on_get runs again).
 */
static enum sent_verdict get_whole_check(struct engine *g, struct req *r, struct s3c_error *e)
{
    struct xfer_obj_state *os = r->os;
    struct dl_check_state *c = dlc_of(os);
    unsigned char md5[MD5_LEN];
    char want[33], got[33];
    struct sv etag;

    if (!g->opts.verify)
        return SENT_OK;
    if (r->use_crc)
        return whole_crc_verify(g, os, r->ck_algo, r->crc, r->ck_want, true, e) ? SENT_OK : SENT_BAD;
    if (r->use_sha && !r->hash.ready) {
        /* The stored SHA of the whole: a hash worker's, of the body in memory or the file. */
        if (c->held ? !req_sha_mem(g, r, r->stored.algo, r->mem.data ? r->mem.data : "", r->mem.len)
                                     : !dl_md5_kick(g, r, true)) {
            s3c_fail(e, S3C_ENOMEM, "cannot start a thread to hash %s", os->o->dst);
            return SENT_BAD;
        }
        req_park(g, r);
        return SENT_WAIT;
    }
    if (r->use_sha)
        return whole_sum_verify(g, os, &r->stored, r->hash.job.also_digest, e) ? SENT_OK : SENT_BAD;
    if (!http_resp_header(&r->http.resp, "etag", &etag) || xfer_etag_not_md5(os->o->src_bucket, &r->http.resp) ||
        !etag_whole_md5(etag)) {
        /* no MD5 of the whole to compare (a directory bucket's ETag is none) */
        os->unproven = "the store gave no checksum and no MD5 ETag to check the download against";
        return SENT_OK;
    }
    if (c->held) {
        hash_final(r->md5, md5);
    } else if (r->hash.ready) {
        memcpy(md5, r->hash.job.digest, MD5_LEN);
    } else {
        /* The bytes not yet hashed as they landed, and the digest. */
        if (!dl_md5_kick(g, r, true)) {
            s3c_fail(e, S3C_ENOMEM, "cannot start a thread to hash %s", os->o->dst);
            return SENT_BAD;
        }
        req_park(g, r);
        return SENT_WAIT;
    }
    if (!etag_is_md5(etag, got))
        etag_one_part(etag, got, md5); /* "hex-1": md5 becomes the MD5 of itself */
    str_hex(md5, MD5_LEN, want);
    if (strcmp(want, got) != 0) {
        s3c_fail(e, S3C_EHTTP, "downloaded bytes have MD5 %s, the store's ETag is %s", want, got);
        return SENT_BAD;
    }
    return SENT_OK;
}

/* A whole-object GET is in: true when its check passed (get_whole_check);
 * false when it waits for a hash worker (parked), or is fetched again (a held
 * body: none of it went anywhere). */
bool dl_whole_ok(struct engine *g, struct req *r)
{
    struct s3c_error e = S3C_ERROR_INIT;

    return sent_verdict_ok(g, r, get_whole_check(g, r, &e), &e);
}

/* A range of a file download is in: its part's share of the whole's check. */
static void on_get_part(struct engine *g, struct req *r)
{
    struct xfer_obj_state *os = r->os;
    struct obj_dl_file *f = dl_file_of(os);
    struct dl_check_state *c = dlc_of(os);
    struct s3c_error e = S3C_ERROR_INIT;

    if ((c->check == DL_PARTS || r->use_sha) && !r->hash.ready) {
        /* Its MD5 (or SHA): what did not go to a hash worker as it landed, and the digest. */
        if (!dl_md5_kick(g, r, true)) {
            s3c_fail(&e, S3C_ENOMEM, "cannot start a thread to hash %s", os->o->dst);
            req_fail(g, r, &e, false, 0);
            return;
        }
        req_park(g, r);
        return;
    }
    g->stats.bytes += r->len;
    if (c->check == DL_PARTS)
        memcpy(c->md5s[r->part - 1], r->hash.job.digest, MD5_LEN);
    else if (c->check == DL_CRC)
        c->part_crcs[r->part - 1] = r->crc;
    else if (c->check == DL_SEQ)
        f->part_in[r->part - 1] = 1;
    else if (c->check == DL_COMPOSITE && r->use_sha)
        memcpy(c->part_sums[r->part - 1], r->hash.job.also_digest, CK_MAX_LEN);
    else if (c->check == DL_COMPOSITE)
        c->part_crcs[r->part - 1] = r->crc;
    os->parts_done++;
    dl_part_written(g, os, r->part);
    req_put_back(g, r);
    if (c->check == DL_SEQ)
        dl_seq_kick(g, os);
    if (os->parts_done == os->n_parts && !os->failed)
        dl_verify(g, os);
    maybe_finish(g, os);
}

void on_get(struct engine *g, struct req *r)
{
    struct xfer_obj_state *os = r->os;
    struct dl_check_state *c = dlc_of(os);

    if (!r->local_failed && !dl_stage_flush(r))
        r->local_failed = true; /* (the last bytes of a file GET, still staged) */
    if (!get_in_full(g, r))
        return;
    dl_meta_take(os, &r->http.resp);
    if (g->ops[os->family].get_ok) {
        g->ops[os->family].get_ok(g, r); /* stdout's (stdout.c) */
        return;
    }
    if (os->n_parts) {
        on_get_part(g, r);
        return;
    }
    if (!dl_whole_ok(g, r))
        return;
    g->stats.bytes += r->len;
    if (c->held) {
        land_start(g, os, &r->mem);
        req_put_back(g, r);
        return;
    }
    obj_phase_set(g, os, PH_END);
    req_put_back(g, r);
    maybe_finish(g, os);
}

/* ---- the whole: checked, downloaded again ------------------------------------------ */

void dl_again(struct engine *g, struct xfer_obj_state *os, const struct s3c_error *e)
{
    struct dl_check_state *c = dlc_of(os);

    if (stopping(g) || ++c->attempts >= store_s3_max_attempts(g->s3)) {
        obj_fail(g, os, e);
        return;
    }
    xdebug(g, os->o, "%s; downloading it again", e->msg);
    g->stats.retries++;
    g->stats.bytes -= g->stats.bytes >= os->size ? os->size : g->stats.bytes;
    os->parts_done = 0;
    os->next_part = 1;
    obj_phase_set(g, os, PH_PARTS);
    os->next = g->active;
    g->active = os;
    if (c->check == DL_SEQ) {
        /* Its last job is back (dl_check ran on all of it): start over. */
        md5_init(&c->seq_hash.job.md5);
        if (c->seq_sha)
            hash_reset(c->seq_sha);
        c->seq_off = 0;
        memset(dl_file_of(os)->part_in, 0, os->n_parts);
    }
    if (os->have) {
        /* Every part again, resumed ones too; the record claims none until they are in. */
        memset(os->have, 0, os->n_parts);
        dl_file_of(os)->dj_dirty = false;
        dl_journal_save(g, os);
    }
}

/* Every part is in: check the whole (dl_check), then end, download again, or fail. */
static void dl_verify(struct engine *g, struct xfer_obj_state *os)
{
    struct s3c_error e = S3C_ERROR_INIT;

    switch (dl_check(g, os, &e)) {
    case DLV_OK:
        obj_phase_set(g, os, PH_END);
        break;
    case DLV_HASHING:
        obj_phase_set(g, os, PH_VERIFY); /* dl_seq_hashed comes back once all is hashed */
        break;
    case DLV_AGAIN:
        dl_again(g, os, &e);
        break;
    case DLV_ERROR:
        obj_fail(g, os, &e);
        break;
    }
}

/*
 * DL_SEQ: the MD5 of the whole, in key order, by a hash worker re-reading
 * the temp file: one job at a time per object, over the parts on disk from
 * where the last stopped (at most SEQ_JOB_BYTES, so an interrupt waits for
 * little). Nothing when a job is out, the object failed or the run stops.
 */
static void dl_seq_kick(struct engine *g, struct xfer_obj_state *os)
{
    struct obj_dl_file *f = dl_file_of(os);
    struct dl_check_state *c = dlc_of(os);
    struct s3c_error e = S3C_ERROR_INIT;
    uint64_t end = c->seq_off;

    if (c->seq_hash.busy || os->failed || stopping(g))
        return;
    while (end < os->size && end - c->seq_off < SEQ_JOB_BYTES && f->part_in[end / os->part_size])
        end = (end / os->part_size + 1) * os->part_size < os->size ? (end / os->part_size + 1) * os->part_size
                                                                   : os->size;
    if (end == c->seq_off)
        return;
    c->seq_hash.job.final = end == os->size;
    c->seq_hash.done = dl_seq_hashed;
    if (!hash_start(g, &c->seq_hash, os->fd, NULL, c->seq_off, end - c->seq_off)) {
        s3c_fail(&e, S3C_ENOMEM, "cannot start a thread to hash %s", os->o->dst);
        obj_fail(g, os, &e);
    }
}

/* A DL_SEQ job is back: on to the next, or, all hashed and every part in, the verdict. */
static void dl_seq_hashed(struct engine *g, struct eng_hash *h)
{
    struct xfer_obj_state *os = dl_file_of_hash(h);
    struct dl_check_state *c = dlc_of(os);
    struct s3c_error e = S3C_ERROR_INIT;

    if (h->job.err.code) {
        obj_fail(g, os, &h->job.err);
    } else if (stopping(g) && !os->failed) {
        s3c_fail(&e, S3C_ECANCEL, "%s", cancel_requested ? "interrupted" : "stopped");
        obj_fail(g, os, &e);
    } else if (!os->failed) {
        c->seq_off += h->job.len;
        dl_seq_kick(g, os);
        if (c->seq_off == os->size && os->phase == PH_VERIFY)
            dl_verify(g, os);
    }
    maybe_finish(g, os);
}

/* A part taken from the earlier run counts as done like a fetched one; the
 * last one done starts the check. */
static void dl_rehash_done(struct engine *g, struct xfer_obj_state *os, uint32_t n)
{
    struct obj_dl_file *f = dl_file_of(os);

    os->parts_done++;
    f->rehash_part = dl_next_resumed(os, n);
    if (os->parts_done == os->n_parts)
        dl_verify(g, os);
}

/*
 * Parts taken from an earlier run go into the whole-object check while the
 * missing ones download: the next one's MD5 (DL_PARTS) or CRC (DL_CRC) by a
 * hash worker, which re-reads it from the file (one part at a time per
 * download; seq_hash is free, DL_SEQ's alone uses it). Never on the loop:
 * a part can be gigabytes, and the file on a slow disk.
 */
static void dl_rehash_kick(struct engine *g, struct xfer_obj_state *os)
{
    struct obj_dl_file *f = dl_file_of(os);
    struct dl_check_state *c = dlc_of(os);
    struct s3c_error e = S3C_ERROR_INIT;
    uint32_t n = f->rehash_part;
    uint64_t off = (uint64_t)(n - 1) * os->part_size;

    if (!n || c->seq_hash.busy || os->failed || stopping(g))
        return;
    md5_init(&c->seq_hash.job.md5);
    c->seq_hash.job.final = true;
    c->seq_hash.job.no_md5 = c->check == DL_CRC;
    c->seq_hash.job.crc = c->check == DL_CRC;
    c->seq_hash.job.crc_algo = c->ck_algo;
    c->seq_hash.job.crc_val = 0;
    c->seq_hash.done = dl_rehashed;
    if (!hash_start(g, &c->seq_hash, os->fd, NULL, off, n == os->n_parts ? os->size - off : os->part_size)) {
        s3c_fail(&e, S3C_ENOMEM, "cannot start a thread to hash %s", os->o->dst);
        obj_fail(g, os, &e);
    }
}

static void dl_rehashed(struct engine *g, struct eng_hash *h)
{
    struct xfer_obj_state *os = dl_file_of_hash(h);
    struct obj_dl_file *f = dl_file_of(os);
    struct dl_check_state *c = dlc_of(os);
    struct s3c_error e = S3C_ERROR_INIT;
    uint32_t n = f->rehash_part;

    if (stopping(g) && !os->failed) {
        s3c_fail(&e, S3C_ECANCEL, "%s", cancel_requested ? "interrupted" : "stopped");
        obj_fail(g, os, &e);
    } else if (h->job.err.code && !os->failed) {
        s3c_fail(&e, h->job.err.code, "cannot re-read %s, kept by an interrupted download: %s",
                 buf_cstr(&f->tmp_path), h->job.err.msg);
        obj_fail(g, os, &e);
    } else if (!os->failed) {
        if (c->check == DL_CRC)
            c->part_crcs[n - 1] = h->job.crc_val;
        else
            memcpy(c->md5s[n - 1], h->job.digest, MD5_LEN);
        dl_rehash_done(g, os, n);
        dl_rehash_kick(g, os);
    }
    maybe_finish(g, os);
}

/* ---- the end: on disk ---------------------------------------------------------------- */

/* Hand a verified small body to a worker; the object ends when it is on disk. */
static void land_start(struct engine *g, struct xfer_obj_state *os, struct buf *body)
{
    struct obj_dl_file *f = dl_file_of(os);
    struct land_job *j = &f->land;

    /* The request's buffer goes with the job; the request gets a fresh one. */
    j->body = *body;
    *body = (struct buf)BUF_INIT((size_t)SMALL_BODY_MAX + (1 << 20));
    j->dst = os->o->dst;
    j->attrs = dl_attrs(os);
    j->ctx = os;
    obj_phase_set(g, os, PH_LAND);
    if (!land_submit(g->land, j)) {
        s3c_fail(&os->err, S3C_ENOMEM, "cannot start a thread to write %s", os->o->dst);
        os->failed = true;
        obj_phase_set(g, os, PH_END);
        maybe_finish(g, os);
        return;
    }
    g->landing++;
}

/* Small downloads the workers finished: they end now; temp files they made: those downloads go on. */
void land_reap(struct engine *g)
{
    struct land_job *j;

    while (g->land && (j = land_take(g->land))) {
        struct xfer_obj_state *os = j->ctx;

        g->landing--;
        if (j->work) {
            dl_opened(g, os); /* its temp file, not a small body */
            continue;
        }
        buf_release(&j->body);
        if (j->err.code) {
            os->err = j->err;
            os->failed = true;
        }
        obj_phase_set(g, os, PH_END);
        maybe_finish(g, os);
    }
}

/* A download object ends (obj_finish): its temp file gets the destination's
 * name, or stays for the next --resume, or goes. */
void dl_end(struct engine *g, struct xfer_obj_state *os)
{
    struct obj_dl_file *f = dl_file_of(os);
    struct xfer_obj *o = os->o;

    if (dlc_of(os)->held) {
        /* A small download a worker landed (or never began): no file of ours to keep or remove. */
    } else if (!os->failed) {
        struct fattr a = dl_attrs(os);
        enum s3c_err rc = fs_tmp_commit(os->fd, buf_cstr(&f->tmp_path), o->dst, &a, &os->err);
        os->fd = -1;
        if (rc)
            os->failed = true;
        dl_journal_drop(g, os);
    } else if (dl_keep_for_resume(g, os)) {
        close(os->fd); /* the temp file stays, named in the journal, for the next --resume */
        os->fd = -1;
    } else {
        fs_tmp_abort(os->fd, buf_cstr(&f->tmp_path));
        os->fd = -1;
        dl_journal_drop(g, os);
    }
}

void dl_file_release(struct xfer_obj_state *os)
{
    struct obj_dl_file *f = dl_file_of(os);

    dl_check_release(&f->chk);
    free(f->part_in);
    buf_release(&f->tmp_path);
    buf_release(&f->land.body);
    if (f->dj)
        journal_download_release(f->dj);
    free(f->dj);
    free(f->resumed);
}
