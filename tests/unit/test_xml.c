/* s3/xml reply parsers against fixtures in tests/fixtures/xml. */
#include "t.h"

#include <stdlib.h>

#include "base/buf.h"
#include "s3/xml.h"

/* Read a fixture into 'b'; a missing fixture fails the test. */
static struct sv load(const char *name, struct buf *b)
{
    FILE *f = fopen(t_fixture(name), "rb");
    char chunk[4096];
    size_t n;

    buf_reset(b);
    if (!f) {
        t_fail(__FILE__, __LINE__, "cannot open fixture %s", name);
        return SV_NULL;
    }
    while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
        buf_add(b, chunk, n);
    fclose(f);
    return buf_sv(b);
}

#define BODY_INIT BUF_INIT(S3_XML_BODY_MAX_BYTES)

/* ---- Error ----------------------------------------------------------------- */

TEST(xml_error_aws_example)
{
    struct buf b = BODY_INIT;
    struct s3_error err = S3_ERROR_INIT;
    struct s3c_error e = S3C_ERROR_INIT;

    CHECK_INT(s3_parse_error(load("xml/error_nosuchkey.xml", &b), &err, &e), S3C_OK);
    CHECK(err.is_xml);
    CHECK_STR(err.code, "NoSuchKey");
    CHECK_STR(err.message, "The resource you requested does not exist");
    CHECK_STR(err.resource, "/mybucket/myfoto.jpg");
    CHECK_STR(err.request_id, "4442587FB7D0A2F9");
    CHECK_STR(err.region, "");
    CHECK_STR(err.bucket, "");
    CHECK_INT(s3_error_to_s3c(&err, 404, &e), S3C_ENOTFOUND);
    CHECK_INT(e.code, S3C_ENOTFOUND);
    CHECK_INT(e.http_status, 404);
    CHECK_STR(e.s3_code, "NoSuchKey");
    CHECK_STR(e.msg, "NoSuchKey: The resource you requested does not exist");
    s3_error_release(&err);
    CHECK(err.code == NULL && err.pool.head == NULL);
    buf_release(&b);
}

TEST(xml_error_ceph_empty_message)
{
    struct buf b = BODY_INIT;
    struct s3_error err = S3_ERROR_INIT;
    struct s3c_error e = S3C_ERROR_INIT;

    CHECK_INT(s3_parse_error(load("xml/error_ceph_empty_message.xml", &b), &err, &e), S3C_OK);
    CHECK(err.is_xml);
    CHECK_STR(err.code, "NoSuchBucket");
    CHECK_STR(err.message, "");
    CHECK_STR(err.bucket, "missing-bucket");
    CHECK_STR(err.host_id, "1064-default-default");
    CHECK_INT(s3_error_to_s3c(&err, 404, &e), S3C_ENOTFOUND);
    CHECK_STR(e.msg, "HTTP 404 NoSuchBucket");

    /* The same with <Message></Message>, and parsed into the used struct. */
    CHECK_INT(s3_parse_error(SV("<Error><Code>AccessDenied</Code><Message></Message></Error>"),
                             &err, &e), S3C_OK);
    CHECK_STR(err.code, "AccessDenied");
    CHECK_STR(err.message, "");
    CHECK_STR(err.bucket, "");
    CHECK_INT(s3_error_to_s3c(&err, 403, &e), S3C_EAUTH);
    s3_error_release(&err);
    buf_release(&b);
}

TEST(xml_error_without_xml_body)
{
    struct buf b = BODY_INIT;
    struct s3_error err = S3_ERROR_INIT;
    struct s3c_error e = S3C_ERROR_INIT;
    static const char *const bodies[] = {
        "", "   \r\n", "not xml at all", "<Error><Code>Cut", "<ListBucketResult/>",
        "<?xml version=\"1.0\"?>", "<Error></Error><Error></Error>",
    };
    size_t i;

    for (i = 0; i < sizeof(bodies) / sizeof(bodies[0]); i++) {
        CHECK_INT(s3_parse_error(sv_from(bodies[i]), &err, &e), S3C_OK);
        CHECK(!err.is_xml);
        CHECK_STR(err.code, "");
        CHECK_STR(err.message, "");
    }
    CHECK_INT(s3_parse_error(load("xml/error_html_proxy.html", &b), &err, &e), S3C_OK);
    CHECK(!err.is_xml);
    CHECK_STR(err.code, "");

    /* HEAD replies: the status alone decides. */
    CHECK_INT(s3_error_to_s3c(&err, 404, &e), S3C_ENOTFOUND);
    CHECK_STR(e.s3_code, "NotFound");
    CHECK_STR(e.msg, "HTTP 404 NotFound");
    CHECK_INT(s3_error_to_s3c(NULL, 403, &e), S3C_EAUTH);
    CHECK_STR(e.s3_code, "Forbidden");
    CHECK_INT(s3_error_to_s3c(NULL, 503, &e), S3C_EHTTP);
    CHECK_STR(e.s3_code, "ServiceUnavailable");
    CHECK_INT(s3_error_to_s3c(NULL, 599, &e), S3C_EHTTP);
    CHECK_STR(e.msg, "HTTP 599");
    s3_error_release(&err);
    buf_release(&b);
}

TEST(xml_error_redirect_and_region)
{
    struct buf b = BODY_INIT;
    struct s3_error err = S3_ERROR_INIT;
    struct s3c_error e = S3C_ERROR_INIT;

    CHECK_INT(s3_parse_error(load("xml/error_permanent_redirect.xml", &b), &err, &e), S3C_OK);
    CHECK_STR(err.code, "PermanentRedirect");
    CHECK_STR(err.endpoint, "amzn-s3-demo-bucket.s3.eu-west-1.amazonaws.com");
    CHECK_STR(err.bucket, "amzn-s3-demo-bucket");
    CHECK_INT(s3_error_to_s3c(&err, 301, &e), S3C_EHTTP);
    CHECK_STR(e.s3_code, "PermanentRedirect");

    CHECK_INT(s3_parse_error(load("xml/error_auth_header_malformed.xml", &b), &err, &e), S3C_OK);
    CHECK_STR(err.code, "AuthorizationHeaderMalformed");
    CHECK_STR(err.region, "us-west-2");
    CHECK_INT(s3_error_to_s3c(&err, 400, &e), S3C_EHTTP);
    s3_error_release(&err);
    buf_release(&b);
}

TEST(xml_error_keeps_no_credentials)
{
    struct buf b = BODY_INIT;
    struct s3_error err = S3_ERROR_INIT;
    struct s3c_error e = S3C_ERROR_INIT;
    const char *const *f;
    const char *const *fields[] = {
        &err.code, &err.message, &err.resource, &err.request_id, &err.host_id, &err.region,
        &err.endpoint, &err.bucket, &err.key, &err.version_id, &err.upload_id,
        &err.argument_name, &err.argument_value, &err.condition,
    };
    size_t i;

    CHECK_INT(s3_parse_error(load("xml/error_signature_mismatch.xml", &b), &err, &e), S3C_OK);
    CHECK_STR(err.code, "SignatureDoesNotMatch");
    CHECK_STR(err.request_id, "4442587FB7D0A2F9");
    for (i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
        f = fields[i];
        CHECK(*f != NULL);
        CHECK(!strstr(*f, "AKIA") && !strstr(*f, "AWS4-HMAC") && !strstr(*f, "x-amz-date"));
    }
    CHECK_INT(s3_error_to_s3c(&err, 403, &e), S3C_EAUTH);
    CHECK(!strchr(e.msg, '\n'));
    s3_error_release(&err);
    buf_release(&b);
}

