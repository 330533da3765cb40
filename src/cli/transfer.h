/*
 * transfer: what cp and mv share — their flags, the stream of objects to
 * move (one object, a local walk or an S3 listing), the result lines, and
 * mv's deletion of sources after verified copies.
 */
#ifndef S3C_CLI_TRANSFER_H
#define S3C_CLI_TRANSFER_H

#include "cli/cmd.h"

/* Run cp or mv ('verb') with its arguments. */
enum s3c_err transfer_main(struct cli_ctx *c, const char *verb, int argc, char **argv);

enum s3c_err cmd_cp(struct cli_ctx *c, int argc, char **argv);
enum s3c_err cmd_mv(struct cli_ctx *c, int argc, char **argv);

#endif
