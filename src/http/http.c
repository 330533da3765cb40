/*
 * The loop: fill, wait, act, drain, on curl's socket interface. epoll says
 * which sockets are ready and only those transfers run (curl_multi_perform
 * would poll(2) every transfer's socket on every wake: with 128 ranges in
 * flight that was 1.5 million poll calls and 3 CPU-s of kernel time per GB).
 * Easy handles are pooled and reused so connections and TLS sessions stay
 * warm; TCP_NODELAY is always on (Ceph RGW stalls 40 ms per request without).
 */
#include "http/http.h"

#include <curl/curl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/lag.h"
#include "base/stop.h"
#include "base/thread.h"
#include "http/resolve.h"

#define HTTP_POOL_MAX 256
#define HTTP_EVENTS_MAX 256
/*
 * A streamed request body goes to curl this much at a time (its default is
 * 64 KiB): one read callback, one poll and one SSL_write a step instead of
 * sixteen, for bodies of HTTP_BIG_BODY_BYTES or more. It costs memory,
 * one buffer a body in flight (curl frees it when the exchange ends): 4 x
 * 200 MB up peaks at 61 MB instead of 15; 256 KiB saved most of that but
 * left TLS adding 0.57-0.73 CPU-s/GB to an upload instead of 0.42-0.44. So
 * a loop gives the large buffer to HTTP_UPLOAD_BIG_MAX bodies at a time and
 * the smaller one to the rest: 2 x 1 GiB up at 128 in flight peaked at 132
 * MB with 1 MiB for all, and stays near 75 MB.
 */
#define HTTP_UPLOAD_BUFFER_BYTES (1L << 20)
#define HTTP_UPLOAD_BUFFER_SMALL (256L << 10)
#define HTTP_UPLOAD_BIG_MAX 40
/*
 * A large answer (HTTP_BIG_BODY_BYTES or more) is read this much
 * at a time (curl's default is 16 KiB): 256 MiB down from s3emu took
 * 1,083 recv calls instead of 16,882, and 1 GiB 0.88 CPU-s instead of
 * 1.05 (512 KiB: 0.84, 128 KiB: 0.90). Each connection reading one holds
 * the buffer: 1 GiB down peaks at 29 MB instead of 14 (512 KiB: 46). curl
 * keeps it with the handle, so such a handle is not pooled (finish).
 * curl still hands the body over 16 KiB a call (CURL_MAX_WRITE_SIZE).
 */
#define HTTP_RECV_BUFFER_BYTES (256L << 10)
/*
 * TLS 1.3 suites and TLS 1.2 ciphers in the order we offer them: AES-128-GCM
 * first (OpenSSL's default puts AES-256-GCM first: more cipher work a byte
 * for nothing, 6% here with VAES, a third more without), then the rest of
 * OpenSSL's defaults, unchanged.
 */
#define HTTP_TLS13_SUITES "TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256"
#define HTTP_TLS12_CIPHERS "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:DEFAULT"

_Static_assert(sizeof(((struct http_xfer *)0)->priv_errbuf) >= CURL_ERROR_SIZE, "curl's error buffer");

struct http_loop {
    CURLM *multi;
    CURLSH *share;                /* DNS cache and TLS sessions across handles */
    struct http_resolver *resolver; /* names to addresses, requests spread over them */
    struct http_loop_opts opts;
    CURL *pool[HTTP_POOL_MAX];    /* idle easy handles, reused */
    int n_pool;
    int running;                  /* transfers submitted and not yet done */
    int upload_big;               /* of them, those with the large upload buffer */
    struct http_xfer *all;        /* those transfers, for cancel_all */
    int ep;                       /* epoll: curl's sockets, wake_fd, a caller's fd */
    int wake_fd;                  /* eventfd: http_loop_wakeup from any thread */
    bool watch_stdout;            /* stdout is a pipe in 'ep': its reader leaving stops the run */
    int64_t next_check_ns;        /* when read_timeouts looks again */
    bool timer_set;               /* curl asked to be called back at timer_at */
    struct timespec timer_at;
};

/* Milliseconds until curl's timer is due (0: now), or -1 when none is set. */
static long timer_wait_ms(const struct http_loop *l)
{
    struct timespec now;
    long ms;

    if (!l->timer_set)
        return -1;
    clock_gettime(CLOCK_MONOTONIC, &now);
    ms = (long)(l->timer_at.tv_sec - now.tv_sec) * 1000 + (l->timer_at.tv_nsec - now.tv_nsec) / 1000000L;
    if (ms <= 0 && (l->timer_at.tv_sec > now.tv_sec ||
                    (l->timer_at.tv_sec == now.tv_sec && l->timer_at.tv_nsec > now.tv_nsec)))
        ms = 1; /* less than a millisecond left: not due yet */
    return ms < 0 ? 0 : ms;
}

