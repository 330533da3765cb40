/*
 * The engine's deletes (FAM_DELETE: an object is the head alone): objects
 * queued into DeleteObjects batches (their bookkeeping is del.c), a batch's
 * request and answer, per-key errors, a DeleteObject for a key XML cannot
 * carry, and conditional deletes: an object that names the ETag it may
 * delete (xfer_obj.etag: mv's source as it was copied, sync --delete's key
 * as it was listed) is deleted only while it has that ETag, and a 412 keeps
 * it. A store may ignore the condition (Ceph 16 deletes all the same) or
 * refuse it (501): the first such delete of a run is a DeleteObject sent once
 * with an If-Match no object has, to learn which (engine.cond_del), while the
 * others wait (engine.cond_gate). Where the store checks, they go in batches
 * with each key's <ETag> (S3 checks both since 2025); where it does not, in
 * batches as before, and the first object says so in its warning. Calls
 * req.c, verify.c and del.c; no other family.
 */
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/str.h"
#include "s3/xml.h"
#include "xfer/del.h"
#include "xfer/engine.h"

#define DELETE_BATCHES_INFLIGHT 8               /* DeleteObjects requests in flight at once */
#define DELETE_BODY_MAX ((size_t)8 << 20)       /* 1,000 keys of 1 KiB, escaped */

/* ---- deletes: DeleteObjects batches ------------------------------------------------- */

/*
 * A batch in flight: the request's owner. The carrier is what req_submit
 * reads (the bucket and request payer); the batch's own objects wait with
 * no request of theirs and finish together when the reply is judged.
 */
struct del_send {
    struct xfer_obj carrier;
    struct xfer_obj_opts oo;
    struct xfer_obj_state st;       /* counts the request, never fails or finishes */
    struct xfer_del_batch *batch;
};

static struct del_send *del_send_of(struct req *r)
{
    return (struct del_send *)(void *)((char *)r->os - offsetof(struct del_send, st));
}

/* A per-key <Error> as an object's error: "Access Denied (AccessDenied)". */
static void del_key_error(struct s3c_error *e, const struct s3_delete_error *de)
{
    const char *code = de->code && de->code[0] ? de->code : "InternalError";
    enum s3c_err c = !strcmp(code, "AccessDenied") ? S3C_EAUTH : S3C_EHTTP;

    if (de->message && de->message[0] && strcmp(de->message, code) != 0)
        s3c_fail(e, c, "%s (%s)", de->message, code);
    else
        s3c_fail(e, c, "%s", code);
    str_copy(e->s3_code, sizeof(e->s3_code), code);
}

/*
 * Finish every object of 'b': all with 'all' when set, else by their per-key
 * result. Frees 'b'. A run-wide error (the bucket is gone...) is the first
 * key's; the others end as cancelled, as the rest of a stopped run does.
 */
static void del_batch_finish(struct engine *g, struct xfer_del_batch *b, const struct s3c_error *all)
{
    struct s3c_error stopped = S3C_ERROR_INIT;
    size_t i;

    if (all && g->stop && all->code != S3C_ECANCEL)
        s3c_fail(&stopped, S3C_ECANCEL, "stopped");
    for (i = 0; i < b->n; i++) {
        struct xfer_obj_state *os = b->items[i].ctx;
        const struct s3_delete_error *de = b->items[i].err;

        if (all) {
            os->failed = true;
            os->err = i > 0 && stopped.code ? stopped : *all;
        } else if (de && b->items[i].etag && de->code && !strcmp(de->code, "NoSuchKey")) {
            /* A conditional delete of a key with no object: gone, as asked (DeleteObject's 404). */
        } else if (de && b->items[i].etag && de->code && !strcmp(de->code, "PreconditionFailed")) {
            os->failed = true;
            del_key_error(&os->err, de);
            snprintf(os->err.msg, sizeof(os->err.msg), "it is no longer the object s3c read (its ETag is no "
                     "longer %s), so it is kept", b->items[i].etag);
        } else if (de) {
            os->failed = true;
            del_key_error(&os->err, de);
        }
        obj_phase_set(g, os, PH_END);
        obj_finish(g, os); /* frees the object the item's key points into */
    }
    xfer_del_batch_free(b);
}

static void del_send_finish(struct engine *g, struct del_send *ds, const struct s3c_error *all)
{
    g->del_sending--;
    del_batch_finish(g, ds->batch, all);
    free(ds);
}

/* The whole DeleteObjects request failed (after its retries): so did each of its keys. */
void del_batch_fail(struct engine *g, struct req *r, const struct s3c_error *e)
{
    struct del_send *ds = del_send_of(r);
    struct s3c_error copy = *e; /* 'e' may live in the request */

    req_put_back(g, r);
    del_send_finish(g, ds, &copy);
}

