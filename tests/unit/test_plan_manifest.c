#include "t.h"

#include <stdlib.h>
#include <unistd.h>
#include <sys/stat.h>
#include <zlib.h>

#include "plan/manifest.h"

TEST(manifest_csv_split_rows)
{
    struct buf b = BUF_INIT(1 << 16);
    struct sv f[8];
    size_t n;

    CHECK(manifest_csv_split(SV("\"bkt\",\"a%2Fb+c\",\"12\",\"2024-01-02T03:04:05.000Z\""), f, 8, &n, &b));
    CHECK_INT(n, 4);

    CHECK_STR(f[0].p, "bkt");
    CHECK_STR(f[1].p, "a%2Fb+c");
    CHECK_STR(f[3].p, "2024-01-02T03:04:05.000Z");
    CHECK(manifest_csv_split(SV("plain,\"say \"\"hi\"\"\",,last"), f, 8, &n, &b));
    CHECK_INT(n, 4);
    CHECK_STR(f[1].p, "say \"hi\"");
    CHECK_STR(f[2].p, "");
    CHECK(!manifest_csv_split(SV("\"open"), f, 8, &n, &b));
    CHECK(!manifest_csv_split(SV("\"a\"x,b"), f, 8, &n, &b));
    CHECK(!manifest_csv_split(SV("a,b,c"), f, 2, &n, &b));
    buf_release(&b);
}

TEST(manifest_url_decode_inventory_keys)
{
    struct buf b = BUF_INIT(1 << 16);

    CHECK(manifest_url_decode(SV("dir%2Fmy+file%C3%A9.txt"), &b));
    CHECK_STR(buf_cstr(&b), "dir/my file\xc3\xa9.txt");
    CHECK(!manifest_url_decode(SV("bad%2"), &b));
    CHECK(!manifest_url_decode(SV("nul%00"), &b));
    buf_release(&b);
}

static void write_file(const char *path, const char *text, bool gz)
{
    if (gz) {
        gzFile g = gzopen(path, "wb");
        gzputs(g, text);
        gzclose(g);
    } else {
        FILE *f = fopen(path, "w");
        fputs(text, f);
        fclose(f);
    }
}

/* A downloaded inventory report: DIR/DATE/manifest.json and DIR/data/NAME.csv.gz. */
TEST(manifest_reads_an_inventory_report)
{
    char dir[] = "/tmp/s3c-unit-manifest.XXXXXX", path[512];
    struct s3c_error e = S3C_ERROR_INIT;
    struct manifest_entry me;
    struct manifest *m;
    int n = 0;

    CHECK(mkdtemp(dir) != NULL);
    snprintf(path, sizeof(path), "%s/2024-01-02T00-00Z", dir);
    CHECK(mkdir(path, 0700) == 0);
    snprintf(path, sizeof(path), "%s/data", dir);
    CHECK(mkdir(path, 0700) == 0);
    snprintf(path, sizeof(path), "%s/data/one.csv.gz", dir);
    write_file(path,
               "\"src\",\"a%2F1.txt\",\"5\",\"2024-01-02T03:04:05.000Z\",\"d41d8cd98f00b204e9800998ecf8427e\",\"true\",\"false\"\n"
               "\"src\",\"gone\",\"\",\"2024-01-02T03:04:05.000Z\",\"\",\"true\",\"true\"\n"
               "\"src\",\"old+one\",\"7\",\"2023-01-02T03:04:05.000Z\",\"x\",\"false\",\"false\"\n",
               true);
    snprintf(path, sizeof(path), "%s/data/two.csv", dir);
    write_file(path, "\"src\",\"b+c\",\"9\",\"2024-01-02T03:04:06Z\",\"e\",\"true\",\"false\"\r\n", false);
    snprintf(path, sizeof(path), "%s/2024-01-02T00-00Z/manifest.json", dir);
    write_file(path,
               "{\"sourceBucket\": \"src\", \"destinationBucket\": \"arn:aws:s3:::inv\", \"fileFormat\": \"CSV\",\n"
               " \"fileSchema\": \"Bucket, Key, Size, LastModifiedDate, ETag, IsLatest, IsDeleteMarker\",\n"
               " \"files\": [{\"key\": \"inv/src/cfg/data/one.csv.gz\"}, {\"key\": \"inv/src/cfg/data/two.csv\"}]}\n",
               false);
    m = manifest_open(path, NULL, false, &e);
    CHECK(m != NULL);
    while (m && manifest_next(m, &me, &e) == 1) {
        if (n == 0) {
            CHECK_STR(me.key, "a/1.txt");
            CHECK_STR(me.bucket, "src");
            CHECK(me.has_attrs);
            CHECK_INT(me.size, 5);
            CHECK_INT(me.mtime, 1704164645);
            CHECK_STR(me.etag, "\"d41d8cd98f00b204e9800998ecf8427e\"");
        } else {
            CHECK_STR(me.key, "b c");
            CHECK_INT(me.size, 9);
        }
        n++;
    }
    CHECK_INT(n, 2); /* the delete marker and the old version are skipped */
    manifest_free(m);
    /* ORC reports are refused with a clear message. */
    write_file(path, "{\"fileFormat\": \"ORC\", \"fileSchema\": \"x\", \"files\": []}", false);
    CHECK(manifest_open(path, NULL, false, &e) == NULL);
    CHECK(strstr(e.msg, "only CSV") != NULL);
    {
        char cmd[600];
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
        CHECK(system(cmd) == 0);
    }
}

TEST(manifest_reads_a_key_list)
{
    char path[] = "/tmp/s3c-unit-keys.XXXXXX";
    struct s3c_error e = S3C_ERROR_INIT;
    struct manifest_entry me;
    struct manifest *m;
    int fd = mkstemp(path);

    CHECK(fd >= 0);
    CHECK(write(fd, "a/b c.txt\n\ns3://other/k\r\nlast", 30) == 30);
    close(fd);
    m = manifest_open(path, NULL, false, &e);
    CHECK(m != NULL);
    CHECK_INT(manifest_next(m, &me, &e), 1);
    CHECK_STR(me.key, "a/b c.txt");
    CHECK_STR(me.bucket, "");
    CHECK(!me.has_attrs);
    CHECK_INT(manifest_next(m, &me, &e), 1);
    CHECK_STR(me.key, "k");
    CHECK_STR(me.bucket, "other");
    CHECK_INT(manifest_next(m, &me, &e), 1);
    CHECK_STR(me.key, "last");
    CHECK_INT(manifest_next(m, &me, &e), 0);
    manifest_free(m);
    unlink(path);
    CHECK(manifest_open("/nonexistent/s3c-keys", NULL, false, &e) == NULL);
}
