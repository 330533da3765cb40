/*
 * Configuration precedence (flags > environment > files > defaults), the
 * static keys the credential chain (auth/creds.h) finds in these fixtures,
 * endpoint_url sources, value validation and messages.
 * Fixtures: tests/fixtures/cfg/{config,credentials,bad-size,bad-values,broken,home/}.
 */
#include "t.h"

#include <stdio.h>

#include "auth/creds.h"
#include "cfg/config.h"

#define ENV_MAX 32

/* An injected environment: envp-style array over owned strings. */
struct env {
    char *v[ENV_MAX + 1];
    char store[ENV_MAX][1024];
    int n;
};

static void env_add(struct env *env, const char *name, const char *value)
{
    if (env->n >= ENV_MAX)
        return;
    snprintf(env->store[env->n], sizeof(env->store[0]), "%s=%s", name, value);
    env->v[env->n] = env->store[env->n];
    env->n++;
    env->v[env->n] = NULL;
}

/* The standard test environment: both fixture files, no HOME. */
static void env_files(struct env *env)
{
    env->n = 0;
    env->v[0] = NULL;
    env_add(env, "AWS_CONFIG_FILE", t_fixture("cfg/config"));
    env_add(env, "AWS_SHARED_CREDENTIALS_FILE", t_fixture("cfg/credentials"));
}

static enum s3c_err load(struct s3c_config *c, const struct cfg_flags *f, struct env *env,
                         struct s3c_error *e)
{
    return cfg_load(c, f, env ? env->v : NULL, e);
}

/*
 * The credential chain over a loaded configuration: keys in *k, and the
 * source's method checked against the keys'. cfg holds no keys itself.
 */
static enum s3c_err chain(const struct s3c_config *c, struct env *env, struct creds *k,
                          struct s3c_error *e)
{
    struct creds_src *src = NULL;
    enum s3c_err rc;

    creds_release(k);
    s3c_error_clear(e);
    rc = creds_resolve(c, env ? env->v : NULL, &src, k, e);
    if (!rc)
        CHECK_STR(creds_src_method(src), k->method);
    creds_src_free(src);
    return rc;
}

TEST(cfg_defaults_with_nothing_configured)
{
    struct s3c_config c = S3C_CONFIG_INIT;
    struct s3c_error e = S3C_ERROR_INIT;
    struct creds k = CREDS_INIT;
    struct env no_imds = { { NULL }, { "" }, 0 };

    CHECK_INT(cfg_load(&c, NULL, NULL, &e), S3C_OK);
    CHECK_STR(c.profile, "default");
    CHECK(!c.profile_explicit && !c.profile_found);
    CHECK_STR(c.region, "us-east-1");
    CHECK(!c.region_set);
    CHECK(c.endpoint_url == NULL);
    /* No keys anywhere (and no instance to ask): the chain finds none. */
    env_add(&no_imds, "AWS_EC2_METADATA_DISABLED", "true");
    CHECK_INT(chain(&c, &no_imds, &k, &e), S3C_EAUTH);
    CHECK_STR(e.msg, CREDS_NO_CREDENTIALS);
    CHECK(k.access_key == NULL);
    CHECK(c.verify_ssl && !c.no_sign_request && !c.debug);
    CHECK(c.ca_bundle == NULL);
    CHECK_INT(c.s3.max_concurrent_requests.value, 10);
    CHECK(!c.s3.max_concurrent_requests.set);
    CHECK_INT(c.s3.multipart_threshold.value, 8 << 20);
    CHECK_INT(c.s3.multipart_chunksize.value, 8 << 20);
    CHECK(!c.s3.multipart_chunksize.set);
    CHECK(!c.s3.max_bandwidth.set);
    CHECK_INT(c.s3.addressing_style, CFG_ADDRESSING_AUTO);
    CHECK(!c.s3.payload_signing_enabled.set && !c.s3.use_accelerate_endpoint.value);
    CHECK_INT(c.max_attempts.value, 5);
    CHECK(!c.max_attempts.set);
    CHECK_INT(c.retry_mode, CFG_RETRY_STANDARD);
    CHECK_INT(c.request_checksum_calculation, CFG_WHEN_SUPPORTED);
    CHECK_STR(c.config_file, "~/.aws/config");
    CHECK_STR(c.credentials_file, "~/.aws/credentials");
    cfg_release(&c);
    CHECK(c.profile == NULL);
    cfg_release(&c);    /* twice is fine */
}

