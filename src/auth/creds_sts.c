/*
 * creds_sts.c: the two providers that call STS, as botocore's
 * AssumeRoleProvider and AssumeRoleWithWebIdentityProvider do: the profile
 * rules (source_profile or credential_source, chains, loops), the CLI's
 * cache in front of every call, the MFA prompt on the terminal, the STS
 * endpoint botocore would pick, the SigV4-signed (or, for web identity,
 * unsigned) query-protocol POST, and its XML reply read with expat.
 * Messages name the role and STS's own code; never a key or a token.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include <expat.h>

#include "auth/creds_impl.h"
#include "auth/sigv4.h"
#include "base/hash.h"

#define STS_VERSION "2011-06-15"
#define STS_ATTEMPTS 3

long creds_retry_delay_ms = 1000;
#define TOKEN_FILE_MAX_BYTES ((size_t)1 << 20)
#define URL_MAX_BYTES 4096

/* ---- endpoints ---- */

static bool truthy(const char *v)
{
    bool b = false;
    return v && cfg_parse_bool(sv_from(v), &b) && b;
}

enum s3c_err creds_service_endpoint(const struct creds_ctx *x, const char *svc,
                                    const char *env_suffix, const char *region,
                                    struct creds_endpoint *out, bool *configured,
                                    struct s3c_error *e)
{
    const char *prof = x->cfg->profile, *url = NULL, *ignore, *name;
    char var[64];
    enum s3c_err rc;

    *configured = false;
    if (!(ignore = cfg_env_get(x->envp, "AWS_IGNORE_CONFIGURED_ENDPOINT_URLS")))
        ignore = creds_prof(x, prof, "ignore_configured_endpoint_urls");
    if (!truthy(ignore)) {
        snprintf(var, sizeof(var), "AWS_ENDPOINT_URL_%s", env_suffix);
        url = cfg_env_get(x->envp, var);
        if (!url && (name = creds_prof(x, prof, "services")) && name[0]) {
            const struct ini_section *sec = cfg_kind_section(x->cfg, "services", name);
            const struct ini_pair *kv =
                sec ? ini_sub_get(ini_get(&x->cfg->config_ini, sec, svc), "endpoint_url") : NULL;
            if (kv && kv->value[0])
                url = kv->value;
        }
        if (!url)
            url = cfg_env_get(x->envp, "AWS_ENDPOINT_URL");
        if (!url && (url = creds_prof(x, prof, "endpoint_url")) && !url[0])
            url = NULL;
    }
    if ((rc = creds_dup(&out->region, region, e)))
        return rc;
    if (url) {
        *configured = true;
        return creds_dup(&out->url, url, e);
    }
    return S3C_OK;
}

/* Regions that `sts_regional_endpoints = legacy` sends to the global endpoint. */
static bool legacy_global_region(const char *r)
{
    static const char *const legacy[] = {
        "ap-northeast-1", "ap-south-1", "ap-southeast-1", "ap-southeast-2", "aws-global",
        "ca-central-1",   "eu-central-1", "eu-north-1",   "eu-west-1",      "eu-west-2",
        "eu-west-3",      "sa-east-1",  "us-east-1",      "us-east-2",      "us-west-1",
        "us-west-2",
    };
    size_t i;

    for (i = 0; i < sizeof(legacy) / sizeof(legacy[0]); i++)
        if (!strcmp(r, legacy[i]))
            return true;
    return false;
}

enum s3c_err creds_sts_endpoint(const struct creds_ctx *x, struct creds_endpoint *out,
                                struct s3c_error *e)
{
    const char *region = x->cfg->region, *mode;
    char url[256];
    bool configured;
    enum s3c_err rc;

    if ((rc = creds_service_endpoint(x, "sts", "STS", region, out, &configured, e)) || configured)
        return rc;
    if (!(mode = cfg_env_get(x->envp, "AWS_STS_REGIONAL_ENDPOINTS")))
        mode = creds_prof(x, x->cfg->profile, "sts_regional_endpoints");
    if (mode && !strcmp(mode, "legacy") && legacy_global_region(region)) {
        free(out->region);
        out->region = NULL;
        if ((rc = creds_dup(&out->region, "us-east-1", e)))
            return rc;
        snprintf(url, sizeof(url), "https://sts.amazonaws.com");
    } else {
        snprintf(url, sizeof(url), "https://sts.%s.amazonaws.com%s", region,
                 strncmp(region, "cn-", 3) == 0 ? ".cn" : "");
    }
    return creds_dup(&out->url, url, e);
}

