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

TEST(copy_part_size_from_the_model_of_server_side_copies)
{
    const uint64_t MiB = 1 << 20, GiB = (uint64_t)1 << 30;
    struct xfer_copy_model s3 = { 0.020, 0, 1 }, none = { 0, 0, 0 }, lan = { 0.0003, 0, 1 };
    struct xfer_copy_model many = { 0.020, 0, 64 }, four = { 0.020, 0, 4 }, fast = { 0.020, 1e9, 1 };
    uint64_t sizes[] = { 1, 8 * MiB, 33 * MiB, 200000000, GiB, 100 * GiB, (uint64_t)5 << 40 };
    size_t i;

    /* S3's 20 ms at 64 MB/s a request: 16 x 1.28 MB = 20.5 MB -> 32 MiB parts; one part's worth
     * or less goes in one CopyObject (rclone's cutoff is 4.6 GiB, aws-c-s3's 1 GiB). */
    CHECK_INT(xfer_copy_part_size(32 * MiB, &s3), 0);
    CHECK_INT(xfer_copy_part_size(33 * MiB, &s3), 32 * MiB);
    CHECK_INT(xfer_copy_part_size(200000000, &s3), 32 * MiB);
    CHECK_INT(xfer_copy_part_size(GiB, &s3), 32 * MiB);
    /* Nothing seen yet: the same assumptions. */
    CHECK_INT(xfer_copy_part_size(GiB, &none), 32 * MiB);
    CHECK_INT(xfer_copy_part_size(GiB, NULL), 32 * MiB);
    /* At most 64 parts an object alone: 100 GiB in parts of 2 GiB, not 3,200 of 32 MiB. */
    CHECK_INT(xfer_copy_part_size(100 * GiB, &s3), 2 * GiB);
    /* Among 64 objects in flight each has one slot: under 5 GiB, one CopyObject each. */
    CHECK_INT(xfer_copy_part_size(GiB, &many), 0);
    CHECK_INT(xfer_copy_part_size(200000000, &many), 0);
    /* Four at once: 16 slots each; the latency bound rules 1 GiB. */
    CHECK_INT(xfer_copy_part_size(GiB, &four), 64 * MiB);
    CHECK_INT(xfer_copy_part_size(200000000, &four), 32 * MiB);
    /* A fast local store: 8 MiB parts at least, 64 of them for 1 GiB. */
    CHECK_INT(xfer_copy_part_size(GiB, &lan), 16 * MiB);
    CHECK_INT(xfer_copy_part_size(8 * MiB, &lan), 0);
    /* A store that copies at 1 GB/s a request: parts of 320 MB -> 512 MiB. */
    CHECK_INT(xfer_copy_part_size(GiB, &fast), 512 * MiB);
    /* Over 5 GiB there is no CopyObject, whatever the model says. */
    CHECK_INT(xfer_copy_part_size((uint64_t)6 << 30, &many), 5 * GiB);
    /* The limits: <= 10,000 parts, <= 5 GiB a part. */
    for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        uint64_t p = xfer_copy_part_size(sizes[i], &many);

        CHECK(p == 0 ? sizes[i] <= 5 * GiB : p >= 8 * MiB && p <= 5 * GiB && (sizes[i] + p - 1) / p <= 10000);
    }
}

