#include "t.h"

#include <stdlib.h>
#include <string.h>

#include "plan/merge.h"
#include "plan/xsort.h"

/* ---- a side from an array ------------------------------------------------------------ */

struct vec {
    const struct merge_entry *v;
    size_t n, i;
    size_t fail_at;     /* fail instead of yielding entry fail_at (0: never) */
    unsigned later;     /* bits: before entry i (i < 32), answer MERGE_NEXT_LATER once */
    unsigned latered;   /* the bits already answered */
};

static int vec_next(void *ctx, struct merge_entry *out, struct s3c_error *e)
{
    struct vec *s = ctx;

    if (s->i < 32 && (s->later >> s->i & 1) && !(s->latered >> s->i & 1)) {
        s->latered |= 1u << s->i; /* a page not here yet: the next call has it */
        return MERGE_NEXT_LATER;
    }
    if (s->fail_at && s->i + 1 == s->fail_at)
        return s3c_fail(e, S3C_EHTTP, "listing page failed"), -1;
    if (s->i >= s->n)
        return 0;
    *out = s->v[s->i++];
    return 1;
}

#define F(rel, size, mtime) { MERGE_FILE, SV(rel), (size), (mtime), SV_NULL, 0, false, 0 }
#define P(rel) { MERGE_PROTECT, SV(rel), 0, 0, SV_NULL, 0, false, 0 }
#define N(a) (sizeof(a) / sizeof((a)[0]))

/*
 * Run a merge to its end (or failure) and describe it, one decision a line:
 *   "copy R new|size|time", "skip R", "delete R", "keep R" or "keep R protected",
 * then "end" or "error: MSG".
 */
static void run_merge(const struct merge_opts *o, struct vec *src, struct vec *dst, char *out, size_t size)
{
    static const char *why[] = { "", " new", " size", " time", " protected", " same-second" };
    struct merge m;
    size_t used = 0;
    int guard = 0;

    out[0] = '\0';
    merge_init(&m, o, vec_next, src, vec_next, dst);
    while (guard++ < 100000) {
        struct merge_action a;
        struct s3c_error e = S3C_ERROR_INIT;
        enum s3c_err rc = merge_next(&m, &a, &e);

        if (!rc && a.act == MERGE_LATER) {
            used += (size_t)snprintf(out + used, size - used, "later\n");
            continue;
        }

        if (rc) {
            used += (size_t)snprintf(out + used, size - used, "error: %s\n", e.msg);
            /* A failed merge stays failed. */
            CHECK_INT(merge_next(&m, &a, &e), rc);
            break;
        }
        switch (a.act) {
        case MERGE_END:
            used += (size_t)snprintf(out + used, size - used, "end\n");
            CHECK_INT(merge_next(&m, &a, &e), S3C_OK);
            CHECK_INT(a.act, MERGE_END);
            merge_release(&m);
            return;
        case MERGE_COPY_IT:
            CHECK(a.src != NULL);
            used += (size_t)snprintf(out + used, size - used, "copy %s%s\n", a.src->rel.p, why[a.why]);
            break;
        case MERGE_SKIP:
            CHECK(a.src && a.dst);
            used += (size_t)snprintf(out + used, size - used, "skip %s\n", a.src->rel.p);
            break;
        case MERGE_DELETE:
            CHECK(a.dst != NULL && a.src == NULL);
            used += (size_t)snprintf(out + used, size - used, "delete %s\n", a.dst->rel.p);
            break;
        case MERGE_KEEP:
            CHECK(a.dst != NULL);
            used += (size_t)snprintf(out + used, size - used, "keep %s%s\n", a.dst->rel.p, why[a.why]);
            break;
        case MERGE_LATER:
            break; /* told above */
        }
    }
    merge_release(&m);
}

/* ---- byte order ------------------------------------------------------------------------- */

static int sv_qcmp(const void *a, const void *b)
{
    return merge_cmp(*(const struct sv *)a, *(const struct sv *)b);
}

