/*
 * The engine's DeleteObjects batching (src/xfer/del.c): grouping per bucket,
 * batches of 1,000, flushing, the open-bucket limit, and per-key results.
 * Hostile keys go through the real body builder, are read back by expat (as
 * a store's XML parser reads them), and come back through the real reply
 * parser to be matched to their items.
 */
#include "t.h"

#include <expat.h>
#include <stdio.h>
#include <stdlib.h>

#include "xfer/del.h"

static char keys[2600][16];

static void fill_keys(void)
{
    int i;

    for (i = 0; i < 2600; i++)
        snprintf(keys[i], sizeof(keys[i]), "k%05d", i);
}

TEST(xfer_del_batches_of_1000_per_bucket)
{
    struct xfer_del_queue q = XFER_DEL_QUEUE_INIT(16);
    struct s3c_error e = S3C_ERROR_INIT;
    struct xfer_del_batch *b;
    int i, tag[2600];

    fill_keys();
    for (i = 0; i < 2500; i++) {
        tag[i] = i;
        CHECK_INT(xfer_del_add(&q, "bkt", NULL, keys[i], NULL, NULL, &tag[i], &e), S3C_OK);
    }
    /* Two full batches are ready at once; 500 keys wait for more. */
    CHECK_INT(q.n_ready_keys, 2000);
    CHECK_INT(q.n_open, 1);
    b = xfer_del_take(&q);
    CHECK(b != NULL);
    if (b) {
        CHECK_INT(b->n, 1000);
        CHECK_STR(b->items[0].key, "k00000");
        CHECK_STR(b->items[999].key, "k00999");
        CHECK(b->items[999].ctx == &tag[999]);
        CHECK_STR(b->bucket, "bkt");
    }
    xfer_del_batch_free(b);
    b = xfer_del_take(&q);
    CHECK(b && b->n == 1000 && !strcmp(b->items[0].key, "k01000"));
    xfer_del_batch_free(b);
    CHECK(xfer_del_take(&q) == NULL);
    CHECK(!xfer_del_idle(&q));
    xfer_del_flush(&q);
    b = xfer_del_take(&q);
    CHECK(b && b->n == 500 && !strcmp(b->items[499].key, "k02499"));
    xfer_del_batch_free(b);
    CHECK(xfer_del_idle(&q));
    CHECK_INT(q.n_ready_keys, 0);
}

TEST(xfer_del_buckets_and_payers_apart)
{
    struct xfer_del_queue q = XFER_DEL_QUEUE_INIT(2);
    struct s3c_error e = S3C_ERROR_INIT;
    struct xfer_del_batch *b;
    int i;

    fill_keys();
    /* Interleaved buckets never share a batch; a request payer is a batch of its own. */
    for (i = 0; i < 30; i++)
        CHECK_INT(xfer_del_add(&q, i % 2 ? "odd" : "even", NULL, keys[i], NULL, NULL, NULL, &e), S3C_OK);
    CHECK_INT(q.n_open, 2);
    CHECK(q.ready == NULL);
    /* A third open batch is one too many: the fullest (even, now 16 keys) is closed. */
    CHECK_INT(xfer_del_add(&q, "even", NULL, keys[30], NULL, NULL, NULL, &e), S3C_OK);
    CHECK_INT(xfer_del_add(&q, "odd", "requester", keys[31], NULL, NULL, NULL, &e), S3C_OK);
    CHECK_INT(q.n_open, 2);
    b = xfer_del_take(&q);
    CHECK(b && !strcmp(b->bucket, "even") && b->n == 16 && !b->payer);
    xfer_del_batch_free(b);
    xfer_del_flush(&q);
    for (i = 0; i < 2; i++) {
        b = xfer_del_take(&q);
        CHECK(b != NULL);
        if (b && b->payer) {
            CHECK_STR(b->payer, "requester");
            CHECK_INT(b->n, 1);
        } else if (b) {
            CHECK_STR(b->bucket, "odd");
            CHECK_INT(b->n, 15);
        }
        xfer_del_batch_free(b);
    }
    CHECK(xfer_del_idle(&q));
}

TEST(xfer_del_refuses_what_xml_cannot_carry)
{
    struct xfer_del_queue q = XFER_DEL_QUEUE_INIT(16);
    struct s3c_error e = S3C_ERROR_INIT;

    CHECK_INT(xfer_del_add(&q, "b", NULL, "", NULL, NULL, NULL, &e), S3C_EUSAGE);
    CHECK_INT(xfer_del_add(&q, "", NULL, "k", NULL, NULL, NULL, &e), S3C_EUSAGE);
    CHECK_INT(xfer_del_add(&q, "b", NULL, "ctl\x01key", NULL, NULL, NULL, &e), S3C_EPARSE);
    CHECK_INT(xfer_del_add(&q, "b", NULL, "k", "v\x02", NULL, NULL, &e), S3C_EPARSE);
    CHECK(xfer_del_idle(&q));
}

/* expat reads the <Key> texts back, as the store does. */
struct keys_back {
    char got[8][256];
    int n;
    bool in_key;
};

static void XMLCALL kb_start(void *ud, const XML_Char *name, const XML_Char **attrs)
{
    struct keys_back *k = ud;

    (void)attrs;
    k->in_key = !strcmp(name, "Key") && k->n < 8;
    if (k->in_key)
        k->got[k->n][0] = '\0';
}

static void XMLCALL kb_end(void *ud, const XML_Char *name)
{
    struct keys_back *k = ud;

    if (k->in_key && !strcmp(name, "Key"))
        k->n++;
    k->in_key = false;
}