/* ---- the reply ---- */

/* The elements kept from an STS reply or error, by local name. */
enum sts_field {
    F_ACCESS_KEY, F_SECRET_KEY, F_TOKEN, F_EXPIRATION, F_ARN, F_ROLE_ID, F_CODE, F_MESSAGE,
    F_SUBJECT, F_PROVIDER, F_AUDIENCE, F_COUNT
};
static const char *const field_names[F_COUNT] = {
    "AccessKeyId", "SecretAccessKey", "SessionToken", "Expiration", "Arn", "AssumedRoleId",
    "Code", "Message", "SubjectFromWebIdentityToken", "Provider", "Audience",
};

struct sts_reply {
    struct buf v[F_COUNT];
    int cur;                /* field being read, -1: none */
    int depth;
    bool bad;               /* DOCTYPE or entity: refused */
};

static void reply_init(struct sts_reply *r)
{
    int i;

    memset(r, 0, sizeof(*r));
    for (i = 0; i < F_COUNT; i++)
        r->v[i] = (struct buf)BUF_INIT((size_t)64 << 10);
    r->cur = -1;
}

static void reply_release(struct sts_reply *r)
{
    int i;

    for (i = 0; i < F_COUNT; i++) {
        if (r->v[i].data)
            explicit_bzero(r->v[i].data, r->v[i].cap);
        buf_release(&r->v[i]);
    }
}

static const char *local_name(const char *n)
{
    const char *c = strrchr(n, ':');
    return c ? c + 1 : n;
}

static void XMLCALL on_start(void *ud, const XML_Char *name, const XML_Char **attrs)
{
    struct sts_reply *r = ud;
    int i;

    r->depth++;
    r->cur = -1;
    for (i = 0; i < F_COUNT; i++)
        if (!strcmp(local_name(name), field_names[i])) {
            r->cur = i;
            buf_reset(&r->v[i]);
        }
}

static void XMLCALL on_end(void *ud, const XML_Char *name)
{
    struct sts_reply *r = ud;

    r->depth--;
    r->cur = -1;
}

static void XMLCALL on_text(void *ud, const XML_Char *s, int len)
{
    struct sts_reply *r = ud;

    if (r->cur >= 0 && buf_add(&r->v[r->cur], s, (size_t)len))
        r->bad = true;
}

static void XMLCALL on_doctype(void *ud, const XML_Char *name, const XML_Char *sysid,
                               const XML_Char *pubid, int has_internal_subset)
{
    struct sts_reply *r = ud;
    r->bad = true;
}

static enum s3c_err reply_parse(struct sts_reply *r, const struct buf *body)
{
    XML_Parser p = XML_ParserCreate(NULL);
    enum XML_Status st;

    if (!p)
        return S3C_ENOMEM;
    XML_SetUserData(p, r);
    XML_SetElementHandler(p, on_start, on_end);
    XML_SetCharacterDataHandler(p, on_text);
    XML_SetStartDoctypeDeclHandler(p, on_doctype);
    st = XML_Parse(p, body->data ? body->data : "", (int)body->len, 1);
    XML_ParserFree(p);
    return st == XML_STATUS_OK && !r->bad ? S3C_OK : S3C_EPARSE;
}

static const char *field(const struct sts_reply *r, enum sts_field f)
{
    return r->v[f].len ? buf_cstr(&r->v[f]) : NULL;
}

/* ---- the call ---- */

/* "https://host:port/path" into its Host header value and path. */
static bool split_url(const char *url, struct buf *host, struct buf *path)
{
    const char *p = strstr(url, "://"), *slash;

    if (!p)
        return false;
    p += 3;
    slash = strchr(p, '/');
    if (buf_add(host, p, slash ? (size_t)(slash - p) : strlen(p)) || !host->len)
        return false;
    return !buf_adds(path, slash ? slash : "/");
}

/* Append "&name=value" form-encoded (RFC 3986, as botocore's query serializer). */
static enum s3c_err form_add(struct buf *b, const char *name, const char *value)
{
    enum s3c_err rc;

