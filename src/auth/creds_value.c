/*
 * creds_value.c: the values the chain and its providers hand each other.
 * Keys (struct creds) duplicated, copied and wiped; a source (struct
 * creds_src) made, read and freed; an endpoint released; a profile's
 * setting read. It stands below every provider and calls none of them.
 */
#include "auth/creds.h"

#include <stdlib.h>
#include <string.h>

#include "auth/creds_impl.h"

/* ---- keys ---- */

void creds_free_secret(char *s)
{
    if (s)
        explicit_bzero(s, strlen(s));
    free(s);
}

void creds_release(struct creds *c)
{
    static const struct creds init = CREDS_INIT;

    if (!c)
        return;
    free(c->access_key);
    creds_free_secret(c->secret_key);
    creds_free_secret(c->session_token);
    *c = init;
}

enum s3c_err creds_dup(char **dst, const char *s, struct s3c_error *e)
{
    *dst = NULL;
    if (!s)
        return S3C_OK;
    if (!(*dst = strdup(s)))
        return s3c_fail(e, S3C_ENOMEM, "credentials: out of memory");
    return S3C_OK;
}

enum s3c_err creds_copy(struct creds *dst, const struct creds *src)
{
    enum s3c_err rc;

    creds_release(dst);
    if ((rc = creds_dup(&dst->access_key, src->access_key, NULL)) ||
        (rc = creds_dup(&dst->secret_key, src->secret_key, NULL)) ||
        (rc = creds_dup(&dst->session_token, src->session_token, NULL))) {
        creds_release(dst);
        return S3C_ENOMEM;
    }
    dst->expires = src->expires;
    dst->method = src->method;
    return S3C_OK;
}

/* ---- sources ---- */

struct creds_src *creds_src_new(const struct creds_ctx *x, enum creds_kind kind,
                                const char *method, const char *profile)
{
    struct creds_src *s = calloc(1, sizeof(*s));
    const char *home = cfg_env_get(x->envp, "HOME");
    struct buf dir = BUF_INIT(8192);

    if (!s)
        return NULL;
    s->kind = kind;
    s->method = method;
    s->net.verify_tls = x->cfg->verify_ssl;
    if ((x->cfg->ca_bundle && !(s->net.ca_bundle = strdup(x->cfg->ca_bundle))) ||
        (profile && !(s->profile = strdup(profile))))
        goto fail;
    if (home) {
        /* The CLI's JSONFileCache directory: expanduser("~/.aws/cli/cache"). */
        if (buf_adds(&dir, home) || buf_adds(&dir, "/.aws/cli/cache"))
            goto fail;
        s->cache_dir = buf_detach(&dir);
        if (!s->cache_dir)
            goto fail;
    }
    return s;
fail:
    buf_release(&dir);
    creds_src_free(s);
    return NULL;
}

void creds_src_free(struct creds_src *s)
{
    if (!s)
        return;
    creds_release(&s->keys);
    free(s->net.ca_bundle);
    free(s->profile);
    free(s->cache_dir);
    free(s->command);
    creds_src_free(s->source);
    free(s->role_arn);
    free(s->session_name);
    free(s->external_id);
    free(s->mfa_serial);
    free(s->token_file);
    creds_endpoint_release(&s->sts);
    free(s->sso_session);
    free(s->start_url);
    free(s->sso_region);
    free(s->account_id);
    free(s->role_name);
    creds_endpoint_release(&s->sso);
    free(s->url);
    creds_free_secret(s->auth_token);
    free(s->auth_token_file);
    free(s->imds_base);
    free(s->region);
    free(s);
}

const char *creds_src_method(const struct creds_src *s)
{
    return s ? s->method : NULL;
}

const char *creds_src_region(const struct creds_src *s)
{
    return s && s->kind == CREDS_KIND_IMDS ? s->region : NULL;
}

void creds_src_skip_cache(struct creds_src *s)
{
    if (s)
        s->skip_cache = true;
}

void creds_endpoint_release(struct creds_endpoint *ep)
{
    free(ep->url);
    free(ep->region);
    ep->url = ep->region = NULL;
}

/* ---- profiles ---- */

const char *creds_prof(const struct creds_ctx *x, const char *profile, const char *key)
{
    const struct ini_entry *en = cfg_profile_get(x->cfg, profile, key, NULL);
    return en ? en->value : NULL;
}
