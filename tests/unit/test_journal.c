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
    struct journal_upload j = { .bucket = "bkt", .key = "a/b c\n%41+\xc3\xa9\r\n", .upload_id = "up/id==\n",
                                .source = "./sp ace\n.bin", .etag = "\"0123-2\"", .size = 123456789012ULL,
                                .mtime_s = -5, .part_size = 8 << 20 };
    struct journal_upload got;

    CHECK(dir != NULL);
    snprintf(sub, sizeof(sub), "%s/x/y", dir);   /* created on save */
    CHECK_INT(journal_upload_save(sub, &j, &e), S3C_OK);
    CHECK_INT(journal_upload_load(sub, "bkt", j.key, &got, &e), 1);
    CHECK_STR(got.bucket, "bkt");
    CHECK_STR(got.key, j.key);
    CHECK_STR(got.upload_id, j.upload_id);
    CHECK_STR(got.source, j.source);
    CHECK_STR(got.etag, j.etag);
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
    struct journal_upload j = { .bucket = "bkt", .key = "k", .upload_id = "id", .source = "src", .size = 10, .mtime_s = 1,
                                .part_size = 5 << 20 };
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
    struct journal_upload j = { .bucket = "bkt", .key = "k", .upload_id = "u1", .source = "src", .size = 10, .mtime_s = 1,
                                .part_size = 5 << 20 };
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

/* Replace the text of the one record of 'dir' whose name ends in 'suffix'. */
static void put_record(const char *dir, const char *suffix, const char *text)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    char path[512];
    FILE *f = NULL;
    size_t n;

    CHECK(d != NULL);
    while (d && (de = readdir(d))) {
        n = strlen(de->d_name);
        if (n > strlen(suffix) && !strcmp(de->d_name + n - strlen(suffix), suffix)) {
            snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
            f = fopen(path, "w");
            break;
        }
    }
    if (d)
        closedir(d);
    CHECK(f != NULL);
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

/* The text of the one record of 'dir' whose name ends in 'suffix' ("" if none). */
static const char *get_record(const char *dir, const char *suffix)
{
    static char text[4096];
    char cmd[512];
    FILE *p;
    size_t n = 0;

    snprintf(cmd, sizeof(cmd), "cat '%s'/*%s 2>/dev/null", dir, suffix);
    if ((p = popen(cmd, "r"))) {
        n = fread(text, 1, sizeof(text) - 1, p);
        pclose(p);
    }
    text[n] = '\0';
    return text;
}

#define UP_BODY "bucket bkt\nkey a%20b%0A%25\nupload_id up/id%3D%3D\nsource ./src\n" \
              "size 123456789012\nmtime_s -5\npart_size 8388608\n"
#define UP_V1 "s3c-upload 1\n" UP_BODY
#define DL_BODY "dest /d/a%20b\nbucket bkt\nkey k/%C3%A9\nversion \netag %22abc-11%22\n" \
              "tmp /d/.s3c-a%20b.0badcafe.tmp\nsize 53\nmtime_s -1\npart_size 5\ndone b0a\n"
#define DL_V1 "s3c-download 1\n" DL_BODY

/*
 * Records as s3c wrote them before the two kinds shared one reader and one
 * writer (UP_V1, DL_V1: the bytes the previous version writes for these
 * records) are what it writes now, and are read as they were: a run upgraded
 * (or downgraded) mid-transfer resumes it.
 */
TEST(journal_records_of_the_previous_version_are_read_and_written_alike)
{
    char *dir = tmp_dir();
    struct s3c_error e = S3C_ERROR_INIT;
    struct journal_upload u = { "bkt", "a b\n%", "up/id==", "./src", "", 123456789012ULL, -5, 8 << 20 }, gu;
    uint8_t done[11] = { 1, 0, 1, 1, 0, 0, 0, 0, 1, 0, 1 };
    struct journal_download d = { "/d/a b", "bkt", "k/\xc3\xa9", "", "\"abc-11\"", 53, -1,
                                  5, "/d/.s3c-a b.0badcafe.tmp", 11, done }, gd;
    char cmd[512];
    uint32_t i;

    CHECK(dir != NULL);
    CHECK_INT(journal_upload_save(dir, &u, &e), S3C_OK);
    CHECK_INT(journal_download_save(dir, &d, &e), S3C_OK);
    CHECK_STR(get_record(dir, ".upload"), UP_V1);
    CHECK_STR(get_record(dir, ".download"), DL_V1);
    /* The same records with every slash percent-encoded: read alike. */
    put_record(dir, ".upload", "s3c-upload 1\nbucket bkt\nkey a%20b%0A%25\nupload_id up%2Fid%3D%3D\n"
                               "source .%2Fsrc\nsize 123456789012\nmtime_s -5\npart_size 8388608\n");
    CHECK_INT(journal_upload_load(dir, "bkt", u.key, &gu, &e), 1);
    CHECK_STR(gu.upload_id, u.upload_id);
    CHECK_STR(gu.source, u.source);
    journal_upload_release(&gu);
    put_record(dir, ".upload", UP_V1);
    put_record(dir, ".download", DL_V1);
    CHECK_INT(journal_upload_load(dir, "bkt", u.key, &gu, &e), 1);
    CHECK_STR(gu.upload_id, u.upload_id);
    CHECK_STR(gu.source, u.source);
    CHECK(gu.size == u.size && gu.mtime_s == -5 && gu.part_size == u.part_size);
    CHECK_STR(gu.etag, ""); /* a field added since (a relay's): absent, read as none */
    journal_upload_release(&gu);
    CHECK_INT(journal_download_load(dir, d.dest, &gd, &e), 1);
    CHECK_STR(gd.key, d.key);
    CHECK_STR(gd.version, "");
    CHECK_STR(gd.etag, d.etag);
    CHECK_STR(gd.tmp, d.tmp);
    CHECK(gd.size == 53 && gd.mtime_s == -1 && gd.part_size == 5 && gd.n_parts == 11);
    for (i = 0; i < 11; i++)
        CHECK_INT(gd.done[i], done[i]);
    journal_download_release(&gd);
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    CHECK_INT(system(cmd), 0);
}