TEST(merge_cmp_is_s3_byte_order)
{
    /* S3 lists UTF-8 keys by their bytes, unsigned: '-' 0x2D < '.' 0x2E < '/' 0x2F < '0' 0x30,
     * and every multi-byte character (lead byte >= 0xC2) after all of ASCII. */
    struct sv v[] = { SV("z"), SV("a0"), SV("\xc3\xa9t\xc3\xa9"), SV("a/b"), SV("a.b"), SV(""),
                      SV("a-b"), SV("a"), SV("\xe2\x82\xac"), SV("a/"), SV("A"), SV("a b"), SV("\x7f") };
    const char *want[] = { "", "A", "a", "a b", "a-b", "a.b", "a/", "a/b", "a0", "z", "\x7f",
                           "\xc3\xa9t\xc3\xa9", "\xe2\x82\xac" };
    size_t i;

    qsort(v, N(v), sizeof(v[0]), sv_qcmp);
    for (i = 0; i < N(v); i++) {
        char got[32];
        snprintf(got, sizeof(got), "%.*s", (int)v[i].n, v[i].p);
        CHECK_STR(got, want[i]);
    }
    CHECK(merge_cmp(SV("a"), SV("a")) == 0);
    CHECK(merge_cmp(SV("a"), SV("ab")) < 0);
    CHECK(merge_cmp(SV("ab"), SV("a")) > 0);
    CHECK(merge_cmp(SV("\xff"), SV("\x01")) > 0);
}

/* ---- the strategies ------------------------------------------------------------------ */

static int decide(enum merge_dir dir, bool size_only, bool exact, uint64_t ss, int64_t st, uint64_t ds,
                  int64_t dt)
{
    struct merge_opts o = { dir, size_only, exact, false, false, false };
    struct merge_entry s = F("k", ss, st), d = F("k", ds, dt);
    enum merge_why why;
    bool copy = merge_should_copy(&o, &s, &d, &why);

    CHECK_INT(copy, why != MERGE_WHY_NONE);
    return copy ? (int)why : 0;
}

TEST(merge_strategy_size_and_last_modified)
{
    /* Uploads and copies: a size difference, or a strictly newer source; the
     * same second cannot say (MERGE_WHY_SAME_SECOND: a checksum decides). */
    CHECK_INT(decide(MERGE_UPLOAD, false, false, 5, 100, 5, 100), MERGE_WHY_SAME_SECOND);
    CHECK_INT(decide(MERGE_COPY, false, false, 5, 100, 5, 100), MERGE_WHY_SAME_SECOND);
    CHECK_INT(decide(MERGE_UPLOAD, false, false, 5, 101, 5, 100), MERGE_WHY_TIME);
    CHECK_INT(decide(MERGE_UPLOAD, false, false, 5, 100, 5, 101), 0);
    CHECK_INT(decide(MERGE_UPLOAD, false, false, 5, 100, 6, 200), MERGE_WHY_SIZE);
    CHECK_INT(decide(MERGE_COPY, false, false, 5, 101, 5, 100), MERGE_WHY_TIME);
    CHECK_INT(decide(MERGE_COPY, false, false, 5, 99, 5, 100), 0);
    CHECK_INT(decide(MERGE_COPY, false, false, 0, 99, 1, 100), MERGE_WHY_SIZE);
    /* Downloads, as the AWS CLI does them: the object being newer than the
     * local file is NOT a reason (a download stamps LastModified on the file);
     * the local file being newer is. */
    CHECK_INT(decide(MERGE_DOWNLOAD, false, false, 5, 101, 5, 100), 0);
    CHECK_INT(decide(MERGE_DOWNLOAD, false, false, 5, 100, 5, 100), 0);
    CHECK_INT(decide(MERGE_DOWNLOAD, false, false, 5, 100, 5, 101), MERGE_WHY_TIME);
    CHECK_INT(decide(MERGE_DOWNLOAD, false, false, 5, 100, 4, 100), MERGE_WHY_SIZE);
}

