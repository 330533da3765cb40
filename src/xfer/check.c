/*
 * The destination check (xfer_obj.dst_check: --no-clobber, --if-size-differ,
 * --if-source-newer): before an object's family starts, a HeadObject of its
 * destination goes out as an ordinary request (RK_CHECK_DST, phase PH_CHECK),
 * in flight beside every other under the same cap, and its answer says
 * whether the object is skipped (it ends, xfer_obj.dst_skipped, having
 * written nothing) or starts as it would have without the check. What it is
 * not: the check of a local destination (a stat on the caller's side), nor
 * the race's end (If-None-Match: * on the write is that).
 * Calls obj.c, part.c, req.c.
 */
#include "xfer/engine.h"

#include "http/http.h"

bool xfer_dst_skip(const struct xfer_obj *o, bool exists, uint64_t dsize, int64_t dmtime)
{
    if (!o->dst_check || !exists)
        return false;
    if (o->dst_check & XFER_CHECK_EXISTS)
        return true;
    if ((o->dst_check & XFER_CHECK_SIZE) && o->size_known && dsize != o->size)
        return false;
    if ((o->dst_check & XFER_CHECK_NEWER) && o->mtime >= 0 && o->mtime > dmtime)
        return false;
    return true;
}

/*
 * Whether 'o' needs its destination looked at before it starts. Not an
 * upload in one PutObject under --no-clobber: its If-None-Match: * is the
 * check, with no request more (the 412 is the skip). A multipart upload
 * still asks first, so an existing object costs a HEAD, not all its parts.
 */
bool check_wanted(struct engine *g, const struct xfer_obj *o)
{
    if (!o->dst_check || !o->dst_bucket || o->op == XFER_DOWNLOAD || o->op == XFER_DELETE)
        return false;
    if ((o->dst_check & XFER_CHECK_EXISTS) && o->opts && o->opts->no_overwrite && o->op == XFER_UPLOAD &&
        !o->stdio && o->size_known && !wants_multipart(g, o->size))
        return false;
    return true;
}

struct req *check_start(struct engine *g, struct xfer_obj_state *os)
{
    struct req *r = req_get(g, os, RK_CHECK_DST);

    if (r)
        obj_phase_set(g, os, PH_CHECK);
    return r;
}

/* The check let 'os' go: its family starts it, as obj_start would have. */
static void check_go_on(struct engine *g, struct xfer_obj_state *os)
{
    struct s3c_error e = S3C_ERROR_INIT;
    struct req *first = NULL;

    os->started = true;
    if (g->ops[os->family].start(g, os, &first, &e)) {
        obj_fail(g, os, &e);
        maybe_finish(g, os);
        return;
    }
    if (first)
        submit_or_fail(g, first);
}

/* The destination exists (a 2xx): skipped, or on its way. */
void on_check_dst(struct engine *g, struct req *r)
{
    struct xfer_obj_state *os = r->os;
    uint64_t dsize = 0;
    int64_t dmtime = 0;
    struct sv v;

    if (http_resp_header(&r->http.resp, "content-length", &v))
        sv_to_u64(v, &dsize);
    if (http_resp_header(&r->http.resp, "last-modified", &v))
        http_date_parse(v, &dmtime);
    req_put_back(g, r);
    if (!xfer_dst_skip(os->o, true, dsize, dmtime)) {
        check_go_on(g, os);
        return;
    }
    xdebug(g, os->o, "the destination exists: skipped");
    os->o->dst_skipped = true;
    os->proven = true; /* nothing written, nothing to prove */
    obj_phase_set(g, os, PH_END);
    maybe_finish(g, os);
}

/* A refusal (404, 403, 400 of an SSE-C key...): no destination the check can see, so the object
 * goes on, as a HEAD that failed always let it; its own write meets any real trouble. */
bool check_dst_refused(struct engine *g, struct req *r, const struct s3c_error *e)
{
    struct xfer_obj_state *os = r->os;

    (void)e;
    req_put_back(g, r);
    check_go_on(g, os);
    return true;
}

/* Retries are over without an answer: the same (the write will say what is wrong); but an
 * interrupted run or a failed object goes no further. */
void check_dst_gave_up(struct engine *g, struct req *r, const struct s3c_error *e)
{
    struct xfer_obj_state *os = r->os;

    if (!stopping(g) && !os->failed) {
        check_dst_refused(g, r, e);
        return;
    }
    obj_fail(g, os, e);
    req_put_back(g, r);
    maybe_finish(g, os);
}