TEST(cfg_default_profile_from_files)
{
    struct s3c_config c = S3C_CONFIG_INIT;
    struct s3c_error e = S3C_ERROR_INIT;
    struct creds k = CREDS_INIT;
    struct env env;

    env_files(&env);
    CHECK_INT(load(&c, NULL, &env, &e), S3C_OK);
    CHECK(c.profile_found);
    CHECK_STR(c.region, "us-west-2");
    CHECK(c.region_set);
    CHECK_INT(c.s3.max_concurrent_requests.value, 20);
    CHECK(c.s3.max_concurrent_requests.set);
    CHECK_INT(c.s3.multipart_chunksize.value, 16 << 20);
    CHECK(c.s3.multipart_chunksize.set);
    CHECK(!c.s3.multipart_threshold.set);
    CHECK_INT(chain(&c, &env, &k, &e), S3C_OK);
    CHECK_STR(k.method, "shared-credentials-file");
    CHECK_STR(k.access_key, "AKIDDEFAULT");
    CHECK_STR(k.secret_key, "secret-default");
    CHECK(k.session_token == NULL);
    creds_release(&k);
    cfg_release(&c);
}

TEST(cfg_named_profile_reads_every_key)
{
    struct s3c_config c = S3C_CONFIG_INIT;
    struct s3c_error e = S3C_ERROR_INIT;
    struct creds k = CREDS_INIT;
    struct cfg_flags f = CFG_FLAGS_INIT;
    struct env env;

    env_files(&env);
    f.profile = "dev";
    CHECK_INT(load(&c, &f, &env, &e), S3C_OK);
    CHECK_STR(e.msg, "");
    CHECK_STR(c.profile, "dev");
    CHECK(c.profile_explicit && c.profile_found);
    CHECK_STR(c.region, "eu-west-1");
    /* "[profile dev]" in the credentials file is a profile named "profile dev". */
    CHECK_INT(chain(&c, &env, &k, &e), S3C_OK);
    CHECK_STR(k.method, "config-file");
    CHECK_STR(k.access_key, "AKIDCONFIGDEV");
    CHECK_STR(k.secret_key, "secret-config-dev");
    creds_release(&k);
    CHECK_INT(c.max_attempts.value, 7);
    CHECK(c.max_attempts.set);
    CHECK_INT(c.retry_mode, CFG_RETRY_ADAPTIVE);
    CHECK(c.retry_mode_set);
    CHECK_INT(c.request_checksum_calculation, CFG_WHEN_REQUIRED);
    CHECK_INT(c.response_checksum_validation, CFG_WHEN_SUPPORTED);
    CHECK(c.response_checksum_validation_set);
    CHECK_STR(c.ca_bundle, "/etc/ssl/dev.pem");
    CHECK_INT(c.s3.max_concurrent_requests.value, 64);
    /* max_queue_size = 5000 is in the file: ignored, s3c queues no tasks (s3c.1). */
    CHECK_INT(c.s3.multipart_threshold.value, 64 << 20);
    CHECK_INT(c.s3.multipart_chunksize.value, 8 << 20);
    CHECK(c.s3.multipart_chunksize.set);
    CHECK_INT(c.s3.max_bandwidth.value, 50 << 20);
    CHECK(c.s3.max_bandwidth.set);
    CHECK_INT(c.s3.addressing_style, CFG_ADDRESSING_VIRTUAL);
    CHECK(c.s3.addressing_style_set);
    CHECK(c.s3.payload_signing_enabled.set && c.s3.payload_signing_enabled.value);
    CHECK(c.s3.use_accelerate_endpoint.set && !c.s3.use_accelerate_endpoint.value);
    CHECK(c.s3.use_dualstack_endpoint.set && c.s3.use_dualstack_endpoint.value);
    cfg_release(&c);
}

