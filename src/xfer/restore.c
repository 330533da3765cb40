/*
 * The engine's restores (FAM_RESTORE: an object is the head alone): one
 * RestoreObject an object, many in flight as any request, under the same cap.
 * What the store answers is the object's xfer_obj.restore; answers that say
 * the work is done already (409 RestoreAlreadyInProgress) or needs none (403
 * InvalidObjectState: not archived) are no failure, so a second run of the
 * same command is a no-op. Calls req.c and verify.c; no other family.
 */
#include <stdio.h>
#include <string.h>

#include "xfer/engine.h"

#define RESTORE_BODY_MAX 512                    /* <RestoreRequest> with Days and Tier */

/* Start one: its body made and digested, the request returned. */
enum s3c_err restore_start(struct engine *g, struct xfer_obj_state *os, struct req **out, struct s3c_error *e)
{
    const struct xfer_obj *o = os->o;
    const struct xfer_obj_opts *oo = o->opts;
    struct req *r;
    enum s3c_err rc = S3C_OK;

    *out = NULL;
    obj_phase_set(g, os, PH_SINGLE);
    if (!o->src_bucket || !o->src_bucket[0] || !o->src || !o->src[0])
        return s3c_fail(e, S3C_EUSAGE, "restore: an object needs a bucket and a key");
    if (!(r = req_get(g, os, RK_RESTORE)))
        return s3c_fail(e, S3C_ENOMEM, "out of memory");
    r->mem.max = RESTORE_BODY_MAX;
    rc = buf_adds(&r->mem, "<RestoreRequest xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">");
    if (!rc && oo && oo->restore_days > 0)
        rc = buf_addf(&r->mem, "<Days>%d</Days>", oo->restore_days);
    if (!rc && oo && oo->restore_tier)
        rc = buf_addf(&r->mem, "<GlacierJobParameters><Tier>%s</Tier></GlacierJobParameters>", oo->restore_tier);
    if (!rc)
        rc = buf_adds(&r->mem, "</RestoreRequest>");
    if (rc) {
        req_put_back(g, r);
        return s3c_fail(e, S3C_ENOMEM, "out of memory");
    }
    mem_digests(g, r, false);
    *out = r;
    return S3C_OK;
}

static void restore_end(struct engine *g, struct req *r, enum xfer_restore_said said)
{
    struct xfer_obj_state *os = r->os;

    os->o->restore = said;
    obj_phase_set(g, os, PH_END);
    req_put_back(g, r);
    maybe_finish(g, os);
}

/* 202: started; 200: restored already, its expiry set anew from this request's Days. */
void on_restore(struct engine *g, struct req *r)
{
    restore_end(g, r, r->http.resp.status == 200 ? XFER_RESTORE_DONE_BEFORE : XFER_RESTORE_STARTED);
}

/* The refusals that are answers: one restore already runs, or the object is not archived. */
bool restore_refused(struct engine *g, struct req *r, const struct s3c_error *e)
{
    if (e->http_status == 409 && !strcmp(e->s3_code, "RestoreAlreadyInProgress")) {
        restore_end(g, r, XFER_RESTORE_IN_PROGRESS);
        return true;
    }
    if (e->http_status == 403 && !strcmp(e->s3_code, "InvalidObjectState")) {
        restore_end(g, r, XFER_RESTORE_NOT_ARCHIVED);
        return true;
    }
    return false;
}
