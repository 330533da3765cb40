/*
 * --resume, the engine's side of both journals (journal.h): a multipart
 * upload's record and which listed parts are ours; a ranged download's record,
 * its temp file, and which parts it already holds. Says what it found; the
 * upload and download families act on it. Not only with --resume: an upload
 * a killed run left open for a key is aborted (its record says which) before
 * that key is uploaded again. Calls req.c, verify.c, part.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "base/hash.h"
#include "base/str.h"
#include "store/store_fs.h"
#include "xfer/engine.h"
#include "xfer/journal.h"

#define DL_JOURNAL_EVERY_MS 1000    /* at most one fdatasync + record a second per download */

/* ---- journaled multipart uploads ---------------------------------------------- */

/* A copy relayed through s3c in parts (copy.c) is journaled as an upload is, when its source's
 * ETag is known: the ETag names the bytes the parts were read from (every GET asks If-Match). */
static bool relay_journaled(const struct xfer_obj_state *os)
{
    return os->family == FAM_COPY && copy_of(os)->relay && os->n_parts && os->o->etag && os->o->etag[0];
}

/* What the journal keys a resume on: a local file's absolute path; a relay's source object. */
static bool journal_source(const struct xfer_obj_state *os, char out[4096])
{
    const struct xfer_obj *o = os->o;
    bool version = o->version_id && o->version_id[0];

    if (os->family == FAM_UPLOAD)
        return realpath(o->src, out) != NULL;
    return relay_journaled(os) && snprintf(out, 4096, "s3://%s/%s%s%s", o->src_bucket, o->src,
                                           version ? "?versionId=" : "", version ? o->version_id : "") < 4096;
}

/* Journal a new multipart upload of a local file or a relay, for a later --resume (best
 * effort), when this run holds its key's record (resume_first). */
void journal_save(struct engine *g, struct xfer_obj_state *os)
{
    struct s3c_error e = S3C_ERROR_INIT;
    struct journal_upload j;
    struct mpu_state *m;
    char src[4096];

    if (!g->opts.state_dir || !(m = mpu_find(os)) || m->jlock < 0 || m->no_journal || !journal_source(os, src))
        return;
    j.bucket = os->o->dst_bucket;
    j.key = os->o->dst;
    j.upload_id = m->upload_id;
    j.source = src;
    j.etag = os->family == FAM_COPY ? os->o->etag : "";
    j.size = os->size;
    j.mtime_s = os->family == FAM_UPLOAD ? upload_of(os)->src_mtime : -1;
    j.part_size = os->part_size;
    (void)journal_upload_save(g->opts.state_dir, &j, &e); /* no journal: no resume, nothing worse */
}

/* The upload completed or was aborted: nothing to resume. Only its own record
 * goes (an upload that could not be aborted keeps another's). */
void journal_drop(struct engine *g, struct xfer_obj_state *os)
{
    struct mpu_state *m = mpu_of(os);

    if (m->jlock >= 0 && m->upload_id)
        journal_upload_remove(g->opts.state_dir, os->o->dst_bucket, os->o->dst, m->upload_id);
}

/* Whether the journal has a record of this upload (for a later run to abort or continue). */
bool journal_kept(struct engine *g, const struct xfer_obj_state *os)
{
    struct mpu_state *m = mpu_of(os);
    struct s3c_error e = S3C_ERROR_INIT;
    struct journal_upload j;
    bool kept;

    if (m->jlock < 0 || !m->upload_id ||
        journal_upload_load(g->opts.state_dir, os->o->dst_bucket, os->o->dst, &j, &e) != 1)
        return false;
    kept = !strcmp(j.upload_id, m->upload_id);
    journal_upload_release(&j);
    return kept;
}

/* The upload ended (obj_finish): let go of its key's record. */
void journal_release(struct engine *g, struct xfer_obj_state *os)
{
    struct mpu_state *m = mpu_of(os);

    if (m->jlock >= 0)
        journal_upload_unlock(g->opts.state_dir, os->o->dst_bucket, os->o->dst, m->jlock);
    m->jlock = -1;
}

