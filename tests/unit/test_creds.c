/*
 * The credential chain without a network: which provider botocore's order
 * picks over config / credentials / environment combinations, botocore's
 * error messages for bad role and SSO set-ups, the CLI cache's file names
 * (vectors computed with botocore itself) and entries shared with the CLI,
 * credential_process (splitting, running, its JSON and its errors), and
 * ISO 8601 expirations. Each test writes its files under a fresh temp HOME.
 */
#include "t.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "auth/creds.h"
#include "auth/creds_impl.h"
#include "cfg/config.h"

#define ENV_MAX 24

/* A temp HOME with .aws/, and an injected environment pointing at it. */
struct home {
    char dir[256];
    char *v[ENV_MAX + 1];
    char store[ENV_MAX][1024];
    int n;
};

static void env_set(struct home *h, const char *name, const char *value)
{
    char line[1024];

    if (h->n >= ENV_MAX)
        return;
    snprintf(line, sizeof(line), "%s=%s", name, value);
    memcpy(h->store[h->n], line, sizeof(line));
    h->v[h->n] = h->store[h->n];
    h->v[++h->n] = NULL;
}

static void write_file(const struct home *h, const char *rel, const char *text, mode_t mode)
{
    char path[512];
    FILE *f;

    snprintf(path, sizeof(path), "%s/%s", h->dir, rel);
    f = fopen(path, "w");
    if (!f) {
        CHECK(!"cannot write a test file");
        return;
    }
    fputs(text, f);
    fclose(f);
    chmod(path, mode);
}

static void home_new(struct home *h, const char *config, const char *credentials)
{
    char path[512];

    memset(h, 0, sizeof(*h));
    snprintf(h->dir, sizeof(h->dir), "/tmp/s3c-creds-XXXXXX");
    if (!mkdtemp(h->dir)) {
        CHECK(!"mkdtemp");
        return;
    }
    snprintf(path, sizeof(path), "%s/.aws", h->dir);
    mkdir(path, 0700);
    env_set(h, "HOME", h->dir);
    env_set(h, "AWS_EC2_METADATA_DISABLED", "true");
    if (config)
        write_file(h, ".aws/config", config, 0600);
    if (credentials)
        write_file(h, ".aws/credentials", credentials, 0600);
}

static void home_free(struct home *h)
{
    char cmd[600];

    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", h->dir);
    if (strncmp(h->dir, "/tmp/s3c-creds-", 15) == 0 && system(cmd) != 0)
        CHECK(!"rm -rf");
}

/* cfg_load + creds_resolve; *method and the key id for checks. */
static enum s3c_err resolve(struct home *h, const char *flag_profile, struct creds *keys,
                            struct s3c_error *e)
{
    struct s3c_config c = S3C_CONFIG_INIT;
    struct cfg_flags f = CFG_FLAGS_INIT;
    struct creds_src *src = NULL;
    enum s3c_err rc;

    f.profile = flag_profile;
    creds_release(keys);
    s3c_error_clear(e);
    rc = cfg_load(&c, &f, h->v, e);
    if (!rc)
        rc = creds_resolve(&c, h->v, &src, keys, e);
    if (!rc) {
        CHECK_STR(creds_src_method(src), keys->method);
        creds_src_free(src);
    }
    cfg_release(&c);
    return rc;
}

static const char *const CONFIG =
    "[default]\n"
    "region = us-west-2\n"
    "aws_access_key_id = AKIDCONFIGDEFAULT\n"
    "aws_secret_access_key = s-config-default\n"
    "[profile dev]\n"
    "aws_access_key_id = AKIDCONFIGDEV\n"
    "aws_secret_access_key = s-config-dev\n"
    "[profile partial]\n"
    "aws_access_key_id = AKIDPARTIAL\n"
    "[profile proc]\n"
    "credential_process = $HOME/proc.sh --flag 'two words'\n"
    "aws_access_key_id = AKIDCONFIGPROC\n"
    "aws_secret_access_key = s-config-proc\n"
    "[profile cfgonly]\n"
    "region = eu-west-1\n";

