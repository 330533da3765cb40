/*
 * xml_scan: a tokenizer for the plain XML that S3 replies are written in,
 * tried before expat on whole bodies. A no-op sync of a million keys reads
 * about 400 MB of listings, and expat's general machinery (encodings,
 * DTDs, namespaces, its own buffers) was half of the client's CPU.
 *
 * It accepts a strict subset of XML 1.0 and declines the rest, so the
 * caller parses those bodies with expat from the start. What it accepts
 * (and checks as a well-formedness checker must):
 *   - white space, an optional <?xml version="1.0" ...?> declaration of
 *     one of a few exact spellings (UTF-8 only), white space, one element,
 *     white space;
 *   - start tags <Name>, <Name/>, <Name attr="v" ...>, names of ASCII
 *     letters, digits, '_', '.', '-' (':' in attribute names only), at most
 *     SCAN_ATTRS_MAX attributes, no repeat; end tags </Name> that match;
 *   - text of valid UTF-8 XML characters, with the five predefined entities
 *     and character references to valid XML characters.
 * It declines: comments, CDATA, processing instructions, a DOCTYPE, other
 * entities, '\r' in text (expat rewrites line ends), prefixed element
 * names, a byte-order mark, nesting past SCAN_DEPTH_MAX. Declining is always
 * safe; accepting what expat would not, or telling the events differently,
 * is a bug (tests/fuzz/fuzz_xml.c compares the two on every input).
 *
 * No recursion, no allocation: the open elements are a fixed stack.
 */
#include <stdint.h>
#include <string.h>

#include "s3/xml_impl.h"

#define SCAN_DEPTH_MAX 64
#define SCAN_ATTRS_MAX 8

/* What a byte of text is: an ordinary character, or something to look at. */
enum { T_OK = 0, T_LT, T_AMP, T_GT, T_BAD, T_HI };

static const unsigned char text_class[256] = {
    [0x00 ... 0x08] = T_BAD, [0x0b ... 0x0c] = T_BAD, [0x0d ... 0x1f] = T_BAD,
    ['<'] = T_LT, ['&'] = T_AMP, ['>'] = T_GT, [0x80 ... 0xff] = T_HI,
};

/* Name characters: 1 may start a name, 2 may follow, 3 both. */
static const unsigned char name_class[256] = {
    ['A' ... 'Z'] = 3, ['a' ... 'z'] = 3, ['_'] = 3, ['0' ... '9'] = 2, ['.'] = 2, ['-'] = 2,
};

struct scan {
    const unsigned char *p, *end;
    const struct xml_sink *k;
};

