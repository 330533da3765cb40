#include "t.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store/store_fs.h"
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
    journal_upload_remove(sub, "bkt", j.key, NULL);
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

/* Entries of 'dir', hidden ones included (but . and ..). */
static int dir_entries(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    int n = 0;

    if (!d)
        return -1;
    while ((de = readdir(d)))
        n += strcmp(de->d_name, ".") && strcmp(de->d_name, "..");
    closedir(d);
    return n;
}

/* A record is held by one holder at a time (another run, or another object of
 * this run: flock is per open file), and only its own upload's end removes it. */
TEST(journal_upload_lock_and_remove_if_ours)
{
    char *dir = tmp_dir();
    struct s3c_error e = S3C_ERROR_INIT;
    struct journal_upload j = { "bkt", "k", "u1", "src", 10, 1, 5 << 20 };
    struct journal_upload got;
    char cmd[1024];
    int fd, fd2, other;

    CHECK(dir != NULL);
    fd = journal_upload_lock(dir, "bkt", "k");
    CHECK(fd >= 0);
    errno = 0;
    CHECK_INT(journal_upload_lock(dir, "bkt", "k"), -1);
    CHECK_INT(errno, EWOULDBLOCK);
    other = journal_upload_lock(dir, "bkt", "k2");
    CHECK(other >= 0);
    journal_upload_unlock(dir, "bkt", "k2", other);

    CHECK_INT(journal_upload_save(dir, &j, &e), S3C_OK);
    journal_upload_remove(dir, "bkt", "k", "u2");  /* another upload's end: the record stays */
    CHECK_INT(journal_upload_load(dir, "bkt", "k", &got, &e), 1);
    journal_upload_release(&got);
    journal_upload_unlock(dir, "bkt", "k", fd);     /* a record is left: so is its lock file */
    CHECK_INT(dir_entries(dir), 2);

    fd2 = journal_upload_lock(dir, "bkt", "k");     /* the holder is gone: free to take */
    CHECK(fd2 >= 0);
    journal_upload_remove(dir, "bkt", "k", "u1");
    CHECK_INT(journal_upload_load(dir, "bkt", "k", &got, &e), 0);
    journal_upload_unlock(dir, "bkt", "k", fd2);
    CHECK_INT(dir_entries(dir), 0);                 /* no record, no lock file */
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

TEST(journal_download_round_trip_and_parts)
{
    char *dir = tmp_dir();
    struct s3c_error e = S3C_ERROR_INIT;
    uint8_t done[11] = { 1, 0, 1, 1, 0, 0, 0, 0, 1, 0, 1 };
    struct journal_download j = { "/d/a b\n.bin", "bkt", "k/\xc3\xa9 y", "", "\"abc-11\"", 10 * 5 + 3, 1700000000,
                                  5, "/d/.s3c-a b\n.bin.0badcafe.tmp", 11, done };
    struct journal_download got;
    char cmd[1024];
    uint32_t i;

    CHECK(dir != NULL);
    CHECK_INT(journal_download_save(dir, &j, &e), S3C_OK);
    CHECK_INT(journal_download_load(dir, j.dest, &got, &e), 1);
    CHECK_STR(got.dest, j.dest);
    CHECK_STR(got.bucket, "bkt");
    CHECK_STR(got.key, j.key);
    CHECK_STR(got.version, "");
    CHECK_STR(got.etag, j.etag);
    CHECK_STR(got.tmp, j.tmp);
    CHECK(got.size == 53 && got.part_size == 5 && got.mtime_s == 1700000000);
    CHECK_INT((int)got.n_parts, 11);
    for (i = 0; i < 11; i++)
        CHECK_INT(got.done[i], done[i]);
    journal_download_release(&got);
    /* Another destination: nothing; an upload record of the same name is another file. */
    CHECK_INT(journal_download_load(dir, "/d/other", &got, &e), 0);
    /* A 'done' field that does not fit the part count is malformed, not a resume of fewer parts. */
    snprintf(cmd, sizeof(cmd), "sed -i 's/^done .*/done b3/' '%s'/*.download", dir);
    CHECK_INT(system(cmd), 0);
    CHECK_INT(journal_download_load(dir, j.dest, &got, &e), -1);
    journal_download_remove(dir, j.dest);
    CHECK_INT(journal_download_load(dir, j.dest, &got, &e), 0);
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    CHECK_INT(system(cmd), 0);
}

TEST(fs_tmp_is_for_names_only_our_temp_files)
{
    CHECK(fs_tmp_is_for("/d/.s3c-f.bin.0badcafe.tmp", "/d/f.bin"));
    CHECK(!fs_tmp_is_for("/e/.s3c-f.bin.0badcafe.tmp", "/d/f.bin"));    /* another directory */
    CHECK(!fs_tmp_is_for("/d/f.bin", "/d/f.bin"));                      /* the destination itself */
    CHECK(!fs_tmp_is_for("/d/.s3c-g.bin.0badcafe.tmp", "/d/f.bin"));    /* another file's */
    CHECK(!fs_tmp_is_for("/d/.s3c-f.bin.0badcafe.tmp/../x", "/d/f.bin"));
    CHECK(!fs_tmp_is_for("/d/.s3c-f.bin.0bad/afe.tmp", "/d/f.bin"));
    CHECK(!fs_tmp_is_for("/d/.s3c-f.bin.0BADCAFE.tmp", "/d/f.bin"));
}
