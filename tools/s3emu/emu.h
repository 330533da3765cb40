/*
 * emu: the internals of s3emu, the S3 emulator. One header for the tool's
 * modules, read in this order:
 *
 *   main.c   flags, the ready line, starts the workers
 *   net.c    workers (one epoll loop each), connections, HTTP/1.1 framing
 *            (keep-alive, pipelining, Content-Length and chunked bodies),
 *            timers, write/read pacing, response assembly
 *   http.c   a request's head parsed and read by name, a response's
 *            headers and body set (below the operations, knows no socket)
 *   tls.c    HTTPS: the certificate made for a run, the SSL_CTX, and the
 *            connection I/O (emu_io_*) net.c uses, through TLS or not
 *   ops*.c   the S3 operations: ops.c classifies and dispatches, one ops_*.c
 *            per API family (ops.h, the private header, lists them);
 *            ops_express.c is S3 Express (directory buckets, sessions)
 *   store.c  buckets -> ordered keys -> versions; multipart uploads; populate
 *   blob.c   object bytes: heap, huge-page mappings (recycled), --dir files
 *   digest.c the hashes of a request body, taken as its bytes arrive
 *   auth.c   SigV4 verification (header, presigned, chunk signatures) over
 *            src/auth/sigv4.h, and aws-chunked decoding
 *   model.c  the performance and fault model, stats, the admin endpoint
 *   worker.c each worker thread's counters and random numbers; the clock
 *   xml.c    XML escaping and a small expat walker for request bodies
 *   sl.c     the skip list every index uses
 *
 * Threads: --threads workers, each an epoll loop owning its connections;
 * what they share (the store, the model, counters) is described at struct
 * emu_server. Library code conventions apply (enum errors, goto out, capped buffers),
 * except that the emulator, being a program, may print to stderr.
 */
#ifndef S3EMU_EMU_H
#define S3EMU_EMU_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>

#include "base/buf.h"
#include "base/md5.h"
#include "base/str.h"
#include "sl.h"

#define EMU_HDR_MAX_BYTES (64u * 1024)          /* request line + headers */
#define EMU_MAX_HEADERS 128
#define EMU_MAX_PARAMS 64
#define EMU_MAX_THREADS 64                      /* --threads */
#define EMU_MAX_LISTEN 8                        /* --listen addresses */
#define EMU_MAX_TLS_NAMES 8                     /* --tls-name */
#define EMU_RBUF_BYTES (128u * 1024)            /* per-connection read buffer */
#define EMU_DIGEST_SLICE ((uint64_t)256 << 10) /* body bytes read (then hashed) at a time */
#define EMU_TURN_BYTES ((size_t)256 << 10)     /* bytes one connection reads per loop round */
#define EMU_XML_BODY_MAX ((uint64_t)4 << 20)    /* bodies we parse as XML */
#define EMU_OBJECT_MAX ((uint64_t)5 << 30)      /* S3's single PUT limit */
#define EMU_BODY_MAX (EMU_OBJECT_MAX + ((uint64_t)64 << 20)) /* + aws-chunked framing */

/* ---- blobs (blob.c): refcounted object bytes, shared by the store and responses ---- */

#define EMU_BLOB_MAP_MIN ((uint64_t)1 << 20)   /* from here: huge-page anonymous mapping */
#define EMU_BLOB_DIR_MIN ((uint64_t)64 << 10)  /* --dir: from here in a file, below on the heap */

struct emu_blob {
    _Atomic unsigned refs;  /* the blob is freed when this drops to 0 (any thread) */
    uint64_t len;       /* bytes of data */
    uint64_t cap;       /* bytes allocated (or mapped) */
    char *data;
    int mapped;         /* where data lives: 0 heap, 1 file mapping, 2 anonymous mapping, 3 static, 5 slice */
    struct emu_blob *parent; /* a slice's: the blob whose bytes it shares (one reference held) */
};

struct emu_server;

/* New blob with room for 'cap' bytes and one reference; NULL on OOM. */
struct emu_blob *emu_blob_new(uint64_t cap);
/* A reference to the one shared empty blob (never written to). */
struct emu_blob *emu_blob_empty(void);
/* As emu_blob_new, for a blob whose pages will be moved in (emu_blob_move_head). */
struct emu_blob *emu_blob_new_target(uint64_t cap);
/*
 * A blob to receive a request body of exactly 'len' bytes into: with --dir
 * and a large body, a file mapping, so the bytes go from the socket to the
 * page cache in one copy. NULL on OOM.
 */
