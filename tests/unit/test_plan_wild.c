#include "t.h"

#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "plan/wild.h"
#include "test_plan_wild_ref.h"

static bool wm(const char *pattern, const char *s)
{
    return wild_match(pattern, sv_from(s));
}

static bool fm(const char *pattern, const char *s)
{
    return wild_fnmatch(sv_from(pattern), sv_from(s));
}

static void check_prefix(const char *pattern, const char *want)
{
    struct buf b = BUF_INIT(1024);

    CHECK_INT(wild_prefix(pattern, &b), S3C_OK);
    CHECK_STR(buf_cstr(&b), want);
    buf_release(&b);
}

static void check_rel(const char *pattern, const char *key, const char *want)
{
    struct sv r = wild_relative(pattern, sv_from(key));
    char *got = sv_dup(r);

    CHECK_STR(got, want);
    free(got);
}

TEST(wild_has_and_prefix)
{
    CHECK(wild_has("dir/*.txt"));
    CHECK(wild_has("a?"));
    CHECK(wild_has("a\\\\*"));          /* escaped backslash, then a star */
    CHECK(!wild_has("dir/file.txt"));
    CHECK(!wild_has("a\\*b\\?"));       /* both escaped */
    CHECK(!wild_has("[abc]"));          /* no sets in the s5cmd language */
    CHECK(!wild_has(""));
    CHECK_INT(wild_prefix_len("dir/*.txt"), 4);
    CHECK_INT(wild_prefix_len("a\\*b*"), 4);
    CHECK_INT(wild_prefix_len("abc"), 3);
    check_prefix("dir/*.txt", "dir/");
    check_prefix("dir/log-2?.gz", "dir/log-2");
    check_prefix("*", "");
    check_prefix("a\\*b\\\\c*", "a*b\\c");
    check_prefix("a\\b*", "a\\b");      /* '\' before other bytes stays */
    check_prefix("plain/key", "plain/key");
}

static void check_prefix_dir(const char *pattern, const char *want)
{
    struct buf b = BUF_INIT(1024);

    CHECK_INT(wild_prefix_dir(pattern, &b), S3C_OK);
    CHECK_STR(buf_cstr(&b), want);
    buf_release(&b);
}

TEST(wild_prefix_dir_for_local_walks)
{
    struct buf small = BUF_INIT(3);

    check_prefix_dir("logs/2024-*", "logs/");
    check_prefix_dir("/data/x/*.log", "/data/x/");
    check_prefix_dir("*.txt", "");
    check_prefix_dir("a?/b/*", "");
    check_prefix_dir("a\\\\*b/c/*", "");     /* "a\\" then a star: no '/' before it */
    check_prefix_dir("d\\*/e/f*", "d*/e/");   /* an escaped star is literal */
    check_prefix_dir("no/wildcard", "no/");
    CHECK_INT(wild_prefix_dir("abcd/*", &small), S3C_ENOMEM);
    CHECK_STR(buf_cstr(&small), "");
    buf_release(&small);
}

TEST(wild_match_semantics)
{
    CHECK(wm("dir/*.txt", "dir/a.txt"));
    CHECK(wm("dir/*.txt", "dir/a/b/c.txt"));    /* '*' crosses '/' */
    CHECK(wm("dir/*.txt", "dir/.txt"));
    CHECK(!wm("dir/*.txt", "dir/a.txt.gz"));    /* anchored at the end */
    CHECK(!wm("dir/*.txt", "xdir/a.txt"));      /* and at the start */
    CHECK(wm("a?c", "abc"));
    CHECK(wm("a?c", "a/c"));                    /* '?' matches '/' too */
    CHECK(!wm("a?c", "ac"));
    CHECK(!wm("a?c", "abbc"));
    CHECK(wm("a?c", "a\xc3\xa9" "c"));          /* one code point, two bytes */
    CHECK(wm("a??c", "a\xff\xfe" "c"));         /* invalid bytes: one each */
    CHECK(!wm("a?c", "a\xff\xfe" "c"));
    CHECK(wm("**", ""));
    CHECK(wm("a/**/b", "a/x/y/b"));
    CHECK(wm("a/**/b", "a//b"));
    CHECK(!wm("a/**/b", "a/b"));                /* '**' is '*': the slashes stay */
    CHECK(wm("*", "anything/at/all\n"));
    CHECK(wm("", ""));
    CHECK(!wm("", "a"));
    CHECK(wm("a\\*", "a*"));
    CHECK(!wm("a\\*", "ab"));
    CHECK(wm("a\\?", "a?"));
    CHECK(!wm("a\\?", "ab"));
    CHECK(wm("a\\\\*", "a\\xyz"));
    CHECK(wm("a\\b", "a\\b"));
    CHECK(wm("[ab]", "[ab]"));                  /* brackets are literal here */
    CHECK(!wm("[ab]", "a"));
    CHECK(wm("key/*/b/*/c/*.tsv", "key/a/b/c/c/file.tsv"));
    CHECK(!wm("prefix/*/c/*.tsv", "prefix/a/b/c/c/file.bsv"));
    CHECK(!wm("*.tsv", "a/b/c.csv"));
    CHECK(wm("*a*b*", "xxaxxbxx"));
    CHECK(wm("*ab", "aab"));                    /* needs the star to give back */
    CHECK(wm("*aab", "aaab"));
    CHECK(!wm("*aab", "aaba"));
}

