#include "cli/objopts.h"

#include "base/hash.h"
#include "base/isotime.h"
#include "base/mime.h"
#include "cfg/config.h"
#include "http/http.h"
#include "s3/endpoint.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

/* The AWS CLI's choices (its s3 commands' argument tables), NULL-terminated. */
static const char *const acl_choices[] = {
    "private", "public-read", "public-read-write", "authenticated-read", "aws-exec-read",
    "bucket-owner-read", "bucket-owner-full-control", "log-delivery-write", NULL,
};
static const char *const sse_choices[] = { "AES256", "aws:kms", NULL };
static const char *const sse_c_choices[] = { "AES256", NULL };
const char *const cli_request_payer_choices[] = { "requester", NULL };
static const char *const addressing_choices[] = { "auto", "path", "virtual", NULL };
/* The CLI's eight, then those S3's API names that the CLI does not offer yet:
 * EXPRESS_ONEZONE (directory buckets), OUTPOSTS, SNOW, FSX_*. */
static const char *const storage_class_choices[] = {
    "STANDARD", "REDUCED_REDUNDANCY", "STANDARD_IA", "ONEZONE_IA", "INTELLIGENT_TIERING", "GLACIER",
    "DEEP_ARCHIVE", "GLACIER_IR", "EXPRESS_ONEZONE", "OUTPOSTS", "SNOW", "FSX_OPENZFS", "FSX_ONTAP", NULL,
};

enum s3c_err cli_check_choice(const char *verb, const char *flag, const char *value, const char *const *choices,
                              struct s3c_error *e)
{
    struct buf list = BUF_INIT(4096);
    const char *const *c;

    if (!value)
        return S3C_OK;
    for (c = choices; *c; c++)
        if (!strcmp(*c, value))
            return S3C_OK;
    for (c = choices; *c; c++)
        buf_addf(&list, "%s%s", c == choices ? "" : " | ", *c);
    s3c_fail(e, S3C_EUSAGE, "%s: argument %s: Invalid choice '%s', valid choices are: %s", verb, flag, value,
             buf_cstr(&list));
    buf_release(&list);
    return S3C_EUSAGE;
}

/* RFC 9110's field-value: any byte but the controls (tab aside) and DEL. */
static bool header_byte_ok(unsigned char c)
{
    return c == '\t' || (c >= 0x20 && c != 0x7f);
}

enum s3c_err cli_check_header_value(const char *verb, const char *flag, const char *value, struct s3c_error *e)
{
    const char *p;

    if (!value)
        return S3C_OK;
    for (p = value; *p; p++)
        if (!header_byte_ok((unsigned char)*p))
            /* A CR or LF would end the header and start another one of the
             * user's making; the other controls servers refuse or cut. */
            return s3c_fail(e, S3C_EUSAGE, "%s: %s \"%s\": a header value cannot hold control characters "
                            "(CR, LF, NUL...)", verb, flag, value);
    return S3C_OK;
}

/* RFC 9110's token: what a header name (x-amz-meta-KEY) may hold. */
static bool token_byte_ok(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           (c && strchr("!#$%&'*+-.^_`|~", c));
}

/*
 * One --metadata entry, checked, into slot 'n'. The key becomes part of a
 * header name: HTTP token characters only (ASCII). The value: no control
 * characters; a value that is not ASCII must be UTF-8, and is sent as an RFC
 * 2047 encoded-word, =?UTF-8?B?BASE64?=, the form S3 decodes before it
 * stores a value (and gives back); raw bytes above 0x7F would be signed by
 * s3c as they are but not by every store.
 */
static enum s3c_err meta_put(const char *verb, struct objopts_args *a, int n, const char *k, const char *v,
                             struct s3c_error *e)
{
    struct buf b64 = BUF_INIT(sizeof(a->meta[0][1]));
    bool ascii = true;
    const char *p;

