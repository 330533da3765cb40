/*
 * creds_imds.c: the two metadata-service providers, as botocore's
 * ContainerProvider and InstanceMetadataProvider reach them. Container:
 * AWS_CONTAINER_CREDENTIALS_RELATIVE_URI against 169.254.170.2, or
 * _FULL_URI (https anywhere, http only to loopback or the ECS / EKS Pod
 * Identity addresses), with the authorization token from the variable or
 * its token file. EC2: IMDSv2 (a PUT for a session token, then GETs; IMDSv1
 * when the token is refused), the endpoint and mode from the environment or
 * the profile, botocore's timeout (1 s) and attempts (1), and the instance's
 * region when none is configured.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "auth/creds_impl.h"

#define CONTAINER_HOST "169.254.170.2"
#define CONTAINER_TIMEOUT_MS 2000
#define CONTAINER_ATTEMPTS 3
#define IMDS_V4 "http://169.254.169.254/"
#define IMDS_V6 "http://[fd00:ec2::254]/"
#define IMDS_TOKEN_TTL_S "21600"
#define IMDS_ROLE_PATH "latest/meta-data/iam/security-credentials/"
#define IMDS_AZ_PATH "latest/meta-data/placement/availability-zone/"

/* ---- shared ---- */

enum s3c_err creds_from_metadata_json(json_t *o, const char *what, struct creds *out,
                                      struct s3c_error *e)
{
    static const char *const keys[] = { "AccessKeyId", "SecretAccessKey", "Token", "Expiration" };
    const char *v[4];
    time_t t;
    enum s3c_err rc;
    size_t i;

    creds_release(out);
    for (i = 0; i < 4; i++)
        if (!(v[i] = json_string_value(json_object_get(o, keys[i]))))
            return s3c_fail(e, S3C_EAUTH, "%s: reply has no %s", what, keys[i]);
    if (!creds_parse_time(v[3], &t))
        return s3c_fail(e, S3C_EAUTH, "%s: Expiration \"%.40s\" is not a time", what, v[3]);
    if ((rc = creds_dup(&out->access_key, v[0], e)) || (rc = creds_dup(&out->secret_key, v[1], e)) ||
        (rc = creds_dup(&out->session_token, v[2][0] ? v[2] : NULL, e))) {
        creds_release(out);
        return rc;
    }
    out->expires = t;
    return S3C_OK;
}

static void wipe(struct buf *b)
{
    if (b->data)
        explicit_bzero(b->data, b->cap);
    buf_release(b);
}

/* ---- container ---- */

/* The host of an "http://HOST[:port]/..." URL into 'out' (brackets of IPv6 dropped). */
static bool url_host(const char *url, char *out, size_t n)
{
    const char *p = strstr(url, "://"), *end;
    size_t len;

    if (!p)
        return false;
    p += 3;
    if (*p == '[') {
        if (!(end = strchr(++p, ']')))
            return false;
    } else {
        end = p + strcspn(p, ":/?#");
    }
    len = (size_t)(end - p);
    if (len == 0 || len >= n)
        return false;
    memcpy(out, p, len);
    out[len] = '\0';
    return true;
}

bool creds_container_url_allowed(const char *url)
{
    static const char *const hosts[] = { CONTAINER_HOST, "169.254.170.23", "fd00:ec2::23",
                                         "localhost" };
    unsigned char a[16];
    char host[256];
    size_t i;

    if (strncasecmp(url, "https://", 8) == 0)
        return true;
    if (strncasecmp(url, "http://", 7) != 0 || !url_host(url, host, sizeof(host)))
        return false;
    for (i = 0; i < sizeof(hosts) / sizeof(hosts[0]); i++)
        if (!strcmp(host, hosts[i]))
            return true;
    /* ipaddress.ip_address(host).is_loopback: 127.0.0.0/8 and ::1. */
    if (inet_pton(AF_INET, host, a) == 1)
        return a[0] == 127;
    if (inet_pton(AF_INET6, host, a) == 1) {
        static const unsigned char one[16] = { [15] = 1 };
        return memcmp(a, one, 16) == 0;
    }
    return false;
}

enum s3c_err creds_container_setup(struct creds_ctx *x, struct creds_src **out,
                                   struct s3c_error *e)
{
    const char *rel = cfg_env_get(x->envp, "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI");
    const char *full = cfg_env_get(x->envp, "AWS_CONTAINER_CREDENTIALS_FULL_URI");
    struct buf url = BUF_INIT(8192);
    struct creds_src *s;
    char host[256];
    enum s3c_err rc;