static int on_timer(CURLM *multi, long timeout_ms, void *ctx)
{
    struct http_loop *l = ctx;

    (void)multi;
    l->timer_set = timeout_ms >= 0;
    if (l->timer_set)
        thread_deadline(CLOCK_MONOTONIC, timeout_ms, &l->timer_at);
    return 0;
}

/* curl says which events a socket of its waits for; epoll keeps the list. */
static int on_socket(CURL *easy, curl_socket_t s, int what, void *ctx, void *sock_ctx)
{
    struct http_loop *l = ctx;
    struct epoll_event ev = { .events = 0, .data.fd = s };

    (void)easy;
    (void)sock_ctx;
    if (what == CURL_POLL_REMOVE) {
        epoll_ctl(l->ep, EPOLL_CTL_DEL, s, NULL); /* ENOENT/EBADF: already gone with its close */
        return 0;
    }
    if (what & CURL_POLL_IN)
        ev.events |= EPOLLIN;
    if (what & CURL_POLL_OUT)
        ev.events |= EPOLLOUT;
    if (epoll_ctl(l->ep, EPOLL_CTL_MOD, s, &ev) != 0)
        epoll_ctl(l->ep, EPOLL_CTL_ADD, s, &ev);
    return 0;
}

enum s3c_err http_global_init(struct s3c_error *e)
{
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
        return s3c_fail(e, S3C_EINTERNAL, "cannot initialise libcurl");
    return S3C_OK;
}

/*
 * A closed stdout ends the work (`s3c ls -r | head -1`), even while nothing is
 * written to it: a pipe's write end reports EPOLLERR once its reader is gone,
 * so a loop that waits on the network hears it too. Only a pipe: fd 1 is then
 * no socket of curl's, and a file or terminal has no reader to lose.
 */
static void watch_stdout(struct http_loop *l)
{
    struct epoll_event ev = { .events = 0, .data.fd = STDOUT_FILENO };
    struct stat st;

    if (l->ep >= 0 && fstat(STDOUT_FILENO, &st) == 0 && S_ISFIFO(st.st_mode))
        l->watch_stdout = epoll_ctl(l->ep, EPOLL_CTL_ADD, STDOUT_FILENO, &ev) == 0;
}

struct http_loop *http_loop_new(const struct http_loop_opts *opts, struct s3c_error *e)
{
    struct http_loop *l = calloc(1, sizeof(*l));

    if (!l) {
        s3c_fail(e, S3C_ENOMEM, "out of memory");
        return NULL;
    }
    l->opts = *opts;
    if (!l->opts.connect_timeout_ms)
        l->opts.connect_timeout_ms = HTTP_CONNECT_TIMEOUT_MS;
    if (!l->opts.read_timeout_ms)
        l->opts.read_timeout_ms = HTTP_READ_TIMEOUT_MS;
    if (l->opts.low_speed_bytes_s <= 0)
        l->opts.low_speed_bytes_s = HTTP_LOW_SPEED_BYTES_S;
    l->resolver = http_resolver_new(opts->hosts_file, e);
    if (!l->resolver) {
        free(l);
        return NULL;
    }
    l->multi = curl_multi_init();
    l->share = curl_share_init();
    l->ep = epoll_create1(EPOLL_CLOEXEC);
    l->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (l->ep >= 0 && l->wake_fd >= 0) {
        struct epoll_event ev = { .events = EPOLLIN, .data.fd = l->wake_fd };

        if (epoll_ctl(l->ep, EPOLL_CTL_ADD, l->wake_fd, &ev) != 0) {
            close(l->wake_fd);
            l->wake_fd = -1;
        }
    }
    watch_stdout(l);
    if (!l->multi || !l->share || l->ep < 0 || l->wake_fd < 0) {
        http_loop_free(l);
        s3c_fail(e, S3C_ENOMEM, "cannot create an HTTP loop");
        return NULL;
    }
    curl_share_setopt(l->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS);
    curl_share_setopt(l->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_SSL_SESSION);
    curl_multi_setopt(l->multi, CURLMOPT_SOCKETFUNCTION, on_socket);
    curl_multi_setopt(l->multi, CURLMOPT_SOCKETDATA, l);
    curl_multi_setopt(l->multi, CURLMOPT_TIMERFUNCTION, on_timer);
    curl_multi_setopt(l->multi, CURLMOPT_TIMERDATA, l);
    if (l->opts.max_host_conns > 0)
        curl_multi_setopt(l->multi, CURLMOPT_MAX_HOST_CONNECTIONS, l->opts.max_host_conns);
    return l;
}

