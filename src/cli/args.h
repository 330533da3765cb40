/*
 * args: command-line flags, "--name value" and "--name=value" alike, as the
 * AWS CLI accepts them anywhere after the verb. A verb lists its flags in a
 * table; anything else starting with "--" is a usage error.
 */
#ifndef S3C_CLI_ARGS_H
#define S3C_CLI_ARGS_H

#include <stdbool.h>

#include "base/err.h"

enum arg_kind {
    ARG_BOOL,       /* --flag sets *b = true */
    ARG_STR,        /* --flag VALUE sets *s (points into argv) */
    ARG_STR_LIST,   /* repeatable: appends to a list (see struct arg_list) */
    ARG_STR_NARGS,  /* ARG_STR_LIST that also takes each following NAME=VALUE argument (one holding
                       '=', not starting with '-' nor s3://): argparse's nargs='+' (--grants), less
                       greedy, so a path without '=' stays positional */
};

#define ARG_LIST_MAX 256

struct arg_list {
    const char *v[ARG_LIST_MAX];
    const char *flag[ARG_LIST_MAX];   /* which flag gave each value, for --exclude/--include order */
    int n;
};

struct arg_spec {
    const char *name;       /* "--recursive" */
    const char *alias;      /* "-r" or NULL */
    enum arg_kind kind;
    void *dst;              /* bool *, const char **, or struct arg_list * */
};

/*
 * Parse argv[0..argc) against 'specs' (terminated by a {NULL} entry).
 * Positional arguments are collected into pos[] (at most max_pos). "--" ends
 * flag parsing. Errors are S3C_EUSAGE with a message naming 'verb'.
 */
enum s3c_err args_parse(const char *verb, const struct arg_spec *specs, int argc, char **argv,
                        const char **pos, int max_pos, int *n_pos, struct s3c_error *e);

/*
 * For the man page, the completions and their tests only (cli/doc.c): while a
 * probe is set, args_parse() hands its table to 'fn' and fails with
 * S3C_EUSAGE before reading argv, so a verb can be asked which flags it
 * accepts without running it. One thread; NULL unsets.
 */
typedef void (*args_probe_fn)(const char *verb, const struct arg_spec *specs, void *arg);
void args_set_probe(args_probe_fn fn, void *arg);

#endif
