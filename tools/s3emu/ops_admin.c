/*
 * ops_admin: the /_s3emu/ endpoint (stats, config, reset, populate), which
 * is not S3: never authenticated, delayed or faulted. model.c and store.c do
 * the work; this only routes and answers JSON.
 */
#include "ops.h"

void ops_admin(struct emu_server *s, struct emu_conn *c)
{
    struct emu_req *q = &c->req;
    struct emu_resp *r = &c->resp;
    char err[256];

    switch (q->op) {
    case OP_ADMIN_STATS:
        emu_model_stats_json(s, &r->body);
        emu_resp_json_body(r, 200);
        return;
    case OP_ADMIN_RESET:
        if (sv_eqs(q->path_raw, "/_s3emu/reset")) {
            struct emu_sl_node *n;

            emu_store_lock(s, true);
            while ((n = emu_sl_first(&s->buckets)) != NULL)
                emu_store_bucket_delete(s, n->val);
            emu_store_unlock(s);
        }
        emu_model_stats_reset(s);
        ops_ok_empty(c, 204);
        return;
    case OP_ADMIN_POPULATE:
        emu_admin_populate(s, c);
        return;
    case OP_ADMIN_CONFIG:
        if (sv_eqs(q->method, "GET")) {
            emu_model_stats_json(s, &r->body);
            emu_resp_json_body(r, 200);
            return;
        }
        if (emu_model_configure(s, q->body ? (struct sv){ q->body->data, (size_t)q->body->len } : SV_NULL,
                                err, sizeof(err))) {
            buf_adds(&r->body, "{\"error\":\"");
            buf_adds(&r->body, err);
            buf_adds(&r->body, "\"}\n");
            emu_resp_json_body(r, 400);
            return;
        }
        emu_model_stats_json(s, &r->body);
        emu_resp_json_body(r, 200);
        return;
    default:
        ops_error(s, c, 404, "NotFound", "No such admin endpoint.", NULL);
    }
}
