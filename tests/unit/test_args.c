#include "t.h"

#include "cli/args.h"

TEST(args_flags_values_and_positionals)
{
    bool rec = false, human = false;
    const char *region = NULL;
    struct arg_list ex = { .n = 0 };
    const struct arg_spec specs[] = {
        { "--recursive", "-r", ARG_BOOL, &rec },
        { "--human-readable", NULL, ARG_BOOL, &human },
        { "--region", NULL, ARG_STR, &region },
        { "--exclude", NULL, ARG_STR_LIST, &ex },
        { NULL, NULL, 0, NULL },
    };
    char *argv[] = { "s3://b/p", "-r", "--region=eu-west-1", "--exclude", "*.tmp",
                     "--exclude=*.log", "--", "--weird-name" };
    const char *pos[4];
    int n = 0;
    struct s3c_error e = S3C_ERROR_INIT;

    CHECK_INT(args_parse("ls", specs, 8, argv, pos, 4, &n, &e), S3C_OK);
    CHECK(rec);
    CHECK(!human);
    CHECK_STR(region, "eu-west-1");
    CHECK_INT(ex.n, 2);
    CHECK_STR(ex.v[1], "*.log");
    CHECK_INT(n, 2);
    CHECK_STR(pos[0], "s3://b/p");
    CHECK_STR(pos[1], "--weird-name");
}

TEST(args_unknown_and_missing_values_are_usage_errors)
{
    const char *region = NULL;
    const struct arg_spec specs[] = { { "--region", NULL, ARG_STR, &region }, { NULL, NULL, 0, NULL } };
    char *a1[] = { "--nope" };
    char *a2[] = { "--region" };
    const char *pos[2];
    int n;
    struct s3c_error e = S3C_ERROR_INIT;

    CHECK_INT(args_parse("ls", specs, 1, a1, pos, 2, &n, &e), S3C_EUSAGE);
    CHECK_STR(e.msg, "ls: unknown option --nope");
    CHECK_INT(args_parse("ls", specs, 1, a2, pos, 2, &n, &e), S3C_EUSAGE);
    CHECK_STR(e.msg, "ls: --region needs a value");
}
