/*
 * What every verb gets from the run, below the verbs: the store and the keys
 * (made on first use), the op name of error lines, and the global flags
 * (taken out of argv by cli_main(), refused on a run file's line). cli.c
 * only dispatches; the verbs call down to here, never back up to it.
 */
#include "cli/ctx.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "auth/creds.h"
#include "auth/keyring.h"
#include "base/str.h"
#include "cli/output.h"
#include "http/http.h"
#include "s3/retry.h"
#include "store/store_s3.h"

extern char **environ;

struct global_flag {
    const char *name;
    bool takes_value;
    bool before_verb;   /* s5cmd's, a global only before the verb (after it: the verb's flag or nothing) */
};

static const struct global_flag global_flags[] = {
    { "--endpoint-url", true, false }, { "--profile", true, false }, { "--region", true, false },
    { "--ca-bundle", true, false },    { "--no-sign-request", false, false }, { "--no-verify-ssl", false, false },
    { "--debug", false, false },       { "--json", false, false },    { "--quiet", false, false },
    { "--only-show-errors", false, false }, { "--no-progress", false, false },
    { "--cli-read-timeout", true, false }, { "--cli-connect-timeout", true, false },
    /* The AWS CLI's that mean nothing to s3c's output: no pager, no colours, and its s3
     * commands page themselves (`aws s3 ls` help: --no-paginate is ignored). */
    { "--no-paginate", false, false }, { "--no-cli-pager", false, false }, { "--color", true, false },
    /* s5cmd's (command/app.go, the app's Flags). */
    { "--retry-count", true, false },  { "--log", true, false },  { "--credentials-file", true, false },
    { "--use-list-objects-v1", false, false }, { "--install-completion", false, false },
    { "-r", true, true },              { "--dry-run", false, true }, { "--stat", false, true },
    { "--numworkers", true, true },    { "--request-payer", true, true },
    { NULL, false, false },
};

static const struct global_flag *find_global(const char *arg, size_t n, bool before_verb)
{
    const struct global_flag *g;

    for (g = global_flags; g->name; g++)
        if (strlen(g->name) == n && strncmp(g->name, arg, n) == 0 && (before_verb || !g->before_verb))
            return g;
    return NULL;
}

/* A value from a fixed list, as argparse (the AWS CLI) and urfave's enum (s5cmd) check them. */
static enum s3c_err one_of(const char *flag, const char *value, const char *const *choices, struct s3c_error *e)
{
    char list[128] = "";
    size_t len = 0;
    int i;

    for (i = 0; choices[i]; i++)
        if (!strcmp(value, choices[i]))
            return S3C_OK;
    for (i = 0; choices[i] && len < sizeof(list); i++)
        len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s", i ? " | " : "", choices[i]);
    return s3c_fail(e, S3C_EUSAGE, "argument %s: Invalid choice '%s', valid choices are: %s", flag, value, list);
}

static enum s3c_err set_global(struct cfg_flags *f, struct out_opts *o, struct cli_globals *g, const char *name,
                               const char *value, struct s3c_error *e)
{
    static const char *const colors[] = { "on", "off", "auto", NULL };
    static const char *const levels[] = { "trace", "debug", "info", "error", NULL };
    char *end;

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
    else if (!strcmp(name, "--color"))
        return one_of(name, value, colors, e); /* s3c writes no colours: any choice is kept */
    else if (!strcmp(name, "--retry-count") || !strcmp(name, "-r")) {
        /* s5cmd's retries after the first try: the AWS CLI's max_attempts less one. */
        long n = strtol(value, &end, 10);
        if (end == value || *end || n < 0 || n > 1000)
            return s3c_fail(e, S3C_EUSAGE, "--retry-count must be a whole number from 0 to 1000, not \"%s\"", value);
        f->retry_count = value;
    } else if (!strcmp(name, "--log")) {
        if (one_of(name, value, levels, e))
            return e->code;
        /* s5cmd's levels: trace and debug trace the requests, error prints only errors. */
        if (!strcmp(value, "trace") || !strcmp(value, "debug"))
            f->debug = o->debug = true;
        else if (!strcmp(value, "error"))
            o->only_errors = true;
    } else if (!strcmp(name, "--credentials-file"))
        f->credentials_file = value;
    else if (!strcmp(name, "--use-list-objects-v1"))
        g->list_v1 = true;
    else if (!strcmp(name, "--install-completion"))
        g->install_completion = true;
    else if (!strcmp(name, "--dry-run"))
        g->dryrun = true;
    else if (!strcmp(name, "--stat"))
        g->stat = true;
    else if (!strcmp(name, "--numworkers"))
        g->numworkers = value;
    else if (!strcmp(name, "--request-payer"))
        g->request_payer = value;
    return S3C_OK;
}

