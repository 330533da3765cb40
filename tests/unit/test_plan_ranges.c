#include "t.h"

#include "plan/ranges.h"

/* The points of a cut, as one string "p1|p2|...". */
static const char *points(const struct ranges_alphabet *a, const char *first, const char *last, const char *hi,
                          size_t from, size_t max)
{
    static char out[4096];
    struct buf b = BUF_INIT(1 << 20);
    size_t n = ranges_split(a, sv_from(first), sv_from(last), hi, from, max, &b), i, at = 0;

    out[0] = '\0';
    for (i = 0; i < n; i++) {
        const char *p = b.data + at;
        if (i)
            strncat(out, "|", sizeof(out) - strlen(out) - 1);
        strncat(out, p, sizeof(out) - strlen(out) - 1);
        at += strlen(p) + 1;
    }
    buf_release(&b);
    return out;
}

static void digits(struct ranges_alphabet *a)
{
    memset(a, 0, sizeof(*a));
    ranges_alphabet_add(a, SV("p/0123456789"), 2);
}

TEST(ranges_split_flat_numbers)
{
    struct ranges_alphabet a;

    digits(&a);
    /* After the page 000000..000999 of p/: the blocks of 1,000, then of 10,000... */
    CHECK_STR(points(&a, "p/000000000", "p/000000999", NULL, 2, 12),
              "p/000001|p/000002|p/000003|p/000004|p/000005|p/000006|p/000007|p/000008|p/000009|p/00001|p/00002|p/00003");
    /* Up to hi only, never at or past it. */
    CHECK_STR(points(&a, "p/000010000", "p/000010999", "p/00002", 2, 64),
              "p/000011|p/000012|p/000013|p/000014|p/000015|p/000016|p/000017|p/000018|p/000019");
    /* A block that fills its range: nothing to cut. */
    CHECK_STR(points(&a, "p/000001000", "p/000001999", "p/000002", 2, 64), "");
    CHECK_STR(points(&a, "p/000001000", "p/000001999", "p/0000019", 2, 64), "");
}

TEST(ranges_split_tree)
{
    struct ranges_alphabet a;
    const char *pts;

    memset(&a, 0, sizeof(a));
    ranges_alphabet_add(&a, SV("d012/f3456"), 0);
    ranges_alphabet_add(&a, SV("d789/f0000"), 0);
    /* The first page d000/f0000..d000/f0999: the cuts fall on directory names. */
    pts = points(&a, "d000/f0000", "d000/f0999", NULL, 0, 64);
    CHECK(strstr(pts, "d001|d002|") != NULL);
    CHECK(strstr(pts, "d01|d02|") != NULL);
    CHECK(strstr(pts, "d1|d2|") != NULL);
}

TEST(ranges_split_points_increase_and_stay_inside)
{
    struct ranges_alphabet a;
    struct buf b = BUF_INIT(1 << 20);
    const char *prev = "ab/x7Qz";
    size_t n, i, at = 0;

    memset(&a, 0, sizeof(a));
    ranges_alphabet_add(&a, SV("ab/AZaz09-_.~!"), 3);
    n = ranges_split(&a, SV("ab/x1"), SV("ab/x7Qz"), "ab/z", 3, 200, &b);
    CHECK(n > 0);
    for (i = 0; i < n; i++) {
        const char *p = b.data + at;
        CHECK(strcmp(p, prev) > 0);
        CHECK(strcmp(p, "ab/z") < 0);
        CHECK(strncmp(p, "ab/", 3) == 0);
        prev = p;
        at += strlen(p) + 1;
    }
    /* At most RANGES_PER_DEPTH_MAX a depth, and 'max' in all. */
    CHECK(n <= 2 * RANGES_PER_DEPTH_MAX);
    buf_reset(&b);
    CHECK_INT(ranges_split(&a, SV("ab/x1"), SV("ab/x7Qz"), "ab/z", 3, 5, &b), 5);
    /* Narrower than a block of the page's shape: cut at the page's own depth,
     * a point every as many characters as the page spanned (1..7: 7). */
    buf_reset(&b);
    CHECK_STR(points(&a, "ab/x1", "ab/x7Qz", "ab/y", 3, 64), "ab/xA|ab/xZ|ab/x_|ab/xa|ab/xz|ab/x~");
    digits(&a);
    CHECK_STR(points(&a, "q/1000", "q/1299", "q/2", 2, 64), "q/16|q/19");
    /* A last key no longer than the prefix, or an empty alphabet: no cut. */
    CHECK_INT(ranges_split(&a, SV("ab/"), SV("ab/"), NULL, 3, 10, &b), 0);
    memset(&a, 0, sizeof(a));
    CHECK_INT(ranges_split(&a, SV("ab/x1"), SV("ab/x7"), NULL, 3, 10, &b), 0);
    buf_release(&b);
}