    for (p = k; *p; p++)
        if (!token_byte_ok((unsigned char)*p))
            return s3c_fail(e, S3C_EUSAGE, "%s: --metadata key \"%s\": a key may hold only ASCII letters, digits "
                            "and !#$%%&'*+-.^_`|~ (it becomes part of a header name)", verb, k);
    for (p = v; *p; p++) {
        if (!header_byte_ok((unsigned char)*p))
            return s3c_fail(e, S3C_EUSAGE, "%s: --metadata value of \"%s\": a header value cannot hold control "
                            "characters (CR, LF, NUL...)", verb, k);
        ascii = ascii && (unsigned char)*p < 0x80;
    }
    snprintf(a->meta[n][0], sizeof(a->meta[n][0]), "x-amz-meta-%s", k);
    if (ascii) {
        snprintf(a->meta[n][1], sizeof(a->meta[n][1]), "%s", v);
        return S3C_OK;
    }
    if (!sv_is_utf8(sv_from(v)))
        return s3c_fail(e, S3C_EUSAGE, "%s: --metadata value of \"%s\" is not UTF-8", verb, k);
    if (base64_encode(v, strlen(v), &b64)) {
        buf_release(&b64);
        return s3c_fail(e, S3C_EUSAGE, "%s: --metadata value of \"%s\" is too long", verb, k);
    }
    snprintf(a->meta[n][1], sizeof(a->meta[n][1]), "=?UTF-8?B?%s?=", buf_cstr(&b64));
    buf_release(&b64);
    return S3C_OK;
}

/* One --metadata value ('p'): its entries after the *n there are; a key given before takes the new value. */
static enum s3c_err parse_metadata_one(const char *verb, struct objopts_args *a, struct xfer_obj_opts *oo,
                                       const char *p, int *np, struct s3c_error *e)
{
    enum s3c_err rc;
    int n = *np;

    while (*p == ' ' || *p == '{')
        p++;
    while (*p && *p != '}') {
        char k[OBJOPTS_META_KEY_MAX + 1], v[OBJOPTS_META_VALUE_MAX + 1];
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
        if (*p != '=' && *p != ':' && kl == sizeof(k) - 1)
            return s3c_fail(e, S3C_EUSAGE, "%s: --metadata key longer than %d bytes", verb, OBJOPTS_META_KEY_MAX);
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
        /* A value cut short must not be stored as if whole. */
        if (vl == sizeof(v) - 1 && *p && (q ? *p != '"' : (*p != ',' && *p != '}')))
            return s3c_fail(e, S3C_EUSAGE, "%s: --metadata value of \"%s\" is longer than %d bytes", verb, k,
                            OBJOPTS_META_VALUE_MAX);
        {
            int i, at = n;
            char name[16 + OBJOPTS_META_KEY_MAX + 1];

            snprintf(name, sizeof(name), "x-amz-meta-%s", k);
            for (i = 0; i < n; i++)
                if (!strcasecmp(a->meta[i][0], name))
                    at = i; /* the same key again: its last value (S3 keeps one) */
            if (!kl || (at == n && n == OBJOPTS_META_MAX))
                return s3c_fail(e, S3C_EUSAGE, "%s: bad or too many --metadata entries", verb);
            rc = meta_put(verb, a, at, k, v, e);
            if (rc)
                return rc;
            oo->metadata[at][0] = a->meta[at][0];
            oo->metadata[at][1] = a->meta[at][1];
            if (at == n)
                n++;
        }
    }
    *np = n;
    return S3C_OK;
}

/* --metadata, each time it is given (s5cmd's --metadata a=b --metadata c=d keeps both). */
static enum s3c_err parse_metadata(const char *verb, struct objopts_args *a, struct xfer_obj_opts *oo,
                                   struct s3c_error *e)
{
    enum s3c_err rc = S3C_OK;
    int i, n = 0;

    for (i = 0; !rc && i < a->metadata.n; i++)
        rc = parse_metadata_one(verb, a, oo, a->metadata.v[i], &n, e);
    oo->n_metadata = n;
    return rc;
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

/*
 * Every flag that becomes a header, checked before the first request: an
 * enumeration against its choices, a free value for what HTTP forbids.
 */
static enum s3c_err check_headers(const char *verb, const struct objopts_args *a, const struct xfer_obj_opts *oo,
                                  struct s3c_error *e)
{
    const struct {
        const char *flag, *value;
    } free_values[] = {
        { "--content-type", oo->content_type },
        { "--cache-control", oo->cache_control },
        { "--content-encoding", oo->content_encoding },
        { "--content-disposition", oo->content_disposition },
        { "--content-language", oo->content_language },
        { "--expires", oo->expires },
        { "--sse-kms-key-id", oo->sse_kms_key_id },
        { "--website-redirect", oo->website_redirect },
    };
    enum s3c_err rc = S3C_OK;
    size_t i;

