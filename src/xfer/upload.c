/*
 * Uploads of local files, the family of struct obj_upload: how one starts
 * (a PUT, or a multipart upload, multipart.c), the file's bytes as a request
 * body (read_src), and what a PutObject answer means. Calls req.c, adapt.c, verify.c, part.c, resume.c;
 * no other family.
 */
#include <errno.h>
#include <unistd.h>

#include "base/hash.h"
#include "store/store_fs.h"
#include "xfer/engine.h"

/* A local file: one PUT (from memory when small), or a multipart upload
 * (continued from the journal with --resume; else one a killed run left for
 * the key is aborted first). */
enum s3c_err upload_start(struct engine *g, struct xfer_obj_state *os, struct req **out, struct s3c_error *e)
{
    struct xfer_obj *o = os->o;
    struct obj_upload *up = upload_of(os);
    struct req *r;
    int64_t mtime;
    enum s3c_err rc;

    *out = NULL;
    mpu_init(&up->mpu);
    if (o->dir_marker) {
        os->fd = -1; /* an empty directory's marker: no bytes, nothing recorded */
        os->size = 0;
        mtime = -1;
    } else if ((rc = fs_open_read(o->src, &os->fd, &os->size, &mtime, e))) {
        return rc;
    } else {
        fs_fattr_of(os->fd, &up->attrs, &up->type_mode);
    }
    up->src_mtime = mtime;
    if (wants_multipart(g, os->size)) {
        plan_parts(g, os);
        obj_phase_set(g, os, PH_CREATE);
        r = req_get(g, os, resume_first(g, os));
        if (!r)
            return s3c_fail(e, S3C_ENOMEM, "out of memory");
        *out = r;
        return S3C_OK;
    }
    obj_phase_set(g, os, PH_SINGLE);
    r = req_get(g, os, RK_PUT);
    if (!r)
        return s3c_fail(e, S3C_ENOMEM, "out of memory");
    r->len = os->size;
    if (os->size <= SMALL_BODY_MAX) {
        if (buf_grow(&r->mem, (size_t)os->size)) {
            rc = s3c_fail(e, S3C_ENOMEM, "out of memory");
            goto fail_req;
        }
        if ((rc = fs_pread_all(os->fd, r->mem.data, (size_t)os->size, 0, o->src, e)))
            goto fail_req;
        r->mem.len = (size_t)os->size;
        if (mem_digests_later(g, r, true, true))
            return S3C_OK; /* sent once a hash worker has its SHA checksum */
    }
    *out = r;
    return S3C_OK;
fail_req:
    req_put_back(g, r);
    return rc;
}

void upload_release(struct xfer_obj_state *os)
{
    mpu_release(&upload_of(os)->mpu);
}

ssize_t read_src(void *ctx, char *dst, size_t n, uint64_t offset)
{
    struct req *r = ctx;
    ssize_t got;

    if (!bw_take(r->eng, &n))
        return HTTP_READ_PAUSE;
    do
        got = pread(r->os->fd, dst, n, (off_t)(r->off + offset));
    while (got < 0 && errno == EINTR);
    if (got <= 0) {
        r->local_failed = true;
        if (got < 0)
            s3c_fail_errno(&r->local_err, errno, "cannot read %s", r->os->o->src);
        else
            s3c_fail(&r->local_err, S3C_EIO, "%s shrank while it was read", r->os->o->src);
        return -1;
    }
    /* No MD5 here: a hash worker reads the same bytes (req_md5_sent). */
    r->eng->stats.bytes_live += (uint64_t)got;
    return got;
}

/* PutObject answered: checked against the bytes sent (verify_sent). */
void on_put(struct engine *g, struct req *r)
{
    struct xfer_obj_state *os = r->os;
    unsigned char md5[MD5_LEN];
    bool known;

    if (!sent_answer_ok(g, r, md5, &known))
        return;
    if (!known && g->opts.verify)
        xdebug(g, os->o, "verified: by the %s the store echoed (no MD5)", ck_name(obj_ck(os->o)));
    os->proven = put_proven(r, md5, known, &os->unproven);
    g->stats.bytes += r->len;
    obj_phase_set(g, os, PH_END);
    req_put_back(g, r);
    maybe_finish(g, os);
}