/* Issue 22: a file rewritten, same size, within the second of the last sync. */
TEST(merge_strategy_same_second_at_full_precision)
{
    struct merge_opts up = { MERGE_UPLOAD, false, false, false, false, false }, down = { MERGE_DOWNLOAD, false, false, false, false, false };
    struct merge_opts exact = { MERGE_DOWNLOAD, false, true, false, false, false }, size = { MERGE_UPLOAD, true, false, false, false, false };
    struct merge_entry file = F("k", 5, 100), obj = F("k", 5, 100);
    enum merge_why why;

    /* Up: the object's second says nothing of a file written within it, whatever its fraction. */
    file.mtime_nsec = 700000000;
    CHECK(merge_should_copy(&up, &file, &obj, &why) && why == MERGE_WHY_SAME_SECOND);
    file.mtime_nsec = 0;
    CHECK(merge_should_copy(&up, &file, &obj, &why) && why == MERGE_WHY_SAME_SECOND);
    CHECK(!merge_should_copy(&size, &file, &obj, &why));
    /* Down: a download stamps the second itself (no fraction): not a change, --exact-timestamps too... */
    CHECK(!merge_should_copy(&down, &obj, &file, &why));
    CHECK(!merge_should_copy(&exact, &obj, &file, &why));
    /* ...but a fraction in that second is a file written since: a checksum decides. */
    file.mtime_nsec = 1;
    CHECK(merge_should_copy(&down, &obj, &file, &why) && why == MERGE_WHY_SAME_SECOND);
    CHECK(merge_should_copy(&exact, &obj, &file, &why) && why == MERGE_WHY_SAME_SECOND);
    /* S3 to S3: the store's milliseconds, on both sides, decide; else the same second is open. */
    {
        struct merge_opts copy = { MERGE_COPY, false, false, false, false, false };
        struct merge_entry s3src = F("k", 5, 100), s3dst = F("k", 5, 100);
        s3src.mtime_nsec = 300000000;
        s3dst.mtime_nsec = 700000000;
        CHECK(!merge_should_copy(&copy, &s3src, &s3dst, &why));
        CHECK(merge_should_copy(&copy, &s3dst, &s3src, &why) && why == MERGE_WHY_TIME);
        s3dst.mtime_nsec = 0;
        CHECK(merge_should_copy(&copy, &s3src, &s3dst, &why) && why == MERGE_WHY_SAME_SECOND);
        /* Up, the store's milliseconds against the local clock decide nothing. */
        s3dst.mtime_nsec = 900000000;
        file.mtime_nsec = 100000000;
        CHECK(merge_should_copy(&up, &file, &s3dst, &why) && why == MERGE_WHY_SAME_SECOND);
        file.mtime_nsec = 1;
    }
    /* Other seconds decide as before. */
    file.mtime = 99;
    CHECK(!merge_should_copy(&down, &obj, &file, &why));
    CHECK(!merge_should_copy(&up, &file, &obj, &why));
}

TEST(merge_strategy_size_only_and_exact_timestamps)
{
    CHECK_INT(decide(MERGE_UPLOAD, true, false, 5, 900, 5, 100), 0);
    CHECK_INT(decide(MERGE_DOWNLOAD, true, false, 5, 100, 5, 900), 0);
    CHECK_INT(decide(MERGE_COPY, true, false, 5, 100, 7, 100), MERGE_WHY_SIZE);
    /* --exact-timestamps: downloads copy on any time difference... */
    CHECK_INT(decide(MERGE_DOWNLOAD, false, true, 5, 101, 5, 100), MERGE_WHY_TIME);
    CHECK_INT(decide(MERGE_DOWNLOAD, false, true, 5, 100, 5, 101), MERGE_WHY_TIME);
    CHECK_INT(decide(MERGE_DOWNLOAD, false, true, 5, 100, 5, 100), 0);
    /* ...and changes nothing for uploads and copies. */
    CHECK_INT(decide(MERGE_UPLOAD, false, true, 5, 100, 5, 101), 0);
    CHECK_INT(decide(MERGE_COPY, false, true, 5, 101, 5, 100), MERGE_WHY_TIME);
    /* --size-only wins over --exact-timestamps. */
    CHECK_INT(decide(MERGE_DOWNLOAD, true, true, 5, 100, 5, 101), 0);
}

/* ---- the merge ---------------------------------------------------------------------- */

