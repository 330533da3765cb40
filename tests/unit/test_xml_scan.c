/*
 * s3/xml_scan: the tokenizer tried before expat. It must take the pages
 * stores really send (or the speed is lost without a sound), decline what
 * it does not know, and read hostile keys exactly as expat reads them.
 */
#include "t.h"

#include <stdlib.h>

#include "base/buf.h"
#include "s3/xml.h"
#include "s3/xml_impl.h"
#include "xml_events.h"

/* Scan 's'; true if accepted, its events in 'out' (reset first). */
static bool scan(const char *s, size_t n, struct buf *out)
{
    struct xml_events ev = XML_EVENTS_INIT;
    struct xml_sink k = xml_events_sink(&ev);
    bool ok = xml_scan((struct sv){ s, n }, &k);

    xml_events_flush(&ev);
    buf_reset(out);
    buf_addsv(out, buf_sv(&ev.log));
    xml_events_release(&ev);
    return ok;
}

#define SCAN(lit, out) scan(lit, sizeof(lit) - 1, out)

TEST(xml_scan_takes_the_pages_stores_send)
{
    struct buf ev = BUF_INIT(1 << 24);

    /* S3 (and s3emu): a declaration, a newline, the namespace. */
    CHECK(SCAN("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<ListBucketResult xmlns=\"" S3_XML_NS "\">"
               "<Name>b</Name><Contents><Key>a</Key><ETag>&quot;x&quot;</ETag></Contents></ListBucketResult>",
               &ev));
    CHECK_STR(buf_cstr(&ev), "<ListBucketResult\n<Name\n=b\n>\n<Contents\n<Key\n=a\n>\n<ETag\n=\"x\"\n>\n>\n>\n");
    /* moto: white space between elements; Ceph: no newline; a bare root. */
    CHECK(SCAN("<?xml version=\"1.0\" encoding=\"UTF-8\"?><ListBucketResult xmlns=\"" S3_XML_NS "\">\n"
               "  <Name>b</Name>\n</ListBucketResult>\n", &ev));
    CHECK_STR(buf_cstr(&ev), "<ListBucketResult\n=\n  \n<Name\n=b\n>\n=\n\n>\n");
    CHECK(SCAN("  <a/>  ", &ev));
    CHECK_STR(buf_cstr(&ev), "<a\n>\n");
    CHECK(SCAN("<a x='1' y = \"2\" >t</a>", &ev));
    buf_release(&ev);
}

TEST(xml_scan_decodes_references_as_expat)
{
    struct buf ev = BUF_INIT(1 << 24);

    CHECK(SCAN("<a>x&amp;&lt;&gt;&quot;&apos;&#x41;&#66;&#x65e5;&#128512;&#9;&#13;y<b/>z</a>", &ev));
    CHECK_STR(buf_cstr(&ev), "<a\n=x&<>\"'AB\xe6\x97\xa5\xf0\x9f\x98\x80\t\ry\n<b\n>\n=z\n>\n");
    /* UTF-8 and '>' stand as they are; "]]" without '>' is plain text. */
    CHECK(SCAN("<a>\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80 > ]] ]]&gt;</a>", &ev));
    CHECK_STR(buf_cstr(&ev), "<a\n=\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80 > ]] ]]>\n>\n");
    buf_release(&ev);
}

TEST(xml_scan_declines_what_it_does_not_know)
{
    static const char *const no[] = {
        "", "   ", "text", "<a>", "<a></b>", "<a></a>junk", "<a/><b/>", "<a><!-- c --></a>",
        "<a><![CDATA[x]]></a>", "<a><?pi x?></a>", "<!DOCTYPE a><a/>", "<?xml version=\"1.1\"?><a/>",
        "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><a/>", "\xef\xbb\xbf<a/>", "<s3:a/>", "<a:b></a:b>",
        "<a>x\ry</a>", "<a>]]></a>", "<a>&nbsp;</a>", "<a>&#0;</a>", "<a>&#1;</a>", "<a>&#xD800;</a>",
        "<a>&#x110000;</a>", "<a>&#xFFFE;</a>", "<a>&#;</a>", "<a>&#x;</a>", "<a>&amp</a>", "<a>\x01</a>",
        "<a>\xc0\x80</a>", "<a>\xed\xa0\x80</a>", "<a>\xef\xbf\xbe</a>", "<a>\xf4\x90\x80\x80</a>", "<a>\xff</a>",
        "<a x=\"1\" x=\"2\"/>", "<a x=1/>", "<a x=\"<\"/>", "<a x=\"&amp;\"/>", "<ax=\"1\"/>", "<a/ >",
        "</a>", "<1a/>", "<a></a >", "<a><b></a></b>",
    };
    struct buf ev = BUF_INIT(1 << 24);
    size_t i;

    for (i = 0; i < sizeof(no) / sizeof(no[0]); i++)
        if (scan(no[i], strlen(no[i]), &ev))
            t_fail(__FILE__, __LINE__, "xml_scan accepted \"%s\"", no[i]);
    /* No recursion: nesting past its stack is declined, not a crash. */
    buf_reset(&ev);
    for (i = 0; i < 100; i++)
        buf_adds(&ev, "<a>");
    for (i = 0; i < 100; i++)
        buf_adds(&ev, "</a>");
    {
        struct buf doc = ev;

        ev = (struct buf)BUF_INIT(1 << 24);
        CHECK(!scan(doc.data, doc.len, &ev));
        buf_release(&doc);
    }
    buf_release(&ev);
}