/* ---- ListBuckets ------------------------------------------------------------- */

TEST(xml_list_buckets)
{
    struct buf b = BODY_INIT;
    struct s3_list_buckets r = S3_LIST_BUCKETS_INIT;
    struct s3c_error e = S3C_ERROR_INIT;

    CHECK_INT(s3_parse_list_buckets(load("xml/list_buckets.xml", &b), &r, &e), S3C_OK);
    CHECK_INT(r.n_buckets, 2);
    CHECK_STR(r.owner_id, "bcaf1ffd86f461ca5fb16fd081034f");
    CHECK_STR(r.owner_name, "webfile");
    CHECK_STR(r.continuation_token, "eyJDb250aW51YXRpb25Ub2tlbiI6IjIifQ==");
    CHECK_STR(r.prefix, "");
    if (r.n_buckets == 2) {
        CHECK_STR(r.buckets[0].name, "amzn-s3-demo-bucket");
        CHECK_STR(r.buckets[0].creation_date, "2019-12-11T23:32:47+00:00");
        CHECK_INT(r.buckets[0].creation_epoch, 1576107167);
        CHECK_STR(r.buckets[0].region, "");
        CHECK_STR(r.buckets[1].name, "amzn-s3-demo-bucket2");
        CHECK_INT(r.buckets[1].creation_epoch, 1138984918);
        CHECK_STR(r.buckets[1].region, "eu-west-1");
    }
    s3_list_buckets_release(&r);
    CHECK(r.buckets == NULL && r.n_buckets == 0);
    buf_release(&b);
}

/* ---- ListObjects --------------------------------------------------------------- */

TEST(xml_list_objects_v2)
{
    struct buf b = BODY_INIT;
    struct s3_list_objects r = S3_LIST_OBJECTS_INIT;
    struct s3c_error e = S3C_ERROR_INIT;

    CHECK_INT(s3_parse_list_objects(load("xml/list_objects_v2.xml", &b), &r, &e), S3C_OK);
    CHECK_STR(r.name, "bucket");
    CHECK_STR(r.prefix, "");
    CHECK_INT(r.key_count, 2);
    CHECK_INT(r.max_keys, 1000);
    CHECK(!r.is_truncated);
    CHECK_STR(r.next_continuation_token, "");
    CHECK_STR(r.encoding_type, "");
    CHECK_INT(r.n_prefixes, 0);
    CHECK_INT(r.n_objects, 2);
    if (r.n_objects == 2) {
        CHECK_STR(r.objects[0].key, "my-image.jpg");
        CHECK_STR(r.objects[0].last_modified, "2009-10-12T17:50:30.000Z");
        CHECK_INT(r.objects[0].mtime_epoch, 1255369830);
        CHECK_STR(r.objects[0].etag, "\"fba9dede5f27731c9771645a39863328\"");
        CHECK_INT(r.objects[0].size, 434234);
        CHECK_STR(r.objects[0].storage_class, "STANDARD");
        CHECK_STR(r.objects[0].owner_id, "");
        CHECK_STR(r.objects[0].checksum_algorithm, "");
        CHECK_STR(r.objects[1].key, "my-third-image.jpg");
        CHECK_INT(r.objects[1].size, 64994);
        CHECK_STR(r.objects[1].storage_class, "STANDARD_IA");
        CHECK_STR(r.objects[1].checksum_algorithm, "CRC64NVME");
        CHECK_STR(r.objects[1].checksum_type, "FULL_OBJECT");
    }
    CHECK_STR(s3_list_objects_next_marker(&r), "");
    s3_list_objects_release(&r);
    buf_release(&b);
}

TEST(xml_list_objects_v2_truncated_page)
{
    struct buf b = BODY_INIT;
    struct s3_list_objects r = S3_LIST_OBJECTS_INIT;
    struct s3c_error e = S3C_ERROR_INIT;

    CHECK_INT(s3_parse_list_objects(load("xml/list_objects_v2_truncated.xml", &b), &r, &e),
              S3C_OK);
    CHECK(r.is_truncated);
    CHECK_STR(r.start_after, "ExampleGuide.pdf");
    CHECK_STR(r.continuation_token, "1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM=");
    CHECK_STR(r.next_continuation_token, "1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwN=");
    CHECK_INT(r.n_objects, 1);
    if (r.n_objects == 1) {
        CHECK_STR(r.objects[0].key, "ExampleObject.txt");
        CHECK_INT(r.objects[0].mtime_epoch, 1379441273);
        CHECK_STR(r.objects[0].owner_id,
                  "75aa57f09aa0c8caeab4f8c24e99d10f8e7faeebf76c078efc7c6caea54ba06a");
        CHECK_STR(r.objects[0].owner_name, "mtd@amazon.com");
        CHECK_STR(r.objects[0].storage_class, "REDUCED_REDUNDANCY");
    }
    s3_list_objects_release(&r);
    buf_release(&b);
}

TEST(xml_list_objects_v1_delimiter)
{
    struct buf b = BODY_INIT;
    struct s3_list_objects r = S3_LIST_OBJECTS_INIT;
    struct s3c_error e = S3C_ERROR_INIT;

    CHECK_INT(s3_parse_list_objects(load("xml/list_objects_v1_delimiter.xml", &b), &r, &e),
              S3C_OK);
    CHECK_STR(r.prefix, "photos/2006/");
    CHECK_STR(r.delimiter, "/");
    CHECK_STR(r.marker, "");
    CHECK_STR(r.next_marker, "photos/2006/feb/");
    CHECK_INT(r.n_objects, 1);
    CHECK_INT(r.n_prefixes, 2);
    if (r.n_objects == 1)
        CHECK_STR(r.objects[0].etag, "\"bf1d737a4d46a19f3bced6905cc8b902\"");
    if (r.n_prefixes == 2) {
        CHECK_STR(r.prefixes[0], "photos/2006/February/");
        CHECK_STR(r.prefixes[1], "photos/2006/January/");
    }
    CHECK_STR(s3_list_objects_next_marker(&r), "photos/2006/feb/");
    s3_list_objects_release(&r);
    buf_release(&b);
}

TEST(xml_list_objects_ceph_v1_marker)
{
    struct buf b = BODY_INIT;
    struct s3_list_objects r = S3_LIST_OBJECTS_INIT;
    struct s3c_error e = S3C_ERROR_INIT;

    CHECK_INT(s3_parse_list_objects(load("xml/list_objects_ceph_v1.xml", &b), &r, &e), S3C_OK);
    CHECK_INT(r.n_objects, 2);
    CHECK(r.is_truncated);
    if (r.n_objects == 2) {
        CHECK_STR(r.objects[1].key, "b/c.bin");
        CHECK_INT(r.objects[1].size, 10485761);
        CHECK_STR(r.objects[1].etag, "\"9b2cf535f27731c974343645a3985328-2\"");
        CHECK_STR(r.objects[0].owner_name, "M. Tester");
    }
    /* No NextMarker without a delimiter: the last key is the marker. */
    CHECK_STR(s3_list_objects_next_marker(&r), "b/c.bin");
    s3_list_objects_release(&r);
    buf_release(&b);
}