TEST(merge_every_decision)
{
    const struct merge_entry src[] = { F("a", 1, 100), F("a-b", 2, 100), F("a.b", 3, 100), F("a/b", 4, 200),
                                       F("a0", 5, 100), F("new", 6, 100) };
    const struct merge_entry dst[] = { F("a", 1, 150), F("a.b", 9, 150), F("a/b", 4, 150), F("a/c", 1, 1),
                                       F("a0", 5, 101), F("zz", 1, 1) };
    struct merge_opts o = { MERGE_UPLOAD, false, false, true, false, false };
    struct vec s = { src, N(src), 0, 0, 0, 0 }, d = { dst, N(dst), 0, 0, 0, 0 };
    char out[4096];

    run_merge(&o, &s, &d, out, sizeof(out));
    CHECK_STR(out, "skip a\n"
                   "copy a-b new\n"
                   "copy a.b size\n"
                   "copy a/b time\n"
                   "delete a/c\n"
                   "skip a0\n"
                   "copy new new\n"
                   "delete zz\n"
                   "end\n");
}

/* A side whose next entry is not here yet (a listing's page out on the engine's loop) makes
 * the merge answer MERGE_LATER and decide nothing: the decisions, asked again, are the same,
 * in the same order, whichever side was late and where (an entry held by the other side is
 * neither lost nor decided twice). */
TEST(merge_side_later_decides_the_same)
{
    const struct merge_entry src[] = { F("a", 1, 100), F("a-b", 2, 100), F("a.b", 3, 100), F("a/b", 4, 200),
                                       F("a0", 5, 100), F("new", 6, 100) };
    const struct merge_entry dst[] = { F("a", 1, 150), F("a.b", 9, 150), F("a/b", 4, 150), F("a/c", 1, 1),
                                       F("a0", 5, 101), F("zz", 1, 1) };
    static const unsigned lates[][2] = { { 1, 0 }, { 0, 1 }, { 0x3f, 0 }, { 0, 0x3f }, { 0x15, 0x2a }, { 0x7f, 0x7f } };
    struct merge_opts o = { MERGE_UPLOAD, false, false, true, false, false };
    char want[4096], out[4096];
    size_t k;

    {
        struct vec s = { src, N(src), 0, 0, 0, 0 }, d = { dst, N(dst), 0, 0, 0, 0 };
        run_merge(&o, &s, &d, want, sizeof(want));
    }
    for (k = 0; k < N(lates); k++) {
        struct vec s = { src, N(src), 0, 0, lates[k][0], 0 }, d = { dst, N(dst), 0, 0, lates[k][1], 0 };
        char *p, *q;
        int n_later = 0;

        run_merge(&o, &s, &d, out, sizeof(out));
        /* Without its "later" lines, the same story. */
        for (p = q = out; *p;) {
            if (!strncmp(p, "later\n", 6)) {
                p += 6;
                n_later++;
                continue;
            }
            *q++ = *p++;
        }
        *q = '\0';
        CHECK_STR(out, want);
        /* Every late answer was asked again (both sides late at once: one MERGE_LATER). */
        CHECK(n_later >= 1);
        CHECK_INT(s.latered, lates[k][0] & 0x7f);
        CHECK_INT(d.latered, lates[k][1] & 0x7f);
    }
}

/* A key list's names (no size, no time): copied when missing, else left alone. */
TEST(merge_names_only)
{
    const struct merge_entry src[] = { { MERGE_NAME, SV("a"), 0, 0, SV_NULL, 0, false, 0 }, { MERGE_NAME, SV("b"), 0, 0, SV_NULL, 0, false, 0 } };
    const struct merge_entry dst[] = { F("b", 7, 1), F("c", 1, 1) };
    struct merge_opts o = { MERGE_COPY, false, false, true, false, false };
    struct vec s = { src, N(src), 0, 0, 0, 0 }, d = { dst, N(dst), 0, 0, 0, 0 };
    char out[4096];

    run_merge(&o, &s, &d, out, sizeof(out));
    CHECK_STR(out, "copy a new\n"
                   "skip b\n"
                   "delete c\n"
                   "end\n");
}

TEST(merge_without_delete_keeps)
{
    const struct merge_entry src[] = { F("b", 1, 1) };
    const struct merge_entry dst[] = { F("a", 1, 1), F("b", 1, 1), F("c", 1, 1) };
    struct merge_opts o = { MERGE_DOWNLOAD, false, false, false, false, false };
    struct vec s = { src, N(src), 0, 0, 0, 0 }, d = { dst, N(dst), 0, 0, 0, 0 };
    char out[1024];

    run_merge(&o, &s, &d, out, sizeof(out));
    CHECK_STR(out, "keep a\nskip b\nkeep c\nend\n");
}

