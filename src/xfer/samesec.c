/* samesec.c — sync's same-second proof as a plan of steps, pure (see samesec.h). Calls part.c. */
#include "xfer/samesec.h"

#include <string.h>
#include <strings.h>

#include "base/str.h"

/* The step after the MD5s of the file could not prove it: the S3 end's stored CRC. */
static enum samesec_step head_of_remote(struct samesec *p)
{
    return p->step = p->op == XFER_UPLOAD ? SAMESEC_HEAD_DST : SAMESEC_HEAD_SRC;
}

static enum samesec_step same(struct samesec *p, const char *how)
{
    p->how = how;
    return p->step = SAMESEC_SAME;
}

static enum samesec_step copy(struct samesec *p)
{
    return p->step = SAMESEC_COPY;
}

/* Whether 'etag' is 32 hex digits, quoted or not (any case): an MD5 ETag, in 'hex' (lower case). */
static bool etag_md5_shaped(const char *etag, char hex[33])
{
    size_t n = strlen(etag), i;
    bool q = etag[0] == '"';

    if (n != (q ? 34u : 32u))
        return false;
    for (i = 0; i < 32; i++) {
        char c = etag[q + i];
        if (c >= 'A' && c <= 'F')
            c = (char)(c - 'A' + 'a');
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
            return false;
        hex[i] = c;
    }
    hex[32] = '\0';
    return true;
}

/* No usable checksum: by_content leaves it to size and time; else no proof is a copy. */
static enum samesec_step unknown(struct samesec *p)
{
    return p->by_content ? (p->step = SAMESEC_UNKNOWN) : copy(p);
}

/* The part sizes to try for a multipart ETag, most likely first; none: the stored CRC, or
 * (by_content, its HEAD answered without one) nothing more to try. */
static enum samesec_step start_parts(struct samesec *p, uint64_t configured)
{
    p->n_guesses = xfer_part_size_guesses(p->size, p->parts, configured, p->guesses, SAMESEC_GUESSES);
    p->guess = 0;
    if (!p->n_guesses)
        return p->headed ? unknown(p) : head_of_remote(p);
    p->part_size = p->guesses[0];
    return p->step = SAMESEC_PARTS;
}

/* by_content: the S3 end's HEAD named no stored CRC; its ETag is what is left. */
static enum samesec_step after_no_crc(struct samesec *p)
{
    if (p->etag_hidden)
        return unknown(p);
    if (p->md5_differs)
        return copy(p); /* an MD5 ETag, not the file's MD5: changed */
    if (p->parts)
        return start_parts(p, p->part_size);
    if (etag_md5_shaped(p->etag, p->hex))
        return p->step = SAMESEC_MD5;
    return unknown(p);
}

enum samesec_step samesec_begin(struct samesec *p, const struct samesec_entry *en)
{
    const char *remote = en->op == XFER_UPLOAD ? en->dst_etag : en->src_etag;
    char dst_hex[33];

    memset(p, 0, sizeof(*p));
    p->op = en->op;
    p->size = en->size;
    p->by_content = en->by_content;
    p->src_bucket = en->src_bucket;
    p->dst_bucket = en->dst_bucket;
    if (en->op == XFER_COPY) {
        /* Equal ETags; else the stored CRCs of the wholes (ETags of directory buckets, of
         * encrypted objects and of copies in parts differ for the same bytes). */
        if (en->src_etag && en->src_etag[0] && en->dst_etag && !strcmp(en->src_etag, en->dst_etag))
            return same(p, "equal ETags");
        p->md5_plain = en->src_etag && en->dst_etag && etag_md5_shaped(en->src_etag, p->hex) &&
                       etag_md5_shaped(en->dst_etag, dst_hex);
        return p->step = SAMESEC_HEAD_SRC;
    }
    if (en->op != XFER_UPLOAD && en->op != XFER_DOWNLOAD)
        return copy(p);
    if (!remote)
        remote = "";
    if (strlen(remote) >= sizeof(p->etag))
        return p->by_content ? head_of_remote(p) : copy(p);
    if (en->size > SAMESEC_READ_MAX && !p->by_content)
        return copy(p);
    memcpy(p->etag, remote, strlen(remote) + 1);
    p->parts = xfer_etag_parts(p->etag, p->hex);
    p->part_size = en->part_size; /* (the configured size, until a guess is asked) */
    /* sync --checksum: the stored CRC first, unless a small file's MD5 can answer alone. */
    if (p->by_content && (p->parts || en->size > SAMESEC_READ_MAX || !etag_md5_shaped(p->etag, p->hex)))
        return head_of_remote(p);
    if (p->parts)
        return start_parts(p, en->part_size);
    /* An ETag that cannot be an MD5 (a directory bucket's) goes straight to the stored CRC. */
    if (!etag_md5_shaped(p->etag, p->hex))
        return head_of_remote(p);
    return p->step = SAMESEC_MD5;
}

