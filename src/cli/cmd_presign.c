/*
 * presign s3://BUCKET/KEY [--expires-in SECONDS]: a presigned GET URL, as
 * `aws s3 presign` prints it: the endpoint the configuration resolves to
 * (custom endpoint, path or virtual style), signed with SigV4 query
 * authentication, carrying X-Amz-Security-Token when the credentials have a
 * session token. Unlike the AWS CLI it signs for the bucket's own region:
 * one HeadBucket asks where the bucket lives unless --region is given (a
 * URL signed for another region is refused by S3). The signature appears
 * only in the URL on stdout, never in --debug. --version-id (s5cmd's) puts
 * versionId in the URL's query, signed with the rest.
 *
 * A directory bucket's URL (S3 Express) goes to its zonal endpoint, signed
 * for "s3express" with the IAM keys, as with s3_disable_express_session_auth:
 * a CreateSession's keys would end the URL's life with the session's (5
 * minutes), whatever --expires-in says.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "auth/keyring.h"
#include "auth/sigv4.h"
#include "cli/args.h"
#include "cli/cmd.h"
#include "cli/objopts.h"
#include "cli/output.h"
#include "s3/endpoint.h"
#include "plan/wild.h"
#include "s3/uri.h"
#include "store/store_s3.h"

#define PRESIGN_DEFAULT_S 3600L
#define PRESIGN_MAX_S 604800L   /* 7 days: SigV4's limit */

static enum s3c_err parse_expires(const char *s, long *out, struct s3c_error *e)
{
    char *end;
    long v;

    *out = PRESIGN_DEFAULT_S;
    if (!s)
        return S3C_OK;
    errno = 0;
    v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < 1 || v > PRESIGN_MAX_S)
        return s3c_fail(e, S3C_EUSAGE,
                        "presign: --expires-in must be from 1 to 604800 seconds (7 days), not \"%s\"", s);
    *out = v;
    return S3C_OK;
}

/* The URL for 'u' (of version 'version_id' when not NULL) valid 'expires_s' seconds from now, signed
 * with 'k' for 'region', into 'out'. */
static enum s3c_err presign_url(const struct s3c_config *cfg, const struct creds *k, const char *region,
                                const struct s3_uri *u, const char *version_id, long expires_s, struct buf *out,
                                struct s3c_error *e)
{
    struct s3_target t = S3_TARGET_INIT;
    struct buf query = BUF_INIT(S3_URL_MAX_BYTES), own = BUF_INIT(S3_URL_MAX_BYTES);
    char date[17];
    enum s3c_err rc = s3_endpoint_resolve_in(cfg, strcmp(region, cfg->region) ? region : NULL, u->bucket,
                                             u->key, &t, e);

    if (!rc && version_id && s3_query_add(&own, "versionId", version_id))
        rc = s3c_fail(e, S3C_ENOMEM, "presign: the URL is too long");
    if (!rc) {
        const struct sigv4_header host = { "host", buf_cstr(&t.host) };
        const struct sigv4_request r = { "GET", buf_cstr(&t.path), own.len ? buf_cstr(&own) : NULL, &host, 1,
                                         SIGV4_UNSIGNED_PAYLOAD };
        const struct sigv4_creds cr = { k->access_key, k->secret_key, k->session_token };
        const struct sigv4_scope sc = { date, region, t.express ? "s3express" : "s3" };

        s3_amz_date(time(NULL), date);
        rc = sigv4_presign(&r, &cr, &sc, expires_s, &query);
        if (!rc)
            rc = buf_addf(out, "%s?%s", buf_cstr(&t.url), buf_cstr(&query));
        if (rc)
            rc = s3c_fail(e, rc, "presign: the URL is too long");
    }
    buf_release(&query);
    buf_release(&own);
    s3_target_release(&t);
    return rc;
}

enum s3c_err cmd_presign(struct cli_ctx *c, int argc, char **argv)
{
    const char *expires = NULL, *version_id = NULL, *pos[1];
    const struct arg_spec specs[] = {
        { "--expires-in", NULL, ARG_STR, &expires },
        { "--version-id", NULL, ARG_STR, &version_id },
        { NULL, NULL, 0, NULL },
    };
    struct s3c_error e = S3C_ERROR_INIT;
    struct s3_uri u = S3_URI_INIT;
    struct buf url = BUF_INIT(2 * S3_URL_MAX_BYTES);
    long expires_s = 0;
    int n_pos = 0;
    enum s3c_err rc = args_parse("presign", specs, argc, argv, pos, 1, &n_pos, &e);

    if (!rc && (n_pos != 1 || !s3_uri_is(pos[0])))
        rc = s3c_fail(&e, S3C_EUSAGE, "presign: expected one s3://BUCKET/KEY");
    if (!rc)
        rc = parse_expires(expires, &expires_s, &e);
    if (!rc)
        rc = s3_uri_parse(pos[0], &u, &e);
    if (!rc && !wild_has(u.key))
        wild_unescape(u.key); /* "\\*" is a star, as in every verb */
    if (!rc && (!u.bucket[0] || !u.key[0]))
        rc = s3c_fail(&e, S3C_EUSAGE, "presign: \"%s\" names no object (expected s3://BUCKET/KEY)", pos[0]);
    if (!rc)
        rc = cli_version_check("presign", version_id, u.bucket, true, &e);
    if (rc) {
        out_usage_error(&e);
        goto out;
    }
    if (c->cfg.no_sign_request) {
        rc = s3c_fail(&e, S3C_EAUTH, "presign: a presigned URL needs credentials (--no-sign-request was given)");
        out_usage_error(&e);
        goto out;
    }
    {
        struct store_s3 *s = cli_s3(c, &e);
        const struct creds *k = NULL;
        const char *region = c->cfg.region;
        unsigned gen;

        if (s && !c->region_flag)
            region = store_s3_probe_region(s, u.bucket);
        if (s)
            k = keyring_get(c->keys, time(NULL), &gen, &e);
        rc = k ? presign_url(&c->cfg, k, region, &u, version_id, expires_s, &url, &e) : e.code;
    }
    if (rc) {
        char op[4096];
        cli_op_name(op, sizeof(op), "presign", n_pos, pos);
        out_error(op, &e);
        goto out;
    }
    if (out_opts()->json) {
        struct json j = JSON_INIT;
        json_str(&j, "url", buf_cstr(&url));
        json_u64(&j, "expires_in", (uint64_t)expires_s);
        json_end(&j);
    } else {
        /* The URL is the output (as ls's listing): --quiet does not hide it. */
        buf_addc(&url, '\n');
        out_text(buf_cstr(&url));
    }
out:
    buf_release(&url);
    s3_uri_release(&u);
    return rc;
}
