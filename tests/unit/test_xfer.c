#include "t.h"

#include "xfer/xfer.h"

TEST(part_size_defaults_and_limits)
{
    const uint64_t MiB = 1 << 20;

    CHECK_INT(xfer_part_size(100 * MiB, 0), 8 * MiB);
    /* 10,000 parts at most: 100 GiB needs parts of >= 10.24 MiB -> 11 MiB. */
    CHECK_INT(xfer_part_size((uint64_t)100 << 30, 0), 11 * MiB);
    /* 5 TiB, the largest object: 524.288 MiB -> 525 MiB. */
    CHECK_INT(xfer_part_size((uint64_t)5 << 40, 0), 525 * MiB);
    CHECK(xfer_part_size((uint64_t)5 << 40, 0) * 10000 >= ((uint64_t)5 << 40));
    /* A configured size is honoured unless it would need more than 10,000 parts. */
    CHECK_INT(xfer_part_size(100 * MiB, 64 * MiB), 64 * MiB);
    CHECK_INT(xfer_part_size((uint64_t)1 << 40, 16 * MiB), 105 * MiB);
    CHECK_INT(xfer_part_size(1, (uint64_t)6 << 30), (uint64_t)5 << 30);
}

TEST(mime_from_extension)
{
    CHECK_STR(xfer_guess_mime("a/b/index.HTML"), "text/html");
    CHECK_STR(xfer_guess_mime("x.json"), "application/json");
    CHECK_STR(xfer_guess_mime("dir.v2/noext"), "binary/octet-stream");
    CHECK_STR(xfer_guess_mime("trailingdot."), "binary/octet-stream");
}

TEST(stream_windows_and_part_sizes)
{
    const uint64_t MiB = 1 << 20;
    uint64_t total = 0;
    uint32_t n;

    /* 64 MiB of parts in memory, 2 to 16 of them. */
    CHECK_INT(xfer_window_parts(8 * MiB), 8);
    CHECK_INT(xfer_window_parts(1 * MiB), 16);
    CHECK_INT(xfer_window_parts(128 * MiB), 2);
    /* stdout: the configured part, at most half the window; small objects in 8 ranges of >= 1 MiB. */
    CHECK_INT(xfer_stdout_part_size(200 * MiB, 0), 8 * MiB);
    CHECK_INT(xfer_stdout_part_size(1024 * MiB, (uint64_t)1 << 30), 32 * MiB);
    CHECK_INT(xfer_stdout_part_size(20 * MiB, 0), 3 * MiB);
    CHECK_INT(xfer_stdout_part_size(1500 * 1024, 0), 1 * MiB);
    CHECK(xfer_stdout_part_size(1, 0) >= 1);
    CHECK(xfer_stdout_part_size(0, 0) >= 1);
    /* stdin: fixed with an expected size, else doubling every 2,000 parts, four times. */
    CHECK_INT(xfer_stream_part_size(8 * MiB, 10000, false), 8 * MiB);
    CHECK_INT(xfer_stream_part_size(8 * MiB, 2000, true), 8 * MiB);
    CHECK_INT(xfer_stream_part_size(8 * MiB, 2001, true), 16 * MiB);
    CHECK_INT(xfer_stream_part_size(8 * MiB, 10000, true), 128 * MiB);
    CHECK_INT(xfer_stream_part_size((uint64_t)1 << 30, 10000, true), (uint64_t)5 << 30);
    for (n = 1; n <= 10000; n++)
        total += xfer_stream_part_size(8 * MiB, n, true);
    CHECK_INT(total, 62000 * 8 * MiB); /* 484 GiB without --expected-size */
}