/* 'text' as the download record of /d/a b: what the load returns. */
static int dl_load_text(const char *dir, const char *text)
{
    struct s3c_error e = S3C_ERROR_INIT;
    struct journal_download got;
    int rc;

    put_record(dir, ".download", text);
    rc = journal_download_load(dir, "/d/a b", &got, &e);
    if (rc == 1)
        journal_download_release(&got);
    else if (rc < 0)
        CHECK_INT(e.code, S3C_EPARSE);
    return rc;
}

/* 'text' as the upload record of bkt/"a b\n%": what the load returns. */
static int up_load_text(const char *dir, const char *text)
{
    struct s3c_error e = S3C_ERROR_INIT;
    struct journal_upload got;
    int rc;

    put_record(dir, ".upload", text);
    rc = journal_upload_load(dir, "bkt", "a b\n%", &got, &e);
    if (rc == 1)
        journal_upload_release(&got);
    else if (rc < 0)
        CHECK_INT(e.code, S3C_EPARSE);
    return rc;
}

/*
 * One reader for both kinds, and it takes a record whole or not at all: a
 * field missing, twice, or a number that is not one is malformed (never a
 * resume of what could be read); a field it does not know is a later
 * version's, skipped.
 */
TEST(journal_reader_takes_a_record_whole_or_not_at_all)
{
    char *dir = tmp_dir();
    struct s3c_error e = S3C_ERROR_INIT;
    struct journal_upload u = { "bkt", "a b\n%", "id", "src", "", 1, 1, 1 };
    uint8_t done[1] = { 1 };
    struct journal_download d = { "/d/a b", "bkt", "k", "", "\"e\"", 1, 1, 1, "/d/.t", 1, done };
    char cmd[512];

    CHECK(dir != NULL);
    CHECK_INT(journal_upload_save(dir, &u, &e), S3C_OK);
    CHECK_INT(journal_download_save(dir, &d, &e), S3C_OK);
    CHECK_INT(up_load_text(dir, UP_V1), 1);
    CHECK_INT(dl_load_text(dir, DL_V1), 1);
    /* A later version's field, anywhere; blank lines. */
    CHECK_INT(up_load_text(dir, UP_V1 "checksum CRC64NVME\n"), 1);
    CHECK_INT(dl_load_text(dir, "s3c-download 1\nnew x\n\n" DL_BODY), 1);
    /* Another kind's or version's magic; none. */
    CHECK_INT(up_load_text(dir, "s3c-upload 2\n" UP_BODY), -1);
    CHECK_INT(dl_load_text(dir, "s3c-upload 1\n" DL_BODY), -1);
    CHECK_INT(dl_load_text(dir, ""), -1);
    /* A field missing, or twice (even with the same value). */
    CHECK_INT(up_load_text(dir, "s3c-upload 1\nbucket bkt\nkey a%20b%0A%25\nupload_id u\nsource s\nsize 1\n"
                                "mtime_s 1\n"), -1);
    CHECK_INT(up_load_text(dir, UP_V1 "size 123456789012\n"), -1);
    CHECK_INT(dl_load_text(dir, DL_V1 "done b0a\n"), -1);
    /* A line without a value. */
    CHECK_INT(up_load_text(dir, UP_V1 "size\n"), -1);
    /* Numbers: digits only, in range; mtime_s alone may be negative. */
    CHECK_INT(up_load_text(dir, "s3c-upload 1\nbucket bkt\nkey a%20b%0A%25\nupload_id u\nsource s\nsize 12x\n"
                                "mtime_s 1\npart_size 5\n"), -1);
    CHECK_INT(up_load_text(dir, "s3c-upload 1\nbucket bkt\nkey a%20b%0A%25\nupload_id u\nsource s\nsize -1\n"
                                "mtime_s 1\npart_size 5\n"), -1);
    CHECK_INT(up_load_text(dir, "s3c-upload 1\nbucket bkt\nkey a%20b%0A%25\nupload_id u\nsource s\nsize \n"
                                "mtime_s 1\npart_size 5\n"), -1);
    CHECK_INT(up_load_text(dir, "s3c-upload 1\nbucket bkt\nkey a%20b%0A%25\nupload_id u\nsource s\n"
                                "size 18446744073709551616\nmtime_s 1\npart_size 5\n"), -1);
    CHECK_INT(up_load_text(dir, "s3c-upload 1\nbucket bkt\nkey a%20b%0A%25\nupload_id u\nsource s\n"
                                "size 18446744073709551615\nmtime_s -9223372036854775808\npart_size 5\n"), 1);
    CHECK_INT(up_load_text(dir, "s3c-upload 1\nbucket bkt\nkey a%20b%0A%25\nupload_id u\nsource s\n"
                                "size 1\nmtime_s 9223372036854775808\npart_size 5\n"), -1);
    CHECK_INT(up_load_text(dir, "s3c-upload 1\nbucket bkt\nkey a%20b%0A%25\nupload_id u\nsource s\n"
                                "size 1\nmtime_s --1\npart_size 5\n"), -1);
    /* An empty upload id; another key's record (the same file name). */
    CHECK_INT(up_load_text(dir, "s3c-upload 1\nbucket bkt\nkey a%20b%0A%25\nupload_id \nsource s\n"
                                "size 1\nmtime_s 1\npart_size 5\n"), -1);
    CHECK_INT(up_load_text(dir, "s3c-upload 1\nbucket bkt\nkey other\nupload_id u\nsource s\n"
                                "size 1\nmtime_s 1\npart_size 5\n"), 0);
    CHECK_INT(up_load_text(dir, "s3c-upload 1\nbucket other\nkey a%20b%0A%25\nupload_id u\nsource s\n"
                                "size 1\nmtime_s 1\npart_size 5\n"), 0);
    /* Downloads: flags in hex, as many digits as the parts need; a relative
     * temp file; no bytes; another destination. */
    CHECK_INT(dl_load_text(dir, "s3c-download 1\ndest /d/a%20b\nbucket b\nkey k\nversion \netag e\ntmp /t\n"
                                "size 53\nmtime_s 1\npart_size 5\ndone b0g\n"), -1);
    CHECK_INT(dl_load_text(dir, "s3c-download 1\ndest /d/a%20b\nbucket b\nkey k\nversion \netag e\ntmp /t\n"
                                "size 53\nmtime_s 1\npart_size 5\ndone b0a0\n"), -1);
    CHECK_INT(dl_load_text(dir, "s3c-download 1\ndest /d/a%20b\nbucket b\nkey k\nversion \netag e\ntmp t\n"
                                "size 53\nmtime_s 1\npart_size 5\ndone b0a\n"), -1);
    CHECK_INT(dl_load_text(dir, "s3c-download 1\ndest /d/a%20b\nbucket b\nkey k\nversion \netag e\ntmp /t\n"
                                "size 0\nmtime_s 1\npart_size 5\ndone \n"), -1);
    CHECK_INT(dl_load_text(dir, "s3c-download 1\ndest /d/b\nbucket b\nkey k\nversion \netag e\ntmp /t\n"
                                "size 53\nmtime_s 1\npart_size 5\ndone b0a\n"), 0);
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    CHECK_INT(system(cmd), 0);
}

