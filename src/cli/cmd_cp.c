/*
 * cp and mv: local <-> S3 and S3 -> S3, single objects or --recursive, on
 * the transfer engine. The source of objects is a stream (a local walk or
 * an S3 listing, a page at a time), so memory does not grow with the count.
 * mv deletes each source only after its copy has succeeded (the engine
 * verified it).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/args.h"
#include "cli/cmd.h"
#include "cli/output.h"
#include "cli/transfer.h"
#include "fs/path.h"
#include "s3/uri.h"
#include "s3/xml.h"
#include "xfer/xfer.h"

enum s3c_err cmd_cp(struct cli_ctx *c, int argc, char **argv)
{
    return transfer_main(c, "cp", argc, argv);
}

enum s3c_err cmd_mv(struct cli_ctx *c, int argc, char **argv)
{
    return transfer_main(c, "mv", argc, argv);
}
