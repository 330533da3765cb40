#include "cli/objopts.h"

#include "s3/endpoint.h"

#include <stdio.h>
#include <string.h>

static enum s3c_err parse_metadata(const char *verb, struct objopts_args *a, struct xfer_obj_opts *oo,
                                   struct s3c_error *e)
{
    const char *p = a->metadata;
    int n = 0;

    if (!p)
        return S3C_OK;
    while (*p == ' ' || *p == '{')
        p++;
    while (*p && *p != '}') {
        char k[256], v[512];
        size_t kl = 0, vl = 0;
        bool q;

        while (*p == ' ' || *p == ',')
            p++;
        if (!*p || *p == '}')
            break;
        q = *p == '"';
        if (q)
            p++;
        while (*p && (q ? *p != '"' : (*p != '=' && *p != ':')) && kl < sizeof(k) - 1)
            k[kl++] = *p++;
        if (q && *p == '"')
            p++;
        while (*p == ' ')
            p++;
        if (*p != '=' && *p != ':')
            return s3c_fail(e, S3C_EUSAGE, "%s: --metadata must be KEY=VALUE[,KEY=VALUE] or {\"KEY\":\"VALUE\"}",
                            verb);
        p++;
        while (*p == ' ')
            p++;
        q = *p == '"';
        if (q)
            p++;
        while (*p && (q ? *p != '"' : (*p != ',' && *p != '}')) && vl < sizeof(v) - 1)
            v[vl++] = *p++;
        if (q && *p == '"')
            p++;
        k[kl] = v[vl] = '\0';
        if (!kl || n == OBJOPTS_META_MAX)
            return s3c_fail(e, S3C_EUSAGE, "%s: bad or too many --metadata entries", verb);
        snprintf(a->meta[n][0], sizeof(a->meta[n][0]), "x-amz-meta-%s", k);
        snprintf(a->meta[n][1], sizeof(a->meta[n][1]), "%s", v);
        oo->metadata[n][0] = a->meta[n][0];
        oo->metadata[n][1] = a->meta[n][1];
        n++;
    }
    oo->n_metadata = n;
    return S3C_OK;
}

/* --sse-c/--sse-c-key and the copy-source pair: a key of 32 bytes for AES256. */
static enum s3c_err check_sse_c(const char *verb, struct objopts_args *a, const struct xfer_obj_opts *oo,
                                struct s3c_error *e)
{
    struct s3c_error why = S3C_ERROR_INIT;

    if (oo->sse_c && !oo->sse_c_key)
        return s3c_fail(e, S3C_EUSAGE, "%s: --sse-c needs --sse-c-key", verb);
    if (oo->sse_c_copy_source && !oo->sse_c_copy_source_key)
        return s3c_fail(e, S3C_EUSAGE, "%s: --sse-c-copy-source needs --sse-c-copy-source-key", verb);
    if (oo->sse_c_key) {
        if (s3_sse_c_init(&a->ssec_own, oo->sse_c, oo->sse_c_key, &why))
            return s3c_fail(e, S3C_EUSAGE, "%s: --sse-c/--sse-c-key: %s", verb, why.msg);
        a->ssec = &a->ssec_own;
    }
    if (oo->sse_c_copy_source_key) {
        if (s3_sse_c_init(&a->ssec_src_own, oo->sse_c_copy_source, oo->sse_c_copy_source_key, &why))
            return s3c_fail(e, S3C_EUSAGE, "%s: --sse-c-copy-source/--sse-c-copy-source-key: %s", verb, why.msg);
        a->ssec_src = &a->ssec_src_own;
    }
    return S3C_OK;
}

enum s3c_err objopts_parse(const char *verb, struct objopts_args *a, struct xfer_obj_opts *oo,
                           struct s3c_error *e)
{
    enum s3c_err rc = parse_metadata(verb, a, oo, e);

