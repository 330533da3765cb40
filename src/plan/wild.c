/*
 * One matcher serves both languages: s5cmd wildcards (escapes, no sets) and
 * Python fnmatch (sets, no escapes). Every token other than '*' consumes
 * exactly one character, deterministically, so the classic two-pointer walk
 * is exact: remember the last '*' and, on a mismatch, let it swallow one
 * more character. Earlier stars never need revisiting, because whatever the
 * text between two stars matched earliest is the best choice for the rest.
 */
#include "plan/wild.h"

#include <stdint.h>
#include <string.h>

#include "base/str.h"

#define F_ESC 1u   /* \* \? \\ are literals (s5cmd language) */
#define F_SET 2u   /* [seq] [!seq] (fnmatch language) */

/*
 * Decode one character at p[0..n), n >= 1; return its length in bytes.
 * A byte that does not start a valid, shortest-form UTF-8 sequence of a
 * scalar value is one character of its own, 0xDC00 | byte (as Python's
 * surrogateescape decodes it), so any byte string decodes.
 */
static size_t utf8_next(const unsigned char *p, size_t n, uint32_t *cp)
{
    size_t len = str_utf8_next(p, n, cp);

    if (len)
        return len;
    *cp = 0xDC00 | p[0];
    return 1;
}

/* The subject: up to three pieces read as one string. */
struct subj {
    struct sv part[3];
    size_t end[3];  /* cumulative end offset of each piece */
};

static void subj_init(struct subj *s, struct sv a, struct sv b, struct sv c)
{
    s->part[0] = a, s->part[1] = b, s->part[2] = c;
    s->end[0] = a.n;
    s->end[1] = a.n + b.n;
    s->end[2] = a.n + b.n + c.n;
}

/* Decode the character at global offset 'pos' (< s->end[2]). */
static size_t subj_next(const struct subj *s, size_t pos, uint32_t *cp)
{
    int i = 0;

    while (pos >= s->end[i])
        i++;
    return utf8_next((const unsigned char *)s->part[i].p + (pos - (s->end[i] - s->part[i].n)),
                     s->end[i] - pos, cp);
}

enum tok_kind { TOK_STAR, TOK_ANY, TOK_LIT, TOK_SET };

struct tok {
    enum tok_kind kind;
    size_t len;     /* bytes of pattern the token spans */
    uint32_t cp;    /* TOK_LIT: the character */
    size_t set_end; /* TOK_SET: offset of the closing ']' */
};

/*
 * For a '[' at p[i - 1]: the offset of the ']' that closes the set, or 0 if
 * none does (then the '[' is a literal). As Python's fnmatch scans: skip a
 * leading '!', then a leading ']' (a member), then find the next ']'.
 * Bytes are enough here: '!' and ']' never occur inside a UTF-8 sequence.
 */
static size_t set_close(const unsigned char *p, size_t n, size_t i)
{
    size_t j = i;

    if (j < n && p[j] == '!')
        j++;
    if (j < n && p[j] == ']')
        j++;
    while (j < n && p[j] != ']')
        j++;
    return j < n ? j : 0;
}

static void tok_at(const unsigned char *p, size_t n, size_t i, unsigned flags, struct tok *t)
{
    size_t j;

    switch (p[i]) {
    case '*':
        for (j = i; j < n && p[j] == '*'; j++)
            ;
        t->kind = TOK_STAR, t->len = j - i;
        return;
    case '?':
        t->kind = TOK_ANY, t->len = 1;
        return;
    case '\\':
        if ((flags & F_ESC) && i + 1 < n && (p[i + 1] == '*' || p[i + 1] == '?' || p[i + 1] == '\\')) {
            t->kind = TOK_LIT, t->len = 2, t->cp = p[i + 1];
            return;
        }
        break;
    case '[':
        if ((flags & F_SET) && (j = set_close(p, n, i + 1)) != 0) {
            t->kind = TOK_SET, t->len = j + 1 - i, t->set_end = j;
            return;
        }
        break;
    }
    t->kind = TOK_LIT;
    t->len = utf8_next(p + i, n - i, &t->cp);
}

