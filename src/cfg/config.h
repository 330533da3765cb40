/*
 * config: the fully resolved configuration of one s3c run, with the AWS
 * CLI's precedence: command-line flags > environment > config files >
 * defaults. It reads ~/.aws/config and ~/.aws/credentials (or the files
 * named by AWS_CONFIG_FILE / AWS_SHARED_CREDENTIALS_FILE) the way botocore
 * does, and validates every value it knows, so later code trusts the struct.
 *
 * Precedence, field by field (first hit wins):
 *   profile     --profile, AWS_DEFAULT_PROFILE, AWS_PROFILE, "default"
 *   region      --region, AWS_REGION, AWS_DEFAULT_REGION, profile `region`,
 *               "us-east-1"
 *   endpoint    --endpoint-url, AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL,
 *               `[services X]` section's `s3 = endpoint_url`, the profile's
 *               `s3 = endpoint_url` (an s3c extension), profile
 *               `endpoint_url`, none. AWS_IGNORE_CONFIGURED_ENDPOINT_URLS or
 *               `ignore_configured_endpoint_urls = true` skip all but the flag.
 *   credentials not here: the chain in auth/creds.h (creds_resolve())
 *               reads them from the files kept below, every provider in
 *               botocore's order, with its errors for partial keys.
 *   ca_bundle   --ca-bundle, AWS_CA_BUNDLE, profile `ca_bundle`
 *   the rest    environment (AWS_MAX_ATTEMPTS, AWS_RETRY_MODE,
 *               AWS_REQUEST_CHECKSUM_CALCULATION, AWS_RESPONSE_CHECKSUM_VALIDATION,
 *               AWS_USE_DUALSTACK_ENDPOINT, AWS_S3_DISABLE_EXPRESS_SESSION_AUTH),
 *               then the profile, then defaults.
 *
 * A profile's settings come from its section in the credentials file first,
 * then from the config file ([default] or [profile NAME]), as botocore
 * merges the two. Empty environment variables count as unset. Unknown keys
 * are ignored. Errors are one line naming where the bad value came from:
 *   config file ~/.aws/config, profile "dev": s3.multipart_chunksize: "8XB" is not a size
 *
 * Not here: credentials of any kind, static keys included (auth/ owns the
 * credential chain and reads the parsed files through cfg_profile_get()),
 * and the smart defaults of the scheduler (xfer/ reads the *_set markers).
 * Nothing here prints, exits, or reads the process environment directly.
 */
#ifndef S3C_CFG_CONFIG_H
#define S3C_CFG_CONFIG_H

#include <stdbool.h>
#include <stdint.h>

#include "base/err.h"
#include "base/str.h"
#include "cfg/ini.h"

/* The AWS CLI's defaults (awscli/customizations/s3/transferconfig.py). */
#define CFG_DEFAULT_REGION "us-east-1"
#define CFG_DEFAULT_MAX_CONCURRENT_REQUESTS 10
#define CFG_DEFAULT_MULTIPART_THRESHOLD ((uint64_t)8 << 20)
#define CFG_DEFAULT_MULTIPART_CHUNKSIZE ((uint64_t)8 << 20)
#define CFG_DEFAULT_MAX_ATTEMPTS 5   /* standard mode says 3: too few for thousands of objects */

/* Global flags the CLI parsed. NULL / false mean "not given". */
struct cfg_flags {
    const char *endpoint_url;   /* --endpoint-url */
    const char *profile;        /* --profile */
    const char *region;         /* --region */
    const char *ca_bundle;      /* --ca-bundle */
    bool no_sign_request;       /* --no-sign-request */
    bool no_verify_ssl;         /* --no-verify-ssl */
    bool debug;                 /* --debug */
    const char *read_timeout;   /* --cli-read-timeout SECONDS */
    const char *connect_timeout; /* --cli-connect-timeout SECONDS */
    const char *retry_count;    /* s5cmd's --retry-count N: max_attempts N + 1 */
    const char *credentials_file; /* s5cmd's --credentials-file: AWS_SHARED_CREDENTIALS_FILE */
};

