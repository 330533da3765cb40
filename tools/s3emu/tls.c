/*
 * tls: HTTPS for s3emu, on the workers' own epoll loops. It owns the
 * server's SSL_CTX (a certificate given, or a CA and a server certificate
 * generated for the run), and the connection I/O that net.c calls instead
 * of read(2)/writev(2): the same non-blocking contract through OpenSSL.
 * It knows nothing of HTTP, and never blocks or sleeps.
 */
#include "emu.h"

#include <errno.h>
#include <fcntl.h>
#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#define TLS_STAGE_BYTES 16384   /* one full record: a response head and its first body bytes */
#define TLS_CERT_DAYS 30

/* ---- certificates generated for a run ---- */

static int add_ext(X509 *cert, X509 *issuer, int nid, const char *value)
{
    X509V3_CTX ctx;
    X509_EXTENSION *ex;
    int ok;

    X509V3_set_ctx(&ctx, issuer, cert, NULL, NULL, 0);
    ex = X509V3_EXT_conf_nid(NULL, &ctx, nid, value);
    if (!ex)
        return -1;
    ok = X509_add_ext(cert, ex, -1);
    X509_EXTENSION_free(ex);
    return ok ? 0 : -1;
}

/* A certificate for 'key' named 'cn', signed by (issuer, ikey), or self-signed when issuer is NULL. */
static X509 *make_cert(EVP_PKEY *key, const char *cn, X509 *issuer, EVP_PKEY *ikey, const char *san)
{
    X509 *x = X509_new();
    X509_NAME *name;
    unsigned char serial[16];
    BIGNUM *bn = NULL;
    bool ok = false;

    if (!x || RAND_bytes(serial, sizeof(serial)) != 1)
        goto out;
    serial[0] &= 0x7f; /* a positive serial */
    bn = BN_bin2bn(serial, sizeof(serial), NULL);
    if (!bn || !BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(x)) || !X509_set_version(x, 2) ||
        !X509_gmtime_adj(X509_getm_notBefore(x), -3600) ||
        !X509_gmtime_adj(X509_getm_notAfter(x), 86400L * TLS_CERT_DAYS) || !X509_set_pubkey(x, key))
        goto out;
    name = X509_get_subject_name(x);
    if (!X509_NAME_add_entry_by_txt(name, "O", MBSTRING_ASC, (const unsigned char *)"s3emu test", -1, -1, 0) ||
        !X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, (const unsigned char *)cn, -1, -1, 0) ||
        !X509_set_issuer_name(x, issuer ? X509_get_subject_name(issuer) : name))
        goto out;
    if (!issuer) {
        if (add_ext(x, x, NID_basic_constraints, "critical,CA:TRUE") ||
            add_ext(x, x, NID_key_usage, "critical,keyCertSign,cRLSign") ||
            add_ext(x, x, NID_subject_key_identifier, "hash"))
            goto out;
    } else {
        if (add_ext(x, issuer, NID_basic_constraints, "critical,CA:FALSE") ||
            add_ext(x, issuer, NID_key_usage, "critical,digitalSignature") ||
            add_ext(x, issuer, NID_ext_key_usage, "serverAuth") ||
            add_ext(x, issuer, NID_subject_key_identifier, "hash") ||
            add_ext(x, issuer, NID_authority_key_identifier, "keyid") ||
            add_ext(x, issuer, NID_subject_alt_name, san))
            goto out;
    }
    ok = X509_sign(x, issuer ? ikey : key, EVP_sha256()) > 0;
out:
    BN_free(bn);
    if (!ok) {
        X509_free(x);
        return NULL;
    }
    return x;
}

static int write_pem(const char *dir, const char *file, X509 *cert, EVP_PKEY *key)
{
    char path[1200];
    FILE *f;
    int fd, ok;

    snprintf(path, sizeof(path), "%s/%s", dir, file);
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, key ? 0600 : 0644);
    if (fd < 0 || !(f = fdopen(fd, "w"))) {
        if (fd >= 0)
            close(fd);
        fprintf(stderr, "s3emu: --tls-dir: cannot write %s: %s\n", path, strerror(errno));
        return -1;
    }
    ok = key ? PEM_write_PrivateKey(f, key, NULL, NULL, 0, NULL, NULL) : PEM_write_X509(f, cert);
    if (fclose(f) != 0 || !ok) {
        fprintf(stderr, "s3emu: --tls-dir: cannot write %s\n", path);
        return -1;
    }
    return 0;
}

/*
 * The subjectAltName of the server certificate: localhost and its
 * subdomains (virtual-hosted buckets), the loopback addresses, every
 * listening address and the --tls-name names.
 */