    *out = NULL;
    if (!rel && !full)
        return S3C_OK;
    if (rel ? buf_addf(&url, "http://%s%s", CONTAINER_HOST, rel) : buf_adds(&url, full)) {
        buf_release(&url);
        return s3c_fail(e, S3C_ECONFIG, "container credentials: URL too long");
    }
    if (!rel && !creds_container_url_allowed(full)) {
        if (!url_host(full, host, sizeof(host)))
            snprintf(host, sizeof(host), "%s", "?");
        buf_release(&url);
        return s3c_fail(e, S3C_ECONFIG,
                        "container credentials: AWS_CONTAINER_CREDENTIALS_FULL_URI: Unsupported "
                        "host '%s'. Can only retrieve metadata from a loopback address or one of "
                        "these hosts: " CONTAINER_HOST ", 169.254.170.23, fd00:ec2::23, localhost",
                        host);
    }
    if (!(s = creds_src_new(x, CREDS_KIND_CONTAINER, "container-role", NULL))) {
        buf_release(&url);
        return s3c_fail(e, S3C_ENOMEM, "credentials: out of memory");
    }
    s->url = buf_detach(&url);
    if (!s->url ||
        (rc = creds_dup(&s->auth_token_file,
                        cfg_env_get(x->envp, "AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE"), e)) ||
        (rc = creds_dup(&s->auth_token, cfg_env_get(x->envp, "AWS_CONTAINER_AUTHORIZATION_TOKEN"),
                        e))) {
        creds_src_free(s);
        return s3c_fail(e, S3C_ENOMEM, "credentials: out of memory");
    }
    *out = s;
    return S3C_OK;
}

/* "Authorization: TOKEN" from the token file (read on every fetch) or the variable. */
static enum s3c_err auth_header(const struct creds_src *s, struct buf *out, struct s3c_error *e)
{
    struct buf tok = BUF_INIT(65536);
    char chunk[4096];
    ssize_t n;
    enum s3c_err rc = S3C_OK;
    int fd;

    if (s->auth_token_file) {
        if ((fd = open(s->auth_token_file, O_RDONLY | O_CLOEXEC)) < 0)
            return s3c_fail(e, S3C_EAUTH, "container authorization token file %.300s: %s",
                            s->auth_token_file, strerror(errno));
        while ((n = read(fd, chunk, sizeof(chunk))) != 0) {
            if (n < 0 && errno == EINTR)
                continue;
            if (n < 0 || buf_add(&tok, chunk, (size_t)n)) {
                rc = s3c_fail(e, S3C_EAUTH, "container authorization token file %.300s: %s",
                              s->auth_token_file, n < 0 ? strerror(errno) : "too large");
                break;
            }
        }
        close(fd);
        explicit_bzero(chunk, sizeof(chunk));
    } else if (s->auth_token) {
        rc = buf_adds(&tok, s->auth_token);
    }
    if (!rc && tok.len && (memchr(tok.data, '\n', tok.len) || memchr(tok.data, '\r', tok.len)))
        rc = s3c_fail(e, S3C_EAUTH, "container authorization token: not a legal header value "
                                    "(it holds a line break)");
    if (!rc && tok.len)
        rc = buf_addf(out, "Authorization: %s", buf_cstr(&tok));
    wipe(&tok);
    return rc;
}

enum s3c_err creds_container_fetch(struct creds_src *s, struct creds *out, struct s3c_error *e)
{
    struct buf auth = BUF_INIT(70000), body = BUF_INIT(CREDS_JSON_MAX_BYTES);
    const char *lines[2] = { "Accept: application/json", NULL };
    struct creds_http_req req;
    char what[300], why[256] = "";
    json_t *root = NULL;
    long status = 0;
    int attempt;
    enum s3c_err rc;

    snprintf(what, sizeof(what), "container credentials %.200s", s->url);
    if ((rc = auth_header(s, &auth, e)))
        goto out;
    lines[1] = auth.len ? buf_cstr(&auth) : NULL;
    memset(&req, 0, sizeof(req));
    req.method = "GET";
    req.url = s->url;
    req.headers = lines;
    req.n_headers = auth.len ? 2 : 1;
    req.timeout_ms = CONTAINER_TIMEOUT_MS;
    req.net = &s->net;
    for (attempt = 1; attempt <= CONTAINER_ATTEMPTS; attempt++) {
        if (attempt > 1)
            usleep((useconds_t)creds_retry_delay_ms * 1000);
        buf_reset(&body);
        json_decref(root);
        root = NULL;
        rc = creds_http(&req, &status, &body, NULL, e);
        if (rc == S3C_ENET) {
            snprintf(why, sizeof(why), "%.200s", e ? e->msg : "no answer");
            continue;
        }
        if (rc)
            goto out;
        if (status != 200) {
            snprintf(why, sizeof(why), "HTTP %ld", status);
            continue;
        }
        if ((root = json_loadb(body.data ? body.data : "", body.len, 0, NULL)))
            break;
        snprintf(why, sizeof(why), "the reply is not JSON");
    }
    if (!root) {
        rc = s3c_fail(e, status && status != 200 ? S3C_EAUTH : S3C_ENET, "%s: %s", what, why);
        goto out;
    }
    rc = creds_from_metadata_json(root, what, out, e);
out:
    json_decref(root);
    wipe(&auth);
    wipe(&body);
    return rc;
}