#define CFG_FLAGS_INIT { NULL, NULL, NULL, NULL, false, false, false, NULL, NULL, NULL, NULL }

enum cfg_addressing {
    CFG_ADDRESSING_AUTO = 0,    /* path for custom endpoints and non-DNS names */
    CFG_ADDRESSING_PATH,
    CFG_ADDRESSING_VIRTUAL,
};

enum cfg_retry_mode {
    CFG_RETRY_STANDARD = 0,     /* the AWS CLI v2 default */
    CFG_RETRY_LEGACY,
    CFG_RETRY_ADAPTIVE,
};

enum cfg_checksum_when {
    CFG_WHEN_SUPPORTED = 0,     /* the default for both checksum settings */
    CFG_WHEN_REQUIRED,
};

/* A number with its "was it configured" marker; value holds the default if not. */
struct cfg_u64 {
    uint64_t value;
    bool set;
};

struct cfg_bool {
    bool value;
    bool set;
};

/* The profile's `s3 =` sub-section. */
struct cfg_s3 {
    struct cfg_u64 max_concurrent_requests;  /* > 0 */
    struct cfg_u64 multipart_threshold;      /* bytes, > 0 */
    struct cfg_u64 multipart_chunksize;      /* bytes, > 0 */
    struct cfg_u64 max_bandwidth;            /* bytes per second; 0 and !set = unlimited */
    enum cfg_addressing addressing_style;
    bool addressing_style_set;
    struct cfg_bool payload_signing_enabled; /* default false */
    struct cfg_bool use_accelerate_endpoint; /* default false */
    struct cfg_bool use_dualstack_endpoint;  /* s3 section, else AWS_USE_DUALSTACK_ENDPOINT,
                                                else profile use_dualstack_endpoint */
};

/*
 * The resolved configuration. Every string is owned by the struct (freed by
 * cfg_release) and NULL when absent, except profile and region which are
 * never NULL after a successful cfg_load.
 */
struct s3c_config {
    char *profile;              /* profile in effect, "default" when none named */
    bool profile_explicit;      /* named by --profile or AWS_[DEFAULT_]PROFILE */
    bool profile_flag;          /* named by --profile (botocore then drops env credentials) */
    bool profile_found;         /* exists in the config or credentials file */
    char *config_file;          /* path as given (or "~/.aws/config"), for messages */
    char *credentials_file;     /* path as given (or "~/.aws/credentials") */

    char *region;               /* validated DNS label, e.g. "us-east-1" */
    bool region_set;            /* false: the default was used */
    char *endpoint_url;         /* http:// or https:// URL; NULL: AWS endpoints */

    char *ca_bundle;            /* PEM file path, NULL: system default */
    bool no_sign_request;       /* send requests unsigned; the CLI resolves no credentials */
    bool verify_ssl;            /* false only with --no-verify-ssl */
    bool debug;

    /* The two files as parsed, kept for auth/'s credential chain, which reads
     * any profile and [sso-session NAME] sections (cfg_profile_get()). */
    struct ini config_ini;
    struct ini credentials_ini;

    struct cfg_s3 s3;
    struct cfg_u64 max_attempts;            /* >= 1, includes the first attempt */
    /* --cli-read-timeout, else the profile's cli_read_timeout; the same for
     * connect. Seconds, per attempt; 0: none (as the AWS CLI). Not set: http's
     * defaults (read 60 s, as the AWS CLI; connect 10 s, where the CLI waits 60). */
    struct cfg_u64 read_timeout_s;
    struct cfg_u64 connect_timeout_s;
    enum cfg_retry_mode retry_mode;
    bool retry_mode_set;
    enum cfg_checksum_when request_checksum_calculation;
    bool request_checksum_calculation_set;
    enum cfg_checksum_when response_checksum_validation;
    bool response_checksum_validation_set;
    /* AWS_S3_DISABLE_EXPRESS_SESSION_AUTH, else the profile's
     * s3_disable_express_session_auth: directory buckets signed with the
     * IAM keys (for "s3express"), no CreateSession. Default false. */
    struct cfg_bool s3_disable_express_session_auth;
};

