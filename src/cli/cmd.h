/*
 * cmd: what every verb gets, and the verbs themselves (one file each).
 * A verb prints its own results and error lines through output.h and
 * returns an s3c_err; cli_main() alone turns that into an exit code.
 */
#ifndef S3C_CLI_CMD_H
#define S3C_CLI_CMD_H

#include <stdint.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/str.h"
#include "cfg/config.h"
#include "cli/args.h"
#include "plan/filter.h"
#include "cli/ctx.h"
#include "store/store_s3.h"

enum s3c_err cmd_ls(struct cli_ctx *c, int argc, char **argv);
enum s3c_err cmd_mb(struct cli_ctx *c, int argc, char **argv);
enum s3c_err cmd_rb(struct cli_ctx *c, int argc, char **argv);
enum s3c_err cmd_head(struct cli_ctx *c, int argc, char **argv);
enum s3c_err cmd_rm(struct cli_ctx *c, int argc, char **argv);
enum s3c_err cmd_restore(struct cli_ctx *c, int argc, char **argv);
enum s3c_err cmd_du(struct cli_ctx *c, int argc, char **argv);
enum s3c_err cmd_cat(struct cli_ctx *c, int argc, char **argv);
enum s3c_err cmd_pipe(struct cli_ctx *c, int argc, char **argv);
enum s3c_err cmd_presign(struct cli_ctx *c, int argc, char **argv);
enum s3c_err cmd_sync(struct cli_ctx *c, int argc, char **argv);
enum s3c_err cmd_run(struct cli_ctx *c, int argc, char **argv);
enum s3c_err cmd_configure(struct cli_ctx *c, int argc, char **argv);

/* A verb's entry point by name (cli.c's table, for doc.c); NULL if unknown. */
cli_verb_fn cli_verb(const char *name);

/* The AWS CLI's human_readable_size(): "1 Byte", "512 Bytes", "1.5 KiB", "2.0 GiB". */
void cli_human_size(uint64_t v, char out[32]);

/* s5cmd's HumanizeBytes: "1023", "1024", "1.5K", "2.0G" (the largest unit strictly below). */
void cli_humanize_s5(uint64_t v, char out[32]);

/* A listed storage class, or "STANDARD" when the store listed none. */
const char *cli_storage_class(const char *listed);

/* An ETag without its quotes, as s5cmd shows it (a view into 'etag'). */
struct sv cli_etag_bare(const char *etag);

/* --page-size: *out = 1..1000 (unchanged when 's' is NULL); S3C_EUSAGE otherwise. */
enum s3c_err cli_page_size(const char *verb, const char *s, int *out, struct s3c_error *e);

/*
 * --exclude/--include from 'list' into 'f', and the AWS CLI's filter root of
 * the s3:// argument 'arg' into 'root' (nothing when the list is empty).
 */
enum s3c_err cli_filters(const struct arg_list *list, const char *arg, struct filter *f,
                         struct buf *root, struct s3c_error *e);

/* help text of one verb, or of all when 'verb' is NULL; false if unknown. */
bool cli_help(const char *verb);
/* --install-completion: how 'shell' ($SHELL, may be NULL) gets s3c's completions, on stdout. */
void cli_completion_help(const char *shell);

#endif