static const char *const CREDENTIALS =
    "[default]\n"
    "aws_access_key_id = AKIDCREDSDEFAULT\n"
    "aws_secret_access_key = s-creds-default\n"
    "aws_session_token = t-creds-default\n"
    "[dev]\n"
    "aws_access_key_id = AKIDCREDSDEV\n"
    "aws_secret_access_key = s-creds-dev\n";

TEST(creds_static_order_env_files_profile)
{
    struct home h;
    struct creds k = CREDS_INIT;
    struct s3c_error e = S3C_ERROR_INIT;

    home_new(&h, CONFIG, CREDENTIALS);
    /* The credentials file beats the config file. */
    CHECK_INT(resolve(&h, NULL, &k, &e), S3C_OK);
    CHECK_STR(k.method, "shared-credentials-file");
    CHECK_STR(k.access_key, "AKIDCREDSDEFAULT");
    CHECK_STR(k.session_token, "t-creds-default");
    CHECK_INT(k.expires, 0);

    /* A profile only in the config file. */
    CHECK_INT(resolve(&h, "cfgonly", &k, &e), S3C_EAUTH);
    CHECK_STR(e.msg, CREDS_NO_CREDENTIALS);

    /* The environment wins over both, for AWS_PROFILE too... */
    env_set(&h, "AWS_ACCESS_KEY_ID", "AKIDENV");
    env_set(&h, "AWS_SECRET_ACCESS_KEY", "s-env");
    env_set(&h, "AWS_CREDENTIAL_EXPIRATION", "2030-01-02T03:04:05Z");
    CHECK_INT(resolve(&h, NULL, &k, &e), S3C_OK);
    CHECK_STR(k.method, "env");
    CHECK_STR(k.access_key, "AKIDENV");
    CHECK(k.session_token == NULL);
    CHECK_INT(k.expires, 1893553445);
    env_set(&h, "AWS_PROFILE", "dev");
    CHECK_INT(resolve(&h, NULL, &k, &e), S3C_OK);
    CHECK_STR(k.method, "env");

    /* ...but --profile drops the environment provider. */
    CHECK_INT(resolve(&h, "dev", &k, &e), S3C_OK);
    CHECK_STR(k.method, "shared-credentials-file");
    CHECK_STR(k.access_key, "AKIDCREDSDEV");
    creds_release(&k);
    home_free(&h);
}

TEST(creds_partial_keys_are_errors_in_chain_order)
{
    struct home h;
    struct creds k = CREDS_INIT;
    struct s3c_error e = S3C_ERROR_INIT;
    char want[1024];

    home_new(&h, CONFIG, CREDENTIALS);
    env_set(&h, "AWS_ACCESS_KEY_ID", "AKIDENV");
    CHECK_INT(resolve(&h, NULL, &k, &e), S3C_ECONFIG);
    CHECK_STR(e.msg, "environment: AWS_ACCESS_KEY_ID is set but AWS_SECRET_ACCESS_KEY is missing");
    /* --profile skips the environment; the config file's profile is partial. */
    CHECK_INT(resolve(&h, "partial", &k, &e), S3C_ECONFIG);
    snprintf(want, sizeof(want),
             "config file ~/.aws/config, profile \"partial\": aws_access_key_id is set but "
             "aws_secret_access_key is missing");
    CHECK_STR(e.msg, want);
    CHECK(k.access_key == NULL);
    home_free(&h);
}