TEST(merge_empty_sides)
{
    const struct merge_entry one[] = { F("x", 1, 1), F("y", 1, 1) };
    struct merge_opts o = { MERGE_COPY, false, false, true, false, false };
    struct vec s = { NULL, 0, 0, 0, 0, 0 }, d = { NULL, 0, 0, 0, 0, 0 };
    char out[1024];

    run_merge(&o, &s, &d, out, sizeof(out));
    CHECK_STR(out, "end\n");
    s = (struct vec){ one, N(one), 0, 0, 0, 0 };
    d = (struct vec){ NULL, 0, 0, 0, 0, 0 };
    run_merge(&o, &s, &d, out, sizeof(out));
    CHECK_STR(out, "copy x new\ncopy y new\nend\n");
    s = (struct vec){ NULL, 0, 0, 0, 0, 0 };
    d = (struct vec){ one, N(one), 0, 0, 0, 0 };
    run_merge(&o, &s, &d, out, sizeof(out));
    CHECK_STR(out, "delete x\ndelete y\nend\n");
}

TEST(merge_unreadable_directory_protects_its_subtree)
{
    /* The walk could not read "dir/": nothing under it may be deleted, but
     * "dir0", "dir-x" and "dirty" (outside it) still are. */
    const struct merge_entry src[] = { F("a", 1, 1), P("dir/"), F("e", 1, 1) };
    const struct merge_entry dst[] = { F("dir", 1, 1), F("dir-x", 1, 1), F("dir/", 0, 1), F("dir/a", 1, 1),
                                       F("dir/b/c", 1, 1), F("dir0", 1, 1), F("dirty", 1, 1) };
    struct merge_opts o = { MERGE_UPLOAD, false, false, true, false, false };
    struct vec s = { src, N(src), 0, 0, 0, 0 }, d = { dst, N(dst), 0, 0, 0, 0 };
    char out[4096];

    run_merge(&o, &s, &d, out, sizeof(out));
    CHECK_STR(out, "copy a new\n"
                   "delete dir\n"
                   "delete dir-x\n"
                   "keep dir/ protected\n"
                   "keep dir/a protected\n"
                   "keep dir/b/c protected\n"
                   "delete dir0\n"
                   "delete dirty\n"
                   "copy e new\n"
                   "end\n");
}

TEST(merge_unreadable_file_protects_itself_only)
{
    const struct merge_entry src[] = { P("x") };
    const struct merge_entry dst[] = { F("x", 1, 1), F("x/y", 1, 1), F("xy", 1, 1) };
    struct merge_opts o = { MERGE_UPLOAD, false, false, true, false, false };
    struct vec s = { src, N(src), 0, 0, 0, 0 }, d = { dst, N(dst), 0, 0, 0, 0 };
    char out[1024];

    run_merge(&o, &s, &d, out, sizeof(out));
    CHECK_STR(out, "keep x protected\ndelete x/y\ndelete xy\nend\n");
}

TEST(merge_destination_protect_entries_count_as_absent)
{
    const struct merge_entry src[] = { F("d/a", 1, 1) };
    const struct merge_entry dst[] = { P("d/"), F("e", 1, 1) };
    struct merge_opts o = { MERGE_DOWNLOAD, false, false, true, false, false };
    struct vec s = { src, N(src), 0, 0, 0, 0 }, d = { dst, N(dst), 0, 0, 0, 0 };
    char out[1024];

    run_merge(&o, &s, &d, out, sizeof(out));
    CHECK_STR(out, "copy d/a new\ndelete e\nend\n");
}