TEST(part_size_fit_latency_parallelism_and_limits)
{
    const uint64_t MiB = 1 << 20, GiB = (uint64_t)1 << 30;
    struct xfer_link s3 = { 0.020, 90e6, 1 }, none = { 0, 0, 0 };
    struct xfer_link lan = { 0.0003, 1e9, 1 }, far = { 0.200, 90e6, 1 };
    struct xfer_link many = { 0.020, 90e6, 64 }, four = { 0.020, 90e6, 4 };
    uint64_t p, sizes[] = { 8 * MiB, 9 * MiB, 20000000, 200000000, GiB, 100 * GiB, (uint64_t)5 << 40 };
    size_t i;

    /* S3's 20 ms and 90 MB/s: 8 x 1.8 MB = 14.4 MB -> 16 MiB; 1 GiB in 64 parts, not 128. */
    CHECK_INT(xfer_part_size_fit(GiB, 0, &s3), 16 * MiB);
    /* Nothing seen yet: the same assumptions. */
    CHECK_INT(xfer_part_size_fit(GiB, 0, &none), 16 * MiB);
    CHECK_INT(xfer_part_size_fit(GiB, 0, NULL), 16 * MiB);
    /* A fast local link: latency is no cost, 8 MiB stays. */
    CHECK_INT(xfer_part_size_fit(GiB, 0, &lan), 8 * MiB);
    /* 200 ms across the world: 144 MB -> 128 MiB, but 16 connections' worth of parts. */
    CHECK_INT(xfer_part_size_fit(100 * GiB, 0, &far), 128 * MiB);
    CHECK_INT(xfer_part_size_fit(GiB, 0, &far), 64 * MiB);
    /* Alone, 200 MB gives 16 parts' worth (12.5 MB -> 16 MiB: 12 parts); small ones stay 8 MiB. */
    CHECK_INT(xfer_part_size_fit(200000000, 0, &s3), 16 * MiB);
    CHECK_INT(xfer_part_size_fit(100 * MiB, 0, &s3), 8 * MiB);
    CHECK_INT(xfer_part_size_fit(50000000, 0, &s3), 8 * MiB);
    /* Among many objects in flight, each needs 2 parts only: 32 MiB in 2, 9 MiB in 2. */
    CHECK_INT(xfer_part_size_fit(32 * MiB, 0, &many), 16 * MiB);
    CHECK_INT(xfer_part_size_fit(9 * MiB, 0, &many), 8 * MiB);
    CHECK_INT(xfer_part_size_fit(32 * MiB, 0, &s3), 8 * MiB);
    /* Four at once: a quarter of 16 connections each; the latency bound rules. */
    CHECK_INT(xfer_part_size_fit(200000000, 0, &four), 16 * MiB);
    CHECK_INT(xfer_part_size_fit(GiB, 0, &four), 16 * MiB);
    /* An explicit part size (--part-size, multipart_chunksize) is kept. */
    CHECK_INT(xfer_part_size_fit(GiB, 5 * MiB, &far), 5 * MiB);
    CHECK_INT(xfer_part_size_fit(GiB, 256 * MiB, &lan), 256 * MiB);
    /* ...unless 10,000 parts cannot hold the object. */
    CHECK_INT(xfer_part_size_fit((uint64_t)1 << 40, 16 * MiB, &s3), 105 * MiB);
    /* The limits, whatever was seen: >= 8 MiB, <= 10,000 parts, <= 5 GiB. */
    CHECK_INT(xfer_part_size_fit((uint64_t)5 << 40, 0, &lan), 525 * MiB);
    for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        struct xfer_link odd[] = { { 1e-9, 1, 1 }, { 100, 1e12, 1 }, { 0.02, 90e6, 100000 }, { -1, -1, -5 },
                                   { 0.0 / 0.0, 1e9, 1 } };
        size_t k;

        for (k = 0; k < sizeof(odd) / sizeof(odd[0]); k++) {
            p = xfer_part_size_fit(sizes[i], 0, &odd[k]);
            CHECK(p >= 8 * MiB);
            CHECK(p <= ((uint64_t)5 << 30));
            CHECK((sizes[i] + p - 1) / p <= 10000);
            /* s3c's own sizes are among those a download guesses from a "-N" ETag. */
            if (p <= 4 * GiB && sizes[i] > p) {
                uint64_t g[16];
                uint32_t n = (uint32_t)((sizes[i] + p - 1) / p);
                int m = xfer_part_size_guesses(sizes[i], n, 0, g, 16), j, found = 0;

                for (j = 0; j < m; j++)
                    found |= g[j] == p;
                CHECK(found || (p & (p - 1)) != 0);
            }
        }
    }
}

