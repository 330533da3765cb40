/*
 * libFuzzer target for s3/xml. Every input is parsed as each kind of reply,
 * whole and fed in small chunks (the two must agree), as an error body, and
 * classified; then used as a key for the request escaper, whose output must
 * read back through expat as the same bytes. Seeds: tests/fixtures/xml.
 *
 * Whole bodies go through xml_scan (the tokenizer without expat) first and
 * chunked ones through expat only, so the agreement of the two is the
 * differential test of the scanner: every field of a listing is compared.
 * Below that, the scanner's events are compared with expat's on the same
 * input: whatever the scanner accepts, expat must accept, with the same
 * start tags, ends and text.
 */
#include <expat.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "s3/xml.h"
#include "s3/xml_impl.h"
#include "../unit/xml_events.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Any result struct fits here: each is at most this big. */
union any_result {
    struct s3_error error;
    struct s3_list_buckets buckets;
    struct s3_list_objects objects;
    struct s3_list_versions versions;
    struct s3_initiate_multipart initiate;
    struct s3_complete_multipart complete;
    struct s3_copy_result copy;
    struct s3_list_parts parts;
    struct s3_list_uploads uploads;
    struct s3_delete_result deleted;
    struct s3_location location;
    struct s3_create_session session;
    struct s3_tagging tagging;
    struct s3_versioning versioning;
};

static void release(enum s3_reply kind, union any_result *r)
{
    switch (kind) {
    case S3_REPLY_ERROR: s3_error_release(&r->error); break;
    case S3_REPLY_LIST_BUCKETS: s3_list_buckets_release(&r->buckets); break;
    case S3_REPLY_LIST_OBJECTS: s3_list_objects_release(&r->objects); break;
    case S3_REPLY_LIST_VERSIONS: s3_list_versions_release(&r->versions); break;
    case S3_REPLY_INITIATE_MULTIPART: s3_initiate_multipart_release(&r->initiate); break;
    case S3_REPLY_COMPLETE_MULTIPART: s3_complete_multipart_release(&r->complete); break;
    case S3_REPLY_COPY_RESULT: s3_copy_result_release(&r->copy); break;
    case S3_REPLY_LIST_PARTS: s3_list_parts_release(&r->parts); break;
    case S3_REPLY_LIST_UPLOADS: s3_list_uploads_release(&r->uploads); break;
    case S3_REPLY_DELETE_RESULT: s3_delete_result_release(&r->deleted); break;
    case S3_REPLY_LOCATION: s3_location_release(&r->location); break;
    case S3_REPLY_CREATE_SESSION: s3_create_session_release(&r->session); break;
    case S3_REPLY_TAGGING: s3_tagging_release(&r->tagging); break;
    case S3_REPLY_VERSIONING: s3_versioning_release(&r->versioning); break;
    }
}

/* Touch every string so ASan sees a dangling or unterminated one. */
static size_t walk_objects(const struct s3_list_objects *r)
{
    size_t i, n = strlen(r->name) + strlen(r->prefix) + strlen(r->next_marker);

    for (i = 0; i < r->n_objects; i++)
        n += strlen(r->objects[i].key) + strlen(r->objects[i].etag) +
             strlen(r->objects[i].last_modified) + strlen(r->objects[i].owner_id);
    for (i = 0; i < r->n_prefixes; i++)
        n += strlen(r->prefixes[i]);
    return n + strlen(s3_list_objects_next_marker(r));
}

static bool same_str(const char *a, const char *b)
{
    return strcmp(a, b) == 0;
}

/* Every field of two listings, as the fast path and expat read them. */
static bool same_objects(const struct s3_list_objects *a, const struct s3_list_objects *b)
{
    size_t i;

    if (a->n_objects != b->n_objects || a->n_prefixes != b->n_prefixes || a->is_truncated != b->is_truncated ||
        a->max_keys != b->max_keys || a->key_count != b->key_count || !same_str(a->name, b->name) ||
        !same_str(a->prefix, b->prefix) || !same_str(a->delimiter, b->delimiter) ||
        !same_str(a->encoding_type, b->encoding_type) || !same_str(a->continuation_token, b->continuation_token) ||
        !same_str(a->next_continuation_token, b->next_continuation_token) ||
        !same_str(a->start_after, b->start_after) || !same_str(a->marker, b->marker) ||
        !same_str(a->next_marker, b->next_marker))
        return false;
    for (i = 0; i < a->n_objects; i++) {
        const struct s3_object *x = &a->objects[i], *y = &b->objects[i];

        /* A NUL key's mark is "" then its encoded form (s3/xml.h). */
        if (!same_str(x->key, y->key) || (!x->key[0] && !same_str(x->key + 1, y->key + 1)) ||
            !same_str(x->last_modified, y->last_modified) || x->mtime_epoch != y->mtime_epoch ||
            !same_str(x->etag, y->etag) || x->size != y->size || !same_str(x->storage_class, y->storage_class) ||
            !same_str(x->owner_id, y->owner_id) || !same_str(x->owner_name, y->owner_name) ||
            !same_str(x->checksum_algorithm, y->checksum_algorithm) ||
            !same_str(x->checksum_type, y->checksum_type))
            return false;
    }
    for (i = 0; i < a->n_prefixes; i++)
        if (!same_str(a->prefixes[i], b->prefixes[i]) ||
            (!a->prefixes[i][0] && !same_str(a->prefixes[i] + 1, b->prefixes[i] + 1)))
            return false;
    return true;
}