/* All zero: safe to cfg_release(); cfg_load() fills every field. */
#define S3C_CONFIG_INIT { 0 }

/*
 * Resolve the configuration into 'out' (which must be S3C_CONFIG_INIT or
 * released). 'flags' may be NULL (no flags). 'envp' is an environ-style
 * NULL-terminated array of "NAME=value" strings; NULL means an empty
 * environment (the CLI passes environ; tests pass their own). Files are
 * found through AWS_CONFIG_FILE / AWS_SHARED_CREDENTIALS_FILE or HOME;
 * a missing file is not an error.
 *
 * Fails with S3C_ECONFIG (the CLI's exit 2) for a bad value, an
 * unreadable or malformed file (the message names file and line), a
 * `services` name with no such section, or an explicitly
 * named profile that exists in neither file ("The config profile (NAME)
 * could not be found"); or with S3C_ENOMEM. On failure 'out' is released
 * (safe to release again) and 'e' has the one-line message.
 */
enum s3c_err cfg_load(struct s3c_config *out, const struct cfg_flags *flags, char *const *envp,
                      struct s3c_error *e);

/* Free every string; 'c' becomes S3C_CONFIG_INIT. */
void cfg_release(struct s3c_config *c);

/* Whether 'r' may be a region: a DNS label (it goes into host names and
 * credential scopes), as --region, AWS_REGION and region hints are checked. */
bool cfg_region_ok(const char *r);

/*
 * Parse a size the way the AWS CLI does (human_readable_to_int): plain
 * bytes, or a number and a suffix KB MB GB TB KiB MiB GiB TiB in any case,
 * all powers of 1024 ("8MB" = "8MiB" = 8388608). Blanks between number and
 * suffix are allowed. False on junk, a fraction, or overflow.
 */
bool cfg_parse_size(struct sv s, uint64_t *out_bytes);

/*
 * Parse a rate the way the AWS CLI does: "1048576" (bytes/s), "1024B/s",
 * "50MB/s", "10MiB/s" (bytes), or "80Mb/s" (bits, divided by 8).
 */
bool cfg_parse_rate(struct sv s, uint64_t *out_bytes_per_s);

/* "true" or "false", any case. */
bool cfg_parse_bool(struct sv s, bool *out);

/*
 * The value of NAME in an environ-style array, as cfg_load() reads it: an
 * empty value counts as unset (NULL). 'envp' may be NULL.
 */
const char *cfg_env_get(char *const *envp, const char *name);

/* The config file's section of profile 'name' ([default] or [profile NAME], last wins), or NULL. */
const struct ini_section *cfg_config_profile(const struct s3c_config *c, const char *name);

/* The credentials file's section [name], or NULL. */
const struct ini_section *cfg_credentials_profile(const struct s3c_config *c, const char *name);

/* True if profile 'name' has a section in either file. */
bool cfg_profile_exists(const struct s3c_config *c, const char *name);

/*
 * Key 'key' (lower-case) of profile 'name' as botocore's merged profile map
 * has it: the credentials file's section first, then the config file's.
 * NULL if absent. *in_credentials (may be NULL) says which file had it.
 */
const struct ini_entry *cfg_profile_get(const struct s3c_config *c, const char *name,
                                        const char *key, bool *in_credentials);

/* The config file's section "[KIND NAME]" (KIND "sso-session", "services"), last wins, or NULL. */
const struct ini_section *cfg_kind_section(const struct s3c_config *c, const char *kind,
                                           const char *name);

#endif
