/*
 * rm: delete S3 objects, as `aws s3 rm` and s5cmd `rm` do, as a job on the
 * engine (cli/job.h): every argument becomes a stream of XFER_DELETE
 * objects, which the engine batches into DeleteObjects requests of 1,000
 * keys, several in flight.
 *
 * Each argument is one of:
 *   s3://b/key              that key (deleting a missing key succeeds, as on S3)
 *   s3://b/pre --recursive  every key under "pre/" (the whole bucket for s3://b)
 *   s3://b/dir/STAR.log     every key the s5cmd wildcard matches (not with --raw)
 * (STAR stands for '*', which cannot sit in this comment.)
 * --exclude/--include filter every argument (the AWS CLI's rules and roots,
 * as cp applies them). Several arguments may be given, in any mix.
 * --all-versions lists versions instead (ListObjectVersions) and deletes
 * each version and delete marker of the keys selected, as s5cmd does.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/args.h"
#include "cli/cmd.h"
#include "cli/job.h"
#include "cli/listing.h"
#include "cli/objopts.h"
#include "cli/output.h"
#include "plan/filter.h"
#include "plan/lister.h"
#include "plan/manifest.h"
#include "plan/wild.h"
#include "s3/uri.h"
#include "xfer/xfer.h"

enum rm_kind {
    RM_ONE,         /* one literal key */
    RM_LIST,        /* every listed key under a prefix (matching a pattern, if any) */
    RM_VERSIONS,    /* --all-versions: every version and delete marker of what is selected */
};

struct rm {
    struct job base;                /* verb "rm"; counts; knobs */
    struct store_s3 *s3;
    /* Flags. */
    bool recursive, raw, all_versions;
    const char *version_id;
    struct job_knob_args knob_args;
    struct arg_list filters;
    struct filter filter;
    struct xfer_obj_opts oo;        /* --request-payer */
    /* Arguments, all checked to be s3:// with a bucket before anything runs. */
    const char **args;
    int n_args;
    /* The argument being expanded. */
    int cur;
    bool open;
    enum rm_kind kind;
    struct s3_uri u;
    char *prefix;                   /* listing prefix */
    const char *pattern;            /* wildcard argument: keys must match it */
    uint64_t matched;               /* keys the pattern matched (none: an error) */
    char *filter_root;
    struct lister lister;
    bool lister_open;
    const char *from_manifest;      /* --from-manifest FILE: the keys to delete come from it */
    struct manifest *manifest;      /* RM_LIST from a manifest instead of the lister */
    bool one_given;                 /* RM_ONE: its object was yielded */
    struct listing versions;        /* RM_VERSIONS */
    struct buf vprefix;             /* the versions listing's prefix (a wildcard's literal part) */
    bool versions_open;
    bool versions_exact;            /* one key without --recursive: its versions only */
};

/* ---- result lines ------------------------------------------------------------------- */

static void report(struct rm *r, const struct xfer_obj *o, const struct s3c_error *e)
{
    struct out_result res = { "delete", o->user, NULL, 0, false, o->version_id, r->base.dryrun, false };

    out_result(&res, e);
}

static void rm_done(struct job *j, const struct xfer_obj *o, const struct s3c_error *e)
{
    struct rm *r = (struct rm *)j;

    if (j->dryrun) {
        report(r, o, NULL);
    } else {
        if (!(e && e->code == S3C_ECANCEL))
            report(r, o, e);
        job_count(j, XFER_DELETE, 0, e);
    }
    free(o->user);
}

/* A listing failed: one "fatal error" line (or record) for the argument, one failure. */
static void arg_failed(struct rm *r, const struct s3c_error *e)
{
    struct out_result res = { "rm", r->args[r->cur], NULL, 0, false, NULL, false, true };

    out_result(&res, e);
    job_count(&r->base, XFER_DELETE, 0, e);
}

/* ---- the stream of objects ---------------------------------------------------------- */

/* A listed key the listing kept from rm (outside the prefix, or unnamable): warned, skipped (exit 2). */
static void listed_skip(void *ctx, const char *key, enum listcheck_verdict why)
{
    struct rm *r = ctx;
    struct s3c_error e = S3C_ERROR_INIT;

    listing_warn_skip(r->u.bucket, key, why, &e);
    job_count(&r->base, XFER_DELETE, 0, &e);
}

