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

#include "auth/creds.h"
#include "auth/keyring.h"
#include "base/stop.h"
#include "cli/cmd.h"
#include "cli/output.h"
#include "cli/transfer.h"
#include "http/http.h"
#include "s3/retry.h"
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

struct global_flag {
    const char *name;
    bool takes_value;
};

static const struct global_flag global_flags[] = {
    { "--endpoint-url", true }, { "--profile", true },       { "--region", true },
    { "--ca-bundle", true },    { "--no-sign-request", false }, { "--no-verify-ssl", false },
    { "--debug", false },       { "--json", false },         { "--quiet", false },
    { "--only-show-errors", false }, { "--no-progress", false },
    { "--cli-read-timeout", true }, { "--cli-connect-timeout", true }, { NULL, false },
};

static const struct global_flag *find_global(const char *arg, size_t n)
{
    const struct global_flag *g;

    for (g = global_flags; g->name; g++)
        if (strlen(g->name) == n && strncmp(g->name, arg, n) == 0)
            return g;
    return NULL;
}

static void set_global(struct cfg_flags *f, struct out_opts *o, const char *name, const char *value)
{
    if (!strcmp(name, "--endpoint-url"))
        f->endpoint_url = value;
    else if (!strcmp(name, "--profile"))
        f->profile = value;
    else if (!strcmp(name, "--region"))
        f->region = value;
    else if (!strcmp(name, "--ca-bundle"))
        f->ca_bundle = value;
    else if (!strcmp(name, "--no-sign-request"))
        f->no_sign_request = true;
    else if (!strcmp(name, "--no-verify-ssl"))
        f->no_verify_ssl = true;
    else if (!strcmp(name, "--debug"))
        f->debug = o->debug = true;
    else if (!strcmp(name, "--json"))
        o->json = true;
    else if (!strcmp(name, "--quiet"))
        o->quiet = true;
    else if (!strcmp(name, "--only-show-errors"))
        o->only_errors = true;
    else if (!strcmp(name, "--no-progress"))
        o->no_progress = true;
    else if (!strcmp(name, "--cli-read-timeout"))
        f->read_timeout = value;
    else if (!strcmp(name, "--cli-connect-timeout"))
        f->connect_timeout = value;
}

/* Move global flags out of argv into 'f' and 'o'; the rest stays in order in rest[]. */
static enum s3c_err take_globals(int argc, char **argv, struct cfg_flags *f, struct out_opts *o,
                                 char **rest, int *n_rest, struct s3c_error *e)
{
    bool done = false;
    int i;

    *n_rest = 0;
    for (i = 1; i < argc; i++) {
        const char *a = argv[i], *eq = strchr(a, '=');
        size_t n = eq ? (size_t)(eq - a) : strlen(a);
        const struct global_flag *g = NULL;

        if (!done && strcmp(a, "--") == 0)
            done = true;
        if (!done && a[0] == '-' && a[1] == '-')
            g = find_global(a, n);
        if (!g) {
            rest[(*n_rest)++] = argv[i];
            continue;
        }
        if (!g->takes_value) {
            if (eq)
                return s3c_fail(e, S3C_EUSAGE, "%s takes no value", g->name);
            set_global(f, o, g->name, NULL);
        } else if (eq) {
            set_global(f, o, g->name, eq + 1);
        } else if (i + 1 < argc) {
            set_global(f, o, g->name, argv[++i]);
        } else {
            return s3c_fail(e, S3C_EUSAGE, "%s needs a value", g->name);
        }
    }
    return S3C_OK;
}

enum s3c_err cli_line_globals(int *argc, char **argv, struct out_opts *o, struct s3c_error *e)
{
    struct cfg_flags f, none;
    char **rest = calloc((size_t)*argc + 1, sizeof(char *));
    bool debug = o->debug;
    enum s3c_err rc;
    int n = 0, i;

    if (!rest)
        return s3c_fail(e, S3C_ENOMEM, "out of memory");
    memset(&f, 0, sizeof(f));
    memset(&none, 0, sizeof(none));
    rc = take_globals(*argc, argv, &f, o, rest, &n, e);
    if (!rc && (memcmp(&f, &none, sizeof(f)) != 0 || o->debug != debug))
        rc = s3c_fail(e, S3C_EUSAGE, "%s: --endpoint-url, --profile, --region, --ca-bundle, --no-sign-request, "
                      "--no-verify-ssl, --cli-read-timeout, --cli-connect-timeout and --debug are the run's: "
                      "give them to s3c run, not to a line", argv[0]);
    if (!rc) {
        for (i = 0; i < n; i++)
            argv[i + 1] = rest[i];
        *argc = n + 1;
    }
    free(rest);
    return rc;
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

/* From the refresh thread: fresh keys are ready, let a sleeping loop take them. */
static void keys_ready(void *ctx)
{
    struct cli_ctx *c = ctx;

    if (c->s3)
        http_loop_wakeup(store_s3_loop(c->s3));
}

struct keyring *cli_keys(struct cli_ctx *c, struct s3c_error *e)
{
    struct creds first = CREDS_INIT;
    const char *region;
    char line[256];