void http_loop_speed_floor(struct http_loop *l, long bytes_s)
{
    l->opts.low_speed_bytes_s = bytes_s > 0 ? bytes_s : 1;
}

void http_loop_free(struct http_loop *l)
{
    int i;

    if (!l)
        return;
    for (i = 0; i < l->n_pool; i++)
        curl_easy_cleanup(l->pool[i]);
    if (l->multi)
        curl_multi_cleanup(l->multi);
    if (l->share)
        curl_share_cleanup(l->share);
    if (l->ep >= 0)
        close(l->ep);
    if (l->wake_fd >= 0)
        close(l->wake_fd);
    http_resolver_free(l->resolver);
    free(l);
}

bool http_xfer_header(struct http_xfer *x, const char *name, const char *value)
{
    if (x->n_headers >= HTTP_MAX_REQ_HEADERS)
        return false;
    x->headers[x->n_headers].name = name;
    x->headers[x->n_headers].value = value;
    x->n_headers++;
    return true;
}

/* A reply that outgrows its cap is cut off, and says so (not curl's "write error"). */
static size_t over_cap(struct http_xfer *x, const char *what, size_t max)
{
    x->resp.over_cap = true;
    snprintf(x->resp.err, sizeof(x->resp.err), "the server's reply %s over %zu bytes (a cap): cut off",
             what, max);
    return 0;
}

int64_t http_now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* The request is all with curl: say when (resp.sent_ns), and tell the owner once. */
static void told_sent(struct http_xfer *x)
{
    if (x->priv_told_sent)
        return;
    x->priv_told_sent = true;
    x->resp.sent_ns = http_now_ns();
    if (x->sent)
        x->sent(x, x->done_ctx);
}

static size_t on_header(char *p, size_t size, size_t n, void *ctx)
{
    struct http_xfer *x = ctx;
    size_t len = size * n;

    if (!x->resp.head_ns)
        x->resp.head_ns = http_now_ns();
    x->priv_window_bytes += len;

    /* A new status line (after a 100 Continue, or a redirect) restarts the block. */
    if (len >= 5 && memcmp(p, "HTTP/", 5) == 0)
        buf_reset(&x->resp.headers);
    if (buf_add(&x->resp.headers, p, len))
        return over_cap(x, "headers are", x->resp.headers.max); /* abort the transfer */
    return len;
}

static size_t on_write(char *p, size_t size, size_t n, void *ctx)
{
    struct http_xfer *x = ctx;
    size_t len = size * n;
    long status = 0;

    curl_easy_getinfo((CURL *)x->priv_easy, CURLINFO_RESPONSE_CODE, &status);
    if (x->sink && status >= 200 && status < 300) {
        enum http_sink_verdict v = x->sink(x->sink_ctx, p, len);
        if (v == HTTP_SINK_PAUSE) {
            x->priv_paused = true;
            return CURL_WRITEFUNC_PAUSE;
        }
        x->priv_window_bytes += len;
        return v == HTTP_SINK_OK ? len : 0;
    }
    x->priv_window_bytes += len;
    if (!x->resp.body.cap) {
        curl_off_t cl = -1;

        /* One allocation of the announced size: a listing's page (about 250 KB)
         * grown by doubling was copied and page-faulted a dozen times over. */
        curl_easy_getinfo((CURL *)x->priv_easy, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &cl);
        if (cl > 0 && (uint64_t)cl <= x->resp.body.max)
            buf_grow(&x->resp.body, (size_t)cl);
    }
    if (buf_add(&x->resp.body, p, len))
        return over_cap(x, "body is", x->resp.body.max);
    return len;
}

/* Bodies stream through one callback: memory bodies are copied from 'data',
 * streamed ones are read at their offset (pread straight into curl's buffer). */
static size_t on_read(char *dst, size_t size, size_t n, void *ctx)
{
    struct http_xfer *x = ctx;
    struct http_body *b = &x->body;
    uint64_t total = b->read ? b->read_len : b->len;
    size_t want = size * n;
    ssize_t got;

    if (total - b->priv_offset < want)
        want = (size_t)(total - b->priv_offset);
    if (want == 0) {
        told_sent(x);
        return 0;
    }
    if (b->read) {
        got = b->read(b->read_ctx, dst, want, b->priv_offset);
        if (got == HTTP_READ_PAUSE) {
            x->priv_paused = true;
            return CURL_READFUNC_PAUSE;
        }
        if (got <= 0)
            return CURL_READFUNC_ABORT; /* a short source is an error, never a short body */
    } else {
        memcpy(dst, (const char *)b->data + b->priv_offset, want);
        got = (ssize_t)want;
    }
    b->priv_offset += (uint64_t)got;
    x->priv_window_bytes += (uint64_t)got;
    if (b->priv_offset == total)
        told_sent(x);
    return (size_t)got;
}

