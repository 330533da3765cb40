/*
 * SigV4 against AWS's published examples, byte for byte:
 *  - S3 API Reference, "Signature Calculations for the Authorization Header:
 *    Transferring Payload in a Single Chunk", section "Examples: Signature
 *    Calculations": GET Object (with Range), PUT Object, GET Bucket Lifecycle,
 *    Get Bucket (List Objects).
 *  - "Authenticating Requests: Using Query Parameters", example presigned GET.
 *  - "Transferring Payload in Multiple Chunks (Chunked Upload)", PUT example:
 *    seed and chunk signatures.
 * All use access key AKIAIOSFODNN7EXAMPLE, the example secret, us-east-1,
 * 20130524T000000Z and bucket examplebucket (virtual-hosted).
 */
#include "t.h"

#include <stdlib.h>

#include "auth/sigv4.h"

static const struct sigv4_creds ex_creds = {
    "AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", NULL
};
static const struct sigv4_scope ex_scope = { "20130524T000000Z", "us-east-1", "s3" };
#define EX_HOST "examplebucket.s3.amazonaws.com"
#define EX_CRED "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, "

static void check_auth(const struct sigv4_request *r, const char *want)
{
    struct buf auth = BUF_INIT(4096);

    CHECK_INT(sigv4_authorization(r, &ex_creds, &ex_scope, &auth), S3C_OK);
    CHECK_STR(buf_cstr(&auth), want);
    buf_release(&auth);
}

TEST(sigv4_aws_example_get_object_range)
{
    const struct sigv4_header h[] = {
        { "Host", EX_HOST },
        { "Range", "bytes=0-9" },
        { "x-amz-content-sha256", SHA256_EMPTY_HEX },
        { "x-amz-date", "20130524T000000Z" },
    };
    const struct sigv4_request r = { "GET", "/test.txt", NULL, h, 4, SHA256_EMPTY_HEX };
    struct buf creq = BUF_INIT(4096), sts = BUF_INIT(4096);

    CHECK_INT(sigv4_canonical_request(&r, &creq, NULL), S3C_OK);
    CHECK_STR(buf_cstr(&creq), "GET\n/test.txt\n\nhost:" EX_HOST "\nrange:bytes=0-9\n"
                               "x-amz-content-sha256:" SHA256_EMPTY_HEX "\n"
                               "x-amz-date:20130524T000000Z\n\n"
                               "host;range;x-amz-content-sha256;x-amz-date\n" SHA256_EMPTY_HEX);
    CHECK_INT(sigv4_string_to_sign(&ex_scope, buf_sv(&creq), &sts), S3C_OK);
    CHECK_STR(buf_cstr(&sts), "AWS4-HMAC-SHA256\n20130524T000000Z\n"
                              "20130524/us-east-1/s3/aws4_request\n"
                              "7344ae5b7ee6c3e7e6b0fe0640412a37625d1fbfff95c48bbb2dc43964946972");
    check_auth(&r, EX_CRED "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, "
                           "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41");
    buf_release(&creq);
    buf_release(&sts);
}

TEST(sigv4_aws_example_put_object)
{
    /* PUT test$file.text, body "Welcome to Amazon S3." */
    const char *body_hash = "44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072";
    const struct sigv4_header h[] = {
        { "Host", EX_HOST },
        { "Date", "Fri, 24 May 2013 00:00:00 GMT" },
        { "x-amz-date", "20130524T000000Z" },
        { "x-amz-storage-class", "REDUCED_REDUNDANCY" },
        { "x-amz-content-sha256", body_hash },
    };
    const struct sigv4_request r = { "PUT", "/test%24file.text", NULL, h, 5, body_hash };
    char hex[65];

    hash_sha256_hex("Welcome to Amazon S3.", 21, hex);
    CHECK_STR(hex, body_hash);
    check_auth(&r, EX_CRED "SignedHeaders=date;host;x-amz-content-sha256;x-amz-date;x-amz-storage-class, "
                           "Signature=98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd");
}

TEST(sigv4_aws_example_get_bucket_lifecycle)
{
    const struct sigv4_header h[] = {
        { "Host", EX_HOST },
        { "x-amz-date", "20130524T000000Z" },
        { "x-amz-content-sha256", SHA256_EMPTY_HEX },
    };
    const struct sigv4_request r = { "GET", "/", "lifecycle", h, 3, SHA256_EMPTY_HEX };

    check_auth(&r, EX_CRED "SignedHeaders=host;x-amz-content-sha256;x-amz-date, "
                           "Signature=fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543");
}