TEST(cfg_region_precedence)
{
    struct s3c_config c = S3C_CONFIG_INIT;
    struct s3c_error e = S3C_ERROR_INIT;
    struct cfg_flags f = CFG_FLAGS_INIT;
    struct env env;

    env_files(&env);                        /* file: us-west-2 */
    env_add(&env, "AWS_DEFAULT_REGION", "eu-north-1");
    CHECK_INT(load(&c, NULL, &env, &e), S3C_OK);
    CHECK_STR(c.region, "eu-north-1");
    env_add(&env, "AWS_REGION", "ap-northeast-1");
    CHECK_INT(load(&c, NULL, &env, &e), S3C_OK);
    CHECK_STR(c.region, "ap-northeast-1");
    f.region = "me-south-1";
    CHECK_INT(load(&c, &f, &env, &e), S3C_OK);
    CHECK_STR(c.region, "me-south-1");
    cfg_release(&c);

    /* An empty variable counts as unset. */
    env_files(&env);
    env_add(&env, "AWS_REGION", "");
    env_add(&env, "AWS_DEFAULT_REGION", "eu-south-1");
    CHECK_INT(load(&c, NULL, &env, &e), S3C_OK);
    CHECK_STR(c.region, "eu-south-1");
    cfg_release(&c);
}

TEST(cfg_profile_from_environment)
{
    struct s3c_config c = S3C_CONFIG_INIT;
    struct s3c_error e = S3C_ERROR_INIT;
    struct cfg_flags f = CFG_FLAGS_INIT;
    struct env env;

    env_files(&env);
    env_add(&env, "AWS_PROFILE", "dev");
    CHECK_INT(load(&c, NULL, &env, &e), S3C_OK);
    CHECK_STR(c.profile, "dev");
    CHECK(c.profile_explicit);
    CHECK_STR(c.region, "eu-west-1");

    /* botocore reads AWS_DEFAULT_PROFILE before AWS_PROFILE. */
    env_add(&env, "AWS_DEFAULT_PROFILE", "only in config");
    CHECK_INT(load(&c, NULL, &env, &e), S3C_OK);
    CHECK_STR(c.profile, "only in config");
    CHECK_STR(c.region, "ap-south-1");

    /* The flag beats both. */
    f.profile = "default";
    CHECK_INT(load(&c, &f, &env, &e), S3C_OK);
    CHECK_STR(c.region, "us-west-2");
    cfg_release(&c);
}

TEST(cfg_credentials_file_beats_config_file)
{
    struct s3c_config c = S3C_CONFIG_INIT;
    struct s3c_error e = S3C_ERROR_INIT;
    struct creds k = CREDS_INIT;
    struct cfg_flags f = CFG_FLAGS_INIT;
    struct env env;

    env_files(&env);
    f.profile = "both";
    CHECK_INT(load(&c, &f, &env, &e), S3C_OK);
    CHECK_INT(chain(&c, &env, &k, &e), S3C_OK);
    CHECK_STR(k.method, "shared-credentials-file");
    CHECK_STR(k.access_key, "AKIDCREDSBOTH");
    CHECK_STR(k.secret_key, "secret-creds-both");
    CHECK_STR(k.session_token, "token-creds-both");
    /* botocore merges the credentials file over the config profile, all keys. */
    CHECK_STR(c.region, "ca-central-1");

    f.profile = "credsonly";                /* exists only in the credentials file */
    CHECK_INT(load(&c, &f, &env, &e), S3C_OK);
    CHECK(c.profile_found);
    CHECK_INT(chain(&c, &env, &k, &e), S3C_OK);
    CHECK_STR(k.access_key, "AKIDCREDSONLY");
    CHECK_STR(c.region, "us-east-1");
    creds_release(&k);
    cfg_release(&c);
}