/* cli_take_globals; 'verb_seen': argv[0] is the verb (a run file's line), so none of the
 * before-the-verb flags is a global there. */
static enum s3c_err take_globals(int argc, char **argv, bool verb_seen, struct cfg_flags *f, struct out_opts *o,
                                 struct cli_globals *g, char **rest, int *n_rest, struct s3c_error *e)
{
    bool done = false;
    int i;

    *n_rest = 0;
    for (i = 1; i < argc; i++) {
        const char *a = argv[i], *eq = strchr(a, '=');
        size_t n = eq ? (size_t)(eq - a) : strlen(a);
        const struct global_flag *gf = NULL;
        enum s3c_err rc;

        if (!done && strcmp(a, "--") == 0)
            done = true;
        /* Before the verb: nothing but global flags stand before it. */
        if (!done && a[0] == '-' && a[1])
            gf = find_global(a, n, !verb_seen && *n_rest == 0);
        if (!gf) {
            rest[(*n_rest)++] = argv[i];
            continue;
        }
        if (!gf->takes_value) {
            if (eq)
                return s3c_fail(e, S3C_EUSAGE, "%s takes no value", gf->name);
            rc = set_global(f, o, g, gf->name, NULL, e);
        } else if (eq) {
            rc = set_global(f, o, g, gf->name, eq + 1, e);
        } else if (i + 1 < argc) {
            rc = set_global(f, o, g, gf->name, argv[++i], e);
        } else {
            return s3c_fail(e, S3C_EUSAGE, "%s needs a value", gf->name);
        }
        if (rc)
            return rc;
    }
    return S3C_OK;
}

enum s3c_err cli_take_globals(int argc, char **argv, struct cfg_flags *f, struct out_opts *o, struct cli_globals *g,
                              char **rest, int *n_rest, struct s3c_error *e)
{
    return take_globals(argc, argv, false, f, o, g, rest, n_rest, e);
}

enum s3c_err cli_line_globals(int *argc, char **argv, struct out_opts *o, struct s3c_error *e)
{
    struct cfg_flags f, none;
    struct cli_globals g = { 0 };
    char **rest = calloc((size_t)*argc + 1, sizeof(char *));
    bool debug = o->debug;
    enum s3c_err rc;
    int n = 0, i;

    if (!rest)
        return s3c_fail(e, S3C_ENOMEM, "out of memory");
    memset(&f, 0, sizeof(f));
    memset(&none, 0, sizeof(none));
    rc = take_globals(*argc, argv, true, &f, o, &g, rest, &n, e);
    if (!rc && (memcmp(&f, &none, sizeof(f)) != 0 || o->debug != debug || g.list_v1 || g.install_completion))
        rc = s3c_fail(e, S3C_EUSAGE, "%s: --endpoint-url, --profile, --region, --ca-bundle, --no-sign-request, "
                      "--no-verify-ssl, --cli-read-timeout, --cli-connect-timeout, --retry-count, "
                      "--credentials-file, --use-list-objects-v1, --log and --debug are the run's: "
                      "give them to s3c run, not to a line", argv[0]);
    if (!rc) {
        for (i = 0; i < n; i++)
            argv[i + 1] = rest[i];
        *argc = n + 1;
    }
    free(rest);
    return rc;
}

