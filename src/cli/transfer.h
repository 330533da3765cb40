/*
 * transfer: cp and mv as jobs (cli/job.h) — their flags, the destination
 * of each object their source yields (one object, a local walk, an S3
 * listing or a manifest: cli/objsrc.h), the skips by destination, the
 * result lines, and mv's deletion of sources after verified copies.
 */
#ifndef S3C_CLI_TRANSFER_H
#define S3C_CLI_TRANSFER_H

#include "cli/cmd.h"

enum s3c_err cmd_cp(struct cli_ctx *c, int argc, char **argv);
enum s3c_err cmd_mv(struct cli_ctx *c, int argc, char **argv);

#endif