    if (c->keys)
        return c->keys;
    if (creds_resolve(&c->cfg, environ, &c->creds_src, &first, e)) {
        /* No credentials anywhere is the configuration's fault: exit 253, as
         * the CLI's NoCredentialsError (a provider that failed is not). */
        if (e->code == S3C_EAUTH && !strcmp(e->msg, CREDS_NO_CREDENTIALS))
            e->code = S3C_ECONFIG;
        return NULL;
    }
    /* On an instance with no region configured, its own region (as the CLI). */
    region = c->creds_src ? creds_src_region(c->creds_src) : NULL;
    if (region && !c->cfg.region_set) {
        char *r = strdup(region);
        if (r) {
            free(c->cfg.region);
            c->cfg.region = r;
        }
    }
    if (out_opts()->debug) {
        snprintf(line, sizeof(line), "credentials: from %s%s", first.method ? first.method : "?",
                 first.expires ? ", refreshed before they expire" : "");
        out_debug(NULL, line);
    }
    c->keys = keyring_new(c->creds_src, &first, keys_ready, c);
    if (!c->keys) {
        creds_release(&first);
        s3c_fail(e, S3C_ENOMEM, "out of memory");
    }
    return c->keys;
}

struct store_s3 *cli_s3(struct cli_ctx *c, struct s3c_error *e)
{
    struct store_s3_opts o;

    if (c->s3)
        return c->s3;
    memset(&o, 0, sizeof(o));
    o.no_sign = c->cfg.no_sign_request;
    if (!o.no_sign && !(o.keys = cli_keys(c, e)))
        return NULL;
    o.cfg = &c->cfg;
    o.region = c->cfg.region;
    o.sign_payload = c->cfg.s3.payload_signing_enabled.value;
    o.express_no_session = c->cfg.s3_disable_express_session_auth.value;
    o.max_attempts = (int)c->cfg.max_attempts.value;
    o.retry_mode = !c->cfg.retry_mode_set                        ? S3_RETRY_S3C
                   : c->cfg.retry_mode == CFG_RETRY_LEGACY   ? S3_RETRY_LEGACY
                   : c->cfg.retry_mode == CFG_RETRY_ADAPTIVE ? S3_RETRY_ADAPTIVE
                                                             : S3_RETRY_STANDARD;
    /* The AWS CLI's 0 is "never": HTTP_TIMEOUT_NONE; not set: http's defaults. */
    if (c->cfg.read_timeout_s.set)
        o.http.read_timeout_ms = c->cfg.read_timeout_s.value ? (long)c->cfg.read_timeout_s.value * 1000
                                                             : HTTP_TIMEOUT_NONE;
    if (c->cfg.connect_timeout_s.set)
        o.http.connect_timeout_ms = c->cfg.connect_timeout_s.value ? (long)c->cfg.connect_timeout_s.value * 1000
                                                                   : HTTP_TIMEOUT_NONE;
    o.http.verify_tls = c->cfg.verify_ssl;
    o.http.ca_bundle = c->cfg.ca_bundle;
    o.http.hosts_file = getenv("S3C_HOSTS_FILE"); /* names that override DNS: tests, pinning */
    if (out_opts()->debug)
        o.http.debug = out_debug;
    c->s3 = store_s3_new(&o, e);
    if (c->s3)
        store_s3_express_read_only(c->s3, c->reads_only);
    return c->s3;
}

void cli_reads_only(struct cli_ctx *c, bool reads_only)
{
    c->reads_only = reads_only;
    if (c->s3)
        store_s3_express_read_only(c->s3, reads_only);
}

void cli_op_name(char *out, size_t n, const char *verb, int argc, const char **argv)
{
    size_t len;
    int i;

    snprintf(out, n, "%s", verb);
    for (i = 0; i < argc; i++) {
        len = strlen(out);
        if (len + 1 < n)
            snprintf(out + len, n - len, " %s", argv[i]);
    }
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
    rc = take_globals(argc, argv, &flags, &oo, rest, &n_rest, &e);
    out_init(&oo);
    if (rc) {
        out_usage_error(&e);
        free(rest);
        return EXIT_USAGE;
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
    rc = v->run(&ctx, n_rest - 1, rest + 1);
    keyring_free(ctx.keys); /* first: it joins a refresh that may wake the store's loop */
    store_s3_free(ctx.s3);
    creds_src_free(ctx.creds_src);
    cfg_release(&ctx.cfg);
    free(rest);
    fflush(stdout);
    return exit_code(rc, v->fails_1);
}

/* ---- for the man page and the completions (cli/doc.c) ---- */

const char *cli_verb_at(int i)
{
    return i >= 0 && i < (int)(sizeof(verbs) / sizeof(verbs[0])) ? verbs[i].name : NULL;
}

const char *cli_global_flag_at(int i, bool *takes_value)
{
    if (i < 0 || i >= (int)(sizeof(global_flags) / sizeof(global_flags[0])) || !global_flags[i].name)
        return NULL;
    *takes_value = global_flags[i].takes_value;
    return global_flags[i].name;
}