TEST(creds_process_beats_config_keys_and_reports_failures)
{
    struct home h;
    struct creds k = CREDS_INIT;
    struct s3c_error e = S3C_ERROR_INIT;
    char cfg[2048];

    home_new(&h, NULL, NULL);
    snprintf(cfg, sizeof(cfg),
             "[profile proc]\ncredential_process = %s/proc.sh --flag 'two words'\n"
             "aws_access_key_id = AKIDCONFIGPROC\naws_secret_access_key = s\n"
             "[profile bad]\ncredential_process = %s/fail.sh\n"
             "[profile missing]\ncredential_process = %s/nope.sh\n",
             h.dir, h.dir, h.dir);
    write_file(&h, ".aws/config", cfg, 0600);
    write_file(&h, "proc.sh",
               "#!/bin/sh\n[ \"$1 $2\" = \"--flag two words\" ] || exit 9\n"
               "echo '{\"Version\": 1, \"AccessKeyId\": \"AKIDPROC\", \"SecretAccessKey\": \"sp\", "
               "\"SessionToken\": \"tp\", \"Expiration\": \"2031-01-01T00:00:00+01:00\"}'\n",
               0700);
    write_file(&h, "fail.sh", "#!/bin/sh\necho 'token expired, log in again' >&2\necho more >&2\nexit 3\n",
               0700);
    CHECK_INT(resolve(&h, "proc", &k, &e), S3C_OK);
    CHECK_STR(k.method, "custom-process");
    CHECK_STR(k.access_key, "AKIDPROC");
    CHECK_STR(k.session_token, "tp");
    CHECK_INT(k.expires, 1924988400);        /* 2030-12-31T23:00:00Z */
    CHECK_INT(resolve(&h, "bad", &k, &e), S3C_EAUTH);
    CHECK_STR(e.msg, "credential_process exited 3: token expired, log in again");
    CHECK_INT(resolve(&h, "missing", &k, &e), S3C_EAUTH);
    CHECK(strstr(e.msg, "No such file or directory") != NULL);
    creds_release(&k);
    home_free(&h);
}

TEST(creds_shell_split_like_shlex)
{
    static const struct {
        const char *in;
        const char *want;   /* words joined with '|' */
    } cases[] = {
        { "a b  c", "a|b|c" },
        { "  /bin/tool --x 'one two' \"three four\"", "/bin/tool|--x|one two|three four" },
        { "a'b c'd", "ab cd" },
        { "x \"q\\\"uote\" 'back\\slash'", "x|q\"uote|back\\slash" },
        { "x \"a\\nb\"", "x|a\\nb" },
        { "esc\\ aped \\'q", "esc aped|'q" },
        { "'' e", "|e" },
        { "", "" },
    };
    struct s3c_error e = S3C_ERROR_INIT;
    char **argv, got[256];
    size_t i;
    int j;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        got[0] = '\0';
        CHECK_INT(creds_shell_split(cases[i].in, &argv, &e), S3C_OK);
        for (j = 0; argv && argv[j]; j++)
            snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s%s", j ? "|" : "", argv[j]);
        CHECK_STR(got, cases[i].want);
        free(argv);
    }
    CHECK_INT(creds_shell_split("a 'open", &argv, &e), S3C_ECONFIG);
    CHECK_STR(e.msg, "credential_process: No closing quotation");
    CHECK_INT(creds_shell_split("a b\\", &argv, &e), S3C_ECONFIG);
    CHECK_STR(e.msg, "credential_process: No escaped character");
}

