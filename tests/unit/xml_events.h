/*
 * xml_events: a sink for s3/xml's tokenizer events (struct xml_sink) that
 * writes them down as text, one line each: "<name", ">" (an end), "=text"
 * (the text between two tags, merged). Shared by the unit tests and the fuzz
 * target, which compare the scanner's events with expat's through it.
 */
#ifndef S3C_TESTS_XML_EVENTS_H
#define S3C_TESTS_XML_EVENTS_H

#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"
#include "s3/xml_impl.h"

struct xml_events {
    struct buf log;     /* the lines so far */
    struct buf text;    /* text not yet written down */
};
#define XML_EVENTS_INIT { BUF_INIT((size_t)1 << 26), BUF_INIT((size_t)1 << 26) }

static inline void xml_events_flush(struct xml_events *ev)
{
    if (!ev->text.len)
        return;
    buf_addc(&ev->log, '=');
    buf_addsv(&ev->log, buf_sv(&ev->text));
    buf_addc(&ev->log, '\n');
    buf_reset(&ev->text);
}

static inline bool xml_events_start(void *ud, const char *name, size_t n)
{
    struct xml_events *ev = ud;

    xml_events_flush(ev);
    buf_addc(&ev->log, '<');
    buf_add(&ev->log, name, n);
    buf_addc(&ev->log, '\n');
    return true;
}

static inline bool xml_events_end(void *ud)
{
    struct xml_events *ev = ud;

    xml_events_flush(ev);
    buf_adds(&ev->log, ">\n");
    return true;
}

static inline bool xml_events_text(void *ud, const char *p, size_t n)
{
    buf_add(&((struct xml_events *)ud)->text, p, n);
    return true;
}

static inline struct xml_sink xml_events_sink(struct xml_events *ev)
{
    return (struct xml_sink){ xml_events_start, xml_events_end, xml_events_text, ev };
}

static inline void xml_events_release(struct xml_events *ev)
{
    buf_release(&ev->log);
    buf_release(&ev->text);
}

#endif
