#include "cli/transfer.h"

#include <errno.h>
#include <time.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/args.h"
#include "cli/job.h"
#include "cli/listing.h"
#include "cli/objopts.h"
#include "cli/objsrc.h"
#include "cli/output.h"
#include "fs/path.h"
#include "plan/dstlist.h"
#include "plan/filter.h"
#include "plan/wild.h"
#include "s3/uri.h"
#include "s3/xml.h"
#include "store/store_fs.h"
#include "xfer/xfer.h"

/* Names for result lines, owned by the object (xfer_obj.user). */
struct shown {
    char *src;
    char *dst;
    uint64_t size;
};

struct transfer {
    struct job base;                /* verb "cp" or "mv"; counts; knobs */
    struct store_s3 *s3;
    bool mv;
    /* Flags. */
    bool recursive, no_overwrite, no_clobber, if_size_differ, if_source_newer;
    bool flatten, raw, follow_symlinks, no_follow_symlinks;
    struct objopts_args oa;         /* --metadata & co., and the storage of what they become */
    struct job_knob_args knob_args;
    struct arg_list filters;
    int n_pos;
    const char *pos[2];
    struct xfer_obj_opts oo;
    /* The two ends. */
    const char *src_arg, *dst_arg;
    bool src_s3, dst_s3;
    struct s3_uri su, du;
    enum xfer_op op;
    /* The stream of objects. */
    struct objsrc src;              /* one object, a listing, a manifest or a local walk */
    struct xfer_obj *one;           /* OBJSRC_ONE: its object, made (HEAD and names) at start */
    bool one_glacier;               /* its HEAD says an archived object the transfer skips */
    struct store_s3_head_async head; /* OBJSRC_ONE from S3: its HEAD (setup_one) */
    bool heading;                   /* ... is out: job_next finishes the start when it is over */
    const char *from_manifest;      /* --from-manifest FILE: the keys come from it, not a listing */
    const char *version_id;         /* --version-id: the version of the one S3 source (cp); NULL */
    struct buf metag;               /* a manifest key's ETag, from its HEAD */
    struct filter filter;           /* --exclude / --include */
    char *filter_root;
    struct dstlist dstl;            /* the destination's listing, for the checks (skip_by_destination) */
    bool dst_listed;                /* dstl is set up */
    struct xfer_obj *held;          /* the object whose check waits for the destination's listing */
    struct pending_del *dels;       /* mv: sources to delete, not yet yielded */
    uint64_t inflight;              /* objects yielded, not yet done */
    bool source_done;
};

static void shown_free(struct shown *s)
{
    if (!s)
        return;
    free(s->src);
    free(s->dst);
    free(s);
}

static const char *op_word(enum xfer_op op, bool mv)
{
    switch (op) {
    case XFER_UPLOAD: return mv ? "move" : "upload";
    case XFER_DOWNLOAD: return mv ? "move" : "download";
    case XFER_COPY: return mv ? "move" : "copy";
    case XFER_DELETE: return "delete";
    case XFER_RESTORE: return "restore";
    }
    return "copy";
}

/* An object its destination's check left alone (-n, -s, -u): counted, and a --json record. */
static void report_left(struct transfer *t, const struct shown *sh, enum xfer_op op)
{
    /* The flag that decided, as s5cmd orders them (xfer_dst_skip), in its words. */
    const char *why = t->if_source_newer ? "object is newer or same age"
                      : t->if_size_differ ? "object size matches"
                                          : "object already exists";
    struct out_result r = { op_word(op, t->mv), sh->src, sh->dst, 0, false, NULL, t->base.dryrun, false, why };

    job_skip(&t->base);
    out_result(&r, NULL);
}

static void report(struct transfer *t, const struct shown *sh, enum xfer_op op,
                   const struct s3c_error *e)
{
    struct out_result r = { op_word(op, t->mv), sh->src, sh->dst, sh->size, true, NULL, t->base.dryrun, false, NULL };

    if (!e && !out_opts()->json && (!strcmp(sh->dst, "-") || !strcmp(sh->src, "-")))
        return; /* stdout carries the data; a stream's upload says nothing when it went (the AWS CLI's) */
    out_result(&r, e);
}

/* What failed is no one object (a listing): a "fatal error" line, or a --json record. */
static void fatal(struct transfer *t, const struct s3c_error *e)
{
    struct out_result r = { t->base.verb, t->src_arg, t->dst_arg, 0, false, NULL, false, true, NULL };

    out_result(&r, e);
}

/* ---- mv: delete sources after their copy ----------------------------------------- */

/*
 * A verified copy's S3 source becomes an XFER_DELETE object for the engine,
 * which batches deletes 1,000 keys a DeleteObjects request (across every job
 * of a run). Until the listing is done and every copy has answered, next()
 * says XFER_NEXT_WAIT rather than END, since a done copy may still add one.
 */
struct pending_del {
    char *key;
    char *etag;                     /* the source's ETag as copied: deleted only while it is that
                                       (If-Match, xfer/delete.c); NULL: not known */
    struct pending_del *next;
};

static void delete_source(struct transfer *t, const struct xfer_obj *o, const struct shown *sh)
{
    struct pending_del *d;

    if (o->op == XFER_UPLOAD) {
        if (unlink(o->src) != 0) {
            struct s3c_error e = S3C_ERROR_INIT;
            struct out_result r = { "delete", sh->src, NULL, 0, false, NULL, false, false, NULL };
            s3c_fail_errno(&e, errno, "cannot remove %s after moving it", sh->src);
            out_result(&r, &e);
            job_count(&t->base, XFER_DELETE, 0, &e);
        }
        return;
    }
    d = calloc(1, sizeof(*d));
    if (d && (d->key = strdup(o->src)) && (!o->etag || (d->etag = strdup(o->etag)))) {
        d->next = t->dels;
        t->dels = d;
        return;
    }
    if (d)
        free(d->key);
    free(d);
    {
        struct s3c_error e = S3C_ERROR_INIT;
        s3c_fail(&e, S3C_ENOMEM, "out of memory: s3://%s/%s was copied but not deleted", t->su.bucket, o->src);
        out_error("mv", &e);
        job_count(&t->base, XFER_DELETE, 0, &e);
    }
}

/* The next source delete as an engine object, or NULL. */
static struct xfer_obj *next_delete(struct transfer *t)
{
    struct pending_del *d = t->dels;
    struct xfer_obj *o;