TEST(xml_list_objects_url_encoded)
{
    struct buf b = BODY_INIT;
    struct s3_list_objects r = S3_LIST_OBJECTS_INIT;
    struct s3c_error e = S3C_ERROR_INIT;

    CHECK_INT(s3_parse_list_objects(load("xml/list_objects_v2_url.xml", &b), &r, &e), S3C_OK);
    CHECK_STR(r.encoding_type, "url");
    CHECK_STR(r.prefix, "dir \xc3\xa9/");
    CHECK_STR(r.delimiter, "/");
    CHECK_STR(r.start_after, "dir \xc3\xa9/a b");
    /* Tokens are opaque: never decoded. */
    CHECK_STR(r.continuation_token, "tok+en/with%2Bplus=");
    CHECK_STR(r.next_continuation_token, "next+tok%2B=");
    CHECK_STR(r.name, "bucket");
    CHECK_INT(r.n_objects, 5);
    if (r.n_objects == 5) {
        CHECK_STR(r.objects[0].key, "dir \xc3\xa9/a b+c%d.txt");
        CHECK_STR(r.objects[1].key, "dir \xc3\xa9/\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e.txt");
        CHECK_STR(r.objects[2].key, "dir \xc3\xa9/ctl\x01\r\nline");
        CHECK_STR(r.objects[3].key, "dir \xc3\xa9/raw-slash &<>");
        CHECK_STR(r.objects[4].key, "dir \xc3\xa9/\xf0\x9f\x98\x80 emoji");
        CHECK_INT(r.objects[0].mtime_epoch, 1704164645);
        CHECK_INT(r.objects[1].mtime_epoch, 1704164645);
        CHECK_INT(r.objects[2].mtime_epoch, 1704164645);
        CHECK_INT(r.objects[3].mtime_epoch, 1704164645);
        CHECK_STR(r.objects[0].etag, "\"c4ca4238a0b923820dcc509a6f75849b\"");
    }
    CHECK_INT(r.n_prefixes, 1);
    if (r.n_prefixes == 1)
        CHECK_STR(r.prefixes[0], "dir \xc3\xa9/sub dir/");
    s3_list_objects_release(&r);
    buf_release(&b);
}

TEST(xml_list_objects_not_encoded_keeps_percent)
{
    struct s3_list_objects r = S3_LIST_OBJECTS_INIT;
    struct s3c_error e = S3C_ERROR_INIT;

    /* Without EncodingType the text is the key, '+' and '%' included. */
    CHECK_INT(s3_parse_list_objects(SV("<ListBucketResult><Contents><Key>a+b%20c</Key>"
                                       "</Contents></ListBucketResult>"), &r, &e), S3C_OK);
    CHECK_INT(r.n_objects, 1);
    if (r.n_objects == 1)
        CHECK_STR(r.objects[0].key, "a+b%20c");
    s3_list_objects_release(&r);
}

TEST(xml_list_objects_bad_url_encoding)
{
    struct s3_list_objects r = S3_LIST_OBJECTS_INIT;
    struct s3c_error e = S3C_ERROR_INIT;

    CHECK_INT(s3_parse_list_objects(SV("<ListBucketResult><EncodingType>url</EncodingType>"
                                       "<Contents><Key>a%zz</Key></Contents></ListBucketResult>"),
                                    &r, &e), S3C_EPARSE);
    CHECK(strstr(e.msg, "URL encoding") && strstr(e.msg, "<Key>"));
    /* %00 in a page-level field (a marker) would cut a C string short: refused. */
    CHECK_INT(s3_parse_list_objects(SV("<ListBucketResult><EncodingType>url</EncodingType>"
                                       "<StartAfter>a%00b</StartAfter></ListBucketResult>"),
                                    &r, &e), S3C_EPARSE);
    CHECK_INT(s3_parse_list_objects(SV("<ListBucketResult><EncodingType>url</EncodingType>"
                                       "<Contents><Key>a%4</Key></Contents></ListBucketResult>"),
                                    &r, &e), S3C_EPARSE);
    s3_list_objects_release(&r);
}

/* A key holding a NUL is one entry the listers skip, never a page that fails
 * nor a key cut short: "" then its encoded form, its siblings decoded. */
TEST(xml_list_objects_nul_key_marked_not_cut)
{
    struct s3_list_objects r = S3_LIST_OBJECTS_INIT;
    struct s3c_error e = S3C_ERROR_INIT;

    CHECK_INT(s3_parse_list_objects(SV("<ListBucketResult><EncodingType>url</EncodingType>"
                                       "<Contents><Key>a%20b</Key></Contents>"
                                       "<Contents><Key>a%00b%2B</Key></Contents>"
                                       "<CommonPrefixes><Prefix>p%00/</Prefix></CommonPrefixes>"
                                       "<Contents><Key>c</Key></Contents></ListBucketResult>"),
                                    &r, &e), S3C_OK);
    CHECK_INT(r.n_objects, 3);
    CHECK_INT(r.n_prefixes, 1);
    if (r.n_objects == 3 && r.n_prefixes == 1) {
        CHECK_STR(r.objects[0].key, "a b");
        CHECK_STR(r.objects[1].key, "");
        CHECK_STR(r.objects[1].key + 1, "a%00b%2B");
        CHECK_STR(r.objects[2].key, "c");
        CHECK_STR(r.prefixes[0], "");
        CHECK_STR(r.prefixes[0] + 1, "p%00/");
    }
    s3_list_objects_release(&r);
}

TEST(xml_list_objects_prefixed_namespace_cdata_entities)
{
    struct buf b = BODY_INIT;
    struct s3_list_objects r = S3_LIST_OBJECTS_INIT;
    struct s3c_error e = S3C_ERROR_INIT;

    CHECK_INT(s3_parse_list_objects(load("xml/prefixed_namespace.xml", &b), &r, &e), S3C_OK);
    CHECK_STR(r.name, "bucket");
    CHECK_INT(r.n_objects, 2);
    if (r.n_objects == 2) {
        CHECK_STR(r.objects[0].key, "k&<> x");
        CHECK_INT(r.objects[0].size, 7);
        CHECK_INT(r.objects[0].mtime_epoch, 1709251199);
        CHECK_STR(r.objects[1].key, "cdata <key> & more");
        CHECK_STR(r.objects[1].last_modified, "");
        CHECK_INT(r.objects[1].mtime_epoch, 0);
    }
    s3_list_objects_release(&r);
    buf_release(&b);
}