/* The part size of a journaled upload, if one of 'size' bytes can have it. */
static bool journal_part_size_fits(uint64_t size, uint64_t part)
{
    return part >= ((uint64_t)5 << 20) && part <= ((uint64_t)5 << 30) && (size + part - 1) / part <= S3_MAX_PARTS;
}

void mpu_release(struct mpu_state *m)
{
    if (m->jlock >= 0)
        close(m->jlock); /* its object never ended (journal_release): the lock goes, the record stays */
    free(m->upload_id);
    free(m->stale_upload_id);
    free(m->etags);
    free(m->md5s);
    free(m->part_crcs);
    free(m->part_sums);
    free(m->checks);
}

void mpu_state_free(struct xfer_obj_state *os)
{
    struct mpu_state *m = mpu_of(os);

    free(m->upload_id);
    free(os->have);
    free(m->etags);
    free(m->md5s);
    m->upload_id = NULL;
    os->have = NULL;
    m->etags = NULL;
    m->md5s = NULL;
}

/* --resume: is the journaled upload 'j' one of this very file (same path,
 * size, mtime, and part size: the one planned, or when s3c chose it, the one
 * the journal says, since that choice follows what the network showed the
 * earlier run), or of this very relay (same source key and ETag, size and
 * part size: a relay's follows the source's layout)? If so, set 'os' up to
 * continue it. */
static bool resume_take(struct engine *g, struct xfer_obj_state *os, const struct journal_upload *j)
{
    struct mpu_state *m = mpu_of(os);
    char src[4096];

    if (!g->opts.resume || !journal_source(os, src) || strcmp(j->source, src) || j->size != os->size)
        return false;
    if (os->family == FAM_COPY ? strcmp(j->etag, os->o->etag) || j->part_size != os->part_size
                               : j->mtime_s != upload_of(os)->src_mtime ||
                                     !(j->part_size == os->part_size ||
                                       (!g->opts.part_size && journal_part_size_fits(os->size, j->part_size))))
        return false;
    if (j->part_size != os->part_size) {
        os->part_size = j->part_size;
        os->n_parts = (uint32_t)((os->size + os->part_size - 1) / os->part_size);
    }
    if (os->family == FAM_COPY) /* its parts' GETs ask If-Match this, and its proof names it */
        str_copy(copy_of(os)->relay_etag, sizeof(copy_of(os)->relay_etag), os->o->etag);
    m->upload_id = strdup(j->upload_id);
    os->have = calloc(os->n_parts, 1);
    m->etags = calloc(os->n_parts, sizeof(*m->etags));
    m->md5s = calloc(os->n_parts, sizeof(*m->md5s));
    if (m->upload_id && os->have && m->etags && m->md5s)
        return true;
    mpu_state_free(os);
    return false;
}

/*
 * The first request of a multipart upload of a local file. Its key's journal
 * record is taken first (journal_upload_lock), so that no two runs act on one
 * record. A record of this very file is continued with --resume (ListParts:
 * resume_take). Any other record is of an upload that a run killed before it
 * could complete or abort it (a live run would hold the record): it is
 * aborted before the new upload is created (RK_ABORT_STALE), never left open
 * and billed; the record goes when the store confirms. A record held by
 * another live run is left alone, and this upload is not journaled.
 */
enum req_kind resume_first(struct engine *g, struct xfer_obj_state *os)
{
    struct mpu_state *m = mpu_of(os);
    const char *dir = g->opts.state_dir, *bucket = os->o->dst_bucket, *key = os->o->dst;
    struct s3c_error e = S3C_ERROR_INIT;
    struct journal_upload j;
    enum req_kind first = RK_CREATE;

