#include "t.h"

#include <stdint.h>

#include "base/hash.h"
#include "base/md5.h"
#include "base/str.h"

static unsigned rnd_state = 2024;

static unsigned rnd(void)
{
    rnd_state = rnd_state * 1103515245u + 12345u;
    return rnd_state >> 8;
}

static void md5_hex_of(const char *s, char hex[33])
{
    struct md5 m;
    unsigned char d[16];

    md5_init(&m);
    md5_update(&m, s, strlen(s));
    md5_final(&m, d);
    str_hex(d, 16, hex);
}

/* RFC 1321, A.5. */
TEST(md5_rfc1321_vectors)
{
    static const char *const v[][2] = {
        { "", "d41d8cd98f00b204e9800998ecf8427e" },
        { "a", "0cc175b9c0f1b6a831c399e269772661" },
        { "abc", "900150983cd24fb0d6963f7d28e17f72" },
        { "message digest", "f96b697d7cb7938d525a2f31aaf161d0" },
        { "abcdefghijklmnopqrstuvwxyz", "c3fcd3d76192e4007dfb496cca67e13b" },
        { "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789", "d174ab98d277d9f5a5611c2c9f419d9f" },
        { "12345678901234567890123456789012345678901234567890123456789012345678901234567890",
          "57edf4a22be3c955ac49da2e2107b67a" },
    };
    char hex[33];
    size_t i;

    for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
        md5_hex_of(v[i][0], hex);
        CHECK_STR(hex, v[i][1]);
    }
}

/* Against OpenSSL: random lengths, fed in random pieces. */
TEST(md5_equals_openssl_any_split)
{
    static unsigned char data[20000];
    size_t i;
    int t;

    for (i = 0; i < sizeof(data); i++)
        data[i] = (unsigned char)rnd();
    for (t = 0; t < 500; t++) {
        size_t n = t < 200 ? (size_t)t : rnd() % sizeof(data), at = 0;
        unsigned char want[16], got[16];
        struct md5 m;

        hash_md5(data, n, want);
        md5_init(&m);
        while (at < n) {
            size_t k = rnd() % 300;
            if (k > n - at)
                k = n - at;
            md5_update(&m, data + at, k);
            at += k;
        }
        md5_final(&m, got);
        if (memcmp(want, got, 16)) {
            CHECK(!memcmp(want, got, 16));
            return;
        }
    }
}

/* 'lanes' (8 or 16) streams of different bytes side by side = each alone,
 * from chaining values of different lengths; the pieces before and after
 * through md5_update, against OpenSSL. */
static void lanes_equal_scalar(int lanes)
{
    static unsigned char data[16][64 * 100 + 37];
    const unsigned char *p[16];
    uint32_t h[16][4];
    struct md5 m[16];
    size_t head[16];
    int i, t;

    for (i = 0; i < lanes; i++)
        for (size_t k = 0; k < sizeof(data[i]); k++)
            data[i][k] = (unsigned char)rnd();
    for (t = 0; t < 20; t++) {
        size_t blocks = rnd() % 80 + (t == 0 ? 0 : 1);

        for (i = 0; i < lanes; i++) {
            head[i] = (size_t)(rnd() % 10) * 64;
            md5_init(&m[i]);
            md5_update(&m[i], data[i], head[i]);
            memcpy(h[i], m[i].h, sizeof(h[i]));
            p[i] = data[i] + head[i];
        }
        if (md5_kernel() != MD5_KERNEL_SCALAR && lanes == 16)
            md5_x16_blocks(h, p, blocks);
        else if (md5_kernel() != MD5_KERNEL_SCALAR)
            md5_x8_blocks(h, p, blocks);
        else
            for (i = 0; i < lanes; i++)
                md5_blocks(h[i], p[i], blocks);
        for (i = 0; i < lanes; i++) {
            unsigned char want[16], got[16];

            memcpy(m[i].h, h[i], sizeof(h[i]));
            m[i].bytes += blocks * 64;
            md5_update(&m[i], data[i] + head[i] + blocks * 64, sizeof(data[i]) - head[i] - blocks * 64);
            md5_final(&m[i], got);
            hash_md5(data[i], sizeof(data[i]), want);
            CHECK(!memcmp(want, got, 16));
        }
    }
}

/* Each lane kernel this CPU runs (AVX2; AVX-512VL where it has it), the
 * best one left in use after. */
static void each_kernel_equal_scalar(int lanes)
{
    enum md5_kernel best = md5_kernel(), k;

    for (k = MD5_KERNEL_SCALAR; k <= best; k++) {
        CHECK(md5_kernel_set(k));
        CHECK(md5_kernel() == k);
        lanes_equal_scalar(lanes);
    }
    CHECK(md5_kernel_set(best));
    CHECK(!md5_kernel_set(best + 1) || best == MD5_KERNEL_AVX512);
}

TEST(md5_x8_lanes_equal_scalar)
{
    each_kernel_equal_scalar(8);
}

/* Sixteen: two groups of eight, interleaved. */
TEST(md5_x16_lanes_equal_scalar)
{
    each_kernel_equal_scalar(16);
}