    if (!d || !(o = xfer_obj_new(XFER_DELETE)))
        return NULL;
    o->src_bucket = strdup(t->su.bucket);
    if (!o->src_bucket) {
        xfer_obj_free(o);
        return NULL;
    }
    o->src = d->key;
    o->etag = d->etag;
    t->dels = d->next;
    free(d);
    return o;
}

/* A source delete answered: only failures are news (the move line is out). */
static void delete_done(struct transfer *t, const struct xfer_obj *o, const struct s3c_error *e)
{
    char shown[4096];
    struct out_result r = { "delete", shown, NULL, 0, false, NULL, false, false, NULL };

    if (!e)
        return;
    if (e->code != S3C_ECANCEL) {
        snprintf(shown, sizeof(shown), "s3://%s/%s", o->src_bucket, o->src);
        out_result(&r, e);
    }
    job_count(&t->base, XFER_DELETE, 0, e);
}

static void skip_with_error(struct transfer *t, const char *src_shown, const char *dst_shown,
                            const struct s3c_error *e);

static void on_done(struct job *j, const struct xfer_obj *o, const struct s3c_error *e)
{
    struct transfer *t = (struct transfer *)j;
    struct shown *sh = o->user;
    struct s3c_error skip, unproven = S3C_ERROR_INIT;

    t->inflight--;
    if (o->op == XFER_DELETE) {
        delete_done(t, o, e);
        return;
    }
    if (j->dryrun) {
        report(t, sh, o->op, NULL);
        shown_free(sh);
        return;
    }
    if (o->src_head && !o->size_known && e && e->code != S3C_ECANCEL) {
        /* Its source's HEAD said no: the line manifest_head gives (the destination argument). */
        skip_with_error(t, sh->src, t->dst_arg, e);
        shown_free(sh);
        return;
    }
    if (o->src_head || (o->stdio && o->op == XFER_UPLOAD))
        sh->size = o->size; /* a key list's from its HEAD, standard input's once read whole */
    /* --no-overwrite / -n: an existing destination is a skip, not a failure; so is
     * one the engine's look at it (xfer_obj.dst_check) said to leave alone. */
    if (o->dst_skipped || (e && e->http_status == 412 && (t->no_overwrite || t->no_clobber))) {
        report_left(t, sh, o->op);
        shown_free(sh);
        return;
    }
    e = job_skip_unreadable(o, e, &skip);
    if (!e && o->unproven && t->mv) {
        /* No proof that the copy landed: the source is all the user may have. */
        s3c_fail(&unproven, S3C_EHTTP, "%s, so the source is kept", o->unproven);
        e = &unproven;
    }
    if (!(e && e->code == S3C_ECANCEL))
        report(t, sh, o->op, e);
    if (!e && o->unproven)
        out_warn("%s: %s to %s is not verified: %s", op_word(o->op, false), sh->src, sh->dst, o->unproven);
    job_count(j, t->mv ? JOB_OP_MOVE : (int)o->op, sh->size, e);
    if (!e && t->mv && !o->renamed)
        delete_source(t, o, sh);
    shown_free(sh);
}

/* ---- the stream of objects -------------------------------------------------------- */

static struct xfer_obj *obj_make(struct transfer *t, const char *src, const char *dst,
                                 const char *src_shown, const char *dst_shown)
{
    struct xfer_obj *o = xfer_obj_new(t->op);
    struct shown *sh = calloc(1, sizeof(*sh));

    if (!o || !sh)
        goto fail;
    o->src = strdup(src);
    o->dst = strdup(dst);
    o->src_bucket = t->src_s3 ? strdup(t->su.bucket) : NULL;
    o->dst_bucket = t->dst_s3 ? strdup(t->du.bucket) : NULL;
    o->opts = &t->oo;
    o->version_id = t->version_id ? strdup(t->version_id) : NULL;
    sh->src = strdup(src_shown);
    sh->dst = strdup(dst_shown);
    o->user = sh;
    if (!o->src || !o->dst || (t->src_s3 && !o->src_bucket) || (t->dst_s3 && !o->dst_bucket) ||
        (t->version_id && !o->version_id) || !sh->src || !sh->dst)
        goto fail;
    return o;
fail:
    shown_free(sh);
    if (o)
        o->user = NULL;
    xfer_obj_free(o);
    return NULL;
}

/*
 * An object that could not start: report it and go on with the rest. A name
 * the path rules refuse (a key leaving the destination) and a file the walk
 * cannot read are skipped (S3C_ESKIPPED: a warning, exit 2 when nothing
 * failed, the AWS CLI's rule for skipped files); anything else failed (1).
 */
static void skip_with_error(struct transfer *t, const char *src_shown, const char *dst_shown,
                            const struct s3c_error *e)
{
    struct shown sh = { (char *)src_shown, (char *)dst_shown, 0 };
    struct s3c_error fe = *e;

    if (fe.code == S3C_EUSAGE)
        fe.code = S3C_ESKIPPED;
    report(t, &sh, t->op, &fe);
    job_count(&t->base, t->mv ? JOB_OP_MOVE : (int)t->op, 0, &fe);
}

/*
 * --no-clobber, --if-size-differ, --if-source-newer (s5cmd's semantics): say
 * whether to skip 'o' by its destination (xfer_dst_skip): 1 to skip, 0 to
 * go on, XFER_NEXT_LATER when the destination's listing has not come this
 * far yet (ask again with the same object). A local one is stat()ed here.
 * An S3 one, when the source is a listing or a walk, is looked for in one
 * listing of the destination read beside it (plan/dstlist.h), which stands
 * in for a HEAD each while it is the cheaper. Otherwise the engine looks at
 * it, a HEAD in flight beside the other requests (xfer_obj.dst_check; or,
 * for a PutObject under -n, none but its If-None-Match: *), except in a dry
 * run, which sends nothing else and so HEADs it here. A source known by
 * name alone (a key list's) is looked at first by the engine too, and then
 * its destination, local or not (check.c). A destination that does not
 * exist never causes a skip.
 */
