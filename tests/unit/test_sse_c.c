#include "t.h"

#include "store/store_s3.h"

/* The three SSE-C headers, as botocore computes them for the same raw key. */
TEST(sse_c_headers_of_a_key)
{
    struct s3_sse_c k;
    struct s3_req r;
    struct s3c_error e = S3C_ERROR_INIT;

    CHECK_INT(s3_sse_c_init(&k, NULL, "0123456789abcdef0123456789abcdef", &e), S3C_OK);
    CHECK_STR(k.algorithm, "AES256");
    CHECK_STR(k.key_b64, "MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=");
    CHECK_STR(k.key_md5_b64, "hRasmdxgYDKV3nvbahU1MA==");
    memset(&r, 0, sizeof(r));
    s3_req_sse_c(&r, &k, false);
    s3_req_sse_c(&r, &k, true);
    CHECK_INT(r.n_headers, 6);
    CHECK_STR(r.headers[0].name, "x-amz-server-side-encryption-customer-algorithm");
    CHECK_STR(r.headers[2].name, "x-amz-server-side-encryption-customer-key-MD5");
    CHECK_STR(r.headers[2].value, "hRasmdxgYDKV3nvbahU1MA==");
    CHECK_STR(r.headers[4].name, "x-amz-copy-source-server-side-encryption-customer-key");
    CHECK_STR(r.headers[4].value, "MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=");
    CHECK_INT(s3_sse_c_init(&k, "AES256", "0123456789abcdef0123456789abcdef", &e), S3C_OK);
    CHECK_INT(s3_sse_c_init(&k, "aws:kms", "0123456789abcdef0123456789abcdef", &e), S3C_EUSAGE);
    CHECK_INT(s3_sse_c_init(&k, NULL, "0123456789abcdef0123456789abcde", &e), S3C_EUSAGE);
    CHECK_STR(e.msg, "an SSE-C key must be 32 bytes (256 bits), not 31");
    CHECK_INT(s3_sse_c_init(&k, NULL, NULL, &e), S3C_EUSAGE);
}