static void make_san(const struct emu_server *s, char *out, size_t n)
{
    struct buf b = BUF_INIT(4096);
    int i;

    buf_adds(&b, "DNS:localhost,DNS:*.localhost,IP:127.0.0.1,IP:::1");
    for (i = 0; i < s->n_listen; i++)
        if (strcmp(s->listen[i], "127.0.0.1") != 0)
            buf_addf(&b, ",IP:%s", s->listen[i]);
    for (i = 0; i < s->n_tls_names; i++)
        buf_addf(&b, ",DNS:%s", s->tls_names[i]);
    str_copy(out, n, buf_cstr(&b));
    buf_release(&b);
}

/* A CA (DIR/ca.pem: what clients trust) and a server certificate it signed (DIR/cert.pem, DIR/key.pem). */
static int generate(struct emu_server *s, X509 **cert_out, EVP_PKEY **key_out)
{
    EVP_PKEY *cakey = EVP_EC_gen("P-256"), *key = EVP_EC_gen("P-256");
    X509 *ca = NULL, *cert = NULL;
    char san[2048];
    int rc = -1;

    if (mkdir(s->tls_dir, 0700) < 0 && errno != EEXIST) {
        fprintf(stderr, "s3emu: --tls-dir %s: %s\n", s->tls_dir, strerror(errno));
        goto out;
    }
    make_san(s, san, sizeof(san));
    if (!cakey || !key || !(ca = make_cert(cakey, "s3emu test CA", NULL, NULL, NULL)) ||
        !(cert = make_cert(key, "s3emu", ca, cakey, san))) {
        fprintf(stderr, "s3emu: cannot generate a certificate\n");
        goto out;
    }
    if (write_pem(s->tls_dir, "ca.pem", ca, NULL) || write_pem(s->tls_dir, "cert.pem", cert, NULL) ||
        write_pem(s->tls_dir, "key.pem", NULL, key))
        goto out;
    *cert_out = cert;
    *key_out = key;
    cert = NULL;
    key = NULL;
    rc = 0;
out:
    X509_free(ca);
    X509_free(cert);
    EVP_PKEY_free(cakey);
    EVP_PKEY_free(key);
    return rc;
}

int emu_tls_setup(struct emu_server *s)
{
    SSL_CTX *ctx = SSL_CTX_new(TLS_server_method());
    X509 *cert = NULL;
    EVP_PKEY *key = NULL;
    int rc = -1;

    if (!ctx)
        goto fail;
    SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
    /* Records straight from the caller's buffer, one at a time (see emu_io_writev). */
    SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER |
                              SSL_MODE_RELEASE_BUFFERS);
    /* Read what the socket holds in one call, not a record header and then its body. */
    SSL_CTX_set_read_ahead(ctx, 1);
    SSL_CTX_set_default_read_buffer_len(ctx, 64 * 1024);
    /* Clients resume with tickets (TLS 1.3 and 1.2); the ticket key lives for the process. */
    SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_SERVER);
    SSL_CTX_set_num_tickets(ctx, 2);
    if (s->tls_dir[0]) {
        if (generate(s, &cert, &key))
            goto out;
        if (SSL_CTX_use_certificate(ctx, cert) != 1 || SSL_CTX_use_PrivateKey(ctx, key) != 1)
            goto fail;
    } else if (SSL_CTX_use_certificate_chain_file(ctx, s->tls_cert) != 1 ||
               SSL_CTX_use_PrivateKey_file(ctx, s->tls_key, SSL_FILETYPE_PEM) != 1) {
        fprintf(stderr, "s3emu: --tls-cert %s / --tls-key %s: ", s->tls_cert, s->tls_key);
        goto fail;
    }
    if (SSL_CTX_check_private_key(ctx) != 1)
        goto fail;
    s->tls_ctx = ctx;
    ctx = NULL;
    rc = 0;
    goto out;
fail:
    {
        const char *why = ERR_reason_error_string(ERR_peek_last_error());
        fprintf(stderr, "s3emu: TLS: %s\n", why ? why : "cannot set up");
    }
out:
    X509_free(cert);
    EVP_PKEY_free(key);
    SSL_CTX_free(ctx);
    ERR_clear_error();
    return rc;
}

/* ---- connection I/O ---- */

int emu_io_start(struct emu_conn *c)
{
    if (!c->srv->tls_ctx)
        return 0;
    c->tls = SSL_new(c->srv->tls_ctx);
    if (!c->tls || SSL_set_fd(c->tls, c->fd) != 1) {
        ERR_clear_error();
        return -1;
    }
    SSL_set_accept_state(c->tls);
    return 0;
}

