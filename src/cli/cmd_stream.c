/*
 * cat and pipe: objects to stdout, stdin to one object. Each is `cp` with
 * '-' on one side, run as a cp job (so flags, result lines and errors are
 * cp's); this file only narrows the flags to those that mean something for
 * the verb (cp's own checks them again) and checks its single argument. The engine does the streaming:
 * parallel ranged GETs written in order for stdout, a multipart upload with
 * a bounded window of part buffers for stdin (xfer.c). cat of a wildcard
 * or a prefix, as s5cmd's, prints each object it names in key order, one
 * cp after another.
 */
#include <stdlib.h>
#include <string.h>

#include "cli/args.h"
#include "cli/cmd.h"
#include "cli/job.h"
#include "cli/objopts.h"
#include "cli/objsrc.h"
#include "cli/output.h"
#include "plan/wild.h"
#include "s3/uri.h"

#define STREAM_ARGS_MAX 256

/* The engine knobs cat takes (JOB_KNOB_SPECS less --expected-size and --stat). */
struct stream_knobs {
    const char *numworkers, *concurrency, *part_size, *bwlimit;
    bool no_progress;
};

/* One s3://BUCKET/KEY naming an object, or a usage error naming 'verb'. */
static enum s3c_err check_object(const char *verb, const char *arg, bool wild_ok, struct s3c_error *e)
{
    struct s3_uri u = S3_URI_INIT;
    size_t n;
    enum s3c_err rc;

    if (!s3_uri_is(arg))
        return s3c_fail(e, S3C_EUSAGE, "%s: expected s3://BUCKET/KEY, not \"%s\"", verb, arg);
    rc = s3_uri_parse(arg, &u, e);
    if (rc)
        return rc;
    n = strlen(u.key);
    if (!u.bucket[0] || !n || u.key[n - 1] == '/')
        rc = s3c_fail(e, S3C_EUSAGE, "%s: \"%s\" names no object (expected s3://BUCKET/KEY)", verb, arg);
    else if (!wild_ok && wild_has(u.key))
        rc = s3c_fail(e, S3C_EUSAGE, "%s: \"%s\" has wildcards: name one object (--raw takes it literally)",
                      verb, arg);
    s3_uri_release(&u);
    return rc;
}

/* Run `cp` as 'verb' with argv: pre[] + the verb's own argv + post[]. */
static enum s3c_err run_as_cp(struct cli_ctx *c, const char *verb, int argc, char **argv,
                              const char *pre, const char *post)
{
    char *args[STREAM_ARGS_MAX + 2];
    struct s3c_error e = S3C_ERROR_INIT;
    struct job *j = NULL;
    enum s3c_err rc;
    int n = 0, i;

    if (argc > STREAM_ARGS_MAX) {
        s3c_fail(&e, S3C_EUSAGE, "%s: too many arguments", verb);
        out_usage_error(&e);
        return e.code;
    }
    if (pre)
        args[n++] = (char *)pre;
    for (i = 0; i < argc; i++)
        args[n++] = argv[i];
    if (post)
        args[n++] = (char *)post;
    rc = cp_job_new(c, verb, n, args, &j, &e);
    if (rc) {
        out_usage_error(&e);
        return rc;
    }
    rc = job_run(j);
    j->ops->free(j);
    return rc;
}

/*
 * cat of a wildcard or a prefix ('at' is its place in argv): each object it
 * names, in key order, as `cat` of that key alone prints it, one after the
 * other (their bytes never interleave); the first that fails ends it, with
 * its error. One that names nothing is an error (exit 1).
 */
static enum s3c_err cat_many(struct cli_ctx *c, int argc, char **argv, int at)
{
    struct objsrc src = OBJSRC_INIT;
    struct s3c_error e = S3C_ERROR_INIT;
    struct buf one = BUF_INIT(8192);
    const struct objsrc_entry *en;
    struct objsrc_opts so;
    enum s3c_err rc = S3C_OK;
    enum objsrc_next r;
    char *arg = argv[at], op[4096];
    struct job j;

    cli_op_name(op, sizeof(op), "cat", 1, (const char **)&arg);
    memset(&j, 0, sizeof(j));
    memset(&so, 0, sizeof(so));
    so.s3 = cli_s3(c, &e);
    so.job = &j;
    so.count_op = XFER_DOWNLOAD;
    so.arg = arg;
    so.recursive = true;
    so.dirs = OBJSRC_DIRS_SKIP;
    if (!so.s3 || objsrc_open(&src, &so, &e)) {
        out_error(op, &e);
        objsrc_close(&src);
        return e.code;
    }
    while (!rc && (r = objsrc_next(&src, &en, &e)) == OBJSRC_ENTRY) {
        buf_reset(&one);
        if (buf_addf(&one, "s3://%s/%s", src.u.bucket, en->key)) {
            rc = s3c_fail(&e, S3C_ENOMEM, "key too long");
            out_error(op, &e);
            break;
        }
        argv[at] = (char *)buf_cstr(&one);
        rc = run_as_cp(c, "cat", argc, argv, "--raw", "-");
        argv[at] = arg;
    }
    if (!rc && r == OBJSRC_FAILED) {
        out_error(op, &e);
        rc = e.code;
    }
    if (!rc && (src.pattern ? !src.matched : !one.len)) {
        s3c_fail(&e, S3C_ENOMATCH, "no object matches %s", arg);
        out_error(op, &e);
        rc = e.code;
    }
    if (!rc && (j.n.failed || j.n.warned)) /* a listed key kept out (plan/listcheck.h): told already */
        rc = j.n.first_error ? j.n.first_error : S3C_ESKIPPED;
    objsrc_close(&src);
    buf_release(&one);
    return rc;
}