TEST(xml_list_objects_bad_values)
{
    struct s3_list_objects r = S3_LIST_OBJECTS_INIT;
    struct s3c_error e = S3C_ERROR_INIT;

    CHECK_INT(s3_parse_list_objects(SV("<ListBucketResult><Contents><Key>a</Key><Size>12a</Size>"
                                       "</Contents></ListBucketResult>"), &r, &e), S3C_EPARSE);
    CHECK(strstr(e.msg, "<Size>") && strstr(e.msg, "12a"));
    CHECK_INT(s3_parse_list_objects(SV("<ListBucketResult><IsTruncated>yes</IsTruncated>"
                                       "</ListBucketResult>"), &r, &e), S3C_EPARSE);
    CHECK(strstr(e.msg, "<IsTruncated>"));
    CHECK_INT(s3_parse_list_objects(SV("<ListBucketResult><Contents><Key>a</Key><LastModified>"
                                       "yesterday</LastModified></Contents></ListBucketResult>"),
                                    &r, &e), S3C_EPARSE);
    CHECK(strstr(e.msg, "<LastModified>"));
    CHECK_INT(s3_parse_list_objects(SV("<ListBucketResult><Contents><Key>a</Key><LastModified/>"
                                       "</Contents></ListBucketResult>"), &r, &e), S3C_OK);
    CHECK_INT(r.n_objects, 1);
    if (r.n_objects == 1)
        CHECK_INT(r.objects[0].mtime_epoch, 0);
    CHECK_INT(s3_parse_list_objects(SV("<ListBucketResult><Contents><Size>1</Size></Contents>"
                                       "</ListBucketResult>"), &r, &e), S3C_EPARSE);
    CHECK_STR(e.msg, "<Contents> without <Key>");
    CHECK_INT(s3_parse_list_objects(SV("<ListBucketResult><Contents><Key>a</Key><Size>"
                                       "99999999999999999999</Size></Contents></ListBucketResult>"),
                                    &r, &e), S3C_EPARSE);
    /* Untrusted text in a message stays on one line. */
    CHECK_INT(s3_parse_list_objects(SV("<ListBucketResult><MaxKeys>1\n2</MaxKeys>"
                                       "</ListBucketResult>"), &r, &e), S3C_EPARSE);
    CHECK(!strchr(e.msg, '\n'));
    /* Even after failures the struct is whole: strings set, safe to release. */
    CHECK(r.name != NULL);
    s3_list_objects_release(&r);
}

/* A ListObjectsV2 page of 'n' keys, as S3 writes it. */
static void make_page(struct buf *b, int n)
{
    int i;

    buf_reset(b);
    buf_adds(b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<ListBucketResult xmlns=\""
                S3_XML_NS "\"><Name>big</Name><Prefix>p/</Prefix><KeyCount>");
    buf_addf(b, "%d</KeyCount><MaxKeys>1000</MaxKeys><IsTruncated>true</IsTruncated>", n);
    for (i = 0; i < n; i++)
        buf_addf(b, "<Contents><Key>p/key-%06d &amp; more</Key><LastModified>2024-01-02T03:04:"
                    "05.000Z</LastModified><ETag>&quot;%032d&quot;</ETag><Size>%d</Size>"
                    "<StorageClass>STANDARD</StorageClass></Contents>",
                 i, i, i * 7);
    buf_adds(b, "<NextContinuationToken>next</NextContinuationToken></ListBucketResult>");
}

TEST(xml_list_objects_page_of_1000_streamed)
{
    static const size_t chunks[] = { 1, 7, 100, 4096, 1 << 20 };
    struct buf b = BODY_INIT;
    struct s3_list_objects r = S3_LIST_OBJECTS_INIT;
    struct s3c_error e = S3C_ERROR_INIT;
    char want[64];
    size_t c, off;
    int i;

    make_page(&b, 1000);
    for (c = 0; c < sizeof(chunks) / sizeof(chunks[0]); c++) {
        struct s3_xml_stream *st = s3_xml_stream_new(S3_REPLY_LIST_OBJECTS, &r, NULL);
        enum s3c_err rc = S3C_OK;

        CHECK(st != NULL);
        if (!st)
            break;
        for (off = 0; off < b.len && !rc; off += chunks[c])
            rc = s3_xml_stream_feed(st, b.data + off,
                                    b.len - off < chunks[c] ? b.len - off : chunks[c], &e);
        if (!rc)
            rc = s3_xml_stream_finish(st, &e);
        s3_xml_stream_free(st);
        CHECK_INT(rc, S3C_OK);
        CHECK_INT(r.n_objects, 1000);
        CHECK_INT(r.key_count, 1000);
        CHECK_STR(r.next_continuation_token, "next");
        for (i = 0; i < (int)r.n_objects; i++) {
            snprintf(want, sizeof(want), "p/key-%06d & more", i);
            if (strcmp(r.objects[i].key, want) != 0 || r.objects[i].size != (uint64_t)i * 7 ||
                r.objects[i].mtime_epoch != 1704164645 || strlen(r.objects[i].etag) != 34) {
                t_fail(__FILE__, __LINE__, "chunk %zu: entry %d is [%s] %llu", chunks[c], i,
                       r.objects[i].key, (unsigned long long)r.objects[i].size);
                break;
            }
        }
    }
    s3_list_objects_release(&r);
    buf_release(&b);
}

/* ---- ListObjectVersions ----------------------------------------------------------- */

TEST(xml_list_versions)
{
    struct buf b = BODY_INIT;
    struct s3_list_versions r = S3_LIST_VERSIONS_INIT;
    struct s3c_error e = S3C_ERROR_INIT;

    CHECK_INT(s3_parse_list_versions(load("xml/list_versions.xml", &b), &r, &e), S3C_OK);
    CHECK_STR(r.name, "bucket");
    CHECK_STR(r.prefix, "my");
    CHECK_STR(r.key_marker, "");
    CHECK_STR(r.next_key_marker, "my-second-image.jpg");
    CHECK_STR(r.next_version_id_marker, "03jpff543dhffds434rfdsFDN943fdsFkdmqnh892");
    CHECK_INT(r.max_keys, 5);
    CHECK(r.is_truncated);
    CHECK_INT(r.n_versions, 4);
    if (r.n_versions == 4) {
        CHECK(!r.versions[0].is_delete_marker);
        CHECK(r.versions[0].is_latest);
        CHECK_STR(r.versions[0].key, "my-image.jpg");
        CHECK_STR(r.versions[0].version_id, "3/L4kqtJl40Nr8X8gdRQBpUMLUo");
        CHECK_INT(r.versions[0].size, 434234);
        CHECK(r.versions[1].is_delete_marker);
        CHECK(r.versions[1].is_latest);
        CHECK_STR(r.versions[1].key, "my-second-image.jpg");
        CHECK_STR(r.versions[1].etag, "");
        CHECK_INT(r.versions[1].size, 0);
        CHECK_INT(r.versions[1].mtime_epoch, 1258048230);
        CHECK_STR(r.versions[1].owner_name, "mtd@amazon.com");
        CHECK(!r.versions[2].is_delete_marker);
        CHECK(!r.versions[2].is_latest);
        CHECK_STR(r.versions[2].etag, "\"9b2cf535f27731c974343645a3985328\"");
        CHECK_STR(r.versions[3].version_id, "null");
        CHECK_STR(r.versions[3].owner_id, "");
    }
    s3_list_versions_release(&r);
    buf_release(&b);
}

