/*
 * creds_impl: the inside of the credential chain, shared by src/auth/creds*.c
 * and the unit tests only. creds.c walks the chain; each other file is one
 * family of providers (STS, SSO, processes, metadata services) or a helper
 * they share (creds_value.c: keys and struct creds_src made and freed; the
 * blocking HTTP call, the CLI's JSON cache, time stamps). Nothing here
 * prints.
 */
#ifndef S3C_AUTH_CREDS_IMPL_H
#define S3C_AUTH_CREDS_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include <jansson.h>

#include "auth/creds.h"
#include "base/buf.h"

#define CREDS_CACHE_WINDOW_S (15 * 60)      /* a cached entry must outlive now by this */
#define CREDS_JSON_MAX_BYTES ((size_t)1 << 20)
#define CREDS_CHAIN_MAX 16                   /* source_profile hops */

enum creds_kind {
    CREDS_KIND_STATIC = 0,      /* env, shared-credentials-file, config-file */
    CREDS_KIND_PROCESS,
    CREDS_KIND_ROLE,
    CREDS_KIND_WEB_IDENTITY,
    CREDS_KIND_SSO,
    CREDS_KIND_CONTAINER,
    CREDS_KIND_IMDS,
};

/* How the chain's own HTTP calls reach their services. */
struct creds_net {
    bool verify_tls;
    char *ca_bundle;            /* owned, NULL: system default */
};

/* An AWS service endpoint: URL and the region to sign for. */
struct creds_endpoint {
    char *url;                  /* owned: "https://sts.us-east-1.amazonaws.com" */
    char *region;               /* owned: signing region */
};

/* Every field owned; which ones are set depends on 'kind'. */
struct creds_src {
    enum creds_kind kind;
    const char *method;
    struct creds keys;          /* STATIC: the keys, handed out again on refresh */
    struct creds_net net;
    char *profile;              /* the profile it came from, for messages */
    char *cache_dir;            /* ~/.aws/cli/cache; NULL: no cache (no HOME) */
    bool skip_cache;            /* the next fetch asks the service: the cached keys were refused */

    char *command;              /* PROCESS: credential_process, as configured */

    struct creds_src *source;   /* ROLE: where the keys to call STS come from */
    char *role_arn;             /* ROLE, WEB_IDENTITY */
    char *session_name;         /* ROLE, WEB_IDENTITY: given or botocore-session-EPOCH */
    bool session_default;       /* ... generated: not part of the cache key */
    char *external_id;          /* ROLE */
    char *mfa_serial;           /* ROLE */
    long duration_s;            /* ROLE: 0 = not configured */
    bool fetched;               /* ROLE with mfa_serial: a second fetch fails */
    char *token_file;           /* WEB_IDENTITY: the token; SSO: the token cache directory */
    struct creds_endpoint sts;  /* ROLE, WEB_IDENTITY */

    char *sso_session;          /* SSO: the [sso-session] name, NULL for the legacy form */
    char *start_url, *sso_region, *account_id, *role_name;
    struct creds_endpoint sso;

    char *url;                  /* CONTAINER: the full URL */
    char *auth_token;           /* CONTAINER: AWS_CONTAINER_AUTHORIZATION_TOKEN */
    char *auth_token_file;      /* CONTAINER: AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE */

    char *imds_base;            /* IMDS: "http://169.254.169.254/" or configured */
    long imds_timeout_ms;
    int imds_attempts;
    bool want_region;           /* IMDS: no region configured: ask for the instance's */
    char *region;               /* IMDS: the instance's region, once learnt */
};

/* What one resolution reads; the providers build sources from it. */
struct creds_ctx {
    const struct s3c_config *cfg;
    char *const *envp;
    bool env_disabled;                      /* --profile drops the environment providers */
    const char *visited[CREDS_CHAIN_MAX];   /* profiles on the source_profile path */
    size_t n_visited;
};

/* Pause between attempts at STS and the container endpoint (tests shorten it). */
extern long creds_retry_delay_ms;

/* ---- creds_value.c: keys, sources and endpoints made and freed ---- */

/* A new, empty source of 'kind' for 'profile' (may be NULL); NULL on OOM. */
struct creds_src *creds_src_new(const struct creds_ctx *x, enum creds_kind kind,
                                const char *method, const char *profile);