static int on_seek(void *ctx, curl_off_t offset, int origin)
{
    struct http_xfer *x = ctx;

    if (origin != SEEK_SET)
        return CURL_SEEKFUNC_CANTSEEK;
    x->body.priv_offset = (uint64_t)offset;
    return CURL_SEEKFUNC_OK;
}

static bool is_secret_header(const char *name)
{
    return strcasecmp(name, "authorization") == 0 || strcasecmp(name, "x-amz-security-token") == 0 ||
           strcasecmp(name, "x-amz-s3session-token") == 0 ||
           strcasestr(name, "server-side-encryption-customer-key") != NULL; /* SSE-C keys, copy source too */
}

static void debugf(struct http_loop *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void debugf(struct http_loop *l, const char *fmt, ...)
{
    char line[2048];
    va_list ap;

    if (!l->opts.debug)
        return;
    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    l->opts.debug(l->opts.debug_ctx, line);
}

/* The URL for a debug line: the query is cut, since presigned ones carry signatures. */
static void debug_request(struct http_loop *l, const struct http_xfer *x)
{
    size_t i;
    const char *q = strchr(x->url, '?');
    int url_len = q ? (int)(q - x->url) : (int)strlen(x->url);

    if (!l->opts.debug)
        return;
    debugf(l, "http: %s %.*s%s", x->method, url_len, x->url, q ? "?..." : "");
    for (i = 0; i < x->n_headers; i++)
        debugf(l, "http:   > %s: %s", x->headers[i].name,
               is_secret_header(x->headers[i].name) ? "(hidden)" : x->headers[i].value);
}

static CURL *easy_get(struct http_loop *l)
{
    if (l->n_pool > 0) {
        CURL *c = l->pool[--l->n_pool];
        curl_easy_reset(c);
        return c;
    }
    return curl_easy_init();
}

static void easy_put(struct http_loop *l, CURL *c)
{
    if (l->n_pool < HTTP_POOL_MAX)
        l->pool[l->n_pool++] = c;
    else
        curl_easy_cleanup(c);
}

static enum s3c_err build_headers(struct http_xfer *x, struct curl_slist **out)
{
    struct curl_slist *list = NULL, *t;
    struct buf line = BUF_INIT(16384);
    size_t i;

    /* No "Expect: 100-continue" round trip; no default Accept or form Content-Type. */
    list = curl_slist_append(list, "Expect:");
    if (list && (t = curl_slist_append(list, "Accept:")))
        list = t;
    if (list && strcmp(x->method, "POST") == 0 && (t = curl_slist_append(list, "Content-Type:")))
        list = t;
    for (i = 0; list && i < x->n_headers; i++) {
        buf_reset(&line);
        /* "Name;" sends an empty value; "Name:" would remove the header. */
        if (x->headers[i].value[0])
            buf_addf(&line, "%s: %s", x->headers[i].name, x->headers[i].value);
        else
            buf_addf(&line, "%s;", x->headers[i].name);
        t = curl_slist_append(list, buf_cstr(&line));
        if (!t) {
            curl_slist_free_all(list);
            list = NULL;
        }
        list = t;
    }
    buf_release(&line);
    if (!list)
        return S3C_ENOMEM;
    *out = list;
    return S3C_OK;
}

/*
 * Pin the request to one of its host's addresses (resolve.h): CONNECT_TO
 * keeps the URL's name for Host, SNI and the certificate check, and curl
 * reuses only connections made to the same address. false: out of memory.
 */
static bool pin_address(struct http_loop *l, struct http_xfer *x, CURL *c)
{
    const char *h = strstr(x->url, "://"), *end;
    char host[256], addr[64], line[400];
    struct curl_slist *list;
    long port;

    if (!h)
        return true;
    h += 3;
    end = h + strcspn(h, ":/?#");
    if (*h == '[' || end == h || (size_t)(end - h) >= sizeof(host))
        return true; /* an IPv6 literal, or no host */
    memcpy(host, h, (size_t)(end - h));
    host[end - h] = '\0';
    port = strncmp(x->url, "https:", 6) == 0 ? 443 : 80;
    if (*end == ':')
        port = strtol(end + 1, NULL, 10);
    x->priv_addr = http_resolver_pick(l->resolver, host, addr, sizeof(addr));
    if (!x->priv_addr)
        return true;
    snprintf(line, sizeof(line), "%s:%ld:%s:%ld", host, port, addr, port);
    list = curl_slist_append(NULL, line);
    if (!list) {
        http_resolver_put(l->resolver, x->priv_addr, false);
        x->priv_addr = NULL;
        return false;
    }
    x->priv_connect_to = list;
    curl_easy_setopt(c, CURLOPT_CONNECT_TO, list);
    if (l->opts.debug)
        debugf(l, "http:   (connect to %s)", addr);
    return true;
}

enum s3c_err http_loop_submit(struct http_loop *l, struct http_xfer *x, struct s3c_error *e)
{
    struct curl_slist *hdrs = NULL;
    CURL *c;
    bool has_body = x->body.read || x->body.data;
    uint64_t body_len = x->body.read ? x->body.read_len : x->body.len;

    if (build_headers(x, &hdrs))
        return s3c_fail(e, S3C_ENOMEM, "out of memory building request headers");
    c = easy_get(l);
    if (!c) {
        curl_slist_free_all(hdrs);
        return s3c_fail(e, S3C_ENOMEM, "cannot create an HTTP transfer");
    }
    x->resp.status = 0;
    x->resp.err[0] = '\0';
    x->resp.curl_code = 0;
    x->resp.over_cap = false;
    buf_reset(&x->resp.headers);
    buf_reset(&x->resp.body);
    x->resp.headers.max = HTTP_RESP_HEADERS_MAX_BYTES;
    x->resp.body.max = x->body_max ? x->body_max : HTTP_ERROR_BODY_MAX_BYTES;
    x->body.priv_offset = 0;
    x->priv_paused = false;
    x->priv_told_sent = false;
    x->resp.sent_ns = x->resp.head_ns = 0;
    x->priv_window_ns = http_now_ns();
    x->priv_window_bytes = 0;
    x->priv_easy = c;
    x->priv_slist = hdrs;
    x->priv_loop = l;
    x->priv_connect_to = NULL;
    x->priv_addr = NULL;
    x->priv_errbuf[0] = '\0';

    curl_easy_setopt(c, CURLOPT_URL, x->url);
    curl_easy_setopt(c, CURLOPT_PRIVATE, x);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdrs);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_TCP_NODELAY, 1L);
    curl_easy_setopt(c, CURLOPT_TCP_KEEPALIVE, 1L);
    curl_easy_setopt(c, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_1_1);
    curl_easy_setopt(c, CURLOPT_SHARE, l->share);
    /* curl has no "never" for connecting (0 is its 300 s): a month stands for it. */
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS,
                     l->opts.connect_timeout_ms > 0 ? l->opts.connect_timeout_ms : 30L * 86400 * 1000);
    curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, l->opts.verify_tls ? 1L : 0L);
    curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, l->opts.verify_tls ? 2L : 0L);
    if (x->own_ca ? x->ca_bundle != NULL : l->opts.ca_bundle != NULL)
        curl_easy_setopt(c, CURLOPT_CAINFO, x->own_ca ? x->ca_bundle : l->opts.ca_bundle);
    curl_easy_setopt(c, CURLOPT_TLS13_CIPHERS, HTTP_TLS13_SUITES);
    curl_easy_setopt(c, CURLOPT_SSL_CIPHER_LIST, HTTP_TLS12_CIPHERS);
    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(c, CURLOPT_HEADERDATA, x);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_write);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, x);
    curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(c, CURLOPT_PATH_AS_IS, 1L); /* keys like "a/../b" go as they are */
    if (x->fresh_connect)
        curl_easy_setopt(c, CURLOPT_FRESH_CONNECT, 1L);
    if (x->big_body)
        curl_easy_setopt(c, CURLOPT_BUFFERSIZE, HTTP_RECV_BUFFER_BYTES);
    curl_easy_setopt(c, CURLOPT_ERRORBUFFER, x->priv_errbuf);
    if (strcmp(x->method, "HEAD") == 0) {
        curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
    } else if (strcmp(x->method, "PUT") == 0 || (has_body && strcmp(x->method, "GET") != 0)) {
        curl_easy_setopt(c, CURLOPT_UPLOAD, 1L);
        curl_easy_setopt(c, CURLOPT_INFILESIZE_LARGE, (curl_off_t)body_len);
        if (x->body.read && body_len >= HTTP_BIG_BODY_BYTES) {
            x->priv_upload_big = l->upload_big < HTTP_UPLOAD_BIG_MAX;
            l->upload_big += x->priv_upload_big;
            curl_easy_setopt(c, CURLOPT_UPLOAD_BUFFERSIZE,
                             x->priv_upload_big ? HTTP_UPLOAD_BUFFER_BYTES : HTTP_UPLOAD_BUFFER_SMALL);
        }
        curl_easy_setopt(c, CURLOPT_READFUNCTION, on_read);
        curl_easy_setopt(c, CURLOPT_READDATA, x);
        curl_easy_setopt(c, CURLOPT_SEEKFUNCTION, on_seek);
        curl_easy_setopt(c, CURLOPT_SEEKDATA, x);
        if (strcmp(x->method, "PUT") != 0)
            curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, x->method);
    } else if (strcmp(x->method, "GET") != 0) {
        curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, x->method);
    }
    debug_request(l, x);
    if (!pin_address(l, x, c) || curl_multi_add_handle(l->multi, c) != CURLM_OK) {
        l->upload_big -= x->priv_upload_big;
        x->priv_upload_big = false;
        curl_slist_free_all(hdrs);
        curl_slist_free_all(x->priv_connect_to);
        http_resolver_put(l->resolver, x->priv_addr, false);
        easy_put(l, c);
        x->priv_easy = x->priv_slist = x->priv_connect_to = NULL;
        x->priv_addr = NULL;
        return s3c_fail(e, S3C_EINTERNAL, "cannot start an HTTP transfer");
    }
    if (!has_body)
        told_sent(x); /* nothing more to hand over: the wait for the answer starts now */
    l->running++;
    x->priv_prev = NULL;
    x->priv_next = l->all;
    if (l->all)
        l->all->priv_prev = x;
    l->all = x;
    return S3C_OK;
}