    if (!dir || !(os->family == FAM_UPLOAD || relay_journaled(os)))
        return RK_CREATE;
    if ((m->jlock = journal_upload_lock(dir, bucket, key)) < 0) {
        if (errno == EWOULDBLOCK)
            xdebug(g, os->o, "another s3c run (or this one) is uploading to this key: its journal record is "
                             "left alone, and this upload is not journaled");
        m->no_journal = true;
        return RK_CREATE;
    }
    if (journal_upload_load(dir, bucket, key, &j, &e) != 1)
        return RK_CREATE; /* none, or unreadable: nothing to abort, and this upload's record replaces it */
    if (resume_take(g, os, &j)) {
        first = RK_LIST_PARTS;
    } else if ((m->stale_upload_id = strdup(j.upload_id))) {
        xdebug(g, os->o, "aborting upload %s, which an interrupted run left open (its journal record)%s",
               j.upload_id, g->opts.resume ? ": not of this source as it is now" : "");
        first = RK_ABORT_STALE;
    } else {
        m->no_journal = true; /* keep the record: a later run aborts its upload */
    }
    journal_upload_release(&j);
    return first;
}

/* This run's upload starts after the stale one's Abort. */
static void stale_then_create(struct engine *g, struct xfer_obj_state *os)
{
    struct mpu_state *m = mpu_of(os);
    struct s3c_error e = S3C_ERROR_INIT;
    struct req *nr;

    free(m->stale_upload_id);
    m->stale_upload_id = NULL;
    if (!(nr = req_get(g, os, RK_CREATE))) {
        s3c_fail(&e, S3C_ENOMEM, "out of memory");
        obj_fail(g, os, &e);
    } else {
        submit_or_fail(g, nr);
    }
    maybe_finish(g, os);
}

/* The upload a killed run left is aborted: so goes its record. */
void on_stale_aborted(struct engine *g, struct req *r)
{
    struct xfer_obj_state *os = r->os;
    struct mpu_state *m = mpu_of(os);

    xdebug(g, os->o, "aborted upload %s, which an interrupted run left open", m->stale_upload_id);
    journal_upload_remove(g->opts.state_dir, os->o->dst_bucket, os->o->dst, m->stale_upload_id);
    req_put_back(g, r);
    stale_then_create(g, os);
}

/* A 404 to that Abort: the store knows no such upload (S3 NoSuchUpload, Ceph
 * 16 NoSuchKey) or no such bucket; nothing of it is left to bill, and its
 * record goes too. */
bool stale_abort_refused(struct engine *g, struct req *r, const struct s3c_error *e)
{
    struct xfer_obj_state *os = r->os;
    struct mpu_state *m = mpu_of(os);

    if (e->http_status != 404)
        return false;
    xdebug(g, os->o, "upload %s, which an interrupted run left, is gone already (%s)", m->stale_upload_id,
           e->s3_code);
    journal_upload_remove(g->opts.state_dir, os->o->dst_bucket, os->o->dst, m->stale_upload_id);
    req_put_back(g, r);
    stale_then_create(g, os);
    return true;
}

/*
 * That Abort failed, retries included: the record stays for the next run to
 * try again, and a warning with this object's outcome says so. This run's
 * upload goes ahead unjournaled (its record would replace that one); if the
 * run is stopping, the object ends with it.
 */
void stale_abort_gave_up(struct engine *g, struct req *r, const struct s3c_error *e)
{
    struct xfer_obj_state *os = r->os;
    struct mpu_state *m = mpu_of(os);
    struct s3c_error why = *e; /* 'e' may live in the request */
    char msg[1024];

    req_put_back(g, r);
    if (stopping(g) || why.code == S3C_ECANCEL) {
        obj_fail(g, os, &why);
        maybe_finish(g, os);
        return;
    }
    snprintf(msg, sizeof(msg),
             "could not abort multipart upload %s of s3://%s/%s, which an interrupted run left open (%.300s); "
             "its journal record is kept, so the next run tries again",
             m->stale_upload_id, os->o->dst_bucket, os->o->dst, why.msg);
    free(os->o->warning);
    os->o->warning = strdup(msg); /* NULL: no warning, but the record is kept all the same */
    m->no_journal = true;
    stale_then_create(g, os);
}

