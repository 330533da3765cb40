/*
 * sync: make a destination (a local directory or an S3 prefix) hold what
 * the source holds, as `aws s3 sync` does, in all three directions
 * (local -> S3, S3 -> local, S3 -> S3).
 *
 * Each end is a sorted stream of entries (a local walk or an S3 listing,
 * as cli/objsrc.h gives every verb); plan/merge.h merges the two and decides per
 * key: copy (missing, other size, or newer by the AWS CLI's rules), skip,
 * or, with --delete, delete. An entry whose ends have the same size and
 * the same second is copied unless a checksum proves them the same, which
 * the engine looks for before it copies (xfer_obj.same_second: nothing of
 * it on the loop; a dry run looks in place). Copies and S3 deletes become
 * engine objects (the engine batches deletes 1,000 keys a DeleteObjects); so the job (see
 * cli/job.h) never holds more than a listing page, a directory level and
 * the engine's queue, whatever the size of the trees. A side that does not
 * come sorted (an S3 Express directory bucket, "--x-s3") goes through an
 * external sort first (plan/xsort.h). S3C_SYNC_SORT_BUDGET=BYTES in the
 * environment sends every side through the external sort with that memory
 * budget: a test hook, so the path runs against stores that list sorted.
 *
 * Filters apply to both ends, so what --exclude protects is neither copied
 * nor deleted. What the source walk cannot read (a file, or a directory
 * and everything under it) is reported and never deleted at the
 * destination.
 *
 * Result lines are the AWS CLI's: "upload: ./a to s3://b/a", "download:
 * s3://b/a to a", "copy: s3://b/a to s3://c/a", "delete: s3://c/x",
 * "delete: ./x", each after "(dryrun) " with --dryrun. Local paths are
 * shown relative to the working directory, as the CLI shows them.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "cli/args.h"
#include "cli/cmd.h"
#include "cli/job.h"
#include "cli/objopts.h"
#include "cli/objsrc.h"
#include "cli/output.h"
#include "base/hash.h"
#include "base/md5.h"
#include "fs/path.h"
#include "plan/filter.h"
#include "plan/merge.h"
#include "plan/wild.h"
#include "plan/xsort.h"
#include "s3/uri.h"
#include "store/store_fs.h"
#include "xfer/samesec.h"

#define NAME_MAX_BYTES 65536    /* a shown name or a path built from a rel */

struct sync;

/* One end of the sync, as a merge_next_fn. */
struct side {
    struct sync *s;
    bool is_src;
    bool s3;
    const char *arg;            /* as given on the command line */
    char *bucket;               /* S3 */
    char *root;                 /* S3: the listing prefix ("" or ending in '/'); local: the directory */
    char *shown_root;           /* what result lines put before a rel: "s3://b/p/", "dir/" or "" */
    char *filter_root;          /* the AWS CLI's filter root for this end */
    const char *pattern;        /* the source: its wildcard (s5cmd's "s3://b/p/STAR.gz", "dir/STAR.txt"),
                                   whole as given; NULL when it names a prefix or a directory */
    char *lit;                  /* a local source without a wildcard, its escapes removed */
    const char *match_rel;      /* the destination, when the source is a wildcard: the pattern's part
                                   after its literal directory, which the destination's rels must match */
    struct objsrc src;          /* its entries: a walk, a listing, a manifest, or none (a new local destination) */
    struct xsort *sorted;       /* not NULL: the merge reads this instead */
    bool filling;               /* 'sorted' is filled by sync_next (on the engine), not at start */
};

/* Names for result lines, owned by the object (xfer_obj.user). */
struct shown {
    char *src;
    char *dst;
    uint64_t size;
};

struct sync {
    struct job base;            /* verb "sync"; counts; knobs */
    /* Flags. */
    bool size_only, exact_timestamps, delete, follow_symlinks, no_follow_symlinks, raw;
    bool checksum;                  /* --checksum: content decides, where a checksum says */
    uint64_t by_time;               /* --checksum: entries no checksum could compare (size and time did) */
    const char *from_manifest;
    struct job_knob_args knob_args;
    struct objopts_args oa;
    struct xfer_obj_opts oo;
    struct arg_list filters;
    int n_pos;
    const char *pos[2];
    /* The two ends. */
    struct s3_uri su, du;
    enum xfer_op op;
    struct store_s3 *s3;
    struct side src, dst;
    struct filter filter;
    struct merge m;
    bool merging, ended;
    char op_name[4096];         /* "sync SRC DST", for error lines */
};

/* ---- names and result lines --------------------------------------------------------- */

static void shown_free(struct shown *sh)
{
    if (!sh)
        return;
    free(sh->src);
    free(sh->dst);
    free(sh);
}

/*
 * The AWS CLI's relative_path(): 'abs' (absolute, normalised) relative to
 * the working directory, "." for the directory itself. Into 'out'.
 */
static enum s3c_err rel_to_cwd(const char *abs, struct buf *out, struct s3c_error *e)
{
    char cwd[PATH_MAX];
    const char *a = abs, *c = cwd;
    size_t common_c = 0;
    bool first = true;

    if (!getcwd(cwd, sizeof(cwd)))
        return s3c_fail_errno(e, errno, "cannot read the working directory");
    /* Walk both paths component by component while they agree. */
    for (;;) {
        const char *ae, *ce;
        while (*a == '/')
            a++;
        while (*c == '/')
            c++;
        ae = a + strcspn(a, "/");
        ce = c + strcspn(c, "/");
        if (ae == a || ce == c || ae - a != ce - c || memcmp(a, c, (size_t)(ae - a)) != 0)
            break;
        a = ae;
        c = ce;
        common_c = (size_t)(c - cwd);
    }
    /* One ".." per component of the working directory left over. */
    for (c = cwd + common_c; *c;) {
        while (*c == '/')
            c++;
        if (!*c)
            break;
        c += strcspn(c, "/");
        if (buf_adds(out, first ? ".." : "/.."))
            return s3c_fail(e, S3C_ENOMEM, "path too long");
        first = false;
    }
    while (*a == '/')
        a++;
    if (*a && ((!first && buf_addc(out, '/')) || buf_adds(out, a)))
        return s3c_fail(e, S3C_ENOMEM, "path too long");
    if (!out->len && buf_addc(out, '.'))
        return s3c_fail(e, S3C_ENOMEM, "path too long");
    return S3C_OK;
}