TEST(cfg_env_credentials_and_explicit_profile)
{
    struct s3c_config c = S3C_CONFIG_INIT;
    struct s3c_error e = S3C_ERROR_INIT;
    struct creds k = CREDS_INIT;
    struct cfg_flags f = CFG_FLAGS_INIT;
    struct env env;

    env_files(&env);
    env_add(&env, "AWS_ACCESS_KEY_ID", "AKIDENV");
    env_add(&env, "AWS_SECRET_ACCESS_KEY", "secret-env");
    env_add(&env, "AWS_SESSION_TOKEN", "token-env");

    /* Environment beats the files for the default profile... */
    CHECK_INT(load(&c, NULL, &env, &e), S3C_OK);
    CHECK_INT(chain(&c, &env, &k, &e), S3C_OK);
    CHECK_STR(k.method, "env");
    CHECK_STR(k.access_key, "AKIDENV");
    CHECK_STR(k.secret_key, "secret-env");
    CHECK_STR(k.session_token, "token-env");

    /* ...and for a profile named by AWS_PROFILE (botocore keeps its EnvProvider)... */
    env_add(&env, "AWS_PROFILE", "both");
    CHECK_INT(load(&c, NULL, &env, &e), S3C_OK);
    CHECK_INT(chain(&c, &env, &k, &e), S3C_OK);
    CHECK_STR(k.method, "env");
    CHECK_STR(k.access_key, "AKIDENV");
    CHECK_STR(c.region, "ca-central-1");

    /* ...but not for --profile: an explicit profile negates the EnvProvider. */
    f.profile = "both";
    CHECK_INT(load(&c, &f, &env, &e), S3C_OK);
    CHECK_INT(chain(&c, &env, &k, &e), S3C_OK);
    CHECK_STR(k.method, "shared-credentials-file");
    CHECK_STR(k.access_key, "AKIDCREDSBOTH");
    CHECK_STR(k.session_token, "token-creds-both");
    cfg_release(&c);

    /* AWS_SECURITY_TOKEN is read before AWS_SESSION_TOKEN, as botocore does. */
    env_files(&env);
    env_add(&env, "AWS_ACCESS_KEY_ID", "AKIDENV");
    env_add(&env, "AWS_SECRET_ACCESS_KEY", "secret-env");
    env_add(&env, "AWS_SESSION_TOKEN", "session");
    env_add(&env, "AWS_SECURITY_TOKEN", "security");
    CHECK_INT(load(&c, NULL, &env, &e), S3C_OK);
    CHECK_INT(chain(&c, &env, &k, &e), S3C_OK);
    CHECK_STR(k.session_token, "security");
    creds_release(&k);
    cfg_release(&c);
}

TEST(cfg_partial_credentials_are_left_to_the_chain)
{
    struct s3c_config c = S3C_CONFIG_INIT;
    struct s3c_error e = S3C_ERROR_INIT;
    struct cfg_flags f = CFG_FLAGS_INIT;
    struct creds k = CREDS_INIT;
    struct env env;
    char want[1024];

    /* cfg_load() does not judge keys; the chain refuses partial ones, naming the source. */
    env_files(&env);
    env_add(&env, "AWS_ACCESS_KEY_ID", "AKIDENV");
    CHECK_INT(load(&c, NULL, &env, &e), S3C_OK);
    CHECK_INT(chain(&c, &env, &k, &e), S3C_ECONFIG);
    CHECK_STR(e.msg, "environment: AWS_ACCESS_KEY_ID is set but AWS_SECRET_ACCESS_KEY is missing");
    CHECK(k.access_key == NULL);

    env_files(&env);
    f.profile = "partial";
    CHECK_INT(load(&c, &f, &env, &e), S3C_OK);
    CHECK_INT(chain(&c, &env, &k, &e), S3C_ECONFIG);
    snprintf(want, sizeof(want),
             "config file %s, profile \"partial\": aws_access_key_id is set but "
             "aws_secret_access_key is missing",
             t_fixture("cfg/config"));
    CHECK_STR(e.msg, want);
    CHECK(k.access_key == NULL);
    cfg_release(&c);
}

TEST(cfg_no_sign_request_loads_no_credentials)
{
    struct s3c_config c = S3C_CONFIG_INIT;
    struct s3c_error e = S3C_ERROR_INIT;
    struct cfg_flags f = CFG_FLAGS_INIT;
    struct env env;

    /* The flag is all cfg records: the CLI then never runs the chain, so these
     * partial keys are never read (tests/e2e/test_foundation.sh, no_sign_request). */
    env_files(&env);
    env_add(&env, "AWS_ACCESS_KEY_ID", "AKIDENV");
    f.no_sign_request = true;
    f.no_verify_ssl = true;
    f.debug = true;
    CHECK_INT(load(&c, &f, &env, &e), S3C_OK);
    CHECK(c.no_sign_request && !c.verify_ssl && c.debug);
    cfg_release(&c);
}

