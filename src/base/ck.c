/* ck.c — S3's flexible checksum algorithms (see ck.h). */
#include "base/ck.h"

#include <stdio.h>
#include <string.h>

#include "base/crc.h"
#include "base/hash.h"
#include "base/lag.h"

static const struct {
    const char *name, *header;
    size_t len;
} algos[CK_ALGOS] = {
    [CK_CRC64NVME] = { "CRC64NVME", "x-amz-checksum-crc64nvme", 8 },
    [CK_CRC32C] = { "CRC32C", "x-amz-checksum-crc32c", 4 },
    [CK_CRC32] = { "CRC32", "x-amz-checksum-crc32", 4 },
    [CK_SHA1] = { "SHA1", "x-amz-checksum-sha1", 20 },
    [CK_SHA256] = { "SHA256", "x-amz-checksum-sha256", 32 },
};

const char *ck_name(enum ck_algo a) { return algos[a].name; }
const char *ck_header(enum ck_algo a) { return algos[a].header; }
size_t ck_len(enum ck_algo a) { return algos[a].len; }
bool ck_is_crc(enum ck_algo a) { return a == CK_CRC64NVME || a == CK_CRC32C || a == CK_CRC32; }

bool ck_parse(struct sv name, enum ck_algo *out)
{
    int i;

    for (i = 0; i < CK_ALGOS; i++) {
        if (sv_ieqs(name, algos[i].name)) {
            *out = (enum ck_algo)i;
            return true;
        }
    }
    return false;
}

uint64_t ck_update(enum ck_algo a, uint64_t crc, const void *p, size_t n)
{
    lag_hashed(ck_name(a), n);
    switch (a) {
    case CK_CRC64NVME: return crc_crc64nvme_update(crc, p, n);
    case CK_CRC32C: return crc_crc32c_update((uint32_t)crc, p, n);
    case CK_CRC32: return crc_crc32_update((uint32_t)crc, p, n);
    case CK_SHA1:
    case CK_SHA256: break;
    }
    return 0;
}

uint64_t ck_combine(enum ck_algo a, uint64_t x, uint64_t y, uint64_t len_y)
{
    switch (a) {
    case CK_CRC64NVME: return crc_crc64nvme_combine(x, y, len_y);
    case CK_CRC32C: return crc_crc32c_combine((uint32_t)x, (uint32_t)y, len_y);
    case CK_CRC32: return crc_crc32_combine((uint32_t)x, (uint32_t)y, len_y);
    case CK_SHA1:
    case CK_SHA256: break;
    }
    return 0;
}

void ck_crc_raw(enum ck_algo a, uint64_t crc, unsigned char out[CK_MAX_LEN])
{
    size_t n = ck_len(a), i;

    for (i = 0; i < n; i++)
        out[i] = (unsigned char)(crc >> (8 * (n - 1 - i)));
}

void ck_digest(enum ck_algo a, const void *p, size_t n, unsigned char out[CK_MAX_LEN])
{
    if (ck_is_crc(a))
        ck_crc_raw(a, ck_update(a, 0, p, n), out);
    else if (a == CK_SHA1)
        hash_sha1(p, n, out);
    else
        hash_sha256(p, n, out);
}

void ck_b64(enum ck_algo a, const unsigned char *raw, char out[CK_B64_MAX])
{
    struct buf b = BUF_INIT(CK_B64_MAX);

    out[0] = '\0';
    if (!base64_encode(raw, ck_len(a), &b))
        str_copy(out, CK_B64_MAX, buf_cstr(&b));
    buf_release(&b);
}

void ck_crc_b64(enum ck_algo a, uint64_t crc, char out[CK_B64_MAX])
{
    unsigned char raw[CK_MAX_LEN];

    ck_crc_raw(a, crc, raw);
    ck_b64(a, raw, out);
}

bool ck_from_b64(enum ck_algo a, struct sv b64, unsigned char out[CK_MAX_LEN])
{
    struct buf raw = BUF_INIT(64);
    bool ok = b64.n < 64 && !base64_decode(b64, &raw) && raw.len == ck_len(a);

    if (ok)
        memcpy(out, raw.data, raw.len);
    buf_release(&raw);
    return ok;
}

void ck_composite(enum ck_algo a, const unsigned char *raws, uint32_t n, char out[CK_B64_MAX + 8])
{
    unsigned char d[CK_MAX_LEN];
    char b64[CK_B64_MAX];

    ck_digest(a, raws ? (const void *)raws : "", (size_t)n * ck_len(a), d);
    ck_b64(a, d, b64);
    snprintf(out, CK_B64_MAX + 8, "%s-%u", b64, (unsigned)n);
}