    if (!value)
        return S3C_OK;
    if ((rc = buf_addf(b, "&%s=", name)))
        return rc;
    return sigv4_uri_encode(sv_from(value), 0, b);
}

/*
 * POST 'body' to the source's STS endpoint, signed with 'signer' (NULL:
 * unsigned), and parse the reply into 'r'. 'what' starts every message:
 * "assume role arn:aws:iam::1:role/x". Retries network failures, 5xx and
 * throttling as botocore's standard mode does (3 attempts).
 */
static enum s3c_err sts_post(const struct creds_src *s, const struct creds *signer,
                             const struct buf *body, const char *what, struct sts_reply *r,
                             struct s3c_error *e)
{
    struct buf host = BUF_INIT(URL_MAX_BYTES), path = BUF_INIT(URL_MAX_BYTES);
    struct buf auth = BUF_INIT(4096), resp = BUF_INIT(CREDS_JSON_MAX_BYTES);
    struct buf hl[5];
    const char *lines[5];
    char amz_date[17], payload[2 * SHA256_LEN + 1];
    long status = 0;
    int attempt, i, n_lines;
    enum s3c_err rc = S3C_OK;

    for (i = 0; i < 5; i++)
        hl[i] = (struct buf)BUF_INIT(16384);
    if (!split_url(s->sts.url, &host, &path)) {
        rc = s3c_fail(e, S3C_ECONFIG, "%s: STS endpoint \"%.200s\" is not a URL", what, s->sts.url);
        goto out;
    }
    hash_sha256_hex(body->data, body->len, payload);
    for (attempt = 1; attempt <= STS_ATTEMPTS; attempt++) {
        time_t now = time(NULL);
        struct tm tm;
        struct sigv4_header sh[4] = {
            { "content-type", "application/x-www-form-urlencoded; charset=utf-8" },
            { "host", buf_cstr(&host) },
            { "x-amz-date", amz_date },
            { "x-amz-security-token", signer ? signer->session_token : NULL },
        };
        struct creds_http_req req;
        bool timed_out;

        gmtime_r(&now, &tm);
        strftime(amz_date, sizeof(amz_date), "%Y%m%dT%H%M%SZ", &tm);
        for (i = 0; i < 5; i++)
            buf_reset(&hl[i]);
        buf_reset(&auth);
        buf_reset(&resp);
        n_lines = 0;
        if (buf_addf(&hl[n_lines++], "Content-Type: %s", sh[0].value) ||
            buf_addf(&hl[n_lines++], "Host: %s", buf_cstr(&host))) {
            rc = S3C_ENOMEM;
            goto out;
        }
        if (signer) {
            const struct sigv4_request sr = { "POST", buf_cstr(&path), NULL, sh,
                                              signer->session_token ? 4 : 3, payload };
            const struct sigv4_creds sc = { signer->access_key, signer->secret_key,
                                            signer->session_token };
            const struct sigv4_scope scope = { amz_date, s->sts.region, "sts" };

            if (sigv4_authorization(&sr, &sc, &scope, &auth) ||
                buf_addf(&hl[n_lines++], "X-Amz-Date: %s", amz_date) ||
                buf_addf(&hl[n_lines++], "Authorization: %s", buf_cstr(&auth)) ||
                (signer->session_token &&
                 buf_addf(&hl[n_lines++], "X-Amz-Security-Token: %s", signer->session_token))) {
                rc = S3C_ENOMEM;
                goto out;
            }
        }
        for (i = 0; i < n_lines; i++)
            lines[i] = buf_cstr(&hl[i]);
        memset(&req, 0, sizeof(req));
        req.method = "POST";
        req.url = s->sts.url;
        req.headers = lines;
        req.n_headers = (size_t)n_lines;
        req.body = body->data;
        req.body_len = body->len;
        req.net = &s->net;
        rc = creds_http(&req, &status, &resp, &timed_out, e);
        if (rc == S3C_ENET) {
            if (attempt < STS_ATTEMPTS) {
                usleep((useconds_t)creds_retry_delay_ms * 1000);
                continue;
            }
            char why[256];

            snprintf(why, sizeof(why), "%.200s", e ? e->msg : "no answer");
            rc = s3c_fail(e, S3C_ENET, "%s: STS %s: %s", what, s->sts.url, why);
            goto out;
        }
        if (rc)
            goto out;
        reply_release(r);
        reply_init(r);
        if (reply_parse(r, &resp) && status == 200) {
            rc = s3c_fail(e, S3C_EPARSE, "%s: STS answered with a reply that is not XML", what);
            goto out;
        }
        if (status == 200)
            break;
        if ((status >= 500 || (field(r, F_CODE) && strstr(field(r, F_CODE), "Throttl"))) &&
            attempt < STS_ATTEMPTS) {
            usleep((useconds_t)creds_retry_delay_ms * 1000);
            continue;
        }
        rc = s3c_fail(e, status == 403 || status == 400 ? S3C_EAUTH : S3C_EHTTP, "%s: %s: %.300s",
                      what, field(r, F_CODE) ? field(r, F_CODE) : "HTTP error",
                      field(r, F_MESSAGE) ? field(r, F_MESSAGE) : "(no message)");
        if (e) {
            e->http_status = status;
            snprintf(e->s3_code, sizeof(e->s3_code), "%s", field(r, F_CODE) ? field(r, F_CODE) : "");
        }
        goto out;
    }
    if (!field(r, F_ACCESS_KEY) || !field(r, F_SECRET_KEY) || !field(r, F_TOKEN) ||
        !field(r, F_EXPIRATION))
        rc = s3c_fail(e, S3C_EPARSE, "%s: STS reply has no Credentials", what);
out:
    if (rc == S3C_ENOMEM && e && !e->msg[0])
        s3c_fail(e, rc, "%s: out of memory", what);
    for (i = 0; i < 5; i++) {
        if (hl[i].data)
            explicit_bzero(hl[i].data, hl[i].cap);
        buf_release(&hl[i]);
    }
    if (auth.data)
        explicit_bzero(auth.data, auth.cap);
    buf_release(&auth);
    if (resp.data)
        explicit_bzero(resp.data, resp.cap);
    buf_release(&resp);
    buf_release(&host);
    buf_release(&path);
    return rc;
}

