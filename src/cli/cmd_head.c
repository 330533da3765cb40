/*
 * head: HeadObject (or HeadBucket) printed as one JSON document with the
 * field names of `aws s3api head-object` / `head-bucket`; --version-id (s5cmd's)
 * asks for one version, as head-object --version-id.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "cli/args.h"
#include "cli/cmd.h"
#include "cli/objopts.h"
#include "cli/output.h"
#include "plan/wild.h"
#include "s3/uri.h"

/* Response header -> JSON field, string-valued unless noted. */
static const struct {
    const char *header;
    const char *field;
} fields[] = {
    { "accept-ranges", "AcceptRanges" },
    { "expires", "Expires" },
    { "etag", "ETag" },
    { "x-amz-checksum-crc32", "ChecksumCRC32" },
    { "x-amz-checksum-crc32c", "ChecksumCRC32C" },
    { "x-amz-checksum-crc64nvme", "ChecksumCRC64NVME" },
    { "x-amz-checksum-sha1", "ChecksumSHA1" },
    { "x-amz-checksum-sha256", "ChecksumSHA256" },
    { "x-amz-checksum-type", "ChecksumType" },
    { "x-amz-version-id", "VersionId" },
    { "cache-control", "CacheControl" },
    { "content-disposition", "ContentDisposition" },
    { "content-encoding", "ContentEncoding" },
    { "content-language", "ContentLanguage" },
    { "content-type", "ContentType" },
    { "x-amz-website-redirect-location", "WebsiteRedirectLocation" },
    { "x-amz-server-side-encryption", "ServerSideEncryption" },
    { "x-amz-server-side-encryption-aws-kms-key-id", "SSEKMSKeyId" },
    { "x-amz-storage-class", "StorageClass" },
    { "x-amz-replication-status", "ReplicationStatus" },
    { "x-amz-object-lock-mode", "ObjectLockMode" },
    { "x-amz-object-lock-retain-until-date", "ObjectLockRetainUntilDate" },
    { "x-amz-object-lock-legal-hold", "ObjectLockLegalHoldStatus" },
    { "x-amz-restore", "Restore" },
    { NULL, NULL },
};

static char *svdup_tmp(struct sv v, char *buf, size_t n)
{
    size_t len = v.n < n - 1 ? v.n : n - 1;

    memcpy(buf, v.p, len);
    buf[len] = '\0';
    return buf;
}

/* "Wed, 12 Oct 2009 17:50:00 GMT" -> "2009-10-12T17:50:00+00:00", as the AWS CLI prints it. */
static void iso_time(struct sv http_date, char out[64])
{
    int64_t epoch;
    time_t t;
    struct tm tm;

    if (!http_date_parse(http_date, &epoch)) {
        snprintf(out, 64, "%.*s", (int)(http_date.n < 63 ? http_date.n : 63), http_date.p);
        return;
    }
    t = (time_t)epoch;
    gmtime_r(&t, &tm);
    strftime(out, 64, "%Y-%m-%dT%H:%M:%S+00:00", &tm);
}

static void print_object(const struct http_resp *r)
{
    struct json j = JSON_INIT, meta = JSON_INIT;
    struct buf metaj = BUF_INIT(1 << 20);
    struct sv name, value;
    char tmp[8192], when[64];
    size_t pos = 0;
    int i;

    if (http_resp_header(r, "x-amz-delete-marker", &value))
        json_bool(&j, "DeleteMarker", sv_ieqs(value, "true"));
    if (http_resp_header(r, "last-modified", &value)) {
        iso_time(value, when);
        json_str(&j, "LastModified", when);
    }
    if (http_resp_header(r, "content-length", &value)) {
        uint64_t n = 0;
        sv_to_u64(value, &n);
        json_u64(&j, "ContentLength", n);
    }
    if (http_resp_header(r, "x-amz-mp-parts-count", &value)) {
        uint64_t n = 0;
        sv_to_u64(value, &n);
        json_u64(&j, "PartsCount", n);
    }
    for (i = 0; fields[i].header; i++) {
        if (!http_resp_header(r, fields[i].header, &value))
            continue;
        if (!strcmp(fields[i].header, "expires"))
            iso_time(value, tmp); /* a date, as botocore parses it ("2027-01-15T10:00:00+00:00") */
        else
            svdup_tmp(value, tmp, sizeof(tmp));
        json_str(&j, fields[i].field, tmp);
    }
    while (http_resp_next_header(r, &pos, &name, &value)) {
        char key[1024];

        if (name.n <= 11 || strncasecmp(name.p, "x-amz-meta-", 11) != 0)
            continue;
        svdup_tmp((struct sv){ name.p + 11, name.n - 11 }, key, sizeof(key));
        for (i = 0; key[i]; i++)
            if (key[i] >= 'A' && key[i] <= 'Z')
                key[i] = (char)(key[i] - 'A' + 'a');
        json_str(&meta, key, svdup_tmp(value, tmp, sizeof(tmp)));
    }
    json_end_into(&meta, &metaj);
    json_raw(&j, "Metadata", buf_cstr(&metaj));
    json_end(&j);
    buf_release(&metaj);
}