struct emu_blob *emu_blob_new_body(struct emu_server *s, uint64_t len);
/* Grow capacity to at least 'need' (doubling, capped by 'max'); -1 on failure. */
int emu_blob_reserve(struct emu_blob *b, uint64_t need, uint64_t max);
/* Give back the slack of a blob that ended shorter than reserved (aws-chunked framing). */
void emu_blob_trim(struct emu_blob *b);
/*
 * The 'len' bytes of 'b' an object holds, then the 'n' bytes at 'p': an append.
 * Returns the blob holding them ('b', or a new one that took 'b''s reference);
 * NULL on OOM, 'b' unchanged. Amortized O(n): see blob.c.
 */
struct emu_blob *emu_blob_append(struct emu_blob *b, uint64_t len, const void *p, uint64_t n);
/* Move the whole pages of the first 'len' bytes of 'from' to 'dst' without a copy; the bytes moved. */
uint64_t emu_blob_move_head(struct emu_blob *from, char *dst, uint64_t len);
struct emu_blob *emu_blob_ref(struct emu_blob *b);
/*
 * A blob of the 'len' bytes of 'parent' at 'off', sharing them (no copy; it
 * holds a reference to 'parent'): an UploadPartCopy's part. Never written
 * to, grown or spilled. NULL on OOM.
 */
struct emu_blob *emu_blob_slice(struct emu_blob *parent, uint64_t off, uint64_t len);
/* The blob a slice shares bytes with, else NULL. */
struct emu_blob *emu_blob_parent(const struct emu_blob *b, uint64_t *off);
void emu_blob_unref(struct emu_blob *b);   /* NULL is a no-op */

/* ---- body digests (digest.c), computed as the bytes arrive ---- */

enum { EMU_DIG_MD5 = 1, EMU_DIG_SHA256 = 2, EMU_DIG_CK = 4 };
#define EMU_MD5_PIECES 64  /* 4 MiB of an aws-chunked body's 64 KiB chunks */

struct hash_ctx;

struct emu_digest {
    unsigned want;              /* EMU_DIG_* being computed for this body */
    unsigned done;              /* EMU_DIG_* finished over the whole body */
    uint64_t fed;               /* bytes hashed: the body's, or an aws-chunked body's payload */
    const char *ck_algo;        /* "CRC32", "CRC32C", "CRC64NVME", "SHA1", "SHA256" */
    uint32_t crc32;             /* running CRC32 or CRC32C */
    uint64_t crc64;             /* running CRC64NVME */
    struct md5 md5;             /* the ETag's MD5: whole blocks until the body ends */
    /*
     * The MD5 waits: bytes given to it but not hashed yet, up to
     * EMU_MD5_PIECES pieces of the body's blob (held by md5_blob), oldest
     * first. After each round of its loop the worker hashes the waiting
     * bytes of up to eight bodies side by side (emu_digest_flush); a body is
     * queued while a block or more waits.
     */
    struct emu_md5_piece { const unsigned char *p; size_t n; } piece[EMU_MD5_PIECES];
    int n_pieces;
    size_t waiting;             /* their bytes */
    unsigned char bounce[64];   /* a block across two pieces, put together */
    struct emu_blob *md5_blob;  /* the body's blob while its MD5 may wait (NULL: hash at once) */
    struct emu_digest *q_prev, *q_next;
    bool queued;
    /* An aws-chunked body's framing, read as it arrives so the MD5 sees only the payload. */
    bool framed;
    int fr_state, fr_digits;
    uint64_t fr_left;
    struct hash_ctx *sha256;    /* kept for the connection's life, reset per body */
    void *sha1;                 /* EVP_MD_CTX */
    unsigned char md5_out[16], sha256_out[32], ck_out[32];
    size_t ck_len;
};

/* ---- operations ---- */

