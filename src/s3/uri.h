/*
 * uri: "s3://bucket/key" arguments as the AWS CLI and s5cmd accept them.
 * No I/O. The key is kept raw (not percent-decoded): "s3://b/a%20b" names
 * the key "a%20b", as in the AWS CLI.
 */
#ifndef S3C_S3_URI_H
#define S3C_S3_URI_H

#include <stdbool.h>

#include "base/err.h"

struct s3_uri {
    char *bucket;   /* never NULL after a successful parse; may be "" for "s3://" */
    char *key;      /* "" when absent; "dir/" keeps its slash */
};

#define S3_URI_INIT { NULL, NULL }

/* True if 'arg' starts with "s3://" (case-insensitive scheme). */
bool s3_uri_is(const char *arg);

/* Parse; S3C_EUSAGE with a one-line message on a malformed argument. */
enum s3c_err s3_uri_parse(const char *arg, struct s3_uri *out, struct s3c_error *e);
void s3_uri_release(struct s3_uri *u);

#endif
