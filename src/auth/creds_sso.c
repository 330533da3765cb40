/*
 * creds_sso.c: IAM Identity Center (SSO) role credentials, as botocore's
 * SSOProvider gets them: the profile's sso_account_id and sso_role_name,
 * with sso_start_url and sso_region from an [sso-session NAME] section or
 * (the legacy form) from the profile itself; the access token `aws sso
 * login` left in ~/.aws/sso/cache; then GetRoleCredentials on the SSO
 * portal. Role credentials go through the CLI's cache like assumed roles.
 * This file never logs in or refreshes the SSO token: it says to run
 * `aws sso login` when the token is missing or expired.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "auth/creds_impl.h"
#include "auth/sigv4.h"

void creds_sso_token_key(const char *session_or_url, char out[41])
{
    creds_sha1_hex(session_or_url, strlen(session_or_url), out);
}

/* A setting of the resolved SSO configuration: the profile's, else the session's. */
static const char *sso_get(const struct creds_ctx *x, const char *profile,
                           const struct ini_section *sess, const char *key)
{
    const char *v = creds_prof(x, profile, key);
    const struct ini_entry *en;

    if (v)
        return v;
    en = sess ? ini_get(&x->cfg->config_ini, sess, key) : NULL;
    return en ? en->value : NULL;
}

enum s3c_err creds_sso_setup(struct creds_ctx *x, const char *profile, struct creds_src **out,
                             struct s3c_error *e)
{
    static const char *const required[] = { "sso_role_name", "sso_account_id", "sso_start_url",
                                            "sso_region" };
    const char *sess_name = creds_prof(x, profile, "sso_session");
    const struct ini_section *sess = NULL;
    const char *home;
    char missing[256] = "", url[256];
    struct creds_src *s;
    bool configured;
    enum s3c_err rc;
    size_t i, len;

    *out = NULL;
    if (!creds_prof(x, profile, "sso_role_name") && !creds_prof(x, profile, "sso_account_id"))
        return S3C_OK;
    if (sess_name) {
        if (!(sess = cfg_kind_section(x->cfg, "sso-session", sess_name)))
            return s3c_fail(e, S3C_ECONFIG, "The specified sso-session does not exist: \"%s\"",
                            sess_name);
        /* A key set in both places must agree (botocore refuses otherwise). */
        for (i = 0; i < sess->n_entries; i++) {
            const char *pv = creds_prof(x, profile, sess->entries[i].key);
            if (pv && strcmp(pv, sess->entries[i].value) != 0)
                return s3c_fail(e, S3C_ECONFIG,
                                "The value for %s is inconsistent between profile (%.100s) and "
                                "sso-session (%.100s).",
                                sess->entries[i].key, pv, sess->entries[i].value);
        }
    }
    for (i = 0; i < sizeof(required) / sizeof(required[0]); i++) {
        if (sso_get(x, profile, sess, required[i]))
            continue;
        len = strlen(missing);
        snprintf(missing + len, sizeof(missing) - len, "%s%s", len ? ", " : "", required[i]);
    }
    if (missing[0])
        return s3c_fail(e, S3C_ECONFIG,
                        "The profile \"%s\" is configured to use SSO but is missing required "
                        "configuration: %s",
                        profile, missing);

