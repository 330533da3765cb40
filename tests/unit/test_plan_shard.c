#include "t.h"

#include <stdio.h>

#include "plan/shard.h"

/* FNV-1a 64's published vectors, and names of the kind the tool shards:
 * any change to the hash would send objects to other machines mid-job. */
TEST(shard_hash_vectors)
{
    CHECK(shard_hash(SV("")) == 0xcbf29ce484222325ull);
    CHECK(shard_hash(SV("a")) == 0xaf63dc4c8601ec8cull);
    CHECK(shard_hash(SV("foobar")) == 0x85944171f73967e8ull);
    CHECK(shard_hash(SV("d000/f0000")) == 0xc10a6d5c5341cb44ull);
    CHECK(shard_hash(SV("photos/2024/img_0001.jpg")) == 0xc6ce31dbd75cdd34ull);
}

TEST(shard_owns_exactly_one)
{
    char name[32];
    int counts[7] = { 0 };
    int i, k;

    for (i = 0; i < 7000; i++) {
        int owners = 0;
        snprintf(name, sizeof(name), "dir%02d/file-%05d.dat", i % 37, i);
        for (k = 0; k < 7; k++) {
            struct shard s = { (uint32_t)k, 7 };
            if (shard_owns(&s, sv_from(name))) {
                owners++;
                counts[k]++;
            }
        }
        CHECK_INT(owners, 1);
    }
    /* Balanced within 10%. */
    for (k = 0; k < 7; k++)
        CHECK(counts[k] > 900 && counts[k] < 1100);
    {
        struct shard none = SHARD_NONE, one = { 0, 1 };
        CHECK(shard_owns(&none, SV("x")));
        CHECK(shard_owns(&one, SV("x")));
    }
}

TEST(shard_parse_spec)
{
    struct s3c_error e = S3C_ERROR_INIT;
    struct shard s;

    CHECK_INT(shard_parse("3/8", NULL, &s, &e), S3C_OK);
    CHECK_INT(s.k, 3);
    CHECK_INT(s.n, 8);
    CHECK_INT(shard_parse(NULL, NULL, &s, &e), S3C_OK);
    CHECK_INT(s.n, 0);
    CHECK_INT(shard_parse("8/8", NULL, &s, &e), S3C_EUSAGE);
    CHECK_INT(shard_parse("-1/8", NULL, &s, &e), S3C_EUSAGE);
    CHECK_INT(shard_parse("1/0", NULL, &s, &e), S3C_EUSAGE);
    CHECK_INT(shard_parse("1/", NULL, &s, &e), S3C_EUSAGE);
    CHECK_INT(shard_parse("1", NULL, &s, &e), S3C_EUSAGE);
    CHECK_INT(shard_parse("1/2x", NULL, &s, &e), S3C_EUSAGE);
    CHECK_INT(shard_parse("0/2000000", NULL, &s, &e), S3C_EUSAGE);
}

TEST(shard_parse_auto)
{
    struct s3c_error e = S3C_ERROR_INIT;
    struct shard s;
    char *slurm[] = { "SLURM_ARRAY_TASK_ID=7", "SLURM_ARRAY_TASK_MIN=4", "SLURM_ARRAY_TASK_COUNT=4", NULL };
    char *slurm_step[] = { "SLURM_ARRAY_TASK_ID=10", "SLURM_ARRAY_TASK_MIN=0", "SLURM_ARRAY_TASK_STEP=5",
                           "SLURM_ARRAY_TASK_COUNT=3", NULL };
    char *slurm_bad[] = { "SLURM_ARRAY_TASK_ID=9", "SLURM_ARRAY_TASK_MIN=4", "SLURM_ARRAY_TASK_COUNT=4", NULL };
    char *k8s[] = { "HOME=/", "JOB_COMPLETION_INDEX=2", "S3C_SHARD_COUNT=5", NULL };
    char *k8s_no_n[] = { "JOB_COMPLETION_INDEX=2", NULL };
    char *generic[] = { "S3C_SHARD_INDEX=0", "S3C_SHARD_COUNT=1", NULL };
    char *none[] = { "HOME=/", "SLURM_JOB_ID=12", NULL };

    CHECK_INT(shard_parse("auto", slurm, &s, &e), S3C_OK);
    CHECK_INT(s.k, 3);
    CHECK_INT(s.n, 4);
    CHECK_INT(shard_parse("auto", slurm_step, &s, &e), S3C_OK);
    CHECK_INT(s.k, 2);
    CHECK_INT(s.n, 3);
    CHECK_INT(shard_parse("auto", slurm_bad, &s, &e), S3C_EUSAGE);
    CHECK_INT(shard_parse("auto", k8s, &s, &e), S3C_OK);
    CHECK_INT(s.k, 2);
    CHECK_INT(s.n, 5);
    CHECK_INT(shard_parse("auto", k8s_no_n, &s, &e), S3C_EUSAGE);
    CHECK(strstr(e.msg, "S3C_SHARD_COUNT") != NULL);
    CHECK_INT(shard_parse("auto", generic, &s, &e), S3C_OK);
    CHECK_INT(s.n, 1);
    CHECK_INT(shard_parse("auto", none, &s, &e), S3C_EUSAGE);
    CHECK(strstr(e.msg, "SLURM_ARRAY_TASK_ID") && strstr(e.msg, "JOB_COMPLETION_INDEX"));
}