/* What a result line shows for 'rel' at this end (the CLI's "./a" for a file right in the working directory). */
static enum s3c_err shown_name(const struct side *sd, struct sv rel, struct buf *out)
{
    if (!sd->s3 && !sd->shown_root[0] && !memchr(rel.p, '/', rel.n) && buf_adds(out, "./"))
        return S3C_ENOMEM;
    if (buf_adds(out, sd->shown_root) || buf_addsv(out, rel))
        return S3C_ENOMEM;
    return S3C_OK;
}

/* The S3 key or local path of 'rel' at this end. */
static enum s3c_err path_of(const struct side *sd, struct sv rel, struct buf *out, struct s3c_error *e)
{
    enum s3c_err rc;

    if (sd->s3) {
        if (buf_adds(out, sd->root) || buf_addsv(out, rel))
            return s3c_fail(e, S3C_ENOMEM, "key too long");
        return S3C_OK;
    }
    /* Names from S3 may try to leave the directory ("../x"): refused here,
     * skipped as the AWS CLI skips them (exit 2 when nothing failed). */
    rc = path_join_safe(sd->root, rel, out, e);
    if (rc == S3C_EUSAGE)
        rc = e->code = S3C_ESKIPPED;
    return rc;
}

static const char *op_word(enum xfer_op op)
{
    switch (op) {
    case XFER_UPLOAD: return "upload";
    case XFER_DOWNLOAD: return "download";
    case XFER_COPY: return "copy";
    case XFER_DELETE: return "delete";
    case XFER_RESTORE: return "restore";
    }
    return "copy";
}

/* One result line (or JSON record, or error line); 'dst' NULL for a delete. */
static void report(struct sync *s, enum xfer_op op, const char *src, const char *dst, uint64_t size,
                   const struct s3c_error *e)
{
    struct out_result r = { op_word(op), src, dst, size, op != XFER_DELETE, NULL, s->base.dryrun, false, NULL };

    out_result(&r, e);
}

/* A listing failed: the sync stops deciding (a "fatal error" line), counted. */
static void fail_line(struct sync *s, const struct s3c_error *e)
{
    struct out_result r = { "sync", s->src.arg, s->dst.arg, 0, false, NULL, false, true, NULL };

    out_result(&r, e);
    job_count(&s->base, (int)s->op, 0, e);
}

/* ---- the two ends as entry streams ------------------------------------------------ */

/*
 * The end's own stream, in the order it comes (objsrc.h): its entries as
 * merge entries. What the source walk cannot read is reported, skipped
 * (exit 2, as the AWS CLI's) and protected from --delete; what the
 * destination walk cannot read counts as absent.
 */
static int side_raw_next(void *ctx, struct merge_entry *out, struct s3c_error *e)
{
    struct side *sd = ctx;

    for (;;) {
        const struct objsrc_entry *en;
        struct s3c_error we_e = S3C_ERROR_INIT;
        enum objsrc_next r;
        struct buf name = BUF_INIT(NAME_MAX_BYTES);

        sd->src.later = sd->s->base.later_ok; /* on the engine: its loop brings the page */
        r = objsrc_next(&sd->src, &en, sd->src.kind == OBJSRC_WALK ? &we_e : e);
        if (r == OBJSRC_END)
            return 0;
        if (r == OBJSRC_LATER)
            return MERGE_NEXT_LATER;
        if (r == OBJSRC_FAILED)
            return -1;
        if (r == OBJSRC_BAD) {
            shown_name(sd, en->rel, &name);
            if (sd->is_src) {
                we_e.code = S3C_ESKIPPED;
                report(sd->s, sd->s->op, buf_cstr(&name), NULL, 0, &we_e);
                job_count(&sd->s->base, (int)sd->s->op, 0, &we_e);
            } else if (!en->special)
                out_warn("skipping %s: %s", buf_cstr(&name), we_e.msg);
            else
                out_warn("skipping %s: not a regular file", buf_cstr(&name));
            buf_release(&name);
            if (!sd->is_src)
                continue;
            /* Never delete what the source has but could not read. */
            memset(out, 0, sizeof(*out));
            out->kind = MERGE_PROTECT;
            out->rel = en->rel;
            return 1;
        }
        memset(out, 0, sizeof(*out));
        /* A key list's entry has no size or time: the copy HEADs it (head_source). */
        out->kind = en->has_attrs ? MERGE_FILE : MERGE_NAME;
        out->rel = en->rel;
        out->size = en->size;
        out->mtime = en->mtime;
        out->mtime_nsec = en->mtime_nsec;
        out->ctime = en->ctime;
        out->etag = sv_from(en->etag);
        out->archived = en->storage_class &&
                        (!strcmp(en->storage_class, "GLACIER") || !strcmp(en->storage_class, "DEEP_ARCHIVE"));
        return 1;
    }
}

/* S3 Express directory buckets list in no order. */
static bool directory_bucket(const char *bucket)
{
    return s3_bucket_is_express(bucket);
}

/* The memory budget of the external sort forced by the environment (test hook); 0: none. */
static size_t forced_sort_budget(void)
{
    const char *v = getenv("S3C_SYNC_SORT_BUDGET");
    char *end;
    unsigned long long n;

    if (!v || !*v)
        return 0;
    n = strtoull(v, &end, 10);
    return *end || !n ? 0 : (size_t)n;
}

/* Open one end: a walk, a listing, or nothing (a local destination not there yet). */
static enum s3c_err side_open(struct sync *s, struct side *sd, struct s3c_error *e)
{
    enum s3c_err rc;
    size_t budget = forced_sort_budget();
    struct objsrc_opts so;