TEST(cfg_unknown_profile_is_an_error)
{
    struct s3c_config c = S3C_CONFIG_INIT;
    struct s3c_error e = S3C_ERROR_INIT;
    struct cfg_flags f = CFG_FLAGS_INIT;
    struct env env;

    env_files(&env);
    f.profile = "nope";
    CHECK_INT(load(&c, &f, &env, &e), S3C_ECONFIG);
    CHECK_STR(e.msg, "The config profile (nope) could not be found");

    env_add(&env, "AWS_PROFILE", "nope2");
    CHECK_INT(load(&c, NULL, &env, &e), S3C_ECONFIG);
    CHECK_STR(e.msg, "The config profile (nope2) could not be found");

    /* Named, with no files at all: still an error. */
    CHECK_INT(cfg_load(&c, &f, NULL, &e), S3C_ECONFIG);
    cfg_release(&c);
}

TEST(cfg_endpoint_url_precedence)
{
    struct s3c_config c = S3C_CONFIG_INIT;
    struct s3c_error e = S3C_ERROR_INIT;
    struct cfg_flags f = CFG_FLAGS_INIT;
    struct env env;

    env_files(&env);
    f.profile = "svc";      /* services = local-svc, plus a profile endpoint_url */
    CHECK_INT(load(&c, &f, &env, &e), S3C_OK);
    CHECK_STR(c.endpoint_url, "http://127.0.0.1:9000");

    env_add(&env, "AWS_ENDPOINT_URL", "http://127.0.0.1:2222");
    CHECK_INT(load(&c, &f, &env, &e), S3C_OK);
    CHECK_STR(c.endpoint_url, "http://127.0.0.1:2222");

    env_add(&env, "AWS_ENDPOINT_URL_S3", "https://127.0.0.1:3333");
    CHECK_INT(load(&c, &f, &env, &e), S3C_OK);
    CHECK_STR(c.endpoint_url, "https://127.0.0.1:3333");

    f.endpoint_url = "http://127.0.0.1:4444";
    CHECK_INT(load(&c, &f, &env, &e), S3C_OK);
    CHECK_STR(c.endpoint_url, "http://127.0.0.1:4444");

    /* Ignoring configured endpoints keeps only the flag. */
    env_add(&env, "AWS_IGNORE_CONFIGURED_ENDPOINT_URLS", "true");
    CHECK_INT(load(&c, &f, &env, &e), S3C_OK);
    CHECK_STR(c.endpoint_url, "http://127.0.0.1:4444");
    f.endpoint_url = NULL;
    CHECK_INT(load(&c, &f, &env, &e), S3C_OK);
    CHECK(c.endpoint_url == NULL);

    env_files(&env);
    f.profile = "s3ep";     /* s3 = endpoint_url beats the profile's endpoint_url */
    CHECK_INT(load(&c, &f, &env, &e), S3C_OK);
    CHECK_STR(c.endpoint_url, "http://127.0.0.1:7480");

    f.profile = "globalep";
    CHECK_INT(load(&c, &f, &env, &e), S3C_OK);
    CHECK_STR(c.endpoint_url, "http://127.0.0.1:8000/base");

    f.profile = "dev";
    CHECK_INT(load(&c, &f, &env, &e), S3C_OK);
    CHECK(c.endpoint_url == NULL);
    cfg_release(&c);
}

TEST(cfg_missing_services_section)
{
    struct s3c_config c = S3C_CONFIG_INIT;
    struct s3c_error e = S3C_ERROR_INIT;
    struct cfg_flags f = CFG_FLAGS_INIT;
    struct env env;
    char want[1024];

    env_files(&env);
    f.profile = "missing-services";
    CHECK_INT(load(&c, &f, &env, &e), S3C_ECONFIG);
    snprintf(want, sizeof(want),
             "config file %s, profile \"missing-services\": The profile is configured to use "
             "the services section but the \"nope\" services configuration does not exist.",
             t_fixture("cfg/config"));
    CHECK_STR(e.msg, want);

    /* An endpoint from the environment means the services section is never read. */
    env_add(&env, "AWS_ENDPOINT_URL", "http://127.0.0.1:1");
    CHECK_INT(load(&c, &f, &env, &e), S3C_OK);
    cfg_release(&c);
}

