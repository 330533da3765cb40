/*
 * net: the event loop. One epoll set, edge-triggered, each socket registered
 * once for both directions; rd_ready/wr_ready remember an edge that has not
 * yet been used up, so no epoll_ctl is needed per request. A connection is a
 * small state machine (conn_run): HEAD -> BODY -> [HASH] -> [WAIT] -> WRITE
 * -> HEAD, so requests on one connection are answered in order
 * (pipelining-safe); HASH waits for the round's side-by-side MD5s
 * (digest.c). Timers (latency, pacing) live in one min-heap of connections;
 * epoll_wait's timeout is the earliest deadline, so nothing ever sleeps.
 * A connection reads at most EMU_TURN_BYTES a round (its turn), then waits
 * on the 'more' list for the next round: read until EAGAIN, one upload's
 * socket, refilled by its client as fast as it was read, held the loop for
 * a whole 16 MiB body (rounds of up to 1.4 s) while the other connections,
 * their answers and the timers waited.
 * It stays one file because the state machine, the timer heap and the
 * epoll loop all work on the same private connection fields: split, those
 * fields would have to become a header's contract. What needs no connection
 * (parsing a head, the accessors the operations use) is http.c's.
 */
#include "emu.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "base/pct.h"

/* ---- timers: a min-heap of the worker's connections by due_ns ---- */

static void heap_swap(struct emu_worker *s, int i, int j)
{
    struct emu_conn *t = s->heap[i];

    s->heap[i] = s->heap[j];
    s->heap[j] = t;
    s->heap[i]->heap_idx = i;
    s->heap[j]->heap_idx = j;
}

static void heap_up(struct emu_worker *s, int i)
{
    while (i > 0 && s->heap[(i - 1) / 2]->due_ns > s->heap[i]->due_ns) {
        heap_swap(s, i, (i - 1) / 2);
        i = (i - 1) / 2;
    }
}

static void heap_down(struct emu_worker *s, int i)
{
    for (;;) {
        int l = 2 * i + 1, r = l + 1, m = i;

        if (l < s->heap_len && s->heap[l]->due_ns < s->heap[m]->due_ns)
            m = l;
        if (r < s->heap_len && s->heap[r]->due_ns < s->heap[m]->due_ns)
            m = r;
        if (m == i)
            return;
        heap_swap(s, i, m);
        i = m;
    }
}

static void timer_cancel(struct emu_conn *c)
{
    struct emu_worker *s = c->w;
    int i = c->heap_idx;

    if (i < 0)
        return;
    c->heap_idx = -1;
    s->heap_len--;
    if (i == s->heap_len)
        return;
    s->heap[i] = s->heap[s->heap_len];
    s->heap[i]->heap_idx = i;
    heap_up(s, i);
    heap_down(s, s->heap[i]->heap_idx);
}

static int timer_set(struct emu_conn *c, int64_t due_ns)
{
    struct emu_worker *s = c->w;

    timer_cancel(c);
    if (s->heap_len == s->heap_cap) {
        int cap = s->heap_cap ? s->heap_cap * 2 : 256;
        struct emu_conn **h = realloc(s->heap, (size_t)cap * sizeof(*h));

        if (!h)
            return -1;
        s->heap = h;
        s->heap_cap = cap;
    }
    c->due_ns = due_ns;
    c->heap_idx = s->heap_len;
    s->heap[s->heap_len++] = c;
    heap_up(s, c->heap_idx);
    return 0;
}

/* ---- turns: what a connection may read in one round ---- */

/* Its turn ran out with bytes left: run it again next round, after those already waiting. */
static void more_push(struct emu_conn *c)
{
    struct emu_worker *w = c->w;

    if (c->more_queued)
        return;
    c->more_queued = true;
    w->more_n++;
    c->more_next = NULL;
    c->more_prev = w->more_tail;
    if (w->more_tail)
        w->more_tail->more_next = c;
    else
        w->more_head = c;
    w->more_tail = c;
}

static void more_unlink(struct emu_conn *c)
{
    struct emu_worker *w = c->w;

    if (!c->more_queued)
        return;
    if (c->more_prev)
        c->more_prev->more_next = c->more_next;
    else
        w->more_head = c->more_next;
    if (c->more_next)
        c->more_next->more_prev = c->more_prev;
    else
        w->more_tail = c->more_prev;
    c->more_prev = c->more_next = NULL;
    c->more_queued = false;
    w->more_n--;
}

/*
 * Bytes 'c' may still read this round (0: its turn is over, and it is on
 * the 'more' list for the next one).
 */