enum samesec_step samesec_begin_obj(struct samesec *p, const struct xfer_obj *o)
{
    const struct xfer_same_second *ss = o->same_second;
    struct samesec_entry en = { .op = o->op,
                                .size = o->size,
                                .src_etag = o->etag,
                                .dst_etag = ss->dst_etag,
                                .src_bucket = o->src_bucket,
                                .dst_bucket = o->dst_bucket,
                                .part_size = ss->part_size,
                                .by_content = ss->by_content };

    return samesec_begin(p, &en);
}

enum samesec_step samesec_md5(struct samesec *p, const unsigned char md5[16])
{
    char hex[33];

    if (p->step != SAMESEC_MD5)
        return copy(p);
    str_hex(md5, 16, hex);
    if (!strcmp(hex, p->hex))
        return same(p, "the file's MD5 is the ETag");
    if (p->headed)
        return copy(p); /* by_content: the HEAD said the ETag is an MD5, and no CRC */
    /* An ETag that is no MD5 of these bytes (SSE-KMS, SSE-C): the stored CRC may still say. */
    p->md5_differs = true;
    return head_of_remote(p);
}

enum samesec_step samesec_parts(struct samesec *p, const unsigned char md5_of_md5s[16])
{
    char hex[33];

    if (p->step != SAMESEC_PARTS)
        return copy(p);
    str_hex(md5_of_md5s, 16, hex);
    if (!strcmp(hex, p->hex))
        return same(p, "the md5 of the file's part MD5s is the ETag");
    if (++p->guess < p->n_guesses) {
        p->part_size = p->guesses[p->guess];
        return p->step = SAMESEC_PARTS;
    }
    /* A part size not guessed, or encrypted parts: the stored CRC of the whole, if not asked yet. */
    return p->headed ? unknown(p) : head_of_remote(p);
}

bool samesec_stored_crc(const struct http_resp *resp, enum ck_algo *a, char value[CK_B64_MAX])
{
    static const enum ck_algo crcs[] = { CK_CRC64NVME, CK_CRC32C, CK_CRC32 };
    struct sv v;
    size_t i;

    if (http_resp_header(resp, "x-amz-checksum-type", &v) && !sv_ieqs(v, "FULL_OBJECT"))
        return false;
    for (i = 0; i < sizeof(crcs) / sizeof(crcs[0]); i++) {
        unsigned char raw[CK_MAX_LEN];

        /* (A value that is no CRC of its algorithm's width names none: moto stores 4 bytes
         * under CRC64NVME for a multipart upload.) */
        if (http_resp_header(resp, ck_header(crcs[i]), &v) && v.n && v.n < CK_B64_MAX && !memchr(v.p, '-', v.n) &&
            ck_from_b64(crcs[i], v, raw)) {
            *a = crcs[i];
            memcpy(value, v.p, v.n);
            value[v.n] = '\0';
            return true;
        }
    }
    return false;
}

enum samesec_step samesec_head(struct samesec *p, const struct http_resp *resp)
{
    enum ck_algo a = CK_CRC64NVME;
    char value[CK_B64_MAX];
    bool dst = p->step == SAMESEC_HEAD_DST;

    if ((p->step != SAMESEC_HEAD_SRC && !dst) || !resp)
        return copy(p);
    if (!samesec_stored_crc(resp, &a, value)) {
        if (!p->by_content)
            return copy(p);
        if (p->op == XFER_COPY) {
            /* Two single-part MD5 ETags that differ, neither hidden: changed. */
            if (!xfer_etag_not_md5(dst ? p->dst_bucket : p->src_bucket, resp) &&
                !xfer_etag_not_md5(dst ? p->src_bucket : p->dst_bucket, NULL) && p->md5_plain && !p->etag_hidden)
                return copy(p);
            return unknown(p);
        }
        p->headed = true;
        p->etag_hidden = xfer_etag_not_md5(p->op == XFER_UPLOAD ? p->dst_bucket : p->src_bucket, resp);
        return after_no_crc(p);
    }
    if (p->op == XFER_COPY && dst) {
        if (a != p->crc_algo)
            return unknown(p); /* two algorithms: nothing to compare */
        return !strcmp(value, p->crc_want) ? same(p, "equal stored CRCs") : copy(p);
    }
    p->crc_algo = a;
    memcpy(p->crc_want, value, strlen(value) + 1);
    if (p->op == XFER_COPY) {
        p->etag_hidden = xfer_etag_not_md5(p->src_bucket, resp);
        return p->step = SAMESEC_HEAD_DST;
    }
    return p->step = SAMESEC_CRC;
}

enum samesec_step samesec_crc(struct samesec *p, uint64_t crc)
{
    char got[CK_B64_MAX];

    if (p->step != SAMESEC_CRC)
        return copy(p);
    ck_crc_b64(p->crc_algo, crc, got);
    return !strcmp(got, p->crc_want) ? same(p, "the file's CRC is the stored one") : copy(p);
}
