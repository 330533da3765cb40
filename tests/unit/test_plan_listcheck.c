#include "t.h"

#include <stdio.h>

#include "plan/listcheck.h"

/* The containment check: a key is the verbs' only when it starts with the
 * prefix asked for; a common prefix only when it is longer than it. */
TEST(listcheck_key_containment)
{
    CHECK_INT(listcheck_key("a/", "a/1", false), LISTCHECK_OK);
    CHECK_INT(listcheck_key("a/", "a/", false), LISTCHECK_OK);          /* the "dir/" object itself */
    CHECK_INT(listcheck_key("a/", "a/b/c", false), LISTCHECK_OK);
    CHECK_INT(listcheck_key("a/", "b/important", false), LISTCHECK_OUTSIDE);
    CHECK_INT(listcheck_key("a/", "zz", false), LISTCHECK_OUTSIDE);
    CHECK_INT(listcheck_key("a/", "0first", false), LISTCHECK_OUTSIDE);  /* before the prefix */
    CHECK_INT(listcheck_key("a/", "a0", false), LISTCHECK_OUTSIDE);      /* beside it */
    CHECK_INT(listcheck_key("a/", "a", false), LISTCHECK_OUTSIDE);       /* shorter */
    CHECK_INT(listcheck_key("a/", "A/1", false), LISTCHECK_OUTSIDE);     /* bytes, not case */
    CHECK_INT(listcheck_key("a", "ab", false), LISTCHECK_OK);            /* ls s3://b/a: a prefix, not a folder */
    CHECK_INT(listcheck_key("", "anything", false), LISTCHECK_OK);
    CHECK_INT(listcheck_key(NULL, "anything", false), LISTCHECK_OK);
    /* Common prefixes: S3 sends them longer than the prefix, always. */
    CHECK_INT(listcheck_key("a/", "a/b/", true), LISTCHECK_OK);
    CHECK_INT(listcheck_key("a/", "a/", true), LISTCHECK_OUTSIDE);
    CHECK_INT(listcheck_key("a/", "b/", true), LISTCHECK_OUTSIDE);
    CHECK_INT(listcheck_key("", "b/", true), LISTCHECK_OK);
    CHECK_INT(listcheck_key("a", "a/", true), LISTCHECK_OK);
    /* A key holding a NUL (marked "" + encoded by the XML layer): never the verbs'. */
    CHECK_INT(listcheck_key("", "\0a%00b", false), LISTCHECK_UNNAMABLE);
    CHECK_INT(listcheck_key("a/", "\0a/%00", false), LISTCHECK_UNNAMABLE);
    CHECK(listcheck_why(LISTCHECK_OUTSIDE)[0] && listcheck_why(LISTCHECK_UNNAMABLE)[0]);
    CHECK_STR(listcheck_why(LISTCHECK_OK), "");
    CHECK_STR(listcheck_shown("a/1"), "a/1");
    CHECK_STR(listcheck_shown("\0a%00b"), "a%00b");
}

/* S3's order (UTF-8 binary, bytes unsigned), a marked key placed where its NUL puts it. */
TEST(listcheck_cmp_order)
{
    CHECK(listcheck_cmp("a", "b") < 0);
    CHECK(listcheck_cmp("b", "a") > 0);
    CHECK(listcheck_cmp("a", "a") == 0);
    CHECK(listcheck_cmp("\xc3\xa9", "z") > 0);           /* é after z: bytes are unsigned */
    /* "nul\0x": after "nul", before "nul!" and "num". */
    CHECK(listcheck_cmp("\0nul%00x", "nul") > 0);
    CHECK(listcheck_cmp("\0nul%00x", "nu") > 0);
    CHECK(listcheck_cmp("\0nul%00x", "nul!") < 0);
    CHECK(listcheck_cmp("\0nul%00x", "num") < 0);
    CHECK(listcheck_cmp("\0nul%00x", "nuk") > 0);
    CHECK(listcheck_cmp("\0a+b%00", "a b") > 0);         /* '+' is a space */
    CHECK(listcheck_cmp("\0a%2Fb%00", "a/b") > 0);
    CHECK(listcheck_cmp("\0a%2Fb%00", "a/c") < 0);
    CHECK(listcheck_cmp("\0%00", "") > 0);
    CHECK(listcheck_cmp("\0%00", "a") < 0);
}

TEST(listcheck_rises)
{
    CHECK(listcheck_rises(NULL, "a", false));
    CHECK(listcheck_rises("", "a", false));
    CHECK(listcheck_rises("a/1", "a/2", false));
    CHECK(!listcheck_rises("a/2", "a/2", false));        /* a page read again */
    CHECK(!listcheck_rises("a/2", "a/1", false));        /* start-after ignored */
    CHECK(listcheck_rises("a/2", "a/2", true));          /* versions of one key */
    CHECK(!listcheck_rises("a/2", "a/1", true));
    CHECK(listcheck_rises("nul", "\0nul%00x", false));
    CHECK(!listcheck_rises("num", "\0nul%00x", false));
}

/* A token followed twice, at once (repeat) or after others (a cycle), is refused;
 * a thousand pages in a row with nothing but a fresh token too. */
TEST(listcheck_tokens_repeat_cycle_empty)
{
    struct listcheck_tokens t = LISTCHECK_TOKENS_INIT;
    struct s3c_error e = S3C_ERROR_INIT;
    char tok[32];
    int i;

    CHECK_INT(listcheck_token(&t, "ListObjectsV2", "A", 2, &e), S3C_OK);
    CHECK_INT(listcheck_token(&t, "ListObjectsV2", "B", 2, &e), S3C_OK);
    CHECK_INT(listcheck_token(&t, "ListObjectsV2", "A", 2, &e), S3C_EPARSE);
    CHECK(strstr(e.msg, "ListObjectsV2") && strstr(e.msg, "\"A\"") && strstr(e.msg, "second time"));
    CHECK_INT(listcheck_token(&t, "ListObjectsV2", "B", 2, &e), S3C_EPARSE);
    /* Many distinct tokens: all kept (the set grows), none taken for another. */
    for (i = 0; i < 5000; i++) {
        snprintf(tok, sizeof(tok), "tok-%d", i);
        if (listcheck_token(&t, "ListObjectsV2", tok, 1, &e) != S3C_OK) {
            CHECK(!"a fresh token refused");
            break;
        }
    }
    CHECK_INT(listcheck_token(&t, "ListObjectsV2", "tok-4321", 1, &e), S3C_EPARSE);
    listcheck_tokens_release(&t);
    for (i = 0; i < LISTCHECK_EMPTY_PAGES_MAX + 5; i++) {
        snprintf(tok, sizeof(tok), "empty-%d", i);
        if (listcheck_token(&t, "ListObjectsV2", tok, 0, &e) != S3C_OK)
            break;
    }
    CHECK_INT(i, LISTCHECK_EMPTY_PAGES_MAX - 1);
    CHECK(strstr(e.msg, "no progress") != NULL);
    listcheck_tokens_release(&t);
    /* A page with entries resets the count. */
    for (i = 0; i < 3 * LISTCHECK_EMPTY_PAGES_MAX; i++) {
        snprintf(tok, sizeof(tok), "x-%d", i);
        if (listcheck_token(&t, "ListObjectsV2", tok, i % 500 == 0, &e) != S3C_OK) {
            CHECK(!"refused though entries came");
            break;
        }
    }
    listcheck_tokens_release(&t);
}