static size_t turn_left(struct emu_conn *c)
{
    if (c->turn_round != c->w->round) {
        c->turn_round = c->w->round;
        c->turn_bytes = 0;
    }
    if (c->turn_bytes >= EMU_TURN_BYTES) {
        more_push(c);
        return 0;
    }
    return EMU_TURN_BYTES - c->turn_bytes;
}

/* ---- pacing: a token bucket per direction ---- */

/* Bytes that may move now at 'bps' (0 = unlimited: SIZE_MAX). */
static size_t pace_allow(struct emu_pace *p, double bps, int64_t now)
{
    double burst;

    if (bps <= 0)
        return SIZE_MAX;
    burst = bps / 50 > 16384 ? bps / 50 : 16384; /* 20 ms worth, at least 16 KB */
    if (p->last_ns == 0) {
        p->tokens = burst;
    } else {
        p->tokens += bps * (double)(now - p->last_ns) / 1e9;
        if (p->tokens > burst)
            p->tokens = burst;
    }
    p->last_ns = now;
    return p->tokens >= 1 ? (size_t)p->tokens : 0;
}

/* How long until 'want' bytes (at least 4 KiB) may move at 'bps'. */
static int64_t pace_wait_ns(const struct emu_pace *p, double bps, size_t want_bytes)
{
    double want = (want_bytes > 4096 ? (double)want_bytes : 4096) - p->tokens;
    int64_t ns = (int64_t)(want / bps * 1e9);

    return ns < 100000 ? 100000 : ns;
}

static double conn_bps(const struct emu_conn *c)
{
    return atomic_load_explicit(&c->srv->bw_bps, memory_order_relaxed);
}

/* ---- connections ---- */

/*
 * A buffer for the next request on this connection: emptied, its memory
 * kept (no malloc and free per request) unless it grew past 'keep' bytes
 * for one large answer.
 */
static struct buf buf_recycle(struct buf b, size_t keep, size_t max)
{
    if (b.cap > keep)
        buf_release(&b);
    else
        buf_reset(&b);
    b.max = max;
    return b;
}

#define KEEP_BYTES ((size_t)16 << 10)
#define KEEP_BODY_BYTES ((size_t)512 << 10)

static void req_release(struct emu_req *q)
{
    struct buf head = buf_recycle(q->head, KEEP_BYTES, EMU_HDR_MAX_BYTES);
    struct buf qbuf = buf_recycle(q->qbuf, KEEP_BYTES, EMU_HDR_MAX_BYTES * 2);

    emu_blob_unref(q->body);
    free(q->bucket);
    free(q->key);
    memset(q, 0, sizeof(*q));
    q->head = head;
    q->qbuf = qbuf;
}

static void resp_release(struct emu_resp *r)
{
    struct buf hdrs = buf_recycle(r->hdrs, KEEP_BYTES, EMU_HDR_MAX_BYTES);
    struct buf head = buf_recycle(r->head, KEEP_BYTES, EMU_HDR_MAX_BYTES * 2);
    /* A listing's page (about 250 KB) is kept too: fresh memory for each cost a page fault per 4 KiB. */
    struct buf body = buf_recycle(r->body, KEEP_BODY_BYTES, BUF_MAX_DEFAULT * 4);

    emu_blob_unref(r->blob);
    free(r->corrupt_copy);
    memset(r, 0, sizeof(*r));
    r->hdrs = hdrs;
    r->head = head;
    r->body = body;
    r->cut_at = UINT64_MAX;
}

/* Count n on the connection's own worker (no lookup of the calling thread). */
#define W_STAT(c, field, n) \
    atomic_fetch_add_explicit(&(c)->w->stats.field, (uint64_t)(n), memory_order_relaxed)

