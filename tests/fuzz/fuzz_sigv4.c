/*
 * libFuzzer target for the SigV4 canonicalizer (auth/sigv4). The input is
 * lines: method, path, query, then "name:value" headers (at most 70, so the
 * 64-header cap is reached too). Checks, beyond "no crash, no leak, no UB":
 *   - the canonical query string is sorted by name then value, and every
 *     name and value in it is canonically encoded (unreserved bytes and
 *     upper-case %XX only);
 *   - canonicalizing is idempotent on the query (the canonical query of a
 *     canonical query is itself) and blind to the order of its parameters;
 *   - the canonical request ends with the signed header names, sorted and
 *     lower-case, then the payload hash;
 *   - the Authorization value and a presigned query carry one 64-hex
 *     signature, the presigned one last.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "auth/sigv4.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_HDRS 70

static bool is_canonical_part(const char *p, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++) {
        char c = p[i];
        if (c == '%') {
            if (i + 2 >= n || !strchr("0123456789ABCDEF", p[i + 1]) || !p[i + 1] ||
                !strchr("0123456789ABCDEF", p[i + 2]) || !p[i + 2])
                return false;
            i += 2;
        } else if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                     c == '-' || c == '_' || c == '.' || c == '~')) {
            return false;
        }
    }
    return true;
}

/* The third line of a canonical request: the canonical query. */
static struct sv query_line(const struct buf *cr)
{
    const char *p = cr->data, *end = cr->data + cr->len, *nl;
    int line;

    for (line = 0; line < 2; line++) {
        nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl)
            abort();
        p = nl + 1;
    }
    nl = memchr(p, '\n', (size_t)(end - p));
    if (!nl)
        abort();
    return (struct sv){ p, (size_t)(nl - p) };
}

static void check_query(struct sv q)
{
    const char *p = q.p, *end = q.p + q.n;
    const char *prev = NULL;
    size_t prev_n = 0;

    while (p < end) {
        const char *amp = memchr(p, '&', (size_t)(end - p));
        size_t n = amp ? (size_t)(amp - p) : (size_t)(end - p);
        const char *eq = memchr(p, '=', n);
        size_t nn = eq ? (size_t)(eq - p) : n;

        if (!eq || !is_canonical_part(p, nn) || !is_canonical_part(eq + 1, n - nn - 1))
            abort();
        if (prev) {
            /* Sorted by name, then value: compare "name" then "value" as C strings. */
            size_t pn = (size_t)((const char *)memchr(prev, '=', prev_n) - prev);
            int c = memcmp(prev, p, pn < nn ? pn : nn);
            if (!c)
                c = pn < nn ? -1 : pn > nn;
            if (!c) {
                size_t pv = prev_n - pn - 1, v = n - nn - 1;
                c = memcmp(prev + pn + 1, eq + 1, pv < v ? pv : v);
                if (!c)
                    c = pv < v ? -1 : pv > v;
            }
            if (c > 0)
                abort();
        }
        prev = p;
        prev_n = n;
        p += n + (amp ? 1 : 0);
    }
}

/* The canonical query of 'query' alone, as a C string (or NULL if refused). */
static char *canon_query(const char *query)
{
    static const struct sigv4_header host = { "host", "h" };
    struct sigv4_request r = { "GET", "/", query, &host, 1, "UNSIGNED-PAYLOAD" };
    struct buf cr = BUF_INIT(1 << 22);
    char *out = NULL;

    if (sigv4_canonical_request(&r, &cr, NULL) == S3C_OK) {
        struct sv q = query_line(&cr);
        out = strndup(q.p, q.n);
        if (!out)
            abort();
    }
    buf_release(&cr);
    return out;
}

/* 'query' with its &-separated items in reverse order. */
static char *reversed(const char *query)
{
    size_t n = strlen(query), o = 0;
    char *out = malloc(n + 1);
    const char *end = query + n;

    if (!out)
        abort();
    while (end > query) {
        const char *start = end;
        while (start > query && start[-1] != '&')
            start--;
        if (o)
            out[o++] = '&';
        memcpy(out + o, start, (size_t)(end - start));
        o += (size_t)(end - start);
        end = start > query ? start - 1 : query;
    }
    out[o] = '\0';
    return out;
}

/* 'b' ends with 'tag' and 64 lower-case hex digits. */
static bool ends_with_sig(const struct buf *b, const char *tag)
{
    size_t t = strlen(tag);
    const char *s;

    if (b->len < t + 64)
        return false;
    s = b->data + b->len - 64 - t;
    return memcmp(s, tag, t) == 0 && strspn(s + t, "0123456789abcdef") == 64;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const struct sigv4_creds creds = { "AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
                                              "session-token" };
    static const struct sigv4_scope scope = { "20130524T000000Z", "us-east-1", "s3" };
    struct sigv4_header hdrs[MAX_HDRS];
    char *text = malloc(size + 1), *lines[3] = { "", "", "" }, *p, *nl;
    struct buf cr = BUF_INIT(1 << 22), names = BUF_INIT(1 << 20), auth = BUF_INIT(1 << 22);
    struct buf pre = BUF_INIT(1 << 22);
    struct sigv4_request r;
    size_t n_hdrs = 0;
    int i;

    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    p = text;
    for (i = 0; i < 3 && p; i++) {
        lines[i] = p;
        nl = strchr(p, '\n');
        if (nl)
            *nl = '\0';
        p = nl ? nl + 1 : NULL;
    }
    while (p && n_hdrs < MAX_HDRS) {
        char *colon;
        nl = strchr(p, '\n');
        if (nl)
            *nl = '\0';
        colon = strchr(p, ':');
        if (colon) {
            *colon = '\0';
            hdrs[n_hdrs].name = p;
            hdrs[n_hdrs].value = colon + 1;
            n_hdrs++;
        }
        p = nl ? nl + 1 : NULL;
    }
    r = (struct sigv4_request){ lines[0], lines[1], lines[2], hdrs, n_hdrs, "UNSIGNED-PAYLOAD" };

    if (sigv4_canonical_request(&r, &cr, &names) == S3C_OK) {
        char *again, *rev, *q1;
        struct sv ql = query_line(&cr);

        check_query(ql);
        q1 = strndup(ql.p, ql.n);
        again = canon_query(q1);
        if (!again || strcmp(again, q1) != 0)
            abort(); /* idempotent */
        rev = reversed(lines[2]);
        free(again);
        again = canon_query(rev);
        if (!again || strcmp(again, q1) != 0)
            abort(); /* order-blind */
        free(again);
        free(rev);
        free(q1);
        /* ... then "\n" + signed names + "\n" + payload hash. */
        if (cr.len < names.len + 18 ||
            memcmp(cr.data + cr.len - 17, "\nUNSIGNED-PAYLOAD", 17) != 0)
            abort();
        for (size_t j = 0; j < names.len; j++)
            if (names.data[j] >= 'A' && names.data[j] <= 'Z')
                abort();
        if (sigv4_authorization(&r, &creds, &scope, &auth) == S3C_OK && !ends_with_sig(&auth, ", Signature="))
            abort();
        if (sigv4_presign(&r, &creds, &scope, 3600, &pre) == S3C_OK && !ends_with_sig(&pre, "&X-Amz-Signature="))
            abort();
    }
    buf_release(&cr);
    buf_release(&names);
    buf_release(&auth);
    buf_release(&pre);
    free(text);
    return 0;
}