static void finish(struct http_loop *l, CURL *c, CURLcode code)
{
    struct http_xfer *x = NULL;
    double t = 0;

    curl_easy_getinfo(c, CURLINFO_PRIVATE, (char **)&x);
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &x->resp.status);
    curl_easy_getinfo(c, CURLINFO_TOTAL_TIME, &t);
    x->resp.total_s = t;
    t = 0;
    curl_easy_getinfo(c, CURLINFO_PRETRANSFER_TIME, &t);
    x->resp.sent_s = t;
    t = 0;
    curl_easy_getinfo(c, CURLINFO_STARTTRANSFER_TIME, &t);
    x->resp.first_s = t;
    x->resp.curl_code = (int)code;
    if (code != CURLE_OK) {
        /* curl's own detail ("SSL certificate problem: ...") says more than its code's name. */
        if (!x->resp.over_cap)
            snprintf(x->resp.err, sizeof(x->resp.err), "%s",
                     x->priv_errbuf[0] ? x->priv_errbuf : curl_easy_strerror(code));
        /* A transfer cut short has no trustworthy answer, whatever status came first. */
        x->resp.status = 0;
    }
    debugf(l, "http: %s -> %ld%s%s (%.0f ms)", x->method, x->resp.status, code ? " " : "",
           code ? x->resp.err : "", x->resp.total_s * 1000);
    curl_multi_remove_handle(l->multi, c);
    curl_easy_setopt(c, CURLOPT_ERRORBUFFER, NULL); /* x may be gone before the handle's next use */
    if (x->priv_prev)
        x->priv_prev->priv_next = x->priv_next;
    else
        l->all = x->priv_next;
    if (x->priv_next)
        x->priv_next->priv_prev = x->priv_prev;
    x->priv_prev = x->priv_next = NULL;
    curl_slist_free_all(x->priv_slist);
    curl_slist_free_all(x->priv_connect_to);
    http_resolver_put(l->resolver, x->priv_addr, code == CURLE_COULDNT_CONNECT);
    x->priv_slist = x->priv_connect_to = NULL;
    x->priv_addr = NULL;
    x->priv_easy = NULL;
    l->upload_big -= x->priv_upload_big;
    x->priv_upload_big = false;
    if (x->big_body)
        curl_easy_cleanup(c); /* its receive buffer goes with it, not into the pool */
    else
        easy_put(l, c);
    l->running--;
    if (x->done)
        x->done(x, x->done_ctx);
}