/*
 * A part the store already has counts only if its ETag is the MD5 of our
 * bytes at that place. Those bytes are re-read and hashed by the hash
 * workers (a part is up to 5 GiB: never on the loop), one job per listed part
 * of a ListParts page, all at once; the object waits in its phase (PH_CREATE)
 * until every job is back (resume_checked), then pages on or starts its
 * parts (the caller's 'then': multipart.c's list_parts_next).
 */
struct part_check {
    struct eng_hash h;              /* first: the worker's job (MD5, and the CRC when the upload has one) */
    struct xfer_obj_state *os;
    uint32_t n;                     /* the part number */
    char etag[72];                  /* as the store listed it */
    char want[33];                  /* its MD5, hex */
    unsigned char sum[CK_MAX_LEN];  /* a SHA upload's: the store's SHA of the part */
};

/* A part's check is back: the part is ours when the MD5 matches (an
 * unreadable one is sent again, and fails there if need be). The last one
 * back lets the object go on. */
static void resume_checked(struct engine *g, struct eng_hash *h)
{
    struct part_check *c = (struct part_check *)h;
    struct xfer_obj_state *os = c->os;
    struct mpu_state *m = mpu_of(os);
    uint32_t n = c->n;
    char hex[33];

    m->checks_out--;
    if (!h->job.err.code && !os->have[n - 1]) {
        str_hex(h->job.digest, MD5_LEN, hex);
        if (!strcasecmp(hex, c->want)) {
            os->have[n - 1] = 1;
            if (h->job.crc)
                m->part_crcs[n - 1] = h->job.crc_val;
            else if (m->mpu_crc)
                memcpy(m->part_sums[n - 1], c->sum, sizeof(c->sum));
            str_copy(m->etags[n - 1], sizeof(m->etags[0]), c->etag);
            memcpy(m->md5s[n - 1], h->job.digest, MD5_LEN);
            os->parts_done++;
        }
    }
    if (!m->checks_out)
        m->checks_then(g, os);
}

/* Whether listed part 'p' may be ours; if so, its check is filled in (not sent). */
static bool resume_check_fill(struct xfer_obj_state *os, const struct s3_part *p, enum ck_algo a,
                              struct part_check *c)
{
    struct mpu_state *m = mpu_of(os);
    uint32_t n = p->number;

    if (n < 1 || n > os->n_parts || os->have[n - 1] || !p->etag || !etag_is_md5(sv_from(p->etag), c->want) ||
        strlen(p->etag) >= sizeof(c->etag))
        return false;
    if (p->size != (n == os->n_parts ? os->size - (uint64_t)(n - 1) * os->part_size : os->part_size))
        return false;
    if (m->mpu_crc && !ck_is_crc(a)) {
        /* A SHA: the store's of the part, once its MD5 proves the bytes ours
         * (Complete must list it); a part listed without one is sent again. */
        const char *v = a == CK_SHA1 ? p->checksums.sha1 : p->checksums.sha256;
        if (!v || !ck_from_b64(a, sv_from(v), c->sum))
            return false;
    }
    c->os = os;
    c->n = n;
    str_copy(c->etag, sizeof(c->etag), p->etag);
    memset(&c->h.job, 0, sizeof(c->h.job));
    md5_init(&c->h.job.md5);
    c->h.job.final = true;
    c->h.job.crc = m->mpu_crc && ck_is_crc(a);
    c->h.job.crc_algo = a;
    c->h.done = resume_checked;
    return true;
}

/*
 * A page of ListParts of a journaled relay. A part listed with its size and an
 * MD5 for its ETag holds bytes the run that sent it read from the source at
 * the ETag it still has (every GET asks If-Match): it is taken, and its MD5
 * goes into the whole's proof (relay_source_check: the MD5 of the parts' MD5s
 * against a multipart source's ETag), with no byte read again. A source of
 * one PutObject is proven by the MD5 of all its bytes in order: its listed
 * parts are read again (HAVE_LISTED), and each is sent again only if its MD5
 * is not the one listed (relay_send). Where the destination's ETags are no
 * MD5s (a directory bucket, SSE-KMS or SSE-C asked), every part is sent again.
 */
