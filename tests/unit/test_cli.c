#include "t.h"

#include "cli/cmd.h"

TEST(human_size_matches_aws_cli)
{
    /* Values from awscli.customizations.s3.utils.human_readable_size. */
    char s[32];

    cli_human_size(0, s);
    CHECK_STR(s, "0 Bytes");
    cli_human_size(1, s);
    CHECK_STR(s, "1 Byte");
    cli_human_size(1023, s);
    CHECK_STR(s, "1023 Bytes");
    cli_human_size(1024, s);
    CHECK_STR(s, "1.0 KiB");
    cli_human_size(1536, s);
    CHECK_STR(s, "1.5 KiB");
    cli_human_size(1024 * 1024 - 1, s);
    CHECK_STR(s, "1.0 MiB");
    cli_human_size((uint64_t)5 << 30, s);
    CHECK_STR(s, "5.0 GiB");
}