/* Parse 'body' whole (the scanner, when it takes it) and through the stream (expat), and compare. */
static void same_both_ways(const char *body, size_t n, enum s3c_err want)
{
    struct s3_list_objects a = S3_LIST_OBJECTS_INIT, b = S3_LIST_OBJECTS_INIT;
    struct s3c_error ea = S3C_ERROR_INIT, eb = S3C_ERROR_INIT;
    struct s3_xml_stream *st = s3_xml_stream_new(S3_REPLY_LIST_OBJECTS, &b, NULL);
    enum s3c_err ra = s3_parse_list_objects((struct sv){ body, n }, &a, &ea), rb;
    size_t i;

    rb = s3_xml_stream_feed(st, body, n, &eb);
    if (!rb)
        rb = s3_xml_stream_finish(st, &eb);
    s3_xml_stream_free(st);
    CHECK_INT(ra, want);
    CHECK_INT(rb, want);
    CHECK_STR(ea.msg, eb.msg);
    CHECK_INT(a.n_objects, b.n_objects);
    /* A page that failed to parse is thrown away whole: its fields are not a result. */
    for (i = 0; want == S3C_OK && i < a.n_objects && i < b.n_objects; i++) {
        CHECK_STR(a.objects[i].key, b.objects[i].key);
        if (!a.objects[i].key[0] && !b.objects[i].key[0]) /* a NUL key's mark: "" then the encoded key */
            CHECK_STR(a.objects[i].key + 1, b.objects[i].key + 1);
        CHECK_STR(a.objects[i].etag, b.objects[i].etag);
        CHECK_INT(a.objects[i].size, b.objects[i].size);
        CHECK_INT(a.objects[i].mtime_epoch, b.objects[i].mtime_epoch);
    }
    CHECK_STR(a.next_continuation_token, b.next_continuation_token);
    s3_list_objects_release(&a);
    s3_list_objects_release(&b);
}

/* A page with one <Contents> whose <Key> is 'key' as written (escaped or not). */
static void page(struct buf *b, const char *key, bool url)
{
    buf_reset(b);
    buf_adds(b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<ListBucketResult xmlns=\"" S3_XML_NS "\">");
    if (url)
        buf_adds(b, "<EncodingType>url</EncodingType>");
    buf_adds(b, "<IsTruncated>true</IsTruncated><NextContinuationToken>t&amp;1</NextContinuationToken>"
                "<Contents><Key>");
    buf_adds(b, key);
    buf_adds(b, "</Key><LastModified>2026-12-02T14:16:00.123Z</LastModified><ETag>&quot;e&quot;</ETag>"
                "<Size>7</Size><StorageClass>STANDARD</StorageClass></Contents></ListBucketResult>");
}

TEST(xml_scan_hostile_keys_read_as_expat_reads_them)
{
    static const struct { const char *key; bool url; enum s3c_err want; } cases[] = {
        { "a&amp;b&lt;c&gt;d&quot;e&apos;f", false, S3C_OK },
        { "tab&#9;lf&#10;cr&#13;&#x1F600;&#233;", false, S3C_OK },
        { "raw\rcr\r\nlf", false, S3C_OK },                /* expat makes both line ends '\n' */
        { "\xe6\x97\xa5\xe6\x9c\xac/\xf0\x9f\x98\x80", false, S3C_OK },
        { "a%00b", true, S3C_OK },                           /* a NUL: the key is marked */
        { "", false, S3C_OK },                               /* no key at all: S3 has none such */
        { "", true, S3C_OK },
        { "a+b%2Bc%25d%2Fe%01f", true, S3C_OK },
        { "a%zz", true, S3C_EPARSE },
        { "ctl&#1;", false, S3C_EPARSE },
        { "ctl\x01", false, S3C_EPARSE },
        { "nul&#0;", false, S3C_EPARSE },
        { "cdata]]>", false, S3C_EPARSE },
        { "bad\xff\xfe", false, S3C_EPARSE },
        { "<![CDATA[<x>&]]>", false, S3C_OK },
        { "&undefined;", false, S3C_EPARSE },
        { "a<!-- c -->b", false, S3C_OK },
    };
    struct buf b = BUF_INIT(1 << 24), key = BUF_INIT(1 << 24);
    size_t i;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        page(&b, cases[i].key, cases[i].url);
        same_both_ways(b.data, b.len, cases[i].want);
    }
    /* Huge keys: under the field cap, and over it (S3C_ENOMEM from both ways). */
    for (i = 0; i < 60000; i++)
        buf_addc(&key, (char)('a' + i % 26));
    page(&b, buf_cstr(&key), false);
    same_both_ways(b.data, b.len, S3C_OK);
    for (i = 0; i < 10000; i++)
        buf_adds(&key, "&amp;");
    page(&b, buf_cstr(&key), false);
    same_both_ways(b.data, b.len, S3C_ENOMEM);
    buf_release(&key);
    buf_release(&b);
}

TEST(xml_scan_prefixed_and_s3_pages_parse_alike)
{
    static const char prefixed[] =
        "<s3:ListBucketResult xmlns:s3=\"" S3_XML_NS "\"><s3:Contents><s3:Key>k</s3:Key><s3:Size>3</s3:Size>"
        "</s3:Contents></s3:ListBucketResult>";
    static const char over_entries[] = "<ListBucketResult><Contents><Key>a</Key></Contents><Contents>"
                                       "<Size>1</Size></Contents></ListBucketResult>";

    same_both_ways(prefixed, sizeof(prefixed) - 1, S3C_OK);
    same_both_ways(over_entries, sizeof(over_entries) - 1, S3C_EPARSE);
}