/* From the refresh thread: fresh keys are ready, let a sleeping loop take them. */
static void keys_ready(void *ctx)
{
    struct cli_ctx *c = ctx;

    if (c->s3)
        http_loop_wakeup(store_s3_loop(c->s3));
}

/*
 * The keys of 'cfg' from the provider botocore would choose, into *src and the keyring;
 * 'side' names the side in --debug (NULL: the only one). 'cfg->region' may become the
 * instance's own when none is configured.
 */
static struct keyring *keys_make(struct cli_ctx *c, struct s3c_config *cfg, const char *side,
                                 struct creds_src **src, struct s3c_error *e)
{
    struct creds first = CREDS_INIT;
    struct keyring *keys;
    const char *region;
    char line[256];

    if (creds_resolve(cfg, environ, src, &first, e)) {
        /* No credentials anywhere is the configuration's fault: exit 253, as
         * the CLI's NoCredentialsError (a provider that failed is not). */
        if (e->code == S3C_EAUTH && !strcmp(e->msg, CREDS_NO_CREDENTIALS))
            e->code = S3C_ECONFIG;
        return NULL;
    }
    /* On an instance with no region configured, its own region (as the CLI). */
    region = *src ? creds_src_region(*src) : NULL;
    if (region && !cfg->region_set) {
        char *r = strdup(region);
        if (r) {
            free(cfg->region);
            cfg->region = r;
        }
    }
    if (out_opts()->debug) {
        snprintf(line, sizeof(line), "credentials%s%s: from %s%s", side ? " of the " : "", side ? side : "",
                 first.method ? first.method : "?", first.expires ? ", refreshed before they expire" : "");
        out_debug(NULL, line);
    }
    keys = keyring_new(*src, &first, keys_ready, c);
    if (!keys) {
        creds_release(&first);
        s3c_fail(e, S3C_ENOMEM, "out of memory");
    }
    return keys;
}

struct keyring *cli_keys(struct cli_ctx *c, struct s3c_error *e)
{
    if (!c->keys)
        c->keys = keys_make(c, &c->cfg, NULL, &c->creds_src, e);
    return c->keys;
}

/* A store's options from a side's configuration and keys (NULL: unsigned). */
static void store_opts(const struct s3c_config *cfg, struct keyring *keys, struct store_s3_opts *o)
{
    memset(o, 0, sizeof(*o));
    o->no_sign = cfg->no_sign_request;
    o->keys = keys;
    o->cfg = cfg;
    o->region = cfg->region;
    o->sign_payload = cfg->s3.payload_signing_enabled.value;
    o->express_no_session = cfg->s3_disable_express_session_auth.value;
    o->max_attempts = (int)cfg->max_attempts.value;
    o->retry_mode = !cfg->retry_mode_set                        ? S3_RETRY_S3C
                    : cfg->retry_mode == CFG_RETRY_LEGACY   ? S3_RETRY_LEGACY
                    : cfg->retry_mode == CFG_RETRY_ADAPTIVE ? S3_RETRY_ADAPTIVE
                                                            : S3_RETRY_STANDARD;
    /* The AWS CLI's 0 is "never": HTTP_TIMEOUT_NONE; not set: http's defaults. */
    if (cfg->read_timeout_s.set)
        o->http.read_timeout_ms = cfg->read_timeout_s.value ? (long)cfg->read_timeout_s.value * 1000
                                                            : HTTP_TIMEOUT_NONE;
    if (cfg->connect_timeout_s.set)
        o->http.connect_timeout_ms = cfg->connect_timeout_s.value ? (long)cfg->connect_timeout_s.value * 1000
                                                                  : HTTP_TIMEOUT_NONE;
    o->http.verify_tls = cfg->verify_ssl;
    o->http.ca_bundle = cfg->ca_bundle;
    o->http.hosts_file = getenv("S3C_HOSTS_FILE"); /* names that override DNS: tests, pinning */
    if (out_opts()->debug)
        o->http.debug = out_debug;
}

struct store_s3 *cli_s3(struct cli_ctx *c, struct s3c_error *e)
{
    struct store_s3_opts o;
    struct keyring *keys = NULL;

