/*
 * What an object's two ends say before its family starts, each a request in
 * flight beside every other under the same cap, never a blocking call on the
 * planning thread. First its source, when it is known by name alone (a plain
 * key list: xfer_obj.src_head): a HeadObject (RK_HEAD_SOURCE, phase
 * PH_SOURCE) fills its size, time, ETag and head, or ends it as refused (a
 * 404 explained by a HeadBucket, RK_HEAD_BUCKET, when asked). Then its
 * destination (xfer_obj.dst_check: --no-clobber, --if-size-differ,
 * --if-source-newer): a HeadObject of an S3 one (RK_CHECK_DST, phase
 * PH_CHECK), a stat of a local one whose source had to be looked at first
 * (any other local one the caller stat()s), and its answer says whether the
 * object is skipped (it ends, xfer_obj.dst_skipped, having written nothing)
 * or starts as it would have without the check. What it is not: the race's
 * end (If-None-Match: * on the write is that).
 * Calls obj.c, part.c, req.c.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "xfer/engine.h"

#include "http/http.h"

/* s5cmd's order: the last of -n, -s, -u that is given decides alone (its shouldOverride). */
bool xfer_dst_skip(const struct xfer_obj *o, bool exists, uint64_t dsize, int64_t dmtime)
{
    if (!o->dst_check || !exists)
        return false;
    if (o->dst_check & XFER_CHECK_NEWER)
        return !(o->mtime >= 0 && o->mtime > dmtime);
    if (o->dst_check & XFER_CHECK_SIZE)
        return !(o->size_known && dsize != o->size);
    return true;
}

bool xfer_dst_skip_local(const struct xfer_obj *o)
{
    struct stat st;

    if (stat(o->dst, &st) != 0)
        return xfer_dst_skip(o, false, 0, 0);
    return xfer_dst_skip(o, true, (uint64_t)st.st_size, (int64_t)st.st_mtim.tv_sec);
}

void xfer_meta_fattr(const struct http_resp *resp, struct fattr *a)
{
    struct fattr_meta m;

    memset(&m, 0, sizeof(m));
    http_resp_header(resp, FATTR_H_MTIME, &m.mtime);
    http_resp_header(resp, FATTR_H_MODE, &m.mode);
    http_resp_header(resp, FATTR_H_UID, &m.uid);
    http_resp_header(resp, FATTR_H_GID, &m.gid);
    http_resp_header(resp, FATTR_H_S3CMD, &m.s3cmd);
    fattr_from_meta(a, &m);
}

enum xfer_recorded xfer_recorded_says(const struct http_resp *resp, const char *path)
{
    struct fattr a = FATTR_INIT;
    struct stat st;

    xfer_meta_fattr(resp, &a);
    if (!a.has_mtime || stat(path, &st) != 0)
        return XFER_RECORDED_NONE;
    if ((int64_t)st.st_mtim.tv_sec != a.mtime_s)
        return XFER_RECORDED_DIFFERS;
    if (a.mtime_ns && st.st_mtim.tv_nsec && st.st_mtim.tv_nsec != a.mtime_ns)
        return XFER_RECORDED_DIFFERS;
    return XFER_RECORDED_SAME;
}