void on_delete_batch(struct engine *g, struct req *r)
{
    struct s3_delete_result res = S3_DELETE_RESULT_INIT;
    struct s3c_error e = S3C_ERROR_INIT;
    struct sv body = buf_sv(&r->http.resp.body);
    struct del_send *ds;

    /* A 200 may still carry an <Error> document: retry it as S3 would have answered 5xx. */
    if (s3_xml_body_kind(body) != S3_BODY_RESULT) {
        struct s3_error er = S3_ERROR_INIT;
        s3_parse_error(body, &er, NULL);
        s3c_fail(&e, S3C_EHTTP, "DeleteObjects failed: %s", er.code[0] ? er.code : "malformed reply");
        str_copy(e.s3_code, sizeof(e.s3_code), er.code[0] ? er.code : "InternalError");
        s3_error_release(&er);
        req_fail(g, r, &e, true, 0);
        return;
    }
    if (s3_parse_delete_result(body, &res, &e)) {
        s3_delete_result_release(&res);
        req_fail(g, r, &e, true, 0);
        return;
    }
    ds = del_send_of(r);
    xfer_del_match(ds->batch, &res);
    req_put_back(g, r);
    del_send_finish(g, ds, NULL);
    s3_delete_result_release(&res);
}

/*
 * Open batches go when nothing can fill them any more: the source ended, or
 * it waits and every object still running is a delete (mv's deletes follow
 * copies: while a copy runs, its delete may yet join the batch).
 */
static bool del_flushable(const struct engine *g)
{
    return g->source_done || (g->source_wait && g->n_objects == g->n_deletes);
}

/* The DeleteObjects request of the next closed batch, when one may be sent now. */
struct req *del_next_batch(struct engine *g)
{
    struct xfer_del_batch *b;

    if (g->del_sending >= DELETE_BATCHES_INFLIGHT)
        return NULL;
    if (!g->del.ready && g->del.open && del_flushable(g))
        xfer_del_flush(&g->del);
    while ((b = xfer_del_take(&g->del))) {
        struct s3c_error e = S3C_ERROR_INIT;
        struct del_send *ds = calloc(1, sizeof(*ds));
        struct req *r = NULL;

        g->del_sending++;
        if (!ds) {
            s3c_fail(&e, S3C_ENOMEM, "out of memory");
            g->del_sending--;
            del_batch_finish(g, b, &e);
            continue;
        }
        ds->batch = b;
        ds->carrier.op = XFER_DELETE;
        ds->carrier.src_bucket = b->bucket;
        ds->carrier.mtime = -1;
        ds->oo.request_payer = b->payer;
        ds->carrier.opts = &ds->oo;
        ds->st.o = &ds->carrier;
        ds->st.family = FAM_DELETE;
        ds->st.fd = -1;
        obj_phase_set(g, &ds->st, PH_SINGLE);
        r = req_get(g, &ds->st, RK_DELETE);
        if (!r) {
            s3c_fail(&e, S3C_ENOMEM, "out of memory");
            del_send_finish(g, ds, &e);
            continue;
        }
        r->mem.max = DELETE_BODY_MAX;
        if (xfer_del_body(b, &r->mem, &e)) {
            req_put_back(g, r);
            del_send_finish(g, ds, &e);
            continue;
        }
        mem_digests(g, r, false);
        return r;
    }
    return NULL;
}

/* ---- conditional deletes --------------------------------------------------------- */

/* Learnt that the store does not check If-Match on deletes: said once a process (each loop's engine
 * learns it for itself), with the object that learnt it. */
static void cond_not_checked(struct engine *g, struct xfer_obj *o, enum cond_del how)
{
    static atomic_bool said;
    char text[256];

    if (g->cond_del == COND_DEL_IGNORED || g->cond_del == COND_DEL_REFUSED)
        return;
    g->cond_del = how;
    if (atomic_exchange(&said, true))
        return;
    snprintf(text, sizeof(text), "the store %s If-Match on DeleteObject: objects are deleted without "
             "checking that they are still what s3c read", how == COND_DEL_IGNORED ? "ignores" : "refuses");
    free(o->warning);
    o->warning = strdup(text);
}

/* A DeleteObject answered 2xx: the probe's means the store ignored a wrong If-Match (and deleted). */
static void cond_deleted(struct engine *g, struct req *r)
{
    if (r != g->cond_gate.probe)
        return;
    g->cond_gate.probe = NULL;
    cond_not_checked(g, r->os->o, COND_DEL_IGNORED);
}

