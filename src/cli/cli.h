/*
 * cli: argv to exit code. Parses global flags and the verb, loads the
 * configuration, runs the verb. The only module that decides exit codes.
 */
#ifndef S3C_CLI_CLI_H
#define S3C_CLI_CLI_H

#include <stdbool.h>

/* Exit codes, as the AWS CLI v2 documents them (cli.c: exit_code). */
enum {
    EXIT_OK = 0,
    EXIT_FAILED = 1,    /* a transfer failed; a prefix or wildcard matched nothing */
    EXIT_SKIPPED = 2,   /* files or keys skipped with a warning, the rest done */
    EXIT_SIGINT = 130,  /* interrupted (SIGINT; SIGTERM: 143, 128 + the signal) */
    EXIT_USAGE = 252,   /* bad command line */
    EXIT_CONFIG = 253,  /* bad configuration, no credentials */
    EXIT_SERVICE = 254, /* the store answered with an error (ls, du, head) */
    EXIT_GENERAL = 255, /* anything else: the network, the machine */
};

int cli_main(int argc, char **argv);

/* The version (from the VERSION file), and `s3c version`'s report: it, the
 * libraries' versions and the CPU features used (cli/version.c). */
const char *cli_version(void);
void cli_version_print(void);

/* For the man page, the completions and their tests (cli/doc.h): the verbs
 * cli_main() dispatches, by index; NULL past the last. (The global flags it
 * takes: cli_global_flag_at(), cli/ctx.h.) */
const char *cli_verb_at(int i);

#endif