TEST(creds_process_json)
{
    struct creds k = CREDS_INIT;
    struct s3c_error e = S3C_ERROR_INIT;
    const char *ok = "{\"Version\":1,\"AccessKeyId\":\"AK\",\"SecretAccessKey\":\"SK\"}";
    const char *v2 = "{\"Version\":2,\"AccessKeyId\":\"AK\",\"SecretAccessKey\":\"SK\"}";
    const char *nov = "{\"AccessKeyId\":\"AK\",\"SecretAccessKey\":\"SK\"}";
    const char *nosk = "{\"Version\":1,\"AccessKeyId\":\"AK\"}";
    const char *badexp =
        "{\"Version\":1,\"AccessKeyId\":\"AK\",\"SecretAccessKey\":\"SK\",\"Expiration\":\"soon\"}";
    const char *null_tok = "{\"Version\":1.0,\"AccessKeyId\":\"AK\",\"SecretAccessKey\":\"SK\","
                           "\"SessionToken\":null,\"Expiration\":null}";

    CHECK_INT(creds_process_parse(ok, strlen(ok), &k, &e), S3C_OK);
    CHECK_STR(k.access_key, "AK");
    CHECK_STR(k.secret_key, "SK");
    CHECK(k.session_token == NULL && k.expires == 0);
    CHECK_INT(creds_process_parse(null_tok, strlen(null_tok), &k, &e), S3C_OK);
    CHECK_INT(creds_process_parse(v2, strlen(v2), &k, &e), S3C_EAUTH);
    CHECK_STR(e.msg, "credential_process: Unsupported version '2' for credential process provider, "
                     "supported versions: 1");
    CHECK(k.access_key == NULL);
    CHECK_INT(creds_process_parse(nov, strlen(nov), &k, &e), S3C_EAUTH);
    CHECK(strstr(e.msg, "'<Version key not provided>'") != NULL);
    CHECK_INT(creds_process_parse(nosk, strlen(nosk), &k, &e), S3C_EAUTH);
    CHECK_STR(e.msg, "credential_process: Missing required key in response: 'SecretAccessKey'");
    CHECK_INT(creds_process_parse(badexp, strlen(badexp), &k, &e), S3C_EAUTH);
    CHECK_INT(creds_process_parse("AKIASECRET", 10, &k, &e), S3C_EAUTH);
    CHECK(strstr(e.msg, "AKIASECRET") == NULL);     /* stdout never reaches a message */
    creds_release(&k);
}

TEST(creds_iso8601_expirations)
{
    static const struct {
        const char *in;
        long long want;
    } ok[] = {
        { "2024-05-01T12:00:00Z", 1714564800 },
        { "2024-05-01T12:00:00UTC", 1714564800 },        /* the CLI cache's own form */
        { "2024-05-01T12:00:00+00:00", 1714564800 },
        { "2024-05-01T14:00:00+02:00", 1714564800 },
        { "2024-05-01T07:00:00-0500", 1714564800 },
        { "2024-05-01T12:00:00.123456Z", 1714564800 },
        { "2024-05-01 12:00:00Z", 1714564800 },
        { "2024-05-01T12:00:00", 1714564800 },
        { "20240501T120000Z", 1714564800 },
        { "2024-05-01T12:00Z", 1714564800 },
        { "2024-05-01", 1714521600 },
    };
    static const char *const bad[] = { "", "soon", "2024-13-01T00:00:00Z", "2024-05-01T25:00:00Z",
                                       "2024-05-01T12:00:00+25:00", "2024-05-01T12:00:00 junk",
                                       "1714564800" };
    time_t t;
    size_t i;

    for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
        t = 0;
        CHECK(creds_parse_time(ok[i].in, &t));
        CHECK_INT(t, ok[i].want);
    }
    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        CHECK(!creds_parse_time(bad[i], &t));
}

