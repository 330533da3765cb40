/*
 * http: HTTP/1.1 exchanges driven by libcurl's multi interface. A loop owns
 * one multi handle and any number of transfers; connections are reused
 * across transfers of the same loop. Knows nothing of S3.
 *
 * Threads: a loop and its transfers belong to the thread that created the
 * loop. Run several loops for several threads.
 *
 * Contract: if http_loop_submit() fails, the transfer's done callback never
 * runs; if it succeeds, done runs exactly once, from inside http_loop_run()
 * or http_loop_step(), after which the loop no longer touches the transfer.
 */
#ifndef S3C_HTTP_HTTP_H
#define S3C_HTTP_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/buf.h"
#include "base/err.h"

/* A body this large (sent or received) goes through larger buffers (http.c):
 * fewer calls per byte, worth their memory only where the bytes are many.
 * Smaller ones keep curl's (1,000 x 1 MiB with them for all: 221 MB up,
 * 122 MB down; without, 47 and 28). */
#define HTTP_BIG_BODY_BYTES ((uint64_t)8 << 20)

#define HTTP_MAX_REQ_HEADERS 64
#define HTTP_RESP_HEADERS_MAX_BYTES (64 * 1024)
#define HTTP_ERROR_BODY_MAX_BYTES (1 << 20)

/* Timeout defaults (http_loop_opts), and the value for "none". */
#define HTTP_CONNECT_TIMEOUT_MS 10000L
#define HTTP_READ_TIMEOUT_MS 60000L     /* the AWS CLI's default read timeout */
#define HTTP_TIMEOUT_NONE (-1L)
/* A reply slower than this for the read timeout is cut off: a 1 byte/s
 * trickle ends within about a minute; a link this slow is not a link. Under
 * a bandwidth limit the engine lowers it (http_loop_speed_floor). */
#define HTTP_LOW_SPEED_BYTES_S 256L

struct http_loop;
struct http_xfer;
struct http_resolve_addr;

#define HTTP_READ_PAUSE (-2)

/* What a response sink says to a chunk. */
enum http_sink_verdict {
    HTTP_SINK_ABORT,    /* fail the transfer */
    HTTP_SINK_OK,       /* the chunk was taken */
    HTTP_SINK_PAUSE,    /* not now: the same chunk comes again after http_loop_resume */
};

struct http_loop_opts {
    bool verify_tls;            /* verify peer and host name (default true) */
    const char *ca_bundle;      /* PEM file, or NULL for the system store */
    /* Per attempt (each exchange), 0: the default, HTTP_TIMEOUT_NONE: none. */
    long connect_timeout_ms;    /* to connect (TCP and TLS); default HTTP_CONNECT_TIMEOUT_MS */
    /* The read timeout: an exchange that moves fewer than low_speed_bytes_s
     * bytes a second (either way) over a window this long is cut off
     * (CURLE_OPERATION_TIMEDOUT, a network error the caller may retry).
     * Waiting for an answer counts as moving nothing, so a server that never
     * answers is cut off after this long, as the AWS CLI's read timeout does;
     * a trickle under the floor too. A large body is never cut off for its
     * total time, only for going slower than the floor; time a transfer
     * spends paused by its owner (a bandwidth limit, a slow reader) is not
     * counted. Default HTTP_READ_TIMEOUT_MS. */
    long read_timeout_ms;
    long low_speed_bytes_s;     /* the floor; 0: HTTP_LOW_SPEED_BYTES_S */
    long max_host_conns;        /* 0: no limit beyond the transfers in flight */
    const char *hosts_file;     /* hosts-format names that override DNS (S3C_HOSTS_FILE), or NULL */
    /* --debug sink: one line per event; never sees header values it is not
     * meant to (Authorization and security tokens are masked). NULL: silent. */
    void (*debug)(void *ctx, const char *line);
    void *debug_ctx;
};

struct http_header {
    const char *name;
    const char *value;
};

