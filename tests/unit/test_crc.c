#include "t.h"

#include <stdlib.h>

#include "base/buf.h"
#include "base/crc.h"

static const char check[] = "123456789";

TEST(crc_catalogue_check_values)
{
    CHECK(crc_crc32_update(0, check, 9) == 0xCBF43926u);
    CHECK(crc_crc32c_update(0, check, 9) == 0xE3069283u);
    CHECK(crc_crc64nvme_update(0, check, 9) == 0xAE8B14860A799888ull);
    CHECK(crc_crc32_update(0, "", 0) == 0);
    CHECK(crc_crc32c_update(0, "", 0) == 0);
    CHECK(crc_crc64nvme_update(0, "", 0) == 0);
}

TEST(crc_streaming_equals_one_shot)
{
    unsigned char data[1000];
    uint32_t a = 0, c = 0;
    uint64_t g = 0;
    size_t i, off;

    for (i = 0; i < sizeof(data); i++)
        data[i] = (unsigned char)(i * 131 + 7);
    for (off = 0; off < sizeof(data); off += 77) {
        size_t n = sizeof(data) - off < 77 ? sizeof(data) - off : 77;
        a = crc_crc32_update(a, data + off, n);
        c = crc_crc32c_update(c, data + off, n);
        g = crc_crc64nvme_update(g, data + off, n);
    }
    CHECK(a == crc_crc32_update(0, data, sizeof(data)));
    CHECK(c == crc_crc32c_update(0, data, sizeof(data)));
    CHECK(g == crc_crc64nvme_update(0, data, sizeof(data)));
}

/* S3 sends base64 of the big-endian CRC bytes. */
TEST(crc_s3_base64_forms)
{
    struct buf b = BUF_INIT(64);

    CHECK_INT(crc_b64_32(crc_crc32_update(0, check, 9), &b), S3C_OK);
    CHECK_STR(buf_cstr(&b), "y/Q5Jg==");
    buf_reset(&b);
    CHECK_INT(crc_b64_32(crc_crc32c_update(0, check, 9), &b), S3C_OK);
    CHECK_STR(buf_cstr(&b), "4waSgw==");
    buf_reset(&b);
    CHECK_INT(crc_b64_64(crc_crc64nvme_update(0, check, 9), &b), S3C_OK);
    CHECK_STR(buf_cstr(&b), "rosUhgp5mIg=");
    buf_release(&b);
}