TEST(mime_from_extension)
{
    CHECK_STR(xfer_guess_mime("a/b/index.HTML"), "text/html");
    CHECK_STR(xfer_guess_mime("x.json"), "application/json");
    CHECK_STR(xfer_guess_mime("dir.v2/noext"), "binary/octet-stream");
    CHECK_STR(xfer_guess_mime("x.bin"), "application/octet-stream"); /* as the AWS CLI's mimetypes */
    CHECK_STR(xfer_guess_mime("x.unknownext"), "binary/octet-stream");
    CHECK_STR(xfer_guess_mime("trailingdot."), "binary/octet-stream");
}

/* What lets S3 copy an object onto itself: something of it changes. */
/* s5cmd's flags: an existing destination skips under -n; under --if-size-differ
 * unless its size differs; under --if-source-newer unless the source is newer;
 * a missing one never does, nor anything without a flag. Given together, the
 * last of -n, -s, -u decides alone (s5cmd's shouldOverride, command/cp.go). */
TEST(dst_skip_flags)
{
    struct xfer_obj o = { .size = 10, .size_known = true, .mtime = 1000 };

    CHECK(!xfer_dst_skip(&o, true, 10, 1000)); /* no flag */
    o.dst_check = XFER_CHECK_EXISTS;
    CHECK(xfer_dst_skip(&o, true, 99, 0));
    CHECK(!xfer_dst_skip(&o, false, 0, 0));
    o.dst_check = XFER_CHECK_EXISTS | XFER_CHECK_SIZE | XFER_CHECK_NEWER; /* -u decides */
    CHECK(!xfer_dst_skip(&o, true, 99, 0));
    CHECK(xfer_dst_skip(&o, true, 99, 1000));
    o.dst_check = XFER_CHECK_EXISTS | XFER_CHECK_SIZE; /* -s decides */
    CHECK(!xfer_dst_skip(&o, true, 99, 0));
    CHECK(xfer_dst_skip(&o, true, 10, 0));
    o.dst_check = XFER_CHECK_SIZE;
    CHECK(xfer_dst_skip(&o, true, 10, 0));
    CHECK(!xfer_dst_skip(&o, true, 11, 2000));
    CHECK(!xfer_dst_skip(&o, false, 10, 0));
    o.size_known = false; /* no size to compare: left alone */
    CHECK(xfer_dst_skip(&o, true, 11, 0));
    o.size_known = true;
    o.dst_check = XFER_CHECK_NEWER;
    CHECK(xfer_dst_skip(&o, true, 99, 1000)); /* the same second is not newer */
    CHECK(!xfer_dst_skip(&o, true, 10, 999));
    o.mtime = -1; /* unknown: left alone */
    CHECK(xfer_dst_skip(&o, true, 10, 999));
    o.mtime = 1000;
    o.dst_check = XFER_CHECK_SIZE | XFER_CHECK_NEWER; /* -u decides: the size alone lets nothing go */
    CHECK(xfer_dst_skip(&o, true, 11, 2000));
    CHECK(!xfer_dst_skip(&o, true, 10, 999));
    CHECK(xfer_dst_skip(&o, true, 10, 2000));
}

