/* Issue 22 items 15-18: what the user gives is checked before a request,
 * and names are shown so that they cannot forge a line or drive a terminal. */
#include "t.h"

#include "base/str.h"
#include "cli/objopts.h"
#include "cli/output.h"

/* out_escape() of 's' (NUL-terminated) into 'out'. */
static const char *escaped(const char *s, char *out, size_t n)
{
    struct buf b = BUF_INIT(1 << 16);

    out_escape(&b, sv_from(s));
    snprintf(out, n, "%s", buf_cstr(&b));
    buf_release(&b);
    return out;
}

TEST(out_escape_controls_and_bytes_not_utf8)
{
    char o[256];

    CHECK_STR(escaped("plain/key name.txt", o, sizeof(o)), "plain/key name.txt");
    CHECK_STR(escaped("caf\xc3\xa9/\xe4\xb8\xad", o, sizeof(o)), "caf\xc3\xa9/\xe4\xb8\xad");  /* UTF-8 stays */
    CHECK_STR(escaped("evil\n\x1b[2J\r\tx", o, sizeof(o)), "evil\\n\\x1b[2J\\r\\tx");
    CHECK_STR(escaped("del\x7f", o, sizeof(o)), "del\\x7f");
    CHECK_STR(escaped("c1\xc2\x9b" "31m", o, sizeof(o)), "c1\\xc2\\x9b31m");        /* U+009B, CSI */
    CHECK_STR(escaped("latin1 caf\xe9", o, sizeof(o)), "latin1 caf\\xe9");
    CHECK_STR(escaped("overlong \xc0\xaf", o, sizeof(o)), "overlong \\xc0\\xaf");
    CHECK_STR(escaped("surrogate \xed\xa0\x80", o, sizeof(o)), "surrogate \\xed\\xa0\\x80");
    CHECK_STR(escaped("cut \xe4\xb8", o, sizeof(o)), "cut \\xe4\\xb8");
    CHECK_STR(escaped("back\\slash", o, sizeof(o)), "back\\slash");
}

TEST(utf8_next_and_is_utf8)
{
    uint32_t cp = 0;

    CHECK_INT(str_utf8_next((const unsigned char *)"\xf0\x9f\x98\x80", 4, &cp), 4);
    CHECK_INT(cp, 0x1f600);
    CHECK_INT(str_utf8_next((const unsigned char *)"\xf4\x90\x80\x80", 4, &cp), 0);    /* > U+10FFFF */
    CHECK_INT(str_utf8_next((const unsigned char *)"\x80", 1, &cp), 0);
    CHECK(sv_is_utf8(sv_from("na\xc3\xafve")));
    CHECK(!sv_is_utf8(sv_from("na\xefve")));
    CHECK(sv_is_utf8(sv_from("")));
}

TEST(json_str_non_utf8_is_valid_json_and_lossless)
{
    struct json j = JSON_INIT;
    struct buf out = BUF_INIT(1 << 16);

    json_str(&j, "key", "s3://b/caf\xe9");
    json_str(&j, "ok", "caf\xc3\xa9 \x1b \"q\" \\");
    json_end_into(&j, &out);
    /* The invalid byte as the text \xe9 (JSON "\\xe9"), and the exact bytes in base64. */
    CHECK_STR(buf_cstr(&out), "{\"key\":\"s3://b/caf\\\\xe9\",\"key_base64\":\"czM6Ly9iL2NhZuk=\","
                              "\"ok\":\"caf\xc3\xa9 \\u001b \\\"q\\\" \\\\\"}");
    buf_release(&out);
}

static struct objopts_args oa;

/* objopts_parse() of 'oo' (and --metadata 'meta'), the message in 'e'. */
static enum s3c_err parse(struct xfer_obj_opts *oo, const char *meta, struct s3c_error *e)
{
    memset(&oa, 0, sizeof(oa));
    if (meta) {
        oa.metadata.v[0] = meta;
        oa.metadata.flag[0] = "--metadata";
        oa.metadata.n = 1;
    }
    *e = (struct s3c_error)S3C_ERROR_INIT;
    return objopts_parse("cp", &oa, oo, e);
}

TEST(objopts_refuse_header_values_with_controls)
{
    struct s3c_error e;
    struct xfer_obj_opts oo;

    memset(&oo, 0, sizeof(oo));
    oo.content_type = "text/plain; charset=utf-8";
    oo.cache_control = "max-age=60,\tpublic";       /* a tab is allowed in a field value */
    oo.content_disposition = "attachment; filename=\"caf\xc3\xa9.txt\"";
    CHECK_INT(parse(&oo, NULL, &e), S3C_OK);
    oo.content_type = "text/plain\r\nX-Evil: 1";
    CHECK_INT(parse(&oo, NULL, &e), S3C_EUSAGE);
    CHECK(strstr(e.msg, "cp: --content-type") != NULL);
    oo.content_type = NULL;
    oo.expires = "Thu, 01 Dec 2094 16:00:00 GMT\n";
    CHECK_INT(parse(&oo, NULL, &e), S3C_EUSAGE);
    oo.expires = NULL;
    oo.sse_kms_key_id = "key\x7f";
    CHECK_INT(parse(&oo, NULL, &e), S3C_EUSAGE);
    CHECK(strstr(e.msg, "--sse-kms-key-id") != NULL);
    oo.sse_kms_key_id = NULL;
    oo.content_language = "en\x01";
    CHECK_INT(parse(&oo, NULL, &e), S3C_EUSAGE);
}