/* A profile's value for key (credentials file first, then config), NULL if absent. */
const char *creds_prof(const struct creds_ctx *x, const char *profile, const char *key);

/* strdup that fails with S3C_ENOMEM into 'e'; 's' NULL gives NULL and OK. */
enum s3c_err creds_dup(char **dst, const char *s, struct s3c_error *e);

/* Wipe and free a secret string. */
void creds_free_secret(char *s);

void creds_endpoint_release(struct creds_endpoint *ep);

/* ---- creds_time.c ---- */

/*
 * An ISO 8601 time as botocore's parser takes the forms AWS services and the
 * CLI write: "2024-05-01T12:00:00Z", "...UTC", "...+02:00", "...-0500",
 * fractions of a second, ' ' for 'T', the basic "20240501T120000Z". No zone
 * means UTC. False for anything else.
 */
bool creds_parse_time(const char *s, time_t *out);

/* "2024-05-01T12:00:00Z" (UTC); 'out' holds 21 bytes. */
void creds_format_time(time_t t, char out[21]);

/* Lower-case hex SHA-1 of 'n' bytes; 'out' holds 41 bytes. */
void creds_sha1_hex(const void *p, size_t n, char out[41]);

/* ---- creds_cache.c: the AWS CLI's JSONFileCache (~/.aws/cli/cache) ---- */

/*
 * The file name (without ".json") botocore's AssumeRole and web identity
 * fetchers use: the SHA-1 of json.dumps(args, sort_keys=True) over RoleArn,
 * RoleSessionName (unless generated), ExternalId, SerialNumber and
 * DurationSeconds. 'out' holds 41 bytes.
 */
enum s3c_err creds_cache_key_role(const struct creds_src *s, char out[41], struct s3c_error *e);

/* The SSO fetcher's: compact sorted JSON of accountId, roleName and sessionName or startUrl. */
enum s3c_err creds_cache_key_sso(const struct creds_src *s, char out[41], struct s3c_error *e);

/*
 * Keys from cache entry 'key' in 'dir', if it holds Credentials that expire
 * more than CREDS_CACHE_WINDOW_S after 'now'. *hit false (and no error) when
 * there is no such entry, it is unreadable, malformed or too old.
 */
enum s3c_err creds_cache_read(const char *dir, const char *key, time_t now, struct creds *out,
                              bool *hit, struct s3c_error *e);

/*
 * Write 'entry' (a JSON object with "Credentials") as entry 'key' in 'dir':
 * the directory is created if missing, the file is written 0600 beside its
 * final name and renamed into place. Failing to write a cache is not an
 * error for the caller: it gets S3C_OK and nothing changes.
 */
void creds_cache_write(const char *dir, const char *key, json_t *entry);

/* The JSON object of a credentials entry as the CLI writes it; NULL on OOM. */
json_t *creds_cache_entry(const struct creds *c, const char *expiration_text);

/* ---- creds_http.c: one blocking request on a libcurl easy handle ---- */

struct creds_http_req {
    const char *method;             /* "GET", "PUT", "POST" */
    const char *url;
    const char *const *headers;     /* "Name: value" lines */
    size_t n_headers;
    const char *body;               /* NULL: none */
    size_t body_len;
    long timeout_ms;                /* whole request; 0: 10 s */
    long connect_timeout_ms;        /* 0: the same as timeout_ms */
    const struct creds_net *net;
};

/*
 * Send the request; the reply's status and body (capped at
 * CREDS_JSON_MAX_BYTES) go to *status and 'body'. Any HTTP status is S3C_OK;
 * no answer (connect, TLS, timeout) is S3C_ENET with curl's reason.
 * *timed_out (may be NULL) says the failure was a timeout.
 */
enum s3c_err creds_http(const struct creds_http_req *r, long *status, struct buf *body,
                        bool *timed_out, struct s3c_error *e);

/* ---- creds_process.c ---- */

/*
 * Split 'cmd' into words as Python's shlex.split (POSIX mode, no comments).
 * argv is a NULL-terminated array of strings, all in one allocation: free(*argv).
 */
enum s3c_err creds_shell_split(const char *cmd, char ***argv, struct s3c_error *e);

