/*
 * ctx: what every verb gets from the run (ctx.c), below the verbs: the
 * configuration, the store and the keys made on first use, the op name of
 * error lines, and the global flags. cli.c only dispatches to the verbs;
 * the verbs call down to here, never back up to it.
 */
#ifndef S3C_CLI_CTX_H
#define S3C_CLI_CTX_H

#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"
#include "cfg/config.h"

struct cfg_flags;
struct creds_src;
struct keyring;
struct out_opts;
struct store_s3;
struct cli_ctx;

/*
 * s5cmd's global flags that are a verb's flags in s3c (given before the
 * verb, as s5cmd takes them), and those that change how the run lists.
 */
struct cli_globals {
    bool dryrun;                /* --dry-run: every verb's --dryrun */
    bool stat;                  /* --stat: the verbs' --stat */
    const char *numworkers;     /* --numworkers N: the verbs' --numworkers, unless they give their own */
    const char *request_payer;  /* --request-payer: the verbs', unless they give their own */
    bool list_v1;               /* --use-list-objects-v1: listings with ListObjects (marker), not V2 */
    bool install_completion;    /* --install-completion: say how the shell gets s3c's completions */
};

/*
 * The source side's own settings in an S3 to S3 cp, mv or sync (the destination keeps the
 * global flags): what --source-profile, --source-endpoint-url, --source-region,
 * --source-no-sign-request, --source-ca-bundle and --source-addressing-style said (NULL,
 * false: not given).
 */
struct cli_side_flags {
    const char *profile;
    const char *endpoint_url;
    const char *region;
    const char *ca_bundle;
    const char *addressing_style;   /* auto, path or virtual */
    bool no_sign_request;
};

/* The source side of the run when it has settings of its own: made by cli_s3_source(). */
struct cli_side {
    struct s3c_config cfg;          /* the destination's flags, then its profile and --source-* */
    struct creds_src *creds_src;
    struct keyring *keys;           /* refreshed apart from the destination's */
    struct store_s3 *s3;            /* on the destination store's loop */
};

/* A verb's entry point. */
typedef enum s3c_err (*cli_verb_fn)(struct cli_ctx *c, int argc, char **argv);

struct cli_ctx {
    struct s3c_config cfg;      /* resolved configuration */
    const char *region_flag;    /* --region as given, NULL when not */
    struct cli_globals g;       /* s5cmd's globals for the verbs (cli_take_globals) */
    struct creds_src *creds_src; /* the credential provider, found on first use by cli_keys() */
    struct keyring *keys;       /* its keys, refreshed as they near expiry */
    struct store_s3 *s3;        /* created on first use by cli_s3() */
    struct cfg_flags flags;     /* the global flags as given (the source side starts from them) */
    struct cli_side src;        /* the source side, when it has settings of its own (cli_s3_source) */
    bool run_file;              /* the verbs are a run file's lines, on one engine: one side for all */
    bool reads_only;            /* the verb writes no bucket: ReadOnly S3 Express sessions */
    /* The dispatcher's verbs by name, NULL if unknown (run's barrier lines):
     * cli_main() hands its table down, so run calls no file above it. NULL
     * when the ctx is not cli_main()'s (doc.c's flag probe). */
    cli_verb_fn (*verb)(const char *name);
};

/*
 * The keys of this run, from the provider botocore would choose (found and
 * first fetched on the first call); NULL with 'e' set when there are none
 * or the provider failed. Not for --no-sign-request runs.
 */
struct keyring *cli_keys(struct cli_ctx *c, struct s3c_error *e);

/* The S3 store for this run, created on first call; NULL with 'e' set on failure. */
struct store_s3 *cli_s3(struct cli_ctx *c, struct s3c_error *e);

/*
 * Whether 'f' gives the source side settings of its own (--source-region alone does not: the
 * store signs for it by bucket, objopts_source_region).
 */
bool cli_side_given(const struct cli_side_flags *f);

/*
 * The store of the source side of an S3 to S3 copy: cli_s3() when 'f' gives nothing of its
 * own (cli_side_given); else one made on the first call from the global flags, where
 * --source-profile (a profile's own endpoint, region, s3 section and credentials, any
 * provider) and then each --source-* flag replace the destination's. It runs on cli_s3()'s
 * loop, its keys refreshed apart; --debug lines and errors name its side. NULL with 'e' set
 * (naming the source side) on failure; S3C_EUSAGE in a run file, whose lines share one engine.
 */
struct store_s3 *cli_s3_source(struct cli_ctx *c, const struct cli_side_flags *f, struct s3c_error *e);

/* Free what the run made (the keys, the store, the provider, the config). */
void cli_ctx_release(struct cli_ctx *c);

/* The verb writes no bucket (or does): reads then ask for ReadOnly S3
 * Express sessions (writes always take ReadWrite ones). */
void cli_reads_only(struct cli_ctx *c, bool reads_only);

/*
 * The command line's global flags, wherever they stand (before "--"), and
 * s5cmd's flags that are globals only before the verb (-r N is --retry-count
 * there, a verb's --recursive after it): moved out of argv[1..argc) into 'f',
 * 'o' and 'g'; the rest stays in order in rest[]
 * (room for argc entries), *n_rest of them. S3C_EUSAGE on a flag's missing
 * or unwanted value.
 */
enum s3c_err cli_take_globals(int argc, char **argv, struct cfg_flags *f, struct out_opts *o,
                              struct cli_globals *g, char **rest, int *n_rest, struct s3c_error *e);

/*
 * A run file's line: take the global options out of argv[1..*argc) (argv[0]
 * is its verb), closing the gap. The output ones (--json, --quiet,
 * --only-show-errors, --no-progress) go into 'o'; the others (--endpoint-url,
 * --profile, --region, --debug...) are the run's, not a line's: S3C_EUSAGE.
 */
enum s3c_err cli_line_globals(int *argc, char **argv, struct out_opts *o, struct s3c_error *e);

/* "ls s3://b/p" from a verb and its arguments, for error lines. */
void cli_op_name(char *out, size_t n, const char *verb, int argc, const char **argv);

/* For the man page, the completions and their tests (cli/doc.h): the global
 * flags by index (and whether each takes a value); NULL past the last. */
const char *cli_global_flag_at(int i, bool *takes_value);

#endif
