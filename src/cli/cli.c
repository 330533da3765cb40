/*
 * argv -> exit code. Global flags may stand anywhere on the line, as in the
 * AWS CLI; they are taken out first, and the verb parses the rest.
 */
#include "cli/cli.h"

#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/stop.h"
#include "cli/cmd.h"
#include "cli/output.h"
#include "cli/transfer.h"
#include "http/http.h"
#include "xfer/xfer.h"

extern char **environ;

struct verb {
    const char *name;
    enum s3c_err (*run)(struct cli_ctx *c, int argc, char **argv);
    bool fails_1;       /* any failure exits 1, as the CLI's transfers, mb and rb; else 254/255 as ls */
};

static const struct verb verbs[] = {
    { "ls", cmd_ls, false },
    { "du", cmd_du, false },
    { "mb", cmd_mb, true },
    { "rb", cmd_rb, true },
    { "head", cmd_head, false },
    { "cp", cmd_cp, true },
    { "mv", cmd_mv, true },
    { "rm", cmd_rm, true },
    { "restore", cmd_restore, true },
    { "cat", cmd_cat, true },
    { "pipe", cmd_pipe, true },
    { "presign", cmd_presign, false },
    { "sync", cmd_sync, true },
    { "run", cmd_run, true },
    { "configure", cmd_configure, false },
    { NULL, NULL, false },
};

cli_verb_fn cli_verb(const char *name)
{
    const struct verb *v;

    for (v = verbs; v->name; v++)
        if (!strcmp(v->name, name))
            return v->run;
    return NULL;
}

/*
 * `s3c VERB help` (help the only argument, as the AWS CLI reads `aws s3 cp
 * help`), or --help / -h before any "--". Any other "help" is a path: `s3c
 * cp help s3://b/k` uploads the file named help.
 */
