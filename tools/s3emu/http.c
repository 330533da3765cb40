/*
 * http: the HTTP/1.1 messages. A request's head parsed into struct emu_req
 * (request line, headers, the path and its percent-decoded query) and read
 * by name; a response's headers and owned body set. The operations, the
 * model and auth use these; net.c reads the bytes and sends the answer, and
 * nothing here knows a connection.
 */
#include "emu.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/pct.h"

/* ---- requests ---- */

/*
 * Percent-decode (and '+' -> ' ' when 'plus') onto the end of b, NUL-terminated.
 * Returns the offset of the decoded string in b (b may move as it grows),
 * or (size_t)-1 when b's cap is reached.
 */
static size_t decode_into(struct buf *b, struct sv in, bool plus)
{
    size_t start = b->len, i;

    for (i = 0; i < in.n; i++) {
        char ch = in.p[i];

        if (ch == '%' && i + 2 < in.n && pct_hexval(in.p[i + 1]) >= 0 && pct_hexval(in.p[i + 2]) >= 0) {
            ch = (char)(pct_hexval(in.p[i + 1]) * 16 + pct_hexval(in.p[i + 2]));
            i += 2;
        } else if (ch == '+' && plus) {
            ch = ' ';
        }
        if (buf_addc(b, ch))
            return (size_t)-1;
    }
    if (buf_addc(b, 0))
        return (size_t)-1;
    return start;
}

