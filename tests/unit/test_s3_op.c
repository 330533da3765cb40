/* s3/op.h: requests named as the SDKs name their operations. */
#include "t.h"

#include "s3/op.h"

TEST(op_names_as_the_sdks)
{
    CHECK_STR(s3_op_name("HEAD", true, true, NULL, false), "HeadObject");
    CHECK_STR(s3_op_name("HEAD", true, false, NULL, false), "HeadBucket");
    CHECK_STR(s3_op_name("GET", true, true, NULL, false), "GetObject");
    CHECK_STR(s3_op_name("GET", true, false, "list-type=2&prefix=a", false), "ListObjectsV2");
    CHECK_STR(s3_op_name("GET", true, false, "versions=&prefix=a", false), "ListObjectVersions");
    CHECK_STR(s3_op_name("GET", false, false, NULL, false), "ListBuckets");
    CHECK_STR(s3_op_name("PUT", true, true, NULL, false), "PutObject");
    CHECK_STR(s3_op_name("PUT", true, true, NULL, true), "CopyObject");
    CHECK_STR(s3_op_name("PUT", true, true, "partNumber=2&uploadId=x", false), "UploadPart");
    CHECK_STR(s3_op_name("PUT", true, true, "partNumber=2&uploadId=x", true), "UploadPartCopy");
    CHECK_STR(s3_op_name("POST", true, true, "uploads=", false), "CreateMultipartUpload");
    CHECK_STR(s3_op_name("POST", true, true, "uploadId=x", false), "CompleteMultipartUpload");
    CHECK_STR(s3_op_name("POST", true, true, "restore=", false), "RestoreObject");
    CHECK_STR(s3_op_name("POST", true, true, "restore=&versionId=v", false), "RestoreObject");
    CHECK_STR(s3_op_name("DELETE", true, true, "uploadId=x", false), "AbortMultipartUpload");
    CHECK_STR(s3_op_name("GET", true, true, "part-number-marker=0&uploadId=x", false), "ListParts");
    CHECK_STR(s3_op_name("DELETE", true, true, NULL, false), "DeleteObject");
    CHECK_STR(s3_op_name("POST", true, false, "delete=", false), "DeleteObjects");
    CHECK_STR(s3_op_name("PUT", true, false, NULL, false), "CreateBucket");
    CHECK_STR(s3_op_name("DELETE", true, false, NULL, false), "DeleteBucket");
    CHECK_STR(s3_op_name("GET", true, true, "tagging=", false), "GetObjectTagging");
    CHECK_STR(s3_op_name("PUT", true, true, "tagging", false), "PutObjectTagging");
    CHECK_STR(s3_op_name("GET", true, false, "location=", false), "GetBucketLocation");
    CHECK_STR(s3_op_name(NULL, true, true, NULL, false), "Request");
}