static void relay_listed(struct engine *g, struct xfer_obj_state *os, const struct s3_list_parts *lp)
{
    const struct xfer_obj_opts *oo = os->o->opts;
    struct mpu_state *m = mpu_of(os);
    uint32_t took = 0;
    char hex[33];
    size_t i;

    if (xfer_etag_not_md5(os->o->dst_bucket, NULL) ||
        (oo && ((oo->sse && strcmp(oo->sse, "AES256")) || oo->sse_kms_key_id || oo->sse_c_key)))
        return;
    for (i = 0; i < lp->n_parts; i++) {
        const struct s3_part *p = &lp->parts[i];
        uint32_t n = p->number;

        if (n < 1 || n > os->n_parts || os->have[n - 1] || !p->etag || !etag_is_md5(sv_from(p->etag), hex) ||
            strlen(p->etag) >= sizeof(m->etags[0]) ||
            p->size != (n == os->n_parts ? os->size - (uint64_t)(n - 1) * os->part_size : os->part_size))
            continue;
        str_copy(m->etags[n - 1], sizeof(m->etags[0]), p->etag);
        (void)str_unhex(hex, m->md5s[n - 1], MD5_LEN); /* hex: etag_is_md5 */
        if (copy_of(os)->seq_md5) {
            os->have[n - 1] = HAVE_LISTED;
        } else {
            os->have[n - 1] = HAVE_TAKEN;
            os->parts_done++;
        }
        took++;
    }
    xdebug(g, os->o, "resuming upload %s: the store lists %zu parts, %" PRIu32 " of them of this copy's size and "
           "MD5-named%s", mpu_of(os)->upload_id, lp->n_parts, took,
           copy_of(os)->seq_md5 ? " (read again for the MD5 of the whole)" : "");
}

/*
 * A page of ListParts of a journaled upload: the parts the store has that
 * may be ours go to the hash workers (resume_checked takes those that are).
 * True when some went: the object waits for them, and the last one back
 * calls then(g, os); false: none to wait for, the caller goes on itself.
 */
bool resume_listed(struct engine *g, struct xfer_obj_state *os, const struct s3_list_parts *lp, enum ck_algo a,
                   void (*then)(struct engine *g, struct xfer_obj_state *os))
{
    struct mpu_state *m = mpu_of(os);
    size_t i;

    if (os->family == FAM_COPY) {
        relay_listed(g, os, lp);
        return false;
    }
    /* Created with this run's checksum (by a run with flexible checksums): the parts sent now carry it too. */
    m->mpu_crc = lp->checksum_algorithm && !strcasecmp(lp->checksum_algorithm, ck_name(a)) &&
                  (ck_is_crc(a) ? (m->part_crcs || (m->part_crcs = calloc(os->n_parts, sizeof(*m->part_crcs))))
                                : (m->part_sums || (m->part_sums = calloc(os->n_parts, sizeof(*m->part_sums)))));
    free(m->checks); /* the last page's: all back */
    m->checks = NULL;
    m->checks_then = then;
    if (!lp->n_parts || !(m->checks = calloc(lp->n_parts, sizeof(*m->checks))))
        return false; /* no memory to check them: they are sent again */
    for (i = 0; i < lp->n_parts; i++) {
        struct part_check *c = &m->checks[m->checks_out];

        if (!resume_check_fill(os, &lp->parts[i], a, c))
            continue;
        if (!hash_start(g, &c->h, os->fd, NULL, (uint64_t)(c->n - 1) * os->part_size, lp->parts[i].size))
            break; /* no worker could start: the rest are sent again */
        m->checks_out++;
    }
    return m->checks_out > 0;
}

/* ---- journaled ranged downloads ------------------------------------------------ */

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

/* The engine's journal worker (jsync.h), started on first use; NULL if none could be. */
static struct jsync *jsync_of(struct engine *g)
{
    if (!g->jsync)
        g->jsync = jsync_new();
    return g->jsync;
}

