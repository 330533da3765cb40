/*
 * objopts: the per-object flags that cp, mv and sync share (Content-Type
 * and the other standard headers, --metadata, --storage-class, --acl, SSE,
 * --request-payer, --metadata-directive, --copy-props, --checksum-algorithm,
 * --checksum-mode), as args_parse specs, and their
 * checks. What they become is struct xfer_obj_opts (xfer/xfer.h).
 */
#ifndef S3C_CLI_OBJOPTS_H
#define S3C_CLI_OBJOPTS_H

#include <stdbool.h>

#include "cli/args.h"
#include "cli/ctx.h"
#include "base/err.h"
#include "xfer/xfer.h"

#define OBJOPTS_META_MAX 32
#define OBJOPTS_META_KEY_MAX 255        /* bytes of a --metadata key */
#define OBJOPTS_META_VALUE_MAX 2047     /* bytes of a value (S3 takes 2 KB for all of them) */

/* The raw flags that need parsing, and the storage of what they become. */
struct objopts_args {
    struct arg_list metadata;                   /* --metadata as given, each time (s5cmd: all of them) */
    const char *copy_props;                     /* --copy-props as given */
    const char *source_region;                  /* --source-region: the source bucket's (S3 to S3) */
    struct cli_side_flags src_side;             /* --source-profile and the source side's other flags
                                                   (its region is source_region) */
    const char *destination_region;             /* --destination-region: the destination bucket's (s5cmd) */
    struct arg_list grants;                     /* --grants PERMISSION=GRANTEE..., as given */
    bool force_glacier;                         /* --force-glacier-transfer */
    bool ignore_glacier;                        /* --ignore-glacier-warnings */
    bool no_guess_mime;                         /* --no-guess-mime-type */
    bool dir_markers;                           /* --directory-markers: empty directories as 0-byte
                                                   "dir/" objects, and back (cp, sync) */
    const char *checksum_algorithm;             /* --checksum-algorithm as given */
    const char *checksum_mode;                  /* --checksum-mode as given (ENABLED) */
    char expires[32];                           /* --expires as sent: an HTTP date (xfer_obj_opts.expires) */
    /* "x-amz-meta-NAME", and the value as sent (an RFC 2047 word when not ASCII) */
    char meta[OBJOPTS_META_MAX][2][16 + 4 * (OBJOPTS_META_VALUE_MAX / 3 + 1)];
    struct s3_sse_c ssec_own, ssec_src_own;
    const struct s3_sse_c *ssec;                /* --sse-c-key's headers, or NULL (for a verb's own HEADs) */
    const struct s3_sse_c *ssec_src;            /* --sse-c-copy-source-key's, or NULL */
};

/* The flags as args_parse specs, to put in a verb's table: OBJOPTS_SPECS(&oo, &args). */
#define OBJOPTS_SPECS(oo, a)                                                      \
    { "--content-type", NULL, ARG_STR, &(oo)->content_type },                     \
    { "--cache-control", NULL, ARG_STR, &(oo)->cache_control },                   \
    { "--content-encoding", NULL, ARG_STR, &(oo)->content_encoding },             \
    { "--content-disposition", NULL, ARG_STR, &(oo)->content_disposition },       \
    { "--content-language", NULL, ARG_STR, &(oo)->content_language },             \
    { "--expires", NULL, ARG_STR, &(oo)->expires },                               \
    { "--storage-class", NULL, ARG_STR, &(oo)->storage_class },                   \
    { "--acl", NULL, ARG_STR, &(oo)->acl },                                       \
    { "--sse", NULL, ARG_STR, &(oo)->sse },                                       \
    { "--sse-kms-key-id", NULL, ARG_STR, &(oo)->sse_kms_key_id },                 \
    { "--sse-c", NULL, ARG_STR, &(oo)->sse_c },                                   \
    { "--sse-c-key", NULL, ARG_STR, &(oo)->sse_c_key },                           \
    { "--sse-c-copy-source", NULL, ARG_STR, &(oo)->sse_c_copy_source },           \
    { "--sse-c-copy-source-key", NULL, ARG_STR, &(oo)->sse_c_copy_source_key },   \
    { "--request-payer", NULL, ARG_STR, &(oo)->request_payer },                   \
    { "--checksum-algorithm", NULL, ARG_STR, &(a)->checksum_algorithm },          \
    { "--checksum-mode", NULL, ARG_STR, &(a)->checksum_mode },                    \
    { "--metadata-directive", NULL, ARG_STR, &(oo)->metadata_directive },         \
    { "--metadata", NULL, ARG_STR_LIST, &(a)->metadata },                         \
    { "--copy-props", NULL, ARG_STR, &(a)->copy_props },                          \
    { "--source-region", NULL, ARG_STR, &(a)->source_region },                    \
    { "--source-profile", NULL, ARG_STR, &(a)->src_side.profile },                \
    { "--source-endpoint-url", NULL, ARG_STR, &(a)->src_side.endpoint_url },      \
    { "--source-ca-bundle", NULL, ARG_STR, &(a)->src_side.ca_bundle },            \
    { "--source-addressing-style", NULL, ARG_STR, &(a)->src_side.addressing_style }, \
    { "--source-no-sign-request", NULL, ARG_BOOL, &(a)->src_side.no_sign_request }, \
    { "--destination-region", NULL, ARG_STR, &(a)->destination_region },          \
    { "--website-redirect", NULL, ARG_STR, &(oo)->website_redirect },             \
    { "--grants", NULL, ARG_STR_NARGS, &(a)->grants },                            \
    { "--force-glacier-transfer", NULL, ARG_BOOL, &(a)->force_glacier },          \
    { "--ignore-glacier-warnings", NULL, ARG_BOOL, &(a)->ignore_glacier },        \
    { "--no-guess-mime-type", NULL, ARG_BOOL, &(a)->no_guess_mime },             \
    { "--preserve", NULL, ARG_BOOL, &(oo)->preserve },                           \
    { "--directory-markers", NULL, ARG_BOOL, &(a)->dir_markers },                \
    { "--no-preserve", NULL, ARG_BOOL, &(oo)->no_preserve }

