/*
 * cli: argv to exit code. Parses global flags and the verb, loads the
 * configuration, runs the verb. The only module that decides exit codes.
 */
#ifndef S3C_CLI_CLI_H
#define S3C_CLI_CLI_H

#define S3C_VERSION "0.1.0"

/* Exit codes, as the AWS CLI's s3 commands use them. */
enum {
    EXIT_OK = 0,
    EXIT_FAILED = 1,   /* a request or transfer failed */
    EXIT_USAGE = 2,    /* bad command line or configuration */
    EXIT_SIGINT = 130, /* interrupted */
};

int cli_main(int argc, char **argv);

#endif
