/*
 * sync's same-second proof on the engine (xfer_obj.same_second): before an
 * object's family starts, phase PH_PROVE takes the steps of its plan
 * (xfer/samesec.h) without blocking the loop; sync --checksum's too, for
 * every entry of one size at both ends (xfer_same_second.by_content: no size
 * cap, and no usable checksum leaves it to size and time). The local file is
 * opened here, as the upload family opens its source, and read by
 * the hash workers a job at a time: its MD5, its parts' MD5s at a guessed
 * part size (each part a job, their md5 kept here), or its CRC; the HEADs
 * that ask for stored checksums (RK_PROVE_SRC, RK_PROVE_DST) are ordinary
 * requests in flight under the same cap and retries. Proven the same, the
 * object ends as check.c's skip does (xfer_obj.dst_skipped: nothing
 * written); anything else, a failure included (a HEAD refused, a file that
 * cannot be read or whose size changes), lets it go on as if never asked.
 * The fill takes no new object while PROVING_MAX proofs hash (xfer.c).
 * Calls check.c, obj.c, req.c and samesec.c.
 */
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store/store_fs.h"
#include "xfer/engine.h"

static struct req *prove_step(struct engine *g, struct prove *pv, enum samesec_step step);
static void prove_hashed(struct engine *g, struct eng_hash *h);

static struct prove *prove_of_hash(struct eng_hash *h)
{
    return (struct prove *)(void *)((char *)h - offsetof(struct prove, hash));
}

/* The local end: an upload's source, a download's destination. */
static const char *local_path(const struct xfer_obj *o)
{
    return o->op == XFER_UPLOAD ? o->src : o->dst;
}

/* The proof is over: its file closed, its state freed (its hash job is back). */
static void prove_end(struct xfer_obj_state *os)
{
    struct prove *pv = os->prove;

    if (!pv)
        return;
    if (pv->fd >= 0)
        close(pv->fd);
    free(pv);
    os->prove = NULL;
}

/* No proof: 'os' goes on as it would have without one: its destination looked at when asked
 * (check.c), else its family. Returns its first request, or NULL. */
static struct req *go_on(struct engine *g, struct xfer_obj_state *os)
{
    struct s3c_error e = S3C_ERROR_INIT;
    struct req *r = NULL;

    prove_end(os);
    if (check_wanted(g, os->o) && (r = check_start(g, os)))
        return r;
    os->started = true;
    if (g->ops[os->family].start(g, os, &r, &e)) {
        obj_fail(g, os, &e);
        maybe_finish(g, os);
        return NULL;
    }
    return r;
}

/* The proof cannot go on (the run stops): the object ends with 'e'. */
static void prove_failed(struct engine *g, struct xfer_obj_state *os, const struct s3c_error *e)
{
    prove_end(os);
    obj_fail(g, os, e);
    maybe_finish(g, os);
}

/* Whether the file still has the size the plan reads (else it changed: no proof). */
static bool same_size(const struct prove *pv)
{
    struct stat st;

    return fstat(pv->fd, &st) == 0 && (uint64_t)st.st_size == pv->plan.size;
}

/* The next hash job: the whole file (SAMESEC_MD5, SAMESEC_CRC) or part pv->part (SAMESEC_PARTS). */
static bool hash_kick(struct engine *g, struct prove *pv)
{
    struct hash_job *j = &pv->hash.job;
    bool crc = pv->plan.step == SAMESEC_CRC;
    uint64_t off = 0, len = pv->plan.size;

    if (pv->plan.step == SAMESEC_PARTS) {
        off = (uint64_t)(pv->part - 1) * pv->plan.part_size;
        len = pv->part == pv->n_parts ? pv->plan.size - off : pv->plan.part_size;
    }
    md5_init(&j->md5);
    j->final = true;
    j->also = NULL;
    j->no_md5 = crc;
    j->crc = crc;
    j->crc_algo = pv->plan.crc_algo;
    j->crc_val = 0;
    pv->hash.done = prove_hashed;
    if (!hash_start(g, &pv->hash, pv->fd, NULL, off, len))
        return false;
    g->proving++;
    return true;
}

/* A hash job is back: the plan hears of it, and takes its next step. */
static void prove_hashed(struct engine *g, struct eng_hash *h)
{
    struct prove *pv = prove_of_hash(h);
    struct xfer_obj_state *os = pv->os;
    enum samesec_step step = SAMESEC_COPY;
    unsigned char d[MD5_LEN];
    struct req *r;

    g->proving--;
    if (stopping(g)) {
        struct s3c_error e = S3C_ERROR_INIT;
        s3c_fail(&e, S3C_ECANCEL, "%s", cancel_requested ? "interrupted" : "stopped");
        prove_failed(g, os, &e);
        return;
    }
    if (h->job.err.code || !same_size(pv)) {
        xdebug(g, os->o, "same second: %s cannot be read to compare (%s): no proof", local_path(os->o),
               h->job.err.code ? h->job.err.msg : "its size changed");
    } else if (pv->plan.step == SAMESEC_MD5) {
        step = samesec_md5(&pv->plan, h->job.digest);
    } else if (pv->plan.step == SAMESEC_CRC) {
        step = samesec_crc(&pv->plan, h->job.crc_val);
    } else {
        md5_update(&pv->all, h->job.digest, MD5_LEN);
        if (pv->part < pv->n_parts) {
            pv->part++;
            step = SAMESEC_PARTS;
        } else {
            md5_final(&pv->all, d);
            pv->part = 0; /* a next guess starts from its first part */
            step = samesec_parts(&pv->plan, d);
        }
    }
    if ((r = prove_step(g, pv, step)))
        submit_or_fail(g, r);
}