/* File names of the CLI's caches, against vectors computed with botocore 1.29. */
TEST(creds_cache_names_match_botocore)
{
    struct creds_src s;
    struct s3c_error e = S3C_ERROR_INIT;
    char key[41];

    memset(&s, 0, sizeof(s));
    s.role_arn = "arn:aws:iam::123456789012:role/s3c-test";
    s.session_name = "s3c-test";
    s.external_id = "ext-1";
    s.mfa_serial = "arn:aws:iam::123456789012:mfa/u";
    s.duration_s = 3600;
    CHECK_INT(creds_cache_key_role(&s, key, &e), S3C_OK);
    CHECK_STR(key, "1786c485b0a89ab561cff103e134b5636989172b");

    memset(&s, 0, sizeof(s));
    s.role_arn = "arn:aws:iam::123456789012:role/s3c-test";
    s.session_name = "botocore-session-1700000000";
    s.session_default = true;                   /* generated: left out of the key */
    CHECK_INT(creds_cache_key_role(&s, key, &e), S3C_OK);
    CHECK_STR(key, "a5ba8bf1b63acb3e1ac9b0e6629cb8ecc4505438");

    s.role_arn = "arn:aws:iam::123456789012:role/\xc3\xa9-\xc3\xbc";
    s.session_name = "na\xc3\xafve \"q\"";
    s.session_default = false;
    CHECK_INT(creds_cache_key_role(&s, key, &e), S3C_OK);
    CHECK_STR(key, "8cf1e948a557550ca852d2c3161118c0d6150a62");

    memset(&s, 0, sizeof(s));                   /* web identity: RoleArn, RoleSessionName */
    s.role_arn = "arn:aws:iam::123456789012:role/web";
    s.session_name = "pod-1";
    CHECK_INT(creds_cache_key_role(&s, key, &e), S3C_OK);
    CHECK_STR(key, "00ccb60a66926a8d5b8b568308cbb46f9b24a5cc");

    memset(&s, 0, sizeof(s));
    s.start_url = "https://d-123.awsapps.com/start";
    s.account_id = "123456789012";
    s.role_name = "Admin";
    s.sso_session = "my-sso";
    CHECK_INT(creds_cache_key_sso(&s, key, &e), S3C_OK);
    CHECK_STR(key, "c30b99aca80d8f5b3178e353f05b2abcc9a4ccd3");
    s.sso_session = NULL;
    CHECK_INT(creds_cache_key_sso(&s, key, &e), S3C_OK);
    CHECK_STR(key, "6898efe139a134a0f1e40a5325c9e4a0f4e25fee");

    creds_sso_token_key("my-sso", key);
    CHECK_STR(key, "0ad374308c5a4e22f723adf10145eafad7c4031c");
    creds_sso_token_key("https://d-123.awsapps.com/start", key);
    CHECK_STR(key, "2b829a45f04c9828cb45b7d092d8e4aa30818393");
}

/* A cache entry as the CLI writes it, good until 'exp'. */
static void cache_entry(struct home *h, const char *key, const char *ak, const char *exp)
{
    char rel[128], text[1024], path[512];

    snprintf(path, sizeof(path), "%s/.aws/cli", h->dir);
    mkdir(path, 0700);
    snprintf(path, sizeof(path), "%s/.aws/cli/cache", h->dir);
    mkdir(path, 0700);
    snprintf(rel, sizeof(rel), ".aws/cli/cache/%s.json", key);
    snprintf(text, sizeof(text),
             "{\"Credentials\": {\"AccessKeyId\": \"%s\", \"SecretAccessKey\": \"sc\", "
             "\"SessionToken\": \"tc\", \"Expiration\": \"%s\"}, \"AssumedRoleUser\": "
             "{\"AssumedRoleId\": \"AROA:x\", \"Arn\": \"arn:aws:sts::1:assumed-role/r/x\"}, "
             "\"ResponseMetadata\": {}}",
             ak, exp);
    write_file(h, rel, text, 0600);
}