enum emu_op {
    OP_UNKNOWN = 0,
    OP_LIST_BUCKETS, OP_CREATE_BUCKET, OP_HEAD_BUCKET, OP_DELETE_BUCKET,
    OP_GET_BUCKET_LOCATION, OP_GET_BUCKET_VERSIONING, OP_PUT_BUCKET_VERSIONING,
    OP_LIST_OBJECTS, OP_LIST_OBJECTS_V2, OP_LIST_OBJECT_VERSIONS,
    OP_PUT_OBJECT, OP_GET_OBJECT, OP_HEAD_OBJECT, OP_DELETE_OBJECT, OP_DELETE_OBJECTS,
    OP_COPY_OBJECT, OP_CREATE_MPU, OP_UPLOAD_PART, OP_UPLOAD_PART_COPY, OP_COMPLETE_MPU,
    OP_ABORT_MPU, OP_LIST_PARTS, OP_LIST_MPUS,
    OP_GET_BUCKET_ACL, OP_PUT_BUCKET_ACL, OP_GET_OBJECT_ACL, OP_PUT_OBJECT_ACL,
    OP_CREATE_SESSION, OP_LIST_DIRECTORY_BUCKETS,
    OP_GET_OBJECT_TAGGING, OP_PUT_OBJECT_TAGGING, OP_DELETE_OBJECT_TAGGING,
    OP_RESTORE_OBJECT, OP_RENAME_OBJECT,
    OP_APPEND_OBJECT,   /* PutObject with x-amz-write-offset-bytes (S3 Express): counted apart */
    OP_GET_BUCKET_ENCRYPTION, OP_PUT_BUCKET_ENCRYPTION,
    OP_ADMIN_STATS, OP_ADMIN_CONFIG, OP_ADMIN_RESET, OP_ADMIN_POPULATE,
    OP_COUNT
};
const char *emu_op_name(enum emu_op op);   /* "GetObject", ... */
bool emu_op_is_write(enum emu_op op);      /* counts against the PUT rate limit */

/* A directory bucket (S3 Express One Zone) is named BASE--ZONEID--x-s3. */
static inline bool emu_is_dir_bucket(const char *name)
{
    size_t n = name ? strlen(name) : 0;

    return n > 6 && memcmp(name + n - 6, "--x-s3", 6) == 0;
}

/* ---- faults ---- */

enum emu_fault_kind {
    FAULT_NONE = 0,
    FAULT_500,          /* 500 InternalError, op not run */
    FAULT_503,          /* 503 SlowDown, op not run */
    FAULT_RESET,        /* RST before any response byte, op not run */
    FAULT_RESET_MID,    /* RST halfway through the request or response body */
    FAULT_TRUNCATE,     /* full Content-Length announced, half the body, then FIN */
    FAULT_SLOW,         /* body paced at the rule's rate (default 64 KB/s) */
    FAULT_CORRUPT,      /* one byte of the response body flipped: a wrong checksum */
    FAULT_DELAY,        /* extra first-byte latency of the rule's ms */
    FAULT_DENY,         /* 403 AccessDenied, op not run; DeleteObjects: per key (key= rules) */
    FAULT_501,          /* 501 NotImplemented, op not run: a store without the operation (s3rver: UploadPartCopy) */
    FAULT_409,          /* 409 ConditionalRequestConflict, op not run: a conditional write raced another */
    FAULT_LOST_REPLY,   /* the op runs, then 500 InternalError instead of its success: a write landed unseen */
    FAULT_KIND_COUNT
};
const char *emu_fault_name(enum emu_fault_kind k);

/* ---- requests and responses ---- */

struct emu_hdr {
    struct sv name;     /* points into emu_req.head */
    struct sv value;    /* trimmed */
};

struct emu_param {
    char *name;         /* percent-decoded, NUL-terminated, in emu_req.qbuf */
    char *value;        /* "" when the parameter had no '=' */
    bool has_value;
};

struct emu_req {
    struct buf head;                    /* copy of request line + headers */
    struct sv method, target, path_raw, query_raw; /* into head */
    struct emu_hdr hdrs[EMU_MAX_HEADERS];
    int n_hdrs;
    struct buf qbuf;                    /* storage of decoded params */
    struct emu_param params[EMU_MAX_PARAMS];
    int n_params;
    char *qraw;                         /* query_raw as a C string (in qbuf) */
    char *praw;                         /* path_raw as a C string (in qbuf) */