static int skip_by_destination(struct transfer *t, struct xfer_obj *o)
{
    uint64_t dsize = 0;
    int64_t dmtime = 0;
    bool exists = false, skip;

    o->dst_check = (t->no_clobber ? XFER_CHECK_EXISTS : 0) | (t->if_size_differ ? XFER_CHECK_SIZE : 0) |
                   (t->if_source_newer ? XFER_CHECK_NEWER : 0);
    if (!o->dst_check || !strcmp(o->dst, "-"))
        return 0;
    if (!t->dst_s3 && (!o->src_head || t->base.dryrun)) {
        skip = xfer_dst_skip_local(o);
        o->dst_check = 0; /* looked at: the engine need not */
        return skip;
    }
    if (t->dst_listed && !o->src_head) {
        switch (dstlist_find(&t->dstl, o->dst, t->src.later, &dsize, &dmtime)) {
        case DSTLIST_LATER:
            return XFER_NEXT_LATER;
        case DSTLIST_THERE:
            exists = true;
            /* fall through */
        case DSTLIST_ABSENT:
            goto looked;
        case DSTLIST_ASK:
            break;
        }
    }
    if (!t->base.dryrun)
        return 0; /* the engine's (check.c) */
    {
        struct http_xfer x;
        struct s3c_error e = S3C_ERROR_INIT;
        struct sv v;

        memset(&x, 0, sizeof(x));
        if (!store_s3_head_sse_c(t->s3, o->dst_bucket, o->dst, t->oa.ssec, &x, &e)) {
            exists = true;
            if (http_resp_header(&x.resp, "content-length", &v))
                sv_to_u64(v, &dsize);
            if (http_resp_header(&x.resp, "last-modified", &v))
                http_date_parse(v, &dmtime);
        }
        http_xfer_release(&x);
    }
looked:
    skip = xfer_dst_skip(o, exists, dsize, dmtime);
    o->dst_check = 0; /* looked at: the engine need not */
    return skip;
}

/* The destination key or path of 'rel' under the destination argument. */
static enum s3c_err dst_for(struct transfer *t, const char *rel, struct buf *dst, struct buf *shown,
                            struct s3c_error *e)
{
    const char *name = rel;

    if (t->flatten) {
        const char *slash = strrchr(rel, '/');
        if (slash)
            name = slash + 1;
    }
    if (t->dst_s3) {
        const char *k = t->du.key;
        size_t kl = strlen(k);
        buf_adds(dst, k);
        if (kl && k[kl - 1] != '/')
            buf_addc(dst, '/');
        buf_adds(dst, name);
        return buf_addf(shown, "s3://%s/%s", t->du.bucket, buf_cstr(dst)) ? s3c_fail(e, S3C_ENOMEM, "name too long") : S3C_OK;
    }
    if (path_join_safe(t->dst_arg, sv_from(name), dst, e))
        return e->code;
    return buf_adds(shown, buf_cstr(dst)) ? s3c_fail(e, S3C_ENOMEM, "name too long") : S3C_OK;
}

/* A manifest entry without a size (a plain key list) in a dry run, which sends nothing else: HEAD it
 * here (objsrc_fill_fn). False (reported) when that fails. Otherwise the engine HEADs it, in flight
 * (xfer_obj.src_head). */
static bool manifest_head(void *ctx, struct objsrc_entry *en)
{
    struct transfer *t = ctx;
    struct s3c_error e = S3C_ERROR_INIT;
    struct http_xfer x;
    struct sv v;
    bool ok;

    memset(&x, 0, sizeof(x));
    ok = !store_s3_head_sse_c(t->base.src_s3, t->su.bucket, en->key, t->dst_s3 ? t->oa.ssec_src : t->oa.ssec, &x, &e);
    if (!ok)
        store_s3_explain_head_404(t->base.src_s3, t->su.bucket, &e);
    if (ok) {
        if (http_resp_header(&x.resp, "content-length", &v))
            sv_to_u64(v, &en->size);
        if (http_resp_header(&x.resp, "last-modified", &v))
            http_date_parse(v, &en->mtime);
        buf_reset(&t->metag);
        en->etag = "";
        if (http_resp_header(&x.resp, "etag", &v) && !buf_addsv(&t->metag, v))
            en->etag = buf_cstr(&t->metag);
    } else {
        char shown[8192];
        snprintf(shown, sizeof(shown), "s3://%s/%s", t->su.bucket, en->key);
        skip_with_error(t, shown, t->dst_arg, &e);
    }
    http_xfer_release(&x);
    return ok;
}

static void open_failed_later(struct transfer *t, struct s3c_error *e);
static int head_finish(struct transfer *t);

/* The source failed (a listing page): the "fatal error" line, counted. */
static void source_failed(struct transfer *t, const struct s3c_error *e)
{
    fatal(t, e);
    job_count(&t->base, t->mv ? JOB_OP_MOVE : (int)t->op, 0, e);
}

/* --force-glacier-transfer, --ignore-glacier-warnings: an archived source (job_glacier_skip). */
static bool glacier_skip(struct transfer *t, const char *src_shown, const char *storage_class, const char *restore)
{
    /* mv's warning says copy or download too (the AWS CLI 2.9 does). */
    const char *op = t->op == XFER_COPY ? "copy" : "download";

    return t->op != XFER_UPLOAD && job_glacier_skip(&t->base, t->mv ? JOB_OP_MOVE : (int)t->op, op, src_shown,
                                                    storage_class, restore, t->oa.force_glacier, t->oa.ignore_glacier);
}

/* The next object of a listing, a manifest or a walk, with its destination: 1 with *out,
 * 0 at the end, XFER_NEXT_LATER while a listing's page is out (the job's later_ok). */