/*
 * After args_parse: check the flags and fill the rest of 'oo' from 'a'
 * (--metadata k1=v1,k2=v2 as the AWS CLI's shorthand, or a JSON object
 * {"k":"v"}; 'oo' then points into a->meta, so 'a' must live as long).
 * Nothing bad reaches a request: --storage-class, --acl, --sse, --sse-c,
 * --request-payer must be one of the AWS CLI's choices; the free values
 * that become headers (--content-type and the other standard headers,
 * --expires, --sse-kms-key-id, --metadata) hold no control characters; a
 * --metadata key only HTTP token characters; a non-ASCII value is UTF-8
 * and is sent RFC 2047-encoded (=?UTF-8?B?...?=), as S3 reads it.
 * S3C_EUSAGE with a message naming 'verb'.
 */
enum s3c_err objopts_parse(const char *verb, struct objopts_args *a, struct xfer_obj_opts *oo,
                           struct s3c_error *e);

/*
 * 'value' (NULL: not given) is one of 'choices' (NULL-terminated), or
 * S3C_EUSAGE worded as the AWS CLI's argparse: "VERB: argument FLAG: Invalid
 * choice 'X', valid choices are: A | B".
 */
enum s3c_err cli_check_choice(const char *verb, const char *flag, const char *value, const char *const *choices,
                              struct s3c_error *e);
extern const char *const cli_request_payer_choices[];   /* --request-payer: requester */

/*
 * 'value' (NULL: not given) can be an HTTP header value as it is: no control
 * characters but tab, no DEL (else S3C_EUSAGE naming 'flag').
 */
enum s3c_err cli_check_header_value(const char *verb, const char *flag, const char *value, struct s3c_error *e);

/*
 * --source-region: when both ends are buckets ('src_bucket' and 'dst_bucket'
 * not NULL), requests to the source bucket are signed for that region from the
 * first one, as the AWS CLI's source client is; --destination-region (s5cmd's):
 * requests to 'dst_bucket' (not NULL) are signed for that one; else nothing.
 */
void objopts_source_region(const struct objopts_args *a, struct store_s3 *s, const char *src_bucket,
                           const char *dst_bucket);

/*
 * The store the source side's requests go to, for a verb from 'src_bucket' to 'dst_bucket'
 * (NULL: a local end): cli_s3_source() of the --source-* flags when both ends are buckets.
 * *relay: the two sides are different services, where a server-side copy cannot read its
 * source, so copies move the bytes through s3c (xfer_opts.relay_copies). S3C_EUSAGE when
 * those flags are given and one end is local. NULL with 'e' set on failure.
 */
struct store_s3 *objopts_source_store(const struct objopts_args *a, struct cli_ctx *c, const char *verb,
                                      const char *src_bucket, const char *dst_bucket, bool *relay,
                                      struct s3c_error *e);

/*
 * Flags that cannot apply to S3 Express directory buckets, refused before
 * anything is sent (S3C_EUSAGE, exit 2): for a directory destination --acl
 * (but bucket-owner-full-control), --storage-class but EXPRESS_ONEZONE,
 * --sse but AES256 and aws:kms, SSE-C; for a directory source SSE-C (a
 * download's, or a copy's source key); --request-payer for either. NULL
 * buckets are local ends.
 */
enum s3c_err objopts_express_check(const char *verb, const struct xfer_obj_opts *oo, const char *src_bucket,
                                   const char *dst_bucket, struct s3c_error *e);

/*
 * "VERB: FLAG cannot be used with the S3 Express directory bucket BUCKET
 * (WHY)" as S3C_EUSAGE; S3C_OK when 'flag' is NULL (nothing to refuse).
 */
enum s3c_err cli_express_refuse(const char *verb, const char *flag, const char *bucket, const char *why,
                                struct s3c_error *e);

/*
 * s5cmd's --version-id ID of 'verb' (NULL: not given, S3C_OK): it needs an ID,
 * names one object ('one': no --recursive, no wildcard, one S3 argument), and
 * a bucket that keeps versions (an S3 Express directory bucket keeps none:
 * cli_express_refuse, unless the id is "null", the one S3 takes there).
 * S3C_EUSAGE saying which, before anything is sent.
 */
enum s3c_err cli_version_check(const char *verb, const char *version_id, const char *bucket, bool one,
                               struct s3c_error *e);

#endif