/* ---- EC2 instance metadata ---- */

/* An integer setting: the variable, else the profile, else 'dflt'. */
static enum s3c_err int_setting(const struct creds_ctx *x, const char *var, const char *key,
                                long dflt, long *out, struct s3c_error *e)
{
    const char *v = cfg_env_get(x->envp, var);
    uint64_t n;

    if (!v)
        v = creds_prof(x, x->cfg->profile, key);
    *out = dflt;
    if (!v)
        return S3C_OK;
    if (!sv_to_u64(sv_trim(sv_from(v)), &n) || n > 3600)
        return s3c_fail(e, S3C_ECONFIG, "%s \"%.40s\" is not a whole number", key, v);
    *out = (long)n;
    return S3C_OK;
}

enum s3c_err creds_imds_setup(struct creds_ctx *x, const char *profile, struct creds_src **out,
                              struct s3c_error *e)
{
    const char *dis = cfg_env_get(x->envp, "AWS_EC2_METADATA_DISABLED");
    const char *ep = cfg_env_get(x->envp, "AWS_EC2_METADATA_SERVICE_ENDPOINT");
    const char *mode = cfg_env_get(x->envp, "AWS_EC2_METADATA_SERVICE_ENDPOINT_MODE");
    const char *v6;
    struct creds_src *s;
    long timeout_s, attempts;
    bool ipv6 = false;
    enum s3c_err rc;

    *out = NULL;
    if (dis && !strcasecmp(dis, "true"))
        return S3C_OK;
    if (!ep)
        ep = creds_prof(x, profile, "ec2_metadata_service_endpoint");
    if (!mode)
        mode = creds_prof(x, profile, "ec2_metadata_service_endpoint_mode");
    if (mode) {
        if (strcasecmp(mode, "ipv4") && strcasecmp(mode, "ipv6"))
            return s3c_fail(e, S3C_ECONFIG,
                            "ec2_metadata_service_endpoint_mode \"%.40s\" is not ipv4 or ipv6", mode);
        ipv6 = !strcasecmp(mode, "ipv6");
    } else {
        if (!(v6 = cfg_env_get(x->envp, "AWS_IMDS_USE_IPV6")))
            v6 = creds_prof(x, profile, "imds_use_ipv6");
        ipv6 = v6 && !strcasecmp(v6, "true");
    }
    if (ep && strncasecmp(ep, "http://", 7) && strncasecmp(ep, "https://", 8))
        return s3c_fail(e, S3C_ECONFIG, "ec2_metadata_service_endpoint \"%.200s\" is not a URL", ep);
    if ((rc = int_setting(x, "AWS_METADATA_SERVICE_TIMEOUT", "metadata_service_timeout", 1,
                          &timeout_s, e)) ||
        (rc = int_setting(x, "AWS_METADATA_SERVICE_NUM_ATTEMPTS", "metadata_service_num_attempts",
                          1, &attempts, e)))
        return rc;
    if (!(s = creds_src_new(x, CREDS_KIND_IMDS, "iam-role", profile)) ||
        creds_dup(&s->imds_base, ep ? ep : ipv6 ? IMDS_V6 : IMDS_V4, e)) {
        creds_src_free(s);
        return s3c_fail(e, S3C_ENOMEM, "credentials: out of memory");
    }
    s->imds_timeout_ms = timeout_s > 0 ? timeout_s * 1000 : 1000;
    s->imds_attempts = attempts > 0 ? (int)attempts : 1;
    s->want_region = !x->cfg->region_set;
    *out = s;
    return S3C_OK;
}

/* base + path, with one '/' between. */
static enum s3c_err imds_url(const struct creds_src *s, const char *path, struct buf *out)
{
    size_t n = strlen(s->imds_base);

    buf_reset(out);
    return buf_adds(out, s->imds_base) ||
                   ((n == 0 || s->imds_base[n - 1] != '/') && buf_addc(out, '/')) ||
                   buf_adds(out, path)
               ? S3C_ENOMEM
               : S3C_OK;
}