/* Local paths, as s5cmd's filepath.Glob: one component at a time; a matched directory whole. */
TEST(wild_path_match_by_component)
{
    CHECK(wild_path_match("d1/*.txt", sv_from("d1/a.txt")));
    CHECK(!wild_path_match("d1/*.txt", sv_from("d1/d2/deep.txt")));
    CHECK(wild_path_match("d1/*", sv_from("d1/d2/deep.txt")));      /* under d1/d2, which matched */
    CHECK(wild_path_match("d1/d?", sv_from("d1/d2/x/y")));
    CHECK(!wild_path_match("d1/?", sv_from("d1/d2")));
    CHECK(!wild_path_match("d1/*/x", sv_from("d1/d2")));            /* shorter than the pattern */
    CHECK(wild_path_match("*/x", sv_from("a/x")));
    CHECK(!wild_path_match("*", sv_from("")));
    CHECK(wild_path_match("a\\*b/c", sv_from("a*b/c")));             /* \* is a literal star */
    CHECK(!wild_path_match("a\\*b/c", sv_from("axb/c")));
    CHECK(wild_path_match("d*/", sv_from("dx/f")));                 /* a trailing '/' adds nothing */
    /* Where a walk may go: every component so far matches. */
    CHECK(wild_path_enter("d1/*/x*", sv_from("d1")));
    CHECK(wild_path_enter("d1/*/x*", sv_from("d1/any")));
    CHECK(wild_path_enter("d1/*/x*", sv_from("d1/any/xy")));        /* a matched directory */
    CHECK(wild_path_enter("d1/*/x*", sv_from("d1/any/xy/deeper")));
    CHECK(!wild_path_enter("d1/*/x*", sv_from("d1/any/other")));
    CHECK(!wild_path_enter("d1/*.txt", sv_from("d2")));
}

TEST(wild_match_pathological_stays_fast)
{
    size_t n = 1 << 20;
    char *s = malloc(n + 2);
    clock_t t0 = clock();
    double secs;

    memset(s, 'a', n);
    s[n] = '\0';
    CHECK(!wm("a*a*a*a*a*a*a*a*a*a*b", s));
    CHECK(!wm("*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*ab", s));
    CHECK(!fm("*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*[b]", s));
    CHECK(wm("a*a*a*a*a*a*a*a*a*a*", s));
    s[n] = 'b', s[n + 1] = '\0';
    CHECK(wm("a*a*a*a*a*a*a*a*a*a*b", s));
    secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
    if (secs > 2.0)
        t_fail(__FILE__, __LINE__, "pathological patterns took %.2fs", secs);
    free(s);
}

TEST(wild_relative_names)
{
    check_rel("dir/*.txt", "dir/a.txt", "a.txt");
    check_rel("dir/*.txt", "dir/a/b.txt", "a/b.txt");
    check_rel("dir/a*", "dir/ab/c", "ab/c");
    check_rel("a/b/test?/c/*.tsv", "a/b/test2/c/example_file.tsv", "test2/c/example_file.tsv");
    check_rel("key/?/b", "key/a/b", "a/b");
    check_rel("key/*/b/*/c/*.tsv", "key/dummy/b/1/c/file.tsv", "dummy/b/1/c/file.tsv");
    check_rel("*.txt", "x/y.txt", "x/y.txt");           /* no '/' in the prefix */
    check_rel("a?", "a/b", "a/b");
    check_rel("a/b", "a/b", "b");                       /* no wildcard */
    check_rel("x\\*/*", "x*/y", "y");                   /* escaped prefix */
    check_rel("dir/*", "other/a", "other/a");           /* not under the prefix */
}

TEST(wild_base_names)
{
    struct {
        const char *key, *want;
    } cases[] = { { "a/b/c.txt", "c.txt" }, { "c.txt", "c.txt" }, { "a/b/", "b" },
                  { "a//", "a" }, { "/", "/" }, { "", "" } };
    size_t i;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *got = sv_dup(wild_base(sv_from(cases[i].key)));

        CHECK_STR(got, cases[i].want);
        free(got);
    }
}