TEST(objopts_enumerations_as_the_aws_cli)
{
    struct s3c_error e;
    struct xfer_obj_opts oo;

    memset(&oo, 0, sizeof(oo));
    oo.sse = "aws:kms";
    oo.acl = "bucket-owner-full-control";
    oo.storage_class = "GLACIER_IR";
    oo.request_payer = "requester";
    CHECK_INT(parse(&oo, NULL, &e), S3C_OK);
    oo.storage_class = "EXPRESS_ONEZONE";
    CHECK_INT(parse(&oo, NULL, &e), S3C_OK);
    oo.sse = "FOO";
    CHECK_INT(parse(&oo, NULL, &e), S3C_EUSAGE);
    CHECK_STR(e.msg, "cp: argument --sse: Invalid choice 'FOO', valid choices are: AES256 | aws:kms");
    oo.sse = "aes256";                               /* exact, as argparse */
    CHECK_INT(parse(&oo, NULL, &e), S3C_EUSAGE);
    oo.sse = NULL;
    oo.storage_class = "standard";
    CHECK_INT(parse(&oo, NULL, &e), S3C_EUSAGE);
    CHECK(strstr(e.msg, "argument --storage-class: Invalid choice 'standard', valid choices are: STANDARD | ") != NULL);
    oo.storage_class = NULL;
    oo.acl = "public";
    CHECK_INT(parse(&oo, NULL, &e), S3C_EUSAGE);
    CHECK(strstr(e.msg, "log-delivery-write") != NULL);
    oo.acl = NULL;
    oo.request_payer = "me";
    CHECK_INT(parse(&oo, NULL, &e), S3C_EUSAGE);
    oo.request_payer = NULL;
    oo.sse_c = "AES128";
    oo.sse_c_key = "0123456789abcdef0123456789abcdef";
    CHECK_INT(parse(&oo, NULL, &e), S3C_EUSAGE);
    CHECK(strstr(e.msg, "argument --sse-c:") != NULL);
}

TEST(objopts_metadata_keys_tokens_values_rfc2047)
{
    struct s3c_error e;
    struct xfer_obj_opts oo;
    char big[3000];

    memset(&oo, 0, sizeof(oo));
    CHECK_INT(parse(&oo, "a=plain,b=caf\xc3\xa9", &e), S3C_OK);
    CHECK_INT(oo.n_metadata, 2);
    CHECK_STR(oo.metadata[0][0], "x-amz-meta-a");
    CHECK_STR(oo.metadata[0][1], "plain");
    CHECK_STR(oo.metadata[1][0], "x-amz-meta-b");
    CHECK_STR(oo.metadata[1][1], "=?UTF-8?B?Y2Fmw6k=?=");
    CHECK_INT(parse(&oo, "{\"k\":\"\xe4\xb8\xad\xe6\x96\x87\"}", &e), S3C_OK);
    CHECK_STR(oo.metadata[0][1], "=?UTF-8?B?5Lit5paH?=");
    CHECK_INT(parse(&oo, "cl\xc3\xa9=v", &e), S3C_EUSAGE);      /* a non-ASCII key */
    CHECK(strstr(e.msg, "--metadata key") != NULL);
    CHECK_INT(parse(&oo, "a b=v", &e), S3C_EUSAGE);             /* not a token */
    CHECK_INT(parse(&oo, "k=v\r\nx-amz-acl: public-read", &e), S3C_EUSAGE);
    CHECK_INT(parse(&oo, "k=caf\xe9", &e), S3C_EUSAGE);         /* not UTF-8 */
    CHECK(strstr(e.msg, "not UTF-8") != NULL);
    memset(big, 'v', sizeof(big));
    memcpy(big, "k=", 2);
    big[sizeof(big) - 1] = '\0';
    CHECK_INT(parse(&oo, big, &e), S3C_EUSAGE);                 /* never cut short silently */
    CHECK(strstr(e.msg, "longer than") != NULL);
    memset(big, 'k', 300);
    memcpy(big + 300, "=v", 3);
    CHECK_INT(parse(&oo, big, &e), S3C_EUSAGE);
}

TEST(objopts_source_region_is_a_dns_label)
{
    struct s3c_error e;
    struct xfer_obj_opts oo;

    memset(&oo, 0, sizeof(oo));
    memset(&oa, 0, sizeof(oa));
    oa.source_region = "eu-west-1";
    CHECK_INT(objopts_parse("cp", &oa, &oo, &e), S3C_OK);
    oa.source_region = "eu-west-1.evil.example/";
    CHECK_INT(objopts_parse("cp", &oa, &oo, &e), S3C_EUSAGE);
}

/* --metadata given twice keeps both (s5cmd); the same key twice keeps its last value. */
TEST(objopts_metadata_given_twice)
{
    struct s3c_error e = S3C_ERROR_INIT;
    struct xfer_obj_opts oo;

    memset(&oo, 0, sizeof(oo));
    memset(&oa, 0, sizeof(oa));
    oa.metadata.v[0] = "a=b";
    oa.metadata.v[1] = "c=d,A=z";
    oa.metadata.n = 2;
    CHECK_INT(objopts_parse("cp", &oa, &oo, &e), S3C_OK);
    CHECK_INT(oo.n_metadata, 2);
    CHECK_STR(oo.metadata[0][0], "x-amz-meta-A");
    CHECK_STR(oo.metadata[0][1], "z");
    CHECK_STR(oo.metadata[1][0], "x-amz-meta-c");
    CHECK_STR(oo.metadata[1][1], "d");
}