/* Where a request body comes from. */
struct http_body {
    const void *data;           /* memory body, or NULL */
    size_t len;                 /* its length */
    /* Or a streaming source: fill up to 'n' bytes at 'offset' of the body;
     * return bytes written, -1 on error (the transfer fails), or
     * HTTP_READ_PAUSE to send nothing now (see http_loop_resume). */
    ssize_t (*read)(void *ctx, char *dst, size_t n, uint64_t offset);
    void *read_ctx;
    uint64_t read_len;          /* total length of the streamed body */
    uint64_t priv_offset;       /* loop-private: bytes handed to curl so far */
};

/* Where a response body goes: 'sink' if set (for 2xx answers), else 'body'. */
struct http_resp {
    long status;                /* 0 when no answer came */
    struct buf headers;         /* raw response header block, capped */
    struct buf body;            /* body (or error body), capped */
    char err[256];              /* curl's message when status == 0 */
    int curl_code;              /* CURLcode of the transfer */
    bool over_cap;              /* cut off: headers or body over their cap (err says which) */
    double total_s;             /* wall time of the exchange */
    double sent_s;              /* from its start to the request about to go (connected) */
    double first_s;             /* from its start to the first byte of the answer (of a
                                 * request with a body: to its first byte sent, as curl counts) */
    /* CLOCK_MONOTONIC (http_now_ns), 0 until it happens: */
    int64_t sent_ns;            /* the request all handed to curl: its body's last byte, or the
                                 * submit of a request without a body */
    int64_t head_ns;            /* the first byte of the answer (its status line) */
};

struct http_xfer {
    /* Request, set by the caller before submit. */
    const char *method;         /* "GET", "PUT", "HEAD", "POST", "DELETE" */
    const char *url;            /* absolute URL */
    struct http_header headers[HTTP_MAX_REQ_HEADERS];
    size_t n_headers;
    struct http_body body;
    /* Called with 2xx response body bytes when set. */
    enum http_sink_verdict (*sink)(void *ctx, const char *p, size_t n);
    void *sink_ctx;
    size_t body_max;            /* cap on resp.body; 0: HTTP_ERROR_BODY_MAX_BYTES */
    bool keep_on_cancel;        /* http_loop_cancel_all lets this one finish */
    bool fresh_connect;         /* on a new connection, never a pooled one */
    bool big_body;              /* an answer of HTTP_BIG_BODY_BYTES or more is expected: read in large pieces */
    /* The server may think long before it answers and send only keep-alive
     * bytes meanwhile (CopyObject, UploadPartCopy, CompleteMultipartUpload,
     * DeleteObjects): the read timeout cuts it off for silence alone, as the
     * AWS CLI's, not for going under the speed floor. */
    bool slow_answer;
    /* own_ca: this exchange's CA bundle is ca_bundle (NULL: the system's), not the loop's
     * (a store that borrows another's loop: the source side of a copy between stores). */
    bool own_ca;
    const char *ca_bundle;
    /* Called once the body's last byte is handed to curl (resp.sent_ns), from
     * inside curl: it may not call the loop. NULL: not told. Gets done_ctx. */
    void (*sent)(struct http_xfer *x, void *ctx);
    /* Completion, exactly once per successful submit. */
    void (*done)(struct http_xfer *x, void *ctx);
    void *done_ctx;

    /* Response, filled by the loop. */
    struct http_resp resp;

    /* Loop-private. */
    void *priv_easy;
    void *priv_slist;
    void *priv_connect_to;      /* curl_slist: the address this request is pinned to */
    struct http_resolve_addr *priv_addr;  /* that address in the loop's resolver */
    char priv_errbuf[256];      /* curl's detailed message (CURL_ERROR_SIZE) */
    struct http_loop *priv_loop;
    struct http_xfer *priv_prev, *priv_next;  /* the loop's running list */
    bool priv_paused;
    bool priv_told_sent;        /* 'sent' ran for this exchange */
    bool priv_upload_big;       /* it has one of the loop's large upload buffers */
    int64_t priv_window_ns;     /* the read timeout's window: since when bytes are counted */
    uint64_t priv_window_bytes; /* bytes moved (either way) since then */
};

/* The floor of the read timeout (low_speed_bytes_s) for transfers submitted from now on. */
void http_loop_speed_floor(struct http_loop *l, long bytes_s);

