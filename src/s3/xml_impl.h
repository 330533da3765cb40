/*
 * xml_impl: the inside of s3/xml, shared by its .c files only. A reply is
 * described by a schema (root name, fields, arrays of entries); one engine
 * (xml.c) drives expat and stores what the schema asks for, so adding a
 * reply is a table in xml_replies.c, not a new parser. The dependency points
 * one way: xml_replies.c calls the engine, the engine takes every schema as
 * an argument and never calls back into xml_replies.c.
 */
#ifndef S3C_S3_XML_IMPL_H
#define S3C_S3_XML_IMPL_H

#include <stddef.h>

#include "s3/xml.h"

enum xml_ftype {
    XF_STR,     /* const char *, as sent */
    XF_URL,     /* const char *, URL-decoded at the end if EncodingType is url */
    XF_U64,     /* uint64_t, decimal */
    XF_U32,     /* uint32_t, decimal */
    XF_BOOL,    /* bool, "true" / "false" */
    XF_TIME,    /* const char * at off, int64_t epoch at off2 */
};

/* One element to keep. */
struct xml_field {
    const char *path;       /* below the root or the entry: "Key", "Owner/ID"; "" = itself */
    enum xml_ftype type;
    size_t off;             /* where in the result (or entry) the value goes */
    size_t off2;            /* XF_TIME: the epoch */
    bool required;          /* missing -> S3C_EPARSE */
};

/* An element that repeats: each occurrence is one entry of a flat array. */
struct xml_group {
    const char *path;       /* below the root: "Contents", "Buckets/Bucket" */
    const struct xml_field *fields;
    size_t n_fields;
    size_t entry_size;
    size_t arr_off;         /* the array pointer in the result; groups may share it */
    size_t n_off;           /* its size_t count */
    size_t flag_off;        /* a bool set in each entry of this group ... */
    bool has_flag;          /* ... if true (DeleteMarker among Versions) */
};

#define XML_MAX_FIELDS 64   /* 'seen' bit masks are 64 bits wide: at most this many fields */

struct xml_schema {
    const char *root;       /* local name of the root element */
    const char *root_alt;   /* a second accepted root name, or NULL */
    size_t size;            /* sizeof the result */
    const struct xml_field *fields;
    size_t n_fields;
    const struct xml_group *groups;
    size_t n_groups;
    size_t pool_off;        /* the struct s3_strpool in the result */
    bool has_encoding;      /* URL-decode XF_URL fields when ... */
    size_t encoding_off;    /* ... the const char * here is "url" */
    /* Last step after a complete parse (normalization); may be NULL. */
    enum s3c_err (*finish)(void *out, struct s3_strpool *pool, struct s3c_error *e);
};

/*
 * s3_xml_stream_new for a schema (NULL: returns NULL): parse into 'out' a
 * reply of schema 's', or an <Error> read with 'err_schema' when that is the
 * root S3 sends instead. Both schemas must outlive the stream.
 */
struct s3_xml_stream *xml_stream_open(const struct xml_schema *s,
                                      const struct xml_schema *err_schema, void *out,
                                      const struct s3_xml_limits *lim);
/* s3_xml_parse for a schema: open, feed, finish, free. */
enum s3c_err xml_parse_schema(const struct xml_schema *s, const struct xml_schema *err_schema,
                              struct sv body, void *out, const struct s3_xml_limits *lim,
                              struct s3c_error *e);

/* Free a result's arrays and pool and zero it (its *_INIT value). */
void xml_release(const struct xml_schema *s, void *out);

/* True if the stream failed for lack of memory, not because of the input. */
bool xml_stream_oom(const struct s3_xml_stream *st);

/* The events of a document, as the engine takes them; each returns false to stop. */
struct xml_sink {
    bool (*start)(void *ud, const char *name, size_t n);   /* an element opens (name not terminated) */
    bool (*end)(void *ud);                                  /* the innermost open element closes */
    bool (*text)(void *ud, const char *p, size_t n);       /* text inside an element, in pieces */
    void *ud;
};

/*
 * Tokenize the whole of 'body' into 'k' without expat (xml_scan.c): true
 * when the body lies in the plain subset of XML the scanner knows and every
 * event was taken. False when it declined (anything else, or a sink said
 * stop): events may have been sent already; parse again with expat. For an
 * accepted body the events are expat's exactly: the start names, the ends,
 * and the text between two tags, entities and references decoded.
 */
bool xml_scan(struct sv body, const struct xml_sink *k);

/* Copy n bytes + NUL into the pool; NULL on OOM. */
char *xml_pool_dup(struct s3_strpool *pool, const char *p, size_t n);
void xml_pool_free(struct s3_strpool *pool);

#endif