    if (!(s = creds_src_new(x, CREDS_KIND_SSO, "sso", profile)))
        return s3c_fail(e, S3C_ENOMEM, "credentials: out of memory");
    if ((rc = creds_dup(&s->sso_session, sess_name, e)) ||
        (rc = creds_dup(&s->start_url, sso_get(x, profile, sess, "sso_start_url"), e)) ||
        (rc = creds_dup(&s->sso_region, sso_get(x, profile, sess, "sso_region"), e)) ||
        (rc = creds_dup(&s->account_id, sso_get(x, profile, sess, "sso_account_id"), e)) ||
        (rc = creds_dup(&s->role_name, sso_get(x, profile, sess, "sso_role_name"), e)) ||
        (rc = creds_service_endpoint(x, "sso", "SSO", s->sso_region, &s->sso, &configured, e)))
        goto fail;
    /* `aws sso login` keeps its tokens in expanduser("~/.aws/sso/cache"). */
    if ((home = cfg_env_get(x->envp, "HOME"))) {
        struct buf dir = BUF_INIT(8192);

        if (buf_adds(&dir, home) || buf_adds(&dir, "/.aws/sso/cache") ||
            !(s->token_file = buf_detach(&dir))) {
            buf_release(&dir);
            rc = s3c_fail(e, S3C_ENOMEM, "credentials: out of memory");
            goto fail;
        }
    }
    if (!configured) {
        snprintf(url, sizeof(url), "https://portal.sso.%.64s.amazonaws.com%s", s->sso_region,
                 strncmp(s->sso_region, "cn-", 3) == 0 ? ".cn" : "");
        if ((rc = creds_dup(&s->sso.url, url, e)))
            goto fail;
    }
    *out = s;
    return S3C_OK;
fail:
    creds_src_free(s);
    return rc;
}

/* "session NAME" or "start URL U", for messages. */
static void sso_what(const struct creds_src *s, char *out, size_t n)
{
    if (s->sso_session)
        snprintf(out, n, "session %.200s", s->sso_session);
    else
        snprintf(out, n, "start URL %.200s", s->start_url);
}

/* The access token of `aws sso login`, if it has not expired (creds_impl.h). */
enum s3c_err creds_sso_load_token(const struct creds_src *s, char **token, struct s3c_error *e)
{
    struct buf path = BUF_INIT(8192);
    char key[41], what[256];
    json_t *root = NULL;
    const char *tok, *exp;
    time_t t;
    enum s3c_err rc = S3C_OK;

    *token = NULL;
    sso_what(s, what, sizeof(what));
    creds_sso_token_key(s->sso_session ? s->sso_session : s->start_url, key);
    if (!s->token_file || buf_addf(&path, "%s/%s.json", s->token_file, key)) {
        rc = s3c_fail(e, S3C_EAUTH, "SSO token for %s: no home directory to find it in", what);
        goto out;
    }
    root = json_load_file(buf_cstr(&path), 0, NULL);
    if (!root || !(tok = json_string_value(json_object_get(root, "accessToken")))) {
        rc = s3c_fail(e, S3C_EAUTH, "SSO token for %s not found: run aws sso login --profile %s",
                      what, s->profile);
        goto out;
    }
    exp = json_string_value(json_object_get(root, "expiresAt"));
    if (!exp || !creds_parse_time(exp, &t) || t <= time(NULL)) {
        rc = s3c_fail(e, S3C_EAUTH, "SSO token for %s expired: run aws sso login --profile %s",
                      what, s->profile);
        goto out;
    }
    rc = creds_dup(token, tok, e);
out:
    json_decref(root);
    buf_release(&path);
    return rc;
}

enum s3c_err creds_sso_fetch(struct creds_src *s, struct creds *out, struct s3c_error *e)
{
    struct buf url = BUF_INIT(8192), hdr = BUF_INIT(65536), body = BUF_INIT(CREDS_JSON_MAX_BYTES);
    struct creds_http_req req;
    const char *line;
    char key[41], what[256], exp_text[21];
    char *token = NULL;
    json_t *root = NULL, *rc_obj, *entry;
    long status = 0;
    bool hit = false;
    size_t base_len;
    enum s3c_err rc;