TEST(merge_unicode_and_shell_hostile_names)
{
    const struct merge_entry src[] = { F("a b", 1, 1), F("a#b", 1, 1), F("a%20b", 1, 1), F("a+b", 1, 1),
                                       F("caf\xc3\xa9", 1, 1), F("\xe6\x97\xa5\xe6\x9c\xac", 2, 1) };
    const struct merge_entry dst[] = { F("a b", 1, 2), F("a+b", 1, 2), F("cafe", 1, 2),
                                       F("caf\xc3\xa9", 1, 2), F("\xe6\x97\xa5\xe6\x9c\xac", 1, 2) };
    struct merge_opts o = { MERGE_COPY, false, false, true, false, false };
    struct vec s = { src, N(src), 0, 0, 0, 0 }, d = { dst, N(dst), 0, 0, 0, 0 };
    char out[4096];

    run_merge(&o, &s, &d, out, sizeof(out));
    CHECK_STR(out, "skip a b\n"
                   "copy a#b new\n"
                   "copy a%20b new\n"
                   "skip a+b\n"
                   "delete cafe\n"
                   "skip caf\xc3\xa9\n"
                   "copy \xe6\x97\xa5\xe6\x9c\xac size\n"
                   "end\n");
}

TEST(merge_refuses_unsorted_side_before_deleting)
{
    /* The destination lists "c" before "a": without the check the merge would
     * copy "a" as missing and then delete it. It must stop at "a" instead. */
    const struct merge_entry src[] = { F("a", 1, 1), F("c", 1, 1) };
    const struct merge_entry dst[] = { F("c", 1, 2), F("a", 1, 2) };
    const struct merge_entry dup[] = { F("a", 1, 1), F("a", 1, 1) };
    struct merge_opts o = { MERGE_UPLOAD, false, false, true, false, false };
    struct vec s = { src, N(src), 0, 0, 0, 0 }, d = { dst, N(dst), 0, 0, 0, 0 };
    char out[1024];

    run_merge(&o, &s, &d, out, sizeof(out));
    CHECK_STR(out, "copy a new\nskip c\nerror: the destination listing is not in key order (\"a\" after \"c\")\n");
    CHECK(!strstr(out, "delete"));
    /* Duplicates are out of order too. */
    s = (struct vec){ dup, N(dup), 0, 0, 0, 0 };
    d = (struct vec){ NULL, 0, 0, 0, 0, 0 };
    run_merge(&o, &s, &d, out, sizeof(out));
    CHECK_STR(out, "copy a new\nerror: the source listing is not in key order (\"a\" after \"a\")\n");
}

TEST(merge_side_failure_ends_merge)
{
    const struct merge_entry src[] = { F("a", 1, 1), F("b", 1, 1) };
    const struct merge_entry dst[] = { F("a", 1, 2), F("b", 1, 2), F("c", 1, 2) };
    struct merge_opts o = { MERGE_UPLOAD, false, false, true, false, false };
    struct vec s = { src, N(src), 0, 0, 0, 0 }, d = { dst, N(dst), 0, 2, 0, 0 };
    char out[1024];

    /* The destination's second page fails: no delete may follow, whatever the source holds. */
    run_merge(&o, &s, &d, out, sizeof(out));
    CHECK_STR(out, "skip a\nerror: listing page failed\n");
}

/* ---- the external sort -------------------------------------------------------------- */

/* A side of 'count' entries "k<number>" (size = number, etag "e<number>") in a scrambled
 * order, answering MERGE_NEXT_LATER before every seventh (a page out). */
struct scrambled {
    size_t count, i;
    unsigned calls;
    char name[32], etag[32];
};

static int scrambled_next(void *ctx, struct merge_entry *out, struct s3c_error *e)
{
    struct scrambled *g = ctx;
    size_t k;

    (void)e;
    if (++g->calls % 7 == 0)
        return MERGE_NEXT_LATER;
    if (g->i >= g->count)
        return 0;
    k = (g->i++ * 7919) % g->count;     /* a permutation: 7919 is prime, count is not a multiple */
    snprintf(g->name, sizeof(g->name), "k%06zu", k);
    snprintf(g->etag, sizeof(g->etag), "e%zu", k);
    *out = (struct merge_entry)F("", 0, 0);
    out->rel = sv_from(g->name);
    out->etag = sv_from(g->etag);
    out->size = k;
    out->mtime = -(int64_t)k;
    out->kind = k % 5 ? MERGE_FILE : MERGE_PROTECT;
    return 1;
}

/* Sort the scrambled entries, added one by one (or, 'bg', through xsort_fill with the background
 * thread, polled as the engine polls), and check what comes out and how many runs it took. */