/* Parse a credential_process reply (JSON, Version 1) into *out. */
enum s3c_err creds_process_parse(const char *json_text, size_t n, struct creds *out,
                                 struct s3c_error *e);

enum s3c_err creds_process_fetch(struct creds_src *s, struct creds *out, struct s3c_error *e);

/* ---- creds_sts.c ---- */

/* The STS endpoint botocore's client would use for cfg's profile. */
enum s3c_err creds_sts_endpoint(const struct creds_ctx *x, struct creds_endpoint *out,
                                struct s3c_error *e);

/*
 * The assume-role provider for 'profile': *out NULL if the profile has no
 * role_arn. Its source_profile or credential_source is checked here; the
 * chain (creds.c) then sets (*out)->source.
 */
enum s3c_err creds_role_setup(struct creds_ctx *x, const char *profile, struct creds_src **out,
                              struct s3c_error *e);

/* The web identity provider: *out NULL if no token file is configured. */
enum s3c_err creds_web_identity_setup(struct creds_ctx *x, const char *profile,
                                      bool use_env, struct creds_src **out, struct s3c_error *e);

/*
 * A role's keys from the CLI's cache (*hit), if fresh; refuses a second
 * fetch of keys that needed an MFA code. On a miss the chain fetches the
 * source's keys and calls creds_role_fetch.
 */
enum s3c_err creds_role_cached(struct creds_src *s, struct creds *out, bool *hit,
                               struct s3c_error *e);
/* AssumeRole, signed with 'src' (the keys of s->source), asking for the MFA code if needed. */
enum s3c_err creds_role_fetch(struct creds_src *s, const struct creds *src, struct creds *out,
                              struct s3c_error *e);
enum s3c_err creds_web_identity_fetch(struct creds_src *s, struct creds *out,
                                      struct s3c_error *e);

/* An endpoint for service 'svc' ("sts", "sso"): variables, services section, profile, default. */
enum s3c_err creds_service_endpoint(const struct creds_ctx *x, const char *svc,
                                    const char *env_suffix, const char *region,
                                    struct creds_endpoint *out, bool *configured,
                                    struct s3c_error *e);

/* ---- creds_sso.c ---- */

/* The SSO provider for 'profile': *out NULL unless sso_account_id or sso_role_name is set. */
enum s3c_err creds_sso_setup(struct creds_ctx *x, const char *profile, struct creds_src **out,
                             struct s3c_error *e);
enum s3c_err creds_sso_fetch(struct creds_src *s, struct creds *out, struct s3c_error *e);

/* The file name (without ".json") of the SSO token: SHA-1 of the session name or start URL. */
void creds_sso_token_key(const char *session_or_url, char out[41]);

/* The access token `aws sso login` left in s->token_file (the cache directory), if it has
 * not expired; *token owned (free with creds_free_secret). Also for tests/fuzz. */
enum s3c_err creds_sso_load_token(const struct creds_src *s, char **token, struct s3c_error *e);

/* ---- creds_imds.c ---- */

/* Container credentials: *out NULL unless the RELATIVE_URI or FULL_URI variable is set. */
enum s3c_err creds_container_setup(struct creds_ctx *x, struct creds_src **out,
                                   struct s3c_error *e);
enum s3c_err creds_container_fetch(struct creds_src *s, struct creds *out, struct s3c_error *e);

/* botocore's rule for AWS_CONTAINER_CREDENTIALS_FULL_URI: https anywhere, http to loopback
 * or the ECS / EKS addresses. */
bool creds_container_url_allowed(const char *url);

/* EC2 instance metadata: *out NULL when disabled by AWS_EC2_METADATA_DISABLED. */
enum s3c_err creds_imds_setup(struct creds_ctx *x, const char *profile, struct creds_src **out,
                              struct s3c_error *e);

/* S3C_OK with keys, or S3C_ENOTFOUND when the service gave none (the chain goes on). */
enum s3c_err creds_imds_fetch(struct creds_src *s, struct creds *out, struct s3c_error *e);

/* Keys from a metadata-service JSON object (AccessKeyId, SecretAccessKey, Token, Expiration). */
enum s3c_err creds_from_metadata_json(json_t *o, const char *what, struct creds *out,
                                      struct s3c_error *e);

#endif
