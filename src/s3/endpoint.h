/*
 * endpoint: where an S3 request goes. From the resolved configuration, a
 * bucket and a key, build the URL (without query), the Host header and the
 * encoded path that SigV4 signs, following the AWS CLI v2 (botocore's S3
 * endpoint rules):
 *
 *   AWS endpoints (no endpoint_url)
 *     virtual-hosted  https://BUCKET.s3.REGION.amazonaws.com/KEY
 *                     (us-east-1 too: the CLI v2 never uses the global
 *                     s3.amazonaws.com; *.amazonaws.com.cn for cn- regions)
 *     path style      https://s3.REGION.amazonaws.com/BUCKET/KEY, when the
 *                     bucket is not a DNS label (dots, upper case,
 *                     underscores, length, IP shape) or addressing_style = path
 *     dual-stack      s3.dualstack.REGION.amazonaws.com
 *     accelerate      BUCKET.s3-accelerate[.dualstack].amazonaws.com; a bucket
 *                     that cannot be virtual-hosted is an error
 *   custom endpoint_url (http:// or https://, any port, optional base path)
 *     path style under auto (as the CLI does): SCHEME://HOST[:PORT]/BASE/BUCKET/KEY;
 *     addressing_style = virtual puts a DNS-compatible bucket in the host
 *     (dotted names only over http), never in front of an IP address
 *     (botocore would for dotted names; that host cannot resolve).
 *     Dual-stack does not apply; accelerate is an error, as in botocore.
 *   no bucket (ListBuckets): the service root, path "/" (or the base path).
 *
 *   S3 Express One Zone: a bucket named BASE--ZONEID--x-s3 is a directory
 *   bucket (botocore's endpoint rules, backend "S3Express"):
 *     object requests (zonal)  https://BUCKET.s3express-ZONEID[.dualstack].REGION.amazonaws.com/KEY,
 *                              virtual-hosted only (a name that cannot be is an error)
 *     bucket management (control: CreateBucket, DeleteBucket, ListDirectoryBuckets)
 *                              https://s3express-control[.dualstack].REGION.amazonaws.com/BUCKET
 *     custom endpoint_url      control: path style on the endpoint; zonal:
 *                              BUCKET.HOST virtual-hosted, path style when HOST
 *                              is an IP address (so one emulator port serves both)
 *     Accelerate is an error; every such request is signed for "s3express".
 *
 * Default ports (:80 for http, :443 for https) are dropped from the URL and
 * the Host header alike: curl leaves them out of Host and SigV4 signs Host.
 *
 * Keys are percent-encoded except unreserved characters and '/', so keys
 * with spaces, unicode, '+', '%', '#' or '?' round-trip. The path is sent
 * as built: the HTTP layer must not normalise it (curl: CURLOPT_PATH_AS_IS,
 * or "a/../b" keys change meaning).
 *
 * Pure functions: no I/O, no clock, no environment.
 */
#ifndef S3C_S3_ENDPOINT_H
#define S3C_S3_ENDPOINT_H

#include <stdbool.h>

#include "base/buf.h"
#include "base/err.h"
#include "cfg/config.h"

#define S3_URL_MAX_BYTES 16384

/* Where one request goes. */
struct s3_target {
    struct buf url;         /* scheme://host[:port]/path, no query */
    struct buf host;        /* Host header value; :port only when not the scheme's default */
    struct buf path;        /* encoded path as sent and signed, starts with '/' */
    bool tls;               /* https */
    bool virtual_hosted;    /* the bucket is in the host name */
    bool express;           /* an S3 Express endpoint (zonal or control): sign for "s3express" */
};

#define S3_TARGET_INIT                                                       \
    { BUF_INIT(S3_URL_MAX_BYTES), BUF_INIT(S3_URL_MAX_BYTES),                \
      BUF_INIT(S3_URL_MAX_BYTES), false, false, false }

/*
 * Resolve the target of a request to 'bucket' (NULL or "" for the service
 * itself) and 'key' (raw, unencoded; NULL or "" for the bucket itself).
 * 'out' (S3_TARGET_INIT or reused) is overwritten. Fails with S3C_ECONFIG
 * for a bad endpoint_url or an impossible combination (accelerate with a
 * custom endpoint, or with a bucket that cannot be virtual-hosted),
 * S3C_EUSAGE for a bucket name that cannot be sent at all (contains '/'),
 * S3C_ENOMEM past the caps.
 */
enum s3c_err s3_endpoint_resolve(const struct s3c_config *cfg, const char *bucket,
                                 const char *key, struct s3_target *out, struct s3c_error *e);
/* The same, for a bucket known to live in 'region' (NULL: the configured
 * one): AWS endpoints then name that region. */
enum s3c_err s3_endpoint_resolve_in(const struct s3c_config *cfg, const char *region, const char *bucket,
                                    const char *key, struct s3_target *out, struct s3c_error *e);

/* Which endpoint of a directory bucket a request goes to. */
enum s3_endpoint_kind {
    S3_EP_OBJECT = 0,       /* the bucket's own: zonal for a directory bucket */
    S3_EP_CONTROL,          /* S3 Express bucket management (s3express-control) */
};

/* The same, for 'kind': S3_EP_CONTROL sends 'bucket' (which may be NULL:
 * ListDirectoryBuckets) to the regional control endpoint. */
enum s3c_err s3_endpoint_resolve_kind(const struct s3c_config *cfg, const char *region, const char *bucket,
                                      const char *key, enum s3_endpoint_kind kind, struct s3_target *out,
                                      struct s3c_error *e);

void s3_target_release(struct s3_target *t);

/* A directory bucket's name: ends in "--x-s3" after a zone id (BASE--ZONEID--x-s3). */
bool s3_bucket_is_express(const char *bucket);

/*
 * The zone id of directory bucket 'bucket' ("usw2-az1", "usw2-lax1-az1")
 * into 'out' (n bytes); false when the name is not BASE--ZONEID--x-s3 with
 * a non-empty BASE and ZONEID, or the id does not fit.
 */
bool s3_express_zone(const char *bucket, char *out, size_t n);

/*
 * Append 'in' percent-encoded (upper-case hex), keeping A-Z a-z 0-9 - _ . ~
 * and, if keep_slash, '/'.
 */
enum s3c_err s3_uri_encode(struct sv in, bool keep_slash, struct buf *out);

/*
 * botocore's aws.isVirtualHostableS3Bucket: 3+ characters, no upper case,
 * not shaped like an IPv4 address, and each label (the whole name unless
 * allow_dots) 1-63 of [a-z0-9-] not starting or ending with '-'.
 */
bool s3_bucket_is_virtual_hostable(const char *bucket, bool allow_dots);

/* The parts of an endpoint URL. */
struct s3_url {
    bool tls;               /* https */
    struct sv host;         /* as written; IPv6 keeps its brackets */
    unsigned port;          /* 0: the scheme's default */
    struct sv path;         /* base path as written, "" if none */
    bool host_is_ip;        /* IPv4 dotted quad or bracketed IPv6 */
};

/*
 * Parse an http:// or https:// URL with an optional port and base path.
 * User info, query and fragment are refused. The views point into 'url'.
 */
enum s3c_err s3_url_parse(const char *url, struct s3_url *out, struct s3c_error *e);

#endif