static int next_from_source(struct transfer *t, struct xfer_obj **out)
{
    for (;;) {
        const struct objsrc_entry *en;
        struct buf dst = BUF_INIT(65536), shown_src = BUF_INIT(65536), shown_dst = BUF_INIT(65536);
        struct s3c_error e = S3C_ERROR_INIT;
        struct xfer_obj *o = NULL;
        char *relz;
        enum objsrc_next r = objsrc_next(&t->src, &en, &e);

        if (r == OBJSRC_END)
            return 0;
        if (r == OBJSRC_LATER)
            return XFER_NEXT_LATER; /* the listing's page is out: the engine steps the loop */
        if (r == OBJSRC_FAILED) {
            if (t->src.open_failed)
                open_failed_later(t, &e);
            else
                source_failed(t, &e);
            return 0;
        }
        if (r == OBJSRC_BAD) {
            /* One entry failed (unreadable, loop, a FIFO, a device...): skipped
             * (exit 2, as the AWS CLI skips them), the rest goes on. */
            char shown[65536];
            snprintf(shown, sizeof(shown), "%s/%.*s", t->src.walk_root, (int)en->rel.n, en->rel.p);
            e.code = S3C_ESKIPPED;
            skip_with_error(t, shown, t->dst_arg, &e);
            continue;
        }
        if (t->src_s3)
            buf_addf(&shown_src, "s3://%s/%s", t->su.bucket, en->key);
        else
            buf_adds(&shown_src, en->key);
        /* A listing tells the class, not whether it is restored: skipped all the same, as the CLI. */
        if (t->src_s3 && glacier_skip(t, buf_cstr(&shown_src), en->storage_class, NULL)) {
            buf_release(&shown_src);
            continue;
        }
        relz = sv_dup(en->rel);
        if (!relz || dst_for(t, relz, &dst, &shown_dst, &e))
            skip_with_error(t, buf_cstr(&shown_src), t->dst_arg, &e);
        else if (t->oa.dir_markers && t->op == XFER_DOWNLOAD && sv_is_dir(en->rel)) {
            /* A directory marker (0 bytes; objsrc keeps no other): the directory, never a file. */
            if (!t->base.dryrun && fs_mkdir_parents(buf_cstr(&dst), &e))
                skip_with_error(t, buf_cstr(&shown_src), buf_cstr(&shown_dst), &e);
        } else
            o = obj_make(t, en->key, buf_cstr(&dst), buf_cstr(&shown_src), buf_cstr(&shown_dst));
        free(relz);
        buf_release(&dst);
        buf_release(&shown_src);
        buf_release(&shown_dst);
        if (!o)
            continue;
        o->size = en->size;
        o->size_known = en->has_attrs;
        o->mtime = en->mtime;
        /* An empty directory (the walk's "dir/", --directory-markers): its 0-byte marker. */
        o->dir_marker = t->op == XFER_UPLOAD && sv_is_dir(en->rel);
        if (t->src_s3 && en->has_attrs)
            o->etag = strdup(en->etag);
        /* A key list's key: the engine HEADs it first, as manifest_head would have (check.c). */
        o->src_head = o->src_head_explain = t->src_s3 && !en->has_attrs;
        ((struct shown *)o->user)->size = en->size;
        *out = o;
        return 1;
    }
}

static int next_obj_raw(struct transfer *t, struct xfer_obj **out);

/* The next object to start: 1 with *out, 0 at the end, XFER_NEXT_LATER while a listing (the source's
 * or the destination's) has not come this far. */
static int next_obj(void *ctx, struct xfer_obj **out)
{
    struct transfer *t = ctx;

    for (;;) {
        struct xfer_obj *o = t->held;
        int got, skip;

        t->held = NULL;
        if (!o) {
            if ((got = next_obj_raw(t, &o)) != 1)
                return got;
            /* An object onto itself: mv would delete it; cp that changes nothing is a
             * no-op S3 refuses. cp that changes its metadata, class or encryption is
             * how S3 changes them in place, as with the AWS CLI; cp of one version
             * (--version-id) onto its key is how S3 restores it. */
            if (o->op == XFER_COPY && !strcmp(o->src_bucket, o->dst_bucket) && !strcmp(o->src, o->dst) &&
                (t->mv || !xfer_copy_changes(&t->oo)) && !o->version_id) {
                struct s3c_error e = S3C_ERROR_INIT;
                struct shown *sh = o->user;
                s3c_fail(&e, S3C_EPARSE, "source and destination are the same object%s",
                         !t->mv ? " (give --storage-class, --sse or --metadata-directive REPLACE to change it "
                                  "in place)" : "");
                skip_with_error(t, sh->src, sh->dst, &e);
                shown_free(sh);
                o->user = NULL;
                xfer_obj_free(o);
                continue;
            }
            /* mv within one directory bucket, keeping all the object has: RenameObject, one atomic
             * request, no bytes copied, no delete after (issue 26; a store without it gets both). */
            if (o->op == XFER_COPY && t->mv && !o->version_id && !t->base.relay_copies &&
                !strcmp(o->src_bucket, o->dst_bucket) && s3_bucket_is_express(o->dst_bucket) &&
                !xfer_copy_changes(&t->oo))
                o->rename = true;
        }
        skip = skip_by_destination(t, o);
        if (skip == XFER_NEXT_LATER) {
            t->held = o; /* asked again with the same object */
            return XFER_NEXT_LATER;
        }
        if (!skip) {
            *out = o;
            return 1;
        }
        report_left(t, o->user, o->op);
        shown_free(o->user);
        o->user = NULL;
        xfer_obj_free(o);
    }
}

static int next_obj_raw(struct transfer *t, struct xfer_obj **out)
{
    const struct objsrc_entry *en;
    struct s3c_error e = S3C_ERROR_INIT;

    if (t->src.kind != OBJSRC_ONE)
        return next_from_source(t, out);
    /* The single object (made at start) is the shard's of its name. */
    if (!t->one || objsrc_next(&t->src, &en, &e) != OBJSRC_ENTRY) {
        if (t->one) {
            shown_free(t->one->user);
            t->one->user = NULL;
            xfer_obj_free(t->one);
            t->one = NULL;
        }
        return 0;
    }
    if (t->one_glacier && glacier_skip(t, ((struct shown *)t->one->user)->src, "GLACIER", NULL)) {
        shown_free(t->one->user);
        t->one->user = NULL;
        xfer_obj_free(t->one);
        t->one = NULL;
        return 0;
    }
    *out = t->one;
    t->one = NULL;
    return 1;
}

/* ---- setting up ------------------------------------------------------------------- */