    for (i = 0; !rc && i < sizeof(free_values) / sizeof(free_values[0]); i++)
        rc = cli_check_header_value(verb, free_values[i].flag, free_values[i].value, e);
    if (!rc)
        rc = cli_check_choice(verb, "--storage-class", oo->storage_class, storage_class_choices, e);
    if (!rc)
        rc = cli_check_choice(verb, "--acl", oo->acl, acl_choices, e);
    if (!rc)
        rc = cli_check_choice(verb, "--sse", oo->sse, sse_choices, e);
    if (!rc)
        rc = cli_check_choice(verb, "--sse-c", oo->sse_c, sse_c_choices, e);
    if (!rc)
        rc = cli_check_choice(verb, "--sse-c-copy-source", oo->sse_c_copy_source, sse_c_choices, e);
    if (!rc)
        rc = cli_check_choice(verb, "--request-payer", oo->request_payer, cli_request_payer_choices, e);
    /* It goes into a host name and a credential scope, as --region does. */
    if (!rc && a->source_region && !cfg_region_ok(a->source_region))
        rc = s3c_fail(e, S3C_EUSAGE, "%s: --source-region \"%s\" is not a valid region name", verb,
                      a->source_region);
    if (!rc)
        rc = cli_check_choice(verb, "--source-addressing-style", a->src_side.addressing_style,
                              addressing_choices, e);
    if (!rc && a->destination_region && !cfg_region_ok(a->destination_region))
        rc = s3c_fail(e, S3C_EUSAGE, "%s: --destination-region \"%s\" is not a valid region name", verb,
                      a->destination_region);
    return rc;
}

/*
 * --expires as botocore reads a timestamp (ISO 8601, seconds since 1970, or
 * an HTTP date), sent as the HTTP date the Expires header holds ("Fri, 15 Jan
 * 2027 10:00:00 GMT"), as the AWS CLI sends it.
 */
static enum s3c_err parse_expires(const char *verb, struct objopts_args *a, struct xfer_obj_opts *oo,
                                  struct s3c_error *e)
{
    static const char days[7][4] = { "Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat" };
    static const char months[12][4] = { "Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                        "Jul", "Aug", "Sep", "Oct", "Nov", "Dec" };
    const char *v = oo->expires;
    int64_t epoch = 0;
    time_t t = 0;
    struct tm tm;
    char *end;

    if (!v)
        return S3C_OK;
    if (v[0] >= '0' && v[0] <= '9' && (epoch = strtoll(v, &end, 10), !*end))
        t = (time_t)epoch;
    else if (!iso8601_parse(v, &t) && !(http_date_parse(sv_from(v), &epoch) && (t = (time_t)epoch, true)))
        return s3c_fail(e, S3C_EUSAGE, "%s: --expires \"%s\" is no time: give ISO 8601 (2027-01-15T10:00:00Z), "
                        "seconds since 1970, or an HTTP date", verb, v);
    if (!gmtime_r(&t, &tm) || tm.tm_year + 1900 > 9999 || tm.tm_year + 1900 < 1)
        return s3c_fail(e, S3C_EUSAGE, "%s: --expires \"%s\" is out of range", verb, v);
    snprintf(a->expires, sizeof(a->expires), "%s, %02d %s %04d %02d:%02d:%02d GMT", days[tm.tm_wday], tm.tm_mday,
             months[tm.tm_mon], tm.tm_year + 1900, tm.tm_hour, tm.tm_min, tm.tm_sec);
    oo->expires = a->expires;
    return S3C_OK;
}

/*
 * --grants read=uri=http://acs.amazonaws.com/groups/global/AllUsers full=id=ID:
 * each PERMISSION=GRANTEE into its x-amz-grant-* header, the grantee as
 * given (the AWS CLI's RequestParamsMapper._set_grant_params: a permission
 * given twice keeps the last).
 */
static enum s3c_err parse_grants(const char *verb, const struct objopts_args *a, struct xfer_obj_opts *oo,
                                 struct s3c_error *e)
{
    int i;

    for (i = 0; i < a->grants.n; i++) {
        const char *g = a->grants.v[i], *eq = strchr(g, '=');
        size_t n = eq ? (size_t)(eq - g) : 0;

        if (!eq)
            return s3c_fail(e, S3C_EUSAGE, "%s: --grants should be of the form permission=principal, not \"%s\"",
                            verb, g);
        if (n == 4 && !strncmp(g, "read", n))
            oo->grant_read = eq + 1;
        else if (n == 4 && !strncmp(g, "full", n))
            oo->grant_full_control = eq + 1;
        else if (n == 7 && !strncmp(g, "readacl", n))
            oo->grant_read_acp = eq + 1;
        else if (n == 8 && !strncmp(g, "writeacl", n))
            oo->grant_write_acp = eq + 1;
        else
            return s3c_fail(e, S3C_EUSAGE, "%s: --grants permission must be one of: read|readacl|writeacl|full, "
                            "not \"%.*s\"", verb, (int)n, g);
        if (cli_check_header_value(verb, "--grants", eq + 1, e))
            return e->code;
    }
    return S3C_OK;
}

enum s3c_err objopts_parse(const char *verb, struct objopts_args *a, struct xfer_obj_opts *oo,
                           struct s3c_error *e)
{
    enum s3c_err rc = check_headers(verb, a, oo, e);