void xfer_recorded_touch(const char *path)
{
    struct timespec ts[2] = { { 0, UTIME_NOW }, { 0, UTIME_OMIT } };

    (void)utimensat(AT_FDCWD, path, ts, 0);
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

/* The request of 'kind' that looks at one end of 'os', which waits for it in 'phase'; NULL (out of
 * memory) leaves it where it was. */
static struct req *look_start(struct engine *g, struct xfer_obj_state *os, enum req_kind kind,
                              enum obj_phase phase)
{
    struct req *r = req_get(g, os, kind);

    if (r)
        obj_phase_set(g, os, phase);
    return r;
}

struct req *check_start(struct engine *g, struct xfer_obj_state *os)
{
    return look_start(g, os, RK_CHECK_DST, PH_CHECK);
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

/* The destination said skip (or a proof that both ends are the same, prove.c): 'os' ends having
 * written nothing. */
void check_skipped(struct engine *g, struct xfer_obj_state *os, const char *why)
{
    xdebug(g, os->o, "%s: skipped", why);
    os->o->dst_skipped = true;
    os->proven = true; /* nothing written, nothing to prove */
    obj_phase_set(g, os, PH_END);
    maybe_finish(g, os);
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
    if (!xfer_dst_skip(os->o, true, dsize, dmtime))
        check_go_on(g, os);
    else
        check_skipped(g, os, "the destination exists");
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

/* ---- the source looked at first (xfer_obj.src_head) ----------------------------------- */

struct req *source_start(struct engine *g, struct xfer_obj_state *os)
{
    return look_start(g, os, RK_HEAD_SOURCE, PH_SOURCE);
}

/* The source is known: the destination looked at (an S3 one by a HEAD in flight, a local one by
 * a stat: the flags need the source's size and time, so never before), then its family. */
static void source_known(struct engine *g, struct xfer_obj_state *os)
{
    struct xfer_obj *o = os->o;
    struct req *r;

    if (o->mtime_check && o->head && o->op == XFER_DOWNLOAD) {
        enum xfer_recorded says = xfer_recorded_says(o->head, o->dst);

        if (says == XFER_RECORDED_SAME) {
            xfer_recorded_touch(o->dst);
            check_skipped(g, os, "the mtime the object records is the file's");
            return;
        }
        if (says == XFER_RECORDED_NONE && !o->mtime_check_copies) {
            check_skipped(g, os, "the object records no mtime, and the file is not newer");
            return;
        }
    }
    if (check_wanted(g, o) && (r = check_start(g, os))) {
        submit_or_fail(g, r);
        return;
    }
    if (o->dst_check && o->op == XFER_DOWNLOAD && !o->stdio && xfer_dst_skip_local(o)) {
        check_skipped(g, os, "the destination exists");
        return;
    }
    check_go_on(g, os);
}

/* The source answered: what the caller would have filled in from its own HEAD, this reply kept as
 * xfer_obj.head so that the family asks no second one (a ranged download's probe, a copy's headers). */
void on_head_source(struct engine *g, struct req *r)
{
    struct xfer_obj_state *os = r->os;
    struct xfer_obj *o = os->o;
    const struct http_resp *resp = &r->http.resp;
    struct sv v;

    o->size = 0;
    if (http_resp_header(resp, "content-length", &v))
        sv_to_u64(v, &o->size);
    o->size_known = true;
    if (http_resp_header(resp, "last-modified", &v))
        http_date_parse(v, &o->mtime);
    free(o->etag);
    o->etag = http_resp_header(resp, "etag", &v) ? sv_dup(v) : NULL;
    if (!o->head && (o->head = calloc(1, sizeof(*o->head)))) {
        o->head->status = resp->status;
        o->head->headers = (struct buf)BUF_INIT(resp->headers.cap);
        o->head->body = (struct buf)BUF_INIT(0);
        if (buf_add(&o->head->headers, resp->headers.data, resp->headers.len)) {
            buf_release(&o->head->headers);
            free(o->head);
            o->head = NULL; /* the family asks its own */
        }
    }
    xdebug(g, o, "the source has %llu bytes", (unsigned long long)o->size);
    req_put_back(g, r);
    source_known(g, os);
}

/* The object ends with 'e', its family never started. */
static void source_failed(struct engine *g, struct xfer_obj_state *os, const struct s3c_error *e)
{
    obj_fail(g, os, e);
    maybe_finish(g, os);
}

/* The source said no (404, 403, 400 of a wrong SSE-C key...): the object fails with that answer;
 * a 404 with no code (a HEAD has no body) is first explained, when asked, by a HeadBucket. */
bool head_source_refused(struct engine *g, struct req *r, const struct s3c_error *e)
{
    struct xfer_obj_state *os = r->os;
    struct req *b;

    req_put_back(g, r);
    if (os->o->src_head_explain && store_s3_head_404_unexplained(e) && (b = req_get(g, os, RK_HEAD_BUCKET))) {
        os->err = *e; /* kept, not failed yet: the HeadBucket rewords it */
        submit_or_fail(g, b);
        return true;
    }
    source_failed(g, os, e);
    return true;
}

void head_source_gave_up(struct engine *g, struct req *r, const struct s3c_error *e)
{
    struct xfer_obj_state *os = r->os;

    req_put_back(g, r);
    source_failed(g, os, e);
}

/* The bucket is there: the key is not (NoSuchKey). */
void on_head_bucket(struct engine *g, struct req *r)
{
    struct xfer_obj_state *os = r->os;
    struct s3c_error e = os->err;

    store_s3_head_404_explain(&e, r->http.resp.status);
    req_put_back(g, r);
    source_failed(g, os, &e);
}

/* 404: no bucket (NoSuchBucket); any other answer leaves the HeadObject's as it was. */
bool head_bucket_refused(struct engine *g, struct req *r, const struct s3c_error *be)
{
    struct xfer_obj_state *os = r->os;
    struct s3c_error e = os->err;

    store_s3_head_404_explain(&e, be->http_status);
    req_put_back(g, r);
    source_failed(g, os, &e);
    return true;
}

void head_bucket_gave_up(struct engine *g, struct req *r, const struct s3c_error *be)
{
    struct xfer_obj_state *os = r->os;
    struct s3c_error e = be->code == S3C_ECANCEL ? *be : os->err;

    req_put_back(g, r);
    source_failed(g, os, &e);
}
