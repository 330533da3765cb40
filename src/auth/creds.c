/*
 * creds.c: the chain itself. creds_resolve() asks each provider in
 * botocore's order whether the profile configures it; the first that does
 * becomes the run's creds_src and fetches the first keys. The static
 * providers (environment, shared credentials file, config file) live here;
 * the others are set up and fetched by their own files (creds_impl.h), and
 * the values they all pass around are made in creds_value.c.
 */
#include "auth/creds.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "auth/creds_impl.h"

/* ---- a source's keys, from its provider ---- */

/*
 * A role's keys: the cache first (a hit asks the source for nothing, so a
 * source's process does not run), else the source's keys, then STS.
 */
static enum s3c_err role_fetch(struct creds_src *s, struct creds *out, struct s3c_error *e)
{
    struct creds src = CREDS_INIT;
    bool hit;
    enum s3c_err rc;

    if ((rc = creds_role_cached(s, out, &hit, e)) || hit)
        return rc;
    if (!(rc = creds_src_fetch(s->source, &src, e)))
        rc = creds_role_fetch(s, &src, out, e);
    creds_release(&src);
    return rc;
}

enum s3c_err creds_src_fetch(struct creds_src *s, struct creds *out, struct s3c_error *e)
{
    enum s3c_err rc;

    creds_release(out);
    switch (s->kind) {
    case CREDS_KIND_STATIC: rc = creds_copy(out, &s->keys); break;
    case CREDS_KIND_PROCESS: rc = creds_process_fetch(s, out, e); break;
    case CREDS_KIND_ROLE: rc = role_fetch(s, out, e); break;
    case CREDS_KIND_WEB_IDENTITY: rc = creds_web_identity_fetch(s, out, e); break;
    case CREDS_KIND_SSO: rc = creds_sso_fetch(s, out, e); break;
    case CREDS_KIND_CONTAINER: rc = creds_container_fetch(s, out, e); break;
    case CREDS_KIND_IMDS:
        rc = creds_imds_fetch(s, out, e);
        if (rc == S3C_ENOTFOUND)
            rc = s3c_fail(e, S3C_EAUTH, "instance metadata: no credentials from %s", s->imds_base);
        break;
    default: rc = s3c_fail(e, S3C_EINTERNAL, "credentials: unknown provider"); break;
    }
    s->skip_cache = false;
    if (rc == S3C_ENOMEM && e && !e->msg[0])
        s3c_fail(e, S3C_ENOMEM, "credentials: out of memory");
    if (rc)
        creds_release(out);
    else
        out->method = s->method;
    return rc;
}

/* ---- static providers ---- */

static enum s3c_err static_src(const struct creds_ctx *x, const char *method, const char *profile,
                               const char *ak, const char *sk, const char *tok,
                               struct creds_src **out, struct s3c_error *e)
{
    struct creds_src *s = creds_src_new(x, CREDS_KIND_STATIC, method, profile);

    if (!s || creds_dup(&s->keys.access_key, ak, e) || creds_dup(&s->keys.secret_key, sk, e) ||
        creds_dup(&s->keys.session_token, tok && tok[0] ? tok : NULL, e)) {
        creds_src_free(s);
        return s3c_fail(e, S3C_ENOMEM, "credentials: out of memory");
    }
    s->keys.method = method;
    *out = s;
    return S3C_OK;
}

/* AWS_ACCESS_KEY_ID + AWS_SECRET_ACCESS_KEY (+ token, + AWS_CREDENTIAL_EXPIRATION). */
static enum s3c_err env_provider(const struct creds_ctx *x, struct creds_src **out,
                                 struct s3c_error *e)
{
    const char *ak = cfg_env_get(x->envp, "AWS_ACCESS_KEY_ID");
    const char *sk, *tok, *exp;
    time_t t = 0;
    enum s3c_err rc;