/*
 * The keys of a successful reply into *out, and the cache entry the CLI
 * would write ("Expiration" as botocore serialises a datetime: ...UTC).
 */
static enum s3c_err reply_keys(const struct creds_src *s, const struct sts_reply *r,
                               const char *cache_key, const char *what, struct creds *out,
                               struct s3c_error *e)
{
    char exp_text[32];
    json_t *entry, *user;
    enum s3c_err rc;

    creds_release(out);
    if (!creds_parse_time(field(r, F_EXPIRATION), &out->expires))
        return s3c_fail(e, S3C_EPARSE, "%s: STS Expiration \"%.40s\" is not a time", what,
                        field(r, F_EXPIRATION));
    if ((rc = creds_dup(&out->access_key, field(r, F_ACCESS_KEY), e)) ||
        (rc = creds_dup(&out->secret_key, field(r, F_SECRET_KEY), e)) ||
        (rc = creds_dup(&out->session_token, field(r, F_TOKEN), e))) {
        creds_release(out);
        return rc;
    }
    {
        struct tm tm;
        gmtime_r(&out->expires, &tm);
        strftime(exp_text, sizeof(exp_text), "%Y-%m-%dT%H:%M:%SUTC", &tm);
    }
    if ((entry = creds_cache_entry(out, exp_text))) {
        if ((user = json_object())) {
            if (field(r, F_ROLE_ID))
                json_object_set_new(user, "AssumedRoleId", json_string(field(r, F_ROLE_ID)));
            if (field(r, F_ARN))
                json_object_set_new(user, "Arn", json_string(field(r, F_ARN)));
            json_object_set_new(entry, "AssumedRoleUser", user);
        }
        if (field(r, F_SUBJECT))
            json_object_set_new(entry, "SubjectFromWebIdentityToken",
                                json_string(field(r, F_SUBJECT)));
        if (field(r, F_PROVIDER))
            json_object_set_new(entry, "Provider", json_string(field(r, F_PROVIDER)));
        if (field(r, F_AUDIENCE))
            json_object_set_new(entry, "Audience", json_string(field(r, F_AUDIENCE)));
        creds_cache_write(s->cache_dir, cache_key, entry);
        json_decref(entry);
    }
    return S3C_OK;
}