/*
 * Does character 'c' belong to the set p[i..end), i just past the '['?
 * Items are single characters or ranges "lo-hi": a '-' makes a range when a
 * character precedes it in the same item and another follows before the
 * ']'. So "[-a]", "[a-]" and the '-' after a range ("[a-c-e]") are
 * literals, and "[a-c--e]" is a-c plus '-'..'e', as in Python.
 *
 * Python drops a reversed range ("z-a") from the set text BEFORE it looks
 * for the '!' of a negation, so in a set not already negated, a '!' that
 * becomes first once reversed ranges are gone negates ("[z-a!b]" is
 * "[!b]"), and if that '!' was the low end of a range, the range breaks
 * into two literals ("[z-a!-c]" is "[!-c]"). Kept for exactness.
 */
static bool set_has(const unsigned char *p, size_t i, size_t end, uint32_t c)
{
    bool neg = false, in = false, first = true;
    uint32_t lo, hi;

    if (i < end && p[i] == '!') {
        neg = true, first = false;
        i++;
    }
    while (i < end) {
        i += utf8_next(p + i, end - i, &lo);
        if (i + 1 < end && p[i] == '-') {
            i += 1 + utf8_next(p + i + 1, end - i - 1, &hi);
            if (lo > hi)
                continue;                       /* dropped; 'first' stays */
            if (first && lo == '!')
                neg = true, in = in || c == '-' || c == hi;
            else
                in = in || (lo <= c && c <= hi);
        } else if (first && lo == '!') {
            neg = true;
        } else {
            in = in || lo == c;
        }
        first = false;
    }
    return in != neg;
}

static bool match(struct sv pat, const struct subj *s, unsigned flags)
{
    const unsigned char *p = (const unsigned char *)pat.p;
    size_t pn = pat.n, sn = s->end[2];
    size_t pi = 0, si = 0, star_pi = 0, star_si = 0;
    bool star = false;
    struct tok t;
    uint32_t c;
    size_t clen;

    for (;;) {
        if (pi < pn) {
            tok_at(p, pn, pi, flags, &t);
            if (t.kind == TOK_STAR) {
                pi += t.len;
                if (pi == pn)
                    return true;    /* a trailing star takes the rest */
                star = true, star_pi = pi, star_si = si;
                continue;
            }
            if (si < sn) {
                clen = subj_next(s, si, &c);
                if (t.kind == TOK_ANY || (t.kind == TOK_LIT && t.cp == c) ||
                    (t.kind == TOK_SET && set_has(p, pi + 1, t.set_end, c))) {
                    pi += t.len, si += clen;
                    continue;
                }
            }
        } else if (si == sn) {
            return true;
        }
        /* Mismatch: the last star takes one more character, or we fail. */
        if (!star || star_si >= sn)
            return false;
        star_si += subj_next(s, star_si, &c);
        pi = star_pi, si = star_si;
    }
}

bool wild_has(const char *s)
{
    return s[wild_prefix_len(s)] != '\0';
}

size_t wild_prefix_len(const char *pattern)
{
    size_t i = 0;

    for (;;) {
        switch (pattern[i]) {
        case '\0':
        case '*':
        case '?':
            return i;
        case '\\':
            if (pattern[i + 1] == '*' || pattern[i + 1] == '?' || pattern[i + 1] == '\\')
                i++;
            break;
        }
        i++;
    }
}

/* Next literal byte of a prefix at pattern[*i], escapes resolved. */
static char prefix_byte(const char *pattern, size_t *i)
{
    char c = pattern[*i];

    if (c == '\\' && (pattern[*i + 1] == '*' || pattern[*i + 1] == '?' || pattern[*i + 1] == '\\'))
        c = pattern[++*i];
    ++*i;
    return c;
}

