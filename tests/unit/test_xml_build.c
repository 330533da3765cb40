/* s3/xml request bodies: exact bytes, escaping, and a round trip through expat. */
#include "t.h"

#include <expat.h>
#include <stdlib.h>

#include "base/buf.h"
#include "s3/xml.h"

/* Collect the text of every <Key> of a body, as S3's parser would see it. */
struct keys {
    struct buf text[4];
    int n;
    int in_key;
};

static void XMLCALL keys_start(void *ud, const XML_Char *name, const XML_Char **attrs)
{
    struct keys *k = ud;

    (void)attrs;
    k->in_key = strcmp(name, "Key") == 0 && k->n < 4;
}

static void XMLCALL keys_end(void *ud, const XML_Char *name)
{
    struct keys *k = ud;

    if (k->in_key && strcmp(name, "Key") == 0)
        k->n++;
    k->in_key = 0;
}

static void XMLCALL keys_text(void *ud, const XML_Char *s, int len)
{
    struct keys *k = ud;

    if (k->in_key)
        buf_add(&k->text[k->n], s, (size_t)len);
}

static int parse_keys(struct sv body, struct keys *k)
{
    XML_Parser p = XML_ParserCreate(NULL);
    int ok;

    XML_SetUserData(p, k);
    XML_SetElementHandler(p, keys_start, keys_end);
    XML_SetCharacterDataHandler(p, keys_text);
    ok = XML_Parse(p, body.p, (int)body.n, 1) == XML_STATUS_OK;
    XML_ParserFree(p);
    return ok;
}

TEST(xml_build_complete_multipart)
{
    struct buf b = BUF_INIT(1 << 20);
    struct s3c_error e = S3C_ERROR_INIT;
    struct s3_complete_part parts[2] = {
        { 1, "\"a54357aff0632cce46d942af68356b38\"", { .crc64nvme = "Bx2Hbj3nkJk=" } },
        { 3, "\"0c78aef83f66abc1fa1e8477f296d394\"",
          { .crc32 = "AAAAAA==", .crc32c = "yZRlqg==", .sha1 = "", .sha256 = NULL } },
    };

    CHECK_INT(s3_build_complete_multipart(parts, 2, &b, &e), S3C_OK);
    CHECK_STR(buf_cstr(&b),
              "<CompleteMultipartUpload xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
              "<Part><PartNumber>1</PartNumber>"
              "<ETag>&quot;a54357aff0632cce46d942af68356b38&quot;</ETag>"
              "<ChecksumCRC64NVME>Bx2Hbj3nkJk=</ChecksumCRC64NVME></Part>"
              "<Part><PartNumber>3</PartNumber>"
              "<ETag>&quot;0c78aef83f66abc1fa1e8477f296d394&quot;</ETag>"
              "<ChecksumCRC32>AAAAAA==</ChecksumCRC32><ChecksumCRC32C>yZRlqg==</ChecksumCRC32C>"
              "</Part></CompleteMultipartUpload>");
    buf_release(&b);
}

TEST(xml_build_complete_multipart_refuses_bad_parts)
{
    struct buf b = BUF_INIT(1 << 20);
    struct s3c_error e = S3C_ERROR_INIT;
    struct s3_complete_part p[3] = { { 1, "\"a\"", { 0 } }, { 2, "\"b\"", { 0 } },
                                     { 2, "\"c\"", { 0 } } };
    struct s3_complete_part *many;
    size_t i;

    CHECK_INT(s3_build_complete_multipart(p, 0, &b, &e), S3C_EINTERNAL);
    CHECK_INT(s3_build_complete_multipart(p, 3, &b, &e), S3C_EINTERNAL);
    CHECK(strstr(e.msg, "part number 2 after 2") != NULL);
    p[0].number = 0;
    CHECK_INT(s3_build_complete_multipart(p, 1, &b, &e), S3C_EINTERNAL);
    p[0].number = 10001;
    CHECK_INT(s3_build_complete_multipart(p, 1, &b, &e), S3C_EINTERNAL);
    p[0].number = 1;
    p[0].etag = "";
    CHECK_INT(s3_build_complete_multipart(p, 1, &b, &e), S3C_EINTERNAL);
    CHECK_INT(b.len, 0);

    /* 10,000 parts fit; 10,001 do not. */
    many = calloc(S3_MAX_PARTS + 1, sizeof(*many));
    for (i = 0; i <= S3_MAX_PARTS; i++) {
        many[i].number = (uint32_t)(i + 1);
        many[i].etag = "\"0c78aef83f66abc1fa1e8477f296d394\"";
    }
    CHECK_INT(s3_build_complete_multipart(many, S3_MAX_PARTS + 1, &b, &e), S3C_EINTERNAL);
    CHECK_INT(s3_build_complete_multipart(many, S3_MAX_PARTS, &b, &e), S3C_OK);
    CHECK(strstr(buf_cstr(&b), "<PartNumber>10000</PartNumber>") != NULL);

    /* The buffer's cap holds. */
    {
        struct buf small = BUF_INIT(64);

        CHECK_INT(s3_build_complete_multipart(many, 2, &small, &e), S3C_ENOMEM);
        CHECK(small.len <= 64);
        buf_release(&small);
    }
    free(many);
    buf_release(&b);
}

