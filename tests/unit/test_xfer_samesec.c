/*
 * sync's same-second proof as a plan (src/xfer/samesec.c): which step comes
 * after which outcome, so that the engine (prove.c) and a dry run decide
 * alike, and in the order sync decided before the engine proved it: ETags,
 * then MD5s of the file, then stored CRCs; anything missing is no proof.
 */
#include "t.h"

#include <stdlib.h>
#include <string.h>

#include "base/md5.h"
#include "xfer/samesec.h"

#define MIB ((uint64_t)1 << 20)

/* A HEAD's reply carrying 'headers' ("name: value\r\n" lines). */
static struct http_resp *reply(const char *headers)
{
    static struct http_resp r;

    buf_release(&r.headers);
    r.status = 200;
    r.headers = (struct buf)BUF_INIT(4096);
    buf_adds(&r.headers, "HTTP/1.1 200 OK\r\n");
    buf_adds(&r.headers, headers);
    return &r;
}

static void md5_of(const void *p, size_t n, unsigned char d[16])
{
    struct md5 m;

    md5_init(&m);
    md5_update(&m, p, n);
    md5_final(&m, d);
}

/* "hello"'s MD5 in 'd', "hellp"'s in 'other', and the quoted ETag of the first in 'etag'. */
static void hello_etag(unsigned char d[16], unsigned char other[16], char etag[40])
{
    md5_of("hello", 5, d);
    md5_of("hellp", 5, other);
    str_hex(d, 16, etag + 1);
    etag[0] = '"';
    etag[33] = '"';
    etag[34] = '\0';
}

/* The plan of an entry, without --checksum (no buckets named: none is a directory bucket). */
static enum samesec_step begin(struct samesec *p, enum xfer_op op, uint64_t size, const char *src_etag,
                               const char *dst_etag, uint64_t part_size)
{
    struct samesec_entry en = { .op = op, .size = size, .src_etag = src_etag, .dst_etag = dst_etag,
                                .part_size = part_size };

    return samesec_begin(p, &en);
}

/* The same with --checksum ('by_content'), the S3 ends in buckets "src" and "dst". */
static enum samesec_step begin_content(struct samesec *p, enum xfer_op op, uint64_t size, const char *src_etag,
                                       const char *dst_etag, uint64_t part_size)
{
    struct samesec_entry en = { .op = op, .size = size, .src_etag = src_etag, .dst_etag = dst_etag,
                                .src_bucket = op == XFER_UPLOAD ? NULL : "src",
                                .dst_bucket = op == XFER_DOWNLOAD ? NULL : "dst",
                                .part_size = part_size, .by_content = true };

    return samesec_begin(p, &en);
}

/* S3 to S3: equal ETags prove it with no request; else the source's stored CRC, then the
 * destination's, equal and of one algorithm. */
TEST(samesec_copy_etags_then_both_stored_crcs)
{
    struct samesec p;

    CHECK_INT(begin(&p, XFER_COPY, 5, "\"abc\"", "\"abc\"", 0), SAMESEC_SAME);
    CHECK_INT(begin(&p, XFER_COPY, 5, "", "", 0), SAMESEC_HEAD_SRC); /* no ETag is no proof */
    CHECK_INT(begin(&p, XFER_COPY, 5, NULL, NULL, 0), SAMESEC_HEAD_SRC);
    /* No size limit: a copy reads nothing. */
    CHECK_INT(begin(&p, XFER_COPY, (uint64_t)1 << 40, "\"a\"", "\"b\"", 0), SAMESEC_HEAD_SRC);
    CHECK_INT(samesec_head(&p, reply("x-amz-checksum-crc32c: AAAAAA==\r\n")), SAMESEC_HEAD_DST);
    CHECK_INT(samesec_head(&p, reply("x-amz-checksum-crc32c: AAAAAA==\r\n")), SAMESEC_SAME);
    /* The destination of another value, of another algorithm, with none, or not answering. */
    begin(&p, XFER_COPY, 5, "\"a\"", "\"b\"", 0);
    samesec_head(&p, reply("x-amz-checksum-crc32c: AAAAAA==\r\n"));
    CHECK_INT(samesec_head(&p, reply("x-amz-checksum-crc32c: AAAAAB==\r\n")), SAMESEC_COPY);
    begin(&p, XFER_COPY, 5, "\"a\"", "\"b\"", 0);
    samesec_head(&p, reply("x-amz-checksum-crc32c: AAAAAA==\r\n"));
    CHECK_INT(samesec_head(&p, reply("x-amz-checksum-crc32: AAAAAA==\r\n")), SAMESEC_COPY);
    begin(&p, XFER_COPY, 5, "\"a\"", "\"b\"", 0);
    samesec_head(&p, reply("x-amz-checksum-crc32c: AAAAAA==\r\n"));
    CHECK_INT(samesec_head(&p, NULL), SAMESEC_COPY);
    /* The source with no full-object CRC: no HEAD of the destination. */
    begin(&p, XFER_COPY, 5, "\"a\"", "\"b\"", 0);
    CHECK_INT(samesec_head(&p, reply("etag: \"a\"\r\n")), SAMESEC_COPY);
    begin(&p, XFER_COPY, 5, "\"a\"", "\"b\"", 0);
    CHECK_INT(samesec_head(&p, NULL), SAMESEC_COPY);
}