int http_loop_step(struct http_loop *l, int timeout_ms)
{
    return http_loop_step_fd(l, timeout_ms, -1);
}

static void drain(struct http_loop *l)
{
    CURLMsg *m;
    int left;

    while ((m = curl_multi_info_read(l->multi, &left)))
        if (m->msg == CURLMSG_DONE)
            finish(l, m->easy_handle, m->data.result);
}

static void run_timer_if_due(struct http_loop *l)
{
    int still;

    if (timer_wait_ms(l) == 0) {
        l->timer_set = false;
        curl_multi_socket_action(l->multi, CURL_SOCKET_TIMEOUT, 0, &still);
    }
}

/* The transfer the read timeout cuts off now (its window over and too few
 * bytes in it), or NULL; windows that are over with enough bytes start again. */
static struct http_xfer *too_slow(struct http_loop *l, int64_t now)
{
    int64_t window_ns = (int64_t)l->opts.read_timeout_ms * 1000000;
    uint64_t floor = (uint64_t)l->opts.low_speed_bytes_s * (uint64_t)(l->opts.read_timeout_ms / 1000);
    struct http_xfer *x;

    if (floor == 0)
        floor = 1; /* under a second: at least a byte */
    for (x = l->all; x; x = x->priv_next) {
        if (x->priv_paused || now - x->priv_window_ns < window_ns)
            continue;
        if (x->priv_window_bytes < (x->slow_answer ? 1 : floor))
            return x;
        x->priv_window_ns = now;
        x->priv_window_bytes = 0;
    }
    return NULL;
}