static void conn_close(struct emu_conn *c, int rst)
{
    struct emu_worker *w = c->w;

    if (c->state == CS_DEAD)
        return;
    if (rst) {
        struct linger lg = { 1, 0 };
        setsockopt(c->fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
    }
    close(c->fd);
    c->fd = -1;
    c->state = CS_DEAD;
    timer_cancel(c);
    more_unlink(c);
    W_STAT(c, conns_open, -1);
    c->dead_next = w->graveyard;
    w->graveyard = c;
}

static void conn_free(struct emu_conn *c)
{
    /* Keep the buffers of a dead connection until the loop is done with it. */
    req_release(&c->req);
    buf_release(&c->req.head);
    buf_release(&c->req.qbuf);
    resp_release(&c->resp);
    buf_release(&c->resp.hdrs);
    buf_release(&c->resp.head);
    buf_release(&c->resp.body);
    emu_digest_release(&c->dig);
    emu_io_free(c);
    free(c->rb);
    free(c);
}

static struct emu_conn *conn_new(struct emu_worker *w, int fd)
{
    struct emu_conn *c = calloc(1, sizeof(*c));

    if (!c)
        return NULL;
    c->rb = malloc(EMU_RBUF_BYTES);
    if (!c->rb) {
        free(c);
        return NULL;
    }
    c->fd = fd;
    c->srv = w->srv;
    c->w = w;
    c->heap_idx = -1;
    c->state = CS_HEAD;
    c->wr_ready = true;
    req_release(&c->req);
    resp_release(&c->resp);
    return c;
}

/* ---- response assembly ---- */

static const char *status_text(int st)
{
    switch (st) {
    case 100: return "Continue";
    case 200: return "OK";
    case 204: return "No Content";
    case 206: return "Partial Content";
    case 301: return "Moved Permanently";
    case 304: return "Not Modified";
    case 400: return "Bad Request";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 409: return "Conflict";
    case 411: return "Length Required";
    case 412: return "Precondition Failed";
    case 413: return "Payload Too Large";
    case 416: return "Requested Range Not Satisfiable";
    case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error";
    case 501: return "Not Implemented";
    case 503: return "Service Unavailable";
    case 505: return "HTTP Version Not Supported";
    default: return "Status";
    }
}

static void update_date(struct emu_worker *s)
{
    time_t now = time(NULL);
    struct tm tm;

    if (now == s->date_sec)
        return;
    s->date_sec = now;
    gmtime_r(&now, &tm);
    strftime(s->date_hdr, sizeof(s->date_hdr), "%a, %d %b %Y %H:%M:%S GMT", &tm);
}

static void resp_finish(struct emu_conn *c)
{
    struct emu_worker *s = c->w;
    struct emu_resp *r = &c->resp;
    char rid[17];

    update_date(s);
    snprintf(rid, sizeof(rid), "%016llX", (unsigned long long)c->req.id);
    if (!c->req.keep_alive || c->peer_closed)
        r->close = true;
    if (r->status < 100 || r->status > 599)
        r->status = 500;
    W_STAT(c, status[r->status / 100], 1);
    if (r->status >= 400)
        W_STAT(c, errors, 1);
    buf_addf(&r->head,
             "HTTP/1.1 %d %s\r\nDate: %s\r\nServer: AmazonS3\r\nx-amz-request-id: %s\r\n"
             "x-amz-id-2: s3emu/%s\r\n",
             r->status, status_text(r->status), s->date_hdr, rid, rid);
    if (r->status != 304 && !(r->status == 204 && r->content_length == 0))
        buf_addf(&r->head, "Content-Length: %llu\r\n", (unsigned long long)r->content_length);
    buf_addsv(&r->head, buf_sv(&r->hdrs));
    if (r->close)
        buf_adds(&r->head, "Connection: close\r\n");
    buf_adds(&r->head, "\r\n");
    if (r->no_body)
        r->blen = 0;
    if (r->cut_at != UINT64_MAX && r->cut_at > r->blen)
        r->cut_at = r->blen;
}

/* ---- the state machine ---- */

static void start_response(struct emu_conn *c);

/* HTTP chunked decoding from rb into the body blob. 1 done, 0 need more, -1 bad. */
enum { CH_SIZE, CH_DATA, CH_DATA_END, CH_TRAILER };

static int chunked_step(struct emu_conn *c, size_t *consumed)
{
    struct emu_req *q = &c->req;
    size_t pos = 0;

    while (pos < c->rlen) {
        char *line = c->rb + pos;
        char *eol;

        switch (q->ch_state) {
        case CH_SIZE:
        case CH_TRAILER:
        case CH_DATA_END:
            eol = memmem(line, c->rlen - pos, "\r\n", 2);
            if (!eol) {
                if (c->rlen - pos > 8192)
                    return -1;
                *consumed = pos;
                return 0;
            }
            if (q->ch_state == CH_DATA_END) {
                if (eol != line)
                    return -1;
                q->ch_state = CH_SIZE;
            } else if (q->ch_state == CH_TRAILER) {
                if (eol == line) {
                    *consumed = pos + 2;
                    return 1;
                }
            } else {
                uint64_t v = 0;
                char *h = line;
                int d;

                if (pct_hexval(*h) < 0)
                    return -1;
                while ((d = pct_hexval(*h)) >= 0 && h < eol) {
                    if (v >> 60)
                        return -1;
                    v = v * 16 + (uint64_t)d;
                    h++;
                }
                q->ch_left = v;
                q->ch_state = v ? CH_DATA : CH_TRAILER;
                if (v && emu_blob_reserve(q->body, q->body->len + v, q->body_max))
                    return -1;
            }
            pos = (size_t)(eol - c->rb) + 2;
            break;
        case CH_DATA: {
            size_t n = c->rlen - pos;

            if (n > q->ch_left)
                n = (size_t)q->ch_left;
            memcpy(q->body->data + q->body->len, line, n);
            emu_digest_feed(&c->dig, line, n);
            q->body->len += n;
            q->ch_left -= n;
            pos += n;
            if (!q->ch_left)
                q->ch_state = CH_DATA_END;
            break;
        }
        }
    }
    *consumed = pos;
    return 0;
}

static void consume(struct emu_conn *c, size_t n)
{
    memmove(c->rb, c->rb + n, c->rlen - n);
    c->rlen -= n;
}

/* Read (paced): bytes read, 0 if it would block or is paced (timer set), -1 closed. */
static ssize_t read_some(struct emu_conn *c, char *dst, size_t room)
{
    int64_t now;
    size_t allow, turn;
    ssize_t n;

    if (!c->rd_ready)
        return 0;
    turn = turn_left(c);
    if (!turn)
        return 0;
    if (room > turn)
        room = turn;
    now = emu_now_ns();
    allow = pace_allow(&c->pin, conn_bps(c), now);
    /* In pieces of 16 KiB, as the writes (see the pacing of answers). */
    if (allow == 0 || (allow < 16384 && allow < room)) {
        timer_set(c, now + pace_wait_ns(&c->pin, conn_bps(c), room < 16384 ? room : 16384));
        return 0;
    }
    if (room > allow)
        room = allow;
    n = emu_io_read(c, dst, room);
    if (n > 0) {
        c->turn_bytes += (size_t)n;
        if (conn_bps(c) > 0)
            c->pin.tokens -= (double)n;
        W_STAT(c, bytes_in, n);
        return n;
    }
    if (n < 0)
        c->peer_closed = true;
    return n;
}

static void fail_head(struct emu_conn *c, int status)
{
    const char *code = status == 431 ? "RequestHeaderSectionTooLarge"
                       : status == 501 ? "NotImplemented"
                       : status == 505 ? "HttpVersionNotSupported"
                                       : "BadRequest";

    c->req.keep_alive = false;
    emu_ops_error(c->srv, c, status, code, "The request could not be parsed.");
    c->resp.close = true;
    start_response(c);
}

static void conn_run(struct emu_conn *c);
static void run_op(struct emu_conn *c);

static void head_done(struct emu_conn *c, size_t hlen)
{
    struct emu_req *q = &c->req;
    int st;

    c->scan = 0;
    c->dig.done = 0; /* digests describe one body: never the last request's */
    q->id = atomic_fetch_add_explicit(&c->srv->req_seq, 1, memory_order_relaxed) + 1;
    st = emu_req_parse_head(&c->req, c->rb, hlen);
    consume(c, hlen);
    if (st) {
        fail_head(c, st);
        return;
    }
    q->t_head_ns = emu_now_ns();
    c->body_seen = 0;
    emu_ops_on_head(c->srv, c);
    if (c->resp.reset_now) {    /* fault: reset before any answer */
        conn_close(c, 1);
        return;
    }
    if (!q->body_max)
        q->body_max = EMU_XML_BODY_MAX;
    if (q->has_cl && q->content_length > q->body_max) {
        emu_ops_error(c->srv, c, 400, "EntityTooLarge",
                      "Your proposed upload exceeds the maximum allowed size");
        c->resp.close = true;
        start_response(c);
        return;
    }
    /*
     * Expect: 100-continue gets a 100 whenever we will read on, even when the
     * body is already here or empty: S3 does so, and botocore depends on it
     * (after a final answer without a 100 it reuses that status line for the
     * next request on the connection).
     */
    if (q->expect_continue) {
        static const char cont[] = "HTTP/1.1 100 Continue\r\n\r\n";
        ssize_t w;

        if (emu_ops_precheck(c->srv, c)) {
            /* Refused before the body: answer and close, the body never comes. */
            c->req.keep_alive = false;
            c->resp.close = true;
            start_response(c);
            return;
        }
        struct iovec v = { (void *)cont, sizeof(cont) - 1 };

        /* A socket with nothing in flight takes 25 bytes; if not, the client goes on anyway
         * (but a TLS write that blocked must be repeated as it was: give up the connection). */
        w = emu_io_writev(c, &v, 1, sizeof(cont) - 1);
        if (w <= 0 && c->tls) {
            conn_close(c, 1);
            return;
        }
    }
    if ((q->has_cl && q->content_length) || q->chunked) {
        q->body = q->has_cl ? emu_blob_new_body(c->srv, q->content_length) : emu_blob_new(65536);
        if (!q->body) {
            emu_ops_error(c->srv, c, 500, "InternalError", "Out of memory.");
            c->resp.close = true;
            start_response(c);
            return;
        }
        emu_digest_start(&c->dig, q);
        c->state = CS_BODY;
    } else {
        c->state = CS_WAIT;
        run_op(c);
    }
}

static void body_done(struct emu_conn *c)
{
    emu_digest_finish(&c->dig);
    run_op(c);
}

/* Whether the client hung up (or reset the connection): a read would say so. */
static bool peer_gone(struct emu_conn *c)
{
    char b;
    ssize_t n = recv(c->fd, &b, 1, MSG_PEEK | MSG_DONTWAIT);

    return n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR);
}