static bool is_dir(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static bool ends_with_slash(const char *p)
{
    size_t n = strlen(p);
    return n && p[n - 1] == '/';
}

/* The base name of a key or path ("a/b/c" -> "c"). */
static const char *base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

/* A HEAD's object is archived and not restored: a download or copy of it fails (job_glacier_skip). */
static bool head_is_glacier(const struct http_resp *r)
{
    struct sv v;
    char cls[32] = "", restore[256] = "";

    if (http_resp_header(r, "x-amz-storage-class", &v))
        snprintf(cls, sizeof(cls), "%.*s", (int)v.n, v.p);
    if (http_resp_header(r, "x-amz-restore", &v))
        snprintf(restore, sizeof(restore), "%.*s", (int)v.n, v.p);
    return (!strcmp(cls, "GLACIER") || !strcmp(cls, "DEEP_ARCHIVE")) && !strstr(restore, "ongoing-request=\"false\"");
}

/*
 * A single object, the second half (setup_one starts it): its size (from
 * the HEAD of an S3 source, over now) and its destination name.
 */
static enum s3c_err setup_one_end(struct transfer *t, struct s3c_error *e)
{
    struct buf dst = BUF_INIT(65536), shown_dst = BUF_INIT(65536), shown_src = BUF_INIT(65536);
    const char *src_name;
    enum s3c_err rc = S3C_OK;
    struct http_xfer *x = &t->head.x;
    uint64_t size = 0;
    int64_t mtime = -1;
    char *etag = NULL;
    /* The name objsrc read from the argument: escapes ("\\*") removed unless --raw. */
    const char *key = t->src.u.key, *path = t->src.o.arg;

    t->heading = false;
    if (t->src_s3) {
        struct sv v;
        if (t->head.rc) {
            *e = t->head.err; /* a missing bucket, or key: said as the HeadBucket told */
            rc = e->code;
            goto out;
        }
        if (http_resp_header(&x->resp, "content-length", &v))
            sv_to_u64(v, &size);
        if (http_resp_header(&x->resp, "etag", &v))
            etag = sv_dup(v);
        if (http_resp_header(&x->resp, "last-modified", &v))
            http_date_parse(v, &mtime);
        t->one_glacier = head_is_glacier(&x->resp);
        src_name = key;
        buf_addf(&shown_src, "s3://%s/%s", t->su.bucket, key);
    } else if (!strcmp(t->src_arg, "-")) {
        if (!t->du.key[0] || ends_with_slash(t->du.key)) {
            rc = s3c_fail(e, S3C_EUSAGE, "%s: uploading standard input needs a full key, not \"%s\"", t->base.verb, t->dst_arg);
            goto out;
        }
        src_name = "-";
        buf_adds(&shown_src, "-");
    } else {
        struct stat st;
        if (stat(path, &st) != 0) {
            rc = s3c_fail(e, S3C_EUSAGE, "%s: the user-provided path %s does not exist", t->base.verb, t->src_arg);
            goto out;
        }
        if (S_ISDIR(st.st_mode)) {
            /* The AWS CLI's failed upload (exit 1), in its words. */
            struct buf abs = BUF_INIT(65536);
            job_abs_dir(path, &abs);
            rc = s3c_fail(e, S3C_EIO, "[Errno 21] Is a directory: '%s'", buf_cstr(&abs));
            e->sys_errno = EISDIR;
            buf_release(&abs);
            goto out;
        }
        size = (uint64_t)st.st_size;
        src_name = path;
        buf_adds(&shown_src, path);
    }
    /* Destination: a trailing '/', an existing directory or an empty key takes the source's name. */
    if (t->dst_s3) {
        buf_adds(&dst, t->du.key);
        if (!t->du.key[0] || ends_with_slash(t->du.key))
            buf_adds(&dst, base_name(src_name));
        buf_addf(&shown_dst, "s3://%s/%s", t->du.bucket, buf_cstr(&dst));
    } else if (!strcmp(t->dst_arg, "-")) {
        buf_adds(&dst, "-");
        buf_adds(&shown_dst, "-");
    } else {
        buf_adds(&dst, t->dst_arg);
        if (ends_with_slash(t->dst_arg) || is_dir(t->dst_arg)) {
            const char *bn = base_name(src_name);
            if (path_check_relative(sv_from(bn), e)) {
                rc = e->code;
                goto out;
            }
            if (!ends_with_slash(t->dst_arg))
                buf_addc(&dst, '/');
            buf_adds(&dst, bn);
        }
        buf_adds(&shown_dst, buf_cstr(&dst));
    }
    t->one = obj_make(t, t->src_s3 ? key : path, buf_cstr(&dst), buf_cstr(&shown_src),
                      buf_cstr(&shown_dst));
    if (!t->one) {
        rc = s3c_fail(e, S3C_ENOMEM, "out of memory");
        goto out;
    }
    t->one->stdio = !strcmp(t->src_arg, "-") || !strcmp(t->dst_arg, "-");
    t->one->size = size;
    t->one->size_known = true;
    t->base.one_size = size;
    t->one->mtime = mtime;
    t->one->etag = etag;
    etag = NULL;
    if (t->src_s3 && (t->one->head = calloc(1, sizeof(*t->one->head)))) {
        /* The engine takes this HEAD as its own (xfer_obj.head): asked once, not twice. */
        t->one->head->status = x->resp.status;
        t->one->head->headers = x->resp.headers;
        x->resp.headers = (struct buf)BUF_INIT(0);
    }
    ((struct shown *)t->one->user)->size = size;
out:
    free(etag);
    store_s3_head_async_release(t->base.src_s3, &t->head);
    buf_release(&dst);
    buf_release(&shown_dst);
    buf_release(&shown_src);
    return rc;
}

/*
 * A single object: its S3 source's HEAD goes out (setup_one_end takes its
 * answer). Waited for here before the engine runs; on the engine (a run
 * file's job, started inside next(): later_ok) it is a request in flight,
 * and job_next answers XFER_NEXT_LATER until it is over.
 */
static enum s3c_err setup_one(struct transfer *t, struct s3c_error *e)
{
    const char *key = t->src.u.key;

    if (!t->src_s3)
        return setup_one_end(t, e);
    if (!key[0] || ends_with_slash(key))
        return s3c_fail(e, S3C_EUSAGE, "%s: \"%s\" names no object (use --recursive for a prefix)", t->base.verb,
                        t->src_arg);
    store_s3_head_async_start(t->base.src_s3, t->su.bucket, key, t->version_id, t->dst_s3 ? t->oa.ssec_src : t->oa.ssec,
                              t->oo.checksum_mode, &t->head);
    t->heading = true;
    if (t->base.later_ok)
        return S3C_OK;
    store_s3_head_async_wait(t->base.src_s3, &t->head);
    return setup_one_end(t, e);
}

static enum s3c_err setup_ends(struct transfer *t, int n_pos, const char **pos, struct s3c_error *e)
{
    enum s3c_err rc;

    if (n_pos != 2)
        return s3c_fail(e, S3C_EUSAGE, "%s: expected a source and a destination", t->base.verb);
    t->src_arg = pos[0];
    t->dst_arg = pos[1];
    t->src_s3 = s3_uri_is(pos[0]);
    t->dst_s3 = s3_uri_is(pos[1]);
    if (!t->src_s3 && !t->dst_s3)
        return s3c_fail(e, S3C_EUSAGE, "%s: at least one of the paths must be s3://", t->base.verb);
    if ((!strcmp(pos[0], "-") || !strcmp(pos[1], "-")) &&
        (t->recursive || t->mv || (!t->raw && wild_has(pos[0]))))
        return s3c_fail(e, S3C_EUSAGE, "%s: \"-\" (standard input or output) works with a single object only", t->base.verb);
    if (t->src_s3 && (rc = s3_uri_parse(pos[0], &t->su, e)))
        return rc;
    if (t->dst_s3 && (rc = s3_uri_parse(pos[1], &t->du, e)))
        return rc;
    if (t->src_s3 && !t->su.bucket[0])
        return s3c_fail(e, S3C_EUSAGE, "%s: an S3 path must name a bucket", t->base.verb);
    /* A destination without a bucket ("s3://") is the AWS CLI's failed transfer (exit 1), said at start. */
    t->op = t->src_s3 && t->dst_s3 ? XFER_COPY : t->src_s3 ? XFER_DOWNLOAD : XFER_UPLOAD;
    return S3C_OK;
}

/* ---- the job ----------------------------------------------------------------------- */

static int job_next(struct job *j, struct xfer_obj **out)
{
    struct transfer *t = (struct transfer *)j;
    int got = 0;

    t->src.later = j->later_ok;
    if (t->heading && (got = head_finish(t))) {
        if (got == XFER_NEXT_END)
            t->source_done = true;
        return got;
    }
    if ((*out = next_delete(t)) || (!t->source_done && (got = next_obj(t, out)) == 1)) {
        t->inflight++;
        return XFER_NEXT_ONE;
    }
    if (got == XFER_NEXT_LATER)
        return XFER_NEXT_LATER;
    t->source_done = true;
    /* mv: a copy still in flight may yet need its source deleted. */
    return t->mv && t->src_s3 && t->inflight ? XFER_NEXT_WAIT : XFER_NEXT_END;
}

/* A listing or a walk to S3 under a check of the destination: one listing of the destination's
 * prefix answers for the objects in key order (plan/dstlist.h), not a HEAD each. Not for
 * --flatten (its names leave key order). */
static void dst_listing_setup(struct transfer *t)
{
    struct buf prefix = BUF_INIT(65536);
    size_t kl;

    if (!t->dst_s3 || t->flatten || !(t->no_clobber || t->if_size_differ || t->if_source_newer) ||
        (t->src.kind != OBJSRC_LIST && t->src.kind != OBJSRC_WALK))
        return;
    kl = strlen(t->du.key);
    if (!buf_adds(&prefix, t->du.key) && (!kl || t->du.key[kl - 1] == '/' || !buf_addc(&prefix, '/'))) {
        dstlist_init(&t->dstl, t->s3, t->du.bucket, buf_cstr(&prefix));
        t->dst_listed = true;
    }
    buf_release(&prefix);
}

/*
 * What fails before any request, as the AWS CLI fails it: a destination
 * without a bucket ("s3://": its parameter validation, exit 1), and mv of an
 * object onto itself (mv would delete it; "Cannot mv a file onto itself",
 * exit 255), each said as the transfer's result. S3C_OK when neither.
 */
static enum s3c_err refused_at_start(struct transfer *t, const char *op)
{
    struct s3c_error e = S3C_ERROR_INIT;
    struct shown sh = { (char *)t->src_arg, (char *)t->dst_arg, 0 };
    enum s3c_err rc = S3C_OK;

    if (t->dst_s3 && !t->du.bucket[0]) {
        rc = s3c_fail(&e, S3C_EPARSE, "Parameter validation failed: Invalid bucket name \"\": a destination "
                      "needs s3://BUCKET[/KEY]");
        report(t, &sh, t->op, &e);
        job_count(&t->base, t->mv ? JOB_OP_MOVE : (int)t->op, 0, &e);
    } else if (t->mv && t->op == XFER_COPY && !t->recursive && (t->raw || !wild_has(t->su.key)) &&
               !strcmp(t->su.bucket, t->du.bucket) && t->du.key[0] && !ends_with_slash(t->du.key)) {
        struct buf k = BUF_INIT(65536);

        /* The key it names, escapes removed as objsrc reads it. */
        buf_adds(&k, t->su.key);
        if (!t->raw && k.len)
            wild_unescape(k.data);
        if (k.len && !strcmp(buf_cstr(&k), t->du.key)) {
            rc = s3c_fail(&e, S3C_EUSAGE, "Cannot mv a file onto itself: '%s' - '%s'", t->src_arg, t->dst_arg);
            out_usage_error(&e);
        }
        buf_release(&k);
    }
    return rc;
}

/* The source could not be opened (objsrc_open, or a manifest opened on the engine): said as the AWS CLI
 * says it; the job's result. */
static enum s3c_err open_failed(struct transfer *t, const char *op, enum s3c_err rc, struct s3c_error *e)
{
    if (t->src.kind == OBJSRC_WALK && !t->src.pattern && (rc == S3C_ENOTFOUND || rc == S3C_EUSAGE)) {
        rc = S3C_EUSAGE;
        out_usage_error(e);
    } else if (t->src.kind == OBJSRC_LIST) {
        fatal(t, e);
    } else if (t->src.kind == OBJSRC_MANIFEST && e->code == S3C_EUSAGE) {
        out_usage_error(e);
    } else {
        out_error(op, e);
    }
    return t->src.kind == OBJSRC_MANIFEST ? e->code : rc;
}

/* A single object's setup (setup_one, setup_one_end) said 'rc': a failure is told here; 'rc'. */
static enum s3c_err one_failed(struct transfer *t, enum s3c_err rc, struct s3c_error *e)
{
    if (rc == S3C_EUSAGE) {
        out_usage_error(e);
    } else if (rc) {
        /* The source's HEAD failed: the object's own result line (or record). */
        char src[4096];
        struct shown sh = { src, (char *)t->dst_arg, 0 };
        /* A directory shows as "dir/", as the AWS CLI shows it. */
        snprintf(src, sizeof(src), "%s%s", t->src_arg,
                 e->sys_errno == EISDIR && !ends_with_slash(t->src_arg) ? "/" : "");
        report(t, &sh, t->op, e);
        job_count(&t->base, t->mv ? JOB_OP_MOVE : (int)t->op, 0, e); /* for --stat */
    }
    return rc;
}

/* A manifest opened on the engine (a run file's job) could not be read: told as job_start tells it,
 * counted as a failed start (job_start_failed). */
static void open_failed_later(struct transfer *t, struct s3c_error *e)
{
    char op[4096];

    cli_op_name(op, sizeof(op), t->base.verb, t->n_pos, t->pos);
    job_start_failed(&t->base, open_failed(t, op, e->code ? e->code : S3C_EIO, e));
}

/*
 * The single object's HEAD that job_start sent on the engine (a run file's
 * job, started inside next()): XFER_NEXT_LATER while it is out; else 0 with
 * the object made, or XFER_NEXT_END when it failed (told, and counted as a
 * failed start).
 */
static int head_finish(struct transfer *t)
{
    struct s3c_error e = S3C_ERROR_INIT;
    enum s3c_err rc;

    if (!store_s3_head_async_poll(t->base.src_s3, &t->head))
        return XFER_NEXT_LATER;
    if (!(rc = one_failed(t, setup_one_end(t, &e), &e)))
        return 0;
    job_start_failed(&t->base, rc);
    return XFER_NEXT_END;
}

/* Pick the source of objects: one object, an S3 listing or a local walk. Errors are reported here. */
static enum s3c_err job_start(struct job *j)
{
    struct transfer *t = (struct transfer *)j;
    struct s3c_error e = S3C_ERROR_INIT;
    struct objsrc_opts so;
    char op[4096];
    enum s3c_err rc = S3C_OK;

    cli_op_name(op, sizeof(op), j->verb, t->n_pos, t->pos);
    if ((rc = refused_at_start(t, op)))
        return rc;
    t->s3 = cli_s3(j->c, &e);
    if (t->s3)
        j->src_s3 = objopts_source_store(&t->oa, j->c, j->verb, t->src_s3 ? t->su.bucket : NULL,
                                         t->dst_s3 ? t->du.bucket : NULL, &j->relay_copies, &e);
    if (!t->s3 || !j->src_s3) {
        if (e.code == S3C_EUSAGE)
            out_usage_error(&e);
        else
            out_error(op, &e);
        return e.code;
    }
    j->src_deletes = t->mv;
    objopts_source_region(&t->oa, t->s3, t->src_s3 ? t->su.bucket : NULL, t->dst_s3 ? t->du.bucket : NULL);
    if (j->src_s3 != t->s3)
        objopts_source_region(&t->oa, j->src_s3, t->su.bucket, t->du.bucket);
    if (t->filters.n) {
        struct buf root = BUF_INIT(65536);
        rc = filter_add_list(&t->filter, t->filters.flag, t->filters.v, (size_t)t->filters.n, &e);
        if (!rc)
            rc = filter_root(t->src_arg, t->recursive, &root, &e);
        t->filter_root = strdup(buf_cstr(&root));
        buf_release(&root);
        if (rc) {
            out_usage_error(&e);
            return rc;
        }
    }
    memset(&so, 0, sizeof(so));
    so.s3 = j->src_s3;
    so.job = j;
    so.count_op = t->mv ? JOB_OP_MOVE : (int)t->op;
    so.arg = t->src_arg;
    so.recursive = t->recursive;
    so.raw = t->raw;
    so.from_manifest = t->src_s3 ? t->from_manifest : NULL;
    so.filter = &t->filter;
    so.filter_root = t->filter_root;
    so.tell_filtered = true;
    so.dirs = t->op != XFER_DOWNLOAD ? OBJSRC_DIRS_KEEP : t->oa.dir_markers ? OBJSRC_DIRS_MARKERS : OBJSRC_DIRS_SKIP;
    so.empty_dirs = t->oa.dir_markers && t->op == XFER_UPLOAD;
    so.follow_symlinks = !t->no_follow_symlinks;
    so.check_readable = true;
    so.later = j->later_ok; /* started on the engine (run): a manifest's GET is not waited for */
    so.fill = t->base.dryrun ? manifest_head : NULL;
    so.fill_ctx = t;
    so.page_size = j->knobs.page_size;
    so.list_v1 = j->c->g.list_v1;
    rc = objsrc_open(&t->src, &so, &e);
    if (!rc && t->src.kind == OBJSRC_WALK && !t->src.pattern && !objsrc_root_is_dir(&t->src))
        return skip_not_a_dir(j, t->src_arg, t->mv ? JOB_OP_MOVE : (int)t->op, op_word(t->op, t->mv));
    if (rc)
        return open_failed(t, op, rc, &e);
    if (t->src.kind != OBJSRC_ONE) {
        dst_listing_setup(t);
        return S3C_OK;
    }
    return one_failed(t, setup_one(t, &e), &e);
}

static enum s3c_err job_finish(struct job *j, enum s3c_err engine_rc)
{
    struct transfer *t = (struct transfer *)j;

    /* A wildcard that matched nothing is an error (exit 1), as ls says for a prefix. */
    if (t->src.pattern && !t->src.matched && engine_rc != S3C_ECANCEL && !j->n.failed && !j->n.warned) {
        struct s3c_error e = S3C_ERROR_INIT;
        s3c_fail(&e, S3C_ENOMATCH, "no %s matches %s", t->src_s3 ? "object" : "file", t->src_arg);
        fatal(t, &e);
        job_count(j, t->mv ? JOB_OP_MOVE : (int)t->op, 0, &e);
    }

    if (engine_rc == S3C_ECANCEL) {
        struct s3c_error e = S3C_ERROR_INIT;
        s3c_fail(&e, S3C_ECANCEL, "interrupted");
        job_count(j, t->mv ? JOB_OP_MOVE : (int)t->op, 0, &e);
        j->n.first_error = S3C_ECANCEL;
    }
    return job_result(j);
}

static void job_free(struct job *j)
{
    struct transfer *t = (struct transfer *)j;

    if (!t)
        return;
    if (t->one) {
        shown_free(t->one->user);
        xfer_obj_free(t->one);
    }
    if (t->held) {
        shown_free(t->held->user);
        xfer_obj_free(t->held);
    }
    if (t->heading)
        store_s3_head_async_release(t->base.src_s3, &t->head);
    if (t->dst_listed)
        dstlist_release(&t->dstl);
    objsrc_close(&t->src);
    filter_release(&t->filter);
    free(t->filter_root);
    buf_release(&t->metag);
    while (t->dels) {
        struct pending_del *d = t->dels;
        t->dels = d->next;
        free(d->key);
        free(d->etag);
        free(d);
    }
    s3_uri_release(&t->su);
    s3_uri_release(&t->du);
    free(t);
}

/*
 * --version-id (s5cmd's, cp's only): one object of an S3 source, read or
 * copied as that version. mv has none, as s5cmd's: which version it would
 * delete is cp's then rm's to say.
 */
static enum s3c_err version_check(struct transfer *t, struct s3c_error *e)
{
    const char *verb = t->base.verb;

    if (t->mv)
        return s3c_fail(e, S3C_EUSAGE, "mv: --version-id is not an mv flag: cp --version-id, then rm --version-id");
    if (!t->src_s3)
        return s3c_fail(e, S3C_EUSAGE, "%s: --version-id needs an S3 source (s3://BUCKET/KEY)", verb);
    return cli_version_check(verb, t->version_id, t->su.bucket,
                             !t->recursive && !t->from_manifest && (t->raw || !wild_has(t->su.key)), e);
}

static const struct job_ops transfer_ops = { job_next, on_done, job_start, job_finish, job_free };

enum s3c_err cp_job_new(struct cli_ctx *c, const char *verb, int argc, char **argv, struct job **out,
                        struct s3c_error *e)
{
    struct transfer *t = calloc(1, sizeof(*t));
    bool dryrun = false;
    const struct arg_spec specs[] = {
        { "--recursive", "-r", ARG_BOOL, &t->recursive },
        { "--dryrun", "--dry-run", ARG_BOOL, &dryrun },
        { "--no-overwrite", NULL, ARG_BOOL, &t->no_overwrite },
        { "--no-clobber", "-n", ARG_BOOL, &t->no_clobber },
        { "--if-size-differ", "-s", ARG_BOOL, &t->if_size_differ },
        { "--if-source-newer", "-u", ARG_BOOL, &t->if_source_newer },
        { "--flatten", NULL, ARG_BOOL, &t->flatten },
        { "--raw", NULL, ARG_BOOL, &t->raw },
        { "--follow-symlinks", NULL, ARG_BOOL, &t->follow_symlinks },
        { "--no-follow-symlinks", NULL, ARG_BOOL, &t->no_follow_symlinks },
        { "--exclude", NULL, ARG_STR_LIST, &t->filters },
        { "--include", NULL, ARG_STR_LIST, &t->filters },
        OBJOPTS_SPECS(&t->oo, &t->oa),
        JOB_KNOB_SPECS(&t->knob_args),
        JOB_SHARD_SPEC(&t->knob_args),
        { "--from-manifest", NULL, ARG_STR, &t->from_manifest },
        { "--version-id", NULL, ARG_STR, &t->version_id },
        { NULL, NULL, 0, NULL },
    };
    enum s3c_err rc;

    *out = NULL;
    if (!t)
        return s3c_fail(e, S3C_ENOMEM, "out of memory");
    t->base.ops = &transfer_ops;
    t->base.c = c;
    t->base.verb = verb;
    t->mv = !strcmp(verb, "mv");
    t->filter = (struct filter)FILTER_INIT;
    t->src = (struct objsrc)OBJSRC_INIT;
    t->metag = (struct buf)BUF_INIT(4096);
    t->oo.request_payer = c->g.request_payer; /* s5cmd's global; the verb's flag wins */
    t->head = (struct store_s3_head_async)STORE_S3_HEAD_ASYNC_INIT;
    rc = args_parse(verb, specs, argc, argv, t->pos, 2, &t->n_pos, e);
    t->base.dryrun = dryrun;
    if (!rc)
        rc = setup_ends(t, t->n_pos, t->pos, e);
    if (!rc && t->from_manifest && (!t->src_s3 || !t->su.bucket[0]))
        rc = s3c_fail(e, S3C_EUSAGE, "%s: --from-manifest needs an S3 source (s3://BUCKET[/PREFIX]) for its keys", verb);
    if (!rc && t->version_id)
        rc = version_check(t, e);
    if (!rc)
        rc = objopts_parse(verb, &t->oa, &t->oo, e);
    if (!rc && t->mv && t->oa.dir_markers)
        rc = s3c_fail(e, S3C_EUSAGE, "%s: --directory-markers is for cp and sync", verb);
    if (!rc)
        rc = objopts_express_check(verb, &t->oo, t->src_s3 ? t->su.bucket : NULL, t->dst_s3 ? t->du.bucket : NULL, e);
    if (!rc)
        rc = job_knobs_parse(&t->base, &t->knob_args, e);
    if (rc) {
        job_free(&t->base);
        return rc;
    }
    /* -n to S3: If-None-Match: * on each write, the only check of a file sent in one PutObject;
     * the others' destinations are HEADed first, in flight (skip_by_destination, xfer/check.c). */
    t->oo.no_overwrite = t->no_overwrite || (t->no_clobber && !t->if_size_differ && !t->if_source_newer && t->dst_s3);
    t->base.reads_only = !t->dst_s3 && strcmp(verb, "mv") != 0;
    if (t->op == XFER_DOWNLOAD && !strcmp(t->dst_arg, "-") && !t->base.dryrun) {
        out_stdout_is_data(); /* the object's bytes go there: nothing else may */
        t->base.writes_stdout = true;
    }
    *out = &t->base;
    return S3C_OK;
}

/* cp and mv alone: build the job, run it on its own engine. */
static enum s3c_err transfer_main(struct cli_ctx *c, const char *verb, int argc, char **argv)
{
    struct s3c_error e = S3C_ERROR_INIT;
    struct job *j;
    enum s3c_err rc = cp_job_new(c, verb, argc, argv, &j, &e);

    if (rc) {
        out_usage_error(&e);
        return rc;
    }
    rc = job_run(j);
    j->ops->free(j);
    return rc;
}

enum s3c_err cmd_cp(struct cli_ctx *c, int argc, char **argv)
{
    return transfer_main(c, "cp", argc, argv);
}

enum s3c_err cmd_mv(struct cli_ctx *c, int argc, char **argv)
{
    return transfer_main(c, "mv", argc, argv);
}