TEST(sigv4_aws_example_list_objects)
{
    const struct sigv4_header h[] = {
        { "Host", EX_HOST },
        { "x-amz-date", "20130524T000000Z" },
        { "x-amz-content-sha256", SHA256_EMPTY_HEX },
    };
    /* Parameters given out of order: the canonical query sorts them. */
    const struct sigv4_request r = { "GET", "/", "prefix=J&max-keys=2", h, 3, SHA256_EMPTY_HEX };

    check_auth(&r, EX_CRED "SignedHeaders=host;x-amz-content-sha256;x-amz-date, "
                           "Signature=34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7");
}

TEST(sigv4_aws_example_presigned_get)
{
    const struct sigv4_header h[] = { { "Host", EX_HOST } };
    const struct sigv4_request r = { "GET", "/test.txt", NULL, h, 1, NULL };
    struct buf q = BUF_INIT(4096);

    CHECK_INT(sigv4_presign(&r, &ex_creds, &ex_scope, 86400, &q), S3C_OK);
    CHECK_STR(buf_cstr(&q),
              "X-Amz-Algorithm=AWS4-HMAC-SHA256"
              "&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-east-1%2Fs3%2Faws4_request"
              "&X-Amz-Date=20130524T000000Z&X-Amz-Expires=86400&X-Amz-SignedHeaders=host"
              "&X-Amz-Signature=aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404");
    buf_release(&q);
}

TEST(sigv4_aws_example_chunked_upload)
{
    /* PUT examplebucket/chunkObject.txt: 65536 + 1024 bytes of 'a', 64 KiB chunks. */
    const struct sigv4_header h[] = {
        { "Host", "s3.amazonaws.com" },
        { "x-amz-date", "20130524T000000Z" },
        { "x-amz-storage-class", "REDUCED_REDUNDANCY" },
        { "x-amz-content-sha256", SIGV4_STREAMING_PAYLOAD },
        { "Content-Encoding", "aws-chunked" },
        { "x-amz-decoded-content-length", "66560" },
        { "Content-Length", "66824" },
    };
    const struct sigv4_request r = { "PUT", "/examplebucket/chunkObject.txt", NULL, h, 7,
                                     SIGV4_STREAMING_PAYLOAD };
    unsigned char key[SHA256_LEN];
    char seed[65], c1[65], c2[65], c3[65];
    char *data = malloc(65536);

    memset(data, 'a', 65536);
    CHECK_INT(sigv4_signature(&r, ex_creds.secret_key, &ex_scope, seed), S3C_OK);
    CHECK_STR(seed, "4f232c4386841ef735655705268965c44a0e4690baa4adea153f7db9fa80a0a9");
    sigv4_signing_key(ex_creds.secret_key, &ex_scope, key);
    sigv4_chunk_signature(key, &ex_scope, seed, data, 65536, c1);
    CHECK_STR(c1, "ad80c730a21e5b8d04586a2213dd63b9a0e99e0e2307b0ade35a65485a288648");
    sigv4_chunk_signature(key, &ex_scope, c1, data, 1024, c2);
    CHECK_STR(c2, "0055627c9e194cb4542bae2aa5492e3c1575bbb81b612b7d234b86a503ef5497");
    sigv4_chunk_signature(key, &ex_scope, c2, "", 0, c3);
    CHECK_STR(c3, "b6c6ea8a5354eaf15b3cb7646744f4275b71ea724fed81ceb9323e279d449df9");
    free(data);
}

