#include "t.h"

#include "s3/uri.h"

TEST(s3_uri_parses_bucket_and_key)
{
    struct s3_uri u = S3_URI_INIT;
    struct s3c_error e = S3C_ERROR_INIT;

    CHECK_INT(s3_uri_parse("s3://b/dir/a b+%.txt", &u, &e), S3C_OK);
    CHECK_STR(u.bucket, "b");
    CHECK_STR(u.key, "dir/a b+%.txt");
    s3_uri_release(&u);
    CHECK_INT(s3_uri_parse("S3://bucket", &u, &e), S3C_OK);
    CHECK_STR(u.bucket, "bucket");
    CHECK_STR(u.key, "");
    s3_uri_release(&u);
    CHECK_INT(s3_uri_parse("s3://b/", &u, &e), S3C_OK);
    CHECK_STR(u.key, "");
    s3_uri_release(&u);
    CHECK_INT(s3_uri_parse("s3://", &u, &e), S3C_OK);
    CHECK_STR(u.bucket, "");
    s3_uri_release(&u);
}

TEST(s3_uri_rejects_non_s3)
{
    struct s3_uri u = S3_URI_INIT;
    struct s3c_error e = S3C_ERROR_INIT;

    CHECK_INT(s3_uri_parse("/tmp/x", &u, &e), S3C_EUSAGE);
    CHECK(strstr(e.msg, "not an S3 URI") != NULL);
    CHECK_INT(s3_uri_parse("s3:///key", &u, &e), S3C_EUSAGE);
}
