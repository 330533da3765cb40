/*
 * ops_tagging: object tags. Get/Put/DeleteObjectTagging, the x-amz-tagging
 * header that PutObject, CopyObject and CreateMultipartUpload carry, and the
 * checks S3 makes of both (at most 10 tags, keys of 1 to 128 characters,
 * values of up to 256, S3's character set, no duplicate keys, no "aws:"
 * prefix). Which tags an object gets from a copy or a Complete is decided by
 * ops_object.c and ops_mpu.c; this file never stores an object.
 */
#include "ops.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "base/pct.h"

#define TAG_KEY_MAX_CHARS 128
#define TAG_VALUE_MAX_CHARS 256
#define TAGS_PARSE_MAX 64               /* pairs read before the count is refused */

static const char header_msg[] = "The header 'x-amz-tagging' shall be encoded as UTF-8 then URLEncoded URL query "
                                 "parameters without tag name duplicates.";

/* Tags being read: "key\0value\0" pairs. */
struct tag_list {
    struct buf data;
    int n;
    bool bad;                           /* not well formed: MalformedXML or the header's InvalidArgument */
};

#define TAG_LIST_INIT { BUF_INIT(1 << 20), 0, false }

static void tag_add(struct tag_list *l, struct sv k, struct sv v)
{
    if (l->n == TAGS_PARSE_MAX) {
        l->n++; /* counted, not kept: the count alone is refused */
        return;
    }
    if (l->n > TAGS_PARSE_MAX)
        return;
    if (buf_add(&l->data, k.p, k.n) || buf_addc(&l->data, '\0') || buf_add(&l->data, v.p, v.n) ||
        buf_addc(&l->data, '\0'))
        l->bad = true;
    else
        l->n++;
}

/*
 * Characters of a tag key or value, -1 if it holds one S3 refuses: letters,
 * digits and spaces in UTF-8, and + - = . _ : / @. Bytes past ASCII are
 * taken for letters when they form valid UTF-8 (an approximation of S3's
 * Unicode classes).
 */
static long tag_chars(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    long n = 0;

    while (*p) {
        int extra = 0;

        if (*p < 0x80) {
            if (!isalnum(*p) && !strchr(" +-=._:/@", *p))
                return -1;
        } else if ((*p & 0xE0) == 0xC0 && *p >= 0xC2) {
            extra = 1;
        } else if ((*p & 0xF0) == 0xE0) {
            extra = 2;
        } else if ((*p & 0xF8) == 0xF0 && *p <= 0xF4) {
            extra = 3;
        } else {
            return -1;
        }
        for (p++; extra > 0; extra--, p++)
            if ((*p & 0xC0) != 0x80)
                return -1;
        n++;
    }
    return n;
}

static void tag_error(struct emu_server *s, struct emu_conn *c, const char *msg, const char *k, const char *v)
{
    struct buf x = BUF_INIT(4096);

    if (k)
        emu_xml_elem(&x, "TagKey", k);
    if (v)
        emu_xml_elem(&x, "TagValue", v);
    ops_error(s, c, 400, "InvalidTag", msg, buf_cstr(&x));
    buf_release(&x);
}

/* S3's checks of a tag set, in its order; 'header': the set came in x-amz-tagging. Non-zero when answered. */
static int tags_check(struct emu_server *s, struct emu_conn *c, const struct tag_list *l, bool header)
{
    const char *k = l->data.data;
    int i;

    if (l->n > EMU_TAGS_MAX) {
        ops_error(s, c, 400, "BadRequest", "Object tags cannot be greater than 10", NULL);
        return 400;
    }
    for (i = 0; i < l->n; i++) {
        const char *v = k + strlen(k) + 1, *seen = l->data.data;
        long kc = tag_chars(k), vc = tag_chars(v);
        int j;

        for (j = 0; j < i; j++, seen += strlen(seen) + 1, seen += strlen(seen) + 1) {
            if (strcmp(seen, k) != 0)
                continue;
            if (header)
                ops_error(s, c, 400, "InvalidArgument", header_msg, NULL);
            else
                tag_error(s, c, "Cannot provide multiple Tags with the same key", k, NULL);
            return 400;
        }
        if (!strncmp(k, "aws:", 4)) {
            tag_error(s, c, "Your TagKey cannot be prefixed with aws:", k, NULL);
            return 400;
        }
        if (kc < 1 || kc > TAG_KEY_MAX_CHARS) {
            tag_error(s, c, "The TagKey you have provided is invalid", k, NULL);
            return 400;
        }
        if (vc < 0 || vc > TAG_VALUE_MAX_CHARS) {
            tag_error(s, c, "The TagValue you have provided is invalid", k, v);
            return 400;
        }
        k = v + strlen(v) + 1;
    }
    return 0;
}

