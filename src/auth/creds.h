/*
 * creds: the AWS CLI v2's credential chain, in botocore's order, for one
 * profile: environment, assume role (role_arn with source_profile or
 * credential_source), web identity, SSO, the shared credentials file,
 * credential_process, the config file's keys, container credentials and
 * EC2 instance metadata (IMDSv2). Assumed-role, web-identity and SSO
 * credentials are shared with the AWS CLI through its cache (~/.aws/cli/cache).
 *
 * What it is not: it does not sign S3 requests or decide when to refresh
 * (the store and its refresh thread do); it never prints (the caller prints
 * the method under --debug). Nothing secret is ever put in a message.
 * Threads: a creds_src is used by one thread at a time.
 */
#ifndef S3C_AUTH_CREDS_H
#define S3C_AUTH_CREDS_H

#include <time.h>

#include "base/err.h"
#include "cfg/config.h"

/* One set of keys. */
struct creds {
    char *access_key;        /* owned */
    char *secret_key;        /* owned; wiped on release */
    char *session_token;     /* owned, NULL: none; wiped on release */
    time_t expires;          /* 0: never expires */
    const char *method;      /* botocore's method name, static: "env", "assume-role",
                                "assume-role-with-web-identity", "sso", "shared-credentials-file",
                                "custom-process", "config-file", "container-role", "iam-role" */
};
#define CREDS_INIT { 0 }

/* Wipe the secrets, free everything; 'c' becomes CREDS_INIT. NULL is a no-op. */
void creds_release(struct creds *c);

/* Deep copy of 'src' into 'dst' (released first). S3C_ENOMEM on OOM ('dst' then empty). */
enum s3c_err creds_copy(struct creds *dst, const struct creds *src);

/* The message of creds_resolve() when no provider has credentials (the AWS CLI's). */
#define CREDS_NO_CREDENTIALS \
    "Unable to locate credentials. You can configure credentials by running \"aws configure\"."

/* The provider chosen for a run; can fetch fresh keys again (refresh). */
struct creds_src;

/*
 * Find the provider botocore would use for cfg's profile and fetch its first
 * keys into *first (which must be CREDS_INIT or released). Blocking: may call
 * STS, SSO, the container or instance metadata service, or run a process.
 * 'envp' as cfg_load() takes it. 'cfg' need not outlive *out: the source
 * copies what it needs.
 *
 * No provider: S3C_EAUTH with "Unable to locate credentials. You can
 * configure credentials by running \"aws configure\"." A bad configuration
 * (partial keys, a missing source_profile, a loop) is S3C_ECONFIG; a
 * provider that fails is S3C_EAUTH (refused) or S3C_ENET / S3C_EIO, and the
 * message names the provider and why in one line. On failure *out is NULL
 * and *first is empty.
 */
enum s3c_err creds_resolve(const struct s3c_config *cfg, char *const *envp,
                           struct creds_src **out, struct creds *first, struct s3c_error *e);

/*
 * Fetch fresh keys from the same provider into *out (CREDS_INIT or released).
 * Blocking; called from a refresh thread, never two at once. Static keys
 * (environment, files) come back unchanged, with the same expiry when
 * AWS_CREDENTIAL_EXPIRATION gave one. A cached role, web identity or SSO
 * entry is reused while it is good for more than 15 minutes (the CLI's
 * window); a refresh ahead of that window gets the same keys. A role that
 * needs an MFA code cannot refresh (S3C_EAUTH), as in botocore.
 */
enum s3c_err creds_src_fetch(struct creds_src *s, struct creds *out, struct s3c_error *e);

/*
 * The keys this source gave were refused (ExpiredToken): its next fetch asks
 * the service itself, not the cache that may hold the same keys. Not while a
 * fetch runs.
 */
void creds_src_skip_cache(struct creds_src *s);

/* Free the source and every key it holds. NULL is a no-op. */
void creds_src_free(struct creds_src *s);

/* The method name of the source ("env", "sso", ...). */
const char *creds_src_method(const struct creds_src *s);

/* With IMDS credentials and no region configured, the instance's region (else NULL). */
const char *creds_src_region(const struct creds_src *s);

#endif