static void xsort_check_as(size_t count, size_t budget, uint64_t want_runs_min, uint64_t want_runs_max, bool bg)
{
    struct s3c_error e = S3C_ERROR_INIT;
    struct xsort *s = xsort_new(budget, NULL, &e);
    struct scrambled g = { count, 0, 0, "", "" };
    char prev[32] = "";
    size_t n = 0;
    struct merge_entry en;
    int r;

    CHECK(s != NULL);
    if (!s)
        return;
    if (bg) {
        xsort_background(s);
        while ((r = xsort_fill(s, scrambled_next, &g, &e)) == MERGE_NEXT_LATER)
            ;
        CHECK_INT(r, 0);
    } else {
        g.calls = 1; /* never a seventh: no later */
        while ((r = scrambled_next(&g, &en, &e)) != 0) {
            if (r == MERGE_NEXT_LATER)
                continue;
            CHECK_INT(xsort_add(s, &en, &e), S3C_OK);
        }
    }
    while ((r = xsort_next(s, &en, &e)) == 1) {
        char want[32], want_etag[32];
        snprintf(want, sizeof(want), "k%06zu", n);
        snprintf(want_etag, sizeof(want_etag), "e%zu", n);
        CHECK_STR(en.rel.p, want);
        CHECK_STR(en.etag.p, want_etag);
        CHECK_INT(en.size, n);
        CHECK_INT(en.mtime, -(int64_t)n);
        CHECK_INT(en.kind, n % 5 ? MERGE_FILE : MERGE_PROTECT);
        CHECK(strcmp(prev, en.rel.p) < 0);
        snprintf(prev, sizeof(prev), "%s", en.rel.p);
        n++;
    }
    CHECK_INT(r, 0);
    CHECK_INT(n, count);
    CHECK_INT(xsort_next(s, &en, &e), 0);
    CHECK(xsort_runs(s) >= want_runs_min);
    CHECK(xsort_runs(s) <= want_runs_max);
    xsort_free(s);
}

static void xsort_check(size_t count, size_t budget, uint64_t want_runs_min, uint64_t want_runs_max)
{
    xsort_check_as(count, budget, want_runs_min, want_runs_max, false);
    xsort_check_as(count, budget, want_runs_min, want_runs_max, true);
}

TEST(xsort_in_memory)
{
    xsort_check(1000, 0, 0, 0);
    xsort_check(1, 0, 0, 0);
}

TEST(xsort_tiny_budget_spills_and_merges_in_passes)
{
    /* ~50-byte records, 1 KiB budget: about 20 per run, so 5000 entries make
     * ~250 runs, more than XSORT_FANIN: merged in passes. */
    xsort_check(5000, 1024, XSORT_FANIN + 1, 5000);
    /* A budget smaller than one record still sorts (one record a run). */
    xsort_check(100, 1, 100, 100);
    /* Just over the fan-in. */
    xsort_check(400, 400, 2, 400);
}

TEST(xsort_empty)
{
    struct s3c_error e = S3C_ERROR_INIT;
    struct xsort *s = xsort_new(64, NULL, &e);
    struct merge_entry en;

    CHECK_INT(xsort_next(s, &en, &e), 0);
    CHECK_INT(xsort_runs(s), 0);
    xsort_free(s);
    xsort_free(NULL);
}

TEST(xsort_feeds_merge)
{
    /* An unsorted destination (as S3 Express lists) sorted on disk, then merged. */
    const struct merge_entry src[] = { F("a", 1, 5), F("b/c", 2, 5), F("d", 3, 5) };
    const struct merge_entry dst[] = { F("z", 1, 1), F("d", 3, 9), F("a", 1, 9), F("b-c", 1, 1) };
    struct merge_opts o = { MERGE_UPLOAD, false, false, true, false, false };
    struct vec s = { src, N(src), 0, 0, 0, 0 }, d = { dst, N(dst), 0, 0, 0, 0 };
    struct s3c_error e = S3C_ERROR_INIT;
    struct xsort *x = xsort_new(40, NULL, &e);
    struct merge m;
    struct merge_action a;
    char out[1024];
    size_t used = 0;

    CHECK_INT(xsort_add_all(x, vec_next, &d, &e), S3C_OK);
    merge_init(&m, &o, vec_next, &s, xsort_next, x);
    while (merge_next(&m, &a, &e) == S3C_OK && a.act != MERGE_END)
        used += (size_t)snprintf(out + used, sizeof(out) - used, "%d %s\n", a.act,
                                 a.src ? a.src->rel.p : a.dst->rel.p);
    CHECK_STR(out, "2 a\n3 b-c\n1 b/c\n2 d\n3 z\n");
    CHECK(xsort_runs(x) >= 2);
    merge_release(&m);
    xsort_free(x);
}