/* ---- MFA ---- */

/* Ask for the code on the terminal, without echo, as getpass does. */
static enum s3c_err mfa_prompt(const struct creds_src *s, char *code, size_t n,
                               struct s3c_error *e)
{
    struct termios old, quiet;
    char prompt[512];
    size_t len = 0;
    bool restore = false;
    char c;
    int fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC);

    if (fd < 0)
        return s3c_fail(e, S3C_EAUTH,
                        "profile \"%s\": role %s needs an MFA code (mfa_serial) and there is no "
                        "terminal to ask for it",
                        s->profile, s->role_arn);
    snprintf(prompt, sizeof(prompt), "Enter MFA code for %s: ", s->mfa_serial);
    if (tcgetattr(fd, &old) == 0) {
        quiet = old;
        quiet.c_lflag &= ~(tcflag_t)(ECHO | ECHONL);
        restore = tcsetattr(fd, TCSAFLUSH, &quiet) == 0;
    }
    if (write(fd, prompt, strlen(prompt)) < 0) {
        /* the prompt is a courtesy; the read decides */
    }
    while (read(fd, &c, 1) == 1 && c != '\n' && c != '\r')
        if (len + 1 < n)
            code[len++] = c;
    code[len] = '\0';
    if (restore)
        tcsetattr(fd, TCSAFLUSH, &old);
    if (write(fd, "\n", 1) < 0) {
        /* as above */
    }
    close(fd);
    return S3C_OK;
}

/* ---- assume role ---- */

static enum s3c_err set_session_name(struct creds_src *s, const char *given,
                                     struct s3c_error *e)
{
    char name[64];

    if (given)
        return creds_dup(&s->session_name, given, e);
    /* botocore: 'botocore-session-%s' % int(time.time()), left out of the cache key. */
    snprintf(name, sizeof(name), "botocore-session-%lld", (long long)time(NULL));
    s->session_default = true;
    return creds_dup(&s->session_name, name, e);
}

static bool visited(const struct creds_ctx *x, const char *profile)
{
    size_t i;

    for (i = 0; i < x->n_visited; i++)
        if (!strcmp(x->visited[i], profile))
            return true;
    return false;
}

static enum s3c_err loop_error(const struct creds_ctx *x, const char *source,
                               struct s3c_error *e)
{
    char list[1024] = "";
    size_t i, len;

    for (i = 0; i < x->n_visited; i++) {
        len = strlen(list);
        snprintf(list + len, sizeof(list) - len, "%s'%s'", i ? ", " : "", x->visited[i]);
    }
    return s3c_fail(e, S3C_ECONFIG,
                    "Infinite loop in credential configuration detected. Attempting to load from "
                    "profile %s which has already been visited. Visited profiles: [%s]",
                    source, list);
}

enum s3c_err creds_role_setup(struct creds_ctx *x, const char *profile, struct creds_src **out,
                              struct s3c_error *e)
{
    const char *arn = creds_prof(x, profile, "role_arn");
    const char *sp = creds_prof(x, profile, "source_profile");
    const char *cs = creds_prof(x, profile, "credential_source");
    const char *dur = creds_prof(x, profile, "duration_seconds");
    struct creds_src *s = NULL;
    enum s3c_err rc;
    uint64_t d;

    *out = NULL;
    if (!arn || creds_prof(x, profile, "web_identity_token_file"))
        return S3C_OK;
    if (cs && sp)
        return s3c_fail(e, S3C_ECONFIG,
                        "The profile \"%s\" contains both source_profile and credential_source.",
                        profile);
    if (!cs && !sp)
        return s3c_fail(e, S3C_ECONFIG,
                        "Partial credentials found in assume-role, missing: source_profile or "
                        "credential_source (profile \"%s\")",
                        profile);
    if (cs && strcmp(cs, "Environment") && strcmp(cs, "EcsContainer") &&
        strcmp(cs, "Ec2InstanceMetadata"))
        return s3c_fail(e, S3C_ECONFIG,
                        "The credential source \"%.64s\" referenced in profile \"%s\" is not valid.",
                        cs, profile);
    if (sp) {
        if (!cfg_profile_exists(x->cfg, sp))
            return s3c_fail(e, S3C_ECONFIG,
                            "The source_profile \"%s\" referenced in the profile \"%s\" does not "
                            "exist.",
                            sp, profile);
        if (visited(x, sp) &&
            (strcmp(sp, profile) != 0 || !(creds_prof(x, sp, "aws_access_key_id") ||
                                           creds_prof(x, sp, "aws_secret_access_key"))))
            return loop_error(x, sp, e);
        if (x->n_visited >= CREDS_CHAIN_MAX)
            return s3c_fail(e, S3C_ECONFIG, "profile \"%s\": more than %d source_profile hops",
                            profile, CREDS_CHAIN_MAX);
    }