static bool verb_wants_help(int argc, char **argv)
{
    int i;

    if (argc == 1 && !strcmp(argv[0], "help"))
        return true;
    for (i = 0; i < argc && strcmp(argv[i], "--") != 0; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
            return true;
    return false;
}

/* SIGINT/SIGTERM: every wait ends (base/stop.h), the engine stops, aborts its
 * multipart uploads and removes its temp files; the run then exits 130 or 143.
 * A second signal kills at once. */
static void on_signal(int sig)
{
    static volatile sig_atomic_t seen;

    if (seen++) {
        signal(sig, SIG_DFL);
        raise(sig);
    }
    stop_request(sig); /* and xfer_cancel(), its hook */
}

static void install_signals(void)
{
    struct sigaction sa;

    stop_hook(xfer_cancel);
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
}

/*
 * The AWS CLI v2's return codes (its "return codes" topic): 0 ok; 1 an s3
 * transfer failed; 2 files were skipped, the rest done; 130 SIGINT; 252 bad
 * command line; 253 bad configuration or no credentials; 254 the service
 * answered with an error; 255 anything else. 'fails_1': every failure of the
 * verb is 1, as `aws s3 cp|mv|rm|sync` count failed transfers and `aws s3
 * mb|rb` catch theirs; the other verbs (ls, du, head) tell a store's error
 * (254) from one of the network or the machine (255), as `aws s3 ls` does.
 */
static int exit_code(enum s3c_err rc, bool fails_1)
{
    /* A stop asked ends the run as it asked: 128 + the signal (130 SIGINT, 143
     * SIGTERM), whatever failed after it; or 0 when stdout's reader left
     * (`s3c ls -r | head -1`: it took what it wanted, as `cat | head` exits 0). */
    if (stop_requested())
        return stop_requested() == STOP_READER_GONE ? EXIT_OK : 128 + stop_requested();
    switch (rc) {
    case S3C_OK: return EXIT_OK;
    case S3C_EUSAGE: return EXIT_USAGE;
    case S3C_ECONFIG: return EXIT_CONFIG;
    case S3C_ECANCEL: return EXIT_SIGINT;
    case S3C_ESKIPPED: return EXIT_SKIPPED;
    case S3C_ENOMATCH: return EXIT_FAILED;
    case S3C_EHTTP:
    case S3C_ENOTFOUND:
    case S3C_EAUTH: return fails_1 ? EXIT_FAILED : EXIT_SERVICE;
    default: return fails_1 ? EXIT_FAILED : EXIT_GENERAL;
    }
}

int cli_main(int argc, char **argv)
{
    struct cli_ctx ctx;
    struct cfg_flags flags;
    struct out_opts oo;
    struct s3c_error e = S3C_ERROR_INIT;
    char **rest = calloc((size_t)argc + 1, sizeof(char *));
    const struct verb *v;
    enum s3c_err rc;
    int n_rest = 0;

    memset(&ctx, 0, sizeof(ctx));
    memset(&flags, 0, sizeof(flags));
    memset(&oo, 0, sizeof(oo));
    if (!rest)
        return EXIT_FAILED;
    rc = cli_take_globals(argc, argv, &flags, &oo, &ctx.g, rest, &n_rest, &e);
    out_init(&oo);
    if (rc) {
        out_usage_error(&e);
        free(rest);
        return EXIT_USAGE;
    }
    if (ctx.g.install_completion) {
        /* s5cmd's prints a script for $SHELL; s3c's are installed with it. */
        cli_completion_help(getenv("SHELL"));
        free(rest);
        return EXIT_OK;
    }
    if (n_rest == 0) {
        cli_help(NULL);
        free(rest);
        return EXIT_USAGE;
    }
    if (!strcmp(rest[0], "version") || !strcmp(rest[0], "--version")) {
        cli_version_print();
        free(rest);
        return EXIT_OK;
    }
    if (!strcmp(rest[0], "help") || !strcmp(rest[0], "--help") || !strcmp(rest[0], "-h")) {
        bool ok = cli_help(n_rest > 1 ? rest[1] : NULL);
        if (!ok) {
            s3c_fail(&e, S3C_EUSAGE, "help: unknown command \"%s\"", rest[1]);
            out_usage_error(&e);
        }
        free(rest);
        return ok ? EXIT_OK : EXIT_USAGE;
    }
    for (v = verbs; v->name; v++)
        if (!strcmp(v->name, rest[0]))
            break;
    if (!v->name) {
        if (rest[0][0] == '-')  /* no global flag of that name, and no verb before it */
            s3c_fail(&e, S3C_EUSAGE, "unknown option %s (see: s3c help)", rest[0]);
        else
            s3c_fail(&e, S3C_EUSAGE, "unknown command \"%s\" (see: s3c help)", rest[0]);
        out_usage_error(&e);
        free(rest);
        return EXIT_USAGE;
    }
    if (verb_wants_help(n_rest - 1, rest + 1)) {
        cli_help(v->name);
        free(rest);
        return EXIT_OK;
    }
    install_signals();
    /* Freed buffers stay in the heap: no brk/munmap churn per request. */
    mallopt(M_TRIM_THRESHOLD, 256 << 20);
    mallopt(M_MMAP_THRESHOLD, 8 << 20);
    rc = http_global_init(&e);
    if (!rc)
        rc = cfg_load(&ctx.cfg, &flags, environ, &e);
    if (rc) {
        out_usage_error(&e);
        free(rest);
        cfg_release(&ctx.cfg);
        return exit_code(rc, v->fails_1);
    }
    ctx.region_flag = flags.region;
    ctx.flags = flags;
    ctx.verb = cli_verb;
    rc = v->run(&ctx, n_rest - 1, rest + 1);
    cli_ctx_release(&ctx);
    free(rest);
    fflush(stdout);
    return exit_code(rc, v->fails_1);
}

/* ---- for the man page and the completions (cli/doc.c) ---- */

const char *cli_verb_at(int i)
{
    return i >= 0 && i < (int)(sizeof(verbs) / sizeof(verbs[0])) ? verbs[i].name : NULL;
}
