/*
 * libFuzzer target for --from-manifest (plan/manifest): an S3 Inventory
 * report's manifest.json and its CSV data file, gzip'd and plain, or a plain
 * key list. The input is split at the first NUL byte into manifest.json and
 * the data; the data is written both as data/d.csv (plain) and
 * data/d.csv.gz (gzip'd here), beside the manifest as a downloaded report
 * keeps them, so "files": [{"key": ".../d.csv.gz"}] finds it. Without a NUL
 * the whole input is the manifest (a key list unless it starts with '{').
 * Checks, beyond "no crash, no leak, no UB": every entry has a key and a
 * bucket, a size and a time only when the report has both columns, and a failure
 * says why in one line.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zlib.h>

#include "plan/manifest.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[64], man_path[96], csv_path[112], gz_path[112];

static void write_file(const char *path, const uint8_t *p, size_t n)
{
    FILE *f = fopen(path, "wb");

    if (!f)
        abort();
    if (n && fwrite(p, 1, n, f) != n)
        abort();
    fclose(f);
}

static void write_gz(const char *path, const uint8_t *p, size_t n)
{
    gzFile gz = gzopen(path, "wb1");

    if (!gz)
        abort();
    if (n && gzwrite(gz, p, (unsigned)n) != (int)n)
        abort();
    gzclose(gz);
}

static void one_line(const struct s3c_error *e)
{
    if (!e->msg[0] || strlen(e->msg) >= sizeof(e->msg))
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *nul = memchr(data, 0, size);
    size_t n_man = nul ? (size_t)(nul - data) : size, off = nul ? n_man + 1 : size;
    struct s3c_error e = S3C_ERROR_INIT;
    struct manifest_entry ent;
    struct manifest *m;
    int i, r = 0;

    if (!dir[0]) {
        char sub[96];

        snprintf(dir, sizeof(dir), "/tmp/s3c-fuzz-manifest.%d", (int)getpid());
        snprintf(sub, sizeof(sub), "%s/data", dir);
        (void)mkdir(dir, 0700);
        (void)mkdir(sub, 0700);
        snprintf(man_path, sizeof(man_path), "%s/manifest.json", dir);
        snprintf(csv_path, sizeof(csv_path), "%s/data/d.csv", dir);
        snprintf(gz_path, sizeof(gz_path), "%s/data/d.csv.gz", dir);
    }
    write_file(man_path, data, n_man);
    write_file(csv_path, data + off, size - off);
    write_gz(gz_path, data + off, size - off);

    m = manifest_open(man_path, NULL, false, &e);
    if (!m) {
        one_line(&e);
        return 0;
    }
    /* Bounded: a long list is no more interesting than a short one. */
    for (i = 0; i < 100000 && (r = manifest_next(m, &ent, &e)) == 1; i++) {
        if (!ent.key || !ent.bucket || !ent.etag)
            abort();
        if (!ent.has_attrs && (ent.size || ent.mtime))
            abort(); /* no size and time without both columns (an ETag column alone is fine) */
        (void)strlen(ent.key);
        (void)strlen(ent.bucket);
    }
    if (r < 0)
        one_line(&e);
    manifest_free(m);
    return 0;
}
