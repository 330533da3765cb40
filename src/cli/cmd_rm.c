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
 * What an argument selects is cli/objsrc.h's, as for cp and sync.
 *
 * restore (s3c's own; s5cmd has none, the AWS CLI only s3api restore-object)
 * is the same job over the same arguments with XFER_RESTORE objects: a
 * RestoreObject each (--days, --tier), many in flight. A listed object of a
 * class that is never archived is skipped before any request; one the store
 * says is not archived (403 InvalidObjectState) is skipped after; one
 * restored already (200) or being restored (409 RestoreAlreadyInProgress)
 * is a success, so running it again is harmless.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli/args.h"
#include "cli/cmd.h"
#include "cli/job.h"
#include "cli/objopts.h"
#include "cli/objsrc.h"
#include "cli/output.h"
#include "plan/filter.h"
#include "plan/wild.h"
#include "s3/uri.h"
#include "xfer/xfer.h"

struct rm {
    struct job base;                /* verb "rm" or "restore"; counts; knobs */
    enum xfer_op op;                /* XFER_DELETE (rm) or XFER_RESTORE (restore) */
    struct store_s3 *s3;
    /* Flags. */
    bool recursive, raw, all_versions;
    const char *version_id;
    const char *days, *tier;        /* restore's --days, --tier (as given) */
    struct job_knob_args knob_args;
    struct arg_list filters;
    struct filter filter;
    struct xfer_obj_opts oo;        /* --request-payer */
    /* Arguments, all checked to be s3:// with a bucket before anything runs. */
    const char **args;
    int n_args;
    const char *from_manifest;      /* --from-manifest FILE: the keys to delete come from it */
    /* The argument being expanded. */
    int cur;
    bool open;
    struct objsrc src;              /* its keys: one, listed, from the manifest, or their versions */
    char *filter_root;
};

/* ---- result lines ------------------------------------------------------------------- */

/* A restore's outcome, for --json ("status") and for the text line (in parentheses). */
static const char *const restore_status[] = {
    [XFER_RESTORE_STARTED] = "started",
    [XFER_RESTORE_DONE_BEFORE] = "restored",
    [XFER_RESTORE_IN_PROGRESS] = "in_progress",
};
static const char *const restore_note[] = {
    [XFER_RESTORE_DONE_BEFORE] = "already restored; its expiry set anew",
    [XFER_RESTORE_IN_PROGRESS] = "already in progress",
};

static void report(struct rm *r, const char *shown, const struct xfer_obj *o, const struct s3c_error *e)
{
    struct out_result res = { r->op == XFER_RESTORE ? "restore" : "delete", shown, NULL, 0, false,
                              o ? o->version_id : NULL, r->base.dryrun, false, NULL };
    bool said = o && o->restore && o->restore < XFER_RESTORE_NOT_ARCHIVED;

    out_result_said(&res, said ? restore_status[o->restore] : NULL, said ? restore_note[o->restore] : NULL, e);
}

/* An object restore has nothing to do for: skipped, said so, exit 2. 'listed_class' is its
 * listing's storage class, NULL when the store's refusal said it. */
static void not_archived(struct rm *r, const char *shown, const char *listed_class)
{
    struct s3c_error e = S3C_ERROR_INIT;

    if (listed_class)
        s3c_fail(&e, S3C_ESKIPPED, "Object is of storage class %s, not archived: nothing to restore",
                 cli_storage_class(listed_class));
    else
        s3c_fail(&e, S3C_ESKIPPED, "Object is not archived (the store refused to restore it, 403 "
                 "InvalidObjectState): nothing to restore");
    report(r, shown, NULL, &e);
    job_count(&r->base, XFER_RESTORE, 0, &e);
}

static void rm_done(struct job *j, const struct xfer_obj *o, const struct s3c_error *e)
{
    struct rm *r = (struct rm *)j;

    if (j->dryrun) {
        report(r, o->user, o, NULL);
    } else if (!e && o->restore == XFER_RESTORE_NOT_ARCHIVED) {
        not_archived(r, o->user, NULL);
    } else {
        if (!(e && e->code == S3C_ECANCEL))
            report(r, o->user, o, e);
        job_count(j, (int)r->op, 0, e);
    }
    free(o->user);
}

/* A listing failed: one "fatal error" line (or record) for the argument, one failure. */
static void arg_failed(struct rm *r, const struct s3c_error *e)
{
    struct out_result res = { r->base.verb, r->args[r->cur], NULL, 0, false, NULL, false, true, NULL };

    out_result(&res, e);
    job_count(&r->base, (int)r->op, 0, e);
}

/* ---- the stream of objects ---------------------------------------------------------- */

static struct xfer_obj *obj_make(struct rm *r, const char *key, const char *version_id)
{
    struct xfer_obj *o = xfer_obj_new(r->op);
    size_t n;
    char *shown;

    if (!o)
        return NULL;
    n = strlen(r->src.u.bucket) + strlen(key) + 8;
    shown = malloc(n);
    if (shown)
        snprintf(shown, n, "s3://%s/%s", r->src.u.bucket, key);
    o->user = shown;
    o->src = strdup(key);
    o->src_bucket = strdup(r->src.u.bucket);
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
    objsrc_close(&r->src);
    free(r->filter_root);
    r->filter_root = NULL;
    r->open = false;
}

/* Start expanding argument r->cur. Errors are reported (and counted) here. */
static enum s3c_err arg_open(struct rm *r)
{
    const char *arg = r->args[r->cur];
    struct s3c_error e = S3C_ERROR_INIT;
    struct objsrc_opts so;
    enum s3c_err rc = S3C_OK;

    r->open = true;
    if (!filter_empty(&r->filter)) {
        struct buf b = BUF_INIT(65536);
        struct s3_uri u = S3_URI_INIT;

        /* A wildcard's names are relative to its literal directory, as a single key's are. */
        rc = s3_uri_parse(arg, &u, &e);
        if (!rc)
            rc = filter_root(arg, r->recursive && (r->raw || !wild_has(u.key)), &b, &e);
        if (!rc && !(r->filter_root = strdup(buf_cstr(&b))))
            rc = s3c_fail(&e, S3C_ENOMEM, "out of memory");
        s3_uri_release(&u);
        buf_release(&b);
    }
    memset(&so, 0, sizeof(so));
    so.s3 = r->s3;
    so.job = &r->base;
    so.count_op = (int)r->op;
    so.arg = arg;
    so.recursive = r->recursive;
    so.raw = r->raw;
    so.all_versions = r->all_versions;
    so.from_manifest = r->from_manifest;
    so.filter = &r->filter;
    so.filter_root = r->filter_root;
    so.filter_one = true;
    so.tell_filtered = true;
    so.dirs = OBJSRC_DIRS_KEEP;
    so.page_size = r->base.knobs.page_size;
    so.list_v1 = r->base.c->g.list_v1;
    so.later = r->base.later_ok; /* opened inside next(): a manifest's GET is not waited for */
    if (!rc)
        rc = objsrc_open(&r->src, &so, &e);
    if (rc) {
        arg_failed(r, &e);
        arg_close(r);
    }
    return rc;
}

/* Whether a listed storage class may be archived (NULL: not listed, only the store knows). An
 * INTELLIGENT_TIERING object may sit in an archive tier, which a listing does not tell. */
static bool restorable(const char *listed_class)
{
    return !listed_class || !strcmp(listed_class, "GLACIER") || !strcmp(listed_class, "DEEP_ARCHIVE") ||
           !strcmp(listed_class, "INTELLIGENT_TIERING");
}

static void skip_listed(struct rm *r, const struct objsrc_entry *en)
{
    struct buf shown = BUF_INIT(1 << 16);

    buf_addf(&shown, "s3://%s/%s", r->src.u.bucket, en->key);
    not_archived(r, buf_cstr(&shown), en->storage_class);
    buf_release(&shown);
}

/* The next object of the open argument: XFER_NEXT_ONE with *out, XFER_NEXT_END when it
 * has no more, XFER_NEXT_LATER while its listing's page is out (the job's later_ok). */
static int arg_next(struct rm *r, struct xfer_obj **out)
{
    const struct objsrc_entry *en;
    struct s3c_error e = S3C_ERROR_INIT;
    enum objsrc_next got;

    r->src.later = r->base.later_ok;
    while ((got = objsrc_next(&r->src, &en, &e)) == OBJSRC_ENTRY && r->op == XFER_RESTORE &&
           !restorable(en->storage_class))
        skip_listed(r, en);
    if (got == OBJSRC_LATER)
        return XFER_NEXT_LATER;
    if (got == OBJSRC_ENTRY) {
        /* A version: its own id ("null" before versioning); one key: --version-id, if given. */
        const char *vid = r->src.kind == OBJSRC_VERSIONS ? (en->version_id[0] ? en->version_id : "null")
                          : r->src.kind == OBJSRC_ONE    ? r->version_id
                                                         : NULL;
        *out = obj_make(r, en->key, vid);
        if (*out)
            return XFER_NEXT_ONE;
        s3c_fail(&e, S3C_ENOMEM, "out of memory");
        got = OBJSRC_FAILED;
    }
    if (got == OBJSRC_FAILED) {
        arg_failed(r, &e);
    } else if (r->src.pattern && !r->src.matched) {
        /* A wildcard that matched nothing is an error (exit 1), as for cp. */
        s3c_fail(&e, S3C_ENOMATCH, "no object matches %s", r->args[r->cur]);
        arg_failed(r, &e);
    }
    return XFER_NEXT_END;
}

static int rm_next(struct job *j, struct xfer_obj **out)
{
    struct rm *r = (struct rm *)j;
    int got;

    while (r->cur < r->n_args) {
        if (!r->open && arg_open(r)) {
            r->cur++;
            continue;
        }
        got = arg_next(r, out);
        if (got != XFER_NEXT_END)
            return got;
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
        job_count(j, (int)((struct rm *)j)->op, 0, &e);
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
    const char *verb = r->base.verb;
    bool restore = r->op == XFER_RESTORE;
    int i;

    if (r->n_args == 0)
        return s3c_fail(e, S3C_EUSAGE, "%s: expected at least one s3://BUCKET/KEY", verb);
    for (i = 0; i < r->n_args; i++) {
        struct s3_uri u = S3_URI_INIT;
        const char *a = r->args[i];
        enum s3c_err rc;

        if (!s3_uri_is(a))
            return s3c_fail(e, S3C_EUSAGE, "%s: \"%s\" is not an S3 path (s3://BUCKET/KEY): %s S3 objects only",
                            verb, a, restore ? "restore restores" : "rm deletes");
        rc = s3_uri_parse(a, &u, e);
        if (!rc && !u.bucket[0])
            rc = s3c_fail(e, S3C_EUSAGE, "%s: \"%s\" names no bucket", verb, a);
        if (!rc && !u.key[0] && !r->recursive && !r->from_manifest)
            rc = s3c_fail(e, S3C_EUSAGE, "%s: \"%s\" names no object (use --recursive to %s every object in it)",
                          verb, a, restore ? "restore" : "delete");
        if (!rc)
            rc = cli_version_check(verb, r->version_id, u.bucket,
                                   !r->recursive && r->n_args == 1 && (r->raw || !wild_has(u.key)), e);
        if (!rc && s3_bucket_is_express(u.bucket) && (r->all_versions || r->oo.request_payer || restore))
            rc = cli_express_refuse(verb, r->all_versions ? "--all-versions" : r->oo.request_payer ? "--request-payer" : NULL,
                                    u.bucket, r->all_versions ? "no versioning" : restore ? "no archived objects" : NULL, e);
        s3_uri_release(&u);
        if (rc)
            return rc;
    }
    return S3C_OK;
}

/* restore's --days (1 or more; 1 when not given) and --tier (S3's names, in any case). */
static enum s3c_err restore_opts(struct rm *r, struct s3c_error *e)
{
    static const char *const tiers[] = { "Standard", "Bulk", "Expedited" };
    char *end = NULL;
    long days = 1;
    size_t i;

    if (r->op != XFER_RESTORE)
        return S3C_OK;
    if (r->days) {
        days = strtol(r->days, &end, 10);
        if (!r->days[0] || *end || days < 1 || days > 2147483647L)
            return s3c_fail(e, S3C_EUSAGE, "restore: --days must be a whole number of days, 1 or more, not \"%s\"",
                            r->days);
    }
    r->oo.restore_days = (int)days;
    if (!r->tier)
        return S3C_OK;
    for (i = 0; i < sizeof(tiers) / sizeof(tiers[0]); i++)
        if (!strcasecmp(r->tier, tiers[i])) {
            r->oo.restore_tier = tiers[i];
            return S3C_OK;
        }
    return s3c_fail(e, S3C_EUSAGE, "restore: --tier must be Standard, Bulk or Expedited, not \"%s\"", r->tier);
}

/* The flags rm and restore share; each adds its own (one table each, so each lists only its own). */
#define RM_SPECS(r, dryrun)                                                     \
    { "--recursive", "-r", ARG_BOOL, &(r)->recursive },                          \
    { "--dryrun", "--dry-run", ARG_BOOL, (dryrun) },                             \
    { "--raw", NULL, ARG_BOOL, &(r)->raw },                                      \
    { "--version-id", NULL, ARG_STR, &(r)->version_id },                         \
    { "--request-payer", NULL, ARG_STR, &(r)->oo.request_payer },                \
    { "--exclude", NULL, ARG_STR_LIST, &(r)->filters },                          \
    { "--include", NULL, ARG_STR_LIST, &(r)->filters },                          \
    JOB_KNOB_SPECS(&(r)->knob_args),                                             \
    JOB_SHARD_SPEC(&(r)->knob_args),                                             \
    { "--from-manifest", NULL, ARG_STR, &(r)->from_manifest }

static enum s3c_err rm_parse(struct rm *r, int argc, char **argv, struct s3c_error *e)
{
    bool dryrun = false;
    const struct arg_spec rm_specs[] = {
        RM_SPECS(r, &dryrun),
        { "--all-versions", NULL, ARG_BOOL, &r->all_versions },
        { NULL, NULL, 0, NULL },
    };
    const struct arg_spec restore_specs[] = {
        RM_SPECS(r, &dryrun),
        { "--days", NULL, ARG_STR, &r->days },
        { "--tier", NULL, ARG_STR, &r->tier },
        { NULL, NULL, 0, NULL },
    };
    enum s3c_err rc;

    r->oo.request_payer = r->base.c->g.request_payer; /* s5cmd's global; the verb's flag wins */
    rc = args_parse(r->base.verb, r->op == XFER_RESTORE ? restore_specs : rm_specs, argc, argv, r->args, argc,
                    &r->n_args, e);
    r->base.dryrun = dryrun;
    if (!rc && r->version_id && r->all_versions)
        rc = s3c_fail(e, S3C_EUSAGE, "rm: --version-id and --all-versions do not go together");
    if (!rc)
        rc = restore_opts(r, e);
    if (!rc)
        rc = cli_check_choice(r->base.verb, "--request-payer", r->oo.request_payer, cli_request_payer_choices, e);
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
    r->op = !strcmp(verb, "restore") ? XFER_RESTORE : XFER_DELETE;
    r->filter = (struct filter)FILTER_INIT;
    r->src = (struct objsrc)OBJSRC_INIT;
    r->args = calloc((size_t)argc + 1, sizeof(*r->args));
    rc = r->args ? rm_parse(r, argc, argv, e) : s3c_fail(e, S3C_ENOMEM, "out of memory");
    if (rc) {
        rm_free(&r->base);
        return rc;
    }
    *out = &r->base;
    return S3C_OK;
}

static enum s3c_err rm_or_restore(struct cli_ctx *c, const char *verb, int argc, char **argv)
{
    struct s3c_error e = S3C_ERROR_INIT;
    struct job *j;
    enum s3c_err rc = rm_job_new(c, verb, argc, argv, &j, &e);

    if (rc) {
        out_usage_error(&e);
        return rc;
    }
    rc = job_run(j);
    j->ops->free(j);
    return rc;
}

enum s3c_err cmd_rm(struct cli_ctx *c, int argc, char **argv)
{
    return rm_or_restore(c, "rm", argc, argv);
}

enum s3c_err cmd_restore(struct cli_ctx *c, int argc, char **argv)
{
    return rm_or_restore(c, "restore", argc, argv);
}