/*
 * The request is in: its operation now, and the answer after the latency;
 * or, with the model's apply_late, the latency first (CS_LATE) and the
 * operation after it, so a client that hangs up meanwhile leaves nothing
 * done, as a request cancelled in a queue (late_op).
 */
static void run_op(struct emu_conn *c)
{
    struct emu_req *q = &c->req;
    int64_t ns;
    bool late;

    pthread_mutex_lock(&c->srv->model_lock);
    late = c->srv->model.apply_late;
    pthread_mutex_unlock(&c->srv->model_lock);
    if (q->op < OP_ADMIN_STATS && late && (ns = emu_model_latency_ns(c->srv, q)) > 0) {
        q->latency_spent = true;
        c->state = CS_LATE;
        timer_set(c, emu_now_ns() + ns);
        return;
    }
    emu_ops_handle(c->srv, c);
    start_response(c);
}

static void late_op(struct emu_conn *c)
{
    if (peer_gone(c)) {
        W_STAT(c, hung_up, 1);
        conn_close(c, 0);
        return;
    }
    c->state = CS_WAIT;
    emu_ops_handle(c->srv, c);
    start_response(c);
}

/* Reset mid-upload: the fault fires once half the body is in. */
static bool upload_cut(struct emu_conn *c)
{
    struct emu_req *q = &c->req;

    if (q->fault != FAULT_RESET_MID || !q->has_cl)
        return false;
    if (c->body_seen * 2 >= q->content_length) {
        conn_close(c, 1);
        return true;
    }
    return false;
}