    if (!ak)
        return S3C_OK;
    if (!(sk = cfg_env_get(x->envp, "AWS_SECRET_ACCESS_KEY")))
        return s3c_fail(e, S3C_ECONFIG,
                        "environment: AWS_ACCESS_KEY_ID is set but AWS_SECRET_ACCESS_KEY is missing");
    if (!(tok = cfg_env_get(x->envp, "AWS_SECURITY_TOKEN")))
        tok = cfg_env_get(x->envp, "AWS_SESSION_TOKEN");
    if ((exp = cfg_env_get(x->envp, "AWS_CREDENTIAL_EXPIRATION")) && !creds_parse_time(exp, &t))
        return s3c_fail(e, S3C_ECONFIG,
                        "environment: AWS_CREDENTIAL_EXPIRATION \"%.64s\" is not an ISO 8601 time",
                        exp);
    if ((rc = static_src(x, "env", NULL, ak, sk, tok, out, e)))
        return rc;
    (*out)->keys.expires = t;
    return S3C_OK;
}

/* Keys from one file's section, as SharedCredentialProvider and ConfigProvider read them. */
static enum s3c_err file_provider(const struct creds_ctx *x, const char *profile, bool in_creds,
                                  struct creds_src **out, struct s3c_error *e)
{
    const struct ini *ini = in_creds ? &x->cfg->credentials_ini : &x->cfg->config_ini;
    const struct ini_section *sec = in_creds ? cfg_credentials_profile(x->cfg, profile)
                                             : cfg_config_profile(x->cfg, profile);
    const struct ini_entry *ak, *sk, *tok;

    if (!sec || !(ak = ini_get(ini, sec, "aws_access_key_id")))
        return S3C_OK;
    if (!(sk = ini_get(ini, sec, "aws_secret_access_key")))
        return s3c_fail(e, S3C_ECONFIG,
                        "%s file %s, profile \"%s\": aws_access_key_id is set but "
                        "aws_secret_access_key is missing",
                        in_creds ? "credentials" : "config",
                        in_creds ? x->cfg->credentials_file : x->cfg->config_file, profile);
    if (!(tok = ini_get(ini, sec, "aws_security_token")))
        tok = ini_get(ini, sec, "aws_session_token");
    return static_src(x, in_creds ? "shared-credentials-file" : "config-file", profile, ak->value,
                      sk->value, tok ? tok->value : NULL, out, e);
}

/* credential_process = COMMAND in the profile. */
static enum s3c_err process_provider(const struct creds_ctx *x, const char *profile,
                                     struct creds_src **out, struct s3c_error *e)
{
    const char *cmd = creds_prof(x, profile, "credential_process");
    struct creds_src *s;

    if (!cmd)
        return S3C_OK;
    if (!(s = creds_src_new(x, CREDS_KIND_PROCESS, "custom-process", profile)) ||
        creds_dup(&s->command, cmd, e)) {
        creds_src_free(s);
        return s3c_fail(e, S3C_ENOMEM, "credentials: out of memory");
    }
    *out = s;
    return S3C_OK;
}

/*
 * The providers that read a profile (botocore's ProfileProviderBuilder):
 * web identity, SSO, shared credentials file, credential_process, config
 * file. 'use_env': web identity may read its variables.
 */
static enum s3c_err profile_providers(struct creds_ctx *x, const char *profile, bool use_env,
                                      struct creds_src **out, struct s3c_error *e)
{
    enum s3c_err rc;

    if ((rc = creds_web_identity_setup(x, profile, use_env, out, e)) || *out)
        return rc;
    if ((rc = creds_sso_setup(x, profile, out, e)) || *out)
        return rc;
    if ((rc = file_provider(x, profile, true, out, e)) || *out)
        return rc;
    if ((rc = process_provider(x, profile, out, e)) || *out)
        return rc;
    return file_provider(x, profile, false, out, e);
}

/* ---- the assume-role provider and its source ---- */

static enum s3c_err role_provider(struct creds_ctx *x, const char *profile,
                                  struct creds_src **out, struct s3c_error *e);

/* A role's source_profile: its profile providers, or its own role (botocore's rules). */
static enum s3c_err source_profile(struct creds_ctx *x, const char *profile,
                                   struct creds_src **out, struct s3c_error *e)
{
    bool has_static = creds_prof(x, profile, "aws_access_key_id") ||
                      creds_prof(x, profile, "aws_secret_access_key");
    bool has_role = creds_prof(x, profile, "role_arn") &&
                    !creds_prof(x, profile, "web_identity_token_file");
    enum s3c_err rc;