/* The IMDSv2 session token into 'token' ("" when IMDS answered without one: IMDSv1). */
static enum s3c_err imds_token(const struct creds_src *s, struct buf *token)
{
    const char *hdr = "x-aws-ec2-metadata-token-ttl-seconds: " IMDS_TOKEN_TTL_S;
    struct buf url = BUF_INIT(8192);
    struct creds_http_req req;
    long status;
    bool timed_out;
    int i;
    enum s3c_err rc = S3C_OK;

    if (imds_url(s, "latest/api/token", &url)) {
        buf_release(&url);
        return S3C_ENOMEM;
    }
    memset(&req, 0, sizeof(req));
    req.method = "PUT";
    req.url = buf_cstr(&url);
    req.headers = &hdr;
    req.n_headers = 1;
    req.timeout_ms = s->imds_timeout_ms;
    req.net = &s->net;
    for (i = 0; i < s->imds_attempts; i++) {
        buf_reset(token);
        if (creds_http(&req, &status, token, &timed_out, NULL) == S3C_OK) {
            if (status == 200)
                goto out;
            if (status == 400) {            /* botocore: a bad request gives up */
                rc = S3C_ENOTFOUND;
                goto out;
            }
            if (status == 403 || status == 404 || status == 405)
                break;                      /* no IMDSv2 here: go on without a token */
        } else if (timed_out) {
            break;
        }
    }
    buf_reset(token);
out:
    buf_release(&url);
    return rc;
}

/* GET 'path' with botocore's retries: a non-200, an empty body (or, for JSON, a bad one) retries. */
static enum s3c_err imds_get(const struct creds_src *s, const char *path, const struct buf *token,
                             bool want_json, struct buf *body, json_t **json)
{
    struct buf url = BUF_INIT(8192), hdr = BUF_INIT(8192);
    const char *line;
    struct creds_http_req req;
    long status;
    int i;
    enum s3c_err rc = S3C_ENOTFOUND;

    if (imds_url(s, path, &url) ||
        (token->len && buf_addf(&hdr, "x-aws-ec2-metadata-token: %s", buf_cstr(token)))) {
        rc = S3C_ENOMEM;
        goto out;
    }
    line = buf_cstr(&hdr);
    memset(&req, 0, sizeof(req));
    req.method = "GET";
    req.url = buf_cstr(&url);
    req.headers = &line;
    req.n_headers = hdr.len ? 1 : 0;
    req.timeout_ms = s->imds_timeout_ms;
    req.net = &s->net;
    for (i = 0; i < s->imds_attempts; i++) {
        buf_reset(body);
        if (creds_http(&req, &status, body, NULL, NULL) || status != 200 || !body->len)
            continue;
        if (want_json && !(*json = json_loadb(body->data, body->len, 0, NULL)))
            continue;
        rc = S3C_OK;
        break;
    }
out:
    wipe(&hdr);
    buf_release(&url);
    return rc;
}

enum s3c_err creds_imds_fetch(struct creds_src *s, struct creds *out, struct s3c_error *e)
{
    struct buf token = BUF_INIT(8192), role = BUF_INIT(4096), body = BUF_INIT(CREDS_JSON_MAX_BYTES);
    struct buf path = BUF_INIT(8192);
    json_t *root = NULL;
    struct sv name;
    enum s3c_err rc;

    if ((rc = imds_token(s, &token)) ||
        (rc = imds_get(s, IMDS_ROLE_PATH, &token, false, &role, NULL)))
        goto out;
    name = sv_trim(buf_sv(&role));
    if (buf_adds(&path, IMDS_ROLE_PATH) || buf_addsv(&path, name)) {
        rc = S3C_ENOMEM;
        goto out;
    }
    if ((rc = imds_get(s, buf_cstr(&path), &token, true, &body, &root)))
        goto out;
    if (creds_from_metadata_json(root, "instance metadata", out, NULL)) {
        rc = S3C_ENOTFOUND;                 /* botocore: incomplete keys are no keys */
        goto out;
    }
    if (s->want_region && !s->region) {
        /* The instance's region: its availability zone without the zone letter. */
        buf_reset(&body);
        if (!imds_get(s, IMDS_AZ_PATH, &token, false, &body, NULL) && body.len > 1) {
            struct sv az = sv_trim(buf_sv(&body));
            if (az.n > 1)
                s->region = sv_dup((struct sv){ az.p, az.n - 1 });
        }
    }
out:
    if (rc == S3C_ENOMEM)
        s3c_fail(e, rc, "instance metadata: out of memory");
    json_decref(root);
    wipe(&token);
    wipe(&body);
    buf_release(&role);
    buf_release(&path);
    return rc;
}