static struct xfer_obj *obj_make(struct rm *r, const char *key, const char *version_id)
{
    struct xfer_obj *o = xfer_obj_new(XFER_DELETE);
    size_t n;
    char *shown;

    if (!o)
        return NULL;
    n = strlen(r->u.bucket) + strlen(key) + 8;
    shown = malloc(n);
    if (shown)
        snprintf(shown, n, "s3://%s/%s", r->u.bucket, key);
    o->user = shown;
    o->src = strdup(key);
    o->src_bucket = strdup(r->u.bucket);
    o->opts = &r->oo;
    if (version_id)
        o->version_id = strdup(version_id);
    if (!shown || !o->src || !o->src_bucket || (version_id && !o->version_id)) {
        free(o->user);
        xfer_obj_free(o);
        return NULL;
    }
    return o;
}

static void arg_close(struct rm *r)
{
    if (r->lister_open)
        lister_close(&r->lister);
    r->lister_open = false;
    manifest_free(r->manifest);
    r->manifest = NULL;
    if (r->versions_open)
        listing_close(&r->versions);
    r->versions_open = false;
    buf_release(&r->vprefix);
    s3_uri_release(&r->u);
    free(r->prefix);
    free(r->filter_root);
    r->prefix = r->filter_root = NULL;
    r->pattern = NULL;
    r->matched = 0;
    r->open = false;
    r->one_given = false;
}

/* Does 'key', listed or given, pass the filters? 'rel' is its name below the argument. */
static bool accepted(const struct rm *r, struct sv rel)
{
    if (!job_owns(&r->base, rel))
        return false;
    return filter_empty(&r->filter) || filter_accept(&r->filter, r->filter_root, rel);
}

/*
 * --all-versions: list the versions of what the argument selects. One key
 * without --recursive lists its key as a prefix and keeps that key only
 * (filtered by its name, as a single object is); a prefix or a wildcard
 * goes through the listing's own pattern and filters, as cp's names do.
 */
static enum s3c_err versions_open(struct rm *r, struct buf *b, struct s3c_error *e)
{
    struct listing_opts lo = { .bucket = r->u.bucket, .versions = true, .skip = listed_skip, .skip_ctx = r };
    bool wild = !r->raw && wild_has(r->u.key);
    enum s3c_err rc = S3C_OK;

    r->kind = RM_VERSIONS;
    r->vprefix = (struct buf)BUF_INIT(65536);
    r->versions_exact = !wild && !r->recursive;
    if (wild) {
        rc = listing_set_key(&lo, r->u.key, &r->vprefix, e);
    } else {
        size_t kl = strlen(r->u.key);
        if (buf_adds(&r->vprefix, r->u.key) ||
            (r->recursive && kl && r->u.key[kl - 1] != '/' && buf_addc(&r->vprefix, '/')))
            rc = s3c_fail(e, S3C_ENOMEM, "key too long");
        lo.prefix = buf_cstr(&r->vprefix);
    }
    if (!rc && !filter_empty(&r->filter)) {
        rc = filter_root(r->args[r->cur], r->recursive && !wild, b, e);
        if (!rc && !(r->filter_root = strdup(buf_cstr(b))))
            rc = s3c_fail(e, S3C_ENOMEM, "out of memory");
        if (!rc && !r->versions_exact) {
            lo.filter = &r->filter;
            lo.filter_root = r->filter_root;
        }
    }
    if (rc)
        return rc;
    listing_open(&r->versions, r->s3, &lo);
    r->versions_open = true;
    return S3C_OK;
}

