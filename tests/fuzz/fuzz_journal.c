/*
 * libFuzzer target for the resume journal (xfer/journal): the input is the
 * text of a record in the state directory, read back both as the upload
 * record of s3://bkt/k and as the download record of /d/x (the files those
 * would be saved to). Checks, beyond "no crash, no leak, no UB": a found
 * record has every field; a found download record is consistent as
 * journal.h promises (1 to 10,000 parts of part_size make size, a flag per
 * part, each 0 or 1); a refusal says why; and what the one writer makes
 * of a found record, the one reader reads back the same (the two are one
 * format for both kinds).
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "xfer/journal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[64], up_path[512], dl_path[512];

static void write_file(const char *path, const uint8_t *p, size_t n)
{
    FILE *f = fopen(path, "wb");

    if (!f)
        abort();
    if (n && fwrite(p, 1, n, f) != n)
        abort();
    fclose(f);
}

/* Save one record of each kind once, to learn the two file names. */
static void setup(void)
{
    struct s3c_error e = S3C_ERROR_INIT;
    struct journal_upload u = {
        .bucket = "bkt", .key = "k", .upload_id = "id", .source = "/src", .etag = "",
        .size = 10, .mtime_s = 1, .part_size = 5,
    };
    uint8_t done[2] = { 1, 0 };
    struct journal_download d = { "/d/x", "bkt", "k", "", "\"e\"", 10, 1, 5, "/d/.x.tmp", 2, done };
    struct dirent *de;
    DIR *dh;

    snprintf(dir, sizeof(dir), "/tmp/s3c-fuzz-journal.%d", (int)getpid());
    if (journal_upload_save(dir, &u, &e) || journal_download_save(dir, &d, &e))
        abort();
    if (!(dh = opendir(dir)))
        abort();
    while ((de = readdir(dh))) {
        size_t n = strlen(de->d_name);
        if (n > 7 && !strcmp(de->d_name + n - 7, ".upload"))
            snprintf(up_path, sizeof(up_path), "%s/%s", dir, de->d_name);
        else if (n > 9 && !strcmp(de->d_name + n - 9, ".download"))
            snprintf(dl_path, sizeof(dl_path), "%s/%s", dir, de->d_name);
    }
    closedir(dh);
    if (!up_path[0] || !dl_path[0])
        abort();
}

/* A found upload record, saved and loaded again: the same. */
static void upload_round_trip(const struct journal_upload *u)
{
    struct s3c_error e = S3C_ERROR_INIT;
    struct journal_upload again;

    if (journal_upload_save(dir, u, &e))
        return; /* too long once encoded (64 KiB): refused, which is fine */
    if (journal_upload_load(dir, "bkt", "k", &again, &e) != 1 || strcmp(again.upload_id, u->upload_id) ||
        strcmp(again.source, u->source) || again.size != u->size || again.mtime_s != u->mtime_s ||
        again.part_size != u->part_size)
        abort();
    journal_upload_release(&again);
}

/* A found download record, saved and loaded again: the same. */
static void download_round_trip(const struct journal_download *d)
{
    struct s3c_error e = S3C_ERROR_INIT;
    struct journal_download again;

    if (journal_download_save(dir, d, &e))
        return;
    if (journal_download_load(dir, "/d/x", &again, &e) != 1 || strcmp(again.bucket, d->bucket) ||
        strcmp(again.key, d->key) || strcmp(again.version, d->version) || strcmp(again.etag, d->etag) ||
        strcmp(again.tmp, d->tmp) || again.size != d->size || again.mtime_s != d->mtime_s ||
        again.part_size != d->part_size || again.n_parts != d->n_parts ||
        memcmp(again.done, d->done, d->n_parts))
        abort();
    journal_download_release(&again);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct s3c_error e = S3C_ERROR_INIT;
    struct journal_upload u;
    struct journal_download d;
    uint32_t i;
    int r;

    if (!dir[0])
        setup();
    write_file(up_path, data, size);
    write_file(dl_path, data, size);

    r = journal_upload_load(dir, "bkt", "k", &u, &e);
    if (r == 1) {
        if (!u.bucket || !u.key || !u.upload_id || !u.upload_id[0] || !u.source ||
            strcmp(u.bucket, "bkt") || strcmp(u.key, "k"))
            abort();
        upload_round_trip(&u);
        journal_upload_release(&u);
    } else if (r < 0 && !e.msg[0]) {
        abort();
    }

    s3c_error_clear(&e);
    r = journal_download_load(dir, "/d/x", &d, &e);
    if (r == 1) {
        if (!d.dest || !d.bucket || !d.key || !d.version || !d.etag || !d.tmp || !d.done ||
            strcmp(d.dest, "/d/x") || d.n_parts < 1 || d.n_parts > 10000 || !d.part_size ||
            (uint64_t)(d.n_parts - 1) * d.part_size >= d.size || d.size > (uint64_t)d.n_parts * d.part_size)
            abort();
        for (i = 0; i < d.n_parts; i++)
            if (d.done[i] > 1)
                abort();
        download_round_trip(&d);
        journal_download_release(&d);
    } else if (r < 0 && !e.msg[0]) {
        abort();
    }
    return 0;
}
