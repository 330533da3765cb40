#include "cli/transfer.h"

#include <errno.h>
#include <stdarg.h>
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
#include "cli/output.h"
#include "fs/path.h"
#include "plan/filter.h"
#include "plan/lister.h"
#include "plan/manifest.h"
#include "plan/walk.h"
#include "plan/wild.h"
#include "s3/uri.h"
#include "s3/xml.h"
#include "xfer/xfer.h"

enum src_kind {
    SRC_ONE,        /* a single object */
    SRC_LIST,       /* every key under an S3 prefix */
    SRC_WALK,       /* every file under a local directory */
};

/* Names for result lines, owned by the object (xfer_obj.user). */
struct shown {
    char *src;
    char *dst;
    uint64_t size;
};

struct transfer;
static enum s3c_err transfer_walk_open(struct transfer *t, struct s3c_error *e);
static int transfer_walk_next(struct transfer *t, struct xfer_obj **out);
static void transfer_walk_close(struct transfer *t);

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
    enum src_kind kind;
    struct xfer_obj *one;
    struct lister lister;
    const char *from_manifest;      /* --from-manifest FILE: the keys come from it, not a listing */
    struct manifest *manifest;
    struct s3_object mobj;          /* a manifest entry as a listed object */
    struct buf mkey, metag;         /* its strings */
    char *prefix;                   /* listing prefix (ends with '/' or is "") */
    const char *pattern;            /* wildcard source: keys/paths must match it */
    uint64_t matched;               /* keys or files the pattern matched (none: an error) */
    struct walk *walk;              /* local source tree */
    char *walk_root;                /* the directory walked */
    char *walk_match;               /* text before each rel to match 'pattern' ("dir/") */
    struct filter filter;           /* --exclude / --include */
    char *filter_root;
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

static char *str_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *str_printf(const char *fmt, ...)
{
    va_list ap;
    char *s = NULL;

    va_start(ap, fmt);
    if (vasprintf(&s, fmt, ap) < 0)
        s = NULL;
    va_end(ap);
    return s;
}

static const char *op_word(enum xfer_op op, bool mv)
{
    switch (op) {
    case XFER_UPLOAD: return mv ? "move" : "upload";
    case XFER_DOWNLOAD: return mv ? "move" : "download";
    case XFER_COPY: return mv ? "move" : "copy";
    case XFER_DELETE: return "delete";
    }
    return "copy";
}

static void report(struct transfer *t, const struct shown *sh, enum xfer_op op,
                   const struct s3c_error *e)
{
    struct out_result r = { op_word(op, t->mv), sh->src, sh->dst, sh->size, true, NULL, t->base.dryrun, false };

    if (!e && !out_opts()->json && !strcmp(sh->dst, "-"))
        return; /* stdout carries the data */
    out_result(&r, e);
}

/* What failed is no one object (a listing): a "fatal error" line, or a --json record. */
static void fatal(struct transfer *t, const struct s3c_error *e)
{
    struct out_result r = { t->base.verb, t->src_arg, t->dst_arg, 0, false, NULL, false, true };

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
    struct pending_del *next;
};

static void delete_source(struct transfer *t, const struct xfer_obj *o, const struct shown *sh)
{
    struct pending_del *d;

    if (o->op == XFER_UPLOAD) {
        if (unlink(o->src) != 0) {
            struct s3c_error e = S3C_ERROR_INIT;
            struct out_result r = { "delete", sh->src, NULL, 0, false, NULL, false, false };
            s3c_fail_errno(&e, errno, "cannot remove %s after moving it", sh->src);
            out_result(&r, &e);
            job_count(&t->base, XFER_DELETE, 0, &e);
        }
        return;
    }
    d = calloc(1, sizeof(*d));
    if (d && (d->key = strdup(o->src))) {
        d->next = t->dels;
        t->dels = d;
        return;
    }
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
    t->dels = d->next;
    free(d);
    return o;
}