static void do_body(struct emu_conn *c)
{
    struct emu_req *q = &c->req;
    struct emu_blob *b = q->body;
    uint64_t want;
    ssize_t r;

    for (;;) {
        if (q->has_cl) {
            uint64_t need = q->content_length - b->len;
            size_t n = c->rlen < need ? c->rlen : (size_t)need;

            if (n) {
                memcpy(b->data + b->len, c->rb, n);
                emu_digest_feed(&c->dig, b->data + b->len, n);
                b->len += n;
                c->body_seen += n;
                consume(c, n);
            }
            if (upload_cut(c))
                return;
            if (b->len == q->content_length) {
                if (c->dig.queued) {
                    /* Answered after this round's MD5s, beside the other bodies that ended in it. */
                    c->state = CS_HASH;
                    c->hash_next = c->w->hashing;
                    c->w->hashing = c;
                    return;
                }
                body_done(c);
                return;
            }
            /*
             * Read straight into the blob (no copy through rb), a slice at a
             * time when it is hashed, so the digests read bytes still in cache.
             */
            want = q->content_length - b->len;
            if (c->dig.want && want > EMU_DIGEST_SLICE)
                want = EMU_DIGEST_SLICE;
            r = read_some(c, b->data + b->len, (size_t)want);
            if (r < 0) {
                conn_close(c, 0);
                return;
            }
            if (r == 0)
                return;
            emu_digest_feed(&c->dig, b->data + b->len, (size_t)r);
            b->len += (uint64_t)r;
            c->body_seen += (uint64_t)r;
        } else {
            size_t used = 0;
            int st = chunked_step(c, &used);

            c->body_seen += used;
            consume(c, used);
            if (st < 0) {
                c->req.keep_alive = false;
                emu_ops_error(c->srv, c, 400, "IncompleteBody", "Malformed chunked encoding.");
                c->resp.close = true;
                start_response(c);
                return;
            }
            if (st > 0) {
                body_done(c);
                return;
            }
            if (c->rlen == EMU_RBUF_BYTES) {
                fail_head(c, 400);
                return;
            }
            r = read_some(c, c->rb + c->rlen, EMU_RBUF_BYTES - c->rlen);
            if (r < 0) {
                conn_close(c, 0);
                return;
            }
            if (r == 0)
                return;
            c->rlen += (size_t)r;
        }
    }
}