TEST(cfg_ca_bundle_precedence)
{
    struct s3c_config c = S3C_CONFIG_INIT;
    struct s3c_error e = S3C_ERROR_INIT;
    struct cfg_flags f = CFG_FLAGS_INIT;
    struct env env;

    env_files(&env);
    f.profile = "dev";
    CHECK_INT(load(&c, &f, &env, &e), S3C_OK);
    CHECK_STR(c.ca_bundle, "/etc/ssl/dev.pem");
    env_add(&env, "AWS_CA_BUNDLE", "/env.pem");
    CHECK_INT(load(&c, &f, &env, &e), S3C_OK);
    CHECK_STR(c.ca_bundle, "/env.pem");
    f.ca_bundle = "/flag.pem";
    CHECK_INT(load(&c, &f, &env, &e), S3C_OK);
    CHECK_STR(c.ca_bundle, "/flag.pem");
    cfg_release(&c);
}

TEST(cfg_environment_overrides_profile_settings)
{
    struct s3c_config c = S3C_CONFIG_INIT;
    struct s3c_error e = S3C_ERROR_INIT;
    struct cfg_flags f = CFG_FLAGS_INIT;
    struct env env;

    env_files(&env);
    env_add(&env, "AWS_MAX_ATTEMPTS", "11");
    env_add(&env, "AWS_RETRY_MODE", "legacy");
    env_add(&env, "AWS_REQUEST_CHECKSUM_CALCULATION", "when_supported");
    env_add(&env, "AWS_RESPONSE_CHECKSUM_VALIDATION", "when_required");
    f.profile = "dev";
    CHECK_INT(load(&c, &f, &env, &e), S3C_OK);
    CHECK_INT(c.max_attempts.value, 11);
    CHECK_INT(c.retry_mode, CFG_RETRY_LEGACY);
    CHECK_INT(c.request_checksum_calculation, CFG_WHEN_SUPPORTED);
    CHECK_INT(c.response_checksum_validation, CFG_WHEN_REQUIRED);

    /* Dual-stack: the s3 section wins, else the variable, else the profile key. */
    CHECK(c.s3.use_dualstack_endpoint.value);
    f.profile = "default";
    env_add(&env, "AWS_USE_DUALSTACK_ENDPOINT", "true");
    CHECK_INT(load(&c, &f, &env, &e), S3C_OK);
    CHECK(c.s3.use_dualstack_endpoint.set && c.s3.use_dualstack_endpoint.value);

    /* S3 Express session auth: off unless the variable (or the profile) says so. */
    CHECK(!c.s3_disable_express_session_auth.set && !c.s3_disable_express_session_auth.value);
    env_add(&env, "AWS_S3_DISABLE_EXPRESS_SESSION_AUTH", "TRUE");
    CHECK_INT(load(&c, &f, &env, &e), S3C_OK);
    CHECK(c.s3_disable_express_session_auth.set && c.s3_disable_express_session_auth.value);
    env.n--;
    env_add(&env, "AWS_S3_DISABLE_EXPRESS_SESSION_AUTH", "yes");
    CHECK_INT(load(&c, &f, &env, &e), S3C_ECONFIG);
    CHECK(strstr(e.msg, "AWS_S3_DISABLE_EXPRESS_SESSION_AUTH") != NULL);
    cfg_release(&c);
}

TEST(cfg_home_directory_files)
{
    struct s3c_config c = S3C_CONFIG_INIT;
    struct s3c_error e = S3C_ERROR_INIT;
    struct creds k = CREDS_INIT;
    struct env env = { { NULL }, { "" }, 0 };

    env_add(&env, "HOME", t_fixture("cfg/home"));
    CHECK_INT(load(&c, NULL, &env, &e), S3C_OK);
    CHECK_STR(c.config_file, "~/.aws/config");
    CHECK_STR(c.region, "sa-east-1");
    CHECK_INT(chain(&c, &env, &k, &e), S3C_OK);
    CHECK_STR(k.method, "shared-credentials-file");
    CHECK_STR(k.access_key, "AKIDHOME");
    creds_release(&k);
    cfg_release(&c);
}