/* After the first bytes of a session: count its handshake, and whether it resumed one. */
static void count_handshake(struct emu_conn *c)
{
    c->tls_counted = true;
    atomic_fetch_add_explicit(&c->w->stats.tls_handshakes, 1, memory_order_relaxed);
    if (SSL_session_reused(c->tls))
        atomic_fetch_add_explicit(&c->w->stats.tls_resumed, 1, memory_order_relaxed);
}

/* SSL_read/SSL_write failed: 0 (blocked, readiness noted) or -1 (closed or broken). */
static ssize_t tls_blocked(struct emu_conn *c, int ret, bool writing)
{
    int err = SSL_get_error(c->tls, ret);

    switch (err) {
    case SSL_ERROR_WANT_READ:
        c->rd_ready = false;
        return 0;
    case SSL_ERROR_WANT_WRITE:
        c->wr_ready = false;
        return 0;
    default:
        /* A failed handshake (the client refused the certificate), a reset, a close_notify. */
        ERR_clear_error();
        (void)writing;
        return -1;
    }
}

ssize_t emu_io_read(struct emu_conn *c, char *dst, size_t n)
{
    ssize_t r;

    if (!c->tls) {
        for (;;) {
            r = read(c->fd, dst, n);
            if (r > 0) {
                /* A short read drained the socket: the next bytes raise a new edge. */
                if ((size_t)r < n)
                    c->rd_ready = false;
                return r;
            }
            if (r < 0 && errno == EINTR)
                continue;
            if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
                c->rd_ready = false;
                return 0;
            }
            return -1;
        }
    }
    /* One record at a time, and OpenSSL may hold more: only WANT_READ says the socket is dry. */
    r = SSL_read(c->tls, dst, n > INT32_MAX ? INT32_MAX : (int)n);
    if (r > 0) {
        if (!c->tls_counted)
            count_handshake(c);
        return r;
    }
    return tls_blocked(c, (int)r, false);
}

ssize_t emu_io_writev(struct emu_conn *c, const struct iovec *iov, int niov, size_t limit)
{
    struct iovec v[2];
    size_t len, total = 0;
    const char *p;
    ssize_t r;
    int i;

    for (i = 0; i < niov && i < 2; i++) {
        v[i] = iov[i];
        total += iov[i].iov_len;
    }
    if (!c->tls) {
        /* Cut the vector at the pacing limit. */
        size_t left = limit;
        for (i = 0; i < niov; i++) {
            if (v[i].iov_len > left)
                v[i].iov_len = left;
            left -= v[i].iov_len;
        }
        for (;;) {
            r = writev(c->fd, v, niov);
            if (r >= 0)
                return r;
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) {
                c->wr_ready = false;
                return 0;
            }
            return -1;
        }
    }
    /*
     * A write that blocked must be repeated with at least as many bytes, the
     * same ones: those bytes have not moved (nothing was counted as sent), so
     * asking again from the same place with no less than before is that.
     */
    len = limit > c->tls_wmin ? limit : c->tls_wmin;
    if (len > total)
        len = total;
    if (niov == 2 && v[0].iov_len < TLS_STAGE_BYTES) {
        /* A response head and its first body bytes in one record, not a small one before it. */
        size_t h = v[0].iov_len, b;

        if (len > TLS_STAGE_BYTES)
            len = TLS_STAGE_BYTES;
        b = len > h ? len - h : 0;
        if (!c->tls_stage && !(c->tls_stage = malloc(TLS_STAGE_BYTES)))
            return -1;
        memcpy(c->tls_stage, v[0].iov_base, len < h ? len : h);
        memcpy(c->tls_stage + h, v[1].iov_base, b);
        p = c->tls_stage;
    } else {
        p = v[0].iov_base;
        if (len > v[0].iov_len)
            len = v[0].iov_len;
    }
    if (len > INT32_MAX)
        len = INT32_MAX;
    r = SSL_write(c->tls, p, (int)len);
    if (r > 0) {
        c->tls_wmin = 0;
        if (!c->tls_counted)
            count_handshake(c);
        return r;
    }
    c->tls_wmin = len;
    return tls_blocked(c, (int)r, true);
}

void emu_io_shutdown(struct emu_conn *c)
{
    if (c->tls) {
        SSL_shutdown(c->tls); /* one close_notify; we do not wait for the peer's */
        ERR_clear_error();
    }
    shutdown(c->fd, SHUT_WR);
}

void emu_io_free(struct emu_conn *c)
{
    SSL_free(c->tls);
    c->tls = NULL;
    free(c->tls_stage);
    c->tls_stage = NULL;
}