TEST(xml_build_delete_exact)
{
    struct buf b = BUF_INIT(1 << 20);
    struct s3c_error e = S3C_ERROR_INIT;
    struct s3_delete_object o[2] = {
        { "sample1.txt", NULL, NULL },
        { "dir/a&b<c>\"d'e", "OYcLXagmS.WaD..oyH4KRguB95_YhLs7", NULL },
    };

    CHECK_INT(s3_build_delete(o, 2, true, &b, &e), S3C_OK);
    CHECK_STR(buf_cstr(&b),
              "<Delete xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"><Quiet>true</Quiet>"
              "<Object><Key>sample1.txt</Key></Object>"
              "<Object><Key>dir/a&amp;b&lt;c&gt;&quot;d&apos;e</Key>"
              "<VersionId>OYcLXagmS.WaD..oyH4KRguB95_YhLs7</VersionId></Object></Delete>");
    buf_reset(&b);
    o[1].version_id = "";
    CHECK_INT(s3_build_delete(o, 1, false, &b, &e), S3C_OK);
    CHECK_STR(buf_cstr(&b), "<Delete xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
                            "<Object><Key>sample1.txt</Key></Object></Delete>");
    /* A conditional key: its ETag as listed, quotes and all, escaped. */
    buf_reset(&b);
    o[0].etag = "\"9b2cf535f27731c974343645a3985328\"";
    CHECK_INT(s3_build_delete(o, 1, true, &b, &e), S3C_OK);
    CHECK_STR(buf_cstr(&b), "<Delete xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"><Quiet>true</Quiet>"
                            "<Object><Key>sample1.txt</Key><ETag>&quot;9b2cf535f27731c974343645a3985328&quot;</ETag>"
                            "</Object></Delete>");
    buf_release(&b);
}

TEST(xml_build_delete_line_ends_survive_a_parser)
{
    struct buf b = BUF_INIT(1 << 20);
    struct s3c_error e = S3C_ERROR_INIT;
    struct keys k = { { BUF_INIT(4096), BUF_INIT(4096), BUF_INIT(4096), BUF_INIT(4096) }, 0, 0 };
    struct s3_delete_object o[3] = {
        { "cr\rlf\ncrlf\r\nend", NULL, NULL },
        { "tab\there  two  spaces ", NULL, NULL },
        { "caf\xc3\xa9 \xe6\x97\xa5 \xf0\x9f\x98\x80 \xc2\x85 \xe2\x80\xa8 &amp; %20 +", NULL, NULL },
    };
    int i;

    CHECK_INT(s3_build_delete(o, 3, false, &b, &e), S3C_OK);
    CHECK(strstr(buf_cstr(&b), "cr&#xD;lf&#xA;crlf&#xD;&#xA;end") != NULL);
    CHECK(strstr(buf_cstr(&b), "\xc2\x85") == NULL);
    CHECK(parse_keys(buf_sv(&b), &k));
    CHECK_INT(k.n, 3);
    for (i = 0; i < 3 && i < k.n; i++)
        CHECK_STR(buf_cstr(&k.text[i]), o[i].key);
    for (i = 0; i < 4; i++)
        buf_release(&k.text[i]);
    buf_release(&b);
}

TEST(xml_build_delete_refuses_what_xml_cannot_carry)
{
    struct buf b = BUF_INIT(1 << 20);
    struct s3c_error e = S3C_ERROR_INIT;
    struct s3_delete_object o[2] = { { "fine", NULL, NULL }, { "bell\x07", NULL, NULL } };
    struct s3_delete_object *many;
    size_t i;

    CHECK_INT(s3_build_delete(o, 2, false, &b, &e), S3C_EPARSE);
    CHECK(strstr(e.msg, "key 1") != NULL);
    CHECK_INT(b.len, 0); /* nothing written */
    o[1].key = "bad\xc3";
    CHECK_INT(s3_build_delete(o, 2, false, &b, &e), S3C_EPARSE);
    o[1].key = "";
    CHECK_INT(s3_build_delete(o, 2, false, &b, &e), S3C_EINTERNAL);
    o[1].key = NULL;
    CHECK_INT(s3_build_delete(o, 2, false, &b, &e), S3C_EINTERNAL);
    CHECK_INT(s3_build_delete(o, 0, false, &b, &e), S3C_EINTERNAL);

    many = calloc(S3_DELETE_MAX_KEYS + 1, sizeof(*many));
    for (i = 0; i <= S3_DELETE_MAX_KEYS; i++)
        many[i].key = "k";
    CHECK_INT(s3_build_delete(many, S3_DELETE_MAX_KEYS + 1, false, &b, &e), S3C_EINTERNAL);
    CHECK_INT(s3_build_delete(many, S3_DELETE_MAX_KEYS, true, &b, &e), S3C_OK);
    free(many);
    buf_release(&b);
}