/* The checked list becomes the object's (or upload's) tags. */
static int tags_take(struct tag_list *l, struct emu_tags *out)
{
    memset(out, 0, sizeof(*out));
    if (!l->n)
        return 0;
    out->len = l->data.len;
    out->n = l->n;
    out->data = buf_detach(&l->data);
    return out->data ? 0 : -1;
}

/* Percent-decode 'a', a query's part ('+' is a space), onto 'out'; false on a bad escape or a NUL. */
static bool form_decode(struct sv a, struct buf *out)
{
    size_t i;

    for (i = 0; i < a.n; i++) {
        int c = (unsigned char)a.p[i];

        if (c == '+') {
            c = ' ';
        } else if (c == '%') {
            int hi = i + 2 < a.n ? pct_hexval(a.p[i + 1]) : -1, lo = hi >= 0 ? pct_hexval(a.p[i + 2]) : -1;

            if (lo < 0)
                return false;
            c = hi * 16 + lo;
            i += 2;
        }
        if (c == 0 || buf_addc(out, (char)c))
            return false;
    }
    return true;
}

int ops_tags_from_header(struct emu_server *s, struct emu_conn *c, struct emu_tags *out)
{
    struct sv h = emu_req_header(&c->req, "x-amz-tagging");
    struct tag_list l = TAG_LIST_INIT;
    struct buf k = BUF_INIT(4096), v = BUF_INIT(4096);
    int rc = 0;

    memset(out, 0, sizeof(*out));
    while (h.p && h.n && !l.bad) {
        const char *amp = memchr(h.p, '&', h.n);
        struct sv pair = { h.p, amp ? (size_t)(amp - h.p) : h.n };
        const char *eq = memchr(pair.p, '=', pair.n);
        struct sv ks = { pair.p, eq ? (size_t)(eq - pair.p) : pair.n };
        struct sv vs = eq ? (struct sv){ eq + 1, pair.n - ks.n - 1 } : (struct sv){ "", 0 };

        h.p += pair.n + (amp ? 1 : 0);
        h.n -= pair.n + (amp ? 1 : 0);
        if (!pair.n)
            continue;
        buf_reset(&k);
        buf_reset(&v);
        if (!form_decode(ks, &k) || !form_decode(vs, &v))
            l.bad = true;
        else
            tag_add(&l, buf_sv(&k), buf_sv(&v));
    }
    if (l.bad) {
        ops_error(s, c, 400, "InvalidArgument", header_msg, NULL);
        rc = 400;
    } else if (!(rc = tags_check(s, c, &l, true)) && tags_take(&l, out)) {
        ops_error(s, c, 500, "InternalError", "Out of memory.", NULL);
        rc = 500;
    }
    buf_release(&k);
    buf_release(&v);
    buf_release(&l.data);
    return rc;
}

void ops_tags_count_header(struct emu_conn *c, const struct emu_tags *t)
{
    if (t->n)
        emu_resp_header(&c->resp, "x-amz-tagging-count", "%d", t->n);
}

/* ---- the ?tagging operations ---- */

/* The object version a ?tagging request names (answers the error itself). */
static struct emu_obj *tagging_obj(struct emu_server *s, struct emu_conn *c, struct emu_bucket *b)
{
    const char *vid = emu_req_param(&c->req, "versionId");
    struct emu_obj *o = ops_find_obj(s, c, b, c->req.key, c->req.klen, vid);

