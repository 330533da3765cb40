/*
 * op: the name of the S3 API operation a request is ("GetObject",
 * "UploadPart", ...), read from its method, key, query and copy source, so
 * that an error names what failed as the AWS CLI's do ("An error occurred
 * (NoSuchKey) when calling the GetObject operation"). Pure: no I/O.
 */
#ifndef S3C_S3_OP_H
#define S3C_S3_OP_H

#include <stdbool.h>

/*
 * The operation of a request: 'method' (GET, PUT...), whether it names an
 * object ('has_key'), a bucket ('has_bucket'), its encoded query (NULL for
 * none) and whether it carries x-amz-copy-source. Never NULL: "Request"
 * when nothing fits.
 */
const char *s3_op_name(const char *method, bool has_bucket, bool has_key, const char *query, bool copy_source);

#endif