/* The next version or delete marker of the open --all-versions argument: 1 with *out, 0 at the end. */
static int versions_next(struct rm *r, struct xfer_obj **out)
{
    const struct listing_entry *en;
    struct s3c_error e = S3C_ERROR_INIT;
    int got;

    while ((got = listing_next(&r->versions, &en, &e)) == 1) {
        if (en->kind == LISTING_PREFIX)
            continue;
        if (r->versions_exact) {
            const char *slash = strrchr(en->key, '/');
            if (strcmp(en->key, r->u.key) != 0 || !accepted(r, sv_from(slash ? slash + 1 : en->key)))
                continue;
        } else if (r->base.knobs.shard.n > 1) {
            /* The listing filtered already; the shard goes by the same relative name. */
            struct sv k = sv_from(en->key), rel;
            if (!r->raw && wild_has(r->u.key))
                rel = wild_relative(r->u.key, k);
            else
                rel = k.n >= r->vprefix.len ? (struct sv){ k.p + r->vprefix.len, k.n - r->vprefix.len } : k;
            if (!job_owns(&r->base, rel))
                continue;
        }
        *out = obj_make(r, en->key, en->version_id[0] ? en->version_id : "null");
        if (*out)
            return 1;
        s3c_fail(&e, S3C_ENOMEM, "out of memory");
        got = -1;
        break;
    }
    if (got < 0)
        arg_failed(r, &e);
    return 0;
}

/* Start expanding argument r->cur. Errors are reported (and counted) here. */
static enum s3c_err arg_open(struct rm *r)
{
    const char *arg = r->args[r->cur];
    struct s3c_error e = S3C_ERROR_INIT;
    struct buf b = BUF_INIT(65536);
    enum s3c_err rc;

    rc = s3_uri_parse(arg, &r->u, &e);
    if (rc)
        goto fail;
    r->open = true;
    if (r->all_versions) {
        rc = versions_open(r, &b, &e);
        if (rc)
            goto fail;
        buf_release(&b);
        return S3C_OK;
    }
    if (!r->raw && wild_has(r->u.key)) {
        r->kind = RM_LIST;
        r->pattern = r->u.key;
        rc = wild_prefix(r->pattern, &b);
    } else if (r->recursive || r->from_manifest) {
        size_t kl = strlen(r->u.key);
        r->kind = RM_LIST;
        rc = buf_adds(&b, r->u.key);
        if (!rc && kl && r->u.key[kl - 1] != '/')
            rc = buf_addc(&b, '/');
    } else {
        r->kind = RM_ONE;
    }
    if (!rc && r->kind == RM_LIST && !(r->prefix = strdup(buf_cstr(&b))))
        rc = S3C_ENOMEM;
    if (rc) {
        s3c_fail(&e, rc, "out of memory");
        goto fail;
    }
    if (!filter_empty(&r->filter)) {
        buf_reset(&b);
        /* A wildcard's names are relative to its literal directory, as a single key's are. */
        rc = filter_root(arg, r->recursive && !r->pattern, &b, &e);
        if (rc)
            goto fail;
        r->filter_root = strdup(buf_cstr(&b));
        if (!r->filter_root) {
            rc = s3c_fail(&e, S3C_ENOMEM, "out of memory");
            goto fail;
        }
    }
    if (r->kind == RM_LIST && r->from_manifest) {
        r->manifest = manifest_open(r->from_manifest, r->s3, &e);
        if (!r->manifest) {
            rc = e.code;
            goto fail;
        }
    } else if (r->kind == RM_LIST) {
        rc = lister_open(&r->lister, r->s3, r->u.bucket, r->prefix, listed_skip, r, &e);
        if (rc)
            goto fail;
        r->lister_open = true;
    }
    buf_release(&b);
    return S3C_OK;
fail:
    buf_release(&b);
    arg_failed(r, &e);
    arg_close(r);
    return rc;
}

/* The next key under the argument's prefix: listed, or from --from-manifest. */
static int rm_source_next(struct rm *r, const struct s3_object **out, struct s3c_error *e)
{
    static struct s3_object one;
    size_t pl = strlen(r->prefix);

    if (!r->manifest)
        return lister_next(&r->lister, out, e);
    for (;;) {
        struct manifest_entry me;
        int got = manifest_next(r->manifest, &me, e);

        if (got <= 0)
            return got;
        if ((me.bucket[0] && strcmp(me.bucket, r->u.bucket) != 0) || strncmp(me.key, r->prefix, pl) != 0 ||
            !me.key[pl])
            continue;
        memset(&one, 0, sizeof(one));
        one.key = me.key;   /* valid until the next manifest_next: obj_make copies it */
        *out = &one;
        return 1;
    }
}