TEST(creds_assume_role_from_the_cli_cache)
{
    static const char *const config =
        "[profile base]\naws_access_key_id = AKIDBASE\naws_secret_access_key = s\n"
        "[profile role]\nrole_arn = arn:aws:iam::123456789012:role/s3c-test\n"
        "source_profile = base\nrole_session_name = s3c-test\nexternal_id = ext-1\n"
        "duration_seconds = 3600\n"
        "[profile chained]\nrole_arn = arn:aws:iam::123456789012:role/s3c-test\n"
        "source_profile = role\nrole_session_name = s3c-test\nexternal_id = ext-1\n"
        "duration_seconds = 3600\n";
    struct home h;
    struct creds k = CREDS_INIT;
    struct s3c_error e = S3C_ERROR_INIT;
    time_t later = time(NULL) + 3600;
    char exp[32], key[41];
    struct creds_src s;
    struct tm tm;

    home_new(&h, config, NULL);
    memset(&s, 0, sizeof(s));
    s.role_arn = "arn:aws:iam::123456789012:role/s3c-test";
    s.session_name = "s3c-test";
    s.external_id = "ext-1";
    s.duration_s = 3600;
    CHECK_INT(creds_cache_key_role(&s, key, &e), S3C_OK);
    gmtime_r(&later, &tm);
    strftime(exp, sizeof(exp), "%Y-%m-%dT%H:%M:%SUTC", &tm);
    cache_entry(&h, key, "ASIACACHED", exp);

    CHECK_INT(resolve(&h, "role", &k, &e), S3C_OK);
    CHECK_STR(k.method, "assume-role");
    CHECK_STR(k.access_key, "ASIACACHED");
    CHECK_STR(k.session_token, "tc");
    CHECK_INT(k.expires, later);
    /* Role chaining resolves the same cached role (the inner one is never asked for). */
    CHECK_INT(resolve(&h, "chained", &k, &e), S3C_OK);
    CHECK_STR(k.access_key, "ASIACACHED");

    /* Within 15 minutes of its expiry the entry is not used: STS would be called. */
    later = time(NULL) + 600;
    gmtime_r(&later, &tm);
    strftime(exp, sizeof(exp), "%Y-%m-%dT%H:%M:%SZ", &tm);
    cache_entry(&h, key, "ASIASTALE", exp);
    env_set(&h, "AWS_ENDPOINT_URL_STS", "http://127.0.0.1:1");
    creds_retry_delay_ms = 1;
    CHECK_INT(resolve(&h, "role", &k, &e), S3C_ENET);
    CHECK(strstr(e.msg, "assume role arn:aws:iam::123456789012:role/s3c-test: STS http://127.0.0.1:1") ==
          e.msg);
    creds_release(&k);
    home_free(&h);
}

TEST(creds_role_configuration_errors)
{
    static const char *const config =
        "[profile both]\nrole_arn = arn:r\nsource_profile = base\ncredential_source = Environment\n"
        "[profile neither]\nrole_arn = arn:r\n"
        "[profile badsrc]\nrole_arn = arn:r\ncredential_source = environment\n"
        "[profile nosuch]\nrole_arn = arn:r\nsource_profile = ghost\n"
        "[profile a]\nrole_arn = arn:a\nsource_profile = b\n"
        "[profile b]\nrole_arn = arn:b\nsource_profile = a\n"
        "[profile self]\nrole_arn = arn:s\nsource_profile = self\n"
        "[profile empty]\nregion = us-east-1\n"
        "[profile fromempty]\nrole_arn = arn:r\nsource_profile = empty\n"
        "[profile fromenv]\nrole_arn = arn:r\ncredential_source = Environment\n";
    struct home h;
    struct creds k = CREDS_INIT;
    struct s3c_error e = S3C_ERROR_INIT;

    home_new(&h, config, NULL);
    CHECK_INT(resolve(&h, "both", &k, &e), S3C_ECONFIG);
    CHECK_STR(e.msg, "The profile \"both\" contains both source_profile and credential_source.");
    CHECK_INT(resolve(&h, "neither", &k, &e), S3C_ECONFIG);
    CHECK(strstr(e.msg, "missing: source_profile or credential_source") != NULL);
    CHECK_INT(resolve(&h, "badsrc", &k, &e), S3C_ECONFIG);
    CHECK_STR(e.msg, "The credential source \"environment\" referenced in profile \"badsrc\" is not valid.");
    CHECK_INT(resolve(&h, "nosuch", &k, &e), S3C_ECONFIG);
    CHECK_STR(e.msg, "The source_profile \"ghost\" referenced in the profile \"nosuch\" does not exist.");
    CHECK_INT(resolve(&h, "a", &k, &e), S3C_ECONFIG);
    CHECK_STR(e.msg, "Infinite loop in credential configuration detected. Attempting to load from "
                     "profile a which has already been visited. Visited profiles: ['a', 'b']");
    CHECK_INT(resolve(&h, "self", &k, &e), S3C_ECONFIG);
    CHECK(strstr(e.msg, "Infinite loop") == e.msg);
    CHECK_INT(resolve(&h, "fromempty", &k, &e), S3C_ECONFIG);
    CHECK_STR(e.msg, "The source profile \"empty\" must have credentials.");
    CHECK_INT(resolve(&h, "fromenv", &k, &e), S3C_EAUTH);
    CHECK(strstr(e.msg, "No credentials found in credential_source referenced in profile fromenv"));
    home_free(&h);
}

