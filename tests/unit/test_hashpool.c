#include "t.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/hash.h"
#include "base/md5.h"
#include "xfer/hashpool.h"

static unsigned rnd_state = 77;

static unsigned rnd(void)
{
    rnd_state = rnd_state * 1103515245u + 12345u;
    return rnd_state >> 8;
}

/* 'n' random bytes into data[] and into an unlinked temp file; its fd, or -1. */
static int random_file(unsigned char *data, size_t n)
{
    char path[] = "/tmp/s3c-unit-hash-XXXXXX";
    int fd = mkstemp(path);
    size_t i;

    if (fd < 0)
        return -1;
    unlink(path);
    for (i = 0; i < n; i++)
        data[i] = (unsigned char)rnd();
    if (write(fd, data, n) != (ssize_t)n) {
        close(fd);
        return -1;
    }
    return fd;
}

/* The pool: file ranges and buffers of random sizes, some continuing an MD5,
 * many at once (so workers fill their lanes), each against OpenSSL. */
TEST(hashpool_jobs_equal_openssl)
{
    enum { JOBS = 40, FILE_BYTES = 3 << 20 };
    unsigned char *data = malloc(FILE_BYTES);
    struct hash_job *jobs = calloc(JOBS, sizeof(*jobs));
    struct hashpool *q = hashpool_new(2, NULL, NULL);
    char path[] = "/tmp/s3c-unit-md5-XXXXXX";
    int fd = mkstemp(path), i, got = 0;

    CHECK(data && jobs && q && fd >= 0);
    if (!data || !jobs || !q || fd < 0)
        goto out;
    unlink(path);
    for (i = 0; i < FILE_BYTES; i++)
        data[i] = (unsigned char)rnd();
    CHECK(write(fd, data, FILE_BYTES) == FILE_BYTES);
    for (i = 0; i < JOBS; i++) {
        struct hash_job *j = &jobs[i];
        uint64_t head = i % 3 == 0 ? (uint64_t)(rnd() % 100) * 64 : 0;

        j->off = (uint64_t)(rnd() % (FILE_BYTES / 2)) / 64 * 64;
        j->len = i % 5 == 0 ? rnd() % 300 : rnd() % (FILE_BYTES / 2);
        md5_init(&j->md5);
        /* A job may continue an MD5: the 'head' bytes before it, hashed here. */
        if (j->off >= head) {
            md5_update(&j->md5, data + j->off - head, head);
        }
        j->fd = i % 2 ? fd : -1;
        j->mem = data + j->off;
        j->final = true;
        j->ctx = (void *)(uintptr_t)(j->off >= head ? head : 0);
        CHECK(hashpool_submit(q, j));
    }
    while (got < JOBS) {
        struct hash_job *j = hashpool_take(q);
        unsigned char want[16];
        uint64_t head;

        if (!j) {
            hashpool_wait(q, 100);
            continue;
        }
        got++;
        head = (uint64_t)(uintptr_t)j->ctx;
        hash_md5(data + j->off - head, (size_t)(j->len + head), want);
        CHECK_INT(j->err.code, S3C_OK);
        CHECK(!memcmp(want, j->digest, 16));
    }
out:
    hashpool_free(q);
    if (fd >= 0)
        close(fd);
    free(jobs);
    free(data);
}

/* A SHA fed beside the MD5 ('also'), or alone (no_md5), over a file range and
 * a buffer, in jobs that continue each other: the same digests as one go. */