static bool is_ws(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static void skip_ws(struct scan *s)
{
    while (s->p < s->end && is_ws(*s->p))
        s->p++;
}

/*
 * The length of the valid UTF-8 sequence at p (2..4 bytes), 0 if invalid,
 * overlong, a surrogate, past U+10FFFF, or U+FFFE / U+FFFF (not XML
 * characters).
 */
static size_t utf8_len(const unsigned char *p, const unsigned char *end)
{
    size_t left = (size_t)(end - p);
    unsigned char c = p[0];

    if (c >= 0xc2 && c <= 0xdf)
        return left >= 2 && (p[1] & 0xc0) == 0x80 ? 2 : 0;
    if (c >= 0xe0 && c <= 0xef) {
        if (left < 3 || (p[1] & 0xc0) != 0x80 || (p[2] & 0xc0) != 0x80)
            return 0;
        if ((c == 0xe0 && p[1] < 0xa0) || (c == 0xed && p[1] > 0x9f))
            return 0;
        if (c == 0xef && p[1] == 0xbf && p[2] >= 0xbe)
            return 0;
        return 3;
    }
    if (c >= 0xf0 && c <= 0xf4) {
        if (left < 4 || (p[1] & 0xc0) != 0x80 || (p[2] & 0xc0) != 0x80 || (p[3] & 0xc0) != 0x80)
            return 0;
        if ((c == 0xf0 && p[1] < 0x90) || (c == 0xf4 && p[1] > 0x8f))
            return 0;
        return 4;
    }
    return 0;
}

/* A name at s->p: its length (0: none, or a character outside the subset). */
static size_t name_len(const struct scan *s, bool colon)
{
    const unsigned char *q = s->p;

    if (q >= s->end || !(name_class[*q] & 1))
        return 0;
    for (q++; q < s->end && ((name_class[*q] & 2) || (colon && *q == ':')); q++)
        ;
    return (size_t)(q - s->p);
}

static bool put_utf8(struct scan *s, uint32_t c)
{
    char u[4];
    size_t n;

    if (c < 0x80) {
        u[0] = (char)c;
        n = 1;
    } else if (c < 0x800) {
        u[0] = (char)(0xc0 | (c >> 6));
        u[1] = (char)(0x80 | (c & 0x3f));
        n = 2;
    } else if (c < 0x10000) {
        u[0] = (char)(0xe0 | (c >> 12));
        u[1] = (char)(0x80 | ((c >> 6) & 0x3f));
        u[2] = (char)(0x80 | (c & 0x3f));
        n = 3;
    } else {
        u[0] = (char)(0xf0 | (c >> 18));
        u[1] = (char)(0x80 | ((c >> 12) & 0x3f));
        u[2] = (char)(0x80 | ((c >> 6) & 0x3f));
        u[3] = (char)(0x80 | (c & 0x3f));
        n = 4;
    }
    return s->k->text(s->k->ud, u, n);
}

/* A reference at s->p ('&'): its text to the sink. False: declined. */
static bool reference(struct scan *s)
{
    const unsigned char *q = s->p + 1;
    size_t left = (size_t)(s->end - q), digits = 0, n = 0;
    uint32_t c = 0;
    char ch = 0;

    /* The five predefined entities, by their first letter (ETags hold two &quot; each). */
    if (left && *q != '#') {
        switch (*q) {
        case 'q': n = left >= 5 && !memcmp(q, "quot;", 5) ? 5 : 0, ch = '"'; break;
        case 'a': n = left >= 4 && !memcmp(q, "amp;", 4) ? 4 : left >= 5 && !memcmp(q, "apos;", 5) ? 5 : 0;
                  ch = n == 4 ? '&' : '\''; break;
        case 'l': n = left >= 3 && !memcmp(q, "lt;", 3) ? 3 : 0, ch = '<'; break;
        case 'g': n = left >= 3 && !memcmp(q, "gt;", 3) ? 3 : 0, ch = '>'; break;
        default: break;
        }
        if (!n)
            return false;
        s->p = q + n;
        return s->k->text(s->k->ud, &ch, 1);
    }
    if (left < 3)
        return false;
    q++;
    if (*q == 'x') {
        for (q++; q < s->end && digits <= 6; q++, digits++) {
            unsigned char d = *q;
            int v = d >= '0' && d <= '9' ? d - '0' : d >= 'a' && d <= 'f' ? d - 'a' + 10
                  : d >= 'A' && d <= 'F' ? d - 'A' + 10 : -1;
            if (v < 0)
                break;
            c = c * 16 + (uint32_t)v;
        }
    } else {
        for (; q < s->end && digits <= 7 && *q >= '0' && *q <= '9'; q++, digits++)
            c = c * 10 + (uint32_t)(*q - '0');
    }
    if (!digits || digits > 7 || q >= s->end || *q != ';')
        return false;
    /* XML's Char: #x9 | #xA | #xD | [#x20-#xD7FF] | [#xE000-#xFFFD] | [#x10000-#x10FFFF] */
    if (!(c == 0x9 || c == 0xa || c == 0xd || (c >= 0x20 && c <= 0xd7ff) || (c >= 0xe000 && c <= 0xfffd) ||
          (c >= 0x10000 && c <= 0x10ffff)))
        return false;
    s->p = q + 1;
    return put_utf8(s, c);
}

/*
 * Character data from s->p up to the next '<' (left at it). Runs of plain
 * characters go to the sink as they stand in the body.
 */
static bool text(struct scan *s)
{
    const unsigned char *run = s->p, *q = s->p;

    for (;;) {
        while (q < s->end && text_class[*q] == T_OK)
            q++;
        if (q >= s->end)
            return false; /* the document ends inside an element */
        switch (text_class[*q]) {
        case T_LT:
            s->p = q;
            return q == run || s->k->text(s->k->ud, (const char *)run, (size_t)(q - run));
        case T_GT:
            /* "]]>" may not stand in text. */
            if (q - s->p >= 2 && q[-1] == ']' && q[-2] == ']')
                return false;
            q++;
            break;
        case T_HI: {
            size_t n = utf8_len(q, s->end);

            if (!n)
                return false;
            q += n;
            break;
        }
        case T_AMP:
            if (q > run && !s->k->text(s->k->ud, (const char *)run, (size_t)(q - run)))
                return false;
            s->p = q;
            if (!reference(s))
                return false;
            run = q = s->p;
            break;
        default: /* control characters, and '\r' (expat turns line ends into '\n') */
            return false;
        }
    }
}

/* An attribute value at s->p (a quote): plain characters only. */
static bool attr_value(struct scan *s)
{
    unsigned char quote = *s->p;
    const unsigned char *q = s->p + 1;

    if (quote != '"' && quote != '\'')
        return false;
    for (; q < s->end && *q != quote; ) {
        unsigned char cl = text_class[*q];

        if (cl == T_HI) {
            size_t n = utf8_len(q, s->end);

            if (!n)
                return false;
            q += n;
        } else if (cl == T_OK || cl == T_GT) {
            q++;
        } else {
            return false; /* '<', '&', control characters, '\r' */
        }
    }
    if (q >= s->end)
        return false;
    s->p = q + 1;
    return true;
}

/* Attributes up to '>' or '/>' (s->p left there). Checked, not kept. */
static bool attributes(struct scan *s)
{
    const unsigned char *name[SCAN_ATTRS_MAX];
    size_t len[SCAN_ATTRS_MAX], n = 0, i, nl;

    for (;;) {
        const unsigned char *before = s->p;

        skip_ws(s);
        if (s->p >= s->end)
            return false;
        if (*s->p == '>' || *s->p == '/')
            return true;
        if (s->p == before || n == SCAN_ATTRS_MAX || !(nl = name_len(s, true)))
            return false; /* an attribute must follow white space */
        for (i = 0; i < n; i++)
            if (len[i] == nl && memcmp(name[i], s->p, nl) == 0)
                return false; /* a repeated attribute */
        name[n] = s->p;
        len[n++] = nl;
        s->p += nl;
        skip_ws(s);
        if (s->p >= s->end || *s->p != '=')
            return false;
        s->p++;
        skip_ws(s);
        if (s->p >= s->end || !attr_value(s))
            return false;
    }
}

static bool prefix_is(const struct scan *s, const char *lit, size_t n)
{
    return (size_t)(s->end - s->p) >= n && memcmp(s->p, lit, n) == 0;
}

/* The XML declaration, if any, in one of the spellings stores send. */
static bool declaration(struct scan *s)
{
    static const char *const decls[] = {
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>",
        "<?xml version=\"1.0\" encoding=\"utf-8\"?>",
        "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>",
        "<?xml version=\"1.0\"?>",
        "<?xml version='1.0' encoding='UTF-8'?>",
        "<?xml version='1.0' encoding='utf-8'?>",
    };
    size_t i;

    if (!prefix_is(s, "<?", 2))
        return true;
    for (i = 0; i < sizeof(decls) / sizeof(decls[0]); i++) {
        size_t n = strlen(decls[i]);

        if (prefix_is(s, decls[i], n)) {
            s->p += n;
            return true;
        }
    }
    return false;
}

bool xml_scan(struct sv body, const struct xml_sink *k)
{
    struct scan s = { (const unsigned char *)body.p, (const unsigned char *)body.p + body.n, k };
    const unsigned char *open[SCAN_DEPTH_MAX];
    size_t open_len[SCAN_DEPTH_MAX], depth = 0, n;

    skip_ws(&s);
    if (!declaration(&s))
        return false;
    skip_ws(&s);
    if (s.p >= s.end || *s.p != '<')
        return false;
    for (;;) {
        /* At a '<'. */
        s.p++;
        if (s.p < s.end && *s.p == '/') {
            /* "</" the open element's name '>': '>' is no name character, so the names are equal. */
            s.p++;
            if (!depth)
                return false;
            n = open_len[depth - 1];
            if ((size_t)(s.end - s.p) <= n || memcmp(s.p, open[depth - 1], n) != 0 || s.p[n] != '>')
                return false;
            s.p += n + 1;
            depth--;
            if (!k->end(k->ud))
                return false;
        } else {
            n = name_len(&s, false);
            if (!n || depth == SCAN_DEPTH_MAX)
                return false;
            if (!k->start(k->ud, (const char *)s.p, n))
                return false;
            open[depth] = s.p;
            open_len[depth++] = n;
            s.p += n;
            if (s.p < s.end && *s.p != '>' && *s.p != '/' && !attributes(&s))
                return false;
            if (prefix_is(&s, "/>", 2)) {
                s.p += 2;
                depth--;
                if (!k->end(k->ud))
                    return false;
            } else if (s.p < s.end && *s.p == '>') {
                s.p++;
            } else {
                return false;
            }
        }
        if (!depth)
            break;
        /* Text, then the next tag. */
        if (s.p < s.end && *s.p != '<' && !text(&s))
            return false;
        if (s.p >= s.end || s.end - s.p < 2 || s.p[1] == '!' || s.p[1] == '?')
            return false;
    }
    skip_ws(&s);
    return s.p == s.end;
}