    if (!(s = creds_src_new(x, CREDS_KIND_ROLE, "assume-role", profile)))
        return s3c_fail(e, S3C_ENOMEM, "credentials: out of memory");
    if ((rc = creds_dup(&s->role_arn, arn, e)) ||
        (rc = set_session_name(s, creds_prof(x, profile, "role_session_name"), e)) ||
        (rc = creds_dup(&s->external_id, creds_prof(x, profile, "external_id"), e)) ||
        (rc = creds_dup(&s->mfa_serial, creds_prof(x, profile, "mfa_serial"), e)) ||
        (rc = creds_sts_endpoint(x, &s->sts, e)))
        goto out;
    /* botocore: int(duration_seconds), ignored when it is not an integer. */
    if (dur && sv_to_u64(sv_trim(sv_from(dur)), &d) && d > 0 && d < 1000000)
        s->duration_s = (long)d;
out:
    if (rc) {
        creds_src_free(s);
        return rc;
    }
    *out = s;
    return S3C_OK;
}

enum s3c_err creds_role_cached(struct creds_src *s, struct creds *out, bool *hit,
                               struct s3c_error *e)
{
    char key[41];
    enum s3c_err rc;

    *hit = false;
    if (s->mfa_serial && s->fetched)
        return s3c_fail(e, S3C_EAUTH,
                        "assume role %.500s: credentials that need an MFA code (mfa_serial) cannot "
                        "be refreshed",
                        s->role_arn);
    if (!(rc = creds_cache_key_role(s, key, e)) &&
        !(rc = creds_cache_read(s->skip_cache ? NULL : s->cache_dir, key, time(NULL), out, hit, e)) &&
        *hit)
        s->fetched = true;
    return rc;
}

enum s3c_err creds_role_fetch(struct creds_src *s, const struct creds *src, struct creds *out,
                              struct s3c_error *e)
{
    struct buf body = BUF_INIT(65536);
    struct sts_reply r;
    char key[41], what[600], code[64] = "", num[32];
    enum s3c_err rc;

    reply_init(&r);
    snprintf(what, sizeof(what), "assume role %.500s", s->role_arn);
    if ((rc = creds_cache_key_role(s, key, e)))
        goto out;
    if (s->mfa_serial && (rc = mfa_prompt(s, code, sizeof(code), e)))
        goto out;
    snprintf(num, sizeof(num), "%ld", s->duration_s);
    if ((rc = buf_adds(&body, "Action=AssumeRole&Version=" STS_VERSION)) ||
        (rc = form_add(&body, "RoleArn", s->role_arn)) ||
        (rc = form_add(&body, "RoleSessionName", s->session_name)) ||
        (rc = form_add(&body, "DurationSeconds", s->duration_s ? num : NULL)) ||
        (rc = form_add(&body, "ExternalId", s->external_id)) ||
        (rc = form_add(&body, "SerialNumber", s->mfa_serial)) ||
        (rc = form_add(&body, "TokenCode", s->mfa_serial ? code : NULL)))
        goto out;
    if ((rc = sts_post(s, src, &body, what, &r, e)))
        goto out;
    rc = reply_keys(s, &r, key, what, out, e);
out:
    if (!rc)
        s->fetched = true;
    explicit_bzero(code, sizeof(code));
    if (body.data)
        explicit_bzero(body.data, body.cap);
    buf_release(&body);
    reply_release(&r);
    return rc;
}

/* ---- web identity ---- */

enum s3c_err creds_web_identity_setup(struct creds_ctx *x, const char *profile, bool use_env,
                                      struct creds_src **out, struct s3c_error *e)
{
    const char *file = NULL, *arn = NULL, *name = NULL;
    struct creds_src *s;
    enum s3c_err rc;

