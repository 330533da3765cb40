#include "base/hash.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <stdlib.h>

#include "base/lag.h"
#include "base/str.h"

struct hash_ctx {
    EVP_MD_CTX *md;
    const EVP_MD *type;
};

static void digest(const EVP_MD *type, const void *p, size_t n, unsigned char *out)
{
    unsigned int len = 0;

    lag_hashed(EVP_MD_get0_name(type), n);
    EVP_Digest(p, n, out, &len, type, NULL);
}

void hash_sha256(const void *p, size_t n, unsigned char out[SHA256_LEN])
{
    digest(EVP_sha256(), p, n, out);
}

void hash_sha256_hex(const void *p, size_t n, char out[2 * SHA256_LEN + 1])
{
    unsigned char d[SHA256_LEN];

    hash_sha256(p, n, d);
    str_hex(d, SHA256_LEN, out);
}

void hash_hmac_sha256(const void *key, size_t key_len, const void *p, size_t n,
                      unsigned char out[SHA256_LEN])
{
    unsigned int len = SHA256_LEN;
    HMAC(EVP_sha256(), key, (int)key_len, p, n, out, &len);
}

void hash_md5(const void *p, size_t n, unsigned char out[MD5_LEN])
{
    digest(EVP_md5(), p, n, out);
}

void hash_sha1(const void *p, size_t n, unsigned char out[SHA1_LEN])
{
    digest(EVP_sha1(), p, n, out);
}

static struct hash_ctx *ctx_new(const EVP_MD *type)
{
    struct hash_ctx *h = malloc(sizeof(*h));

    if (!h)
        return NULL;
    h->type = type;
    h->md = EVP_MD_CTX_new();
    if (!h->md || !EVP_DigestInit_ex(h->md, type, NULL)) {
        EVP_MD_CTX_free(h->md);
        free(h);
        return NULL;
    }
    return h;
}

struct hash_ctx *hash_sha256_new(void)
{
    return ctx_new(EVP_sha256());
}

struct hash_ctx *hash_sha1_new(void)
{
    return ctx_new(EVP_sha1());
}

struct hash_ctx *hash_md5_new(void)
{
    return ctx_new(EVP_md5());
}

void hash_update(struct hash_ctx *h, const void *p, size_t n)
{
    lag_hashed(EVP_MD_get0_name(h->type), n);
    EVP_DigestUpdate(h->md, p, n);
}

void hash_final(struct hash_ctx *h, unsigned char *out)
{
    unsigned int len = 0;

    EVP_DigestFinal_ex(h->md, out, &len);
    EVP_DigestInit_ex(h->md, h->type, NULL);
}

void hash_reset(struct hash_ctx *h)
{
    EVP_DigestInit_ex(h->md, h->type, NULL);
}

void hash_free(struct hash_ctx *h)
{
    if (!h)
        return;
    EVP_MD_CTX_free(h->md);
    free(h);
}

enum s3c_err base64_encode(const void *p, size_t n, struct buf *out)
{
    size_t need = 4 * ((n + 2) / 3);
    int len;

    if (buf_grow(out, need))
        return S3C_ENOMEM;
    len = EVP_EncodeBlock((unsigned char *)out->data + out->len, p, (int)n);
    out->len += (size_t)len;
    out->data[out->len] = '\0';
    return S3C_OK;
}

enum s3c_err base64_decode(struct sv in, struct buf *out)
{
    size_t need = 3 * (in.n / 4);
    int len, pad = 0;

    if (in.n % 4)
        return S3C_EPARSE;
    if (buf_grow(out, need))
        return S3C_ENOMEM;
    len = EVP_DecodeBlock((unsigned char *)out->data + out->len, (const unsigned char *)in.p,
                          (int)in.n);
    if (len < 0)
        return S3C_EPARSE;
    if (in.n >= 1 && in.p[in.n - 1] == '=')
        pad++;
    if (in.n >= 2 && in.p[in.n - 2] == '=')
        pad++;
    out->len += (size_t)len - (size_t)pad;
    out->data[out->len] = '\0';
    return S3C_OK;
}
