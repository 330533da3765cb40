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

TEST(humanize_matches_s5cmd)
{
    /* s5cmd's strutil.HumanizeBytes: a unit only once the value is above it. */
    char s[32];

    cli_humanize_s5(0, s);
    CHECK_STR(s, "0");
    cli_humanize_s5(1024, s);
    CHECK_STR(s, "1024");
    cli_humanize_s5(1025, s);
    CHECK_STR(s, "1.0K");
    cli_humanize_s5(1536, s);
    CHECK_STR(s, "1.5K");
    cli_humanize_s5((uint64_t)3 << 20, s);
    CHECK_STR(s, "3.0M");
    cli_humanize_s5(((uint64_t)5 << 30) + 1, s);
    CHECK_STR(s, "5.0G");
    cli_humanize_s5((uint64_t)2048 << 40, s);
    CHECK_STR(s, "2048.0T");
}

TEST(etag_bare_and_storage_class)
{
    struct sv v = cli_etag_bare("\"9b2cf535f27731c974343645a3985328\"");

    CHECK(sv_eqs(v, "9b2cf535f27731c974343645a3985328"));
    CHECK(sv_eqs(cli_etag_bare("\"abc-2\""), "abc-2"));
    CHECK(sv_eqs(cli_etag_bare("bare"), "bare"));
    CHECK(sv_eqs(cli_etag_bare("\""), "\""));
    CHECK(sv_eqs(cli_etag_bare(""), ""));
    CHECK_STR(cli_storage_class(""), "STANDARD");
    CHECK_STR(cli_storage_class(NULL), "STANDARD");
    CHECK_STR(cli_storage_class("GLACIER"), "GLACIER");
}