/* The next object of the open argument: 1 with *out, 0 when it has no more. */
static int arg_next(struct rm *r, struct xfer_obj **out)
{
    const struct s3_object *so;
    struct s3c_error e = S3C_ERROR_INIT;
    int got;

    if (r->kind == RM_VERSIONS)
        return versions_next(r, out);
    if (r->kind == RM_ONE) {
        const char *slash = strrchr(r->u.key, '/');
        if (r->one_given)
            return 0;
        r->one_given = true;
        if (!accepted(r, sv_from(slash ? slash + 1 : r->u.key)))
            return 0;
        *out = obj_make(r, r->u.key, r->version_id);
        if (!*out) {
            s3c_fail(&e, S3C_ENOMEM, "out of memory");
            arg_failed(r, &e);
            return 0;
        }
        return 1;
    }
    while ((got = rm_source_next(r, &so, &e)) == 1) {
        size_t kl = strlen(so->key);
        struct sv rel = sv_from(so->key + strlen(r->prefix));

        if (r->pattern) {
            if (!wild_match(r->pattern, (struct sv){ so->key, kl }))
                continue;
            r->matched++;
            rel = wild_relative(r->pattern, (struct sv){ so->key, kl });
        }
        if (!accepted(r, rel))
            continue;
        *out = obj_make(r, so->key, NULL);
        if (*out)
            return 1;
        s3c_fail(&e, S3C_ENOMEM, "out of memory");
        got = -1;
        break;
    }
    if (got < 0) {
        arg_failed(r, &e);
    } else if (r->pattern && !r->matched) {
        /* A wildcard that matched nothing is an error (exit 1), as for cp. */
        s3c_fail(&e, S3C_ENOMATCH, "no object matches %s", r->args[r->cur]);
        arg_failed(r, &e);
    }
    return 0;
}

static int rm_next(struct job *j, struct xfer_obj **out)
{
    struct rm *r = (struct rm *)j;

    while (r->cur < r->n_args) {
        if (!r->open && arg_open(r)) {
            r->cur++;
            continue;
        }
        if (arg_next(r, out))
            return XFER_NEXT_ONE;
        arg_close(r);
        r->cur++;
    }
    return XFER_NEXT_END;
}

/* ---- the job ------------------------------------------------------------------------ */

static enum s3c_err rm_start(struct job *j)
{
    struct rm *r = (struct rm *)j;
    struct s3c_error e = S3C_ERROR_INIT;
    enum s3c_err rc;

    if (r->filters.n) {
        rc = filter_add_list(&r->filter, r->filters.flag, r->filters.v, (size_t)r->filters.n, &e);
        if (rc) {
            out_usage_error(&e);
            return rc;
        }
    }
    r->s3 = cli_s3(j->c, &e);
    if (!r->s3) {
        char op[4096];
        cli_op_name(op, sizeof(op), j->verb, r->n_args, r->args);
        out_error(op, &e);
        return e.code;
    }
    return S3C_OK;
}

static enum s3c_err rm_finish(struct job *j, enum s3c_err engine_rc)
{
    if (engine_rc == S3C_ECANCEL) {
        struct s3c_error e = S3C_ERROR_INIT;
        s3c_fail(&e, S3C_ECANCEL, "interrupted");
        job_count(j, XFER_DELETE, 0, &e);
        j->n.first_error = S3C_ECANCEL;
    }
    return job_result(j);
}

static void rm_free(struct job *j)
{
    struct rm *r = (struct rm *)j;

    if (!r)
        return;
    arg_close(r);
    filter_release(&r->filter);
    free(r->args);
    free(r);
}

static const struct job_ops rm_ops = { rm_next, rm_done, rm_start, rm_finish, rm_free };

/* Every argument must be s3:// with a bucket, and name a key unless it lists. */
static enum s3c_err check_args(struct rm *r, struct s3c_error *e)
{
    int i;