    memset(&so, 0, sizeof(so));
    so.s3 = sd->is_src ? s->base.src_s3 : s->s3;
    so.job = &s->base;
    so.count_op = (int)s->op;
    so.arg = sd->arg;
    so.recursive = true;
    so.raw = !sd->is_src || s->raw; /* the source's wildcards and escapes; a destination is literal */
    so.match_rel = sd->match_rel;
    so.match_rel_path = sd->match_rel && !s->src.s3;
    so.from_manifest = sd->s3 && sd->is_src ? s->from_manifest : NULL;
    so.filter = &s->filter;
    so.filter_root = sd->filter_root;
    so.tell_filtered = sd->is_src; /* (a name kept out of both ends is told once) */
    /* "dir/" placeholders (0 bytes), as the AWS CLI skips them on both ends; with
     * --directory-markers they are entries at both ends, an empty local directory too. */
    so.dirs = s->oa.dir_markers ? OBJSRC_DIRS_MARKERS : OBJSRC_DIRS_SKIP_EMPTY;
    so.empty_dirs = s->oa.dir_markers;
    so.follow_symlinks = !s->no_follow_symlinks;
    /* A destination file is replaced, not read: no need to be able to read it. */
    so.check_readable = sd->is_src;
    /* A destination sees the temp files an interrupted download kept, so
     * --delete removes them; not with --resume, which continues them. Temp
     * files are known by what made them (job_tmp_of), never by their name. */
    so.tmp_files = !sd->is_src && !s->base.knobs.resume;
    so.missing_is_empty = !sd->is_src;
    so.page_size = s->base.knobs.page_size;
    so.list_v1 = s->base.c->g.list_v1;
    so.later = s->base.later_ok; /* started on the engine (run): a manifest's GET is not waited for */
    rc = objsrc_open(&sd->src, &so, e);
    if (rc == S3C_ENOTFOUND && sd->src.kind == OBJSRC_WALK)
        return s3c_fail(e, S3C_EUSAGE, "sync: the user-provided path %s does not exist", sd->arg);
    if (rc)
        return rc;
    if (sd->src.kind == OBJSRC_WALK && !objsrc_root_is_dir(&sd->src))
        return skip_not_a_dir(&s->base, sd->arg, (int)s->op, op_word(s->op)); /* reported: exit 2 */
    /* An inventory comes in no promised order; directory buckets list in none. */
    if (!budget && (sd->src.kind == OBJSRC_MANIFEST || (sd->src.kind == OBJSRC_LIST && directory_bucket(sd->bucket))))
        budget = XSORT_BUDGET_DEFAULT;
    if (!budget)
        return S3C_OK;
    sd->sorted = xsort_new(budget, NULL, e);
    if (!sd->sorted)
        return e->code;
    if (!s->base.later_ok)
        return xsort_add_all(sd->sorted, side_raw_next, sd, e); /* before the engine: all of it now */
    /* Started on the engine (a run file's line): the side is read in by sync_next, its pages
     * in flight, its batches sorted and written by the sorter's own thread. */
    xsort_background(sd->sorted);
    sd->filling = true;
    return S3C_OK;
}

/* Names of one end that do not depend on the store: roots, shown roots, filter roots. */
static enum s3c_err side_setup(struct sync *s, struct side *sd, const char *arg, bool is_src,
                               struct s3c_error *e)
{
    struct buf b = BUF_INIT(NAME_MAX_BYTES), rel = BUF_INIT(NAME_MAX_BYTES);
    enum s3c_err rc;

    sd->s = s;
    sd->is_src = is_src;
    sd->arg = arg;
    sd->s3 = s3_uri_is(arg);
    if (is_src && !s->raw && !s->from_manifest && wild_has(sd->s3 ? s->su.key : arg))
        sd->pattern = sd->s3 ? s->su.key : arg;
    if (sd->pattern) {
        /* The literal directory before the wildcard is the root: rels are named under it, as
         * s5cmd names them (wild_relative), and the destination's rels must match the rest. */
        if (wild_prefix_dir(sd->pattern, &b))
            goto nomem;
        s->dst.match_rel = sd->pattern + wild_prefix_dir_len(sd->pattern);
    } else if (is_src && !s->raw) {
        /* No wildcard: the name it means, "\\*" a star, as objsrc reads it (wild_unescape). */
        if (sd->s3)
            wild_unescape(s->su.key);
        else if (!(arg = sd->lit = strdup(arg)))
            goto nomem;
        else
            wild_unescape(sd->lit);
    }
    if (sd->s3) {
        const struct s3_uri *u = is_src ? &s->su : &s->du;
        size_t kl = strlen(u->key);
        sd->bucket = strdup(u->bucket);
        if (!sd->pattern && (buf_adds(&b, u->key) || (kl && u->key[kl - 1] != '/' && buf_addc(&b, '/'))))
            goto nomem;
        sd->root = strdup(buf_cstr(&b));
        buf_reset(&b);
        if (buf_addf(&b, "s3://%s/%s", u->bucket, sd->root))
            goto nomem;
        sd->shown_root = strdup(buf_cstr(&b));
    } else {
        sd->root = strdup(!sd->pattern ? arg : b.len ? buf_cstr(&b) : ".");
    }
    buf_reset(&b);
    /* The absolute, normalised directory: the filter root, and the base of what lines show. */
    if (sd->pattern && sd->s3 ? buf_addf(&b, "s3://%s/%s", sd->bucket, sd->root) : buf_adds(&b, sd->pattern ? sd->root : arg))
        goto nomem;
    rc = filter_root(buf_cstr(&b), true, &rel, e);
    buf_reset(&b);
    if (!rc)
        rc = buf_addsv(&b, buf_sv(&rel));
    buf_reset(&rel);
    if (rc)
        goto out;
    sd->filter_root = strdup(buf_cstr(&b));
    if (!sd->s3) {
        rc = rel_to_cwd(buf_cstr(&b), &rel, e);
        if (rc)
            goto out;
        /* "." shows as "" (then "./a" or "d/a"); "dir" as "dir/". */
        if (!strcmp(buf_cstr(&rel), "."))
            buf_reset(&rel);
        else if (buf_addc(&rel, '/'))
            goto nomem;
        sd->shown_root = strdup(buf_cstr(&rel));
    }
    if (!sd->root || !sd->shown_root || !sd->filter_root || (sd->s3 && !sd->bucket))
        goto nomem;
    rc = S3C_OK;
    goto out;
nomem:
    rc = s3c_fail(e, S3C_ENOMEM, "out of memory");
out:
    buf_release(&b);
    buf_release(&rel);
    return rc;
}