TEST(copy_changes_in_place)
{
    struct xfer_obj_opts oo = { 0 };

    CHECK(!xfer_copy_changes(NULL));
    CHECK(!xfer_copy_changes(&oo));
    oo.acl = "public-read"; /* an ACL is no change to S3 */
    CHECK(!xfer_copy_changes(&oo));
    oo.metadata_directive = "COPY";
    oo.content_type = "text/plain"; /* ignored by S3 with COPY */
    CHECK(!xfer_copy_changes(&oo));
    oo.metadata_directive = NULL; /* metadata flags alone: REPLACE, the rest merged */
    CHECK(xfer_copy_changes(&oo));
    oo = (struct xfer_obj_opts){ .metadata_directive = "REPLACE" };
    CHECK(xfer_copy_changes(&oo));
    oo = (struct xfer_obj_opts){ .copy_props = XFER_PROPS_NONE };
    CHECK(xfer_copy_changes(&oo));
    oo = (struct xfer_obj_opts){ .storage_class = "GLACIER_IR" };
    CHECK(xfer_copy_changes(&oo));
    oo = (struct xfer_obj_opts){ .sse = "AES256" };
    CHECK(xfer_copy_changes(&oo));
    oo = (struct xfer_obj_opts){ .sse_kms_key_id = "k" };
    CHECK(xfer_copy_changes(&oo));
    oo = (struct xfer_obj_opts){ .sse_c_key = "0123456789abcdef0123456789abcdef" };
    CHECK(xfer_copy_changes(&oo));
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

TEST(etag_parts_forms)
{
    char hex[33];

    CHECK_INT(xfer_etag_parts("\"3d49302ed5501c903b897b026e31c3c2-3\"", hex), 3);
    CHECK_STR(hex, "3d49302ed5501c903b897b026e31c3c2");
    CHECK_INT(xfer_etag_parts("3d49302ed5501c903b897b026e31c3c2-10000", hex), 10000);
    CHECK_INT(xfer_etag_parts("3d49302ed5501c903b897b026e31c3c2-10001", hex), 0);
    CHECK_INT(xfer_etag_parts("\"3d49302ed5501c903b897b026e31c3c2\"", hex), 0);   /* single part */
    CHECK_INT(xfer_etag_parts("3d49302ed5501c903b897b026e31c3c2-", hex), 0);
    CHECK_INT(xfer_etag_parts("3d49302ed5501c903b897b026e31c3c2-0", hex), 0);
    CHECK_INT(xfer_etag_parts("3D49302ED5501C903B897B026E31C3C2-2", hex), 0);     /* S3 writes lower case */
    CHECK_INT(xfer_etag_parts("3d49302ed5501c903b897b026e31c3c2-2x", hex), 0);
    CHECK_INT(xfer_etag_parts(NULL, hex), 0);
}

TEST(part_size_guesses_fit_the_count)
{
    const uint64_t MiB = 1 << 20;
    uint64_t g[16];
    int n, i;

    CHECK(xfer_parts_fit(20000000, 3, 8 * MiB));
    CHECK(!xfer_parts_fit(20000000, 3, 5 * MiB));      /* 4 parts */
    CHECK(!xfer_parts_fit(16 * MiB, 3, 8 * MiB));      /* exactly 2 parts */
    CHECK(xfer_parts_fit(16 * MiB, 2, 8 * MiB));
    CHECK(!xfer_parts_fit(16 * MiB, 0, 8 * MiB));
    /* The AWS CLI's 8 MiB first. */
    n = xfer_part_size_guesses(20000000, 3, 0, g, 16);
    CHECK(n >= 1);
    CHECK_INT(g[0], 8 * MiB);
    for (i = 0; i < n; i++)
        CHECK(xfer_parts_fit(20000000, 3, g[i]));
    /* A configured part size comes first when it fits. */
    n = xfer_part_size_guesses(100 * MiB, 7, 16 * MiB, g, 16);
    CHECK(n >= 1);
    CHECK_INT(g[0], 16 * MiB);
    /* rclone's 5 MiB. */
    n = xfer_part_size_guesses(12 * MiB, 3, 0, g, 16);
    CHECK(n >= 1);
    CHECK_INT(g[0], 5 * MiB);
    /* s5cmd's 50 MiB; the AWS CLI's 8 MiB doubled to 16 MiB for an object over 78 GiB. */
    n = xfer_part_size_guesses(120 * MiB, 3, 0, g, 16);
    CHECK(n >= 1);
    CHECK_INT(g[0], 50 * MiB);
    n = xfer_part_size_guesses(90000 * MiB, 5625, 0, g, 16);
    CHECK(n >= 1);
    CHECK_INT(g[0], 16 * MiB);
    /* One part is the whole object; no size of the list fits 3 parts of 10 MiB + 1 byte each. */
    n = xfer_part_size_guesses(123456789, 1, 0, g, 16);
    CHECK_INT(n, 1);
    CHECK_INT(g[0], 123456789);
    CHECK_INT(xfer_part_size_guesses(55 * MiB, 5, 0, g, 16), 0);  /* 11 MiB parts: nobody's default */
    CHECK_INT(xfer_part_size_guesses(20000000, 3, 0, g, 0), 0);
}