/*
 * The refusals of a conditional delete that are answers: the probe's 412 (the store checks: send
 * it again with the real ETag); a 412 (the object changed after it was copied: kept, failed); a 404
 * (no object any more: gone, as asked); a 501 (the store refuses the header: again without it).
 */
bool delete_one_refused(struct engine *g, struct req *r, const struct s3c_error *e)
{
    struct xfer_obj_state *os = r->os;
    const char *if_match = del_if_match(g, r);
    bool probe = r == g->cond_gate.probe;
    struct s3c_error changed;

    if (!if_match)
        return false;
    if (probe)
        g->cond_gate.probe = NULL;
    if (e->http_status == 501 || !strcmp(e->s3_code, "NotImplemented")) {
        cond_not_checked(g, os->o, COND_DEL_REFUSED);
        r->attempt--; /* not the request's fault: a free retry, without If-Match */
        req_fail(g, r, e, true, 1);
        return true;
    }
    if (e->http_status == 412 && probe) {
        g->cond_del = COND_DEL_CHECKED;
        r->attempt--;
        req_fail(g, r, e, true, 1);
        return true;
    }
    if (e->http_status == 404) {
        if (probe)
            g->cond_del = COND_DEL_CHECKED; /* a store that ignores If-Match deletes a missing key: 204 */
        obj_phase_set(g, os, PH_END);
        req_put_back(g, r);
        maybe_finish(g, os);
        return true;
    }
    if (e->http_status != 412)
        return false;
    changed = *e;
    snprintf(changed.msg, sizeof(changed.msg), "it changed after it was copied (its ETag is no longer %s), "
             "so it is kept", os->o->etag);
    obj_fail(g, os, &changed);
    req_put_back(g, r);
    maybe_finish(g, os);
    return true;
}

/*
 * Where a delete goes, by what the run knows of the store: while it is not known whether the store
 * checks conditional deletes, the first conditional one is the probe (a DeleteObject) and the others
 * wait (cond_gate); then each goes in its bucket's batch (*out NULL), with its <ETag> where the store
 * checks, or, for a key XML 1.0 cannot carry, as a DeleteObject of its own (the key travels in the URL,
 * If-Match as build.c's del_if_match says).
 */
enum s3c_err del_route(struct engine *g, struct xfer_obj_state *os, struct req **out, struct s3c_error *e)
{
    struct xfer_obj *o = os->o;
    const char *payer = o->opts ? o->opts->request_payer : NULL;
    bool cond = o->etag && o->etag[0] && !o->version_id;

    *out = NULL;
    if (cond && g->cond_del == COND_DEL_UNKNOWN) {
        if (g->cond_gate.probe)
            return gate_park(&g->cond_gate, os, e);
        if (!(*out = req_get(g, os, RK_DELETE_ONE)))
            return s3c_fail(e, S3C_ENOMEM, "out of memory");
        g->cond_gate.probe = *out;
        return S3C_OK;
    }
    if (s3_xml_key_ok(sv_from(o->src)) && (!o->version_id || s3_xml_key_ok(sv_from(o->version_id))) &&
        (!cond || s3_xml_key_ok(sv_from(o->etag))))
        return xfer_del_add(&g->del, o->src_bucket, payer, o->src, o->version_id,
                            cond && g->cond_del == COND_DEL_CHECKED ? o->etag : NULL, os, e);
    *out = req_get(g, os, RK_DELETE_ONE);
    return *out ? S3C_OK : s3c_fail(e, S3C_ENOMEM, "out of memory");
}

enum s3c_err del_start(struct engine *g, struct xfer_obj_state *os, struct req **out, struct s3c_error *e)
{
    struct xfer_obj *o = os->o;

    g->n_deletes++;
    *out = NULL;
    obj_phase_set(g, os, PH_SINGLE);
    if (!o->src_bucket || !o->src_bucket[0] || !o->src || !o->src[0])
        return s3c_fail(e, S3C_EUSAGE, "delete: an object needs a bucket and a key");
    return del_route(g, os, out, e);
}

/* DeleteObject of one key answered: it is gone. */
void on_delete_one(struct engine *g, struct req *r)
{
    struct xfer_obj_state *os = r->os;

    if (r->local_failed) {
        req_fail(g, r, &r->local_err, false, 0);
        return;
    }
    cond_deleted(g, r);
    obj_phase_set(g, os, PH_END);
    req_put_back(g, r);
    maybe_finish(g, os);
}

/* Interrupted: deletes not yet sent fail as interrupted. */
void del_cancel(struct engine *g, const struct s3c_error *e)
{
    struct xfer_del_batch *b;

    while ((b = xfer_del_take_any(&g->del)))
        del_batch_finish(g, b, e);
    gate_cancel(g, &g->cond_gate, e);
}
