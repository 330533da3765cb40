#include "t.h"

#include <string.h>

#include "cli/words.h"

static int split(const char *line, char **argv, struct buf *store)
{
    struct s3c_error e = S3C_ERROR_INIT;
    int n = -1;

    if (words_split(line, store, argv, &n, &e))
        return -1;
    return n;
}

TEST(words_plain_quotes_and_escapes)
{
    struct buf st = BUF_INIT(1 << 20);
    char *v[WORDS_MAX];

    CHECK_INT(split("  cp  a.txt\ts3://b/k  ", v, &st), 3);
    CHECK_STR(v[0], "cp");
    CHECK_STR(v[1], "a.txt");
    CHECK_STR(v[2], "s3://b/k");
    CHECK_INT(split("cp 'my file $HOME *.txt' \"s3://b/a \\\"q\\\" \\\\ \\n\"", v, &st), 3);
    CHECK_STR(v[1], "my file $HOME *.txt");
    CHECK_STR(v[2], "s3://b/a \"q\" \\ \\n");
    CHECK_INT(split("rm s3://b/a\\ b s3://b/x'y z'\"w\"", v, &st), 3);
    CHECK_STR(v[1], "s3://b/a b");
    CHECK_STR(v[2], "s3://b/xy zw");
    CHECK_INT(split("cp '' s3://b/\xc3\xa9t\xc3\xa9 # a comment 'unterminated", v, &st), 3);
    CHECK_STR(v[1], "");
    CHECK_STR(v[2], "s3://b/\xc3\xa9t\xc3\xa9");
    CHECK_INT(split("rm s3://b/a#b", v, &st), 2);
    CHECK_STR(v[1], "s3://b/a#b");
    buf_release(&st);
}

TEST(words_blank_comment_and_errors)
{
    struct buf st = BUF_INIT(1 << 20);
    struct buf tiny = BUF_INIT(8);
    char *v[WORDS_MAX];

    CHECK_INT(split("", v, &st), 0);
    CHECK_INT(split("   \t ", v, &st), 0);
    CHECK_INT(split("# cp a b", v, &st), 0);
    CHECK_INT(split("cp 'a b", v, &st), -1);
    CHECK_INT(split("cp \"a b", v, &st), -1);
    CHECK_INT(split("cp a\\", v, &st), -1);
    CHECK_INT(split("cp aaaaaaaa bbbbbbbbb", v, &tiny), -1);
    buf_release(&st);
    buf_release(&tiny);
}