TEST(xml_list_versions_url_encoded)
{
    struct s3_list_versions r = S3_LIST_VERSIONS_INIT;
    struct s3c_error e = S3C_ERROR_INIT;

    CHECK_INT(s3_parse_list_versions(
                  SV("<ListVersionsResult><EncodingType>url</EncodingType>"
                     "<KeyMarker>a+b</KeyMarker><NextKeyMarker>c%2Bd</NextKeyMarker>"
                     "<NextVersionIdMarker>v+1</NextVersionIdMarker>"
                     "<DeleteMarker><Key>x%20y</Key><VersionId>v+2</VersionId></DeleteMarker>"
                     "<Version><Key>z+</Key><VersionId>v3</VersionId></Version>"
                     "</ListVersionsResult>"), &r, &e), S3C_OK);
    CHECK_STR(r.key_marker, "a b");
    CHECK_STR(r.next_key_marker, "c+d");
    CHECK_STR(r.next_version_id_marker, "v+1");
    CHECK_INT(r.n_versions, 2);
    if (r.n_versions == 2) {
        CHECK_STR(r.versions[0].key, "x y");
        CHECK_STR(r.versions[0].version_id, "v+2");
        CHECK(r.versions[0].is_delete_marker);
        CHECK_STR(r.versions[1].key, "z ");
        CHECK(!r.versions[1].is_delete_marker);
    }
    s3_list_versions_release(&r);
}

/* ---- multipart -------------------------------------------------------------------------- */

TEST(xml_initiate_multipart)
{
    struct buf b = BODY_INIT;
    struct s3_initiate_multipart r = S3_INITIATE_MULTIPART_INIT;
    struct s3c_error e = S3C_ERROR_INIT;

    CHECK_INT(s3_parse_initiate_multipart(load("xml/initiate_multipart.xml", &b), &r, &e), S3C_OK);
    CHECK_STR(r.bucket, "example-bucket");
    CHECK_STR(r.key, "example-object");
    CHECK_STR(r.upload_id, "VXBsb2FkIElEIGZvciA2aWWpbmcncyBteS1tb3ZpZS5tMnRzIHVwbG9hZA");
    CHECK_INT(s3_parse_initiate_multipart(SV("<InitiateMultipartUploadResult><Bucket>b</Bucket>"
                                             "</InitiateMultipartUploadResult>"), &r, &e),
              S3C_EPARSE);
    CHECK_STR(e.msg, "<InitiateMultipartUploadResult> without <UploadId>");
    CHECK_INT(s3_parse_initiate_multipart(SV(""), &r, &e), S3C_EPARSE);
    CHECK(strstr(e.msg, "empty reply body"));
    s3_initiate_multipart_release(&r);
    buf_release(&b);
}

TEST(xml_complete_multipart)
{
    struct buf b = BODY_INIT;
    struct s3_complete_multipart r = S3_COMPLETE_MULTIPART_INIT;
    struct s3c_error e = S3C_ERROR_INIT;

    CHECK_INT(s3_parse_complete_multipart(load("xml/complete_multipart.xml", &b), &r, &e), S3C_OK);
    CHECK_STR(r.location, "http://Example-Bucket.s3.region.amazonaws.com/Example-Object");
    CHECK_STR(r.bucket, "Example-Bucket");
    CHECK_STR(r.key, "Example-Object");
    CHECK_STR(r.etag, "\"3858f62230ac3c915f300c664312c11f-9\"");
    CHECK_STR(r.checksums.crc64nvme, "Bx2Hbj3nkJk=");
    CHECK_STR(r.checksums.type, "FULL_OBJECT");
    CHECK_STR(r.checksums.crc32, "");
    CHECK_INT(s3_xml_body_kind(buf_sv(&b)), S3_BODY_RESULT);

    /* White space ahead of the XML declaration, as S3 pads a slow reply. */
    CHECK_INT(s3_parse_complete_multipart(load("xml/complete_multipart_leading_space.xml", &b),
                                          &r, &e), S3C_OK);
    CHECK_STR(r.key, "k");
    CHECK_INT(s3_xml_body_kind(buf_sv(&b)), S3_BODY_RESULT);
    s3_complete_multipart_release(&r);
    buf_release(&b);
}

TEST(xml_complete_multipart_error_in_200)
{
    struct buf b = BODY_INIT;
    struct s3_complete_multipart r = S3_COMPLETE_MULTIPART_INIT;
    struct s3c_error e = S3C_ERROR_INIT;

    load("xml/complete_multipart_error_200.xml", &b);
    CHECK_INT(s3_xml_body_kind(buf_sv(&b)), S3_BODY_ERROR);
    CHECK_INT(s3_parse_complete_multipart(buf_sv(&b), &r, &e), S3C_EHTTP);
    CHECK_INT(e.code, S3C_EHTTP);
    CHECK_STR(e.s3_code, "InternalError");
    CHECK_STR(e.msg, "InternalError: We encountered an internal error. Please try again.");
    CHECK_STR(r.etag, "");
    CHECK_STR(r.location, "");

    CHECK_INT(s3_xml_body_kind(SV("")), S3_BODY_EMPTY);
    CHECK_INT(s3_xml_body_kind(SV(" \n ")), S3_BODY_EMPTY);
    CHECK_INT(s3_xml_body_kind(load("xml/malformed_truncated.xml", &b)), S3_BODY_MALFORMED);
    CHECK_INT(s3_xml_body_kind(load("xml/entity_bomb.xml", &b)), S3_BODY_MALFORMED);
    CHECK_INT(s3_xml_body_kind(SV("<s3:Error xmlns:s3=\"" S3_XML_NS "\"/>")), S3_BODY_ERROR);
    CHECK_INT(s3_xml_body_kind(SV("<CopyObjectResult><Error/></CopyObjectResult>")),
              S3_BODY_RESULT);
    s3_complete_multipart_release(&r);
    buf_release(&b);
}

TEST(xml_copy_results)
{
    struct buf b = BODY_INIT;
    struct s3_copy_result r = S3_COPY_RESULT_INIT;
    struct s3c_error e = S3C_ERROR_INIT;

    /* The API reference's example has no zone on LastModified: UTC. */
    CHECK_INT(s3_parse_copy_result(load("xml/copy_object.xml", &b), &r, &e), S3C_OK);
    CHECK_STR(r.etag, "\"9b2cf535f27731c974343645a3985328\"");
    CHECK_STR(r.last_modified, "2009-10-28T22:32:00");
    CHECK_INT(r.mtime_epoch, 1256769120);
    CHECK_INT(s3_parse_copy_result(load("xml/copy_part.xml", &b), &r, &e), S3C_OK);
    CHECK_INT(r.mtime_epoch, 1302554096);
    CHECK_STR(r.checksums.crc32c, "yZRlqg==");
    CHECK_INT(s3_parse_copy_result(SV("<CopyObjectResult></CopyObjectResult>"), &r, &e),
              S3C_EPARSE);
    CHECK_INT(s3_parse_copy_result(SV("<Error><Code>SlowDown</Code><Message>Reduce your\n"
                                      "request rate.</Message></Error>"), &r, &e), S3C_EHTTP);
    CHECK_STR(e.s3_code, "SlowDown");
    CHECK_STR(e.msg, "SlowDown: Reduce your request rate.");
    CHECK_STR(r.etag, "");
    s3_copy_result_release(&r);
    buf_release(&b);
}

