/*
 * digest: the hashes of a request body, computed as its bytes arrive, while
 * they are still in the CPU's cache, and each exactly once: MD5 when the
 * operation makes an ETag of the body (PutObject, UploadPart) or the request
 * carries Content-MD5; SHA-256 only when x-amz-content-sha256 is a hex digest
 * (never for UNSIGNED-PAYLOAD); a CRC or SHA only when an x-amz-checksum-*
 * header asks for it. An aws-chunked body is framed, so nothing is computed
 * on the way in: ops_payload.c hashes its payload once it is decoded.
 */
#include "emu.h"

#include <openssl/evp.h>
#include <string.h>

#include "base/crc.h"
#include "base/hash.h"

static const char *const algos[] = { "CRC32", "CRC32C", "CRC64NVME", "SHA1", "SHA256" };

/* The body is aws-chunked: its bytes are framing plus payload. */
bool emu_req_aws_chunked(const struct emu_req *q)
{
    struct sv sha = emu_req_header(q, "x-amz-content-sha256");
    struct sv ce = emu_req_header(q, "content-encoding");

    return (sha.p && sv_starts(sha, "STREAMING-")) || (ce.p && memmem(ce.p, ce.n, "aws-chunked", 11));
}

/* The algorithm of the first x-amz-checksum-<algo> header, or NULL. */
static const char *header_algo(const struct emu_req *q)
{
    int i;
    size_t k;

    for (i = 0; i < q->n_hdrs; i++) {
        struct sv nm = q->hdrs[i].name;

        if (nm.n <= 15 || strncasecmp(nm.p, "x-amz-checksum-", 15) != 0)
            continue;
        for (k = 0; k < sizeof(algos) / sizeof(algos[0]); k++)
            if (sv_ieqs((struct sv){ nm.p + 15, nm.n - 15 }, algos[k]))
                return algos[k];
    }
    return NULL;
}

void emu_digest_start(struct emu_digest *d, const struct emu_req *q)
{
    struct sv sha = emu_req_header(q, "x-amz-content-sha256");

    if (d->want) { /* the last body ended early (the connection survived): start clean */
        if (d->md5)
            hash_reset(d->md5);
        if (d->sha256)
            hash_reset(d->sha256);
    }
    d->want = 0;
    d->done = 0;
    d->ck_algo = NULL;
    if (emu_req_aws_chunked(q))
        return;
    if (q->op == OP_PUT_OBJECT || q->op == OP_UPLOAD_PART || emu_req_header(q, "content-md5").p)
        d->want |= EMU_DIG_MD5;
    if (sha.n == 64)
        d->want |= EMU_DIG_SHA256;
    d->ck_algo = header_algo(q);
    if (d->ck_algo)
        d->want |= EMU_DIG_CK;
    /* Contexts live as long as the connection; a failed allocation only means hashing later. */
    if ((d->want & EMU_DIG_MD5) && !d->md5 && !(d->md5 = hash_md5_new()))
        d->want &= ~(unsigned)EMU_DIG_MD5;
    if ((d->want & EMU_DIG_SHA256) && !d->sha256 && !(d->sha256 = hash_sha256_new()))
        d->want &= ~(unsigned)EMU_DIG_SHA256;
    if (d->want & EMU_DIG_CK) {
        d->crc32 = 0;
        d->crc64 = 0;
        if (!strcmp(d->ck_algo, "SHA256") && !d->sha256 && !(d->sha256 = hash_sha256_new()))
            d->want &= ~(unsigned)EMU_DIG_CK;
        if (!strcmp(d->ck_algo, "SHA1")) {
            if (!d->sha1)
                d->sha1 = EVP_MD_CTX_new();
            if (!d->sha1 || !EVP_DigestInit_ex(d->sha1, EVP_sha1(), NULL))
                d->want &= ~(unsigned)EMU_DIG_CK;
        }
    }
}

void emu_digest_feed(struct emu_digest *d, const void *p, size_t n)
{
    if (!n)
        return;
    if (d->want & EMU_DIG_MD5)
        hash_update(d->md5, p, n);
    if ((d->want & EMU_DIG_SHA256) || ((d->want & EMU_DIG_CK) && !strcmp(d->ck_algo, "SHA256")))
        hash_update(d->sha256, p, n);
    if (!(d->want & EMU_DIG_CK))
        return;
    switch (d->ck_algo[3]) {
    case '3': /* CRC32, CRC32C */
        d->crc32 = d->ck_algo[5] ? crc_crc32c_update(d->crc32, p, n) : crc_crc32_update(d->crc32, p, n);
        break;
    case '6': /* CRC64NVME */
        d->crc64 = crc_crc64nvme_update(d->crc64, p, n);
        break;
    case '1': /* SHA1 */
        EVP_DigestUpdate(d->sha1, p, n);
        break;
    default: /* SHA256: fed above */
        break;
    }
}

void emu_digest_finish(struct emu_digest *d)
{
    unsigned char sha[SHA256_LEN];
    int i;

    if (d->want & EMU_DIG_MD5)
        hash_final(d->md5, d->md5_out);
    if ((d->want & EMU_DIG_SHA256) || ((d->want & EMU_DIG_CK) && !strcmp(d->ck_algo, "SHA256"))) {
        hash_final(d->sha256, sha);
        memcpy(d->sha256_out, sha, sizeof(sha));
    }
    if (d->want & EMU_DIG_CK) {
        const char *a = d->ck_algo;

        if (!strcmp(a, "CRC32") || !strcmp(a, "CRC32C")) {
            for (i = 0; i < 4; i++)
                d->ck_out[i] = (unsigned char)(d->crc32 >> (24 - 8 * i));
            d->ck_len = 4;
        } else if (!strcmp(a, "CRC64NVME")) {
            for (i = 0; i < 8; i++)
                d->ck_out[i] = (unsigned char)(d->crc64 >> (56 - 8 * i));
            d->ck_len = 8;
        } else if (!strcmp(a, "SHA1")) {
            unsigned int len = 0;

            EVP_DigestFinal_ex(d->sha1, d->ck_out, &len);
            d->ck_len = len;
        } else {
            memcpy(d->ck_out, sha, sizeof(sha));
            d->ck_len = SHA256_LEN;
        }
    }
    d->done = d->want;
    d->want = 0;
}

void emu_digest_release(struct emu_digest *d)
{
    hash_free(d->md5);
    hash_free(d->sha256);
    EVP_MD_CTX_free(d->sha1);
    memset(d, 0, sizeof(*d));
}

void emu_body_md5(const struct emu_conn *c, const void *p, size_t n, unsigned char out[16])
{
    if (c->dig.done & EMU_DIG_MD5)
        memcpy(out, c->dig.md5_out, 16);
    else
        hash_md5(p, n, out);
}

void emu_body_sha256_hex(const struct emu_conn *c, const void *p, size_t n, char out[65])
{
    if (c->dig.done & EMU_DIG_SHA256)
        str_hex(c->dig.sha256_out, SHA256_LEN, out);
    else
        hash_sha256_hex(p, n, out);
}

size_t emu_body_checksum(const struct emu_conn *c, const char *algo, unsigned char out[32])
{
    if (!(c->dig.done & EMU_DIG_CK) || strcmp(c->dig.ck_algo, algo) != 0)
        return 0;
    memcpy(out, c->dig.ck_out, c->dig.ck_len);
    return c->dig.ck_len;
}