/* Load profile 'profile' of fixture 'file' and expect an S3C_ECONFIG with message 'tail'. */
static void expect_bad(const char *file, const char *profile, const char *tail)
{
    struct s3c_config c = S3C_CONFIG_INIT;
    struct s3c_error e = S3C_ERROR_INIT;
    struct cfg_flags f = CFG_FLAGS_INIT;
    struct env env = { { NULL }, { "" }, 0 };
    char want[1024];

    env_add(&env, "AWS_CONFIG_FILE", t_fixture(file));
    f.profile = profile;
    CHECK_INT(load(&c, &f, &env, &e), S3C_ECONFIG);
    snprintf(want, sizeof(want), "config file %s, profile \"%s\": %s", t_fixture(file), profile,
             tail);
    CHECK_STR(e.msg, want);
    cfg_release(&c);
}

TEST(cfg_bad_values_name_file_profile_and_key)
{
    expect_bad("cfg/bad-size", "dev", "s3.multipart_chunksize: \"8XB\" is not a size");
    expect_bad("cfg/bad-values", "default", "max_attempts: \"lots\" is not a positive integer");
    expect_bad("cfg/bad-values", "style",
               "s3.addressing_style: \"sideways\" is not auto, path or virtual");
    expect_bad("cfg/bad-values", "bool",
               "s3.use_accelerate_endpoint: \"maybe\" is not true or false");
    expect_bad("cfg/bad-values", "rate",
               "s3.max_bandwidth: \"50MB\" is not a rate (bytes per second, e.g. 50MB/s)");
    expect_bad("cfg/bad-values", "zero",
               "s3.max_concurrent_requests: \"0\" must be greater than zero");
    expect_bad("cfg/bad-values", "retry",
               "retry_mode: \"sometimes\" is not a retry mode (standard, legacy or adaptive)");
    expect_bad("cfg/bad-values", "region", "region: \"not a region\" is not a valid region name");
    expect_bad("cfg/bad-values", "ep",
               "endpoint_url: \"ftp://example\" is not an http:// or https:// URL");
    expect_bad("cfg/bad-values", "flat-s3",
               "s3: \"path\" is not a sub-section (write \"s3 =\" and then indented \"key = "
               "value\" lines)");
}

TEST(cfg_bad_environment_and_flags)
{
    struct s3c_config c = S3C_CONFIG_INIT;
    struct s3c_error e = S3C_ERROR_INIT;
    struct cfg_flags f = CFG_FLAGS_INIT;
    struct env env = { { NULL }, { "" }, 0 };

    env_add(&env, "AWS_MAX_ATTEMPTS", "x");
    CHECK_INT(load(&c, NULL, &env, &e), S3C_ECONFIG);
    CHECK_STR(e.msg, "environment variable AWS_MAX_ATTEMPTS: \"x\" is not a positive integer");

    f.region = "us east";
    CHECK_INT(load(&c, &f, NULL, &e), S3C_ECONFIG);
    CHECK_STR(e.msg, "--region: \"us east\" is not a valid region name");

    f.region = NULL;
    f.endpoint_url = "localhost:9000";
    CHECK_INT(load(&c, &f, NULL, &e), S3C_ECONFIG);
    CHECK_STR(e.msg, "--endpoint-url: \"localhost:9000\" is not an http:// or https:// URL");
    cfg_release(&c);
}

TEST(cfg_broken_file_names_file_and_line)
{
    struct s3c_config c = S3C_CONFIG_INIT;
    struct s3c_error e = S3C_ERROR_INIT;
    struct env env = { { NULL }, { "" }, 0 };
    char want[1024];

    env_add(&env, "AWS_SHARED_CREDENTIALS_FILE", t_fixture("cfg/broken"));
    CHECK_INT(load(&c, NULL, &env, &e), S3C_ECONFIG);
    snprintf(want, sizeof(want),
             "credentials file %s, line 3: expected \"key = value\" or \"[section]\"",
             t_fixture("cfg/broken"));
    CHECK_STR(e.msg, want);
    cfg_release(&c);
}

