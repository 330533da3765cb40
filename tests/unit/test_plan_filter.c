#include "t.h"

#include <stdlib.h>
#include <unistd.h>

#include "plan/filter.h"

/* Build a filter from "-x PATTERN" / "+i PATTERN" pairs, NULL-terminated. */
static void build(struct filter *f, const char *const *spec)
{
    struct s3c_error e = S3C_ERROR_INIT;

    for (; *spec; spec += 2)
        CHECK_INT(filter_add(f, spec[0][0] == '-' ? FILTER_EXCLUDE : FILTER_INCLUDE, spec[1], &e), S3C_OK);
}

static bool acc(const struct filter *f, const char *root, const char *rel)
{
    return filter_accept(f, root, sv_from(rel));
}

TEST(filter_default_includes_everything)
{
    struct filter f = FILTER_INIT;

    CHECK(filter_empty(&f));
    CHECK(acc(&f, "/tmp/foo", "anything/at/all"));
    filter_release(&f);
}

/* The examples of "aws s3 help", section "Use of Exclude and Include Filters". */
TEST(filter_aws_doc_examples)
{
    static const char *const ex_txt[] = { "-", "*.txt", NULL };
    static const char *const only_txt[] = { "-", "*", "+", "*.txt", NULL };
    static const char *const nothing[] = { "+", "*.txt", "-", "*", NULL };
    static const char *const git[] = { "-", ".git/*", NULL };
    struct filter f = FILTER_INIT;

    /* /tmp/foo/.git/config, /tmp/foo/.git/description, /tmp/foo/foo.txt, /tmp/foo/bar.txt, /tmp/foo/baz.jpg */
    build(&f, ex_txt);
    CHECK(acc(&f, "/tmp/foo", ".git/config"));
    CHECK(!acc(&f, "/tmp/foo", "foo.txt"));
    CHECK(!acc(&f, "/tmp/foo", "bar.txt"));
    CHECK(acc(&f, "/tmp/foo", "baz.jpg"));
    filter_release(&f);

    build(&f, only_txt);
    CHECK(!acc(&f, "/tmp/foo", ".git/config"));
    CHECK(acc(&f, "/tmp/foo", "foo.txt"));
    CHECK(acc(&f, "/tmp/foo", "sub/dir/deep.txt"));    /* '*' crosses '/' */
    CHECK(!acc(&f, "/tmp/foo", "baz.jpg"));
    filter_release(&f);

    build(&f, nothing);                                 /* order matters */
    CHECK(!acc(&f, "/tmp/foo", "foo.txt"));
    CHECK(!acc(&f, "/tmp/foo", "baz.jpg"));
    filter_release(&f);

    build(&f, git);
    CHECK(!acc(&f, "/tmp/foo", ".git/config"));
    CHECK(!acc(&f, "/tmp/foo", ".git/hooks/pre-commit"));
    CHECK(acc(&f, "/tmp/foo", "foo.txt"));
    CHECK(acc(&f, "/tmp/foo", "sub/.git/config"));     /* rooted at the source */
    filter_release(&f);
}

/* aws-cli issue 1588: where a later filter sits changes the outcome. */
TEST(filter_last_match_wins)
{
    static const char *const a[] = { "-", "*", "-", "*/*", "+", "*.txt", NULL };
    static const char *const b[] = { "-", "*", "+", "*.txt", "-", "*/*", NULL };
    struct filter f = FILTER_INIT;

    build(&f, a);
    CHECK(acc(&f, "bkt/", "top.txt"));
    CHECK(acc(&f, "bkt/", "sub/deep.txt"));
    CHECK(!acc(&f, "bkt/", "top.jpg"));
    filter_release(&f);

    build(&f, b);
    CHECK(acc(&f, "bkt/", "top.txt"));
    CHECK(!acc(&f, "bkt/", "sub/deep.txt"));
    filter_release(&f);
}