TEST(xsort_add_all_passes_failure)
{
    const struct merge_entry dst[] = { F("a", 1, 1), F("b", 1, 1) };
    struct vec d = { dst, N(dst), 0, 2, 0, 0 };
    struct s3c_error e = S3C_ERROR_INIT;
    struct xsort *x = xsort_new(0, NULL, &e);

    CHECK_INT(xsort_add_all(x, vec_next, &d, &e), S3C_EHTTP);
    CHECK_STR(e.msg, "listing page failed");
    xsort_free(x);
}

/* sync --checksum: every entry of one size at both ends goes to be proven by content, with what
 * size and time would have said; a size that differs copies as before. */
TEST(merge_strategy_checksum_defers_one_size_to_content)
{
    struct merge_opts up = { MERGE_UPLOAD, false, false, false, true, false };
    struct merge_opts down = { MERGE_DOWNLOAD, false, false, false, true, false };
    struct merge_entry older = F("k", 5, 100), newer = F("k", 5, 200), longer = F("k", 6, 100);
    enum merge_why why;

    CHECK(merge_should_copy(&up, &older, &newer, &why) && why == MERGE_WHY_CHECKSUM);
    CHECK(merge_should_copy(&up, &newer, &older, &why) && why == MERGE_WHY_CHECKSUM_TIME);
    CHECK(merge_should_copy(&up, &older, &older, &why) && why == MERGE_WHY_CHECKSUM_TIME); /* same second */
    CHECK(merge_should_copy(&down, &newer, &older, &why) && why == MERGE_WHY_CHECKSUM); /* (the CLI: a newer object is no change) */
    CHECK(merge_should_copy(&up, &longer, &older, &why) && why == MERGE_WHY_SIZE);
}

/* Issue 26: sync down when downloads set the mtimes objects record (merge.h, "Recorded mtimes"). */
TEST(merge_strategy_recorded_mtimes)
{
    struct merge_opts down = { MERGE_DOWNLOAD, false, false, false, false, true };
    struct merge_opts exact = { MERGE_DOWNLOAD, false, true, false, false, true };
    struct merge_entry obj = F("k", 5, 1000), file = F("k", 5, 400);
    enum merge_why why;

    /* Older, its status changed after the object was written (a download that set the recorded
     * mtime): up to date, no request. */
    file.ctime = 1005;
    CHECK(!merge_should_copy(&down, &obj, &file, &why));
    /* Older, its status changed before: the object may be a newer upload of the same size. */
    file.ctime = 999;
    CHECK(merge_should_copy(&down, &obj, &file, &why) && why == MERGE_WHY_RECORDED);
    /* Newer than the object: changed since, or a recorded mtime ahead of the store's clock. */
    file.mtime = 1001;
    file.ctime = 2000;
    CHECK(merge_should_copy(&down, &obj, &file, &why) && why == MERGE_WHY_RECORDED_COPY);
    /* LastModified itself (an object that records nothing): as the AWS CLI, no request. */
    file.mtime = 1000;
    CHECK(!merge_should_copy(&down, &obj, &file, &why));
    /* --exact-timestamps: any other time asks the recorded mtime, and copies without one. */
    file.mtime = 400;
    CHECK(merge_should_copy(&exact, &obj, &file, &why) && why == MERGE_WHY_RECORDED_COPY);
    file.mtime = 1000;
    CHECK(!merge_should_copy(&exact, &obj, &file, &why));
    /* Another size decides alone. */
    file.size = 6;
    CHECK(merge_should_copy(&down, &obj, &file, &why) && why == MERGE_WHY_SIZE);
}