static void print_bucket(const struct http_resp *r)
{
    struct json j = JSON_INIT;
    struct sv value;
    char tmp[256];

    if (http_resp_header(r, "x-amz-bucket-region", &value))
        json_str(&j, "BucketRegion", svdup_tmp(value, tmp, sizeof(tmp)));
    if (http_resp_header(r, "x-amz-access-point-alias", &value))
        json_bool(&j, "AccessPointAlias", sv_ieqs(value, "true"));
    json_end(&j);
}

enum s3c_err cmd_head(struct cli_ctx *c, int argc, char **argv)
{
    const char *version_id = NULL;
    bool raw = false;
    const struct arg_spec specs[] = {
        { "--version-id", NULL, ARG_STR, &version_id },
        { "--raw", NULL, ARG_BOOL, &raw }, /* s5cmd's: the key as given, wildcards and escapes alike */
        { NULL, NULL, 0, NULL },
    };
    struct s3_uri u = S3_URI_INIT;
    struct s3c_error e = S3C_ERROR_INIT;
    struct http_xfer x;
    const char *pos[1];
    struct store_s3 *s;
    char op[1024];
    int n_pos;
    enum s3c_err rc;

    memset(&x, 0, sizeof(x));
    rc = args_parse("head", specs, argc, argv, pos, 1, &n_pos, &e);
    if (!rc && n_pos != 1)
        rc = s3c_fail(&e, S3C_EUSAGE, "head: expected one argument, s3://BUCKET[/KEY]");
    if (!rc)
        rc = s3_uri_parse(pos[0], &u, &e);
    /* s5cmd's head names one object: a wildcard is refused ("can not contain glob characters"). */
    if (!rc && !raw && wild_has(u.key))
        rc = s3c_fail(&e, S3C_EUSAGE, "head: remote source \"%s\" can not contain glob characters (--raw takes "
                      "them as they are)", pos[0]);
    if (!rc && !raw)
        wild_unescape(u.key); /* "\\*" is a star, as in every verb */
    if (!rc && !u.bucket[0])
        rc = s3c_fail(&e, S3C_EUSAGE, "head: \"%s\" names no bucket", pos[0]);
    if (!rc && version_id && !u.key[0])
        rc = s3c_fail(&e, S3C_EUSAGE, "head: --version-id needs an object, s3://BUCKET/KEY");
    if (!rc)
        rc = cli_version_check("head", version_id, u.bucket, true, &e);
    if (rc) {
        out_usage_error(&e);
        goto out;
    }
    cli_op_name(op, sizeof(op), "head", n_pos, pos);
    cli_reads_only(c, true);
    s = cli_s3(c, &e);
    rc = s ? store_s3_head_version(s, u.bucket, u.key[0] ? u.key : NULL, version_id, NULL, false, &x, &e) : e.code;
    if (rc && s && u.key[0]) {
        store_s3_explain_head_404_version(s, u.bucket, version_id, &e); /* a missing bucket, key or version? */
        rc = e.code;
    }
    if (rc) {
        out_aws_error(op, &e);
        goto out;
    }
    if (u.key[0])
        print_object(&x.resp);
    else
        print_bucket(&x.resp);
out:
    http_xfer_release(&x);
    s3_uri_release(&u);
    return rc;
}
