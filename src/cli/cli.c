#include "cli/cli.h"

#include <stdio.h>
#include <string.h>

int cli_main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "version") == 0) {
        printf("s3c %s\n", S3C_VERSION);
        return EXIT_OK;
    }
    fprintf(stderr, "usage: s3c VERB ...\n");
    return EXIT_USAGE;
}