static void side_close(struct side *sd)
{
    objsrc_close(&sd->src);
    xsort_free(sd->sorted);
    sd->sorted = NULL;
    free(sd->bucket);
    free(sd->root);
    free(sd->shown_root);
    free(sd->filter_root);
    free(sd->lit);
}

/* ---- what the merge decides, as objects and deletes ------------------------------------ */

/* A key list's entry has no size or time, or an entry's recorded mtime decides ('local', the file
 * it goes to: *says compares them), in a dry run (which sends nothing else): HEAD the source for
 * them here ('etag' keeps the ETag). Otherwise the engine HEADs it, in flight (xfer_obj.src_head). */
static enum s3c_err head_source(struct sync *s, struct merge_entry *en, struct buf *etag, const char *local,
                                enum xfer_recorded *says, struct s3c_error *e)
{
    struct buf key = BUF_INIT(NAME_MAX_BYTES);
    struct http_xfer x;
    enum s3c_err rc;
    struct sv v;

    memset(&x, 0, sizeof(x));
    rc = path_of(&s->src, en->rel, &key, e);
    if (!rc)
        rc = store_s3_head_sse_c(s->base.src_s3, s->src.bucket, buf_cstr(&key), s->oa.ssec_src ? s->oa.ssec_src : s->oa.ssec,
                                 &x, e);
    if (!rc) {
        if (http_resp_header(&x.resp, "content-length", &v))
            sv_to_u64(v, &en->size);
        if (http_resp_header(&x.resp, "last-modified", &v))
            http_date_parse(v, &en->mtime);
        if (http_resp_header(&x.resp, "etag", &v) && !buf_addsv(etag, v))
            en->etag = buf_sv(etag);
        en->kind = MERGE_FILE;
        *says = xfer_recorded_says(&x.resp, local);
    }
    http_xfer_release(&x);
    buf_release(&key);
    return rc;
}

/* An archived source entry the copy would fail on: skipped as the AWS CLI's sync (job_glacier_skip). */
static bool glacier_skip(struct sync *s, const struct merge_entry *en)
{
    struct buf ssh = BUF_INIT(NAME_MAX_BYTES);
    bool skip = false;

    if (s->src.s3 && !shown_name(&s->src, en->rel, &ssh))
        skip = job_glacier_skip(&s->base, (int)s->op, op_word(s->op), buf_cstr(&ssh), "GLACIER", NULL,
                                s->oa.force_glacier, s->oa.ignore_glacier);
    buf_release(&ssh);
    return skip;
}

/*
 * The engine object that copies 'en' from the source to the destination; NULL (reported) when it
 * cannot be. 'same' is the destination's entry when both have the same size and second
 * (MERGE_WHY_SAME_SECOND): the copy goes only when no checksum proves them the same.
 */
static struct xfer_obj *copy_obj(struct sync *s, const struct merge_entry *en_in, const struct merge_entry *same,
                                 enum merge_why why, struct s3c_error *e)
{
    struct merge_entry named = *en_in;
    const struct merge_entry *en = &named;
    struct buf etag = BUF_INIT(4096);
    bool recorded = why == MERGE_WHY_RECORDED || why == MERGE_WHY_RECORDED_COPY;
    enum xfer_recorded says = XFER_RECORDED_NONE;

    struct buf src = BUF_INIT(NAME_MAX_BYTES), dst = BUF_INIT(NAME_MAX_BYTES);
    struct buf ssh = BUF_INIT(NAME_MAX_BYTES), dsh = BUF_INIT(NAME_MAX_BYTES);
    struct xfer_obj *o = NULL;
    struct shown *sh = NULL;
    enum s3c_err rc = S3C_OK;

    if (shown_name(&s->src, en->rel, &ssh) || shown_name(&s->dst, en->rel, &dsh))
        rc = s3c_fail(e, S3C_ENOMEM, "name too long");
    else if (path_of(&s->src, en->rel, &src, e) || path_of(&s->dst, en->rel, &dst, e))
        rc = e->code;
    else if ((en->kind == MERGE_NAME || recorded) && s->base.dryrun)
        rc = head_source(s, &named, &etag, buf_cstr(&dst), &says, e);
    if (!rc) {
        o = xfer_obj_new(s->op);
        sh = calloc(1, sizeof(*sh));
        if (o && sh) {
            o->src = strdup(buf_cstr(&src));
            o->dst = strdup(buf_cstr(&dst));
            o->src_bucket = s->src.s3 ? strdup(s->src.bucket) : NULL;
            o->dst_bucket = s->dst.s3 ? strdup(s->dst.bucket) : NULL;
            o->size = en->size;
            o->size_known = en->kind != MERGE_NAME;
            o->src_head = en->kind == MERGE_NAME; /* the engine HEADs it first (check.c) */
            /* The listing's times cannot decide: the mtime the object records does (merge.h,
             * "Recorded mtimes"), from the HEAD the engine sends first. */
            if (recorded && !s->base.dryrun) {
                o->src_head = o->mtime_check = true;
                o->mtime_check_copies = why == MERGE_WHY_RECORDED_COPY;
            }
            /* A dry run's HEAD decided here: skipped (sync_next), nothing touched. */
            o->dst_skipped = recorded && s->base.dryrun &&
                             (says == XFER_RECORDED_SAME || (says == XFER_RECORDED_NONE && why == MERGE_WHY_RECORDED));
            /* Downloads stamp the mtime the object records, else LastModified, on the file, so that
             * the next sync finds nothing to do (plan/merge.h, "Recorded mtimes"). */
            o->mtime = en->mtime;
            o->dir_marker = s->op == XFER_UPLOAD && sv_is_dir(en->rel);
            o->etag = en->etag.n ? sv_dup(en->etag) : NULL;
            o->opts = &s->oo;
            if (same && (o->same_second = calloc(1, sizeof(*o->same_second)))) {
                o->same_second->dst_etag = same->etag.n ? sv_dup(same->etag) : NULL;
                o->same_second->part_size = s->base.knobs.part_size;
                o->same_second->by_content = why == MERGE_WHY_CHECKSUM || why == MERGE_WHY_CHECKSUM_TIME;
                o->same_second->by_time_copies = why == MERGE_WHY_CHECKSUM_TIME;
            }
            sh->src = strdup(buf_cstr(&ssh));
            sh->dst = strdup(buf_cstr(&dsh));
            sh->size = en->size;
        }
        if (!o || !sh || !o->src || !o->dst || (s->src.s3 && !o->src_bucket) || (s->dst.s3 && !o->dst_bucket) ||
            (en->etag.n && !o->etag) || (same && (!o->same_second || (same->etag.n && !o->same_second->dst_etag))) ||
            !sh->src || !sh->dst)
            rc = s3c_fail(e, S3C_ENOMEM, "out of memory");
    }
    if (rc) {
        /* A name refused (a key that would leave the directory...): report it, go on with the rest. */
        report(s, s->op, buf_cstr(&ssh), buf_cstr(&dsh), en->size, e);
        shown_free(sh);
        xfer_obj_free(o);
        o = NULL;
    } else {
        o->user = sh;
    }
    buf_release(&src);
    buf_release(&dst);
    buf_release(&ssh);
    buf_release(&dsh);
    buf_release(&etag);
    return o;
}

