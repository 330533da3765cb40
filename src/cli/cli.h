/*
 * cli: argv to exit code. Parses global flags and the verb, loads the
 * configuration, runs the verb. The only module that decides exit codes.
 */
#ifndef S3C_CLI_CLI_H
#define S3C_CLI_CLI_H

#include <stdbool.h>

/* Exit codes, as the AWS CLI's s3 commands use them. */
enum {
    EXIT_OK = 0,
    EXIT_FAILED = 1,   /* a request or transfer failed */
    EXIT_USAGE = 2,    /* bad command line or configuration */
    EXIT_SIGINT = 130, /* interrupted */
};

int cli_main(int argc, char **argv);

/* The version (from the VERSION file), and `s3c version`'s report: it, the
 * libraries' versions and the CPU features used (cli/version.c). */
const char *cli_version(void);
void cli_version_print(void);

/* For the man page, the completions and their tests (cli/doc.h): the verbs
 * cli_main() dispatches and the global flags it takes, by index; NULL past
 * the last. */
const char *cli_verb_at(int i);
const char *cli_global_flag_at(int i, bool *takes_value);

#endif