    if (!rc)
        rc = parse_expires(verb, a, oo, e);

    if (!rc)
        rc = parse_metadata(verb, a, oo, e);
    if (!rc)
        rc = check_sse_c(verb, a, oo, e);
    if (!rc)
        rc = parse_grants(verb, a, oo, e);
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
    if (!oo->no_guess_mime)
        mime_load(); /* the mime.types files, read here, never on an engine's loop */
    if (a->checksum_algorithm && !ck_parse(sv_from(a->checksum_algorithm), &oo->checksum_algo))
        return s3c_fail(e, S3C_EUSAGE, "%s: --checksum-algorithm must be CRC32, CRC32C, SHA1, SHA256 or CRC64NVME, "
                        "not \"%s\"", verb, a->checksum_algorithm);
    if (a->checksum_mode && strcmp(a->checksum_mode, "ENABLED"))
        return s3c_fail(e, S3C_EUSAGE, "%s: --checksum-mode must be ENABLED, not \"%s\"", verb, a->checksum_mode);
    oo->checksum_mode = a->checksum_mode != NULL;
    if (oo->preserve && oo->no_preserve)
        return s3c_fail(e, S3C_EUSAGE, "%s: --preserve and --no-preserve contradict each other", verb);
    return S3C_OK;
}

struct store_s3 *objopts_source_store(const struct objopts_args *a, struct cli_ctx *c, const char *verb,
                                      const char *src_bucket, const char *dst_bucket, bool *relay,
                                      struct s3c_error *e)
{
    struct cli_side_flags f = a->src_side;
    struct store_s3 *dst, *src;
    char why[700];

    *relay = false;
    f.region = a->source_region;
    if (!cli_side_given(&f))
        return cli_s3(c, e);
    if (!src_bucket || !dst_bucket) {
        s3c_fail(e, S3C_EUSAGE, "%s: --source-profile, --source-endpoint-url, --source-no-sign-request, "
                 "--source-ca-bundle and --source-addressing-style are for S3 to S3 only", verb);
        return NULL;
    }
    if (!(dst = cli_s3(c, e)) || !(src = cli_s3_source(c, &f, e)))
        return NULL;
    /* CopyObject cannot reach a source on another service: the bytes come through s3c. */
    if (!store_s3_same_service(src, dst, why, sizeof(why))) {
        *relay = true;
        store_s3_debugf(dst, "copy: the two sides are two services (%s): the bytes go through s3c", why);
    }
    return src;
}

void objopts_source_region(const struct objopts_args *a, struct store_s3 *s, const char *src_bucket,
                           const char *dst_bucket)
{
    if (a->source_region && src_bucket && dst_bucket)
        store_s3_bucket_region_set(s, src_bucket, a->source_region);
    if (a->destination_region && dst_bucket)
        store_s3_bucket_region_set(s, dst_bucket, a->destination_region);
}


enum s3c_err cli_express_refuse(const char *verb, const char *flag, const char *bucket, const char *why,
                                struct s3c_error *e)
{
    if (!flag)
        return S3C_OK;
    return s3c_fail(e, S3C_EUSAGE, "%s: %s cannot be used with the S3 Express directory bucket %s%s%s%s", verb,
                    flag, bucket, why ? " (" : "", why ? why : "", why ? ")" : "");
}

enum s3c_err cli_version_check(const char *verb, const char *version_id, const char *bucket, bool one,
                               struct s3c_error *e)
{
    if (!version_id)
        return S3C_OK;
    if (!version_id[0])
        return s3c_fail(e, S3C_EUSAGE, "%s: --version-id needs a version id", verb);
    if (!one)
        return s3c_fail(e, S3C_EUSAGE, "%s: --version-id takes one object, without --recursive or wildcards", verb);
    /* A directory bucket takes the id "null" alone (its objects' only version, as S3 documents). */
    if (s3_bucket_is_express(bucket) && strcmp(version_id, "null") != 0)
        return cli_express_refuse(verb, "--version-id", bucket, "no versioning: only \"null\"", e);
    return S3C_OK;
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
