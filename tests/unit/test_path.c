#include "t.h"

#include "fs/path.h"

TEST(path_refuses_escapes)
{
    static const char *bad[] = { "../x", "a/../../x", "/etc/passwd", "a/./b", ".", "..", "a//b",
                                 "a\\..\\b", "x/..", "" };
    struct s3c_error e = S3C_ERROR_INIT;
    size_t i;

    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        if (path_check_relative(sv_from(bad[i]), &e) != S3C_EUSAGE)
            t_fail(__FILE__, __LINE__, "accepted \"%s\"", bad[i]);
    }
    CHECK_INT(path_check_relative((struct sv){ "a\0b", 3 }, &e), S3C_EUSAGE);
}

TEST(path_accepts_ordinary_keys)
{
    static const char *good[] = { "a", "a/b/c.txt", "dir/", "..a", "a..", ".hidden/x", "a b/ü+%#?" };
    struct s3c_error e = S3C_ERROR_INIT;
    struct buf b = BUF_INIT(4096);
    size_t i;

    for (i = 0; i < sizeof(good) / sizeof(good[0]); i++)
        if (path_check_relative(sv_from(good[i]), &e) != S3C_OK)
            t_fail(__FILE__, __LINE__, "refused \"%s\": %s", good[i], e.msg);
    CHECK_INT(path_join_safe("dl", SV("a/b"), &b, &e), S3C_OK);
    CHECK_STR(buf_cstr(&b), "dl/a/b");
    buf_release(&b);
}

TEST(path_is_tmp_name_only_for_download_temp_files)
{
    CHECK(path_is_tmp_name(".s3c-big.bin.0badcafe.tmp"));
    CHECK(path_is_tmp_name(".s3c-x.00000000.tmp"));
    CHECK(!path_is_tmp_name(".s3c-.00000000.tmp"));        /* no name */
    CHECK(!path_is_tmp_name("s3c-x.00000000.tmp"));         /* not hidden */
    CHECK(!path_is_tmp_name(".s3c-x.0000000g.tmp"));
    CHECK(!path_is_tmp_name(".s3c-x.0000000.tmp"));
    CHECK(!path_is_tmp_name(".s3c-x.00000000.tmp2"));
    CHECK(!path_is_tmp_name(".s3c-config"));
}