/* A source delete answered: only failures are news (the move line is out). */
static void delete_done(struct transfer *t, const struct xfer_obj *o, const struct s3c_error *e)
{
    char shown[4096];
    struct out_result r = { "delete", shown, NULL, 0, false, NULL, false, false };

    if (!e)
        return;
    if (e->code != S3C_ECANCEL) {
        snprintf(shown, sizeof(shown), "s3://%s/%s", o->src_bucket, o->src);
        out_result(&r, e);
    }
    job_count(&t->base, XFER_DELETE, 0, e);
}

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
    /* --no-overwrite / -n: an existing destination is a skip, not a failure. */
    if (e && e->http_status == 412 && (t->no_overwrite || t->no_clobber)) {
        job_skip(j);
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
    if (!e && t->mv)
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
    sh->src = strdup(src_shown);
    sh->dst = strdup(dst_shown);
    o->user = sh;
    if (!o->src || !o->dst || (t->src_s3 && !o->src_bucket) || (t->dst_s3 && !o->dst_bucket) ||
        !sh->src || !sh->dst)
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
 * --no-clobber, --if-size-differ, --if-source-newer (s5cmd's semantics): look
 * at the destination (stat, or HEAD for S3) and say whether to skip 'o'.
 * A destination that does not exist never causes a skip.
 */
static bool skip_by_destination(struct transfer *t, const struct xfer_obj *o)
{
    uint64_t dsize = 0;
    int64_t dmtime = 0;
    bool exists = false;

    if (!t->no_clobber && !t->if_size_differ && !t->if_source_newer)
        return false;
    if (!strcmp(o->dst, "-"))
        return false;
    if (t->dst_s3) {
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
    } else {
        struct stat st;
        if (stat(o->dst, &st) == 0) {
            exists = true;
            dsize = (uint64_t)st.st_size;
            dmtime = (int64_t)st.st_mtim.tv_sec;
        }
    }
    if (!exists)
        return false;
    if (t->no_clobber)
        return true;
    if (t->if_size_differ && o->size_known && dsize != o->size)
        return false;
    if (t->if_source_newer && o->mtime >= 0 && o->mtime > dmtime)
        return false;
    return true;
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

/* A manifest entry without a size (a plain key list): HEAD it. False (reported) when that fails. */
static bool manifest_head(struct transfer *t, struct s3_object *so)
{
    struct s3c_error e = S3C_ERROR_INIT;
    struct http_xfer x;
    struct sv v;
    bool ok;

    memset(&x, 0, sizeof(x));
    ok = !store_s3_head_sse_c(t->s3, t->su.bucket, so->key, t->dst_s3 ? t->oa.ssec_src : t->oa.ssec, &x, &e);
    if (!ok)
        store_s3_explain_head_404(t->s3, t->su.bucket, &e);
    if (ok) {
        if (http_resp_header(&x.resp, "content-length", &v))
            sv_to_u64(v, &so->size);
        if (http_resp_header(&x.resp, "last-modified", &v))
            http_date_parse(v, &so->mtime_epoch);
        buf_reset(&t->metag);
        if (http_resp_header(&x.resp, "etag", &v) && !buf_addsv(&t->metag, v))
            so->etag = buf_cstr(&t->metag);
    } else {
        char shown[8192];
        snprintf(shown, sizeof(shown), "s3://%s/%s", t->su.bucket, so->key);
        skip_with_error(t, shown, t->dst_arg, &e);
    }
    http_xfer_release(&x);
    return ok;
}

/* A listed key the listing kept from cp/mv (outside the prefix, or unnamable): warned, skipped (exit 2). */
static void listed_skip(void *ctx, const char *key, enum listcheck_verdict why)
{
    struct transfer *t = ctx;
    struct s3c_error e = S3C_ERROR_INIT;

    listing_warn_skip(t->su.bucket, key, why, &e);
    job_count(&t->base, t->mv ? JOB_OP_MOVE : (int)t->op, 0, &e);
}

/* The next object under the source prefix: from the listing, or from --from-manifest. */
static int next_s3_source(struct transfer *t, const struct s3_object **out, struct s3c_error *e)
{
    size_t pl = strlen(t->prefix);

    if (!t->manifest)
        return lister_next(&t->lister, out, e);
    for (;;) {
        struct manifest_entry me;
        int r = manifest_next(t->manifest, &me, e);

        if (r <= 0)
            return r;
        /* The manifest may cover more than the source argument: keep what is under it. */
        if ((me.bucket[0] && strcmp(me.bucket, t->su.bucket) != 0) || strncmp(me.key, t->prefix, pl) != 0 ||
            !me.key[pl])
            continue;
        memset(&t->mobj, 0, sizeof(t->mobj));
        buf_reset(&t->mkey);
        buf_reset(&t->metag);
        if (buf_adds(&t->mkey, me.key) || buf_adds(&t->metag, me.etag))
            return s3c_fail(e, S3C_ENOMEM, "out of memory"), -1;
        t->mobj.key = buf_cstr(&t->mkey);
        t->mobj.etag = buf_cstr(&t->metag);
        t->mobj.last_modified = t->mobj.storage_class = "";
        t->mobj.size = me.size;
        t->mobj.mtime_epoch = me.mtime;
        if (!me.has_attrs && t->op != XFER_DELETE && !manifest_head(t, &t->mobj))
            continue;
        *out = &t->mobj;
        return 1;
    }
}

static int next_from_list(struct transfer *t, struct xfer_obj **out)
{
    const struct s3_object *so;
    struct s3c_error le = S3C_ERROR_INIT;
    int r;

    while ((r = next_s3_source(t, &so, &le)) == 1) {
        const char *rel = so->key + strlen(t->prefix);
        struct sv relv;
        struct buf dst = BUF_INIT(65536), shown_src = BUF_INIT(65536), shown_dst = BUF_INIT(65536);
        struct s3c_error e = S3C_ERROR_INIT;
        struct xfer_obj *o = NULL;
        size_t kl = strlen(so->key);

        /* "dir/" placeholder objects have no file to become. */
        if (t->op == XFER_DOWNLOAD && kl && so->key[kl - 1] == '/')
            continue;
        if (t->pattern) {
            if (!wild_match(t->pattern, (struct sv){ so->key, kl }))
                continue;
            t->matched++;
            relv = wild_relative(t->pattern, (struct sv){ so->key, kl });
            rel = relv.p;
        }
        if (!filter_empty(&t->filter) && !filter_accept(&t->filter, t->filter_root, sv_from(rel)))
            continue;
        if (!job_owns(&t->base, sv_from(rel)))
            continue;
        buf_addf(&shown_src, "s3://%s/%s", t->su.bucket, so->key);
        if (dst_for(t, rel, &dst, &shown_dst, &e)) {
            skip_with_error(t, buf_cstr(&shown_src), t->dst_arg, &e);
        } else {
            o = obj_make(t, so->key, buf_cstr(&dst), buf_cstr(&shown_src), buf_cstr(&shown_dst));
        }
        buf_release(&dst);
        buf_release(&shown_src);
        buf_release(&shown_dst);
        if (!o)
            continue;
        o->size = so->size;
        o->size_known = true;
        o->mtime = so->mtime_epoch;
        o->etag = strdup(so->etag);
        ((struct shown *)o->user)->size = so->size;
        *out = o;
        return 1;
    }
    if (r < 0) {
        fatal(t, &le);
        job_count(&t->base, t->mv ? JOB_OP_MOVE : (int)t->op, 0, &le);
    }
    return 0;
}

static int next_obj_raw(struct transfer *t, struct xfer_obj **out);
static const char *base_name(const char *p);

static int next_obj(void *ctx, struct xfer_obj **out)
{
    struct transfer *t = ctx;

    while (next_obj_raw(t, out)) {
        struct xfer_obj *o = *out;

        /* An object onto itself: mv would delete it; cp that changes nothing is a
         * no-op S3 refuses. cp that changes its metadata, class or encryption is
         * how S3 changes them in place, as with the AWS CLI. */
        if (o->op == XFER_COPY && !strcmp(o->src_bucket, o->dst_bucket) && !strcmp(o->src, o->dst) &&
            (t->mv || !xfer_copy_changes(&t->oo))) {
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
        if (!skip_by_destination(t, *out))
            return 1;
        job_skip(&t->base);
        shown_free((*out)->user);
        (*out)->user = NULL;
        xfer_obj_free(*out);
    }
    return 0;
}

static int next_obj_raw(struct transfer *t, struct xfer_obj **out)
{
    switch (t->kind) {
    case SRC_ONE:
        if (!t->one)
            return 0;
        /* A single object is the shard's of its name. */
        if (!job_owns(&t->base, sv_from(base_name(t->src_s3 ? t->su.key : t->src_arg)))) {
            shown_free(t->one->user);
            t->one->user = NULL;
            xfer_obj_free(t->one);
            t->one = NULL;
            return 0;
        }
        *out = t->one;
        t->one = NULL;
        return 1;
    case SRC_LIST:
        return next_from_list(t, out);
    case SRC_WALK:
        return transfer_walk_next(t, out);
    }
    return 0;
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

/* A single object: find its size (HEAD for S3 sources) and its destination name. */
static enum s3c_err setup_one(struct transfer *t, struct s3c_error *e)
{
    struct buf dst = BUF_INIT(65536), shown_dst = BUF_INIT(65536), shown_src = BUF_INIT(65536);
    const char *src_name;
    enum s3c_err rc = S3C_OK;
    struct http_xfer x;
    uint64_t size = 0;
    int64_t mtime = -1;
    char *etag = NULL;

    memset(&x, 0, sizeof(x));
    if (t->src_s3) {
        struct sv v;
        if (!t->su.key[0] || ends_with_slash(t->su.key)) {
            rc = s3c_fail(e, S3C_EUSAGE, "%s: \"%s\" names no object (use --recursive for a prefix)", t->base.verb, t->src_arg);
            goto out;
        }
        rc = store_s3_head_ck(t->s3, t->su.bucket, t->su.key, t->dst_s3 ? t->oa.ssec_src : t->oa.ssec,
                              t->oo.checksum_mode, &x, e);
        if (rc) {
            store_s3_explain_head_404(t->s3, t->su.bucket, e); /* a missing bucket, or key? */
            rc = e->code;
            goto out;
        }
        if (http_resp_header(&x.resp, "content-length", &v))
            sv_to_u64(v, &size);
        if (http_resp_header(&x.resp, "etag", &v))
            etag = sv_dup(v);
        if (http_resp_header(&x.resp, "last-modified", &v))
            http_date_parse(v, &mtime);
        src_name = t->su.key;
        buf_addf(&shown_src, "s3://%s/%s", t->su.bucket, t->su.key);
    } else if (!strcmp(t->src_arg, "-")) {
        if (!t->du.key[0] || ends_with_slash(t->du.key)) {
            rc = s3c_fail(e, S3C_EUSAGE, "%s: uploading standard input needs a full key, not \"%s\"", t->base.verb, t->dst_arg);
            goto out;
        }
        src_name = "-";
        buf_adds(&shown_src, "-");
    } else {
        struct stat st;
        if (stat(t->src_arg, &st) != 0) {
            rc = s3c_fail(e, S3C_EUSAGE, "%s: the user-provided path %s does not exist", t->base.verb, t->src_arg);
            goto out;
        }
        if (S_ISDIR(st.st_mode)) {
            rc = s3c_fail(e, S3C_EUSAGE, "%s: %s is a directory (use --recursive)", t->base.verb, t->src_arg);
            goto out;
        }
        size = (uint64_t)st.st_size;
        src_name = t->src_arg;
        buf_adds(&shown_src, t->src_arg);
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
    t->one = obj_make(t, t->src_s3 ? t->su.key : t->src_arg, buf_cstr(&dst), buf_cstr(&shown_src),
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
        t->one->head->status = x.resp.status;
        t->one->head->headers = x.resp.headers;
        x.resp.headers = (struct buf)BUF_INIT(0);
    }
    ((struct shown *)t->one->user)->size = size;
out:
    free(etag);
    http_xfer_release(&x);
    buf_release(&dst);
    buf_release(&shown_dst);
    buf_release(&shown_src);
    return rc;
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
    if ((t->src_s3 && !t->su.bucket[0]) || (t->dst_s3 && !t->du.bucket[0]))
        return s3c_fail(e, S3C_EUSAGE, "%s: an S3 path must name a bucket", t->base.verb);
    t->op = t->src_s3 && t->dst_s3 ? XFER_COPY : t->src_s3 ? XFER_DOWNLOAD : XFER_UPLOAD;
    return S3C_OK;
}

/* ---- the job ----------------------------------------------------------------------- */

static int job_next(struct job *j, struct xfer_obj **out)
{
    struct transfer *t = (struct transfer *)j;

    if ((*out = next_delete(t)) || (!t->source_done && next_obj(t, out))) {
        t->inflight++;
        return XFER_NEXT_ONE;
    }
    t->source_done = true;
    /* mv: a copy still in flight may yet need its source deleted. */
    return t->mv && t->src_s3 && t->inflight ? XFER_NEXT_WAIT : XFER_NEXT_END;
}

/* Pick the source of objects: one object, an S3 listing or a local walk. Errors are reported here. */
static enum s3c_err job_start(struct job *j)
{
    struct transfer *t = (struct transfer *)j;
    struct s3c_error e = S3C_ERROR_INIT;
    char op[4096];
    enum s3c_err rc = S3C_OK;

    cli_op_name(op, sizeof(op), j->verb, t->n_pos, t->pos);
    t->s3 = cli_s3(j->c, &e);
    if (!t->s3) {
        out_error(op, &e);
        return e.code;
    }
    objopts_source_region(&t->oa, t->s3, t->src_s3 ? t->su.bucket : NULL, t->dst_s3 ? t->du.bucket : NULL);
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
    if (!t->raw && wild_has(t->src_s3 ? t->su.key : t->src_arg)) {
        /* A wildcard source: every matching key or file, names relative to the literal prefix. */
        struct buf pre = BUF_INIT(65536);
        t->pattern = t->src_s3 ? t->su.key : t->src_arg;
        if (t->src_s3) {
            t->kind = SRC_LIST;
            wild_prefix(t->pattern, &pre);
            t->prefix = strdup(buf_cstr(&pre));
            buf_release(&pre);
            if (!t->prefix)
                return S3C_ENOMEM;
        } else {
            t->kind = SRC_WALK;
            rc = transfer_walk_open(t, &e);
            if (rc) {
                out_error(op, &e);
                return rc;
            }
        }
    } else if ((t->recursive || t->from_manifest) && t->src_s3) {
        size_t kl = strlen(t->su.key);
        t->kind = SRC_LIST;
        t->prefix = str_printf("%s%s", t->su.key, kl && t->su.key[kl - 1] != '/' ? "/" : "");
        if (!t->prefix)
            return S3C_ENOMEM;
    } else if (t->recursive) {
        t->kind = SRC_WALK;
        rc = transfer_walk_open(t, &e);
        if (rc) {
            if (rc == S3C_ENOTFOUND || rc == S3C_EUSAGE) {
                rc = S3C_EUSAGE;
                out_usage_error(&e);
            } else {
                out_error(op, &e);
            }
            return rc;
        }
    } else {
        t->kind = SRC_ONE;
        rc = setup_one(t, &e);
        if (rc == S3C_EUSAGE) {
            out_usage_error(&e);
            return rc;
        }
        if (rc) {
            /* The source's HEAD failed: the object's own result line (or record). */
            char src[4096];
            struct shown sh = { src, (char *)t->dst_arg, 0 };
            snprintf(src, sizeof(src), "%s", t->src_arg);
            report(t, &sh, t->op, &e);
            job_count(&t->base, t->mv ? JOB_OP_MOVE : (int)t->op, 0, &e); /* for --stat */
            return rc;
        }
    }
    if (t->kind == SRC_LIST && t->from_manifest) {
        t->manifest = manifest_open(t->from_manifest, t->s3, &e);
        if (!t->manifest) {
            if (e.code == S3C_EUSAGE)
                out_usage_error(&e);
            else
                out_error(op, &e);
            return e.code;
        }
    } else if (t->kind == SRC_LIST && (rc = lister_open(&t->lister, t->s3, t->su.bucket, t->prefix, listed_skip, t, &e))) {
        fatal(t, &e);
        return rc;
    }
    return S3C_OK;
}

static enum s3c_err job_finish(struct job *j, enum s3c_err engine_rc)
{
    struct transfer *t = (struct transfer *)j;

    /* A wildcard that matched nothing is an error (exit 1), as ls says for a prefix. */
    if (t->pattern && !t->matched && engine_rc != S3C_ECANCEL && !j->n.failed && !j->n.warned) {
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
    transfer_walk_close(t);
    filter_release(&t->filter);
    free(t->filter_root);
    lister_close(&t->lister);
    manifest_free(t->manifest);
    buf_release(&t->mkey);
    buf_release(&t->metag);
    free(t->prefix);
    while (t->dels) {
        struct pending_del *d = t->dels;
        t->dels = d->next;
        free(d->key);
        free(d);
    }
    s3_uri_release(&t->su);
    s3_uri_release(&t->du);
    free(t);
}

static const struct job_ops transfer_ops = { job_next, on_done, job_start, job_finish, job_free };

enum s3c_err cp_job_new(struct cli_ctx *c, const char *verb, int argc, char **argv, struct job **out,
                        struct s3c_error *e)
{
    struct transfer *t = calloc(1, sizeof(*t));
    bool dryrun = false;
    const struct arg_spec specs[] = {
        { "--recursive", "-r", ARG_BOOL, &t->recursive },
        { "--dryrun", NULL, ARG_BOOL, &dryrun },
        { "--no-overwrite", NULL, ARG_BOOL, &t->no_overwrite },
        { "--no-clobber", "-n", ARG_BOOL, &t->no_clobber },
        { "--if-size-differ", NULL, ARG_BOOL, &t->if_size_differ },
        { "--if-source-newer", NULL, ARG_BOOL, &t->if_source_newer },
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
    t->mkey = (struct buf)BUF_INIT(MANIFEST_LINE_MAX);
    t->metag = (struct buf)BUF_INIT(4096);
    rc = args_parse(verb, specs, argc, argv, t->pos, 2, &t->n_pos, e);
    t->base.dryrun = dryrun;
    if (!rc)
        rc = setup_ends(t, t->n_pos, t->pos, e);
    if (!rc && t->from_manifest && (!t->src_s3 || !t->su.bucket[0]))
        rc = s3c_fail(e, S3C_EUSAGE, "%s: --from-manifest needs an S3 source (s3://BUCKET[/PREFIX]) for its keys", verb);
    if (!rc)
        rc = objopts_parse(verb, &t->oa, &t->oo, e);
    if (!rc)
        rc = objopts_express_check(verb, &t->oo, t->src_s3 ? t->su.bucket : NULL, t->dst_s3 ? t->du.bucket : NULL, e);
    if (!rc)
        rc = job_knobs_parse(&t->base, &t->knob_args, e);
    if (rc) {
        job_free(&t->base);
        return rc;
    }
    /* -n is checked before each transfer; If-None-Match: * closes the race for uploads. */
    t->oo.no_overwrite = t->no_overwrite || (t->no_clobber && t->dst_s3);
    t->base.reads_only = !t->dst_s3 && strcmp(verb, "mv") != 0;
    if (t->op == XFER_DOWNLOAD && !strcmp(t->dst_arg, "-") && !dryrun)
        out_stdout_is_data(); /* the object's bytes go there: nothing else may */
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

/* ---- local trees (plan/walk) ------------------------------------------------------- */

static enum s3c_err transfer_walk_open(struct transfer *t, struct s3c_error *e)
{
    struct walk_opts wo = WALK_OPTS_INIT;
    struct buf dir = BUF_INIT(65536);

    wo.follow_symlinks = !t->no_follow_symlinks;
    if (t->pattern) {
        if (wild_prefix_dir(t->pattern, &dir))
            return s3c_fail(e, S3C_ENOMEM, "path too long");
        t->walk_match = strdup(buf_cstr(&dir));
        t->walk_root = strdup(dir.len ? buf_cstr(&dir) : ".");
    } else {
        t->walk_match = strdup("");
        t->walk_root = strdup(t->src_arg);
    }
    buf_release(&dir);
    if (!t->walk_match || !t->walk_root)
        return s3c_fail(e, S3C_ENOMEM, "out of memory");
    wo.tmp_of = job_tmp_of;
    t->walk = walk_open(t->walk_root, &wo, e);
    if (!t->walk)
        return e->code ? e->code : S3C_EIO;
    if (!t->pattern && !walk_root_is_dir(t->walk))
        return s3c_fail(e, S3C_EUSAGE, "%s: %s is not a directory (drop --recursive for one file)", t->base.verb, t->src_arg);
    return S3C_OK;
}

static int transfer_walk_next(struct transfer *t, struct xfer_obj **out)
{
    for (;;) {
        struct walk_entry we;
        struct s3c_error e = S3C_ERROR_INIT;
        struct buf path = BUF_INIT(65536), match = BUF_INIT(65536);
        struct buf dst = BUF_INIT(65536), shown_dst = BUF_INIT(65536);
        struct xfer_obj *o = NULL;
        struct sv rel;
        enum s3c_err rc = walk_next(t->walk, &we, &e);

        if (rc) {
            /* One entry failed (unreadable, loop...): skipped, the rest goes on. */
            char shown[65536];
            snprintf(shown, sizeof(shown), "%s/%.*s", t->walk_root, (int)we.rel.n, we.rel.p);
            e.code = S3C_ESKIPPED;
            skip_with_error(t, shown, t->dst_arg, &e);
            continue;
        }
        if (we.kind == WALK_END)
            return 0;
        if (we.kind == WALK_SPECIAL) {
            /* A FIFO, a device, a socket: skipped (exit 2), as the AWS CLI skips them. */
            char shown[65536];
            snprintf(shown, sizeof(shown), "%s/%.*s", t->walk_root, (int)we.rel.n, we.rel.p);
            s3c_fail(&e, S3C_ESKIPPED, "not a regular file (a device, a FIFO or a socket)");
            skip_with_error(t, shown, t->dst_arg, &e);
            continue;
        }
        rel = we.rel;
        if (t->pattern) {
            buf_adds(&match, t->walk_match);
            buf_addsv(&match, we.rel);
            if (!wild_match(t->pattern, buf_sv(&match))) {
                buf_release(&match);
                continue;
            }
            t->matched++;
            rel = wild_relative(t->pattern, buf_sv(&match));
        }
        if ((!filter_empty(&t->filter) && !filter_accept(&t->filter, t->filter_root, rel)) ||
            !job_owns(&t->base, rel)) {
            buf_release(&match);
            continue;
        }
        buf_adds(&path, t->walk_root);
        if (path.len && path.data[path.len - 1] != '/')
            buf_addc(&path, '/');
        buf_addsv(&path, we.rel);
        {
            char *relz = sv_dup(rel);
            if (!relz || dst_for(t, relz, &dst, &shown_dst, &e))
                skip_with_error(t, buf_cstr(&path), t->dst_arg, &e);
            else
                o = obj_make(t, buf_cstr(&path), buf_cstr(&dst), buf_cstr(&path), buf_cstr(&shown_dst));
            free(relz);
        }
        buf_release(&path);
        buf_release(&match);
        buf_release(&dst);
        buf_release(&shown_dst);
        if (!o)
            continue;
        o->size = we.size_bytes;
        o->size_known = true;
        o->mtime = we.mtime_sec;
        ((struct shown *)o->user)->size = we.size_bytes;
        *out = o;
        return 1;
    }
}

static void transfer_walk_close(struct transfer *t)
{
    walk_close(t->walk);
    t->walk = NULL;
    free(t->walk_root);
    free(t->walk_match);
}