/* A directory marker of the source (--directory-markers): its directory at the destination. */
static void make_dir(struct sync *s, const struct merge_entry *en)
{
    struct buf path = BUF_INIT(NAME_MAX_BYTES), shown = BUF_INIT(NAME_MAX_BYTES);
    struct s3c_error e = S3C_ERROR_INIT;

    shown_name(&s->dst, en->rel, &shown);
    if (path_of(&s->dst, en->rel, &path, &e) || (!s->base.dryrun && fs_mkdir_parents(buf_cstr(&path), &e))) {
        report(s, XFER_DOWNLOAD, buf_cstr(&shown), NULL, 0, &e);
        job_count(&s->base, XFER_DOWNLOAD, 0, &e);
    }
    buf_release(&path);
    buf_release(&shown);
}

/* Delete a local file the source does not have (or an empty directory, --directory-markers). */
static void delete_local(struct sync *s, const struct merge_entry *en)
{
    struct buf path = BUF_INIT(NAME_MAX_BYTES), shown = BUF_INIT(NAME_MAX_BYTES);
    struct s3c_error e = S3C_ERROR_INIT;

    shown_name(&s->dst, en->rel, &shown);
    if (path_of(&s->dst, en->rel, &path, &e)) {
        report(s, XFER_DELETE, buf_cstr(&shown), NULL, 0, &e);
        job_count(&s->base, XFER_DELETE, 0, &e);
    } else if (s->base.dryrun) {
        report(s, XFER_DELETE, buf_cstr(&shown), NULL, 0, NULL);
    } else if ((sv_is_dir(en->rel) ? rmdir(buf_cstr(&path)) : unlink(buf_cstr(&path))) != 0 &&
               errno != ENOENT) {
        s3c_fail_errno(&e, errno, "cannot delete %s", buf_cstr(&shown));
        report(s, XFER_DELETE, buf_cstr(&shown), NULL, 0, &e);
        job_count(&s->base, XFER_DELETE, 0, &e);
    } else {
        report(s, XFER_DELETE, buf_cstr(&shown), NULL, 0, NULL);
        job_count(&s->base, XFER_DELETE, 0, NULL);
    }
    buf_release(&path);
    buf_release(&shown);
}

/*
 * A key the source does not have, as an engine delete: the engine batches
 * deletes into DeleteObjects requests of 1,000 keys, several in flight, each
 * key with the ETag it was listed with, so that one written again since the
 * listing is kept (where the store checks: xfer/delete.c).
 * NULL (reported) when it cannot be made.
 */
static struct xfer_obj *delete_remote(struct sync *s, const struct merge_entry *en)
{
    struct buf key = BUF_INIT(NAME_MAX_BYTES), shown = BUF_INIT(NAME_MAX_BYTES);
    struct s3c_error e = S3C_ERROR_INIT;
    struct xfer_obj *o = NULL;
    struct shown *sh = NULL;

    if (path_of(&s->dst, en->rel, &key, &e) || shown_name(&s->dst, en->rel, &shown)) {
        if (!e.code)
            s3c_fail(&e, S3C_ENOMEM, "name too long");
        goto fail;
    }
    o = xfer_obj_new(XFER_DELETE);
    sh = calloc(1, sizeof(*sh));
    if (o && sh) {
        o->src = strdup(buf_cstr(&key));
        o->src_bucket = strdup(s->dst.bucket);
        o->opts = &s->oo;       /* --request-payer */
        sh->src = strdup(buf_cstr(&shown));
        /* Only what was listed: a key written again since is kept (the engine's conditional deletes). */
        if (en->etag.n)
            o->etag = strndup(en->etag.p, en->etag.n);
    }
    if (!o || !sh || !o->src || !o->src_bucket || !sh->src || (en->etag.n && !o->etag)) {
        s3c_fail(&e, S3C_ENOMEM, "out of memory");
        goto fail;
    }
    o->user = sh;
    buf_release(&key);
    buf_release(&shown);
    return o;
fail:
    report(s, XFER_DELETE, shown.len ? buf_cstr(&shown) : s->dst.arg, NULL, 0, &e);
    job_count(&s->base, XFER_DELETE, 0, &e);
    shown_free(sh);
    xfer_obj_free(o);
    buf_release(&key);
    buf_release(&shown);
    return NULL;
}

/* ---- the same second: a checksum decides ----------------------------------------------- */

/*
 * MERGE_WHY_SAME_SECOND: the entry is copied unless a checksum proves both
 * ends hold the same bytes (xfer/samesec.h says which and in what order).
 * The engine proves it before the copy starts, nothing of it on its loop
 * (xfer_obj.same_second); a dry run, which runs on no engine and sends
 * nothing else, proves it here, in place, with the same plan: its file read
 * with read(), its HEADs sent and waited for (store_s3_head_ck), as the
 * source of a key list is HEADed here in a dry run (head_source).
 */