TEST(xml_key_ok)
{
    CHECK(s3_xml_key_ok(SV("")));
    CHECK(s3_xml_key_ok(SV("plain/key.txt")));
    CHECK(s3_xml_key_ok(SV("tab\tcr\rlf\n")));
    CHECK(s3_xml_key_ok(SV("del\x7f")));
    CHECK(s3_xml_key_ok(SV("\xc3\xa9\xe6\x97\xa5\xf0\x9f\x98\x80")));
    CHECK(s3_xml_key_ok(SV("\xef\xbf\xbd")));           /* U+FFFD itself is fine */
    CHECK(!s3_xml_key_ok(SV("\x01")));
    CHECK(!s3_xml_key_ok(SV("a\x1f")));
    CHECK(!s3_xml_key_ok((struct sv){ "a\0b", 3 }));
    CHECK(!s3_xml_key_ok(SV("\xc3")));                   /* cut short */
    CHECK(!s3_xml_key_ok(SV("\xc0\xaf")));               /* overlong '/' */
    CHECK(!s3_xml_key_ok(SV("\xed\xa0\x80")));           /* surrogate */
    CHECK(!s3_xml_key_ok(SV("\xef\xbf\xbe")));           /* U+FFFE */
    CHECK(!s3_xml_key_ok(SV("\xf4\x90\x80\x80")));       /* > U+10FFFF */
    CHECK(!s3_xml_key_ok(SV("\xff")));
}

TEST(xml_escape)
{
    struct buf b = BUF_INIT(1024);
    struct s3c_error e = S3C_ERROR_INIT;

    CHECK_INT(s3_xml_escape(SV("a<b>&\"'\r\n\t\xe2\x80\xa8z"), &b, &e), S3C_OK);
    CHECK_STR(buf_cstr(&b), "a&lt;b&gt;&amp;&quot;&apos;&#xD;&#xA;&#x9;&#x2028;z");
    buf_reset(&b);
    CHECK_INT(s3_xml_escape(SV("\x02"), &b, &e), S3C_EPARSE);
    CHECK_INT(b.len, 0);
    buf_release(&b);
}

TEST(xml_build_create_bucket)
{
    struct buf b = BUF_INIT(1024);
    struct s3c_error e = S3C_ERROR_INIT;

    CHECK_INT(s3_build_create_bucket(NULL, &b, &e), S3C_OK);
    CHECK_INT(s3_build_create_bucket("", &b, &e), S3C_OK);
    CHECK_INT(s3_build_create_bucket("us-east-1", &b, &e), S3C_OK);
    CHECK_INT(b.len, 0);
    CHECK_INT(s3_build_create_bucket("eu-west-1", &b, &e), S3C_OK);
    CHECK_STR(buf_cstr(&b),
              "<CreateBucketConfiguration xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
              "<LocationConstraint>eu-west-1</LocationConstraint></CreateBucketConfiguration>");
    buf_release(&b);
}

TEST(xml_build_tagging_round_trip)
{
    struct s3_tag tags[2] = { { "a<b", "x&y" }, { "empty", "" } };
    struct s3_tagging t = { tags, 2, { NULL } }, back = S3_TAGGING_INIT;
    struct buf b = BUF_INIT(4096);
    struct s3c_error e = S3C_ERROR_INIT;

    CHECK_INT(s3_build_tagging(&t, &b, &e), S3C_OK);
    CHECK_STR(buf_cstr(&b), "<Tagging xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"><TagSet>"
                            "<Tag><Key>a&lt;b</Key><Value>x&amp;y</Value></Tag>"
                            "<Tag><Key>empty</Key><Value></Value></Tag></TagSet></Tagging>");
    /* What PutObjectTagging sends reads back as the same tags. */
    CHECK_INT(s3_parse_tagging(buf_sv(&b), &back, &e), S3C_OK);
    CHECK_INT(back.n_tags, 2);
    CHECK_STR(back.tags[0].key, "a<b");
    CHECK_STR(back.tags[0].value, "x&y");
    CHECK_STR(back.tags[1].value, "");
    s3_tagging_release(&back);
    buf_release(&b);
}