static bool same_versions(const struct s3_list_versions *a, const struct s3_list_versions *b)
{
    size_t i;

    if (a->n_versions != b->n_versions || a->n_prefixes != b->n_prefixes || a->is_truncated != b->is_truncated ||
        a->max_keys != b->max_keys || !same_str(a->name, b->name) || !same_str(a->prefix, b->prefix) ||
        !same_str(a->key_marker, b->key_marker) || !same_str(a->version_id_marker, b->version_id_marker) ||
        !same_str(a->next_key_marker, b->next_key_marker) ||
        !same_str(a->next_version_id_marker, b->next_version_id_marker))
        return false;
    for (i = 0; i < a->n_versions; i++) {
        const struct s3_version *x = &a->versions[i], *y = &b->versions[i];

        if (x->is_delete_marker != y->is_delete_marker || x->is_latest != y->is_latest ||
            !same_str(x->key, y->key) || !same_str(x->version_id, y->version_id) ||
            !same_str(x->last_modified, y->last_modified) || x->mtime_epoch != y->mtime_epoch ||
            !same_str(x->etag, y->etag) || x->size != y->size || !same_str(x->storage_class, y->storage_class))
            return false;
    }
    for (i = 0; i < a->n_prefixes; i++)
        if (!same_str(a->prefixes[i], b->prefixes[i]))
            return false;
    return true;
}

/* ---- the scanner's events against expat's ---- */

/* The events of one parse (tests/unit/xml_events.h), and expat's parser when it is expat's. */
struct events {
    struct xml_events ev;
    bool refused;
    XML_Parser parser;
};

static void XMLCALL ex_start(void *ud, const XML_Char *name, const XML_Char **attrs)
{
    (void)attrs;
    xml_events_start(&((struct events *)ud)->ev, name, strlen(name));
}

static void XMLCALL ex_end(void *ud, const XML_Char *name)
{
    (void)name;
    xml_events_end(&((struct events *)ud)->ev);
}

static void XMLCALL ex_text(void *ud, const XML_Char *s, int len)
{
    xml_events_text(&((struct events *)ud)->ev, s, (size_t)len);
}

static void XMLCALL ex_doctype(void *ud, const XML_Char *name, const XML_Char *sysid, const XML_Char *pubid,
                               int has_internal_subset)
{
    struct events *ev = ud;

    (void)name, (void)sysid, (void)pubid, (void)has_internal_subset;
    ev->refused = true;
    XML_StopParser(ev->parser, XML_FALSE);
}

static void check_scan(struct sv body)
{
    struct events a = { XML_EVENTS_INIT, false, NULL }, b = { XML_EVENTS_INIT, false, NULL };
    struct xml_sink sink = xml_events_sink(&a.ev);
    bool ok;

    if (!xml_scan(body, &sink))
        goto out;
    /* Accepted: expat must accept it too (after the white space the engine skips). */
    while (body.n && (*body.p == ' ' || *body.p == '\t' || *body.p == '\r' || *body.p == '\n')) {
        body.p++;
        body.n--;
    }
    b.parser = XML_ParserCreate(NULL);
    if (!b.parser)
        abort();
    XML_SetUserData(b.parser, &b);
    XML_SetElementHandler(b.parser, ex_start, ex_end);
    XML_SetCharacterDataHandler(b.parser, ex_text);
    XML_SetStartDoctypeDeclHandler(b.parser, ex_doctype);
    XML_SetParamEntityParsing(b.parser, XML_PARAM_ENTITY_PARSING_NEVER);
    ok = XML_Parse(b.parser, body.p, (int)body.n, 1) == XML_STATUS_OK && !b.refused;
    XML_ParserFree(b.parser);
    if (!ok)
        abort(); /* the scanner accepted what expat refuses */
    xml_events_flush(&a.ev);
    xml_events_flush(&b.ev);
    if (a.ev.log.len != b.ev.log.len || (a.ev.log.len && memcmp(a.ev.log.data, b.ev.log.data, a.ev.log.len) != 0))
        abort(); /* the scanner tells another document than expat */
out:
    xml_events_release(&a.ev);
    xml_events_release(&b.ev);
}