TEST(creds_web_identity_and_sso_setups)
{
    static const char *const config =
        "[profile web]\nweb_identity_token_file = /nonexistent/token\n"
        "role_arn = arn:aws:iam::123456789012:role/web\nrole_session_name = pod-1\n"
        "[profile webnoarn]\nweb_identity_token_file = /nonexistent/token\n"
        "[profile sso]\nsso_session = my-sso\nsso_account_id = 123456789012\n"
        "sso_role_name = Admin\n"
        "[sso-session my-sso]\nsso_start_url = https://d-123.awsapps.com/start\n"
        "sso_region = us-east-1\n"
        "[profile ssolegacy]\nsso_start_url = https://d-123.awsapps.com/start\n"
        "sso_region = us-east-1\nsso_account_id = 123456789012\nsso_role_name = Admin\n"
        "[profile ssopartial]\nsso_account_id = 123456789012\n"
        "[profile ssoghost]\nsso_session = ghost\nsso_account_id = 1\nsso_role_name = r\n"
        "[profile ssoclash]\nsso_session = my-sso\nsso_account_id = 1\nsso_role_name = r\n"
        "sso_region = eu-west-1\n";
    struct home h;
    struct creds k = CREDS_INIT;
    struct s3c_error e = S3C_ERROR_INIT;
    time_t past = time(NULL) - 60, later = time(NULL) + 3600;
    char text[512], exp[32];
    struct tm tm;

    home_new(&h, config, NULL);
    CHECK_INT(resolve(&h, "web", &k, &e), S3C_EAUTH);
    CHECK_STR(e.msg, "web identity token file /nonexistent/token: No such file or directory");
    CHECK_INT(resolve(&h, "webnoarn", &k, &e), S3C_ECONFIG);
    CHECK(strstr(e.msg, "has no role ARN configured") != NULL);

    CHECK_INT(resolve(&h, "sso", &k, &e), S3C_EAUTH);
    CHECK_STR(e.msg, "SSO token for session my-sso not found: run aws sso login --profile sso");
    CHECK_INT(resolve(&h, "ssopartial", &k, &e), S3C_ECONFIG);
    CHECK_STR(e.msg, "The profile \"ssopartial\" is configured to use SSO but is missing required "
                     "configuration: sso_role_name, sso_start_url, sso_region");
    CHECK_INT(resolve(&h, "ssoghost", &k, &e), S3C_ECONFIG);
    CHECK_STR(e.msg, "The specified sso-session does not exist: \"ghost\"");
    CHECK_INT(resolve(&h, "ssoclash", &k, &e), S3C_ECONFIG);
    CHECK(strstr(e.msg, "The value for sso_region is inconsistent") == e.msg);

    /* An expired token from `aws sso login` (the file name: sha1 of the session name). */
    snprintf(text, sizeof(text), "%s/.aws/sso", h.dir);
    mkdir(text, 0700);
    snprintf(text, sizeof(text), "%s/.aws/sso/cache", h.dir);
    mkdir(text, 0700);
    gmtime_r(&past, &tm);
    strftime(exp, sizeof(exp), "%Y-%m-%dT%H:%M:%SZ", &tm);
    snprintf(text, sizeof(text), "{\"startUrl\": \"https://d-123.awsapps.com/start\", "
             "\"region\": \"us-east-1\", \"accessToken\": \"tok\", \"expiresAt\": \"%s\"}", exp);
    write_file(&h, ".aws/sso/cache/0ad374308c5a4e22f723adf10145eafad7c4031c.json", text, 0600);
    CHECK_INT(resolve(&h, "sso", &k, &e), S3C_EAUTH);
    CHECK_STR(e.msg, "SSO token for session my-sso expired: run aws sso login --profile sso");
    /* The legacy form names its token by the start URL. */
    CHECK_INT(resolve(&h, "ssolegacy", &k, &e), S3C_EAUTH);
    CHECK_STR(e.msg, "SSO token for start URL https://d-123.awsapps.com/start not found: run aws "
                     "sso login --profile ssolegacy");

    /* Role credentials the CLI cached for this session are used as they are. */
    gmtime_r(&later, &tm);
    strftime(exp, sizeof(exp), "%Y-%m-%dT%H:%M:%SZ", &tm);
    cache_entry(&h, "c30b99aca80d8f5b3178e353f05b2abcc9a4ccd3", "ASIASSO", exp);
    CHECK_INT(resolve(&h, "sso", &k, &e), S3C_OK);
    CHECK_STR(k.method, "sso");
    CHECK_STR(k.access_key, "ASIASSO");
    creds_release(&k);
    home_free(&h);
}