/* Which stored checksum a HEAD names: a full-object CRC (CRC64NVME first), never a composite one. */
TEST(samesec_stored_crc_is_a_full_objects)
{
    enum ck_algo a = CK_SHA1;
    char v[CK_B64_MAX];

    CHECK(samesec_stored_crc(reply("x-amz-checksum-crc32: BBBBBB==\r\nx-amz-checksum-crc64nvme: AAAAAAAAAAA=\r\n"),
                             &a, v));
    CHECK_INT(a, CK_CRC64NVME);
    CHECK_STR(v, "AAAAAAAAAAA=");
    CHECK(samesec_stored_crc(reply("x-amz-checksum-type: FULL_OBJECT\r\nx-amz-checksum-crc32: BBBBBB==\r\n"), &a, v));
    CHECK_INT(a, CK_CRC32);
    CHECK(!samesec_stored_crc(reply("x-amz-checksum-type: COMPOSITE\r\nx-amz-checksum-crc32: BBBBBB==-2\r\n"), &a, v));
    CHECK(!samesec_stored_crc(reply("x-amz-checksum-crc32: BBBBBB==-2\r\n"), &a, v));
    CHECK(!samesec_stored_crc(reply("x-amz-checksum-sha256: AAAA\r\n"), &a, v));
    CHECK(!samesec_stored_crc(reply("x-amz-checksum-crc32:\r\n"), &a, v));
}

/* Upload: an MD5 ETag against the file's MD5 (quoted or not, any case); a mismatch asks the
 * destination's stored CRC, which the file's CRC then meets or not. Download: the source's. */
TEST(samesec_md5_then_stored_crc)
{
    static const char bytes[] = "hello";
    unsigned char d[16], other[16];
    char etag[40], up[40], b64[CK_B64_MAX], hdr[128];
    struct samesec p;
    uint64_t crc = ck_update(CK_CRC64NVME, 0, bytes, 5);
    size_t i;

    hello_etag(d, other, etag);
    CHECK_INT(begin(&p, XFER_UPLOAD, 5, NULL, etag, 0), SAMESEC_MD5);
    CHECK_INT(samesec_md5(&p, d), SAMESEC_SAME);
    /* Unquoted and upper case: the same MD5. */
    for (i = 0; i < 32; i++)
        up[i] = etag[1 + i] >= 'a' ? (char)(etag[1 + i] - 'a' + 'A') : etag[1 + i];
    up[32] = '\0';
    CHECK_INT(begin(&p, XFER_DOWNLOAD, 5, up, NULL, 0), SAMESEC_MD5);
    CHECK_INT(samesec_md5(&p, d), SAMESEC_SAME);
    /* Another MD5: the stored CRC of the S3 end. */
    CHECK_INT(begin(&p, XFER_UPLOAD, 5, "\"ignored: a local source has none\"", etag, 0), SAMESEC_MD5);
    CHECK_INT(samesec_md5(&p, other), SAMESEC_HEAD_DST);
    ck_crc_b64(CK_CRC64NVME, crc, b64);
    snprintf(hdr, sizeof(hdr), "x-amz-checksum-crc64nvme: %s\r\nx-amz-checksum-type: FULL_OBJECT\r\n", b64);
    CHECK_INT(samesec_head(&p, reply(hdr)), SAMESEC_CRC);
    CHECK_INT(p.crc_algo, CK_CRC64NVME);
    CHECK_INT(samesec_crc(&p, crc), SAMESEC_SAME);
    begin(&p, XFER_DOWNLOAD, 5, etag, NULL, 0);
    CHECK_INT(samesec_md5(&p, other), SAMESEC_HEAD_SRC);
    CHECK_INT(samesec_head(&p, reply(hdr)), SAMESEC_CRC);
    CHECK_INT(samesec_crc(&p, crc + 1), SAMESEC_COPY);
    /* No stored CRC, or no answer: no proof. */
    begin(&p, XFER_DOWNLOAD, 5, etag, NULL, 0);
    samesec_md5(&p, other);
    CHECK_INT(samesec_head(&p, reply("etag: x\r\n")), SAMESEC_COPY);
    begin(&p, XFER_DOWNLOAD, 5, etag, NULL, 0);
    samesec_md5(&p, other);
    CHECK_INT(samesec_head(&p, NULL), SAMESEC_COPY);
    /* An outcome the plan did not ask for proves nothing. */
    begin(&p, XFER_DOWNLOAD, 5, etag, NULL, 0);
    CHECK_INT(samesec_crc(&p, crc), SAMESEC_COPY);
}