static void do_head(struct emu_conn *c)
{
    ssize_t r;

    for (;;) {
        /* Tolerate stray CRLFs between requests (RFC 9112 §2.2). */
        while (c->rlen >= 2 && c->rb[0] == '\r' && c->rb[1] == '\n')
            consume(c, 2);
        if (c->rlen) {
            size_t from = c->scan > 3 ? c->scan - 3 : 0;
            char *e = memmem(c->rb + from, c->rlen - from, "\r\n\r\n", 4);

            if (e) {
                head_done(c, (size_t)(e - c->rb) + 4);
                return;
            }
            c->scan = c->rlen;
            if (c->rlen >= EMU_HDR_MAX_BYTES) {
                fail_head(c, 431);
                return;
            }
        }
        r = read_some(c, c->rb + c->rlen, EMU_RBUF_BYTES - c->rlen);
        if (r < 0) {
            conn_close(c, 0);
            return;
        }
        if (r == 0)
            return;
        c->rlen += (size_t)r;
    }
}

static void start_response(struct emu_conn *c)
{
    struct emu_resp *r = &c->resp;

    if (r->reset_now) {
        conn_close(c, 1);
        return;
    }
    resp_finish(c);
    if (r->delay_ns > 0) {
        c->state = CS_WAIT;
        timer_set(c, emu_now_ns() + r->delay_ns);
        return;
    }
    c->state = CS_WRITE;
}

static void response_done(struct emu_conn *c)
{
    bool close_it = c->resp.close;

    req_release(&c->req);
    resp_release(&c->resp);
    if (close_it) {
        emu_io_shutdown(c);
        conn_close(c, 0);
        return;
    }
    c->state = CS_HEAD;
}

static void do_write(struct emu_conn *c)
{
    struct emu_resp *r = &c->resp;

    for (;;) {
        uint64_t hleft = r->head.len - r->hsent;
        uint64_t blimit = r->blen < r->cut_at ? r->blen : r->cut_at;
        uint64_t bleft = blimit - r->bsent;
        struct iovec iov[2];
        int niov = 0;
        size_t allow, need;
        int64_t now;
        double bps;
        ssize_t n;

        if (hleft == 0 && bleft == 0) {
            if (r->cut_at < r->blen) {
                conn_close(c, r->cut_rst);
                return;
            }
            response_done(c);
            return;
        }
        if (!c->wr_ready)
            return;
        now = emu_now_ns();
        bps = r->slow_bps > 0 ? r->slow_bps : conn_bps(c);
        allow = pace_allow(&c->pout, bps, now);
        /*
         * Paced in pieces of 16 KiB (whole records over TLS): a link delivers
         * segments, not the few KiB a timer tick earns. Pieces that small made
         * an idle client wake, poll, read and write once per 2-9 KiB (a 1 GiB
         * download: 512,000 reads, 3 CPU-s of kernel time; over TLS a record's
         * costs every 2 KiB), what no network does at 90 MB/s a connection.
         */
        need = hleft + bleft < 16384 ? (size_t)(hleft + bleft) : 16384;
        if (allow < need) {
            timer_set(c, now + pace_wait_ns(&c->pout, bps, need));
            return;
        }
        if (hleft) {
            iov[niov].iov_base = r->head.data + r->hsent;
            iov[niov].iov_len = (size_t)hleft;
            niov++;
        }
        if (bleft) {
            iov[niov].iov_base = (char *)r->bp + r->bsent;
            iov[niov].iov_len = bleft > SIZE_MAX / 2 ? SIZE_MAX / 2 : (size_t)bleft;
            niov++;
        }
        n = emu_io_writev(c, iov, niov, allow);
        if (n == 0)
            return; /* blocked: an event brings us back */
        if (n < 0) {
            conn_close(c, 0);
            return;
        }
        W_STAT(c, bytes_out, n);
        if (bps > 0)
            c->pout.tokens -= (double)n;
        if ((uint64_t)n <= hleft) {
            r->hsent += (uint64_t)n;
        } else {
            r->hsent += hleft;
            r->bsent += (uint64_t)n - hleft;
        }
    }
}