/* Queue the record, 'have' as the parts done, written on the journal worker
 * after an fdatasync of the temp file when 'sync': never on the loop. */
static bool dl_journal_queue(struct engine *g, struct xfer_obj_state *os, bool sync)
{
    struct obj_dl_file *f = dl_file_of(os);
    bool ok;

    f->dj->done = os->have;
    ok = jsync_of(g) && jsync_save(g->jsync, g->opts.state_dir, sync ? os->fd : -1, f->dj);
    f->dj->done = NULL;
    f->dj_saved_ms = now_ms();
    return ok; /* not queued: no record, so no resume, nothing worse */
}

/* Write the record: 'have' as the parts done. */
void dl_journal_save(struct engine *g, struct xfer_obj_state *os)
{
    (void)dl_journal_queue(g, os, false);
}

/* Record the parts completed so far, at most once a second unless 'now': the
 * temp file is fdatasync'd first, so the record never claims a part a crash
 * could still lose (a part whose pwrite returned survives kill -9 anyway).
 * Both on the journal worker, in order: a slow disk does not hold the loop. */
static void dl_journal_flush(struct engine *g, struct xfer_obj_state *os, bool now)
{
    struct obj_dl_file *f = dl_file_of(os);

    if (!f->dj || !os->have || !f->dj_dirty || (!now && now_ms() - f->dj_saved_ms < DL_JOURNAL_EVERY_MS))
        return;
    if (dl_journal_queue(g, os, true))
        f->dj_dirty = false;
}

void dl_journal_drop(struct engine *g, struct xfer_obj_state *os)
{
    struct obj_dl_file *f = dl_file_of(os);

    if (!f->dj)
        return;
    /* After the saves queued before it; here only if it could not be queued. */
    if (!jsync_of(g) || !jsync_drop(g->jsync, g->opts.state_dir, f->dj->dest))
        journal_download_remove(g->opts.state_dir, f->dj->dest);
}

/* An interrupted (SIGINT, SIGTERM, run-wide stop) journaled download keeps its
 * temp file and record when some part is in, for the next --resume. */
bool dl_keep_for_resume(struct engine *g, struct xfer_obj_state *os)
{
    struct obj_dl_file *f = dl_file_of(os);
    uint32_t i;

    if (!f->dj || os->fd < 0 || !(stopping(g) || os->err.code == S3C_ECANCEL))
        return false;
    if (f->dj_resumed)
        return true; /* stopped before its parts were looked at: the earlier run's record stands */
    if (!os->have)
        return false;
    for (i = 0; i < os->n_parts && !os->have[i]; i++)
        ;
    if (i == os->n_parts)
        return false;
    dl_journal_flush(g, os, true);
    return !f->dj_dirty;
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
 * Create the temp file of a download (its space reserved: fs_tmp_create).
 * With --resume, a ranged download reopens the temp file an earlier run left
 * for this destination when its record matches the object; a stale record
 * and its temp file go, quietly. The download is then journaled (f->dj).
 * A land worker's job (j->ctx is the object, in PH_OPEN: the loop touches
 * none of what this writes, f->open says the rest); j->err the outcome.
 */