/*
 * The read timeout (http_loop_opts), checked here rather than with curl's
 * low-speed limit: curl's speed is an average it updates while the
 * transfer runs, so one its owner paused and resumed (a bandwidth limit)
 * looked slow for the time it was held, and a download slowed on purpose
 * was cut off. Checked at most every 100 ms; a done callback may change the
 * list, so each cut starts the walk again.
 */
static void read_timeouts(struct http_loop *l)
{
    int64_t now = http_now_ns();
    struct http_xfer *x;

    if (l->opts.read_timeout_ms <= 0 || now < l->next_check_ns)
        return;
    l->next_check_ns = now + 100 * 1000000LL;
    while ((x = too_slow(l, now))) {
        snprintf(x->priv_errbuf, sizeof(x->priv_errbuf),
                 "%" PRIu64 " bytes in %ld s from the server, under %ld a second: too slow, cut off "
                 "(the read timeout, --cli-read-timeout)", x->priv_window_bytes, l->opts.read_timeout_ms / 1000,
                 l->opts.low_speed_bytes_s);
        debugf(l, "http: %s %s", x->method, x->priv_errbuf);
        finish(l, (CURL *)x->priv_easy, CURLE_OPERATION_TIMEDOUT);
    }
}

static int loop_step(struct http_loop *l, int timeout_ms, int fd, bool idle_wait)
{
    struct epoll_event ev[HTTP_EVENTS_MAX];
    int n, i, still;
    long t;

    if (stop_requested())
        http_loop_cancel_all(l); /* SIGINT, SIGTERM, stdout gone: nothing more to wait for */
    read_timeouts(l);
    run_timer_if_due(l); /* transfers just added start here (curl asks for a timer of 0) */
    drain(l);
    if ((l->running <= 0 && !idle_wait) || timeout_ms <= 0)
        return l->running;
    t = timer_wait_ms(l);
    if (t >= 0 && t < timeout_ms)
        timeout_ms = (int)t;
    if (fd >= 0) {
        struct epoll_event in = { .events = EPOLLIN, .data.fd = fd };

        epoll_ctl(l->ep, EPOLL_CTL_ADD, fd, &in);
    }
    /* About to wait on the network: lines stdout's buffer holds go to its pipe
     * first, so its reader has them now (and may leave meanwhile: watch_stdout). */
    if (l->watch_stdout)
        fflush(stdout);
    lag_wait_begin();
    n = epoll_wait(l->ep, ev, HTTP_EVENTS_MAX, timeout_ms);
    lag_wait_end();
    if (fd >= 0)
        epoll_ctl(l->ep, EPOLL_CTL_DEL, fd, NULL);
    for (i = 0; i < n; i++) {
        int s = ev[i].data.fd, mask = 0;

        if (s == l->wake_fd) {
            uint64_t v;

            if (read(l->wake_fd, &v, sizeof(v)) < 0)
                continue; /* EAGAIN: another wake already read it */
            continue;
        }
        if (s == fd)
            continue;
        if (s == STDOUT_FILENO && l->watch_stdout) {
            epoll_ctl(l->ep, EPOLL_CTL_DEL, STDOUT_FILENO, NULL); /* level-triggered: once is enough */
            l->watch_stdout = false;
            stop_request(STOP_READER_GONE); /* the next step cuts every transfer off */
            continue;
        }
        if (ev[i].events & (EPOLLIN | EPOLLHUP))
            mask |= CURL_CSELECT_IN;
        if (ev[i].events & EPOLLOUT)
            mask |= CURL_CSELECT_OUT;
        if (ev[i].events & EPOLLERR)
            mask |= CURL_CSELECT_ERR;
        curl_multi_socket_action(l->multi, s, mask, &still);
    }
    run_timer_if_due(l);
    drain(l);
    return l->running;
}

int http_loop_step_fd(struct http_loop *l, int timeout_ms, int fd)
{
    return loop_step(l, timeout_ms, fd, false);
}

int http_loop_wait_fd(struct http_loop *l, int timeout_ms, int fd)
{
    return loop_step(l, timeout_ms, fd, true);
}

