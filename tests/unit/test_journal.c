#include "t.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "xfer/journal.h"

static char *tmp_dir(void)
{
    static char d[64];

    snprintf(d, sizeof(d), "/tmp/s3c-journal-XXXXXX");
    return mkdtemp(d);
}

TEST(journal_round_trip_hostile_names)
{
    char *dir = tmp_dir();
    char sub[512];
    struct s3c_error e = S3C_ERROR_INIT;
    struct journal_upload j = { "bkt", "a/b c\n%41+\xc3\xa9\r\n", "up/id==\n", "./sp ace\n.bin", 123456789012ULL,
                                -5, 8 << 20 };
    struct journal_upload got;

    CHECK(dir != NULL);
    snprintf(sub, sizeof(sub), "%s/x/y", dir);   /* created on save */
    CHECK_INT(journal_upload_save(sub, &j, &e), S3C_OK);
    CHECK_INT(journal_upload_load(sub, "bkt", j.key, &got, &e), 1);
    CHECK_STR(got.bucket, "bkt");
    CHECK_STR(got.key, j.key);
    CHECK_STR(got.upload_id, j.upload_id);
    CHECK_STR(got.source, j.source);
    CHECK(got.size == j.size);
    CHECK(got.mtime_s == -5);
    CHECK(got.part_size == j.part_size);
    journal_upload_release(&got);
    /* Another key: nothing. */
    CHECK_INT(journal_upload_load(sub, "bkt", "other", &got, &e), 0);
    CHECK_INT(journal_upload_load(sub, "bkt2", j.key, &got, &e), 0);
    journal_upload_remove(sub, "bkt", j.key);
    CHECK_INT(journal_upload_load(sub, "bkt", j.key, &got, &e), 0);
    {
        char cmd[1024];
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
        CHECK_INT(system(cmd), 0);
    }
}

TEST(journal_malformed_is_an_error_not_a_resume)
{
    char *dir = tmp_dir();
    struct s3c_error e = S3C_ERROR_INIT;
    struct journal_upload j = { "bkt", "k", "id", "src", 10, 1, 5 << 20 };
    struct journal_upload got;
    char cmd[1024];

    CHECK_INT(journal_upload_save(dir, &j, &e), S3C_OK);
    /* Cut the record short: every file of the directory loses its tail. */
    snprintf(cmd, sizeof(cmd), "for f in '%s'/*.upload; do head -c 40 \"$f\" > \"$f.x\" && mv \"$f.x\" \"$f\"; done", dir);
    CHECK_INT(system(cmd), 0);
    CHECK_INT(journal_upload_load(dir, "bkt", "k", &got, &e), -1);
    CHECK_INT(e.code, S3C_EPARSE);
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    CHECK_INT(system(cmd), 0);
}

TEST(journal_dir_from_environment)
{
    struct buf b = BUF_INIT(4096);
    struct s3c_error e = S3C_ERROR_INIT;
    char *env1[] = { "HOME=/home/u", "S3C_STATE_DIR=/st", NULL };
    char *env2[] = { "HOME=/home/u", "XDG_STATE_HOME=/xdg", NULL };
    char *env3[] = { "HOME=/home/u", "XDG_STATE_HOME=relative", NULL };
    char *env4[] = { NULL };

    CHECK_INT(journal_dir(env1, &b, &e), S3C_OK);
    CHECK_STR(buf_cstr(&b), "/st");
    CHECK_INT(journal_dir(env2, &b, &e), S3C_OK);
    CHECK_STR(buf_cstr(&b), "/xdg/s3c");
    CHECK_INT(journal_dir(env3, &b, &e), S3C_OK);
    CHECK_STR(buf_cstr(&b), "/home/u/.local/state/s3c");
    CHECK_INT(journal_dir(env4, &b, &e), S3C_ECONFIG);
    buf_release(&b);
}