    uint64_t content_length;            /* when has_cl */
    bool has_cl, chunked, keep_alive, expect_continue;
    struct emu_blob *body;              /* body bytes (HTTP framing removed) */
    uint64_t body_max;                  /* cap for this request's body */
    /* HTTP chunked decoder state */
    int ch_state;
    uint64_t ch_left;

    /* filled by ops at head time */
    enum emu_op op;
    char *bucket;                       /* malloc'd, NULL if none */
    char *key;                          /* malloc'd, decoded, NULL if none */
    size_t klen;
    bool express;                       /* on a directory bucket, or ListDirectoryBuckets */
    char sig_region[32];                /* region of the signature's scope, once checked */
    uint64_t id;                        /* x-amz-request-id, given when the head arrived */
    enum emu_fault_kind fault;          /* decided when the head arrived */
    double fault_arg;                   /* slow: bytes/s; delay: ms */
    int64_t t_head_ns;                  /* when the head was complete */
    bool latency_spent;                 /* apply_late: waited its latency before the operation */
};

struct emu_resp {
    int status;
    struct buf hdrs;                    /* extra header lines "Name: v\r\n" */
    struct buf head;                    /* assembled status line + headers */
    struct buf body;                    /* owned body (XML, JSON) */
    struct emu_blob *blob;              /* or a reference to object bytes */
    const char *bp;                     /* body bytes to send */
    uint64_t blen;                      /* body bytes to send */
    uint64_t content_length;            /* announced (differs on HEAD) */
    bool no_body;                       /* HEAD or 304: announce, send nothing */
    uint64_t hsent, bsent;
    bool close;                         /* close after this response */
    bool reset_now;                     /* RST instead of answering */
    uint64_t cut_at;                    /* stop the body here (UINT64_MAX: never) */
    int cut_rst;                        /* at cut_at: 1 RST, 0 FIN */
    double slow_bps;                    /* body pace override, 0 = none */
    int64_t delay_ns;                   /* wait before the first byte */
    char *corrupt_copy;                 /* private copy of a corrupted body */
};

/* http.c: the request's head parsed and read, the response's parts set. */

/*
 * Parse the head 'head'[0..n) (n includes the blank line) into q: copied
 * into q->head, headers and decoded parameters pointing into it. 0 ok, else
 * the HTTP status to refuse it with.
 */