/* A record is at most JOURNAL_MAX_BYTES (64 KiB) less one, written or read. */
TEST(journal_records_are_capped_at_64_kib)
{
    char *dir = tmp_dir();
    struct s3c_error e = S3C_ERROR_INIT;
    struct journal_upload u = { "bkt", "a b\n%", "id", NULL, NULL, 1, 1, 1 };
    size_t cap = 64 << 10, pad;
    char *text = malloc(cap + 1), *src = malloc(cap);
    char cmd[512];

    CHECK(dir != NULL && text != NULL && src != NULL);
    if (!dir || !text || !src)
        goto out;
    /* A source path that does not fit, and one that does. */
    memset(src, 'x', cap - 1);
    src[cap - 1] = '\0';
    u.source = src;
    CHECK_INT(journal_upload_save(dir, &u, &e), S3C_ENOMEM);
    src[cap - 200] = '\0';
    CHECK_INT(journal_upload_save(dir, &u, &e), S3C_OK);
    /* Read: 64 KiB less one, with a later version's field to fill it; a byte more. */
    pad = cap - 1 - strlen(UP_V1 "pad \n");
    snprintf(text, cap + 1, "%s%s", UP_V1, "pad ");
    memset(text + strlen(text), 'p', pad);
    text[cap - 2] = '\n';
    text[cap - 1] = '\0';
    CHECK_INT((int)strlen(text), (int)cap - 1);
    CHECK_INT(up_load_text(dir, text), 1);
    memmove(text + strlen(UP_V1) + 1, text + strlen(UP_V1), cap - strlen(UP_V1));
    text[strlen(UP_V1)] = '\n';
    CHECK_INT((int)strlen(text), (int)cap);
    CHECK_INT(up_load_text(dir, text), -1);
out:
    free(text);
    free(src);
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir ? dir : "/nonexistent");
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
