#include "t.h"

#include <sched.h>
#include <stdlib.h>

#include "base/buf.h"
#include "base/hash.h"
#include "base/str.h"
#include "base/thread.h"

TEST(buf_cap_is_enforced)
{
    struct buf b = BUF_INIT(4);

    CHECK_INT(buf_adds(&b, "1234"), S3C_OK);
    CHECK_INT(buf_adds(&b, "5"), S3C_ENOMEM);
    CHECK_STR(buf_cstr(&b), "1234");
    buf_release(&b);
}

TEST(buf_addf_formats)
{
    struct buf b = BUF_INIT(BUF_MAX_DEFAULT);

    CHECK_INT(buf_addf(&b, "%s-%d", "a", 42), S3C_OK);
    CHECK_STR(buf_cstr(&b), "a-42");
    buf_release(&b);
    CHECK_STR(buf_cstr(&b), "");
}

TEST(sha256_known_values)
{
    char hex[65];

    hash_sha256_hex("", 0, hex);
    CHECK_STR(hex, SHA256_EMPTY_HEX);
    hash_sha256_hex("abc", 3, hex);
    CHECK_STR(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(base64_round_trip)
{
    struct buf e = BUF_INIT(1024), d = BUF_INIT(1024);
    unsigned char md5[MD5_LEN];

    hash_md5("", 0, md5);
    CHECK_INT(base64_encode(md5, MD5_LEN, &e), S3C_OK);
    CHECK_STR(buf_cstr(&e), "1B2M2Y8AsgTpgAmY7PhCfg==");
    CHECK_INT(base64_decode(buf_sv(&e), &d), S3C_OK);
    CHECK_INT(d.len, MD5_LEN);
    CHECK(memcmp(d.data, md5, MD5_LEN) == 0);
    buf_release(&e);
    buf_release(&d);
}

TEST(sv_to_u64_rejects_junk)
{
    uint64_t v = 0;

    CHECK(sv_to_u64(SV("12345"), &v));
    CHECK_INT(v, 12345);
    CHECK(!sv_to_u64(SV("12a"), &v));
    CHECK(!sv_to_u64(SV(""), &v));
    CHECK(!sv_to_u64(SV("99999999999999999999"), &v));
}

TEST(quota_cores_rounds_up_and_knows_no_limit)
{
    CHECK_INT(thread_quota_cores("max 100000\n"), 0);
    CHECK_INT(thread_quota_cores("100000 100000\n"), 1);
    CHECK_INT(thread_quota_cores("150000 100000\n"), 2);
    CHECK_INT(thread_quota_cores("50000 100000"), 1);
    CHECK_INT(thread_quota_cores("6400000 100000\n"), 64);
    CHECK_INT(thread_quota_cores(""), 0);
    CHECK_INT(thread_quota_cores("x 100000"), 0);
    CHECK_INT(thread_quota_cores("100000 0"), 0);
    CHECK_INT(thread_quota_cores("-5 100000"), 0);
}

TEST(cores_follow_the_affinity_mask)
{
    cpu_set_t was, one;
    int all = thread_cores();

    CHECK(all >= 1);
    CHECK(sched_getaffinity(0, sizeof(was), &was) == 0);
    CPU_ZERO(&one);
    for (int i = 0; i < CPU_SETSIZE; i++)
        if (CPU_ISSET(i, &was)) {
            CPU_SET(i, &one);
            break;
        }
    CHECK(sched_setaffinity(0, sizeof(one), &one) == 0);
    CHECK_INT(thread_cores(), 1);
    CHECK(sched_setaffinity(0, sizeof(was), &was) == 0);
    CHECK_INT(thread_cores(), all);
}