static void XMLCALL kb_text(void *ud, const XML_Char *s, int len)
{
    struct keys_back *k = ud;
    size_t have;

    if (!k->in_key)
        return;
    have = strlen(k->got[k->n]);
    if (have + (size_t)len < sizeof(k->got[0])) {
        memcpy(k->got[k->n] + have, s, (size_t)len);
        k->got[k->n][have + (size_t)len] = '\0';
    }
}

TEST(xfer_del_hostile_keys_round_trip)
{
    static const char *hostile[] = {
        "sp ace/&amp;<lt>\"q\"'a'",
        "plus+pct%20sign%",
        "\xc3\xa9" "t\xc3\xa9/\xe6\x97\xa5\xe6\x9c\xac/\xf0\x9f\x98\x80",
        "cr\rlf\ntab\t",
        "nel\xc2\x85ls\xe2\x80\xa8" "end",
        "]]>cdata-end",
    };
    const size_t n = sizeof(hostile) / sizeof(hostile[0]);
    struct xfer_del_queue q = XFER_DEL_QUEUE_INIT(16);
    struct s3c_error e = S3C_ERROR_INIT;
    struct buf body = BUF_INIT(1 << 20), reply = BUF_INIT(1 << 20);
    struct s3_delete_result res = S3_DELETE_RESULT_INIT;
    struct keys_back kb;
    struct xfer_del_batch *b;
    XML_Parser p;
    size_t i;

    for (i = 0; i < n; i++)
        CHECK_INT(xfer_del_add(&q, "b", NULL, hostile[i], i == 1 ? "v1" : NULL, NULL, NULL, &e), S3C_OK);
    xfer_del_flush(&q);
    b = xfer_del_take(&q);
    CHECK(b != NULL);
    if (!b)
        return;
    CHECK_INT(xfer_del_body(b, &body, &e), S3C_OK);
    CHECK(strstr(buf_cstr(&body), "<Quiet>true</Quiet>") != NULL);
    CHECK(strstr(buf_cstr(&body), "<VersionId>v1</VersionId>") != NULL);

    memset(&kb, 0, sizeof(kb));
    p = XML_ParserCreate("UTF-8");
    XML_SetUserData(p, &kb);
    XML_SetElementHandler(p, kb_start, kb_end);
    XML_SetCharacterDataHandler(p, kb_text);
    CHECK(XML_Parse(p, body.data, (int)body.len, 1) == XML_STATUS_OK);
    XML_ParserFree(p);
    CHECK_INT(kb.n, (long long)n);
    for (i = 0; i < n && i < (size_t)kb.n; i++)
        CHECK_STR(kb.got[i], hostile[i]);

    /* The store answers: two keys failed (one with a version, one named twice never). */
    buf_adds(&reply, "<DeleteResult xmlns=\"" S3_XML_NS "\">");
    buf_adds(&reply, "<Error><Key>");
    s3_xml_escape(sv_from(hostile[0]), &reply, &e);
    buf_adds(&reply, "</Key><Code>AccessDenied</Code><Message>Access Denied</Message></Error>");
    buf_adds(&reply, "<Error><Key>");
    s3_xml_escape(sv_from(hostile[1]), &reply, &e);
    buf_adds(&reply, "</Key><VersionId>other</VersionId><Code>NoSuchVersion</Code><Message/></Error>");
    buf_adds(&reply, "<Error><Key>");
    s3_xml_escape(sv_from(hostile[3]), &reply, &e);
    buf_adds(&reply, "</Key><Code>InternalError</Code><Message/></Error>");
    buf_adds(&reply, "<Error><Key>not-in-batch</Key><Code>InternalError</Code></Error>");
    buf_adds(&reply, "</DeleteResult>");
    CHECK_INT(s3_parse_delete_result(buf_sv(&reply), &res, &e), S3C_OK);
    CHECK_INT(res.n_errors, 4);
    /* The version mismatch and the stranger name no item. */
    CHECK_INT(xfer_del_match(b, &res), 2);
    CHECK(b->items[0].err && !strcmp(b->items[0].err->code, "AccessDenied"));
    CHECK(b->items[1].err == NULL);
    CHECK(b->items[2].err == NULL);
    CHECK(b->items[3].err && !strcmp(b->items[3].err->code, "InternalError"));
    CHECK(b->items[4].err == NULL);
    CHECK(b->items[5].err == NULL);

    s3_delete_result_release(&res);
    xfer_del_batch_free(b);
    buf_release(&body);
    buf_release(&reply);
}

TEST(xfer_del_same_key_twice_both_fail)
{
    struct xfer_del_queue q = XFER_DEL_QUEUE_INIT(16);
    struct s3c_error e = S3C_ERROR_INIT;
    struct s3_delete_result res = S3_DELETE_RESULT_INIT;
    struct xfer_del_batch *b;

    CHECK_INT(xfer_del_add(&q, "b", NULL, "dup", NULL, NULL, NULL, &e), S3C_OK);
    CHECK_INT(xfer_del_add(&q, "b", NULL, "ok", NULL, NULL, NULL, &e), S3C_OK);
    CHECK_INT(xfer_del_add(&q, "b", NULL, "dup", NULL, NULL, NULL, &e), S3C_OK);
    xfer_del_flush(&q);
    b = xfer_del_take(&q);
    CHECK(b && b->n == 3);
    if (!b)
        return;
    CHECK_INT(s3_parse_delete_result(SV("<DeleteResult><Error><Key>dup</Key><Code>AccessDenied"
                                        "</Code><Message>no</Message></Error></DeleteResult>"),
                                     &res, &e), S3C_OK);
    CHECK_INT(xfer_del_match(b, &res), 0);
    CHECK(b->items[0].err != NULL);
    CHECK(b->items[1].err == NULL);
    CHECK(b->items[2].err != NULL);
    s3_delete_result_release(&res);
    xfer_del_batch_free(b);
}