void dl_tmp_open(struct land_job *j_open)
{
    struct xfer_obj_state *os = j_open->ctx;
    struct obj_dl_file *f = dl_file_of(os);
    const struct dl_open_args *a = &f->open;
    struct s3c_error *e = &j_open->err;
    struct xfer_obj *o = os->o;
    struct buf dest = BUF_INIT(8192), abs = BUF_INIT(8192);
    struct s3c_error ignored = S3C_ERROR_INIT;
    struct journal_download j;
    int found;

    if (!a->state_dir || !a->ranged || !dest_path(o->dst, &dest)) {
        buf_release(&dest);
        (void)fs_tmp_create(o->dst, os->size, &os->fd, &f->tmp_path, e);
        return;
    }
    found = journal_download_load(a->state_dir, buf_cstr(&dest), &j, &ignored);
    if (found == 1 && a->resume && dl_journal_matches(&j, o) && fs_tmp_is_for(j.tmp, buf_cstr(&dest)) &&
        !fs_tmp_reopen(j.tmp, os->size, &os->fd, &ignored) && (f->dj = malloc(sizeof(*f->dj))) &&
        !buf_adds(&f->tmp_path, j.tmp)) {
        *f->dj = j;
        f->dj_resumed = true;
        buf_release(&dest);
        return;
    }
    if (os->fd >= 0) {
        close(os->fd);
        os->fd = -1;
    }
    free(f->dj);
    f->dj = NULL;
    if (found == 1) {
        if (fs_tmp_is_for(j.tmp, buf_cstr(&dest)))
            unlink(j.tmp); /* an interrupted download of another version, or one not resumed */
        journal_download_release(&j);
    }
    if (found)
        journal_download_remove(a->state_dir, buf_cstr(&dest));
    if (!fs_tmp_create(o->dst, os->size, &os->fd, &f->tmp_path, e) && a->resume) {
        const char *slash = strrchr(buf_cstr(&dest), '/');
        const char *tbase = strrchr(buf_cstr(&f->tmp_path), '/');

        tbase = tbase ? tbase + 1 : buf_cstr(&f->tmp_path);
        if (!buf_add(&abs, dest.data, (size_t)(slash - dest.data + 1)) && !buf_adds(&abs, tbase))
            f->dj = dl_journal_new(o, buf_cstr(&dest), buf_cstr(&abs)); /* NULL: not journaled */
    }
    buf_release(&dest);
    buf_release(&abs);
}

/* The next part taken from the earlier run after part 'n' (0: none). */
uint32_t dl_next_resumed(const struct xfer_obj_state *os, uint32_t n)
{
    struct obj_dl_file *f = dl_file_of(os);

    for (n++; n <= os->n_parts; n++)
        if (f->resumed[n - 1])
            return n;
    return 0;
}

/*
 * The ranges are planned and the ETag known: complete the record, and when an
 * earlier run's parts are of this very object and cut (ETag, size, part size),
 * take them as done: never fetched, re-read from the temp file into the
 * whole-object check (dl_rehash_kick). Anything else starts afresh in the
 * same temp file.
 */
void dl_resume_apply(struct engine *g, struct xfer_obj_state *os)
{
    struct obj_dl_file *f = dl_file_of(os);
    struct journal_download *j = f->dj;
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
        f->dj = NULL;
        return;
    }
    if (f->dj_resumed && !strcmp(j->etag, etag) && j->part_size == os->part_size && j->n_parts == os->n_parts) {
        for (n = 1; n <= os->n_parts; n++)
            resumed += j->done[n - 1];
        memcpy(os->have, j->done, os->n_parts);
        if (f->chk.check == DL_SIZE) {
            os->parts_done = resumed; /* nothing to re-read them for */
        } else if (f->chk.check == DL_SEQ) {
            /* On disk: hashed in key order with the rest (dl_seq_kick, after this). */
            os->parts_done = resumed;
            memcpy(f->part_in, j->done, os->n_parts);
        } else if (resumed) {
            f->resumed = j->done;
            j->done = NULL;
            f->rehash_part = dl_next_resumed(os, 0); /* re-read by dl_rehash_kick, next */
        }
        xdebug(g, os->o, "resumed: %" PRIu32 " of %" PRIu32 " parts already in %s", resumed, os->n_parts,
               buf_cstr(&f->tmp_path));
    }
    f->dj_resumed = false;
    free(j->done);
    j->done = NULL;
    free(j->etag);
    j->etag = etag;
    j->part_size = os->part_size;
    j->n_parts = os->n_parts;
    dl_journal_save(g, os);
}

/* Part n of a journaled download is in the temp file. */
void dl_part_written(struct engine *g, struct xfer_obj_state *os, uint32_t n)
{
    struct obj_dl_file *f = dl_file_of(os);

    if (!os->have)
        return;
    os->have[n - 1] = 1;
    f->dj_dirty = true;
    dl_journal_flush(g, os, false);
}