    if (r->n_args == 0)
        return s3c_fail(e, S3C_EUSAGE, "rm: expected at least one s3://BUCKET/KEY");
    for (i = 0; i < r->n_args; i++) {
        struct s3_uri u = S3_URI_INIT;
        const char *a = r->args[i];
        enum s3c_err rc;

        if (!s3_uri_is(a))
            return s3c_fail(e, S3C_EUSAGE, "rm: \"%s\" is not an S3 path (s3://BUCKET/KEY): rm deletes S3 objects only", a);
        rc = s3_uri_parse(a, &u, e);
        if (!rc && !u.bucket[0])
            rc = s3c_fail(e, S3C_EUSAGE, "rm: \"%s\" names no bucket", a);
        if (!rc && !u.key[0] && !r->recursive && !r->from_manifest)
            rc = s3c_fail(e, S3C_EUSAGE, "rm: \"%s\" names no object (use --recursive to delete every object in it)", a);
        if (!rc && r->version_id && (r->recursive || r->n_args > 1 || (!r->raw && wild_has(u.key))))
            rc = s3c_fail(e, S3C_EUSAGE, "rm: --version-id takes one object, without --recursive or wildcards");
        if (!rc && s3_bucket_is_express(u.bucket))
            rc = cli_express_refuse("rm", r->version_id ? "--version-id" : r->all_versions ? "--all-versions"
                                          : r->oo.request_payer ? "--request-payer" : NULL,
                                    u.bucket, r->oo.request_payer && !r->version_id && !r->all_versions
                                                  ? NULL : "no versioning", e);
        s3_uri_release(&u);
        if (rc)
            return rc;
    }
    return S3C_OK;
}

static enum s3c_err rm_parse(struct rm *r, int argc, char **argv, struct s3c_error *e)
{
    bool dryrun = false;
    const struct arg_spec specs[] = {
        { "--recursive", "-r", ARG_BOOL, &r->recursive },
        { "--dryrun", NULL, ARG_BOOL, &dryrun },
        { "--raw", NULL, ARG_BOOL, &r->raw },
        { "--version-id", NULL, ARG_STR, &r->version_id },
        { "--all-versions", NULL, ARG_BOOL, &r->all_versions },
        { "--request-payer", NULL, ARG_STR, &r->oo.request_payer },
        { "--exclude", NULL, ARG_STR_LIST, &r->filters },
        { "--include", NULL, ARG_STR_LIST, &r->filters },
        JOB_KNOB_SPECS(&r->knob_args),
        JOB_SHARD_SPEC(&r->knob_args),
        { "--from-manifest", NULL, ARG_STR, &r->from_manifest },
        { NULL, NULL, 0, NULL },
    };
    enum s3c_err rc;

    rc = args_parse(r->base.verb, specs, argc, argv, r->args, argc, &r->n_args, e);
    r->base.dryrun = dryrun;
    if (!rc && r->version_id && !r->version_id[0])
        rc = s3c_fail(e, S3C_EUSAGE, "rm: --version-id needs a version id");
    if (!rc && r->version_id && r->all_versions)
        rc = s3c_fail(e, S3C_EUSAGE, "rm: --version-id and --all-versions do not go together");
    if (!rc)
        rc = cli_check_choice("rm", "--request-payer", r->oo.request_payer, cli_request_payer_choices, e);
    if (!rc)
        rc = check_args(r, e);
    if (!rc)
        rc = job_knobs_parse(&r->base, &r->knob_args, e);
    return rc;
}

enum s3c_err rm_job_new(struct cli_ctx *c, const char *verb, int argc, char **argv, struct job **out,
                        struct s3c_error *e)
{
    struct rm *r = calloc(1, sizeof(*r));
    enum s3c_err rc;

    *out = NULL;
    if (!r)
        return s3c_fail(e, S3C_ENOMEM, "out of memory");
    r->base.ops = &rm_ops;
    r->base.c = c;
    r->base.verb = verb;
    r->filter = (struct filter)FILTER_INIT;
    r->args = calloc((size_t)argc + 1, sizeof(*r->args));
    rc = r->args ? rm_parse(r, argc, argv, e) : s3c_fail(e, S3C_ENOMEM, "out of memory");
    if (rc) {
        rm_free(&r->base);
        return rc;
    }
    *out = &r->base;
    return S3C_OK;
}

enum s3c_err cmd_rm(struct cli_ctx *c, int argc, char **argv)
{
    struct s3c_error e = S3C_ERROR_INIT;
    struct job *j;
    enum s3c_err rc = rm_job_new(c, "rm", argc, argv, &j, &e);

    if (rc) {
        out_usage_error(&e);
        return rc;
    }
    rc = job_run(j);
    j->ops->free(j);
    return rc;
}