TEST(xml_tagging)
{
    struct buf b = BODY_INIT, h = BUF_INIT(4096);
    struct s3_tagging r = S3_TAGGING_INIT;
    struct s3c_error e = S3C_ERROR_INIT;

    CHECK_INT(s3_parse_tagging(load("xml/tagging.xml", &b), &r, &e), S3C_OK);
    CHECK_INT(r.n_tags, 2);
    CHECK_STR(r.tags[0].key, "t1");
    CHECK_STR(r.tags[0].value, "v1");
    CHECK_STR(r.tags[1].key, "a b&c");
    CHECK_STR(r.tags[1].value, "");
    /* Back as x-amz-tagging: RFC 3986 percent-encoding, '&' between tags. */
    CHECK_INT(s3_tagging_header(&r, &h), S3C_OK);
    CHECK_STR(buf_cstr(&h), "t1=v1&a%20b%26c=");
    CHECK_INT(s3_parse_tagging(SV("<Tagging><TagSet/></Tagging>"), &r, &e), S3C_OK);
    CHECK_INT(r.n_tags, 0);
    buf_reset(&h);
    CHECK_INT(s3_tagging_header(&r, &h), S3C_OK);
    CHECK_STR(buf_cstr(&h), "");
    /* A tag without its key is malformed. */
    CHECK_INT(s3_parse_tagging(SV("<Tagging><TagSet><Tag><Value>v</Value></Tag></TagSet></Tagging>"), &r, &e),
              S3C_EPARSE);
    CHECK_INT(s3_parse_tagging(SV("<ListBucketResult/>"), &r, &e), S3C_EPARSE);
    s3_tagging_release(&r);
    buf_release(&h);
    buf_release(&b);
}

TEST(xml_list_parts)
{
    struct buf b = BODY_INIT;
    struct s3_list_parts r = S3_LIST_PARTS_INIT;
    struct s3c_error e = S3C_ERROR_INIT;

    CHECK_INT(s3_parse_list_parts(load("xml/list_parts.xml", &b), &r, &e), S3C_OK);
    CHECK_STR(r.bucket, "example-bucket");
    CHECK_STR(r.upload_id, "XXBsb2FkIElEIGZvciBlbHZpbmcncyVcdS1tb3ZpZS5tMnRzEEEwbG9hZA");
    CHECK_STR(r.storage_class, "STANDARD");
    CHECK(r.is_truncated);
    CHECK_INT(r.part_number_marker, 1);
    CHECK_INT(r.next_part_number_marker, 3);
    CHECK_INT(r.max_parts, 2);
    CHECK_INT(r.n_parts, 2);
    if (r.n_parts == 2) {
        CHECK_INT(r.parts[0].number, 2);
        CHECK_STR(r.parts[0].etag, "\"7778aef83f66abc1fa1e8477f296d394\"");
        CHECK_INT(r.parts[0].size, 10485760);
        CHECK_INT(r.parts[0].mtime_epoch, 1289422114);
        CHECK_STR(r.parts[0].checksums.crc32, "");
        CHECK_INT(r.parts[1].number, 3);
        CHECK_STR(r.parts[1].checksums.crc32, "AAAAAA==");
        CHECK_STR(r.parts[1].checksums.sha256, "47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=");
    }
    CHECK_INT(s3_parse_list_parts(SV("<ListPartsResult><Part><PartNumber>4294967296</PartNumber>"
                                     "<ETag>x</ETag></Part></ListPartsResult>"), &r, &e),
              S3C_EPARSE);
    CHECK_INT(s3_parse_list_parts(SV("<ListPartsResult><Part><ETag>x</ETag></Part>"
                                     "</ListPartsResult>"), &r, &e), S3C_EPARSE);
    CHECK_STR(e.msg, "<Part> without <PartNumber>");
    s3_list_parts_release(&r);
    buf_release(&b);
}

TEST(xml_list_uploads)
{
    struct buf b = BODY_INIT;
    struct s3_list_uploads r = S3_LIST_UPLOADS_INIT;
    struct s3c_error e = S3C_ERROR_INIT;

    CHECK_INT(s3_parse_list_uploads(load("xml/list_uploads.xml", &b), &r, &e), S3C_OK);
    CHECK_STR(r.bucket, "bucket");
    CHECK_STR(r.next_key_marker, "my-movie.m2ts");
    CHECK_STR(r.next_upload_id_marker, "YW55IGlkZWEgd2h5IGVsdmluZydzIHVwbG9hZCBmYWlsZWQ");
    CHECK_INT(r.max_uploads, 3);
    CHECK(r.is_truncated);
    CHECK_INT(r.n_uploads, 2);
    if (r.n_uploads == 2) {
        CHECK_STR(r.uploads[0].key, "my-divisor");
        CHECK_STR(r.uploads[0].upload_id, "XMgbGlrZSBlbHZpbmcncyBub3QgaGF2aW5nIG11Y2ggbHVjaw");
        CHECK_STR(r.uploads[0].initiated, "2010-11-10T20:48:33.000Z");
        CHECK_INT(r.uploads[0].initiated_epoch, 1289422113);
        CHECK_STR(r.uploads[1].checksum_algorithm, "CRC64NVME");
    }
    CHECK_INT(s3_parse_list_uploads(SV("<ListMultipartUploadsResult><EncodingType>url"
                                       "</EncodingType><Upload><Key>a%2Fb+c</Key><UploadId>u+1"
                                       "</UploadId></Upload><CommonPrefixes><Prefix>d+%2F"
                                       "</Prefix></CommonPrefixes></ListMultipartUploadsResult>"),
                                    &r, &e), S3C_OK);
    CHECK_INT(r.n_uploads, 1);
    CHECK_INT(r.n_prefixes, 1);
    if (r.n_uploads == 1 && r.n_prefixes == 1) {
        CHECK_STR(r.uploads[0].key, "a/b c");
        CHECK_STR(r.uploads[0].upload_id, "u+1");
        CHECK_STR(r.prefixes[0], "d /");
    }
    s3_list_uploads_release(&r);
    buf_release(&b);
}

/* ---- DeleteObjects, location -------------------------------------------------------- */

