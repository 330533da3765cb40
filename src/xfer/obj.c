/*
 * An object's life on the engine, below every file that moves its bytes:
 * its phase, which changes only in obj_phase_set (checked against the legal
 * moves, each told under --debug, as curl's mstate()); its end (obj_finish,
 * the only place one ends) and its state freed; the lists it is on; the
 * run-wide stop (stopping) and the --debug lines (xdebug). Calls no other
 * engine file: what differs by family comes through g->ops.
 */
#include <assert.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "xfer/engine.h"

/* ---- run-wide state ---------------------------------------------------------- */

atomic_int cancel_requested;

void xfer_cancel(void)
{
    cancel_requested = 1;
}

/* SIGINT/SIGTERM, or a run-wide error: finish what is in flight as cancelled. */
bool stopping(const struct engine *g)
{
    return cancel_requested || g->stop;
}

void xdebug(struct engine *g, const struct xfer_obj *o, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;

    if (!store_s3_debug_on(g->s3))
        return;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    store_s3_debugf(g->s3, "xfer: s3://%s/%s: %s", o->src_bucket ? o->src_bucket : o->dst_bucket,
                    o->src_bucket ? o->src : o->dst, msg);
}

/* ---- objects ---------------------------------------------------------------- */

struct xfer_obj *xfer_obj_new(enum xfer_op op)
{
    struct xfer_obj *o = calloc(1, sizeof(*o));

    if (o) {
        o->op = op;
        o->mtime = -1;
    }
    return o;
}

void xfer_obj_free(struct xfer_obj *o)
{
    if (!o)
        return;
    free(o->src);
    free(o->src_bucket);
    free(o->dst);
    free(o->dst_bucket);
    free(o->etag);
    free(o->version_id);
    free(o->warning);
    if (o->same_second) {
        free(o->same_second->dst_etag);
        free(o->same_second);
    }
    if (o->head) {
        buf_release(&o->head->headers);
        buf_release(&o->head->body);
        free(o->head);
    }
    free(o);
}

/* Free an object's state: what its family holds (obj_ops.release), then the head. */
static void obj_state_free(struct engine *g, struct xfer_obj_state *os)
{
    if (os->started && g->ops[os->family].release)
        g->ops[os->family].release(os);
    if (os->fd >= 0 && !obj_stream(os))
        close(os->fd);
    if (os->prove) {
        /* A proof the object ended under (its hash job is back: maybe_finish waits for it). */
        if (os->prove->fd >= 0)
            close(os->prove->fd);
        free(os->prove);
    }
    free(os->have);
    free(os); /* the family's whole struct: the head is first in it */
}

/* The only place an object ends: temp files go or get their name, the caller hears. */
void obj_finish(struct engine *g, struct xfer_obj_state *os)
{
    struct xfer_obj *o = os->o;

    if (os->started && g->ops[os->family].end)
        g->ops[os->family].end(g, os); /* the family's own ending: a download's temp file */
    if (os->failed) {
        g->stats.objects_failed++;
        if (!g->first_error)
            g->first_error = os->err.code ? os->err.code : S3C_EINTERNAL;
    } else {
        g->stats.objects_ok++;
    }
    g->n_objects--;
    if (o->op == XFER_DELETE)
        g->n_deletes--;
    /* Uploads and copies are proven by what the store answered (put_proven & co.);
     * downloads by their check, unless it said it could not make one. */
    if (os->proven && os->src_unproven) { /* a relay: the destination holds what was read, but was that the source? */
        os->proven = false;
        os->unproven = os->src_unproven;
    }
    if (!os->failed && o->op != XFER_DELETE && o->op != XFER_RESTORE &&
        (o->op == XFER_DOWNLOAD ? os->unproven != NULL : !os->proven))
        o->unproven = os->unproven ? os->unproven : "nothing the store answered proves the copy";
    if (o->stdio && o->op == XFER_UPLOAD && !os->failed)
        o->size = os->size; /* standard input's size is known only now: its result says it */
    g->source_wait = false; /* a done may let the source produce more */
    o->st = NULL;
    obj_report(g, o, os->failed ? &os->err : NULL);
    obj_state_free(g, os);
}

void obj_report(struct engine *g, struct xfer_obj *o, const struct s3c_error *e)
{
    if (g->opts.done)
        g->opts.done(g->opts.done_ctx, o, e);
    if (!g->keep_objs)
        xfer_obj_free(o);
}

void active_remove(struct engine *g, struct xfer_obj_state *os)
{
    struct xfer_obj_state **pp;

    for (pp = &g->active; *pp; pp = &(*pp)->next) {
        if (*pp == os) {
            *pp = os->next;
            os->next = NULL;
            return;
        }
    }
}

/* ---- the phase: one function moves it ------------------------------------------ */

static const char *const phase_names[PH_COUNT] = {
    [PH_NEW] = "NEW", [PH_SOURCE] = "SOURCE", [PH_PROVE] = "PROVE", [PH_CHECK] = "CHECK", [PH_SINGLE] = "SINGLE", [PH_OPEN] = "OPEN",
    [PH_PROBE] = "PROBE", [PH_CREATE] = "CREATE", [PH_PARTS] = "PARTS", [PH_COMPLETE] = "COMPLETE", [PH_ABORT] = "ABORT",
    [PH_VERIFY] = "VERIFY",
    [PH_LAND] = "LAND", [PH_END] = "END",
};