int emu_req_parse_head(struct emu_req *q, const char *head, size_t n);
struct sv emu_req_header(const struct emu_req *q, const char *name);
const char *emu_req_param(const struct emu_req *q, const char *name); /* NULL if absent */
/* Response builders (the operations, the model and auth use these). */
void emu_resp_header(struct emu_resp *r, const char *name, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Body owned by the response: r->body is sent; sets Content-Type. */
void emu_resp_xml_body(struct emu_resp *r, int status);
void emu_resp_json_body(struct emu_resp *r, int status);

/* ---- connections and the server ---- */

struct emu_pace {
    double tokens;      /* bytes that may move now */
    int64_t last_ns;    /* last refill */
};

/* CS_LATE: a request in, its operation waiting for its latency (model apply_late). */
/* CS_HASH: the body is in, its MD5 waits for the end of the loop round (emu_digest_flush). */
enum emu_conn_state { CS_HEAD, CS_BODY, CS_HASH, CS_LATE, CS_WAIT, CS_WRITE, CS_DEAD };

struct emu_conn {
    int fd;
    struct emu_digest dig;      /* digests of the request body being received */
    enum emu_conn_state state;
    char *rb;                   /* read buffer, EMU_RBUF_BYTES */
    size_t rlen;                /* bytes held in rb */
    size_t scan;                /* rb prefix known to hold no header end */
    bool rd_ready, wr_ready;    /* edge-triggered readiness not yet used up */
    bool peer_closed;
    struct emu_req req;
    struct emu_resp resp;
    struct emu_pace pin, pout;  /* per-connection bandwidth buckets */
    int64_t due_ns;             /* timer deadline when heap_idx >= 0 */
    int heap_idx;
    uint64_t body_seen;         /* raw request body bytes received */
    struct emu_conn *dead_next; /* graveyard link */
    struct emu_conn *hash_next; /* the worker's CS_HASH list */
    uint64_t turn_round;        /* the worker's round in which turn_bytes was counted */
    size_t turn_bytes;          /* bytes read in that round: at most EMU_TURN_BYTES */
    struct emu_conn *more_prev, *more_next; /* the worker's 'more' list, when more_queued */
    bool more_queued;           /* its turn ran out with bytes left to read */
    int lidx;                   /* the listening address it came in on (index in srv->listen) */
    struct ssl_st *tls;         /* its TLS session (tls.c), NULL over plain HTTP */
    char *tls_stage;            /* 16 KiB: a response head and its first body bytes, one record */
    size_t tls_wmin;            /* a blocked SSL_write's length: the retry sends no less */
    bool tls_counted;           /* its handshake is in the stats */
    struct emu_server *srv;
    struct emu_worker *w;       /* the worker that owns this connection */
};

struct emu_fault_rule {
    enum emu_fault_kind kind;
    double prob;                /* fire with this probability (1 if unset) */
    char op[40];                /* S3 operation name, "" = any */
    char method[8];             /* "", "GET", ... */
    char key_glob[256];         /* fnmatch on the key, "" = any */
    char bucket_glob[64];
    uint64_t nth;               /* fire only on the nth matching request */
    uint64_t every;             /* fire on every Nth matching request */
    uint64_t times;             /* fire at most this many times (0 = no limit) */
    double arg;                 /* slow: bytes/s; delay: ms */
    uint64_t matched, fired;    /* counters */
};

#define EMU_MAX_RULES 32

struct emu_model {
    double latency_ms;          /* median first-byte latency */
    double jitter;              /* lognormal sigma around the median (0 = fixed) */
    double tail_pct;            /* percent of requests that are slow */
    double tail_mult;           /* ... by this factor */
    double bandwidth_mbps;      /* per-connection cap, MB/s (10^6 B/s); 0 = none */
    double rate_get;            /* GET/HEAD per second per prefix; 0 = none */
    double rate_put;            /* PUT/POST/DELETE/COPY per second per prefix */
    int prefix_depth;           /* prefix = bucket + key up to this many '/' */
    double xregion_ms;          /* extra latency of a cross-region copy */
    double copy_ms;             /* server-side copy: extra time of each CopyObject / UploadPartCopy */
    double copy_mbps;           /* ... and its rate per request, MB/s (10^6 B/s); 0 = instant */
    double express_latency_ms;  /* median first-byte latency on directory buckets; <0: latency_ms/10 */
    double express_session_s;   /* lifetime of CreateSession credentials */
    int express_session_required; /* object requests on directory buckets need session keys */
    uint64_t min_part_bytes;    /* EntityTooSmall threshold */
    int apply_late;             /* an operation runs once its latency has passed, not before it */
    int ignore_part_number;     /* GET/HEAD ?partNumber= answer the whole object (Ceph 16, many proxies) */
    double restore_ms;          /* RestoreObject: how long its copy takes to be readable (0: at once) */
    int block_ssec;             /* new buckets block SSE-C writes (AWS's default since April 2026) */
    int delete_ignores_if_match; /* DeleteObject deletes whatever its If-Match says (Ceph 16, S3 before 2025) */
    uint32_t append_max_parts;  /* parts an appended object may have (TooManyParts beyond; S3: 10,000) */
    struct emu_fault_rule rules[EMU_MAX_RULES];
    int n_rules;
    double fault_prob;          /* global probability of a random 500/503 */
};

/*
 * Counters. Each worker keeps its own (no cache line bounces between cores)
 * and the stats endpoint adds them up; they are atomics so that a reset from
 * another worker is never lost. Only _Atomic uint64_t members: emu_stats_*
 * walk the struct as an array.
 */
struct emu_stats {
    _Atomic uint64_t requests, errors, connections, conns_open;
    _Atomic uint64_t bytes_in, bytes_out;
    _Atomic uint64_t by_op[OP_COUNT];
    _Atomic uint64_t faults[FAULT_KIND_COUNT];
    _Atomic uint64_t slowdowns;         /* 503 from the rate limiter */
    _Atomic uint64_t status[6];         /* 1xx..5xx */
    _Atomic uint64_t auth_failures;
    _Atomic uint64_t stored_again;      /* PutObject of the same bytes as the key's, UploadPart over its number */
    _Atomic uint64_t hung_up;           /* requests whose client left before their operation ran (apply_late) */
    _Atomic uint64_t tls_handshakes, tls_resumed;   /* sessions, and those that resumed one */
    _Atomic uint64_t md5_bytes, md5_x8_bytes;       /* ETag MD5s: bytes hashed, and of them side by side */
    _Atomic uint64_t listener_conns[EMU_MAX_LISTEN]; /* connections per --listen address */
    _Atomic uint64_t listener_reqs[EMU_MAX_LISTEN];  /* S3 requests per --listen address */
};

/* Add n (may be negative) to the calling worker's counter 'field' of s (NULL: the worker's server). */
#define EMU_STAT(s, field, n) \
    atomic_fetch_add_explicit(&emu_stats_mine(s)->field, (uint64_t)(n), memory_order_relaxed)

/* An accepted socket on its way to the worker that will own it. */
struct emu_handoff {
    int fd;
    int lidx;                   /* its listening address */
};

/*
 * A worker: one thread, its own epoll set, timers and connections. A
 * connection stays on the worker it was handed to, so everything in struct
 * emu_conn is touched by one thread only.
 */
struct emu_worker {
    struct emu_server *srv;
    int idx;                    /* 0 .. n_workers-1 */
    int ep;                     /* its epoll set */
    int wake_fd;                /* eventfd: sockets waiting in the inbox */
    pthread_t thread;           /* worker 0 runs on the main thread */
    pthread_mutex_t inbox_lock;
    struct emu_handoff *inbox;  /* accepted sockets handed over by another worker */
    int inbox_n, inbox_cap;
    struct emu_conn **heap;     /* timers: a min-heap of connections by due_ns */
    int heap_len, heap_cap;
    struct emu_conn *graveyard; /* closed, freed after the current event batch */
    struct emu_conn *hashing;   /* CS_HASH: bodies in, answered after the round's MD5s */
    uint64_t round;             /* loop rounds so far: a connection's turn is one round's */
    struct emu_conn *more_head, *more_tail; /* turns used up with bytes left: run next round, in order */
    int more_n;                 /* connections on that list */
    time_t date_sec;
    char date_hdr[40];          /* cached RFC 1123 date */
    struct emu_stats stats;
};

/*
 * The server, shared by the workers. Locks, always taken in this order:
 *   store_lock (rwlock)  buckets, keys, versions, uploads; readers in
 *                        parallel, writers only for the O(log n) change
 *                        itself: no body is received, hashed or copied
 *                        while it is held for PutObject or UploadPart
 *   model_lock (mutex)   the model's settings, fault rules and their
 *                        counters, the rate limiter
 * The settings ops.c reads (min_part_bytes, xregion_ms, express_session_s,
 * express_session_required, append_max_parts) are changed with both held,
 * so reading them under either is safe.
 */
struct emu_server {
    int lfds[EMU_MAX_LISTEN];   /* one listening socket per address, all on 'port' */
    char listen[EMU_MAX_LISTEN][64]; /* --listen (or --host) IPv4 addresses */
    int n_listen;
    char host[64];
    int port;
    char tls_dir[1024];         /* --tls-dir: generate a CA and a certificate here */
    char tls_cert[1024], tls_key[1024]; /* --tls-cert, --tls-key */
    char tls_names[EMU_MAX_TLS_NAMES][256]; /* --tls-name: more DNS names in a generated certificate */
    int n_tls_names;
    struct ssl_ctx_st *tls_ctx; /* HTTPS when set (tls.c); read-only once serving */
    char access_key[128], secret_key[128];
    bool anonymous;
    char region[32];
    char dir[1024];             /* --dir, "" = memory */
    int n_workers;              /* --threads */
    struct emu_worker *workers;
    _Atomic unsigned next_worker;   /* round-robin for new connections */
    _Atomic uint64_t req_seq;       /* request ids */
    _Atomic double bw_bps;          /* model.bandwidth_mbps in bytes/s, read without a lock */
    pthread_rwlock_t store_lock;
    pthread_mutex_t model_lock;
    struct emu_model model;
    struct emu_sl buckets;      /* name -> struct emu_bucket* */
    struct emu_sl rates;        /* prefix -> struct emu_rate* */
    uint64_t rng;               /* seed of the per-thread generators */
};

/* Locks and defaults of a zeroed server (before flags). 0, or -1 on failure. */
int emu_server_init(struct emu_server *s);
/* worker.c. Called first by each worker thread: its counters and random generator. */
void emu_worker_enter(struct emu_worker *w);
/* The calling thread's counters (worker 0's outside the workers). */
struct emu_stats *emu_stats_mine(struct emu_server *s);
/* Sum of every worker's counters into 'out' (plain numbers). */
void emu_stats_sum(struct emu_server *s, uint64_t *out, size_t n);
#define EMU_STATS_N (sizeof(struct emu_stats) / sizeof(_Atomic uint64_t))

int64_t emu_now_ns(void);
/* Uniform in [0, 1) from the calling thread's generator ('s' seeds it). */
double emu_rand01(struct emu_server *s);
void emu_random_hex(struct emu_server *s, char *out, size_t n_hex);

/* The store lock (see struct emu_server; store.c): shared to read, exclusive to change. */
void emu_store_lock(struct emu_server *s, bool write);
void emu_store_unlock(struct emu_server *s);

/* net.c */
int emu_net_listen(struct emu_server *s);
/* Start s->n_workers workers (the calling thread is worker 0) and serve. */
int emu_net_run(struct emu_server *s);

/* tls.c: set up s->tls_ctx from --tls-dir or --tls-cert/--tls-key. 0, or -1 (said on stderr). */
int emu_tls_setup(struct emu_server *s);
/* A new connection's TLS session, if the server speaks TLS. 0, or -1. */
int emu_io_start(struct emu_conn *c);
/*
 * The connection's reads and writes, through TLS or not: bytes moved (> 0),
 * 0 when it would block (c->rd_ready or c->wr_ready is then false, unless
 * TLS waits for the other direction), -1 when the connection is closed or
 * broken. emu_io_writev sends at most 'limit' bytes (pacing), from at most
 * two vectors.
 */
ssize_t emu_io_read(struct emu_conn *c, char *dst, size_t n);
struct iovec;
ssize_t emu_io_writev(struct emu_conn *c, const struct iovec *iov, int niov, size_t limit);
/* Say the end of our side (close_notify, then FIN). */
void emu_io_shutdown(struct emu_conn *c);
void emu_io_free(struct emu_conn *c);

/* ops.c: called by net.c */
void emu_ops_on_head(struct emu_server *s, struct emu_conn *c);
void emu_ops_handle(struct emu_server *s, struct emu_conn *c);
/*
 * Before "100 Continue": the checks that need no body (signature, bucket,
 * upload). true if c->resp now holds the error to send instead of reading
 * the body, as S3 answers an Expect: 100-continue request it will refuse.
 */
bool emu_ops_precheck(struct emu_server *s, struct emu_conn *c);
void emu_ops_error(struct emu_server *s, struct emu_conn *c, int status, const char *code,
                   const char *msg);

/* model.c */
void emu_model_defaults(struct emu_model *m);
/* Parse a fault SPEC (see README) into m->rules, replacing them. -1 + msg on error. */
int emu_model_parse_faults(struct emu_model *m, const char *spec, char *err, size_t errn);
/* Apply "k=v" settings or a flat JSON object; -1 + msg on error. */
int emu_model_configure(struct emu_server *s, struct sv body, char *err, size_t errn);
/* The fault for this request (or FAULT_NONE); counts matches. */
enum emu_fault_kind emu_model_pick_fault(struct emu_server *s, struct emu_req *q, double *arg);
/* DeleteObjects: does a `deny` rule with key= refuse this one key (as a bucket policy would)? */
bool emu_model_deny_key(struct emu_server *s, struct emu_req *q, const char *key);
/* First-byte delay for one request. */
int64_t emu_model_latency_ns(struct emu_server *s, struct emu_req *q);
/* true if the prefix of this request is over its rate (answer 503 SlowDown). */
bool emu_model_rate_limited(struct emu_server *s, struct emu_req *q);

/*
 * Where a RestoreObject of 'o' stands at 'now': asked at all, still running, and until when its
 * copy is readable. A restore runs the model's restore_ms as it is when asked about, not as it was
 * when the restore started: setting restore_ms ends (0) or holds (a large value) the restores in
 * progress, so a test decides when they end.
 */
struct emu_obj;
struct emu_restore {
    bool asked, ongoing;
    int64_t until_ms;
};
struct emu_restore emu_model_restore(const struct emu_server *s, const struct emu_obj *o, int64_t now);
void emu_model_stats_json(struct emu_server *s, struct buf *out);
/* POST /_s3emu/populate?bucket=B&prefix=P&count=N&size=S[&start=K]: answers c->resp. */
void emu_admin_populate(struct emu_server *s, struct emu_conn *c);
void emu_model_stats_reset(struct emu_server *s);

/* xml.c */
void emu_xml_esc(struct buf *b, const char *s, size_t n);
void emu_xml_elem(struct buf *b, const char *name, const char *s);
/*
 * Walk 'body' as XML: 'cb' is called at each element end with its name, its
 * text (leaf text, trimmed) and its depth (root = 1). 0 ok, -1 malformed.
 */
int emu_xml_walk(const char *body, size_t n,
                 void (*cb)(void *ctx, const char *name, const char *text, int depth), void *ctx);

/* auth.c */
struct emu_auth_result {
    int status;                 /* 0 = ok */
    const char *code;           /* S3 error code */
    char msg[256];
    char region_hint[32];       /* AuthorizationHeaderMalformed */
    bool streaming_signed;      /* STREAMING-AWS4-HMAC-SHA256-PAYLOAD */
    bool signed_payload;        /* x-amz-content-sha256 is a hex digest */
    bool unsigned_request;      /* no signature at all: canned ACLs may still allow it */
    char payload_sha[65];
    char seed_sig[65];          /* header signature: chunk chain seed */
    unsigned char signing_key[32];
    char amz_date[20];
    char scope_date[10];
    char scope_region[32];
    char scope_service[16];     /* "s3", "s3express" */
    bool presigned;
    /* S3 Express session credentials (x-amz-s3session-token), when signed with them */
    bool session;
    bool session_readonly;
    char session_bucket[64];
};
/* Verify the signature of 'q' for a request to 'region' (NULL = any). */
void emu_auth_check(struct emu_server *s, struct emu_req *q, const char *region,
                    struct emu_auth_result *ar);
/*
 * S3 Express: the credentials of a CreateSession on 'bucket' valid until
 * 'exp' (epoch seconds), derived from the master secret (README). 'token'
 * gets the session token.
 */
void emu_auth_session_issue(struct emu_server *s, const char *bucket, bool readonly, int64_t exp,
                            char akid[24], char secret[48], struct buf *token);
/* "signers" of the stats: {"ACCESS_KEY_ID": requests it signed, ...}; and their reset. */
void emu_auth_signers_json(struct buf *b);
void emu_auth_signers_reset(void);
/*
 * Decode an aws-chunked body in place (b->len shrinks to the payload),
 * verifying chunk signatures when ar->streaming_signed, and collecting the
 * trailer lines into 'trailers' ("name:value\n"). 0 ok; -1 with code/msg set.
 */
int emu_auth_decode_chunked(struct emu_blob *b, struct emu_auth_result *ar, struct buf *trailers,
                            const char **code, const char **msg);

/* digest.c */
bool emu_req_aws_chunked(const struct emu_req *q);
/* Decide what to hash for the body of c->req (after emu_ops_on_head); resets the results. */
void emu_digest_start(struct emu_digest *d, const struct emu_req *q);
void emu_digest_feed(struct emu_digest *d, const void *p, size_t n);
void emu_digest_finish(struct emu_digest *d);
void emu_digest_release(struct emu_digest *d);
/* Hash what waits in this worker's bodies, eight at a time (after each loop round). */
void emu_digest_flush(void);
/*
 * The digests of the request body p[0..n): computed while it arrived when
 * they were (no second pass), else now. Only for the body itself.
 */
void emu_body_md5(const struct emu_conn *c, const void *p, size_t n, unsigned char out[16]);
void emu_body_sha256_hex(const struct emu_conn *c, const void *p, size_t n, char out[65]);
/* The x-amz-checksum of 'algo' computed on the way in (raw bytes), or 0 if it was not. */
size_t emu_body_checksum(const struct emu_conn *c, const char *algo, size_t n, unsigned char out[32]);

#endif