/*
 * Take 'step' (the plan's, or SAMESEC_COPY when it cannot be taken): a hash
 * job, a HEAD (returned, to send), or the end of the proof: the object
 * skipped, or gone on (its first request returned).
 */
static struct req *prove_step(struct engine *g, struct prove *pv, enum samesec_step step)
{
    struct xfer_obj_state *os = pv->os;
    struct req *r;

    switch (step) {
    case SAMESEC_SAME:
        xdebug(g, os->o, "%s: %s", pv->plan.by_content ? "checksum" : "same second", pv->plan.how);
        prove_end(os);
        check_skipped(g, os, "the same bytes at both ends");
        return NULL;
    case SAMESEC_PARTS:
        if (!pv->part) {
            /* A part size guessed: its parts from the first. */
            pv->part = 1;
            pv->n_parts = (uint32_t)((pv->plan.size + pv->plan.part_size - 1) / pv->plan.part_size);
            md5_init(&pv->all);
        }
        /* fall through */
    case SAMESEC_MD5:
    case SAMESEC_CRC:
        if (hash_kick(g, pv))
            return NULL;
        xdebug(g, os->o, "same second: no hash worker: no proof");
        break;
    case SAMESEC_HEAD_SRC:
    case SAMESEC_HEAD_DST:
        if ((r = req_get(g, os, step == SAMESEC_HEAD_SRC ? RK_PROVE_SRC : RK_PROVE_DST)))
            return r;
        break;
    case SAMESEC_UNKNOWN:
        /* sync --checksum, no usable checksum: size and time decide, as without it. */
        os->o->same_second->by_time = true;
        xdebug(g, os->o, "checksum: none to compare: size and time decide (%s)",
               os->o->same_second->by_time_copies ? "copied" : "left alone");
        if (os->o->same_second->by_time_copies)
            return go_on(g, os);
        prove_end(os);
        check_skipped(g, os, "no checksum to compare; size and time say it is up to date");
        return NULL;
    case SAMESEC_COPY:
        break;
    }
    xdebug(g, os->o, "%s: nothing proves both ends the same: copied",
           os->o->same_second->by_content ? "checksum" : "same second");
    return go_on(g, os);
}

struct req *prove_start(struct engine *g, struct xfer_obj_state *os)
{
    const struct xfer_obj *o = os->o;
    struct s3c_error e = S3C_ERROR_INIT;
    struct prove *pv = calloc(1, sizeof(*pv));
    enum samesec_step step;
    uint64_t size = 0;

    if (!pv)
        return go_on(g, os);
    pv->os = os;
    pv->fd = -1;
    os->prove = pv;
    obj_phase_set(g, os, PH_PROVE);
    step = samesec_begin_obj(&pv->plan, o);
    /* The local file opened first: one that cannot be read proves nothing, and asks no HEAD. */
    if (o->op != XFER_COPY && step != SAMESEC_COPY && step != SAMESEC_SAME &&
        (fs_open_read(local_path(o), &pv->fd, &size, NULL, &e) || size != o->size)) {
        xdebug(g, o, "same second: %s cannot be read to compare (%s): no proof", local_path(o),
               e.code ? e.msg : "its size changed");
        step = SAMESEC_COPY;
    }
    return prove_step(g, pv, step);
}

/* ---- the HEADs: a stored CRC --------------------------------------------------------- */

void on_prove_head(struct engine *g, struct req *r)
{
    struct xfer_obj_state *os = r->os;
    enum samesec_step step = samesec_head(&os->prove->plan, &r->http.resp);
    struct req *next;

    req_put_back(g, r);
    if ((next = prove_step(g, os->prove, step)))
        submit_or_fail(g, next);
}

/* A refusal (404, 403, 400 of an SSE-C key...): no stored CRC to compare, no proof; the copy meets
 * any real trouble itself. */
bool prove_head_refused(struct engine *g, struct req *r, const struct s3c_error *e)
{
    struct xfer_obj_state *os = r->os;
    struct req *next;

    xdebug(g, os->o, "same second: %s: %s", req_op_name(r->kind), e->msg);
    req_put_back(g, r);
    if ((next = prove_step(g, os->prove, samesec_head(&os->prove->plan, NULL))))
        submit_or_fail(g, next);
    return true;
}

/* Retries are over without an answer: the same; but an interrupted run goes no further. */
void prove_head_gave_up(struct engine *g, struct req *r, const struct s3c_error *e)
{
    struct xfer_obj_state *os = r->os;

    if (!stopping(g) && !os->failed) {
        prove_head_refused(g, r, e);
        return;
    }
    req_put_back(g, r);
    prove_failed(g, os, e);
}