/* A dry run's hash step of the plan: 'path' read to its end (a size that changed is no proof). */
static enum samesec_step dry_hash(const char *path, struct samesec *p)
{
    static unsigned char chunk[1 << 20];
    struct s3c_error e = S3C_ERROR_INIT;
    struct md5 one, all;
    unsigned char d[MD5_LEN];
    uint64_t total = 0, in_part = 0, crc = 0, size = 0;
    ssize_t got;
    int fd = -1;

    if (fs_open_read(path, &fd, &size, NULL, &e))
        return SAMESEC_COPY;
    md5_init(&one);
    md5_init(&all);
    while ((got = read(fd, chunk, sizeof(chunk))) != 0) {
        size_t at = 0;

        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            break;
        total += (uint64_t)got;
        if (p->step == SAMESEC_CRC)
            crc = ck_update(p->crc_algo, crc, chunk, (size_t)got);
        else if (p->step == SAMESEC_MD5)
            md5_update(&one, chunk, (size_t)got);
        while (p->step == SAMESEC_PARTS && at < (size_t)got) {
            size_t n = (size_t)got - at;

            if (n > p->part_size - in_part)
                n = (size_t)(p->part_size - in_part);
            md5_update(&one, chunk + at, n);
            at += n;
            in_part += n;
            if (in_part == p->part_size) {
                md5_final(&one, d);
                md5_update(&all, d, MD5_LEN);
                in_part = 0;
            }
        }
    }
    close(fd);
    if (got < 0 || total != p->size)
        return SAMESEC_COPY; /* unreadable, or it changed while read: no proof */
    if (p->step == SAMESEC_CRC)
        return samesec_crc(p, crc);
    if (p->step == SAMESEC_MD5) {
        md5_final(&one, d);
        return samesec_md5(p, d);
    }
    if (in_part) {
        md5_final(&one, d);
        md5_update(&all, d, MD5_LEN);
    }
    md5_final(&all, d);
    return samesec_parts(p, d);
}

/* A dry run's proof that 'o' (same_second) need not be copied: true when both ends are the same. */
static bool dry_same_bytes(struct sync *s, const struct xfer_obj *o)
{
    const char *path = o->op == XFER_UPLOAD ? o->src : o->dst;
    struct s3c_error e = S3C_ERROR_INIT;
    struct samesec p;
    enum samesec_step step;
    uint64_t size = 0;
    int fd = -1;

    step = samesec_begin_obj(&p, o);
    /* As the engine: a local file that cannot be read proves nothing, and asks no HEAD. */
    if (o->op != XFER_COPY && step != SAMESEC_SAME && step != SAMESEC_COPY) {
        if (fs_open_read(path, &fd, &size, NULL, &e) || size != o->size)
            step = SAMESEC_COPY;
        if (fd >= 0)
            close(fd);
    }
    while (step != SAMESEC_SAME && step != SAMESEC_COPY && step != SAMESEC_UNKNOWN) {
        if (step == SAMESEC_HEAD_SRC || step == SAMESEC_HEAD_DST) {
            bool src = step == SAMESEC_HEAD_SRC;
            struct http_xfer x;
            bool ok;

            memset(&x, 0, sizeof(x));
            ok = !store_s3_head_ck(src ? s->base.src_s3 : s->s3, src ? o->src_bucket : o->dst_bucket, src ? o->src : o->dst,
                                   src && s->oa.ssec_src ? s->oa.ssec_src : s->oa.ssec, true, &x, &e);
            step = samesec_head(&p, ok ? &x.resp : NULL);
            http_xfer_release(&x);
        } else {
            step = dry_hash(path, &p);
        }
    }
    if (step == SAMESEC_UNKNOWN) {
        s->by_time++; /* --checksum, nothing to compare: size and time decide */
        return !o->same_second->by_time_copies;
    }
    return step == SAMESEC_SAME;
}

/* ---- the job ----------------------------------------------------------------------- */

static void start_failed(struct sync *s, enum s3c_err rc, const struct s3c_error *e);

/*
 * The sorted sides that side_open left to fill (on the engine): 0 once
 * both are in, XFER_NEXT_LATER while a page or a batch is out, XFER_NEXT_END
 * when one failed (told as sync_start tells it, a failed start).
 */
static int sides_fill(struct sync *s)
{
    struct side *sides[2] = { &s->src, &s->dst };
    int i, r;

    for (i = 0; i < 2; i++) {
        struct s3c_error e = S3C_ERROR_INIT;

        if (!sides[i]->filling)
            continue;
        r = xsort_fill(sides[i]->sorted, side_raw_next, sides[i], &e);
        if (r == MERGE_NEXT_LATER)
            return XFER_NEXT_LATER;
        sides[i]->filling = false;
        if (r < 0) {
            start_failed(s, e.code, &e);
            job_start_failed(&s->base, e.code);
            s->ended = true;
            return XFER_NEXT_END;
        }
    }
    return 0;
}