#define PH_BIT(p) (1u << (p))

/*
 * The legal moves: from each phase, the phases it may go to (setting the
 * phase an object has is no move, and always allowed). Written from what the
 * families do; every e2e test runs with the assert below on.
 */
static const unsigned phase_moves[PH_COUNT] = {
    /* started: by its family's start (obj_ops), or failed at once; or its source or its destination
     * looked at first, or sync's same second proven first */
    [PH_NEW] = PH_BIT(PH_SOURCE) | PH_BIT(PH_PROVE) | PH_BIT(PH_CHECK) | PH_BIT(PH_SINGLE) | PH_BIT(PH_OPEN) | PH_BIT(PH_PROBE) |
               PH_BIT(PH_CREATE) | PH_BIT(PH_PARTS) | PH_BIT(PH_END),
    /* the source answered: its destination looked at, or started as from NEW; or it failed (END) */
    [PH_SOURCE] = PH_BIT(PH_CHECK) | PH_BIT(PH_SINGLE) | PH_BIT(PH_OPEN) | PH_BIT(PH_PROBE) | PH_BIT(PH_CREATE) |
                  PH_BIT(PH_PARTS) | PH_BIT(PH_END),
    /* no proof: its destination looked at, or started as from NEW; or proven, skipped (END) */
    [PH_PROVE] = PH_BIT(PH_CHECK) | PH_BIT(PH_SINGLE) | PH_BIT(PH_OPEN) | PH_BIT(PH_PROBE) | PH_BIT(PH_CREATE) |
                 PH_BIT(PH_PARTS) | PH_BIT(PH_END),
    /* the destination answered: started as from NEW, or skipped (END) */
    [PH_CHECK] = PH_BIT(PH_SINGLE) | PH_BIT(PH_OPEN) | PH_BIT(PH_PROBE) | PH_BIT(PH_CREATE) | PH_BIT(PH_PARTS) |
                 PH_BIT(PH_END),
    /* the temp file is made: one GET, or the probe, or the ranges */
    [PH_OPEN] = PH_BIT(PH_SINGLE) | PH_BIT(PH_PROBE) | PH_BIT(PH_PARTS) | PH_BIT(PH_END),
    /* a small download is landed by a worker */
    [PH_SINGLE] = PH_BIT(PH_LAND) | PH_BIT(PH_END),
    /* the check is known: the ranges start */
    [PH_PROBE] = PH_BIT(PH_PARTS) | PH_BIT(PH_END),
    /* the upload id is in: the parts; or it failed (aborted when it has an id) */
    [PH_CREATE] = PH_BIT(PH_PARTS) | PH_BIT(PH_ABORT) | PH_BIT(PH_END) |
                  PH_BIT(PH_SINGLE), /* a relayed copy's tags asked, then one GET and PutObject (copy.c) */
    /* the parts sent: complete, verify, abort; a stream's first append found an object at its
     * key: a multipart upload instead (stdin.c) */
    [PH_PARTS] = PH_BIT(PH_COMPLETE) | PH_BIT(PH_VERIFY) | PH_BIT(PH_ABORT) | PH_BIT(PH_END) | PH_BIT(PH_CREATE),
    /* complete: a copy's tags after it (one request), or the end; a stream's first append, its
     * answer lost, had not landed and another object is there (stdin.c): a multipart upload */
    [PH_COMPLETE] = PH_BIT(PH_SINGLE) | PH_BIT(PH_ABORT) | PH_BIT(PH_END) | PH_BIT(PH_CREATE),
    [PH_ABORT] = PH_BIT(PH_END),
    /* the whole checked: the end, or every part again */
    [PH_VERIFY] = PH_BIT(PH_PARTS) | PH_BIT(PH_END),
    [PH_LAND] = PH_BIT(PH_END),
    /* a Create that answers after its object ended: its upload is aborted (abort_late_upload);
     * a copy whose UploadPartCopy the store refused (501), aborted: one CopyObject (copy_redo) */
    [PH_END] = PH_BIT(PH_ABORT) | PH_BIT(PH_SINGLE) |
               PH_BIT(PH_CREATE), /* ... or a copy the destination's keys could not make, as a relay (copy.c) */
};

/*
 * Move 'os' to phase 'to'. An illegal move is a bug of the engine: it stops
 * the program where asserts are on (every build of the Makefile); with
 * NDEBUG it is said under --debug and made all the same, as the code asked:
 * refusing it would leave the object in a phase its family no longer
 * expects, and one that never reaches PH_END would hold the run forever.
 */
bool obj_phase_legal(enum obj_phase from, enum obj_phase to)
{
    return from == to || (phase_moves[from] & PH_BIT(to));
}

const char *obj_phase_name(enum obj_phase p)
{
    return phase_names[p];
}

void obj_phase_set(struct engine *g, struct xfer_obj_state *os, enum obj_phase to)
{
    enum obj_phase from = os->phase;
    bool legal = obj_phase_legal(from, to);

    if (from == to)
        return;
    if (!legal)
        xdebug(g, os->o, "phase %s -> %s: not a legal move (an engine bug)", phase_names[from], phase_names[to]);
    assert(legal);
    if (legal && (os->o->src || os->o->dst))
        xdebug(g, os->o, "phase %s -> %s", phase_names[from], phase_names[to]);
    os->phase = to;
}