/* Python 3's fnmatch.fnmatchcase, case by case (answers checked with CPython 3.11). */
TEST(wild_fnmatch_python_cases)
{
    CHECK(fm("*", ""));
    CHECK(fm("*", "a/b/c"));
    CHECK(fm("*.txt", "dir/sub/a.txt"));
    CHECK(fm("?", "/"));
    CHECK(fm("?", "\xc3\xa9"));
    CHECK(fm("[abc]", "b"));
    CHECK(!fm("[abc]", "d"));
    CHECK(fm("[!abc]", "d"));
    CHECK(!fm("[!abc]", "a"));
    CHECK(fm("[^a]", "^"));             /* '^' is no negation in fnmatch */
    CHECK(fm("[^a]", "a"));
    CHECK(!fm("[^a]", "b"));
    CHECK(fm("[a-c]", "b"));
    CHECK(!fm("[a-c]", "d"));
    CHECK(fm("[a-]", "-"));
    CHECK(fm("[-a]", "-"));
    CHECK(fm("[a-c-e]", "-"));          /* after a range, '-' is literal */
    CHECK(fm("[a-c-e]", "e"));
    CHECK(!fm("[a-c-e]", "d"));
    CHECK(fm("[a-c--e]", "d"));         /* a-c, then '-'..'e' */
    CHECK(fm("[]]", "]"));
    CHECK(fm("[]a]", "a"));
    CHECK(fm("[!]]", "a"));
    CHECK(!fm("[!]]", "]"));
    CHECK(fm("[", "["));                /* unclosed: literal */
    CHECK(fm("[a", "[a"));
    CHECK(fm("[]", "[]"));
    CHECK(fm("[!]", "[!]"));
    CHECK(!fm("[z-a]", "z"));           /* reversed range: empty */
    CHECK(!fm("[z-a]", "m"));
    CHECK(fm("[!z-a]", "m"));           /* negated empty: any character */
    CHECK(fm("[az-ab]", "b"));          /* the reversed range drops out, a and b stay */
    CHECK(!fm("[az-ab]", "z"));
    CHECK(fm("[z-a!b]", "a"));         /* the '!' left first negates */
    CHECK(!fm("[z-a!b]", "b"));
    CHECK(fm("[z-ac-[!b]", "a"));      /* ... even after two reversed ranges */
    CHECK(!fm("[z-ac-[!b]", "b"));
    CHECK(!fm("[z-a!-c]", "-"));       /* and the range it began breaks up */
    CHECK(!fm("[z-a!-c]", "c"));
    CHECK(fm("[z-a!-c]", "b"));
    CHECK(fm("[\\]", "\\"));            /* backslash is ordinary */
    CHECK(fm("a\\*", "a\\bc"));
    CHECK(!fm("a\\*", "a*"));
    CHECK(fm("[\xc3\xa0-\xc3\xbf]", "\xc3\xa9"));  /* code point ranges */
    CHECK(!fm("[\xc3\xa0-\xc3\xbf]", "\xc3\x80"));
    CHECK(fm("[&~|]", "~"));
    CHECK(fm("**/*.log", "a/b.log"));
    CHECK(!fm("**/*.log", "b.log"));
    CHECK(fm("*\n", "a\n"));
}

static uint32_t rnd_state = 12345;

static uint32_t rnd(void)
{
    rnd_state = rnd_state * 1103515245u + 12345u;
    return (rnd_state >> 16) & 0x7fff;
}

static void rnd_string(char *out, int max_atoms, bool pattern)
{
    static const char *atoms_p[] = { "a", "b", "z", "/", "-", "!", "]", "[", "*", "?", "\\", "^",
                                     "\xc3\xa9", "\xff", "**", "[a-z]", "[!b]" };
    static const char *atoms_s[] = { "a", "b", "z", "/", "-", "!", "]", "[", "*", "?", "\\", "^",
                                     "\xc3\xa9", "\xff", "\xc3" };
    const char **atoms = pattern ? atoms_p : atoms_s;
    int na = pattern ? 17 : 15, k, n = (int)(rnd() % (unsigned)(max_atoms + 1));

    out[0] = '\0';
    for (k = 0; k < n; k++)
        strncat(out, atoms[rnd() % (unsigned)na], 8);
}

/* Random patterns over a hostile alphabet agree with the reference (test_plan_wild_ref.h). */
TEST(wild_matchers_agree_with_reference)
{
    char p[128], s[128];
    uint32_t pc[WREF_MAX], sc[WREF_MAX];
    struct rtok t[WREF_MAX];
    int it, np, ns, nt, bad = 0;

    for (it = 0; it < 200000 && bad < 5; it++) {
        bool want, got;

        rnd_string(p, 8, true);
        rnd_string(s, 10, false);
        np = wref_decode(p, strlen(p), pc);
        ns = wref_decode(s, strlen(s), sc);
        nt = wref_translate_fn(pc, np, t);
        want = wref_match(t, nt, sc, ns);
        got = fm(p, s);
        if (want != got) {
            t_fail(__FILE__, __LINE__, "fnmatch(\"%s\", \"%s\") = %d, reference %d", s, p, got, want);
            bad++;
        }
        nt = wref_translate_s5(pc, np, t);
        want = wref_match(t, nt, sc, ns);
        got = wm(p, s);
        if (want != got) {
            t_fail(__FILE__, __LINE__, "wild_match(\"%s\", \"%s\") = %d, reference %d", p, s, got, want);
            bad++;
        }
    }
}