static int sync_next(struct job *j, struct xfer_obj **out)
{
    struct sync *s = (struct sync *)j;
    int r;

    if (!s->ended && (r = sides_fill(s)))
        return r;
    while (!s->ended) {
        struct merge_action a;
        struct s3c_error e = S3C_ERROR_INIT;

        if (merge_next(&s->m, &a, &e)) {
            /* A listing failed (or came unsorted): nothing more is decided, nothing deleted. */
            fail_line(s, &e);
            s->ended = true;
            break;
        }
        switch (a.act) {
        case MERGE_END:
            s->ended = true;
            break;
        case MERGE_LATER:
            return XFER_NEXT_LATER;
        case MERGE_SKIP:
            job_skip(j);
            break;
        case MERGE_KEEP:
            break;
        case MERGE_COPY_IT:
            if (a.src->archived && glacier_skip(s, a.src))
                break;
            if (s->op == XFER_DOWNLOAD && sv_is_dir(a.src->rel)) {
                make_dir(s, a.src); /* a directory marker: the directory, never a file */
                break;
            }
            /* The same second, or --checksum: the engine proves it (xfer_obj.same_second); a dry
             * run here. */
            *out = copy_obj(s, a.src,
                            a.why == MERGE_WHY_SAME_SECOND || a.why == MERGE_WHY_CHECKSUM ||
                                    a.why == MERGE_WHY_CHECKSUM_TIME
                                ? a.dst
                                : NULL,
                            a.why, &e);
            if (*out && j->dryrun && ((*out)->dst_skipped || ((*out)->same_second && dry_same_bytes(s, *out)))) {
                shown_free((*out)->user);
                xfer_obj_free(*out);
                *out = NULL;
                job_skip(j);
                break;
            }
            if (*out)
                return XFER_NEXT_ONE;
            job_count(j, (int)s->op, 0, &e);
            break;
        case MERGE_DELETE:
            /* A wildcard that matched nothing (a typo, a prefix gone) deletes nothing: it is an
             * error (sync_finish), not an empty source. */
            if (s->src.pattern && !s->src.src.matched)
                break;
            if (!s->dst.s3) {
                delete_local(s, a.dst);
                break;
            }
            *out = delete_remote(s, a.dst);
            if (*out)
                return XFER_NEXT_ONE;
            break;
        }
    }
    return XFER_NEXT_END;
}

static void sync_done(struct job *j, const struct xfer_obj *o, const struct s3c_error *e)
{
    struct sync *s = (struct sync *)j;
    struct shown *sh = o->user;
    struct s3c_error skip;

    if (!sh)
        return;
    if (o->same_second && o->same_second->by_time)
        s->by_time++;
    if (o->dst_skipped) {
        /* The same second, and a checksum proved both ends the same: nothing was written. */
        job_skip(j);
        shown_free(sh);
        return;
    }
    e = job_skip_unreadable(o, e, &skip);
    if (o->src_head && o->size_known)
        sh->size = o->size;
    if (j->dryrun) {
        report(s, o->op, sh->src, sh->dst, sh->size, NULL);
    } else {
        if (!(e && e->code == S3C_ECANCEL))
            report(s, o->op, sh->src, sh->dst, sh->size, e);
        if (!e && o->unproven && sh->dst)
            out_warn("%s: %s to %s is not verified: %s", s->op == XFER_UPLOAD ? "upload" : s->op == XFER_DOWNLOAD
                     ? "download" : "copy", sh->src, sh->dst, o->unproven);
        job_count(j, (int)o->op, o->op == XFER_DELETE ? 0 : sh->size, e);
    }
    shown_free(sh);
}

/* An end could not be opened or read in (side_open, sides_fill): told, unless it was already. */
static void start_failed(struct sync *s, enum s3c_err rc, const struct s3c_error *e)
{
    struct out_result r = { "sync", s->src.arg, s->dst.arg, 0, false, NULL, false, true, NULL };

    if (rc == S3C_ESKIPPED)
        return; /* told already */
    if (rc == S3C_EUSAGE)
        out_usage_error(e);
    else
        out_result(&r, e);
}

static enum s3c_err sync_start(struct job *j)
{
    struct sync *s = (struct sync *)j;
    struct s3c_error e = S3C_ERROR_INIT;
    struct merge_opts mo;
    enum s3c_err rc;

    s->s3 = cli_s3(j->c, &e);
    if (s->s3)
        j->src_s3 = objopts_source_store(&s->oa, j->c, "sync", s->src.s3 ? s->src.bucket : NULL,
                                         s->dst.s3 ? s->dst.bucket : NULL, &j->relay_copies, &e);
    if (!s->s3 || !j->src_s3) {
        if (e.code == S3C_EUSAGE)
            out_usage_error(&e);
        else
            out_error(s->op_name, &e);
        return e.code;
    }
    objopts_source_region(&s->oa, s->s3, s->src.s3 ? s->src.bucket : NULL, s->dst.s3 ? s->dst.bucket : NULL);
    if (j->src_s3 != s->s3)
        objopts_source_region(&s->oa, j->src_s3, s->src.bucket, s->dst.bucket);
    if (s->filters.n &&
        (rc = filter_add_list(&s->filter, s->filters.flag, s->filters.v, (size_t)s->filters.n, &e))) {
        out_usage_error(&e);
        return rc;
    }
    if ((rc = side_open(s, &s->src, &e)) || (rc = side_open(s, &s->dst, &e))) {
        start_failed(s, rc, &e);
        return rc;
    }
    memset(&mo, 0, sizeof(mo));
    mo.dir = s->op == XFER_UPLOAD ? MERGE_UPLOAD : s->op == XFER_DOWNLOAD ? MERGE_DOWNLOAD : MERGE_COPY;
    mo.size_only = s->size_only;
    mo.exact_timestamps = s->exact_timestamps;
    mo.checksum = s->checksum;
    mo.delete = s->delete;
    /* Downloads set the mtimes objects record (xfer/download.c): the merge then needs them too. */
    mo.recorded_mtime = s->op == XFER_DOWNLOAD && !s->oo.no_preserve && !s->checksum && !s->size_only;
    merge_init(&s->m, &mo, s->src.sorted ? xsort_next : side_raw_next,
               s->src.sorted ? (void *)s->src.sorted : (void *)&s->src,
               s->dst.sorted ? xsort_next : side_raw_next, s->dst.sorted ? (void *)s->dst.sorted : (void *)&s->dst);
    s->merging = true;
    return S3C_OK;
}

static enum s3c_err sync_finish(struct job *j, enum s3c_err engine_rc)
{
    struct sync *s = (struct sync *)j;

    /* A wildcard that matched nothing is an error (exit 1), as for cp; nothing was deleted. */
    if (s->src.pattern && s->merging && !s->src.src.matched && engine_rc != S3C_ECANCEL && !j->n.failed) {
        struct s3c_error e = S3C_ERROR_INIT;
        s3c_fail(&e, S3C_ENOMATCH, "no %s matches %s", s->src.s3 ? "object" : "file", s->src.arg);
        fail_line(s, &e);
    }