    if (o && b->versioning != VER_NONE)
        emu_resp_header(&c->resp, "x-amz-version-id", "%s", o->vid);
    return o;
}

void ops_get_tagging(struct emu_server *s, struct emu_conn *c, struct emu_bucket *b)
{
    struct emu_obj *o = tagging_obj(s, c, b);
    struct buf *x = &c->resp.body;
    const char *p;
    int i;

    if (!o)
        return;
    ops_xml_open(x, "Tagging");
    buf_adds(x, "<TagSet>");
    for (i = 0, p = o->tags.data; i < o->tags.n; i++) {
        const char *v = p + strlen(p) + 1;

        buf_adds(x, "<Tag>");
        emu_xml_elem(x, "Key", p);
        emu_xml_elem(x, "Value", v);
        buf_adds(x, "</Tag>");
        p = v + strlen(v) + 1;
    }
    buf_adds(x, "</TagSet></Tagging>");
    ops_ok_xml(c);
}

/* Reading <Tagging><TagSet><Tag><Key/><Value/></Tag>...</TagSet></Tagging>. */
struct tagging_body {
    struct tag_list l;
    struct buf key, value;
    bool has_key, has_value, has_set, root_ok;
};

static void tagging_cb(void *ctx, const char *name, const char *text, int depth)
{
    struct tagging_body *t = ctx;

    if (depth == 4 && !strcmp(name, "Key")) {
        buf_reset(&t->key);
        t->l.bad |= t->has_key || buf_adds(&t->key, text) != 0;
        t->has_key = true;
    } else if (depth == 4 && !strcmp(name, "Value")) {
        buf_reset(&t->value);
        t->l.bad |= t->has_value || buf_adds(&t->value, text) != 0;
        t->has_value = true;
    } else if (depth == 3 && !strcmp(name, "Tag")) {
        if (!t->has_key || !t->has_value)
            t->l.bad = true;
        else
            tag_add(&t->l, buf_sv(&t->key), buf_sv(&t->value));
        t->has_key = t->has_value = false;
    } else if (depth == 3 || depth == 4) {
        t->l.bad = true;                /* only Tag in TagSet, only Key and Value in Tag */
    } else if (depth == 2) {
        t->has_set |= !strcmp(name, "TagSet");
    } else if (depth == 1) {
        t->root_ok = !strcmp(name, "Tagging");
    }
}

void ops_put_tagging(struct emu_server *s, struct emu_conn *c, struct emu_bucket *b)
{
    struct emu_req *q = &c->req;
    struct tagging_body t = { TAG_LIST_INIT, BUF_INIT(4096), BUF_INIT(4096), false, false, false, false };
    struct emu_obj *o = tagging_obj(s, c, b);
    struct emu_tags nt;

    if (!o)
        goto out;
    if (!q->body || emu_xml_walk(q->body->data, (size_t)q->body->len, tagging_cb, &t) || t.l.bad ||
        !t.root_ok || !t.has_set) {
        ops_error(s, c, 400, "MalformedXML",
                  "The XML you provided was not well-formed or did not validate against our published schema.", NULL);
        goto out;
    }
    if (tags_check(s, c, &t.l, false))
        goto out;
    if (tags_take(&t.l, &nt)) {
        ops_error(s, c, 500, "InternalError", "Out of memory.", NULL);
        goto out;
    }
    emu_tags_release(&o->tags);
    o->tags = nt;
    ops_ok_empty(c, 200);
out:
    buf_release(&t.l.data);
    buf_release(&t.key);
    buf_release(&t.value);
}

void ops_delete_tagging(struct emu_server *s, struct emu_conn *c, struct emu_bucket *b)
{
    struct emu_obj *o = tagging_obj(s, c, b);

    if (!o)
        return;
    emu_tags_release(&o->tags);
    ops_ok_empty(c, 204);
}