    sso_what(s, what, sizeof(what));
    if ((rc = creds_cache_key_sso(s, key, e)) ||
        (rc = creds_cache_read(s->skip_cache ? NULL : s->cache_dir, key, time(NULL), out, &hit, e)) ||
        hit)
        goto out;
    if ((rc = creds_sso_load_token(s, &token, e)))
        goto out;
    base_len = strlen(s->sso.url);
    while (base_len && s->sso.url[base_len - 1] == '/')
        base_len--;
    if ((rc = buf_add(&url, s->sso.url, base_len)) ||
        (rc = buf_adds(&url, "/federation/credentials?account_id=")) ||
        (rc = sigv4_uri_encode(sv_from(s->account_id), 0, &url)) ||
        (rc = buf_adds(&url, "&role_name=")) ||
        (rc = sigv4_uri_encode(sv_from(s->role_name), 0, &url)) ||
        (rc = buf_addf(&hdr, "x-amz-sso_bearer_token: %s", token)))
        goto out;
    line = buf_cstr(&hdr);
    memset(&req, 0, sizeof(req));
    req.method = "GET";
    req.url = buf_cstr(&url);
    req.headers = &line;
    req.n_headers = 1;
    req.net = &s->net;
    if ((rc = creds_http(&req, &status, &body, NULL, e))) {
        char why[256];
        snprintf(why, sizeof(why), "%.200s", e ? e->msg : "no answer");
        rc = s3c_fail(e, rc, "SSO GetRoleCredentials %s: %s", s->sso.url, why);
        goto out;
    }
    if (status == 401 || status == 403) {
        rc = s3c_fail(e, S3C_EAUTH,
                      "SSO token for %s is not valid any more: run aws sso login --profile %s",
                      what, s->profile);
        goto out;
    }
    root = json_loadb(body.data ? body.data : "", body.len, 0, NULL);
    if (status != 200) {
        const char *msg = json_string_value(json_object_get(root, "message"));
        rc = s3c_fail(e, S3C_EHTTP, "SSO GetRoleCredentials for account %s role %s: HTTP %ld%s%.200s",
                      s->account_id, s->role_name, status, msg ? ": " : "", msg ? msg : "");
        goto out;
    }
    rc_obj = json_object_get(root, "roleCredentials");
    {
        json_t *ms = json_object_get(rc_obj, "expiration");
        struct creds c = CREDS_INIT;

        /* Milliseconds since 1970, within what time_t holds here: a hostile endpoint's
         * 1e300 or NaN would make the cast undefined. Up to the year 9999. */
        if (!json_is_number(ms) || !(json_number_value(ms) >= 0 && json_number_value(ms) <= 253402300799000.0) ||
            !json_string_value(json_object_get(rc_obj, "accessKeyId")) ||
            !json_string_value(json_object_get(rc_obj, "secretAccessKey"))) {
            rc = s3c_fail(e, S3C_EPARSE, "SSO GetRoleCredentials: reply has no roleCredentials, or an expiration out of range");
            goto out;
        }
        if ((rc = creds_dup(&c.access_key, json_string_value(json_object_get(rc_obj, "accessKeyId")), e)) ||
            (rc = creds_dup(&c.secret_key, json_string_value(json_object_get(rc_obj, "secretAccessKey")), e)) ||
            (rc = creds_dup(&c.session_token, json_string_value(json_object_get(rc_obj, "sessionToken")), e))) {
            creds_release(&c);
            goto out;
        }
        c.expires = (time_t)(json_number_value(ms) / 1000.0);
        creds_release(out);
        *out = c;
    }
    /* The CLI's entry: {"ProviderType": "sso", "Credentials": {..., "Expiration": "...Z"}}. */
    creds_format_time(out->expires, exp_text);
    if ((entry = creds_cache_entry(out, exp_text))) {
        json_object_set_new(entry, "ProviderType", json_string("sso"));
        creds_cache_write(s->cache_dir, key, entry);
        json_decref(entry);
    }
out:
    json_decref(root);
    creds_free_secret(token);
    if (hdr.data)
        explicit_bzero(hdr.data, hdr.cap);
    if (body.data)
        explicit_bzero(body.data, body.cap);
    buf_release(&hdr);
    buf_release(&body);
    buf_release(&url);
    return rc;
}
