/* xml: escaping for the XML we write, and an expat walker for what we read. */
#include "emu.h"

#include <expat.h>
#include <stdlib.h>
#include <string.h>

void emu_xml_esc(struct buf *b, const char *s, size_t n)
{
    size_t i, run = 0;

    for (i = 0; i < n; i++) {
        const char *rep = NULL;

        switch (s[i]) {
        case '&': rep = "&amp;"; break;
        case '<': rep = "&lt;"; break;
        case '>': rep = "&gt;"; break;
        case '"': rep = "&quot;"; break;
        case '\r': rep = "&#13;"; break;
        case '\n': rep = "&#10;"; break;
        default: break;
        }
        if (rep) {
            buf_add(b, s + run, i - run);
            buf_adds(b, rep);
            run = i + 1;
        }
    }
    buf_add(b, s + run, n - run);
}

void emu_xml_elem(struct buf *b, const char *name, const char *s)
{
    buf_addf(b, "<%s>", name);
    emu_xml_esc(b, s, strlen(s));
    buf_addf(b, "</%s>", name);
}

struct walk {
    void (*cb)(void *ctx, const char *name, const char *text, int depth);
    void *ctx;
    struct buf text;
    int depth;
    int bad;
};

static void on_start(void *ud, const XML_Char *name, const XML_Char **atts)
{
    struct walk *w = ud;

    w->depth++;
    buf_reset(&w->text);
}

static void on_end(void *ud, const XML_Char *name)
{
    struct walk *w = ud;
    const char *local = strrchr(name, ':'); /* expat without NS: strip any prefix */
    struct sv t = sv_trim(buf_sv(&w->text));
    char *dup = sv_dup(t);

    if (!dup) {
        w->bad = 1;
        return;
    }
    w->cb(w->ctx, local ? local + 1 : name, dup, w->depth);
    free(dup);
    buf_reset(&w->text);
    w->depth--;
}

static void on_text(void *ud, const XML_Char *s, int len)
{
    struct walk *w = ud;

    if (buf_add(&w->text, s, (size_t)len))
        w->bad = 1;
}

int emu_xml_walk(const char *body, size_t n,
                 void (*cb)(void *ctx, const char *name, const char *text, int depth), void *ctx)
{
    struct walk w = { cb, ctx, BUF_INIT(1 << 20), 0, 0 };
    XML_Parser p = XML_ParserCreate("UTF-8");
    int rc = -1;

    if (!p)
        goto out;
    XML_SetUserData(p, &w);
    XML_SetElementHandler(p, on_start, on_end);
    XML_SetCharacterDataHandler(p, on_text);
    if (XML_Parse(p, body, (int)n, 1) == XML_STATUS_OK && !w.bad)
        rc = 0;
out:
    if (p)
        XML_ParserFree(p);
    buf_release(&w.text);
    return rc;
}