/* What is never read: a file over 64 MiB, an ETag too long to be anyone's MD5; an ETag of no MD5
 * shape (a directory bucket's) goes straight to the stored CRC. */
TEST(samesec_what_is_not_read)
{
    struct samesec p;
    char longer[100];

    CHECK_INT(begin(&p, XFER_UPLOAD, SAMESEC_READ_MAX + 1, NULL, "\"d41d8cd98f00b204e9800998ecf8427e\"", 0),
              SAMESEC_COPY);
    CHECK_INT(begin(&p, XFER_UPLOAD, SAMESEC_READ_MAX, NULL, "\"d41d8cd98f00b204e9800998ecf8427e\"", 0),
              SAMESEC_MD5);
    memset(longer, 'a', sizeof(longer) - 1);
    longer[sizeof(longer) - 1] = '\0';
    CHECK_INT(begin(&p, XFER_DOWNLOAD, 5, longer, NULL, 0), SAMESEC_COPY);
    CHECK_INT(begin(&p, XFER_DOWNLOAD, 5, "\"xyz\"", NULL, 0), SAMESEC_HEAD_SRC);
    CHECK_INT(begin(&p, XFER_UPLOAD, 5, NULL, NULL, 0), SAMESEC_HEAD_DST);
    CHECK_INT(begin(&p, XFER_DOWNLOAD, 5, "\"d41d8cd98f00b204e9800998ecf8427g\"", NULL, 0), SAMESEC_HEAD_SRC);
    CHECK_INT(begin(&p, XFER_DELETE, 5, NULL, NULL, 0), SAMESEC_COPY);
}

/* A multipart ETag: the md5 of the part MD5s at each guessed part size in turn (the configured one
 * first), then the stored CRC. */
TEST(samesec_multipart_etag_guesses_part_sizes)
{
    uint64_t size = 20 * MIB;
    unsigned char d[16];
    char hex[33], etag[64];
    struct samesec p;

    memset(d, 0x5a, sizeof(d));
    str_hex(d, 16, hex);
    snprintf(etag, sizeof(etag), "\"%s-3\"", hex);
    CHECK_INT(begin(&p, XFER_UPLOAD, size, NULL, etag, 7 * MIB), SAMESEC_PARTS);
    CHECK_INT(p.part_size, 7 * MIB);
    CHECK(p.n_guesses >= 2 && p.n_guesses <= SAMESEC_GUESSES);
    CHECK_INT(samesec_parts(&p, (unsigned char[16]){ 0 }), SAMESEC_PARTS);
    CHECK_INT(p.part_size, 8 * MIB); /* s3c's own choice, then the common ones */
    CHECK_INT(samesec_parts(&p, d), SAMESEC_SAME);
    /* Every guess wrong: the destination's stored CRC. */
    begin(&p, XFER_UPLOAD, size, NULL, etag, 0);
    while (p.step == SAMESEC_PARTS)
        samesec_parts(&p, (unsigned char[16]){ 0 });
    CHECK_INT(p.step, SAMESEC_HEAD_DST);
    /* A part count no guessed size fits: straight to the stored CRC. */
    snprintf(etag, sizeof(etag), "\"%s-9000\"", hex);
    CHECK_INT(begin(&p, XFER_DOWNLOAD, size, etag, NULL, 0), SAMESEC_HEAD_SRC);
    /* One part: the md5 of the whole's MD5. */
    snprintf(etag, sizeof(etag), "%s-1", hex);
    CHECK_INT(begin(&p, XFER_DOWNLOAD, 5, etag, NULL, 0), SAMESEC_PARTS);
    CHECK_INT(p.part_size, 5);
}