/* cat s3://B/K: `cp --raw s3://B/K -`; of a wildcard or a prefix, each object it names (cat_many). */
enum s3c_err cmd_cat(struct cli_ctx *c, int argc, char **argv)
{
    struct stream_knobs k = { 0 };
    const char *request_payer = NULL, *checksum_mode = NULL, *version_id = NULL, *pos[1];
    bool raw = false;
    const struct arg_spec specs[] = {
        { "--raw", NULL, ARG_BOOL, &raw },
        { "--request-payer", NULL, ARG_STR, &request_payer },
        { "--checksum-mode", NULL, ARG_STR, &checksum_mode },
        { "--version-id", NULL, ARG_STR, &version_id }, /* cp's checks it */
        { "--numworkers", NULL, ARG_STR, &k.numworkers },
        { "--concurrency", NULL, ARG_STR, &k.concurrency },
        { "--part-size", NULL, ARG_STR, &k.part_size },
        { "--bwlimit", NULL, ARG_STR, &k.bwlimit },
        { "--no-progress", NULL, ARG_BOOL, &k.no_progress },
        { NULL, NULL, 0, NULL },
    };
    struct s3c_error e = S3C_ERROR_INIT;
    int n_pos = 0;
    enum s3c_err rc = args_parse("cat", specs, argc, argv, pos, 1, &n_pos, &e);

    if (!rc && n_pos != 1)
        rc = s3c_fail(&e, S3C_EUSAGE, "cat: expected one s3://BUCKET/KEY");
    if (!rc && !raw && s3_uri_is(pos[0]) && (wild_has(pos[0]) || pos[0][strlen(pos[0]) - 1] == '/')) {
        int at = 0;

        while (at < argc && argv[at] != pos[0])
            at++;
        if (at < argc && version_id)
            rc = s3c_fail(&e, S3C_EUSAGE, "cat: --version-id takes one object, without wildcards");
        else if (at < argc)
            return cat_many(c, argc, argv, at);
    }
    if (!rc)
        rc = check_object("cat", pos[0], raw, &e);
    if (rc) {
        out_usage_error(&e);
        return rc;
    }
    /* cp takes it --raw: the key it means, "\\*" a star, in place in argv (it only shortens). */
    if (!raw)
        wild_unescape((char *)pos[0]);
    /* "-" last: after a "--" in argv it is still a positional argument. */
    return run_as_cp(c, "cat", argc, argv, "--raw", "-");
}

/* pipe s3://B/K: `cp - s3://B/K`, with cp's object flags (as s5cmd's pipe). */
enum s3c_err cmd_pipe(struct cli_ctx *c, int argc, char **argv)
{
    struct job_knob_args k = { 0 };
    struct xfer_obj_opts oo = { 0 };
    struct objopts_args *oa = calloc(1, sizeof(*oa));
    const char *pos[1];
    bool no_overwrite = false, no_clobber = false, raw = false;
    const struct arg_spec specs[] = {
        OBJOPTS_SPECS(&oo, oa),
        JOB_KNOB_SPECS(&k),
        { "--no-overwrite", NULL, ARG_BOOL, &no_overwrite },
        { "--no-clobber", "-n", ARG_BOOL, &no_clobber },
        { "--raw", NULL, ARG_BOOL, &raw }, /* s5cmd's; a destination key is always literal */
        { NULL, NULL, 0, NULL },
    };
    struct s3c_error e = S3C_ERROR_INIT;
    int n_pos = 0;
    enum s3c_err rc = oa ? args_parse("pipe", specs, argc, argv, pos, 1, &n_pos, &e)
                         : s3c_fail(&e, S3C_ENOMEM, "out of memory");

    if (!rc && n_pos != 1)
        rc = s3c_fail(&e, S3C_EUSAGE, "pipe: expected one s3://BUCKET/KEY");
    if (!rc)
        rc = check_object("pipe", pos[0], true, &e);
    free(oa);
    if (rc) {
        out_usage_error(&e);
        return rc;
    }
    return run_as_cp(c, "pipe", argc, argv, "-", NULL);
}