    *out = NULL;
    if (has_static || !has_role) {
        if ((rc = profile_providers(x, profile, false, out, e)))
            return rc;
        if (!*out)
            return s3c_fail(e, S3C_ECONFIG, "The source profile \"%s\" must have credentials.",
                            profile);
        return S3C_OK;
    }
    return role_provider(x, profile, out, e);
}

/* credential_source = Environment | EcsContainer | Ec2InstanceMetadata of 'profile'. */
static enum s3c_err source_named(struct creds_ctx *x, const char *name, const char *profile,
                                 struct creds_src **out, struct s3c_error *e)
{
    enum s3c_err rc;

    *out = NULL;
    if (!strcmp(name, "Environment"))
        rc = env_provider(x, out, e);
    else if (!strcmp(name, "EcsContainer"))
        rc = creds_container_setup(x, out, e);
    else if (!strcmp(name, "Ec2InstanceMetadata"))
        rc = creds_imds_setup(x, x->cfg->profile, out, e);
    else
        return s3c_fail(e, S3C_ECONFIG,
                        "The credential source \"%.64s\" referenced in profile \"%s\" is not valid.",
                        name, profile);
    if (!rc && !*out)
        rc = s3c_fail(e, S3C_EAUTH,
                      "credential_source %s: No credentials found in credential_source referenced "
                      "in profile %s",
                      name, profile);
    return rc;
}

/*
 * The assume-role provider for 'profile' (creds_sts.c checks its settings),
 * then its source, resolved here so that STS never calls back into the
 * chain: a source_profile (one more hop on x->visited) or a
 * credential_source.
 */
static enum s3c_err role_provider(struct creds_ctx *x, const char *profile,
                                  struct creds_src **out, struct s3c_error *e)
{
    struct creds_src *s = NULL;
    const char *sp;
    enum s3c_err rc;

    *out = NULL;
    if ((rc = creds_role_setup(x, profile, &s, e)) || !s)
        return rc;
    /* creds_role_setup has made sure the profile has one of the two. */
    if ((sp = creds_prof(x, profile, "source_profile"))) {
        x->visited[x->n_visited++] = sp;
        rc = source_profile(x, sp, &s->source, e);
    } else {
        rc = source_named(x, creds_prof(x, profile, "credential_source"), profile, &s->source, e);
    }
    if (rc) {
        creds_src_free(s);
        return rc;
    }
    *out = s;
    return S3C_OK;
}

/* ---- the chain ---- */

enum s3c_err creds_resolve(const struct s3c_config *cfg, char *const *envp,
                           struct creds_src **out, struct creds *first, struct s3c_error *e)
{
    struct creds_ctx x;
    struct creds_src *s = NULL;
    enum s3c_err rc;

    memset(&x, 0, sizeof(x));
    x.cfg = cfg;
    x.envp = envp;
    x.env_disabled = cfg->profile_flag;
    x.visited[x.n_visited++] = cfg->profile;
    *out = NULL;
    creds_release(first);

    if (!x.env_disabled && ((rc = env_provider(&x, &s, e)) || s))
        goto fetch;
    if ((rc = role_provider(&x, cfg->profile, &s, e)) || s)
        goto fetch;
    if ((rc = profile_providers(&x, cfg->profile, !x.env_disabled, &s, e)) || s)
        goto fetch;
    if ((rc = creds_container_setup(&x, &s, e)) || s)
        goto fetch;
    if ((rc = creds_imds_setup(&x, cfg->profile, &s, e)) || s)
        goto fetch;
    return s3c_fail(e, S3C_EAUTH, CREDS_NO_CREDENTIALS);

fetch:
    if (rc)
        goto out;
    if (s->kind == CREDS_KIND_IMDS) {
        /* Instance metadata is the last provider: nothing there means no credentials. */
        rc = creds_imds_fetch(s, first, e);
        if (rc == S3C_ENOTFOUND)
            rc = s3c_fail(e, S3C_EAUTH, CREDS_NO_CREDENTIALS);
        if (!rc)
            first->method = s->method;
    } else {
        rc = creds_src_fetch(s, first, e);
    }
out:
    if (rc) {
        creds_src_free(s);
        creds_release(first);
        return rc;
    }
    *out = s;
    return S3C_OK;
}