static void conn_run(struct emu_conn *c)
{
    for (;;) {
        enum emu_conn_state st = c->state;

        switch (st) {
        case CS_HEAD:
            do_head(c);
            break;
        case CS_BODY:
            do_body(c);
            break;
        case CS_HASH:
            return; /* the loop answers it after the round (worker_loop) */
        case CS_LATE:
            if (c->heap_idx >= 0)
                return;
            late_op(c);
            break;
        case CS_WAIT:
            if (c->heap_idx >= 0)
                return;
            c->state = CS_WRITE;
            break;
        case CS_WRITE:
            do_write(c);
            break;
        case CS_DEAD:
            return;
        }
        if (c->state == st)
            return; /* blocked: an event or a timer brings us back */
    }
}

static char listen_tags[EMU_MAX_LISTEN], wake_tag;

/* Register an accepted socket with worker w (its thread only). */
static void conn_adopt(struct emu_worker *w, int fd, int lidx)
{
    struct epoll_event ev;
    struct emu_conn *c;
    int one = 1;

    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    c = conn_new(w, fd);
    if (!c) {
        close(fd);
        return;
    }
    c->lidx = lidx;
    if (emu_io_start(c)) {
        close(fd);
        conn_free(c);
        return;
    }
    ev.events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET;
    ev.data.ptr = c;
    if (epoll_ctl(w->ep, EPOLL_CTL_ADD, fd, &ev) < 0) {
        close(fd);
        conn_free(c);
        return;
    }
    W_STAT(c, connections, 1);
    W_STAT(c, conns_open, 1);
    W_STAT(c, listener_conns[lidx], 1);
}

/* Queue a socket for another worker and wake it; false if it could not take it. */
static bool hand_over(struct emu_worker *to, int fd, int lidx)
{
    uint64_t one = 1;
    bool ok = true;
    ssize_t n;

    pthread_mutex_lock(&to->inbox_lock);
    if (to->inbox_n == to->inbox_cap) {
        int cap = to->inbox_cap ? to->inbox_cap * 2 : 64;
        struct emu_handoff *p = realloc(to->inbox, (size_t)cap * sizeof(*p));

        if (p) {
            to->inbox = p;
            to->inbox_cap = cap;
        }
    }
    if (to->inbox_n < to->inbox_cap)
        to->inbox[to->inbox_n++] = (struct emu_handoff){ fd, lidx };
    else
        ok = false;
    pthread_mutex_unlock(&to->inbox_lock);
    if (ok)
        n = write(to->wake_fd, &one, sizeof(one));
    (void)n; /* a full counter still wakes the worker */
    return ok;
}

/*
 * Accept what is waiting and deal the sockets round-robin over the workers,
 * so that 64 connections opened at once land 32 and 32 on two workers
 * instead of on whichever woke first.
 */