/* Create a loop; NULL (with 'e' set) on failure. */
struct http_loop *http_loop_new(const struct http_loop_opts *opts, struct s3c_error *e);
void http_loop_free(struct http_loop *l);   /* NULL is a no-op; transfers must be done */

/* Start a transfer. On failure 'done' will not run. */
enum s3c_err http_loop_submit(struct http_loop *l, struct http_xfer *x, struct s3c_error *e);

/* Move every transfer forward, waiting at most timeout_ms; returns transfers still running.
 * Once a stop is asked (base/stop.h), every transfer but those marked
 * keep_on_cancel is cut off first (done runs: status 0, curl_code 42). */
int http_loop_step(struct http_loop *l, int timeout_ms);

/* The same, and also return once 'fd' is readable (-1: none), for a caller
 * that reads a stream between steps (stdin). */
int http_loop_step_fd(struct http_loop *l, int timeout_ms, int fd);

/* As http_loop_step_fd, but wait up to timeout_ms even with no transfer
 * running: until a wakeup (http_loop_wakeup: the worker pools call it as
 * each job finishes, the other loops as they hand work over), 'fd', a
 * signal or the time. The engine's one idle wait: with nothing in flight
 * it still hears its workers and its sockets in the same call. */
int http_loop_wait_fd(struct http_loop *l, int timeout_ms, int fd);

/* Let 'ms' pass on the loop (a retry's backoff): its transfers move on
 * meanwhile, as in any wait, where a sleep would hold them all. Returns
 * early, and true, once a stop is asked (base/stop.h). */
bool http_loop_nap(struct http_loop *l, long ms);

/* Stop one transfer now (never from inside a callback of the loop): its done
 * runs (status 0, "cancelled") before this returns, and its connection is
 * closed, never reused. Nothing happens to a transfer not running. */
void http_loop_cancel(struct http_loop *l, struct http_xfer *x);

/* Whether 'x' was submitted and its done has not run yet. */
bool http_xfer_running(const struct http_xfer *x);

/* Bytes of the request body handed to curl so far. */
uint64_t http_xfer_body_sent(const struct http_xfer *x);

/* CLOCK_MONOTONIC in nanoseconds: the clock of resp.sent_ns and resp.head_ns. */
int64_t http_now_ns(void);

/* Run until no transfer is left. */
void http_loop_run(struct http_loop *l);

/* Let every paused transfer go on (bandwidth tokens came back). */
void http_loop_resume(struct http_loop *l);

/* Make a wait in http_loop_step*() return now. The one call safe from another thread. */
void http_loop_wakeup(struct http_loop *l);

/* Stop every transfer now, but those marked keep_on_cancel: each stopped
 * one's done callback runs (status 0, "cancelled") before this returns. */
void http_loop_cancel_all(struct http_loop *l);

/* Convenience: submit 'x' and run the loop until it is done. S3C_ECANCEL
 * ("interrupted") when a stop is asked before or meanwhile (base/stop.h). */
enum s3c_err http_do(struct http_loop *l, struct http_xfer *x, struct s3c_error *e);

/* Add a request header; false when the table is full. Strings are borrowed. */
bool http_xfer_header(struct http_xfer *x, const char *name, const char *value);

/* Value of response header 'name' (case-insensitive), trimmed; false if absent. */
bool http_resp_header(const struct http_resp *r, const char *name, struct sv *value);

/*
 * Iterate over response headers: start with *pos = 0; each call yields the
 * next "Name: value" pair (value trimmed) and returns false at the end.
 * The status line and blank lines are skipped.
 */
bool http_resp_next_header(const struct http_resp *r, size_t *pos, struct sv *name, struct sv *value);

/* Parse an HTTP date ("Wed, 12 Oct 2009 17:50:00 GMT") into seconds since 1970. */
bool http_date_parse(struct sv s, int64_t *epoch);

/* Release what the response holds; the xfer may be reused after this. */
void http_xfer_release(struct http_xfer *x);

/* One-time global init (curl_global_init); call from main before threads. */
enum s3c_err http_global_init(struct s3c_error *e);

#endif