static enum s3c_err parse_chunked(enum s3_reply kind, struct sv body, void *out,
                                  const struct s3_xml_limits *lim, size_t chunk)
{
    struct s3c_error e = S3C_ERROR_INIT;
    struct s3_xml_stream *st = s3_xml_stream_new(kind, out, lim);
    enum s3c_err rc = S3C_OK;
    size_t off;

    if (!st)
        abort();
    for (off = 0; off < body.n && !rc; off += chunk)
        rc = s3_xml_stream_feed(st, body.p + off, body.n - off < chunk ? body.n - off : chunk, &e);
    if (!rc)
        rc = s3_xml_stream_finish(st, &e);
    s3_xml_stream_free(st);
    return rc;
}

/* Read back the text of <k>...</k>. */
struct collect {
    struct buf text;
};

static void XMLCALL on_text(void *ud, const XML_Char *s, int len)
{
    buf_add(&((struct collect *)ud)->text, s, (size_t)len);
}

static void check_escape(struct sv key)
{
    struct buf doc = BUF_INIT((size_t)1 << 24);
    struct collect c = { BUF_INIT((size_t)1 << 24) };
    struct s3c_error e = S3C_ERROR_INIT;
    XML_Parser p;

    if (s3_xml_escape(key, &doc, &e) != S3C_OK) {
        if (s3_xml_key_ok(key))
            abort(); /* a good key must always escape */
        goto out;
    }
    if (!s3_xml_key_ok(key))
        abort();
    p = XML_ParserCreate(NULL);
    XML_SetUserData(p, &c);
    XML_SetCharacterDataHandler(p, on_text);
    if (XML_Parse(p, "<k>", 3, 0) != XML_STATUS_OK ||
        XML_Parse(p, doc.data ? doc.data : "", (int)doc.len, 0) != XML_STATUS_OK ||
        XML_Parse(p, "</k>", 4, 1) != XML_STATUS_OK)
        abort(); /* escaped text must be well-formed */
    XML_ParserFree(p);
    if (c.text.len != key.n || (key.n && memcmp(c.text.data, key.p, key.n) != 0))
        abort(); /* and must read back as the same bytes */
out:
    buf_release(&doc);
    buf_release(&c.text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct sv body = { (const char *)data, size };
    struct s3_xml_limits lim = S3_XML_LIMITS_DEFAULT;
    union any_result whole, chunked;
    struct s3c_error e = S3C_ERROR_INIT;
    struct s3_error err = S3_ERROR_INIT;
    size_t chunk = 1 + size % 13;
    int kind;

    lim.entries_max = 64; /* reach the caps too */
    lim.field_max_bytes = 256;
    for (kind = S3_REPLY_ERROR; kind <= S3_REPLY_VERSIONING; kind++) {
        enum s3c_err a, b;

        memset(&whole, 0, sizeof(whole));
        memset(&chunked, 0, sizeof(chunked));
        a = s3_xml_parse((enum s3_reply)kind, body, &whole, &lim, &e);
        b = parse_chunked((enum s3_reply)kind, body, &chunked, &lim, chunk);
        if (a != b)
            abort(); /* chunking must not change the outcome */
        if (!a && kind == S3_REPLY_LIST_OBJECTS &&
            (whole.objects.n_objects != chunked.objects.n_objects ||
             walk_objects(&whole.objects) != walk_objects(&chunked.objects) ||
             !same_objects(&whole.objects, &chunked.objects)))
            abort();
        if (!a && kind == S3_REPLY_LIST_VERSIONS && !same_versions(&whole.versions, &chunked.versions))
            abort();
        release((enum s3_reply)kind, &whole);
        release((enum s3_reply)kind, &chunked);
    }
    if (s3_parse_error(body, &err, &e) != S3C_OK)
        abort();
    s3_error_to_s3c(&err, 500, &e);
    if (strlen(e.msg) >= sizeof(e.msg) || strchr(e.msg, '\n'))
        abort();
    s3_error_release(&err);
    (void)s3_xml_body_kind(body);
    if (size <= S3_XML_BODY_MAX_BYTES)
        check_scan(body);
    check_escape(body);
    return 0;
}
