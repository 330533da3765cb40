#include "t.h"

#include <string.h>

#include "base/ck.h"
#include "base/hash.h"
#include "base/str.h"

/* Known vectors: FIPS 180 ("abc"), the CRC catalogue ("123456789") in S3's wire form. */
TEST(ck_wire_forms_of_known_vectors)
{
    static const struct {
        enum ck_algo a;
        const char *in, *b64;
    } v[] = {
        { CK_CRC32, "123456789", "y/Q5Jg==" },
        { CK_CRC32C, "123456789", "4waSgw==" },
        { CK_CRC64NVME, "123456789", "rosUhgp5mIg=" },
        { CK_SHA1, "abc", "qZk+NkcGgWq6PiVxeFDCbJzQ2J0=" },
        { CK_SHA256, "abc", "ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0=" },
    };
    unsigned char raw[CK_MAX_LEN], back[CK_MAX_LEN];
    char b64[CK_B64_MAX];
    size_t i;

    for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
        ck_digest(v[i].a, v[i].in, strlen(v[i].in), raw);
        ck_b64(v[i].a, raw, b64);
        CHECK_STR(b64, v[i].b64);
        CHECK(ck_from_b64(v[i].a, sv_from(v[i].b64), back));
        CHECK(memcmp(raw, back, ck_len(v[i].a)) == 0);
    }
    /* A value of the wrong length is no checksum of that algorithm. */
    CHECK(!ck_from_b64(CK_SHA256, sv_from("y/Q5Jg=="), back));
    CHECK(!ck_from_b64(CK_CRC32, sv_from("not base64"), back));
}

TEST(ck_sha1_empty_and_streaming)
{
    unsigned char d[SHA1_LEN], s[SHA1_LEN];
    char hex[2 * SHA1_LEN + 1];
    struct hash_ctx *h = hash_sha1_new();

    hash_sha1("", 0, d);
    str_hex(d, SHA1_LEN, hex);
    CHECK_STR(hex, "da39a3ee5e6b4b0d3255bfef95601890afd80709");
    CHECK(h != NULL);
    hash_update(h, "a", 1);
    hash_update(h, "bc", 2);
    hash_final(h, s);
    hash_sha1("abc", 3, d);
    CHECK(memcmp(s, d, SHA1_LEN) == 0);
    hash_free(h);
}

TEST(ck_names_and_headers)
{
    enum ck_algo a;

    CHECK(ck_parse(sv_from("sha256"), &a) && a == CK_SHA256);
    CHECK(ck_parse(sv_from("CRC64NVME"), &a) && a == CK_CRC64NVME);
    CHECK(ck_parse(sv_from("Crc32c"), &a) && a == CK_CRC32C);
    CHECK(!ck_parse(sv_from("MD5"), &a));
    CHECK_STR(ck_header(CK_SHA1), "x-amz-checksum-sha1");
    CHECK_STR(ck_name(CK_CRC32C), "CRC32C");
    CHECK(ck_is_crc(CK_CRC32) && !ck_is_crc(CK_SHA256));
}

/* S3's composite checksum: the digest of the part digests, then "-N". */
TEST(ck_composite_of_parts)
{
    static char p1[1000], p2[10];
    unsigned char raws[2 * CK_MAX_LEN];
    char out[CK_B64_MAX + 8];

    memset(p1, 'a', sizeof(p1));
    memset(p2, 'b', sizeof(p2));
    ck_digest(CK_SHA256, p1, sizeof(p1), raws);
    ck_digest(CK_SHA256, p2, sizeof(p2), raws + 32);
    ck_composite(CK_SHA256, raws, 2, out);
    CHECK_STR(out, "5Crd/CSwuEws1oB/lQyV8GVZ7+p1sTeKzYY6TWq008s=-2");
    ck_digest(CK_SHA1, p1, sizeof(p1), raws);
    ck_digest(CK_SHA1, p2, sizeof(p2), raws + 20);
    ck_composite(CK_SHA1, raws, 2, out);
    CHECK_STR(out, "U3+qORXe06XVQ4ak6f0mOhXrmWg=-2");
    ck_digest(CK_CRC32, p1, sizeof(p1), raws);
    ck_digest(CK_CRC32, p2, sizeof(p2), raws + 4);
    ck_composite(CK_CRC32, raws, 2, out);
    CHECK_STR(out, "WU0ysA==-2");
}