TEST(filter_patterns_are_fnmatch_on_the_whole_path)
{
    static const char *const dir[] = { "-", "logs", NULL };
    static const char *const dirstar[] = { "-", "logs/*", NULL };
    static const char *const sets[] = { "-", "file[0-9].log", "-", "x[!a-c]", "-", "q?", NULL };
    struct filter f = FILTER_INIT;

    build(&f, dir);                     /* a directory name alone excludes nothing below it */
    CHECK(acc(&f, "/r", "logs/a.log"));
    CHECK(!acc(&f, "/r", "logs"));
    filter_release(&f);

    build(&f, dirstar);
    CHECK(!acc(&f, "/r", "logs/a.log"));
    CHECK(!acc(&f, "/r", "logs/2024/01/a.log"));
    CHECK(acc(&f, "/r", "logsx/a.log"));
    CHECK(acc(&f, "/r", "sub/logs/a.log"));
    filter_release(&f);

    build(&f, sets);
    CHECK(!acc(&f, "/r", "file7.log"));
    CHECK(acc(&f, "/r", "fileX.log"));
    CHECK(acc(&f, "/r", "xa"));
    CHECK(!acc(&f, "/r", "xd"));
    CHECK(!acc(&f, "/r", "q/"));        /* '?' is any character, '/' too */
    CHECK(acc(&f, "/r", "q"));
    filter_release(&f);
}

TEST(filter_absolute_patterns_and_literal_roots)
{
    static const char *const absx[] = { "-", "/tmp/foo/bar*", NULL };
    static const char *const star[] = { "-", "*", "+", "*.jpg", NULL };
    struct filter f = FILTER_INIT;

    build(&f, absx);
    CHECK(!acc(&f, "/tmp/foo", "bar.txt"));
    CHECK(!acc(&f, "/tmp/foo", "barn/x"));
    CHECK(acc(&f, "/tmp/foo", "foo.txt"));
    CHECK(acc(&f, "/tmp/other", "bar.txt"));
    CHECK(acc(&f, "bkt/tmp/foo", "bar.txt"));  /* S3 paths never start with '/' */
    CHECK(acc(&f, NULL, "bar.txt"));
    CHECK(!acc(&f, "/", "tmp/foo/bar"));       /* root "/" joins without a second '/' */
    filter_release(&f);

    build(&f, star);                            /* glob characters in the root are literal */
    CHECK(acc(&f, "/photos[1]", "a.jpg"));
    CHECK(!acc(&f, "/photos[1]", "a.png"));
    CHECK(acc(&f, "b/*weird?/", "x.jpg"));
    filter_release(&f);
}

TEST(filter_from_arg_list_keeps_order)
{
    const char *flags[] = { "--recursive", "--exclude", "--include", "--exclude" };
    const char *vals[] = { "", "*", "*.txt", "secret*" };
    struct s3c_error e = S3C_ERROR_INIT;
    struct filter f = FILTER_INIT;

    CHECK_INT(filter_add_list(&f, flags, vals, 4, &e), S3C_OK);
    CHECK_INT(f.n, 3);
    CHECK(acc(&f, "/r", "a.txt"));
    CHECK(!acc(&f, "/r", "secret.txt"));
    CHECK(!acc(&f, "/r", "a.jpg"));
    filter_release(&f);
    CHECK(f.rules == NULL && f.n == 0);
}

static void check_root(const char *arg, bool dir_op, const char *want)
{
    struct s3c_error e = S3C_ERROR_INIT;
    struct buf b = BUF_INIT(8192);

    CHECK_INT(filter_root(arg, dir_op, &b, &e), S3C_OK);
    CHECK_STR(buf_cstr(&b), want);
    buf_release(&b);
}

TEST(filter_roots_as_the_aws_cli_forms_them)
{
    char cwd[4096], want[4200];

    check_root("s3://b/dir/", true, "b/dir/");
    check_root("s3://b/dir", true, "b/dir");
    check_root("s3://b", true, "b/");
    check_root("s3://b/dir/file.txt", false, "b/dir");
    check_root("s3://b/file.txt", false, "b/");
    check_root("s3://b/dir/", false, "b/dir/");
    check_root("/a/b/../c/./d//", true, "/a/c/d");
    check_root("/a/b/file", false, "/a/b");
    check_root("/file", false, "/");
    check_root("/..", true, "/");
    CHECK(getcwd(cwd, sizeof(cwd)) != NULL);
    snprintf(want, sizeof(want), "%s/x/y", strcmp(cwd, "/") ? cwd : "");
    check_root("x/y", true, want);
    check_root("x/y/f.txt", false, want);
    check_root("f.txt", false, cwd);
}
