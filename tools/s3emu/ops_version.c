/*
 * ops_version: a bucket's versioning (Get/PutBucketVersioning), the
 * version a request names (its 404, or what a delete marker answers), and
 * what versioning makes of a delete: a version removed, or a delete marker
 * laid. Reading and listing versions belong to ops_object.c and ops_list.c.
 */
#include "ops.h"

#include <string.h>

void ops_get_versioning(struct emu_server *s, struct emu_conn *c, struct emu_bucket *b)
{
    struct buf *x = &c->resp.body;

    ops_xml_open(x, "VersioningConfiguration");
    if (b->versioning == VER_ENABLED)
        buf_adds(x, "<Status>Enabled</Status>");
    else if (b->versioning == VER_SUSPENDED)
        buf_adds(x, "<Status>Suspended</Status>");
    buf_adds(x, "</VersioningConfiguration>");
    ops_ok_xml(c);
}

struct ver_ctx {
    char status[16];
};

static void ver_cb(void *ctx, const char *name, const char *text, int depth)
{
    struct ver_ctx *v = ctx;

    if (!strcmp(name, "Status"))
        str_copy(v->status, sizeof(v->status), text);
}

void ops_put_versioning(struct emu_server *s, struct emu_conn *c, struct emu_bucket *b)
{
    struct emu_req *q = &c->req;
    struct ver_ctx v = { "" };

    if (!q->body || emu_xml_walk(q->body->data, (size_t)q->body->len, ver_cb, &v) ||
        (strcmp(v.status, "Enabled") && strcmp(v.status, "Suspended"))) {
        ops_error(s, c, 400, "MalformedXML",
                  "The XML you provided was not well-formed or did not validate against our published schema.", NULL);
        return;
    }
    b->versioning = !strcmp(v.status, "Enabled") ? VER_ENABLED : VER_SUSPENDED;
    ops_ok_empty(c, 200);
}

static void deleted_headers(struct emu_conn *c, const struct emu_obj *o)
{
    emu_resp_header(&c->resp, "x-amz-delete-marker", "true");
    emu_resp_header(&c->resp, "x-amz-version-id", "%s", o->vid);
}

/* Look up the object a GET/HEAD/copy names; answers the error itself and returns NULL. */
struct emu_obj *ops_find_obj(struct emu_server *s, struct emu_conn *c, struct emu_bucket *b,
                             const char *key, size_t klen, const char *vid)
{
    struct emu_obj *o = emu_store_get(b, key, klen, vid);

    if (!o) {
        if (vid) {
            struct buf x = BUF_INIT(4096);
            ops_xml_key(&x, "Key", key, klen, false);
            emu_xml_elem(&x, "VersionId", vid);
            ops_error(s, c, 404, "NoSuchVersion", "The specified version does not exist.", buf_cstr(&x));
            buf_release(&x);
        } else {
            ops_no_such_key(s, c);
        }
        return NULL;
    }
    if (o->delete_marker) {
        if (vid)
            ops_error(s, c, 405, "MethodNotAllowed",
                      "The specified method is not allowed against this resource.", NULL);
        else
            ops_no_such_key(s, c);
        deleted_headers(c, o);
        return NULL;
    }
    return o;
}

void ops_version_delete(struct emu_server *s, struct emu_conn *c, struct emu_bucket *b,
                        const char *key, size_t klen, const char *vid, struct buf *out_marker_vid,
                        bool *out_marker)
{
    bool was_marker = false;

    *out_marker = false;
    if (vid) {
        emu_store_del_version(b, key, klen, vid, &was_marker);
        *out_marker = was_marker;
        buf_adds(out_marker_vid, vid);
        return;
    }
    if (b->versioning == VER_NONE) {
        emu_store_del_version(b, key, klen, "null", NULL);
        return;
    }
    {
        struct emu_obj *m = emu_store_obj_new();

        if (!m)
            return;
        m->delete_marker = true;
        emu_store_put(s, b, key, klen, m);
        *out_marker = true;
        buf_adds(out_marker_vid, m->vid);
    }
}