TEST(cfg_sizes_are_powers_of_two)
{
    static const struct {
        const char *in;
        unsigned long long want;
    } ok[] = {
        { "8MB", 8ull << 20 },     { "8MiB", 8ull << 20 },   { "8mb", 8ull << 20 },
        { "1GB", 1ull << 30 },     { "1024KB", 1ull << 20 }, { "1TiB", 1ull << 40 },
        { "123", 123 },            { " 8 MB ", 8ull << 20 }, { "2kib", 2048 },
    };
    static const char *bad[] = { "8XB", "1.5MB", "", "MB",  "-1",
                                 "8B",  "8 M",   "99999999999TB", "0x10" };
    uint64_t v;
    size_t i;

    for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
        v = 0;
        CHECK(cfg_parse_size(sv_from(ok[i].in), &v));
        CHECK_INT(v, ok[i].want);
    }
    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        if (cfg_parse_size(sv_from(bad[i]), &v))
            t_fail(__FILE__, __LINE__, "size \"%s\" was accepted", bad[i]);
}

TEST(cfg_rates_like_the_aws_cli)
{
    static const struct {
        const char *in;
        unsigned long long want;
    } ok[] = {
        { "50MB/s", 50ull << 20 }, { "1MB/s", 1ull << 20 }, { "1048576", 1048576 },
        { "1024B/s", 1024 },       { "10KiB/s", 10240 },    { "80Mb/s", 10ull << 20 },
        { "800Kb/s", 102400 },
    };
    static const char *bad[] = { "50MB", "fast", "", "MB/s", "1.5MB/s", "50XB/s" };
    uint64_t v;
    size_t i;

    for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
        v = 0;
        CHECK(cfg_parse_rate(sv_from(ok[i].in), &v));
        CHECK_INT(v, ok[i].want);
    }
    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        if (cfg_parse_rate(sv_from(bad[i]), &v))
            t_fail(__FILE__, __LINE__, "rate \"%s\" was accepted", bad[i]);
}

TEST(cfg_message_shows_the_default_path_as_written)
{
    struct s3c_config c = S3C_CONFIG_INIT;
    struct s3c_error e = S3C_ERROR_INIT;
    struct cfg_flags f = CFG_FLAGS_INIT;
    struct env env = { { NULL }, { "" }, 0 };

    env_add(&env, "HOME", t_fixture("cfg/home-bad"));
    f.profile = "dev";
    CHECK_INT(load(&c, &f, &env, &e), S3C_ECONFIG);
    CHECK_STR(e.msg,
              "config file ~/.aws/config, profile \"dev\": s3.multipart_chunksize: \"8XB\" is not "
              "a size");
    cfg_release(&c);
}

TEST(cfg_retry_mode_sets_its_own_attempts)
{
    struct s3c_config c = S3C_CONFIG_INIT;
    struct s3c_error e = S3C_ERROR_INIT;
    struct cfg_flags f = CFG_FLAGS_INIT;
    struct env env;

    /* botocore's counts when only the mode is given: standard 3, legacy 5. */
    env.n = 0;
    env.v[0] = NULL;
    env_add(&env, "AWS_CONFIG_FILE", "/nonexistent/config");
    env_add(&env, "AWS_RETRY_MODE", "standard");
    CHECK_INT(load(&c, &f, &env, &e), S3C_OK);
    CHECK_INT(c.max_attempts.value, 3);
    CHECK(!c.max_attempts.set);
    env.n = 1;
    env_add(&env, "AWS_RETRY_MODE", "adaptive");
    CHECK_INT(load(&c, &f, &env, &e), S3C_OK);
    CHECK_INT(c.max_attempts.value, 3);
    env.n = 1;
    env_add(&env, "AWS_RETRY_MODE", "legacy");
    CHECK_INT(load(&c, &f, &env, &e), S3C_OK);
    CHECK_INT(c.max_attempts.value, 5);
    /* max_attempts, when given, wins over the mode's count. */
    env_add(&env, "AWS_MAX_ATTEMPTS", "2");
    CHECK_INT(load(&c, &f, &env, &e), S3C_OK);
    CHECK_INT(c.max_attempts.value, 2);
    /* Neither: s3c's 5. */
    env.n = 1;
    env.v[1] = NULL;
    CHECK_INT(load(&c, &f, &env, &e), S3C_OK);
    CHECK_INT(c.max_attempts.value, 5);
    cfg_release(&c);
}