    if (c->s3)
        return c->s3;
    if (!c->cfg.no_sign_request && !(keys = cli_keys(c, e)))
        return NULL;
    store_opts(&c->cfg, keys, &o);
    c->s3 = store_s3_new(&o, e);
    if (c->s3)
        store_s3_express_read_only(c->s3, c->reads_only);
    return c->s3;
}

bool cli_side_given(const struct cli_side_flags *f)
{
    return f->profile || f->endpoint_url || f->ca_bundle || f->addressing_style || f->no_sign_request;
}

/* A failure of the source side's set-up, said as its side's. */
static struct store_s3 *side_failed(struct s3c_error *e)
{
    char msg[sizeof(e->msg)];

    snprintf(msg, sizeof(msg), "source side: %.480s", e->msg);
    str_copy(e->msg, sizeof(e->msg), msg);
    return NULL;
}

struct store_s3 *cli_s3_source(struct cli_ctx *c, const struct cli_side_flags *f, struct s3c_error *e)
{
    struct cfg_flags sf = c->flags;
    struct store_s3_opts o;
    struct store_s3 *dst;
    struct keyring *keys = NULL;

    if (!cli_side_given(f))
        return cli_s3(c, e);
    if (c->src.s3)
        return c->src.s3;
    if (c->run_file) {
        s3c_fail(e, S3C_EUSAGE, "--source-profile, --source-endpoint-url, --source-no-sign-request, "
                 "--source-ca-bundle and --source-addressing-style are not taken on a run file's line");
        return NULL;
    }
    if (!(dst = cli_s3(c, e)))
        return NULL;
    /* A source profile brings its own endpoint, region and keys: the destination's flags for
     * those do not carry over to it; the other global flags (timeouts, TLS checks) do. */
    if (f->profile) {
        sf.profile = f->profile;
        sf.endpoint_url = sf.region = sf.ca_bundle = NULL;
        sf.no_sign_request = false;
    }
    if (f->endpoint_url)
        sf.endpoint_url = f->endpoint_url;
    if (f->region)
        sf.region = f->region;
    if (f->ca_bundle)
        sf.ca_bundle = f->ca_bundle;
    if (f->no_sign_request)
        sf.no_sign_request = true;
    if (cfg_load(&c->src.cfg, &sf, environ, e))
        return side_failed(e);
    if (f->addressing_style) {
        c->src.cfg.s3.addressing_style = !strcmp(f->addressing_style, "path")      ? CFG_ADDRESSING_PATH
                                         : !strcmp(f->addressing_style, "virtual") ? CFG_ADDRESSING_VIRTUAL
                                                                                   : CFG_ADDRESSING_AUTO;
        c->src.cfg.s3.addressing_style_set = true;
    }
    if (!c->src.cfg.no_sign_request &&
        !(keys = c->src.keys = keys_make(c, &c->src.cfg, "source side", &c->src.creds_src, e)))
        return side_failed(e);
    store_opts(&c->src.cfg, keys, &o);
    o.loop = store_s3_loop(dst); /* the engine steps that one loop: both sides' requests go on it */
    o.side = "source";
    if (!(c->src.s3 = store_s3_new(&o, e)))
        return NULL;
    store_s3_side_set(dst, "destination");
    return c->src.s3;
}

void cli_ctx_release(struct cli_ctx *c)
{
    keyring_free(c->src.keys); /* first: they join refreshes that may wake the stores' loop */
    keyring_free(c->keys);
    store_s3_free(c->src.s3);  /* before the store whose loop it borrows */
    creds_src_free(c->src.creds_src);
    cfg_release(&c->src.cfg);
    store_s3_free(c->s3);
    creds_src_free(c->creds_src);
    cfg_release(&c->cfg);
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

const char *cli_global_flag_at(int i, bool *takes_value)
{
    if (i < 0 || i >= (int)(sizeof(global_flags) / sizeof(global_flags[0])) || !global_flags[i].name)
        return NULL;
    *takes_value = global_flags[i].takes_value;
    return global_flags[i].name;
}
