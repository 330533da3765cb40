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