    *out = NULL;
    /* Each setting from its variable first, then from the profile, as botocore reads them. */
    if (use_env) {
        file = cfg_env_get(x->envp, "AWS_WEB_IDENTITY_TOKEN_FILE");
        arn = cfg_env_get(x->envp, "AWS_ROLE_ARN");
        name = cfg_env_get(x->envp, "AWS_ROLE_SESSION_NAME");
    }
    if (!file && !(file = creds_prof(x, profile, "web_identity_token_file")))
        return S3C_OK;
    if (!file[0])
        return S3C_OK;
    if (!arn)
        arn = creds_prof(x, profile, "role_arn");
    if (!name)
        name = creds_prof(x, profile, "role_session_name");
    if (!arn || !arn[0])
        return s3c_fail(e, S3C_ECONFIG,
                        "The provided profile or the current environment is configured to assume "
                        "role with web identity but has no role ARN configured. Ensure that the "
                        "profile has the role_arn configuration set or the AWS_ROLE_ARN env var "
                        "is set.");
    if (!(s = creds_src_new(x, CREDS_KIND_WEB_IDENTITY, "assume-role-with-web-identity", profile)))
        return s3c_fail(e, S3C_ENOMEM, "credentials: out of memory");
    if ((rc = creds_dup(&s->token_file, file, e)) || (rc = creds_dup(&s->role_arn, arn, e)) ||
        (rc = set_session_name(s, name, e)) || (rc = creds_sts_endpoint(x, &s->sts, e))) {
        creds_src_free(s);
        return rc;
    }
    *out = s;
    return S3C_OK;
}

/* The token file's text, read again on every fetch (the platform rotates it). */
static enum s3c_err read_token(const char *path, struct buf *out, struct s3c_error *e)
{
    char chunk[4096];
    ssize_t n;
    int fd = open(path, O_RDONLY | O_CLOEXEC);

    if (fd < 0)
        return s3c_fail(e, S3C_EAUTH, "web identity token file %.300s: %s", path, strerror(errno));
    while ((n = read(fd, chunk, sizeof(chunk))) != 0) {
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 || buf_add(out, chunk, (size_t)n)) {
            int err = n < 0 ? errno : EFBIG;
            close(fd);
            explicit_bzero(chunk, sizeof(chunk));
            return s3c_fail(e, S3C_EAUTH, "web identity token file %.300s: %s", path,
                            strerror(err));
        }
    }
    close(fd);
    explicit_bzero(chunk, sizeof(chunk));
    return S3C_OK;
}

enum s3c_err creds_web_identity_fetch(struct creds_src *s, struct creds *out,
                                      struct s3c_error *e)
{
    struct buf token = BUF_INIT(TOKEN_FILE_MAX_BYTES), body = BUF_INIT(TOKEN_FILE_MAX_BYTES * 3 + 4096);
    struct sts_reply r;
    char key[41], what[600];
    bool hit = false;
    enum s3c_err rc;

    reply_init(&r);
    snprintf(what, sizeof(what), "assume role with web identity %.500s", s->role_arn);
    if ((rc = creds_cache_key_role(s, key, e)) ||
        (rc = creds_cache_read(s->skip_cache ? NULL : s->cache_dir, key, time(NULL), out, &hit, e)) ||
        hit)
        goto out;
    if ((rc = read_token(s->token_file, &token, e)))
        goto out;
    if ((rc = buf_adds(&body, "Action=AssumeRoleWithWebIdentity&Version=" STS_VERSION)) ||
        (rc = form_add(&body, "RoleArn", s->role_arn)) ||
        (rc = form_add(&body, "RoleSessionName", s->session_name)) ||
        (rc = form_add(&body, "WebIdentityToken", buf_cstr(&token))))
        goto out;
    if ((rc = sts_post(s, NULL, &body, what, &r, e)))
        goto out;
    rc = reply_keys(s, &r, key, what, out, e);
out:
    if (token.data)
        explicit_bzero(token.data, token.cap);
    if (body.data)
        explicit_bzero(body.data, body.cap);
    buf_release(&token);
    buf_release(&body);
    reply_release(&r);
    return rc;
}