TEST(xml_delete_result)
{
    struct buf b = BODY_INIT;
    struct s3_delete_result r = S3_DELETE_RESULT_INIT;
    struct s3c_error e = S3C_ERROR_INIT;

    CHECK_INT(s3_parse_delete_result(load("xml/delete_result.xml", &b), &r, &e), S3C_OK);
    CHECK_INT(r.n_deleted, 3);
    CHECK_INT(r.n_errors, 1);
    if (r.n_deleted == 3) {
        CHECK_STR(r.deleted[0].key, "sample1.txt");
        CHECK_STR(r.deleted[0].version_id, "");
        CHECK(!r.deleted[0].delete_marker);
        CHECK_STR(r.deleted[1].version_id, "OYcLXagmS.WaD..oyH4KRguB95_YhLs7");
        CHECK(r.deleted[2].delete_marker);
        CHECK_STR(r.deleted[2].delete_marker_version_id, "NeQt5xeFTfgPJD8B4CGWnkSLtluMr11s");
    }
    if (r.n_errors == 1) {
        CHECK_STR(r.errors[0].key, "sample2.txt");
        CHECK_STR(r.errors[0].code, "AccessDenied");
        CHECK_STR(r.errors[0].message, "Access Denied");
    }
    /* Quiet mode with nothing failed. */
    CHECK_INT(s3_parse_delete_result(SV("<DeleteResult xmlns=\"" S3_XML_NS "\"/>"), &r, &e),
              S3C_OK);
    CHECK_INT(r.n_deleted, 0);
    CHECK_INT(r.n_errors, 0);
    s3_delete_result_release(&r);
    buf_release(&b);
}

TEST(xml_location)
{
    struct buf b = BODY_INIT;
    struct s3_location r = S3_LOCATION_INIT;
    struct s3c_error e = S3C_ERROR_INIT;

    CHECK_INT(s3_parse_location(load("xml/location_empty.xml", &b), &r, &e), S3C_OK);
    CHECK_STR(r.raw, "");
    CHECK_STR(r.region, "us-east-1");
    CHECK_INT(s3_parse_location(load("xml/location_eu.xml", &b), &r, &e), S3C_OK);
    CHECK_STR(r.raw, "EU");
    CHECK_STR(r.region, "eu-west-1");
    CHECK_INT(s3_parse_location(load("xml/location_region.xml", &b), &r, &e), S3C_OK);
    CHECK_STR(r.region, "us-west-2");
    CHECK_INT(s3_parse_location(SV("<LocationConstraint></LocationConstraint>"), &r, &e), S3C_OK);
    CHECK_STR(r.region, "us-east-1");
    CHECK_INT(s3_parse_location(SV("<LocationConstraint>\n  ap-south-1 </LocationConstraint>"),
                                &r, &e), S3C_OK);
    CHECK_STR(r.region, "ap-south-1");
    CHECK_INT(s3_parse_location(SV("<Nope/>"), &r, &e), S3C_EPARSE);
    s3_location_release(&r);
    buf_release(&b);
}