bool http_loop_nap(struct http_loop *l, long ms)
{
    int64_t until = http_now_ns() + (int64_t)ms * 1000000;
    int64_t left;

    while (!stop_requested() && (left = until - http_now_ns()) > 0) {
        long step = (long)((left + 999999) / 1000000);

        loop_step(l, step < 50 ? (int)step : 50, -1, true); /* slices: a signal may land on another thread */
    }
    return stop_requested() != 0;
}

void http_loop_wakeup(struct http_loop *l)
{
    uint64_t one = 1;

    if (write(l->wake_fd, &one, sizeof(one)) < 0)
        return; /* the counter is full: a wake is pending anyway */
}

void http_loop_resume(struct http_loop *l)
{
    struct http_xfer *x, *next;

    for (x = l->all; x; x = next) {
        next = x->priv_next;
        if (x->priv_paused) {
            x->priv_paused = false;
            x->priv_window_ns = http_now_ns(); /* the pause was its owner's: a new window */
            x->priv_window_bytes = 0;
            curl_easy_pause((CURL *)x->priv_easy, CURLPAUSE_CONT);
        }
    }
}

void http_loop_cancel_all(struct http_loop *l)
{
    struct http_xfer *x = l->all, *next;

    for (; x; x = next) {
        next = x->priv_next;
        if (!x->keep_on_cancel)
            finish(l, (CURL *)x->priv_easy, CURLE_ABORTED_BY_CALLBACK);
    }
}

void http_loop_cancel(struct http_loop *l, struct http_xfer *x)
{
    if (!x->priv_easy || x->priv_loop != l)
        return;
    /* Cut off mid-exchange: curl closes the connection rather than pool it. */
    finish(l, (CURL *)x->priv_easy, CURLE_ABORTED_BY_CALLBACK);
}

bool http_xfer_running(const struct http_xfer *x)
{
    return x->priv_easy != NULL;
}

uint64_t http_xfer_body_sent(const struct http_xfer *x)
{
    return x->body.priv_offset;
}

void http_loop_run(struct http_loop *l)
{
    while (http_loop_step(l, 1000) > 0)
        ;
}

static void mark_done(struct http_xfer *x, void *ctx)
{
    (void)x;
    *(bool *)ctx = true;
}

enum s3c_err http_do(struct http_loop *l, struct http_xfer *x, struct s3c_error *e)
{
    bool done = false;
    enum s3c_err rc;

    if (stop_requested() && !x->keep_on_cancel)
        return s3c_fail(e, S3C_ECANCEL, "interrupted");
    x->done = mark_done;
    x->done_ctx = &done;
    rc = http_loop_submit(l, x, e);
    if (rc)
        return rc;
    while (!done)
        http_loop_step(l, 250); /* a signal ends the wait (EINTR; or within 250 ms on another thread), then the step cuts 'x' off */
    if (x->resp.curl_code == CURLE_ABORTED_BY_CALLBACK && stop_requested())
        return s3c_fail(e, S3C_ECANCEL, "interrupted");
    return S3C_OK;
}

bool http_resp_next_header(const struct http_resp *r, size_t *pos, struct sv *name, struct sv *value)
{
    struct sv all = buf_sv(&r->headers);

    while (*pos < all.n) {
        const char *p = all.p + *pos, *nl = memchr(p, '\n', all.n - *pos), *colon;
        struct sv line = { p, nl ? (size_t)(nl - p) : all.n - *pos };

        *pos += line.n + (nl ? 1 : 0);
        colon = memchr(line.p, ':', line.n);
        if (!colon || sv_starts(line, "HTTP/"))
            continue;
        name->p = line.p;
        name->n = (size_t)(colon - line.p);
        *value = sv_trim((struct sv){ colon + 1, line.n - name->n - 1 });
        return true;
    }
    return false;
}

bool http_resp_header(const struct http_resp *r, const char *name, struct sv *value)
{
    struct sv n, v;
    size_t pos = 0;

    while (http_resp_next_header(r, &pos, &n, &v)) {
        if (sv_ieqs(n, name)) {
            *value = v;
            return true;
        }
    }
    return false;
}

bool http_date_parse(struct sv s, int64_t *epoch)
{
    char tmp[64];
    struct tm tm;

    if (s.n >= sizeof(tmp))
        return false;
    memcpy(tmp, s.p, s.n);
    tmp[s.n] = '\0';
    memset(&tm, 0, sizeof(tm));
    if (!strptime(tmp, "%a, %d %b %Y %H:%M:%S GMT", &tm))
        return false;
    *epoch = (int64_t)timegm(&tm);
    return true;
}

void http_xfer_release(struct http_xfer *x)
{
    buf_release(&x->resp.headers);
    buf_release(&x->resp.body);
}
