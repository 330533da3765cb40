/* s3/fattr: mtimes, modes and owners in rclone's and s3cmd's metadata forms, both ways. */
#include "t.h"

#include "s3/fattr.h"

static void round_trip(int64_t s, int32_t ns, const char *text)
{
    char out[FATTR_MTIME_MAX];
    int64_t s2 = 12345;
    int32_t ns2 = 12345;

    fattr_mtime_format(s, ns, out);
    CHECK_STR(out, text);
    CHECK(fattr_mtime_parse(sv_from(text), &s2, &ns2));
    CHECK_INT(s2, s);
    CHECK_INT(ns2, ns);
}

TEST(fattr_mtime_forms)
{
    int64_t s = 0;
    int32_t ns = 0;

    round_trip(1577934245, 123456789, "1577934245.123456789");
    round_trip(1700000000, 0, "1700000000");
    round_trip(1700000000, 500000000, "1700000000.5");
    round_trip(0, 1, "0.000000001");
    round_trip(-1, 750000000, "-0.25");
    round_trip(-2, 750000000, "-1.25");
    round_trip(-5, 0, "-5");
    /* What other writers send: more digits than nanoseconds (cut), RFC 3339 (to the second). */
    CHECK(fattr_mtime_parse(SV("1700000000.1234567891"), &s, &ns));
    CHECK_INT(s, 1700000000);
    CHECK_INT(ns, 123456789);
    CHECK(fattr_mtime_parse(SV(" 1700000000.25 "), &s, &ns));
    CHECK_INT(ns, 250000000);
    CHECK(fattr_mtime_parse(SV("2020-01-02T03:04:05Z"), &s, &ns));
    CHECK_INT(s, 1577934245);
    CHECK_INT(ns, 0);
    /* Not times: ignored by the callers, as if absent. */
    CHECK(!fattr_mtime_parse(SV(""), &s, &ns));
    CHECK(!fattr_mtime_parse(SV("."), &s, &ns));
    CHECK(!fattr_mtime_parse(SV("abc"), &s, &ns));
    CHECK(!fattr_mtime_parse(SV("17e8"), &s, &ns));
    CHECK(!fattr_mtime_parse(SV("1700000000.5x"), &s, &ns));
    CHECK(!fattr_mtime_parse(SV("99999999999999999999"), &s, &ns));
    CHECK(!fattr_mtime_parse(SV("2020-13-45Tzz"), &s, &ns));
}

/* 'a' holds all four parts, with these values. */
static void check_all(const struct fattr *a, int64_t s, int32_t ns, uint32_t mode, uint32_t uid, uint32_t gid)
{
    CHECK(a->has_mtime && a->has_mode && a->has_uid && a->has_gid);
    CHECK_INT(a->mtime_s, s);
    CHECK_INT(a->mtime_ns, ns);
    CHECK_INT(a->mode, mode);
    CHECK_INT(a->uid, uid);
    CHECK_INT(a->gid, gid);
}

TEST(fattr_from_rclone_and_s3cmd)
{
    struct fattr a = FATTR_INIT;
    struct fattr_meta m = { SV("1577934245.123456789"), SV("100640"), SV("1000"), SV("100"), SV_NULL };
    struct fattr_meta s3cmd = {
        SV_NULL, SV_NULL, SV_NULL, SV_NULL,
        SV("atime:1796321171/ctime:1796321161/gid:20/gname:staff/md5:b1946ac92492d2347c6235b4d2611184/"
           "mode:35309/mtime:1577934245/uid:501/uname:me")
    };
    struct fattr_meta both = { SV("1600000000.5"), SV_NULL, SV("7"), SV_NULL, s3cmd.s3cmd };
    struct fattr_meta bad = { SV("soon"), SV("999"), SV("-1"), SV("4294967296"), SV("mtime:x/mode:y") };

    fattr_from_meta(&a, &m);
    check_all(&a, 1577934245, 123456789, 0640, 1000, 100);

    /* s3cmd: decimal mode (35309 = 0104755: setuid, the type dropped), whole seconds. */
    a = (struct fattr)FATTR_INIT;
    fattr_from_meta(&a, &s3cmd);
    check_all(&a, 1577934245, 0, 04755, 501, 20);

    /* rclone's keys win; s3cmd's fill in what they lack. */
    a = (struct fattr)FATTR_INIT;
    fattr_from_meta(&a, &both);
    check_all(&a, 1600000000, 500000000, 04755, 7, 20);

    /* Values that do not parse set nothing ("999": 9 is no octal digit). */
    a = (struct fattr)FATTR_INIT;
    fattr_from_meta(&a, &bad);
    CHECK(!a.has_mtime && !a.has_mode && !a.has_uid && !a.has_gid);
}