int emu_req_parse_head(struct emu_req *q, const char *head, size_t n)
{
    const char *p, *end, *sp1, *sp2, *eol;
    struct sv te, cl, conn, expect;
    size_t offs[EMU_MAX_PARAMS][2];
    int i;

    if (buf_add(&q->head, head, n))
        return 431;
    p = q->head.data;
    end = p + q->head.len;
    eol = memmem(p, (size_t)(end - p), "\r\n", 2);
    sp1 = memchr(p, ' ', (size_t)(eol - p));
    if (!sp1)
        return 400;
    sp2 = memchr(sp1 + 1, ' ', (size_t)(eol - sp1 - 1));
    if (!sp2)
        return 400;
    q->method = (struct sv){ p, (size_t)(sp1 - p) };
    q->target = (struct sv){ sp1 + 1, (size_t)(sp2 - sp1 - 1) };
    if (!sv_starts((struct sv){ sp2 + 1, (size_t)(eol - sp2 - 1) }, "HTTP/1."))
        return 505;
    q->keep_alive = eol[-1] == '1';
    p = eol + 2;
    while (p < end && !(p[0] == '\r' && p[1] == '\n')) {
        const char *colon;

        eol = memmem(p, (size_t)(end - p), "\r\n", 2);
        if (!eol)
            return 400;
        colon = memchr(p, ':', (size_t)(eol - p));
        if (!colon || colon == p)
            return 400;
        if (q->n_hdrs == EMU_MAX_HEADERS)
            return 431;
        q->hdrs[q->n_hdrs].name = (struct sv){ p, (size_t)(colon - p) };
        q->hdrs[q->n_hdrs].value = sv_trim((struct sv){ colon + 1, (size_t)(eol - colon - 1) });
        q->n_hdrs++;
        p = eol + 2;
    }

    /* Target: "/path?query" (or an absolute URI, which we reduce to its path). */
    {
        struct sv t = q->target;
        const char *qm;

        if (sv_starts(t, "http://") || sv_starts(t, "https://")) {
            const char *sl = memchr(t.p + 8, '/', t.n - 8);
            t = sl ? (struct sv){ sl, t.n - (size_t)(sl - t.p) } : SV("/");
        }
        qm = memchr(t.p, '?', t.n);
        q->path_raw = (struct sv){ t.p, qm ? (size_t)(qm - t.p) : t.n };
        q->query_raw = qm ? (struct sv){ qm + 1, t.n - q->path_raw.n - 1 } : SV_NULL;
    }
    {
        /* Offsets first: qbuf may move while it grows. */
        struct sv qs = q->query_raw;
        size_t praw_off, qraw_off;
        int np = 0;

        praw_off = q->qbuf.len;
        if (buf_addsv(&q->qbuf, q->path_raw) || buf_addc(&q->qbuf, 0))
            return 431;
        qraw_off = q->qbuf.len;
        if (buf_addsv(&q->qbuf, q->query_raw) || buf_addc(&q->qbuf, 0))
            return 431;
        while (qs.n) {
            const char *amp = memchr(qs.p, '&', qs.n);
            struct sv item = { qs.p, amp ? (size_t)(amp - qs.p) : qs.n };
            const char *eq = memchr(item.p, '=', item.n);
            struct sv nm = { item.p, eq ? (size_t)(eq - item.p) : item.n };
            struct sv val = eq ? (struct sv){ eq + 1, item.n - nm.n - 1 } : SV_NULL;

            qs.p += item.n + (amp ? 1 : 0);
            qs.n -= item.n + (amp ? 1 : 0);
            if (!item.n)
                continue;
            if (np == EMU_MAX_PARAMS)
                return 400;
            offs[np][0] = decode_into(&q->qbuf, nm, true);
            offs[np][1] = decode_into(&q->qbuf, val, true);
            if (offs[np][0] == (size_t)-1 || offs[np][1] == (size_t)-1)
                return 431;
            q->params[np].has_value = eq != NULL;
            np++;
        }
        if (!q->qbuf.data)
            return 431;
        for (i = 0; i < np; i++) {
            q->params[i].name = q->qbuf.data + offs[i][0];
            q->params[i].value = q->qbuf.data + offs[i][1];
        }
        q->n_params = np;
        q->praw = q->qbuf.data + praw_off;
        q->qraw = q->qbuf.data + qraw_off;
    }

    te = emu_req_header(q, "transfer-encoding");
    cl = emu_req_header(q, "content-length");
    conn = emu_req_header(q, "connection");
    expect = emu_req_header(q, "expect");
    if (te.p && te.n) {
        if (!sv_ieqs(te, "chunked"))
            return 501;
        q->chunked = true;
    } else if (cl.p) {
        if (!sv_to_u64(cl, &q->content_length))
            return 400;
        q->has_cl = true;
    }
    if (conn.p) {
        if (sv_ieqs(conn, "close"))
            q->keep_alive = false;
        else if (sv_ieqs(conn, "keep-alive"))
            q->keep_alive = true;
    }
    q->expect_continue = expect.p && sv_ieqs(expect, "100-continue");
    return 0;
}

struct sv emu_req_header(const struct emu_req *q, const char *name)
{
    int i;

    for (i = 0; i < q->n_hdrs; i++)
        if (sv_ieqs(q->hdrs[i].name, name))
            return q->hdrs[i].value;
    return (struct sv){ NULL, 0 };
}

const char *emu_req_param(const struct emu_req *q, const char *name)
{
    int i;

    for (i = 0; i < q->n_params; i++)
        if (strcmp(q->params[i].name, name) == 0)
            return q->params[i].value;
    return NULL;
}

/* ---- responses ---- */

void emu_resp_header(struct emu_resp *r, const char *name, const char *fmt, ...)
{
    va_list ap;
    char tmp[4096];
    int n;

    va_start(ap, fmt);
    n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    buf_addf(&r->hdrs, "%s: %s\r\n", name, tmp);
}

void emu_resp_xml_body(struct emu_resp *r, int status)
{
    r->status = status;
    emu_resp_header(r, "Content-Type", "application/xml");
    r->bp = buf_cstr(&r->body);
    r->blen = r->body.len;
    r->content_length = r->blen;
}

void emu_resp_json_body(struct emu_resp *r, int status)
{
    r->status = status;
    emu_resp_header(r, "Content-Type", "application/json");
    r->bp = buf_cstr(&r->body);
    r->blen = r->body.len;
    r->content_length = r->blen;
}