static void accept_all(struct emu_worker *w, int lidx)
{
    struct emu_server *s = w->srv;

    for (;;) {
        int fd = accept4(s->lfds[lidx], NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        struct emu_worker *to;

        if (fd < 0)
            return; /* EAGAIN (another worker took it), or EMFILE and friends: next event */
        to = &s->workers[atomic_fetch_add_explicit(&s->next_worker, 1, memory_order_relaxed) %
                         (unsigned)s->n_workers];
        if (to == w || !hand_over(to, fd, lidx))
            conn_adopt(w, fd, lidx);
    }
}

static void take_inbox(struct emu_worker *w)
{
    uint64_t v;
    struct emu_handoff *fds;
    int n, i;
    ssize_t r = read(w->wake_fd, &v, sizeof(v));

    (void)r;
    pthread_mutex_lock(&w->inbox_lock);
    fds = w->inbox;
    n = w->inbox_n;
    w->inbox = NULL;
    w->inbox_n = w->inbox_cap = 0;
    pthread_mutex_unlock(&w->inbox_lock);
    for (i = 0; i < n; i++)
        conn_adopt(w, fds[i].fd, fds[i].lidx);
    free(fds);
}

/* Listen on every address on one port: the first picks it when --port is 0. */
int emu_net_listen(struct emu_server *s)
{
    int one = 1, i;

    for (i = 0; i < s->n_listen; i++) {
        struct sockaddr_in sa;
        socklen_t sl = sizeof(sa);

        memset(&sa, 0, sizeof(sa));
        sa.sin_family = AF_INET;
        sa.sin_port = htons((uint16_t)s->port);
        if (inet_pton(AF_INET, s->listen[i], &sa.sin_addr) != 1) {
            fprintf(stderr, "s3emu: %s: not an IPv4 address\n", s->listen[i]);
            return -1;
        }
        /* One listening socket per address for all workers (no SO_REUSEPORT: a second emulator on the port must fail). */
        s->lfds[i] = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (s->lfds[i] < 0)
            goto fail;
        setsockopt(s->lfds[i], SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
        if (bind(s->lfds[i], (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(s->lfds[i], 4096) < 0)
            goto fail;
        if (getsockname(s->lfds[i], (struct sockaddr *)&sa, &sl) < 0)
            goto fail;
        s->port = ntohs(sa.sin_port);
        continue;
fail:
        fprintf(stderr, "s3emu: listen on %s:%d: %s\n", s->listen[i], s->port, strerror(errno));
        return -1;
    }
    return 0;
}

/* The loop of one worker: its events, then its due timers, then its dead connections. */
static void *worker_loop(void *arg)
{
    struct emu_worker *w = arg;
    struct epoll_event evs[256];

    emu_worker_enter(w);
    for (;;) {
        int timeout = -1, n, i, more;
        int64_t now;

        if (w->heap_len) {
            int64_t d = w->heap[0]->due_ns - emu_now_ns();
            timeout = d <= 0 ? 0 : (int)((d + 999999) / 1000000);
        }
        if (w->more_head)
            timeout = 0; /* connections with bytes left to read: a look at the others, then on */
        n = epoll_wait(w->ep, evs, 256, timeout);
        w->round++;
        if (n < 0 && errno != EINTR) {
            perror("s3emu: epoll_wait");
            exit(1);
        }
        for (i = 0; i < n; i++) {
            struct emu_conn *c = evs[i].data.ptr;
            uint32_t e = evs[i].events;

            if ((char *)evs[i].data.ptr >= listen_tags &&
                (char *)evs[i].data.ptr < listen_tags + EMU_MAX_LISTEN) {
                accept_all(w, (int)((char *)evs[i].data.ptr - listen_tags));
                continue;
            }
            if (evs[i].data.ptr == &wake_tag) {
                take_inbox(w);
                continue;
            }
            if (c->state == CS_DEAD)
                continue;
            if (e & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR))
                c->rd_ready = true;
            if (e & (EPOLLOUT | EPOLLHUP | EPOLLERR))
                c->wr_ready = true;
            conn_run(c);
        }
        /*
         * The connections whose turn ran out before this round, each for one
         * more turn, in order; those that use it up again queue behind them.
         */
        for (more = w->more_n; more > 0 && w->more_head; more--) {
            struct emu_conn *c = w->more_head;

            more_unlink(c);
            conn_run(c);
        }
        now = emu_now_ns();
        while (w->heap_len && w->heap[0]->due_ns <= now) {
            struct emu_conn *c = w->heap[0];

            timer_cancel(c);
            conn_run(c);
        }
        /* The round's MD5s side by side, then the bodies that waited for them are answered. */
        emu_digest_flush();
        while (w->hashing) {
            struct emu_conn *c = w->hashing;

            w->hashing = c->hash_next;
            c->hash_next = NULL;
            if (c->state != CS_HASH)
                continue; /* closed meanwhile: in the graveyard, freed below */
            body_done(c);
            conn_run(c);
        }
        while (w->graveyard) {
            struct emu_conn *c = w->graveyard;

            w->graveyard = c->dead_next;
            conn_free(c);
        }
    }
    return NULL;
}

static int worker_init(struct emu_server *s, struct emu_worker *w, int idx)
{
    struct epoll_event ev;
    int i;

    w->srv = s;
    w->idx = idx;
    if (pthread_mutex_init(&w->inbox_lock, NULL))
        return -1;
    w->ep = epoll_create1(EPOLL_CLOEXEC);
    w->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (w->ep < 0 || w->wake_fd < 0)
        return -1;
    /* Every worker waits on the listening sockets; EPOLLEXCLUSIVE wakes one of them, not all. */
    for (i = 0; i < s->n_listen; i++) {
        ev.events = EPOLLIN | EPOLLEXCLUSIVE;
        ev.data.ptr = &listen_tags[i];
        if (epoll_ctl(w->ep, EPOLL_CTL_ADD, s->lfds[i], &ev) < 0)
            return -1;
    }
    ev.events = EPOLLIN;
    ev.data.ptr = &wake_tag;
    return epoll_ctl(w->ep, EPOLL_CTL_ADD, w->wake_fd, &ev);
}

int emu_net_run(struct emu_server *s)
{
    int i;

    for (i = 0; i < s->n_workers; i++) {
        if (worker_init(s, &s->workers[i], i)) {
            perror("s3emu: worker");
            return -1;
        }
    }
    for (i = 1; i < s->n_workers; i++) {
        if (pthread_create(&s->workers[i].thread, NULL, worker_loop, &s->workers[i])) {
            fprintf(stderr, "s3emu: cannot start worker %d\n", i);
            return -1;
        }
    }
    worker_loop(&s->workers[0]);
    return 0;
}
