#include "plan/ranges.h"

#include <string.h>

void ranges_alphabet_add(struct ranges_alphabet *a, struct sv key, size_t from)
{
    size_t i;

    for (i = from; i < key.n; i++)
        a->has[(unsigned char)key.p[i]] = true;
}

/* Unsigned byte order of 'p' (n bytes) against the C string 'hi'. */
static int cmp_hi(const char *p, size_t n, const char *hi)
{
    size_t hn = strlen(hi);
    int c = memcmp(p, hi, n < hn ? n : hn);

    return c ? c : n < hn ? -1 : n > hn ? 1 : 0;
}

size_t ranges_split(const struct ranges_alphabet *a, struct sv first, struct sv last, const char *hi,
                    size_t from, size_t max, struct buf *out)
{
    unsigned char cands[256];
    size_t m = 0, d, dmax, n_out = 0;

    while (m < first.n && m < last.n && first.p[m] == last.p[m])
        m++;
    if (last.n <= from || m < from)
        return 0;
    /* The page's keys differ at m: its block is last[0..m). Cut at the blocks of
     * one character less, then of two less... (at m itself when m is the prefix). */
    dmax = m > from ? m - 1 : from;
    if (dmax >= last.n)
        dmax = last.n - 1;
    for (d = dmax + 1; d-- > from && n_out < max;) {
        unsigned char after = (unsigned char)last.p[d];
        size_t n = 0, i, want;
        int c;

        for (c = after + 1; c < 256; c++)
            if (a->has[c])
                cands[n++] = (unsigned char)c;
        want = n < RANGES_PER_DEPTH_MAX ? n : RANGES_PER_DEPTH_MAX;
        for (i = 0; i < want && n_out < max; i++) {
            unsigned char y = cands[i * n / want];
            size_t at = out->len;

            /* Points grow as the prefix shortens: the first one past hi ends the cut. */
            if (buf_add(out, last.p, d) || buf_addc(out, (char)y)) {
                out->len = at;
                return n_out;
            }
            if (hi && cmp_hi(out->data + at, d + 1, hi) >= 0) {
                out->len = at;
                goto narrow;
            }
            if (buf_addc(out, '\0')) {
                out->len = at;
                return n_out;
            }
            n_out++;
        }
    }
narrow:
    if (n_out || m >= last.n)
        return n_out;
    /* The range is narrower than a block of the page's shape: cut at the page's
     * own depth, each piece as many characters of the alphabet wide as the page. */
    {
        unsigned char lo = m < first.n ? (unsigned char)first.p[m] : 0, top = (unsigned char)last.p[m];
        size_t n = 0, span = 0, i;
        int c;

        for (c = lo; c <= top; c++)
            span += a->has[c];
        for (c = top + 1; c < 256; c++)
            if (a->has[c])
                cands[n++] = (unsigned char)c;
        if (!span)
            span = 1;
        for (i = span; i < n && n_out < max; i += span) {
            size_t at = out->len;

            if (buf_add(out, last.p, m) || buf_addc(out, (char)cands[i]) ||
                (hi && cmp_hi(out->data + at, m + 1, hi) >= 0) || buf_addc(out, '\0')) {
                out->len = at;
                break;
            }
            n_out++;
        }
    }
    return n_out;
}