    if (!rc)
        rc = check_sse_c(verb, a, oo, e);
    if (rc)
        return rc;
    if (oo->metadata_directive && strcmp(oo->metadata_directive, "COPY") &&
        strcmp(oo->metadata_directive, "REPLACE"))
        return s3c_fail(e, S3C_EUSAGE, "%s: --metadata-directive must be COPY or REPLACE", verb);
    if (!a->copy_props || !strcmp(a->copy_props, "default"))
        oo->copy_props = XFER_PROPS_DEFAULT;
    else if (!strcmp(a->copy_props, "metadata-directive"))
        oo->copy_props = XFER_PROPS_METADATA;
    else if (!strcmp(a->copy_props, "none"))
        oo->copy_props = XFER_PROPS_NONE;
    else
        return s3c_fail(e, S3C_EUSAGE, "%s: --copy-props must be none, metadata-directive or default", verb);
    oo->no_guess_mime = a->no_guess_mime;
    if (a->checksum_algorithm && !ck_parse(sv_from(a->checksum_algorithm), &oo->checksum_algo))
        return s3c_fail(e, S3C_EUSAGE, "%s: --checksum-algorithm must be CRC32, CRC32C, SHA1, SHA256 or CRC64NVME, "
                        "not \"%s\"", verb, a->checksum_algorithm);
    if (a->checksum_mode && strcmp(a->checksum_mode, "ENABLED"))
        return s3c_fail(e, S3C_EUSAGE, "%s: --checksum-mode must be ENABLED, not \"%s\"", verb, a->checksum_mode);
    oo->checksum_mode = a->checksum_mode != NULL;
    return S3C_OK;
}

void objopts_source_region(const struct objopts_args *a, struct store_s3 *s, const char *src_bucket,
                           const char *dst_bucket)
{
    if (a->source_region && src_bucket && dst_bucket)
        store_s3_bucket_region_set(s, src_bucket, a->source_region);
}

enum s3c_err cli_express_refuse(const char *verb, const char *flag, const char *bucket, const char *why,
                                struct s3c_error *e)
{
    if (!flag)
        return S3C_OK;
    return s3c_fail(e, S3C_EUSAGE, "%s: %s cannot be used with the S3 Express directory bucket %s%s%s%s", verb,
                    flag, bucket, why ? " (" : "", why ? why : "", why ? ")" : "");
}

enum s3c_err objopts_express_check(const char *verb, const struct xfer_obj_opts *oo, const char *src_bucket,
                                   const char *dst_bucket, struct s3c_error *e)
{
    bool src = s3_bucket_is_express(src_bucket), dst = s3_bucket_is_express(dst_bucket);
    const char *b = dst ? dst_bucket : src_bucket;

    if (!src && !dst)
        return S3C_OK;
    if (oo->request_payer)
        return cli_express_refuse(verb, "--request-payer", b, "no Requester Pays", e);
    if (dst && oo->acl && strcmp(oo->acl, "bucket-owner-full-control") != 0)
        return cli_express_refuse(verb, "--acl", dst_bucket, "directory buckets have no ACLs", e);
    if (dst && oo->storage_class && strcmp(oo->storage_class, "EXPRESS_ONEZONE") != 0)
        return cli_express_refuse(verb, "--storage-class", dst_bucket, "their one class is EXPRESS_ONEZONE", e);
    if (dst && oo->sse && strcmp(oo->sse, "AES256") != 0 && strcmp(oo->sse, "aws:kms") != 0)
        return cli_express_refuse(verb, "--sse", dst_bucket, "AES256 or aws:kms only", e);
    /* SSE-C: the key of the object written (destination) or read (a download's source). */
    if ((oo->sse_c || oo->sse_c_key) && (dst || (src && !dst_bucket)))
        return cli_express_refuse(verb, "--sse-c", b, "no SSE-C", e);
    if ((oo->sse_c_copy_source || oo->sse_c_copy_source_key) && src)
        return cli_express_refuse(verb, "--sse-c-copy-source", src_bucket, "no SSE-C", e);
    return S3C_OK;
}