enum s3c_err wild_prefix(const char *pattern, struct buf *out)
{
    size_t n = wild_prefix_len(pattern), i = 0;
    enum s3c_err rc = S3C_OK;

    while (i < n && !rc)
        rc = buf_addc(out, prefix_byte(pattern, &i));
    return rc;
}

enum s3c_err wild_prefix_dir(const char *pattern, struct buf *out)
{
    size_t n = wild_prefix_len(pattern), i = 0, base = out->len, keep = out->len;
    enum s3c_err rc = S3C_OK;
    char c;

    while (i < n && !rc) {
        c = prefix_byte(pattern, &i);
        rc = buf_addc(out, c);
        if (c == '/')
            keep = out->len;
    }
    if (rc)
        keep = base;
    out->len = keep;    /* drop what follows the last '/' */
    if (out->data)
        out->data[keep] = '\0';
    return rc;
}

bool wild_match(const char *pattern, struct sv s)
{
    struct subj subj;

    subj_init(&subj, s, SV_NULL, SV_NULL);
    return match(sv_from(pattern), &subj, F_ESC);
}

void wild_unescape(char *s)
{
    size_t i = 0, o = 0;

    while (s[i])
        s[o++] = prefix_byte(s, &i);
    s[o] = '\0';
}

size_t wild_prefix_dir_len(const char *pattern)
{
    size_t n = wild_prefix_len(pattern);

    while (n > 0 && pattern[n - 1] != '/')
        n--;
    return n;
}

/* The next '/'-separated component of *s into *c (false at the end); a trailing '/' ends it. */
static bool next_comp(struct sv *s, struct sv *c)
{
    const char *slash;

    if (!s->p || !s->n)
        return false;
    slash = memchr(s->p, '/', s->n);
    c->p = s->p;
    c->n = slash ? (size_t)(slash - s->p) : s->n;
    s->p += c->n + (slash ? 1 : 0);
    s->n -= c->n + (slash ? 1 : 0);
    return true;
}

/* Whether the first components of 'path' match the pattern's, one to one; 'whole': the
 * pattern's components all met (else: as many as 'path' has). */
static bool comps_match(const char *pattern, struct sv path, bool whole)
{
    struct sv pat = sv_from(pattern), pc, sc;

    while (next_comp(&pat, &pc)) {
        struct subj subj;

        if (!next_comp(&path, &sc))
            return !whole;
        subj_init(&subj, sc, SV_NULL, SV_NULL);
        if (!match(pc, &subj, F_ESC))
            return false;
    }
    return true;
}

bool wild_path_match(const char *pattern, struct sv path)
{
    return comps_match(pattern, path, true);
}

bool wild_path_enter(const char *pattern, struct sv dir)
{
    return comps_match(pattern, dir, false);
}

struct sv wild_relative(const char *pattern, struct sv key)
{
    size_t n = wild_prefix_len(pattern), i = 0, k = 0, cut = 0;
    char c;

    while (i < n) {
        c = prefix_byte(pattern, &i);
        if (k >= key.n || key.p[k] != c)
            return key;     /* not under the prefix: s5cmd keeps the key */
        k++;
        if (c == '/')
            cut = k;
    }
    return (struct sv){ key.p + cut, key.n - cut };
}

struct sv wild_base(struct sv key)
{
    size_t end = key.n, start;

    while (end > 1 && key.p[end - 1] == '/')
        end--;
    start = end;
    while (start > 0 && key.p[start - 1] != '/')
        start--;
    if (start == end)   /* "/" or "": nothing better to offer */
        return key;
    return (struct sv){ key.p + start, end - start };
}

bool wild_fnmatch(struct sv pattern, struct sv s)
{
    struct subj subj;

    subj_init(&subj, s, SV_NULL, SV_NULL);
    return match(pattern, &subj, F_SET);
}

bool wild_fnmatch3(struct sv pattern, struct sv a, struct sv b, struct sv c)
{
    struct subj subj;

    subj_init(&subj, a, b, c);
    return match(pattern, &subj, F_SET);
}