TEST(hashpool_sha_beside_or_instead_of_md5)
{
    enum { BYTES = (1 << 20) + 777 };
    unsigned char *data = malloc(BYTES), want[SHA256_LEN], md5[MD5_LEN];
    struct hashpool *q = hashpool_new(1, NULL, NULL);
    struct hash_ctx *sha = hash_sha256_new(), *sha1 = hash_sha1_new();
    struct hash_job j = { 0 };
    int fd = data ? random_file(data, BYTES) : -1, pass;

    CHECK(data && q && sha && sha1 && fd >= 0);
    if (!data || !q || !sha || !sha1 || fd < 0)
        goto out;
    for (pass = 0; pass < 2; pass++) {
        /* Two jobs: [0, 640 KiB) then the rest, the second from the file on pass 1. */
        uint64_t cut = 640 << 10;

        md5_init(&j.md5);
        j.also = pass ? sha1 : sha;
        j.no_md5 = pass == 1;
        j.fd = -1;
        j.mem = data;
        j.off = 0;
        j.len = cut;
        j.final = false;
        CHECK(hashpool_submit(q, &j));
        while (!hashpool_take(q))
            hashpool_wait(q, 100);
        CHECK_INT(j.err.code, S3C_OK);
        j.fd = pass ? fd : -1;
        j.mem = data + cut;
        j.off = pass ? cut : 0;
        j.len = BYTES - cut;
        j.final = true;
        CHECK(hashpool_submit(q, &j));
        while (!hashpool_take(q))
            hashpool_wait(q, 100);
        CHECK_INT(j.err.code, S3C_OK);
        if (pass) {
            hash_sha1(data, BYTES, want);
            CHECK(!memcmp(want, j.also_digest, SHA1_LEN));
        } else {
            hash_sha256(data, BYTES, want);
            CHECK(!memcmp(want, j.also_digest, SHA256_LEN));
            hash_md5(data, BYTES, md5);
            CHECK(!memcmp(md5, j.digest, MD5_LEN));
        }
    }
out:
    hashpool_free(q);
    hash_free(sha);
    hash_free(sha1);
    if (fd >= 0)
        close(fd);
    free(data);
}

/* A CRC fed beside the MD5 ('crc': a resumed upload's part check), from a
 * file range and from memory: the same CRC and MD5 as one go. */
TEST(hashpool_crc_beside_md5)
{
    enum { BYTES = (3 << 20) + 333, OFF = 4096 };
    unsigned char *data = malloc(BYTES), md5[MD5_LEN];
    struct hashpool *q = hashpool_new(1, NULL, NULL);
    struct hash_job j = { 0 };
    int fd = data ? random_file(data, BYTES) : -1, pass;

    CHECK(data && q && fd >= 0);
    if (!data || !q || fd < 0)
        goto out;
    for (pass = 0; pass < 2; pass++) {
        enum ck_algo a = pass ? CK_CRC32C : CK_CRC64NVME;

        memset(&j, 0, sizeof(j));
        md5_init(&j.md5);
        j.fd = pass ? fd : -1;
        j.mem = data + OFF;
        j.off = pass ? OFF : 0;
        j.len = BYTES - OFF;
        j.final = true;
        j.crc = true;
        j.crc_algo = a;
        CHECK(hashpool_submit(q, &j));
        while (!hashpool_take(q))
            hashpool_wait(q, 100);
        CHECK_INT(j.err.code, S3C_OK);
        CHECK(j.crc_val == ck_update(a, 0, data + OFF, BYTES - OFF));
        hash_md5(data + OFF, BYTES - OFF, md5);
        CHECK(!memcmp(md5, j.digest, MD5_LEN));
    }
out:
    hashpool_free(q);
    if (fd >= 0)
        close(fd);
    free(data);
}

/* After hashpool_cancel, a job ends with S3C_ECANCEL instead of its MD5. */
TEST(hashpool_cancel_ends_jobs)
{
    static unsigned char data[4096];
    struct hashpool *q = hashpool_new(1, NULL, NULL);
    struct hash_job j = { .fd = -1, .mem = data, .len = sizeof(data), .final = true };

    CHECK(q);
    if (!q)
        return;
    md5_init(&j.md5);
    hashpool_cancel(q);
    CHECK(hashpool_submit(q, &j));
    while (!hashpool_take(q))
        hashpool_wait(q, 100);
    CHECK_INT(j.err.code, S3C_ECANCEL);
    hashpool_free(q);
}
