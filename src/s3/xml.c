/*
 * The engine of s3/xml: expat events -> the fields a schema names. One
 * stream parses one reply; state is a path of local names, the text of the
 * current element and, inside a repeating element, the entry being filled.
 * It knows no reply: schemas come in as arguments (xml_replies.c has them).
 */
#include "s3/xml.h"
#include "base/pct.h"

#include <expat.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "s3/xml_impl.h"

#define POOL_BLOCK_BYTES 16384
#define PATH_MAX_BYTES 1024
#define FEED_CHUNK_BYTES ((size_t)1 << 30) /* XML_Parse takes an int */

/* ---- string pool ----------------------------------------------------------- */

struct s3_strblk {
    struct s3_strblk *next;
    size_t used;
    size_t size;
    char data[];
};

char *xml_pool_dup(struct s3_strpool *pool, const char *p, size_t n)
{
    struct s3_strblk *b = pool->head, *nb;
    char *s;

    if (n > SIZE_MAX / 2)
        return NULL;
    if (!b || b->size - b->used < n + 1) {
        size_t size = n + 1 > POOL_BLOCK_BYTES / 4 ? n + 1 : POOL_BLOCK_BYTES;

        nb = malloc(sizeof(*nb) + size);
        if (!nb)
            return NULL;
        nb->used = 0;
        nb->size = size;
        if (b && size != POOL_BLOCK_BYTES) {
            /* A big string gets a block of its own behind the head, so the
             * head's free room still serves the small strings that follow. */
            nb->next = b->next;
            b->next = nb;
        } else {
            nb->next = b;
            pool->head = nb;
        }
        b = nb;
    }
    s = b->data + b->used;
    if (n)
        memcpy(s, p, n);
    s[n] = '\0';
    b->used += n + 1;
    return s;
}

void xml_pool_free(struct s3_strpool *pool)
{
    struct s3_strblk *b = pool->head, *next;

    while (b) {
        next = b->next;
        free(b);
        b = next;
    }
    pool->head = NULL;
}

void xml_release(const struct xml_schema *s, void *out)
{
    char *base = out;
    size_t i, j;

    if (!s || !out)
        return;
    for (i = 0; i < s->n_groups; i++) {
        bool shared = false;

        for (j = 0; j < i; j++)
            shared |= s->groups[j].arr_off == s->groups[i].arr_off;
        if (!shared)
            free(*(void **)(base + s->groups[i].arr_off));
    }
    xml_pool_free((struct s3_strpool *)(base + s->pool_off));
    memset(out, 0, s->size);
}

/* ---- small parsers ------------------------------------------------------------ */

static bool digits(const char *p, size_t n, int *out)
{
    int v = 0;
    size_t i;

    for (i = 0; i < n; i++) {
        if (p[i] < '0' || p[i] > '9')
            return false;
        v = v * 10 + (p[i] - '0');
    }
    *out = v;
    return true;
}

/* Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm). */
static int64_t days_from_civil(int64_t y, int m, int d)
{
    int64_t era, yoe, doy, doe;

    y -= m <= 2;
    era = (y >= 0 ? y : y - 399) / 400;
    yoe = y - era * 400;
    doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

static int days_in_month(int y, int m)
{
    static const int dim[12] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
    bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;

    return m == 2 && leap ? 29 : dim[m - 1];
}

bool s3_xml_time_parse(struct sv s, int64_t *epoch)
{
    const char *p = s.p;
    size_t n = s.n, i = 19;
    int y, mo, d, h, mi, sec, oh = 0, om = 0, sign = 0;

    if (n < 19 || p[4] != '-' || p[7] != '-' || (p[10] != 'T' && p[10] != 't') ||
        p[13] != ':' || p[16] != ':')
        return false;
    if (!digits(p, 4, &y) || !digits(p + 5, 2, &mo) || !digits(p + 8, 2, &d) ||
        !digits(p + 11, 2, &h) || !digits(p + 14, 2, &mi) || !digits(p + 17, 2, &sec))
        return false;
    if (mo < 1 || mo > 12 || d < 1 || d > days_in_month(y, mo) || h > 23 || mi > 59 || sec > 60)
        return false;
    if (i < n && p[i] == '.') {
        size_t start = ++i;

        while (i < n && p[i] >= '0' && p[i] <= '9')
            i++;
        if (i == start)
            return false;
    }
    if (i < n && (p[i] == 'Z' || p[i] == 'z')) {
        i++;
    } else if (i < n && (p[i] == '+' || p[i] == '-')) {
        sign = p[i] == '+' ? 1 : -1;
        if (n - i == 6 && p[i + 3] == ':') {
            if (!digits(p + i + 1, 2, &oh) || !digits(p + i + 4, 2, &om))
                return false;
        } else if (n - i == 5) {
            if (!digits(p + i + 1, 2, &oh) || !digits(p + i + 3, 2, &om))
                return false;
        } else {
            return false;
        }
        if (oh > 23 || om > 59)
            return false;
        i = n;
    }
    if (i != n)
        return false;
    *epoch = days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + sec -
             (int64_t)sign * (oh * 3600 + om * 60);
    return true;
}


/*
 * Form-decode 's' in place ('+' is a space, %XX a byte), as S3's
 * encoding-type=url writes it. False on a bad escape or a decoded NUL,
 * which a C string cannot hold.
 */
static bool url_decode_inplace(char *s)
{
    char *r = s, *w = s;

    for (; *r; r++) {
        if (*r == '+') {
            *w++ = ' ';
        } else if (*r == '%') {
            int hi = pct_hexval(r[1]), lo = hi < 0 ? -1 : pct_hexval(r[2]);

            if (hi < 0 || lo < 0 || (hi | lo) == 0)
                return false;
            *w++ = (char)(hi * 16 + lo);
            r += 2;
        } else {
            *w++ = *r;
        }
    }
    *w = '\0';
    return true;
}

/* A printable, short copy of untrusted text for a one-line message. */
static const char *excerpt(struct sv v, char out[40])
{
    size_t i, n = v.n < 32 ? v.n : 32;

    for (i = 0; i < n; i++) {
        unsigned char c = (unsigned char)v.p[i];
        out[i] = c >= 0x20 && c < 0x7f ? (char)c : '?';
    }
    if (v.n > n) {
        memcpy(out + n, "...", 3);
        n += 3;
    }
    out[n] = '\0';
    return out;
}

/* ---- the stream ----------------------------------------------------------------- */

struct s3_xml_stream {
    XML_Parser parser;
    const struct xml_schema *schema;    /* the reply we expect */
    const struct xml_schema *err_schema; /* how to read an <Error> root instead */
    const struct xml_schema *active;    /* schema, or err_schema once the root says so */
    char *out;                          /* the result being filled (caller's, or &err) */
    struct s3_error err;                /* an <Error> where a result was expected */
    struct s3_xml_limits lim;
    enum s3c_err rc;                    /* first failure; sticky */
    struct s3c_error detail;            /* its message */
    bool oom;                           /* rc is a real allocation failure */
    bool started;                       /* a non-space byte went to expat */
    bool root_seen;
    size_t fed;                         /* body bytes so far */
    size_t depth;                       /* elements open */
    size_t *seg;                        /* seg[d]: where depth d's name starts in path */
    char path[PATH_MAX_BYTES];          /* "Root/Contents/Key" */
    size_t path_len;
    const struct xml_group *group;      /* the repeating element we are inside, or NULL */
    size_t group_depth;
    char *entry;                        /* its entry */
    uint64_t seen_top, seen_entry;      /* fields stored, by index */
    size_t next_field;                  /* in an entry: the field likely next (find_field) */
    struct buf text;                    /* text of the current element */
};

static void st_fail(struct s3_xml_stream *st, enum s3c_err code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void st_fail(struct s3_xml_stream *st, enum s3c_err code, const char *fmt, ...)
{
    va_list ap;

    if (st->rc)
        return;
    st->rc = code;
    st->detail.code = code;
    va_start(ap, fmt);
    vsnprintf(st->detail.msg, sizeof(st->detail.msg), fmt, ap);
    va_end(ap);
    if (st->parser)
        XML_StopParser(st->parser, XML_FALSE);
}

static void st_oom(struct s3_xml_stream *st)
{
    st->oom = !st->rc;
    st_fail(st, S3C_ENOMEM, "out of memory parsing the reply");
}

static const char *root_name(const struct xml_schema *s)
{
    return s->root;
}

/* Strip any prefix ("s3:Key") or expat namespace part: the local name. */
static const char *local_name(const char *name)
{
    const char *c = strrchr(name, ':');

    return c ? c + 1 : name;
}

static void set_empty_strings(const struct xml_field *f, size_t n, char *base)
{
    size_t i;

    for (i = 0; i < n; i++)
        if (f[i].type == XF_STR || f[i].type == XF_URL || f[i].type == XF_TIME)
            *(const char **)(base + f[i].off) = "";
}

/*
 * The field of path 'rel', its index in *idx. *idx comes in as a guess (the
 * field after the last one found): entries repeat their fields in one order.
 */
static const struct xml_field *find_field(const struct xml_field *f, size_t n, const char *rel,
                                          size_t *idx)
{
    size_t i;

    if (*idx < n && strcmp(f[*idx].path, rel) == 0)
        return &f[*idx];
    for (i = 0; i < n; i++) {
        if (strcmp(f[i].path, rel) == 0) {
            *idx = i;
            return &f[i];
        }
    }
    return NULL;
}

static void store(struct s3_xml_stream *st, const struct xml_field *f, char *base)
{
    struct s3_strpool *pool = (struct s3_strpool *)(st->out + st->active->pool_off);
    struct sv v = buf_sv(&st->text), t = sv_trim(v);
    char ex[40];
    uint64_t u;
    char *s;

    switch (f->type) {
    case XF_STR:
    case XF_URL:
    case XF_TIME:
        s = xml_pool_dup(pool, v.p, v.n);
        if (!s) {
            st_oom(st);
            return;
        }
        *(const char **)(base + f->off) = s;
        /* An empty time is an absent one (epoch 0), not a malformed one. */
        if (f->type == XF_TIME && t.n && !s3_xml_time_parse(t, (int64_t *)(base + f->off2)))
            st_fail(st, S3C_EPARSE, "bad time in <%s>: \"%s\"", f->path, excerpt(v, ex));
        return;
    case XF_U64:
    case XF_U32:
        if (!sv_to_u64(t, &u) || (f->type == XF_U32 && u > UINT32_MAX)) {
            st_fail(st, S3C_EPARSE, "bad number in <%s>: \"%s\"", f->path, excerpt(v, ex));
            return;
        }
        if (f->type == XF_U32)
            *(uint32_t *)(base + f->off) = (uint32_t)u;
        else
            *(uint64_t *)(base + f->off) = u;
        return;
    case XF_BOOL:
        if (sv_ieqs(t, "true"))
            *(bool *)(base + f->off) = true;
        else if (sv_ieqs(t, "false"))
            *(bool *)(base + f->off) = false;
        else
            st_fail(st, S3C_EPARSE, "bad boolean in <%s>: \"%s\"", f->path, excerpt(v, ex));
        return;
    }
}

/* Open a new entry of group 'g' at the end of its array. */
static void entry_begin(struct s3_xml_stream *st, const struct xml_group *g)
{
    void **arr = (void **)(st->out + g->arr_off);
    size_t *n = (size_t *)(st->out + g->n_off);
    char *entry;

    if (*n >= st->lim.entries_max) {
        st_fail(st, S3C_ENOMEM, "reply has more than %zu <%s> entries", st->lim.entries_max,
                g->path);
        return;
    }
    /* Capacity is a function of n (16, then powers of two), so groups that
     * share one array (Version, DeleteMarker) need no capacity field. */
    if (*n == 0 || (*n >= 16 && (*n & (*n - 1)) == 0)) {
        size_t cap = *n ? *n * 2 : 16;
        void *p;

        if (cap > SIZE_MAX / g->entry_size) {
            st_oom(st);
            return;
        }
        p = realloc(*arr, cap * g->entry_size);
        if (!p) {
            st_oom(st);
            return;
        }
        *arr = p;
    }
    entry = (char *)*arr + *n * g->entry_size;
    memset(entry, 0, g->entry_size);
    set_empty_strings(g->fields, g->n_fields, entry);
    if (g->has_flag)
        *(bool *)(entry + g->flag_off) = true;
    (*n)++;
    st->group = g;
    st->entry = entry;
    st->seen_entry = 0;
    st->next_field = 0;
}

static void check_required(struct s3_xml_stream *st, const struct xml_field *f, size_t n,
                           uint64_t seen, const char *where)
{
    size_t i;

    for (i = 0; i < n; i++) {
        if (f[i].required && !(seen & ((uint64_t)1 << i))) {
            st_fail(st, S3C_EPARSE, "<%s> without <%s>", where, f[i].path);
            return;
        }
    }
}

/* An element opens: 'local' (n bytes, not terminated) is its name without a prefix. */
static void el_start(struct s3_xml_stream *st, const char *local, size_t len)
{
    size_t i;

    if (st->rc)
        return;
    if (st->depth + 1 > st->lim.depth_max) {
        st_fail(st, S3C_EPARSE, "XML nested deeper than %zu elements", st->lim.depth_max);
        return;
    }
    if (st->path_len + 1 + len >= sizeof(st->path)) {
        st_fail(st, S3C_EPARSE, "XML element path longer than %zu bytes", sizeof(st->path));
        return;
    }
    if (st->depth > 0)
        st->path[st->path_len++] = '/';
    st->depth++;
    st->seg[st->depth] = st->path_len;
    memcpy(st->path + st->path_len, local, len);
    st->path[st->path_len + len] = '\0';
    local = st->path + st->path_len;    /* terminated from here on */
    st->path_len += len;
    buf_reset(&st->text);

    if (st->depth == 1) {
        const struct xml_schema *s = st->schema;

        st->root_seen = true;
        if (strcmp(local, s->root) == 0 || (s->root_alt && strcmp(local, s->root_alt) == 0))
            return;
        if (strcmp(local, "Error") == 0) {
            /* S3 failed after answering 200: capture the <Error> instead. */
            st->active = st->err_schema;
            st->out = (char *)&st->err;
            set_empty_strings(st->active->fields, st->active->n_fields, st->out);
            return;
        }
        st_fail(st, S3C_EPARSE, "unexpected XML root <%.64s>, want <%s>", local, root_name(s));
        return;
    }
    if (!st->group && st->depth >= 2) {
        const char *rel = st->path + st->seg[2];

        for (i = 0; i < st->active->n_groups; i++) {
            if (strcmp(rel, st->active->groups[i].path) == 0) {
                entry_begin(st, &st->active->groups[i]);
                st->group_depth = st->depth;
                return;
            }
        }
    }
}

static void XMLCALL on_start(void *ud, const XML_Char *name, const XML_Char **attrs)
{
    const char *local = local_name(name);

    (void)attrs;
    el_start(ud, local, strlen(local));
}

/* The innermost open element closes. */
static void el_end(struct s3_xml_stream *st)
{
    const struct xml_schema *s = st->active;
    const struct xml_field *f;
    size_t idx = 0;

    if (st->rc || st->depth == 0)
        return;
    if (st->group) {
        const struct xml_group *g = st->group;

        if (st->depth == st->group_depth) {
            check_required(st, g->fields, g->n_fields, st->seen_entry, g->path);
            st->group = NULL;
            st->entry = NULL;
        } else if ((idx = st->next_field,
                    f = find_field(g->fields, g->n_fields, st->path + st->seg[st->group_depth + 1], &idx))) {
            store(st, f, st->entry);
            st->seen_entry |= (uint64_t)1 << idx;
            st->next_field = idx + 1;
        }
    } else {
        const char *rel = st->depth == 1 ? "" : st->path + st->seg[2];

        if ((f = find_field(s->fields, s->n_fields, rel, &idx))) {
            store(st, f, st->out);
            st->seen_top |= (uint64_t)1 << idx;
        }
    }
    st->path_len = st->seg[st->depth] - (st->depth > 1 ? 1 : 0);
    st->path[st->path_len] = '\0';
    st->depth--;
    buf_reset(&st->text);
}

static void XMLCALL on_end(void *ud, const XML_Char *name)
{
    (void)name;
    el_end(ud);
}

/* Text inside an element (in as many pieces as the tokenizer likes). */
static void el_text(struct s3_xml_stream *st, const char *s, size_t len)
{
    if (st->rc || st->depth == 0 || len == 0)
        return;
    if (buf_add(&st->text, s, len)) {
        if (st->text.len + len > st->text.max)
            st_fail(st, S3C_ENOMEM, "XML element <%.64s> has over %zu bytes of text",
                    st->path + st->seg[st->depth], st->lim.field_max_bytes);
        else
            st_oom(st);
    }
}

static void XMLCALL on_text(void *ud, const XML_Char *s, int len)
{
    if (len > 0)
        el_text(ud, s, (size_t)len);
}

static void XMLCALL on_doctype(void *ud, const XML_Char *name, const XML_Char *sysid,
                               const XML_Char *pubid, int has_internal_subset)
{
    (void)name, (void)sysid, (void)pubid, (void)has_internal_subset;
    st_fail(ud, S3C_EPARSE, "XML DOCTYPE refused (S3 replies have none)");
}

static void XMLCALL on_entity(void *ud, const XML_Char *name, int is_param,
                              const XML_Char *value, int value_len, const XML_Char *base,
                              const XML_Char *sysid, const XML_Char *pubid,
                              const XML_Char *notation)
{
    (void)name, (void)is_param, (void)value, (void)value_len, (void)base;
    (void)sysid, (void)pubid, (void)notation;
    st_fail(ud, S3C_EPARSE, "XML entity declaration refused");
}

static int XMLCALL on_external(XML_Parser p, const XML_Char *context, const XML_Char *base,
                               const XML_Char *sysid, const XML_Char *pubid)
{
    (void)p, (void)context, (void)base, (void)sysid, (void)pubid;
    return XML_STATUS_ERROR; /* never fetch anything */
}

/* Make expat refuse DTDs and entities; 'ud' is handed to the handlers. */
static XML_Parser parser_new(void *ud, XML_StartElementHandler start, XML_EndElementHandler end,
                             XML_CharacterDataHandler text, XML_StartDoctypeDeclHandler doctype,
                             XML_EntityDeclHandler entity)
{
    XML_Parser p = XML_ParserCreate(NULL);

    if (!p)
        return NULL;
    XML_SetUserData(p, ud);
    XML_SetElementHandler(p, start, end);
    if (text)
        XML_SetCharacterDataHandler(p, text);
    XML_SetStartDoctypeDeclHandler(p, doctype);
    XML_SetEntityDeclHandler(p, entity);
    XML_SetExternalEntityRefHandler(p, on_external);
    XML_SetParamEntityParsing(p, XML_PARAM_ENTITY_PARSING_NEVER);
    return p;
}

static enum s3c_err st_report(const struct s3_xml_stream *st, struct s3c_error *e)
{
    if (st->rc && e) {
        e->code = st->detail.code;
        memcpy(e->s3_code, st->detail.s3_code, sizeof(e->s3_code));
        memcpy(e->msg, st->detail.msg, sizeof(e->msg));
    }
    return st->rc;
}

struct s3_xml_stream *xml_stream_open(const struct xml_schema *s,
                                      const struct xml_schema *err_schema, void *out,
                                      const struct s3_xml_limits *lim)
{
    static const struct s3_xml_limits defaults = S3_XML_LIMITS_DEFAULT;
    struct s3_xml_stream *st;

    if (!s || !out)
        return NULL;
    st = calloc(1, sizeof(*st));
    if (!st)
        return NULL;
    st->err_schema = err_schema;
    st->lim = lim ? *lim : defaults;
    st->seg = calloc(st->lim.depth_max + 2, sizeof(*st->seg));
    st->parser = parser_new(st, on_start, on_end, on_text, on_doctype, on_entity);
    if (!st->seg || !st->parser) {
        s3_xml_stream_free(st);
        return NULL;
    }
    st->schema = st->active = s;
    st->out = out;
    st->text.max = st->lim.field_max_bytes;
    xml_release(s, out);
    set_empty_strings(s->fields, s->n_fields, out);
    return st;
}

static bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

enum s3c_err s3_xml_stream_feed(struct s3_xml_stream *st, const void *data, size_t n,
                                struct s3c_error *e)
{
    const char *p = data;

    if (st->rc)
        return st_report(st, e);
    if (n > st->lim.body_max_bytes - st->fed) {
        st_fail(st, S3C_ENOMEM, "reply body over %zu bytes", st->lim.body_max_bytes);
        return st_report(st, e);
    }
    st->fed += n;
    /* S3 may pad a slow reply with white space before the XML declaration,
     * where expat would reject it. */
    while (!st->started && n && is_space(*p)) {
        p++;
        n--;
    }
    if (n)
        st->started = true;
    while (n && !st->rc) {
        size_t chunk = n < FEED_CHUNK_BYTES ? n : FEED_CHUNK_BYTES;

        if (XML_Parse(st->parser, p, (int)chunk, 0) != XML_STATUS_OK && !st->rc)
            st_fail(st, S3C_EPARSE, "malformed XML at line %lu, column %lu: %s",
                    (unsigned long)XML_GetCurrentLineNumber(st->parser),
                    (unsigned long)XML_GetCurrentColumnNumber(st->parser),
                    XML_ErrorString(XML_GetErrorCode(st->parser)));
        p += chunk;
        n -= chunk;
    }
    return st_report(st, e);
}

/* Whether 's' holds "%00", a NUL once decoded. */
static bool has_nul_escape(const char *s)
{
    for (s = strchr(s, '%'); s; s = strchr(s + 1, '%'))
        if (s[1] == '0' && s[2] == '0')
            return true;
    return false;
}

/*
 * Decode the XF_URL fields of 'base' in place. In a list's entry ('entry':
 * a key, a common prefix) a decoded NUL makes the field "" followed by its
 * encoded form (s3/xml.h): that one key is skipped by the listers, where
 * failing the page would stop the whole listing for it.
 */
static void decode_fields(struct s3_xml_stream *st, const struct xml_field *f, size_t n,
                          char *base, bool entry)
{
    size_t i;

    for (i = 0; i < n && !st->rc; i++) {
        char **field, *s, *marked;
        size_t len;

        if (f[i].type != XF_URL)
            continue;
        /* "" may be the shared literal of an absent field: leave it be. */
        field = (char **)(base + f[i].off);
        s = *field;
        if (!s[0])
            continue;
        if (entry && has_nul_escape(s)) {
            len = strlen(s);
            /* Its n + 1 bytes (the terminator too) and one more: "\0" ENCODED "\0". */
            marked = xml_pool_dup((struct s3_strpool *)(st->out + st->active->pool_off), s, len + 1);
            if (!marked) {
                st_oom(st);
                return;
            }
            memmove(marked + 1, marked, len + 1);
            marked[0] = '\0';
            *field = marked;
            continue;
        }
        if (!url_decode_inplace(s))
            st_fail(st, S3C_EPARSE, "bad URL encoding in <%s>", f[i].path);
    }
}

static void decode_all(struct s3_xml_stream *st)
{
    const struct xml_schema *s = st->schema;
    const char *enc = *(const char **)(st->out + s->encoding_off);
    size_t i, j;

    if (!sv_ieqs(sv_from(enc), "url"))
        return;
    decode_fields(st, s->fields, s->n_fields, st->out, false);
    for (i = 0; i < s->n_groups && !st->rc; i++) {
        const struct xml_group *g = &s->groups[i];
        char *arr = *(char **)(st->out + g->arr_off);
        size_t n = *(size_t *)(st->out + g->n_off);
        bool shared = false;

        /* Groups sharing one array share their field list: decode once. */
        for (j = 0; j < i; j++)
            shared |= s->groups[j].arr_off == g->arr_off;
        for (j = 0; j < n && !shared && !st->rc; j++)
            decode_fields(st, g->fields, g->n_fields, arr + j * g->entry_size, true);
    }
}

static enum s3c_err finish_result(struct s3_xml_stream *st, struct s3c_error *e);

enum s3c_err s3_xml_stream_finish(struct s3_xml_stream *st, struct s3c_error *e)
{
    if (st->rc)
        return st_report(st, e);
    if (!st->started) {
        st_fail(st, S3C_EPARSE, "empty reply body, want <%s>", root_name(st->schema));
        return st_report(st, e);
    }
    if (XML_Parse(st->parser, "", 0, 1) != XML_STATUS_OK && !st->rc)
        st_fail(st, S3C_EPARSE, "malformed XML at line %lu, column %lu: %s",
                (unsigned long)XML_GetCurrentLineNumber(st->parser),
                (unsigned long)XML_GetCurrentColumnNumber(st->parser),
                XML_ErrorString(XML_GetErrorCode(st->parser)));
    return finish_result(st, e);
}

/* The document is complete: required fields, an <Error> root, decoding, normalization. */
static enum s3c_err finish_result(struct s3_xml_stream *st, struct s3c_error *e)
{
    const struct xml_schema *s = st->active;

    if (st->rc)
        return st_report(st, e);
    check_required(st, s->fields, s->n_fields, st->seen_top, s->root);
    if (st->rc)
        return st_report(st, e);
    if (s != st->schema) {
        /* An <Error> where a result belonged. */
        st->rc = S3C_EHTTP;
        st->detail.code = S3C_EHTTP;
        str_copy(st->detail.s3_code, sizeof(st->detail.s3_code), st->err.code);
        snprintf(st->detail.msg, sizeof(st->detail.msg), "%s: %s",
                 st->err.code[0] ? st->err.code : "Error", st->err.message);
        for (char *c = st->detail.msg; *c; c++)     /* network text: one line */
            if (*c == '\n' || *c == '\r' || *c == '\t')
                *c = ' ';
        return st_report(st, e);
    }
    if (s->has_encoding)
        decode_all(st);
    if (!st->rc && s->finish) {
        enum s3c_err rc = s->finish(st->out, (struct s3_strpool *)(st->out + s->pool_off),
                                    &st->detail);
        if (rc) {
            st->rc = rc;
            st->oom = rc == S3C_ENOMEM;
        }
    }
    return st_report(st, e);
}

void s3_xml_stream_free(struct s3_xml_stream *st)
{
    if (!st)
        return;
    if (st->parser)
        XML_ParserFree(st->parser);
    xml_release(st->err_schema, &st->err);
    buf_release(&st->text);
    free(st->seg);
    free(st);
}

bool xml_stream_oom(const struct s3_xml_stream *st)
{
    return st->oom;
}

/* xml_scan's events into the engine: false once the engine has failed. */
static bool scan_start(void *ud, const char *name, size_t n)
{
    el_start(ud, name, n);
    return !((struct s3_xml_stream *)ud)->rc;
}

static bool scan_end(void *ud)
{
    el_end(ud);
    return !((struct s3_xml_stream *)ud)->rc;
}

static bool scan_text(void *ud, const char *p, size_t n)
{
    el_text(ud, p, n);
    return !((struct s3_xml_stream *)ud)->rc;
}

/*
 * Parse 'body' with xml_scan instead of expat. True when it did and the
 * result is complete and good; false when the scanner declined the body or
 * the result failed, leaving 'st' to be thrown away: the body is then
 * parsed again with expat, which tells every error in its own words.
 */
static bool parse_fast(struct s3_xml_stream *st, struct sv body)
{
    const struct xml_sink sink = { scan_start, scan_end, scan_text, st };
    struct s3c_error ignored = S3C_ERROR_INIT;

    if (body.n > st->lim.body_max_bytes || !xml_scan(body, &sink) || st->rc)
        return false;
    st->fed = body.n;
    st->started = true;
    return finish_result(st, &ignored) == S3C_OK;
}

enum s3c_err xml_parse_schema(const struct xml_schema *s, const struct xml_schema *err_schema,
                              struct sv body, void *out, const struct s3_xml_limits *lim,
                              struct s3c_error *e)
{
    struct s3_xml_stream *st = xml_stream_open(s, err_schema, out, lim);
    enum s3c_err rc;

    if (!st)
        return s3c_fail(e, S3C_ENOMEM, "out of memory starting an XML parser");
    if (parse_fast(st, body)) {
        s3_xml_stream_free(st);
        return S3C_OK;
    }
    /* Start again from nothing: opening releases what 'out' was given. */
    s3_xml_stream_free(st);
    st = xml_stream_open(s, err_schema, out, lim);
    if (!st)
        return s3c_fail(e, S3C_ENOMEM, "out of memory starting an XML parser");
    rc = s3_xml_stream_feed(st, body.p, body.n, e);
    if (!rc)
        rc = s3_xml_stream_finish(st, e);
    s3_xml_stream_free(st);
    return rc;
}

/* ---- root classification --------------------------------------------------------- */

struct kind_ctx {
    XML_Parser parser;
    int depth;
    bool is_error;
    bool refused;
};

static void XMLCALL kind_start(void *ud, const XML_Char *name, const XML_Char **attrs)
{
    struct kind_ctx *k = ud;

    (void)attrs;
    if (k->depth++ == 0)
        k->is_error = strcmp(local_name(name), "Error") == 0;
}

static void XMLCALL kind_end(void *ud, const XML_Char *name)
{
    (void)name;
    ((struct kind_ctx *)ud)->depth--;
}

static void XMLCALL kind_doctype(void *ud, const XML_Char *name, const XML_Char *sysid,
                                 const XML_Char *pubid, int has_internal_subset)
{
    struct kind_ctx *k = ud;

    (void)name, (void)sysid, (void)pubid, (void)has_internal_subset;
    k->refused = true;
    XML_StopParser(k->parser, XML_FALSE);
}

static void XMLCALL kind_entity(void *ud, const XML_Char *name, int is_param,
                                const XML_Char *value, int value_len, const XML_Char *base,
                                const XML_Char *sysid, const XML_Char *pubid,
                                const XML_Char *notation)
{
    (void)name, (void)is_param, (void)value, (void)value_len, (void)base;
    (void)sysid, (void)pubid, (void)notation;
    kind_doctype(ud, NULL, NULL, NULL, 0);
}

enum s3_body_kind s3_xml_body_kind(struct sv body)
{
    struct kind_ctx k = { NULL, 0, false, false };
    enum s3_body_kind kind = S3_BODY_MALFORMED;

    while (body.n && is_space(*body.p)) {
        body.p++;
        body.n--;
    }
    if (!body.n)
        return S3_BODY_EMPTY;
    if (body.n > S3_XML_BODY_MAX_BYTES || body.n > INT_MAX)
        return S3_BODY_MALFORMED;
    k.parser = parser_new(&k, kind_start, kind_end, NULL, kind_doctype, kind_entity);
    if (!k.parser)
        return S3_BODY_MALFORMED; /* out of memory: the caller will retry */
    if (XML_Parse(k.parser, body.p, (int)body.n, 1) == XML_STATUS_OK && !k.refused)
        kind = k.is_error ? S3_BODY_ERROR : S3_BODY_RESULT;
    XML_ParserFree(k.parser);
    return kind;
}