TEST(xml_versioning)
{
    struct s3_versioning r = S3_VERSIONING_INIT;
    struct s3c_error e = S3C_ERROR_INIT;

    /* Never versioned: S3 answers the root alone. */
    CHECK_INT(s3_parse_versioning(SV("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<VersioningConfiguration "
                                     "xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"/>"), &r, &e), S3C_OK);
    CHECK_STR(r.status, "");
    CHECK_INT(s3_parse_versioning(SV("<VersioningConfiguration><Status>Enabled</Status></VersioningConfiguration>"),
                                  &r, &e), S3C_OK);
    CHECK_STR(r.status, "Enabled");
    CHECK_INT(s3_parse_versioning(SV("<VersioningConfiguration><Status>Suspended</Status><MfaDelete>Disabled"
                                     "</MfaDelete></VersioningConfiguration>"), &r, &e), S3C_OK);
    CHECK_STR(r.status, "Suspended");
    CHECK_STR(r.mfa_delete, "Disabled");
    /* moto's server names the root after the operation. */
    CHECK_INT(s3_parse_versioning(SV("<GetBucketVersioningResponse xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
                                     "<Status>Enabled</Status></GetBucketVersioningResponse>"), &r, &e), S3C_OK);
    CHECK_STR(r.status, "Enabled");
    CHECK_INT(s3_parse_versioning(SV("<GetBucketVersioningResponse/>"), &r, &e), S3C_OK);
    CHECK_STR(r.status, "");
    CHECK_INT(s3_parse_versioning(SV("<Nope/>"), &r, &e), S3C_EPARSE);
    s3_versioning_release(&r);
}

/* ---- hostile and broken input --------------------------------------------------------- */

TEST(xml_malformed_bodies)
{
    struct buf b = BODY_INIT;
    struct s3_list_objects r = S3_LIST_OBJECTS_INIT;
    struct s3c_error e = S3C_ERROR_INIT;

    CHECK_INT(s3_parse_list_objects(load("xml/malformed_mismatched.xml", &b), &r, &e), S3C_EPARSE);
    CHECK(strstr(e.msg, "malformed XML at line 4") != NULL);
    CHECK(!strchr(e.msg, '\n'));
    CHECK_INT(s3_parse_list_objects(load("xml/malformed_truncated.xml", &b), &r, &e), S3C_EPARSE);
    CHECK(strstr(e.msg, "malformed XML") != NULL);
    CHECK_INT(s3_parse_list_objects(SV("<ListVersionsResult/>"), &r, &e), S3C_EPARSE);
    CHECK_STR(e.msg, "unexpected XML root <ListVersionsResult>, want <ListBucketResult>");
    CHECK_INT(s3_parse_list_objects(SV("<ListBucketResult/>trailing"), &r, &e), S3C_EPARSE);
    CHECK_INT(s3_parse_list_objects(SV("\xef\xbb\xbf<ListBucketResult/>"), &r, &e), S3C_OK);
    CHECK_INT(s3_parse_list_objects(SV("<ListBucketResult><Name>\xff</Name></ListBucketResult>"),
                                    &r, &e), S3C_EPARSE);
    s3_list_objects_release(&r);
    buf_release(&b);
}

TEST(xml_entities_refused)
{
    struct buf b = BODY_INIT;
    struct s3_list_objects r = S3_LIST_OBJECTS_INIT;
    struct s3_error err = S3_ERROR_INIT;
    struct s3c_error e = S3C_ERROR_INIT;

    CHECK_INT(s3_parse_error(load("xml/entity_bomb.xml", &b), &err, &e), S3C_OK);
    CHECK(!err.is_xml);
    CHECK_STR(err.code, "");
    CHECK_INT(s3_xml_parse(S3_REPLY_ERROR, buf_sv(&b), &err, NULL, &e), S3C_EPARSE);
    CHECK(strstr(e.msg, "DOCTYPE") != NULL);
    CHECK_INT(s3_parse_list_objects(load("xml/external_entity.xml", &b), &r, &e), S3C_EPARSE);
    CHECK(strstr(e.msg, "DOCTYPE") != NULL);
    CHECK_INT(s3_parse_list_objects(load("xml/undefined_entity.xml", &b), &r, &e), S3C_EPARSE);
    CHECK_INT(s3_parse_list_objects(SV("<!DOCTYPE x SYSTEM \"http://127.0.0.1:1/x.dtd\">"
                                       "<ListBucketResult/>"), &r, &e), S3C_EPARSE);
    s3_error_release(&err);
    s3_list_objects_release(&r);
    buf_release(&b);
}

TEST(xml_limits)
{
    struct s3_xml_limits lim = S3_XML_LIMITS_DEFAULT;
    struct s3_list_objects r = S3_LIST_OBJECTS_INIT;
    struct s3c_error e = S3C_ERROR_INIT;
    struct buf b = BODY_INIT;
    int i;

    lim.field_max_bytes = 8;
    CHECK_INT(s3_xml_parse(S3_REPLY_LIST_OBJECTS, SV("<ListBucketResult><Name>12345678</Name>"
                                                     "</ListBucketResult>"), &r, &lim, &e), S3C_OK);
    CHECK_INT(s3_xml_parse(S3_REPLY_LIST_OBJECTS, SV("<ListBucketResult><Name>123456789</Name>"
                                                     "</ListBucketResult>"), &r, &lim, &e),
              S3C_ENOMEM);
    CHECK(strstr(e.msg, "<Name>") != NULL);

    lim = (struct s3_xml_limits)S3_XML_LIMITS_DEFAULT;
    lim.entries_max = 999;
    make_page(&b, 1000);
    CHECK_INT(s3_xml_parse(S3_REPLY_LIST_OBJECTS, buf_sv(&b), &r, &lim, &e), S3C_ENOMEM);
    CHECK(strstr(e.msg, "999 <Contents>") != NULL);
    CHECK_INT(r.n_objects, 999); /* what was parsed stays releasable */

    lim = (struct s3_xml_limits)S3_XML_LIMITS_DEFAULT;
    lim.body_max_bytes = b.len - 1;
    CHECK_INT(s3_xml_parse(S3_REPLY_LIST_OBJECTS, buf_sv(&b), &r, &lim, &e), S3C_ENOMEM);
    lim.body_max_bytes = b.len;
    CHECK_INT(s3_xml_parse(S3_REPLY_LIST_OBJECTS, buf_sv(&b), &r, &lim, &e), S3C_OK);

    lim = (struct s3_xml_limits)S3_XML_LIMITS_DEFAULT;
    buf_reset(&b);
    buf_adds(&b, "<ListBucketResult>");
    for (i = 0; i < 40; i++)
        buf_adds(&b, "<a>");
    for (i = 0; i < 40; i++)
        buf_adds(&b, "</a>");
    buf_adds(&b, "</ListBucketResult>");
    CHECK_INT(s3_xml_parse(S3_REPLY_LIST_OBJECTS, buf_sv(&b), &r, &lim, &e), S3C_EPARSE);
    CHECK(strstr(e.msg, "deeper") != NULL);

    /* A stream keeps failing after its first error. */
    {
        struct s3_xml_stream *st = s3_xml_stream_new(S3_REPLY_LIST_OBJECTS, &r, NULL);

        CHECK_INT(s3_xml_stream_feed(st, "<ListBucketResult><</", 21, &e), S3C_EPARSE);
        CHECK_INT(s3_xml_stream_feed(st, "Name/>", 6, &e), S3C_EPARSE);
        CHECK_INT(s3_xml_stream_finish(st, &e), S3C_EPARSE);
        s3_xml_stream_free(st);
    }
    s3_xml_stream_free(NULL);
    s3_list_objects_release(&r);
    buf_release(&b);
}

/* ---- time --------------------------------------------------------------------------------- */

TEST(xml_time_parse)
{
    int64_t t = 42;

    CHECK(s3_xml_time_parse(SV("1970-01-01T00:00:00Z"), &t));
    CHECK_INT(t, 0);
    CHECK(s3_xml_time_parse(SV("1969-12-31T23:59:59.999Z"), &t));
    CHECK_INT(t, -1);
    CHECK(s3_xml_time_parse(SV("2100-03-01T00:00:00.000000001Z"), &t));
    CHECK_INT(t, 4107542400);
    CHECK(s3_xml_time_parse(SV("2000-02-29T12:00:00Z"), &t));
    CHECK_INT(t, 951825600);
    CHECK(s3_xml_time_parse(SV("2000-02-29T14:30:00+02:30"), &t));
    CHECK_INT(t, 951825600);
    CHECK(s3_xml_time_parse(SV("2000-02-29T09:00:00-0300"), &t));
    CHECK_INT(t, 951825600);
    CHECK(s3_xml_time_parse(SV("2000-02-29T12:00:00"), &t));
    CHECK_INT(t, 951825600);
    CHECK(!s3_xml_time_parse(SV("2100-02-29T00:00:00Z"), &t));  /* not a leap year */
    CHECK(!s3_xml_time_parse(SV("2024-13-01T00:00:00Z"), &t));
    CHECK(!s3_xml_time_parse(SV("2024-01-01T24:00:00Z"), &t));
    CHECK(!s3_xml_time_parse(SV("2024-01-01T00:00:00.Z"), &t));
    CHECK(!s3_xml_time_parse(SV("2024-01-01T00:00:00ZZ"), &t));
    CHECK(!s3_xml_time_parse(SV("2024-01-01 00:00:00Z"), &t));
    CHECK(!s3_xml_time_parse(SV("2024-01-01T00:00:00+1"), &t));
    CHECK(!s3_xml_time_parse(SV("Wed, 12 Oct 2009 17:50:00 GMT"), &t));
    CHECK(!s3_xml_time_parse(SV(""), &t));
    CHECK_INT(t, 951825600); /* untouched on failure */
}

TEST(xml_express_create_session_and_directory_buckets)
{
    static const char session[] =
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        "<CreateSessionResult xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
        "<Credentials><SessionToken>tok.en</SessionToken><SecretAccessKey>sec/ret+</SecretAccessKey>"
        "<AccessKeyId>ASIAEXAMPLE</AccessKeyId><Expiration>2023-06-26T17:33:30Z</Expiration></Credentials>"
        "</CreateSessionResult>";
    static const char buckets[] =
        "<ListAllMyDirectoryBucketsResult xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
        "<Buckets><Bucket><Name>a--use1-az4--x-s3</Name><CreationDate>2024-01-02T03:04:05.000Z</CreationDate>"
        "<BucketRegion>us-east-1</BucketRegion></Bucket></Buckets><ContinuationToken>next</ContinuationToken>"
        "</ListAllMyDirectoryBucketsResult>";
    struct s3_create_session cs = S3_CREATE_SESSION_INIT;
    struct s3_list_buckets lb = S3_LIST_BUCKETS_INIT;
    struct s3c_error e = S3C_ERROR_INIT;

    CHECK_INT(s3_parse_create_session(SV(session), &cs, &e), S3C_OK);
    CHECK_STR(cs.access_key, "ASIAEXAMPLE");
    CHECK_STR(cs.secret_key, "sec/ret+");
    CHECK_STR(cs.session_token, "tok.en");
    CHECK_INT(cs.expires_epoch, 1687800810);
    s3_create_session_release(&cs);
    /* No credentials: an error, not an empty session. */
    CHECK(s3_parse_create_session(SV("<CreateSessionResult/>"), &cs, &e) != S3C_OK);
    s3_create_session_release(&cs);
    CHECK_INT(s3_parse_list_buckets(SV(buckets), &lb, &e), S3C_OK);
    CHECK_INT(lb.n_buckets, 1);
    CHECK_STR(lb.buckets[0].name, "a--use1-az4--x-s3");
    CHECK_STR(lb.buckets[0].region, "us-east-1");
    CHECK_STR(lb.continuation_token, "next");
    s3_list_buckets_release(&lb);
}