    if (s->by_time && out_warnings_shown())
        out_warn("sync --checksum: %llu %s no checksum to compare (no stored full-object CRC, no MD5 ETag); "
                 "size and time decided for %s", (unsigned long long)s->by_time,
                 s->by_time == 1 ? "object had" : "objects had", s->by_time == 1 ? "it" : "them");
    if (engine_rc == S3C_ECANCEL) {
        struct s3c_error e = S3C_ERROR_INIT;
        s3c_fail(&e, S3C_ECANCEL, "interrupted");
        job_count(j, (int)s->op, 0, &e);
        j->n.first_error = S3C_ECANCEL;
    }
    return job_result(j);
}

static void sync_free(struct job *j)
{
    struct sync *s = (struct sync *)j;

    if (!s)
        return;
    if (s->merging)
        merge_release(&s->m);
    side_close(&s->src);
    side_close(&s->dst);
    filter_release(&s->filter);
    s3_uri_release(&s->su);
    s3_uri_release(&s->du);
    free(s);
}

static const struct job_ops sync_ops = { sync_next, sync_done, sync_start, sync_finish, sync_free };

static enum s3c_err setup_ends(struct sync *s, struct s3c_error *e)
{
    const char *src = s->pos[0], *dst = s->pos[1];
    bool src_s3, dst_s3;
    enum s3c_err rc;

    if (s->n_pos != 2)
        return s3c_fail(e, S3C_EUSAGE, "sync: expected a source and a destination");
    src_s3 = s3_uri_is(src);
    dst_s3 = s3_uri_is(dst);
    if (!src_s3 && !dst_s3)
        return s3c_fail(e, S3C_EUSAGE, "sync: at least one of the paths must be s3://");
    if (!strcmp(src, "-") || !strcmp(dst, "-"))
        return s3c_fail(e, S3C_EUSAGE, "sync: \"-\" (standard input or output) works with cp only");
    if (src_s3 && (rc = s3_uri_parse(src, &s->su, e)))
        return rc;
    if (dst_s3 && (rc = s3_uri_parse(dst, &s->du, e)))
        return rc;
    if ((src_s3 && !s->su.bucket[0]) || (dst_s3 && !s->du.bucket[0]))
        return s3c_fail(e, S3C_EUSAGE, "sync: an S3 path must name a bucket");
    s->op = src_s3 && dst_s3 ? XFER_COPY : src_s3 ? XFER_DOWNLOAD : XFER_UPLOAD;
    if ((rc = side_setup(s, &s->src, src, true, e)) || (rc = side_setup(s, &s->dst, dst, false, e)))
        return rc;
    cli_op_name(s->op_name, sizeof(s->op_name), "sync", s->n_pos, s->pos);
    return S3C_OK;
}

enum s3c_err sync_job_new(struct cli_ctx *c, const char *verb, int argc, char **argv, struct job **out,
                          struct s3c_error *e)
{
    struct sync *s = calloc(1, sizeof(*s));
    bool dryrun = false;
    enum s3c_err rc;

    *out = NULL;
    if (!s)
        return s3c_fail(e, S3C_ENOMEM, "out of memory");
    {
        const struct arg_spec specs[] = {
            { "--dryrun", "--dry-run", ARG_BOOL, &dryrun },
            { "--delete", NULL, ARG_BOOL, &s->delete },
            { "--size-only", NULL, ARG_BOOL, &s->size_only },
            { "--exact-timestamps", NULL, ARG_BOOL, &s->exact_timestamps },
            { "--checksum", NULL, ARG_BOOL, &s->checksum },
            { "--follow-symlinks", NULL, ARG_BOOL, &s->follow_symlinks },
            { "--no-follow-symlinks", NULL, ARG_BOOL, &s->no_follow_symlinks },
            { "--raw", NULL, ARG_BOOL, &s->raw },
            { "--exclude", NULL, ARG_STR_LIST, &s->filters },
            { "--include", NULL, ARG_STR_LIST, &s->filters },
            OBJOPTS_SPECS(&s->oo, &s->oa),
            JOB_KNOB_SPECS(&s->knob_args),
            JOB_SHARD_SPEC(&s->knob_args),
            { "--from-manifest", NULL, ARG_STR, &s->from_manifest },
            { NULL, NULL, 0, NULL },
        };
        s->base.ops = &sync_ops;
        s->base.c = c;
        s->base.verb = verb;
        s->filter = (struct filter)FILTER_INIT;
        s->oo.request_payer = c->g.request_payer; /* s5cmd's global; the verb's flag wins */
        rc = args_parse(verb, specs, argc, argv, s->pos, 2, &s->n_pos, e);
    }
    s->base.dryrun = dryrun;
    if (!rc && s->checksum && s->size_only)
        rc = s3c_fail(e, S3C_EUSAGE, "sync: --checksum and --size-only contradict each other");
    if (!rc && s->follow_symlinks && s->no_follow_symlinks)
        rc = s3c_fail(e, S3C_EUSAGE, "sync: --follow-symlinks and --no-follow-symlinks contradict each other");
    if (!rc)
        rc = setup_ends(s, e);
    if (!rc && s->from_manifest && !s->src.s3)
        rc = s3c_fail(e, S3C_EUSAGE, "sync: --from-manifest lists the keys of an S3 source, not of %s", s->src.arg);
    if (!rc)
        rc = objopts_parse(verb, &s->oa, &s->oo, e);
    if (!rc)
        rc = objopts_express_check(verb, &s->oo, s3_uri_is(s->pos[0]) ? s->su.bucket : NULL,
                                   s3_uri_is(s->pos[1]) ? s->du.bucket : NULL, e);
    if (!rc)
        rc = job_knobs_parse(&s->base, &s->knob_args, e);
    s->base.reads_only = !rc && !s3_uri_is(s->pos[1]);
    if (rc) {
        sync_free(&s->base);
        return rc;
    }
    *out = &s->base;
    return S3C_OK;
}

enum s3c_err cmd_sync(struct cli_ctx *c, int argc, char **argv)
{
    struct s3c_error e = S3C_ERROR_INIT;
    struct job *j;
    enum s3c_err rc = sync_job_new(c, "sync", argc, argv, &j, &e);

    if (rc) {
        out_usage_error(&e);
        return rc;
    }
    rc = job_run(j);
    j->ops->free(j);
    return rc;
}