/* sync --checksum: a changed checksum copies, a missing one is SAMESEC_UNKNOWN (size and time
 * decide), never a proof; no size cap; the stored CRC first but for a small single-part MD5. */
TEST(samesec_by_content_tells_changed_from_unknown)
{
    static const char bytes[] = "hello";
    unsigned char d[16], other[16], x[16];
    char etag[40], hex[33], mp[64], b64[CK_B64_MAX], hdr[160], hdr32[160];
    struct samesec p;
    uint64_t crc = ck_update(CK_CRC64NVME, 0, bytes, 5);

    hello_etag(d, other, etag);
    ck_crc_b64(CK_CRC64NVME, crc, b64);
    snprintf(hdr, sizeof(hdr), "x-amz-checksum-crc64nvme: %s\r\nx-amz-checksum-type: FULL_OBJECT\r\n", b64);
    snprintf(hdr32, sizeof(hdr32), "x-amz-checksum-crc32c: AAAAAA==\r\nx-amz-checksum-type: FULL_OBJECT\r\n");

    /* A small single-part MD5 ETag: its MD5, no request. Equal: the same; another, and the HEAD
     * has no CRC and no encryption: changed; SSE-KMS hides the MD5: unknown. */
    CHECK_INT(begin_content(&p, XFER_UPLOAD, 5, NULL, etag, 0), SAMESEC_MD5);
    CHECK_INT(samesec_md5(&p, d), SAMESEC_SAME);
    begin_content(&p, XFER_UPLOAD, 5, NULL, etag, 0);
    CHECK_INT(samesec_md5(&p, other), SAMESEC_HEAD_DST);
    CHECK_INT(samesec_head(&p, reply("etag: x\r\n")), SAMESEC_COPY);
    begin_content(&p, XFER_DOWNLOAD, 5, etag, NULL, 0);
    samesec_md5(&p, other);
    CHECK_INT(samesec_head(&p, reply("x-amz-server-side-encryption: aws:kms\r\n")), SAMESEC_UNKNOWN);
    /* ... and with a stored CRC, the CRC decides either way. */
    begin_content(&p, XFER_DOWNLOAD, 5, etag, NULL, 0);
    samesec_md5(&p, other);
    CHECK_INT(samesec_head(&p, reply(hdr)), SAMESEC_CRC);
    CHECK_INT(samesec_crc(&p, crc + 1), SAMESEC_COPY);

    /* Past 64 MiB: read all the same, the stored CRC first; without one, the MD5 after all. */
    CHECK_INT(begin_content(&p, XFER_UPLOAD, SAMESEC_READ_MAX + 1, NULL, etag, 0), SAMESEC_HEAD_DST);
    CHECK_INT(samesec_head(&p, reply(hdr)), SAMESEC_CRC);
    CHECK_INT(samesec_crc(&p, crc), SAMESEC_SAME);
    begin_content(&p, XFER_UPLOAD, SAMESEC_READ_MAX + 1, NULL, etag, 0);
    CHECK_INT(samesec_head(&p, reply("etag: x\r\n")), SAMESEC_MD5);
    CHECK_INT(samesec_md5(&p, other), SAMESEC_COPY);
    begin_content(&p, XFER_UPLOAD, SAMESEC_READ_MAX + 1, NULL, etag, 0);
    CHECK_INT(samesec_head(&p, reply("x-amz-server-side-encryption-customer-algorithm: AES256\r\n")),
              SAMESEC_UNKNOWN);

    /* A multipart ETag: the stored CRC first (exact for any uploader's parts); without one the
     * guessed part sizes, and when none fits: unknown, not changed. */
    memset(x, 0x5a, sizeof(x));
    str_hex(x, 16, hex);
    snprintf(mp, sizeof(mp), "\"%s-3\"", hex);
    CHECK_INT(begin_content(&p, XFER_DOWNLOAD, 20 * MIB, mp, NULL, 0), SAMESEC_HEAD_SRC);
    CHECK_INT(samesec_head(&p, reply(hdr)), SAMESEC_CRC);
    CHECK_INT(samesec_crc(&p, crc), SAMESEC_SAME);
    begin_content(&p, XFER_DOWNLOAD, 20 * MIB, mp, NULL, 7 * MIB);
    CHECK_INT(samesec_head(&p, reply("etag: x\r\n")), SAMESEC_PARTS);
    CHECK_INT(p.part_size, 7 * MIB);
    while (p.step == SAMESEC_PARTS)
        samesec_parts(&p, (unsigned char[16]){ 0 });
    CHECK_INT(p.step, SAMESEC_UNKNOWN);
    begin_content(&p, XFER_DOWNLOAD, 20 * MIB, mp, NULL, 0);
    samesec_head(&p, reply("etag: x\r\n"));
    CHECK_INT(samesec_parts(&p, x), SAMESEC_SAME);
    /* A "CRC64NVME" of 4 bytes (moto's for a multipart upload) is none: the guesses after all. */
    begin_content(&p, XFER_DOWNLOAD, 20 * MIB, mp, NULL, 0);
    CHECK_INT(samesec_head(&p, reply("x-amz-checksum-crc64nvme: g6J8bA==\r\nx-amz-checksum-type: FULL_OBJECT\r\n")),
              SAMESEC_PARTS);
    /* A directory bucket's ETag is no MD5 of anything: unknown without a CRC. */
    {
        struct samesec_entry en = { .op = XFER_DOWNLOAD, .size = 5, .src_etag = etag,
                                    .src_bucket = "b--use1-az4--x-s3", .by_content = true };

        CHECK_INT(samesec_begin(&p, &en), SAMESEC_MD5);
        CHECK_INT(samesec_md5(&p, other), SAMESEC_HEAD_SRC);
        CHECK_INT(samesec_head(&p, reply("etag: x\r\n")), SAMESEC_UNKNOWN);
    }

    /* S3 to S3: stored CRCs of one algorithm decide; of two: unknown; none, with two plain MD5
     * ETags that differ: changed; a multipart one: unknown. */
    CHECK_INT(begin_content(&p, XFER_COPY, 5, etag, "\"0123456789abcdef0123456789abcdef\"", 0), SAMESEC_HEAD_SRC);
    CHECK_INT(samesec_head(&p, reply(hdr)), SAMESEC_HEAD_DST);
    CHECK_INT(samesec_head(&p, reply(hdr)), SAMESEC_SAME);
    begin_content(&p, XFER_COPY, 5, etag, "\"0123456789abcdef0123456789abcdef\"", 0);
    samesec_head(&p, reply(hdr));
    CHECK_INT(samesec_head(&p, reply(hdr32)), SAMESEC_UNKNOWN);
    begin_content(&p, XFER_COPY, 5, etag, "\"0123456789abcdef0123456789abcdef\"", 0);
    CHECK_INT(samesec_head(&p, reply("etag: x\r\n")), SAMESEC_COPY);
    begin_content(&p, XFER_COPY, 5, etag, mp, 0);
    CHECK_INT(samesec_head(&p, reply("etag: x\r\n")), SAMESEC_UNKNOWN);
    /* A refused HEAD is no proof, and no reason to trust the times either: copied. */
    begin_content(&p, XFER_COPY, 5, etag, mp, 0);
    CHECK_INT(samesec_head(&p, NULL), SAMESEC_COPY);
    /* Without --checksum nothing is ever unknown: the same cases copy. */
    begin(&p, XFER_COPY, 5, etag, "\"0123456789abcdef0123456789abcdef\"", 0);
    samesec_head(&p, reply(hdr));
    CHECK_INT(samesec_head(&p, reply(hdr32)), SAMESEC_COPY);
}
