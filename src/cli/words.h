/*
 * words: one line of a `run` file split into arguments, as a POSIX shell
 * splits a simple command, without any expansion: blanks separate words;
 * 'single quotes' keep everything literally; "double quotes" keep
 * everything but \" \\ \$ \` (backslash-newline is not supported: one line,
 * one command); a backslash outside quotes takes the next byte literally;
 * a word starting with # starts a comment. No globbing, no variables: the
 * wildcards of s3:// paths reach s3c untouched. Bytes other than blanks and
 * quotes pass through as they are (UTF-8 keys survive).
 */
#ifndef S3C_CLI_WORDS_H
#define S3C_CLI_WORDS_H

#include "base/buf.h"
#include "base/err.h"

#define WORDS_MAX 1024

/*
 * Split 'line' (NUL-terminated, no newline) into at most WORDS_MAX words:
 * their bytes go into 'store' (each NUL-terminated) and argv[i] points at
 * word i, valid while 'store' is. *argc 0 for a blank or comment line.
 * S3C_EUSAGE for an unterminated quote, a trailing backslash or too many words.
 */
enum s3c_err words_split(const char *line, struct buf *store, char **argv, int *argc, struct s3c_error *e);

#endif