TEST(creds_container_full_uri_rules)
{
    CHECK(creds_container_url_allowed("https://creds.example.com/x"));
    CHECK(creds_container_url_allowed("http://127.0.0.1:8080/creds"));
    CHECK(creds_container_url_allowed("http://127.9.9.9/creds"));
    CHECK(creds_container_url_allowed("http://[::1]:80/creds"));
    CHECK(creds_container_url_allowed("http://localhost/creds"));
    CHECK(creds_container_url_allowed("http://169.254.170.2/v2/credentials"));
    CHECK(creds_container_url_allowed("http://169.254.170.23/v1/credentials"));
    CHECK(creds_container_url_allowed("http://[fd00:ec2::23]/v1/credentials"));
    CHECK(!creds_container_url_allowed("http://169.254.169.254/"));
    CHECK(!creds_container_url_allowed("http://example.com/creds"));
    CHECK(!creds_container_url_allowed("http://localhost.example.com/creds"));
    CHECK(!creds_container_url_allowed("ftp://127.0.0.1/creds"));
}

TEST(creds_container_and_imds_come_last)
{
    struct home h;
    struct creds k = CREDS_INIT;
    struct s3c_error e = S3C_ERROR_INIT;

    home_new(&h, NULL, NULL);
    env_set(&h, "AWS_CONTAINER_CREDENTIALS_FULL_URI", "http://example.com/creds");
    CHECK_INT(resolve(&h, NULL, &k, &e), S3C_ECONFIG);
    CHECK(strstr(e.msg, "Unsupported host 'example.com'") != NULL);
    home_free(&h);

    /* Nothing listens on port 1: the container provider fails after its attempts. */
    home_new(&h, NULL, CREDENTIALS);
    env_set(&h, "AWS_CONTAINER_CREDENTIALS_FULL_URI", "http://127.0.0.1:1/creds");
    CHECK_INT(resolve(&h, NULL, &k, &e), S3C_OK);   /* the credentials file comes first */
    CHECK_STR(k.method, "shared-credentials-file");
    creds_release(&k);
    home_free(&h);
}