TEST(sigv4_unsigned_payload_and_session_token)
{
    /* UNSIGNED-PAYLOAD replaces the hash in the canonical request's last line;
     * a session token is signed as the x-amz-security-token header. */
    const struct sigv4_header h[] = {
        { "host", "b.s3.amazonaws.com" },
        { "x-amz-content-sha256", SIGV4_UNSIGNED_PAYLOAD },
        { "x-amz-date", "20130524T000000Z" },
        { "x-amz-security-token", "TOKEN/+=" },
    };
    const struct sigv4_request r = { "PUT", "/k", NULL, h, 4, SIGV4_UNSIGNED_PAYLOAD };
    const struct sigv4_creds c = { "AK", "SK", "TOKEN/+=" };
    struct buf creq = BUF_INIT(4096), auth = BUF_INIT(4096), q = BUF_INIT(4096);
    const struct sigv4_header ph[] = { { "host", "b.s3.amazonaws.com" } };
    const struct sigv4_request pr = { "GET", "/k", NULL, ph, 1, NULL };

    CHECK_INT(sigv4_canonical_request(&r, &creq, NULL), S3C_OK);
    CHECK(strstr(buf_cstr(&creq), "x-amz-security-token:TOKEN/+=\n") != NULL);
    CHECK(strstr(buf_cstr(&creq), "\nUNSIGNED-PAYLOAD") != NULL);
    CHECK_INT(sigv4_authorization(&r, &c, &ex_scope, &auth), S3C_OK);
    CHECK(strstr(buf_cstr(&auth),
                 "SignedHeaders=host;x-amz-content-sha256;x-amz-date;x-amz-security-token") != NULL);
    CHECK(strstr(buf_cstr(&auth), "SK") == NULL);
    CHECK_INT(sigv4_presign(&pr, &c, &ex_scope, 60, &q), S3C_OK);
    CHECK(strstr(buf_cstr(&q), "&X-Amz-Security-Token=TOKEN%2F%2B%3D&") != NULL);
    buf_release(&creq);
    buf_release(&auth);
    buf_release(&q);
}

TEST(sigv4_query_and_header_canonicalization)
{
    /* Encoded and raw query values sign alike; header values are trimmed and
     * inner spaces folded; the empty path is "/". */
    const struct sigv4_header h[] = { { "Host", "h" }, { "X-Amz-Meta-A", "  a   b  " } };
    const struct sigv4_request r1 = { "GET", "", "prefix=a/b c&list-type=2", h, 2, "UNSIGNED-PAYLOAD" };
    const struct sigv4_request r2 = { "GET", "/", "list-type=2&prefix=a%2Fb%20c", h, 2, "UNSIGNED-PAYLOAD" };
    struct buf a = BUF_INIT(4096), b = BUF_INIT(4096);

    CHECK_INT(sigv4_canonical_request(&r1, &a, NULL), S3C_OK);
    CHECK_INT(sigv4_canonical_request(&r2, &b, NULL), S3C_OK);
    CHECK_STR(buf_cstr(&a), buf_cstr(&b));
    CHECK_STR(buf_cstr(&a), "GET\n/\nlist-type=2&prefix=a%2Fb%20c\nhost:h\nx-amz-meta-a:a b\n\n"
                            "host;x-amz-meta-a\nUNSIGNED-PAYLOAD");
    buf_release(&a);
    buf_release(&b);
}

TEST(sigv4_uri_encode_keys)
{
    struct buf b = BUF_INIT(4096);

    CHECK_INT(sigv4_uri_encode(sv_from("a b/ü+%#?~._-"), 1, &b), S3C_OK);
    CHECK_STR(buf_cstr(&b), "a%20b/%C3%BC%2B%25%23%3F~._-");
    buf_reset(&b);
    CHECK_INT(sigv4_uri_encode(sv_from("a/b"), 0, &b), S3C_OK);
    CHECK_STR(buf_cstr(&b), "a%2Fb");
    buf_release(&b);
}

/* More query parameters than SIGV4_MAX_PARAMS: an error, and those already
 * parsed are freed (the sanitizer build's leak check sees it). */
TEST(sigv4_too_many_query_params_refused_without_leak)
{
    const struct sigv4_header h[] = { { "Host", "h" } };
    struct buf q = BUF_INIT(1 << 16), out = BUF_INIT(1 << 16);
    struct sigv4_request r = { "GET", "/", NULL, h, 1, "UNSIGNED-PAYLOAD" };
    int i;

    for (i = 0; i < 130; i++) /* sigv4.c takes at most 128 */
        buf_addf(&q, "%sname%d=value%d", i ? "&" : "", i, i);
    r.query = buf_cstr(&q);
    CHECK(sigv4_canonical_request(&r, &out, NULL) != S3C_OK);
    buf_release(&q);
    buf_release(&out);
}
