/*
 * ops: the front of s3emu's S3 operations. emu_ops_on_head() names the
 * operation as soon as the request head is in (so faults and body caps apply
 * before the body is read); emu_ops_handle() runs it once the body is in:
 * faults, rate limits, SigV4, payload checks, then dispatch() to the file of
 * its API family (ops.h lists them) under the store lock. No operation's
 * reply is built here, only the refusals that come before any operation.
 */
#include "ops.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* ---- classification ---- */

static bool has_param(const struct emu_req *q, const char *name)
{
    return emu_req_param(q, name) != NULL;
}

/* Bucket from a virtual-hosted Host ("b.localhost:9000", "b.s3.us-east-1.amazonaws.com"). */
static char *vhost_bucket(const struct emu_req *q)
{
    struct sv h = emu_req_header(q, "host");
    const char *colon, *cut = NULL;
    size_t i;

    if (!h.p)
        return NULL;
    colon = memchr(h.p, ':', h.n);
    if (colon)
        h.n = (size_t)(colon - h.p);
    if (h.n > 10 && strncasecmp(h.p + h.n - 10, ".localhost", 10) == 0)
        cut = h.p + h.n - 10;
    for (i = 1; !cut && i + 11 <= h.n; i++)     /* BUCKET.s3express-ZONEID.REGION.amazonaws.com */
        if (!strncasecmp(h.p + i, ".s3express-", 11))
            cut = h.p + i;
    for (i = 1; !cut && i + 4 <= h.n; i++)
        if (h.p[i] == '.' && h.p[i + 1] == 's' && h.p[i + 2] == '3' &&
            (h.p[i + 3] == '.' || h.p[i + 3] == '-'))
            cut = h.p + i;
    if (!cut || cut == h.p)
        return NULL;
    return sv_dup((struct sv){ h.p, (size_t)(cut - h.p) });
}

/* Subresources S3 has and the emulator does not: answered 501, never mistaken for data ops. */
static const char *const unsupported[] = {
    "policy", "lifecycle", "cors", "website", "logging", "notification",
    "replication", "object-lock", "retention", "legal-hold", "torrent",
    "select", "analytics", "metrics", "inventory", "intelligent-tiering", "ownershipControls",
    "publicAccessBlock", "accelerate", "requestPayment", "attributes", "policyStatus",
};

/*
 * GET / is ListDirectoryBuckets rather than ListBuckets when it is signed
 * for s3express, asks for max-directory-buckets, or goes to the regional
 * s3express-control host (README, "S3 Express One Zone").
 */
static bool list_directory(const struct emu_req *q)
{
    struct sv authz = emu_req_header(q, "authorization"), host = emu_req_header(q, "host");
    const char *cred = emu_req_param(q, "X-Amz-Credential");

    return has_param(q, "max-directory-buckets") || sv_starts(host, "s3express-control.") ||
           (authz.p && memmem(authz.p, authz.n, "/s3express/aws4_request", 23)) ||
           (cred && strstr(cred, "/s3express/aws4_request"));
}

static enum emu_op classify(const struct emu_req *q)
{
    bool get = sv_eqs(q->method, "GET"), put = sv_eqs(q->method, "PUT");
    bool head = sv_eqs(q->method, "HEAD"), del = sv_eqs(q->method, "DELETE");
    bool post = sv_eqs(q->method, "POST");
    size_t i;

    for (i = 0; i < sizeof(unsupported) / sizeof(unsupported[0]); i++)
        if (has_param(q, unsupported[i]))
            return OP_UNKNOWN;
    if (!q->bucket)
        return !get ? OP_UNKNOWN : list_directory(q) ? OP_LIST_DIRECTORY_BUCKETS : OP_LIST_BUCKETS;
    if (has_param(q, "tagging")) {  /* objects' tags; a bucket's are not modelled */
        if (!q->key)
            return OP_UNKNOWN;
        return get ? OP_GET_OBJECT_TAGGING : put ? OP_PUT_OBJECT_TAGGING : del ? OP_DELETE_OBJECT_TAGGING
                                                                              : OP_UNKNOWN;
    }
    if (has_param(q, "acl") && (get || put)) {
        if (!q->key)
            return get ? OP_GET_BUCKET_ACL : OP_PUT_BUCKET_ACL;
        return get ? OP_GET_OBJECT_ACL : OP_PUT_OBJECT_ACL;
    }
    if (has_param(q, "encryption")) /* a bucket's default encryption: only its BlockedEncryptionTypes */
        return q->key ? OP_UNKNOWN : get ? OP_GET_BUCKET_ENCRYPTION : put ? OP_PUT_BUCKET_ENCRYPTION : OP_UNKNOWN;
    if (!q->key) {
        if (put)
            return has_param(q, "versioning") ? OP_PUT_BUCKET_VERSIONING : OP_CREATE_BUCKET;
        if (head)
            return OP_HEAD_BUCKET;
        if (del)
            return OP_DELETE_BUCKET;
        if (post)
            return has_param(q, "delete") ? OP_DELETE_OBJECTS : OP_UNKNOWN;
        if (get) {
            if (has_param(q, "session"))
                return OP_CREATE_SESSION;
            if (has_param(q, "location"))
                return OP_GET_BUCKET_LOCATION;
            if (has_param(q, "versioning"))
                return OP_GET_BUCKET_VERSIONING;
            if (has_param(q, "uploads"))
                return OP_LIST_MPUS;
            if (has_param(q, "versions"))
                return OP_LIST_OBJECT_VERSIONS;
            {
                const char *lt = emu_req_param(q, "list-type");
                return lt && strcmp(lt, "2") == 0 ? OP_LIST_OBJECTS_V2 : OP_LIST_OBJECTS;
            }
        }
        return OP_UNKNOWN;
    }
    if (put) {
        bool copy = emu_req_header(q, "x-amz-copy-source").p != NULL;

        if (has_param(q, "uploadId"))
            return copy ? OP_UPLOAD_PART_COPY : OP_UPLOAD_PART;
        if (has_param(q, "renameObject"))
            return OP_RENAME_OBJECT;
        if (!copy && emu_req_header(q, "x-amz-write-offset-bytes").p)
            return OP_APPEND_OBJECT;
        return copy ? OP_COPY_OBJECT : OP_PUT_OBJECT;
    }
    if (get)
        return has_param(q, "uploadId") ? OP_LIST_PARTS : OP_GET_OBJECT;
    if (head)
        return OP_HEAD_OBJECT;
    if (del)
        return has_param(q, "uploadId") ? OP_ABORT_MPU : OP_DELETE_OBJECT;
    if (post) {
        if (has_param(q, "restore"))
            return OP_RESTORE_OBJECT;
        if (has_param(q, "uploads"))
            return OP_CREATE_MPU;
        if (has_param(q, "uploadId"))
            return OP_COMPLETE_MPU;
    }
    return OP_UNKNOWN;
}

void emu_ops_on_head(struct emu_server *s, struct emu_conn *c)
{
    struct emu_req *q = &c->req;
    struct sv path = q->path_raw;

    if (sv_starts(path, "/_s3emu/")) {
        if (sv_eqs(path, "/_s3emu/stats"))
            q->op = sv_eqs(q->method, "DELETE") ? OP_ADMIN_RESET : OP_ADMIN_STATS;
        else if (sv_eqs(path, "/_s3emu/config"))
            q->op = OP_ADMIN_CONFIG;
        else if (sv_eqs(path, "/_s3emu/reset"))
            q->op = OP_ADMIN_RESET;
        else if (sv_eqs(path, "/_s3emu/populate"))
            q->op = OP_ADMIN_POPULATE;
        q->body_max = 1 << 20;
        return;
    }
    q->bucket = vhost_bucket(q);
    if (path.n && path.p[0] == '/')
        path.p++, path.n--;
    if (!q->bucket && path.n) {
        const char *sl = memchr(path.p, '/', path.n);
        size_t bl = sl ? (size_t)(sl - path.p) : path.n;
        size_t dl;

        q->bucket = ops_decode_path((struct sv){ path.p, bl }, &dl);
        path.p += bl;
        path.n -= bl;
        if (path.n)
            path.p++, path.n--;
        if (sl && !path.n)
            path.n = 0;
    }
    if (q->bucket && path.n)
        q->key = ops_decode_path(path, &q->klen);
    q->op = classify(q);
    q->express = emu_is_dir_bucket(q->bucket) || q->op == OP_LIST_DIRECTORY_BUCKETS;
    EMU_STAT(s, requests, 1);
    EMU_STAT(s, listener_reqs[c->lidx], 1);
    EMU_STAT(s, by_op[q->op], 1);
    q->body_max = (q->op == OP_PUT_OBJECT || q->op == OP_UPLOAD_PART || q->op == OP_APPEND_OBJECT) ? EMU_BODY_MAX
                                                                                                  : EMU_XML_BODY_MAX;
    q->fault = emu_model_pick_fault(s, q, &q->fault_arg);
    if (q->fault == FAULT_RESET)
        c->resp.reset_now = true;
}

/* ---- the dispatcher ---- */

static bool needs_bucket(enum emu_op op)
{
    return op != OP_LIST_BUCKETS && op != OP_CREATE_BUCKET && op != OP_LIST_DIRECTORY_BUCKETS &&
           op != OP_UNKNOWN;
}

static void apply_fault(struct emu_server *s, struct emu_conn *c)
{
    struct emu_req *q = &c->req;
    struct emu_resp *r = &c->resp;
    bool body = r->blen > 0 && !r->no_body;

    switch (q->fault) {
    case FAULT_RESET_MID:
        if (body) {
            r->cut_at = r->blen / 2;
            r->cut_rst = 1;
        } else if (!q->body) {
            r->reset_now = true;
        }
        break;
    case FAULT_TRUNCATE:
        if (body) {
            r->cut_at = r->blen / 2;
            r->cut_rst = 0;
        } else {
            r->reset_now = true;
        }
        break;
    case FAULT_SLOW:
        r->slow_bps = q->fault_arg > 0 ? q->fault_arg : 65536;
        break;
    case FAULT_CORRUPT:
        if (body) {
            r->corrupt_copy = malloc((size_t)r->blen);
            if (r->corrupt_copy) {
                memcpy(r->corrupt_copy, r->bp, (size_t)r->blen);
                r->corrupt_copy[r->blen / 2] ^= 0x01;
                r->bp = r->corrupt_copy;
            }
        }
        break;
    default:
        break;
    }
}

static bool precheck_locked(struct emu_server *s, struct emu_conn *c)
{
    struct emu_req *q = &c->req;
    struct emu_bucket *b = q->bucket ? emu_store_bucket(s, q->bucket) : NULL;
    struct emu_auth_result ar;

    emu_auth_check(s, q, (b && q->op != OP_CREATE_BUCKET) ? b->region : NULL, &ar);
    if (ar.status && ar.unsigned_request && b && ops_public_allows(b, q)) {
        EMU_STAT(s, auth_failures, -1);
        ar.status = 0;
    }
    ops_express_auth(s, q, &ar, s->model.express_session_required);
    if (ar.status) {
        struct buf x = BUF_INIT(256);
        if (ar.region_hint[0])
            emu_xml_elem(&x, "Region", ar.region_hint);
        ops_error(s, c, ar.status, ar.code, ar.msg, buf_cstr(&x));
        buf_release(&x);
        return true;
    }
    if (needs_bucket(q->op) && !b) {
        ops_no_such_bucket(s, c);
        return true;
    }
    if ((q->op == OP_UPLOAD_PART) && !emu_store_upload(b, q->key, q->klen, emu_req_param(q, "uploadId") ?
                                                        emu_req_param(q, "uploadId") : "")) {
        ops_no_such_upload(s, c);
        return true;
    }
    return false;
}

bool emu_ops_precheck(struct emu_server *s, struct emu_conn *c)
{
    bool answered;

    if (c->req.op >= OP_ADMIN_STATS || c->req.fault != FAULT_NONE)
        return false; /* faults play out on the full request */
    emu_store_lock(s, false);
    answered = precheck_locked(s, c);
    emu_store_unlock(s);
    return answered;
}

/*
 * The request's signature, checked against the region of its bucket; an
 * unsigned request passes where canned ACLs allow it. The store is read
 * under its lock only for the region and the ACLs, never during the HMACs.
 */
static void check_auth(struct emu_server *s, struct emu_req *q, struct emu_auth_result *ar)
{
    struct emu_bucket *b;
    char region[32] = "";
    bool has_bucket = false, session_required;

    emu_store_lock(s, false);
    b = q->bucket ? emu_store_bucket(s, q->bucket) : NULL;
    if (b) {
        has_bucket = true;
        str_copy(region, sizeof(region), b->region);
    }
    session_required = s->model.express_session_required;
    emu_store_unlock(s);
    emu_auth_check(s, q, (has_bucket && q->op != OP_CREATE_BUCKET) ? region : NULL, ar);
    if (ar->status && ar->unsigned_request && has_bucket) {
        emu_store_lock(s, false);
        b = emu_store_bucket(s, q->bucket);
        if (b && ops_public_allows(b, q)) {
            EMU_STAT(s, auth_failures, -1);
            memset(ar, 0, sizeof(*ar));
        }
        emu_store_unlock(s);
    }
    ops_express_auth(s, q, ar, session_required);
    if (!ar->status)
        str_copy(q->sig_region, sizeof(q->sig_region), ar->scope_region);
}

static void dispatch(struct emu_server *s, struct emu_conn *c, struct emu_bucket *b,
                     const struct body_check *bc);

void emu_ops_handle(struct emu_server *s, struct emu_conn *c)
{
    struct emu_req *q = &c->req;
    struct emu_resp *r = &c->resp;
    struct emu_bucket *b = NULL;
    struct emu_auth_result ar;
    struct body_check bc;

    if (q->op >= OP_ADMIN_STATS) {
        ops_admin(s, c);
        return;
    }
    if (q->fault == FAULT_500) {
        ops_error(s, c, 500, "InternalError", "We encountered an internal error. Please try again.", NULL);
        goto model;
    }
    if (q->fault == FAULT_503) {
        ops_error(s, c, 503, "SlowDown", "Please reduce your request rate.", NULL);
        goto model;
    }
    if (q->fault == FAULT_501) {
        ops_error(s, c, 501, "NotImplemented", "A header you provided implies functionality that is not "
                  "implemented", NULL);
        goto model;
    }
    if (q->fault == FAULT_409 && q->op != OP_COMPLETE_MPU) { /* Complete's: ops_complete_mpu */
        ops_error(s, c, 409, "ConditionalRequestConflict", "A conflicting operation occurred. If using "
                  "PutObject you can retry the request. If using multipart upload you should initiate "
                  "another CreateMultipartUpload request and re-upload each part.", NULL);
        goto model;
    }
    if (q->fault == FAULT_DENY) {
        ops_error(s, c, 403, "AccessDenied", "Access Denied", NULL);
        goto model;
    }
    if (emu_model_rate_limited(s, q)) {
        ops_error(s, c, 503, "SlowDown", "Please reduce your request rate.", NULL);
        goto model;
    }
    check_auth(s, q, &ar);
    if (ar.status) {
        struct buf x = BUF_INIT(256);
        if (ar.region_hint[0]) {
            emu_xml_elem(&x, "Region", ar.region_hint);
        }
        ops_error(s, c, ar.status, ar.code, ar.msg, buf_cstr(&x));
        if (ar.region_hint[0])
            emu_resp_header(r, "x-amz-bucket-region", "%s", ar.region_hint);
        buf_release(&x);
        goto model;
    }
    memset(&bc, 0, sizeof(bc));
    if (q->op == OP_PUT_OBJECT || q->op == OP_UPLOAD_PART || q->op == OP_APPEND_OBJECT) {
        /* Checked now, outside the lock; its error is sent unless an earlier check answers. */
        ops_body_prepare(s, c, &ar, &bc);
        if (q->express && !bc.rc)
            ops_express_body(s, c, &bc);
    } else if (q->body) {
        /* Small bodies (XML): only the framing and digests matter. */
        struct emu_cksum ck;
        if (ops_check_payload(s, c, &ar, &ck))
            goto model;
    }
    if (q->op == OP_UNKNOWN) {
        ops_error(s, c, 501, "NotImplemented", "A header or query you provided implies functionality that is "
                  "not implemented.", NULL);
        goto model;
    }
    emu_store_lock(s, emu_op_is_write(q->op));
    if (q->bucket)
        b = emu_store_bucket(s, q->bucket); /* again: it may have gone since check_auth */
    dispatch(s, c, b, &bc);
    emu_store_unlock(s);
    /* Done, and the client is told it failed: its retry finds its write there already. */
    if (q->fault == FAULT_LOST_REPLY && r->status >= 200 && r->status < 300)
        ops_error(s, c, 500, "InternalError", "We encountered an internal error. Please try again.", NULL);
model:
    if (!q->latency_spent)
        r->delay_ns += emu_model_latency_ns(s, q);
    apply_fault(s, c);
}

/* The operation itself, under the store lock (shared for reads, exclusive for changes). */
static void dispatch(struct emu_server *s, struct emu_conn *c, struct emu_bucket *b,
                     const struct body_check *bc)
{
    struct emu_req *q = &c->req;

    if (needs_bucket(q->op) && !b) {
        ops_no_such_bucket(s, c);
        return;
    }
    if (q->key && q->klen > MAX_KEY_BYTES) {
        ops_err_key(s, c, 400, "KeyTooLongError", "Your key is too long");
        return;
    }
    if (b && b->directory && ops_express_refuse(s, c, b))
        return;
    switch (q->op) {
    case OP_LIST_BUCKETS: ops_list_buckets(s, c); break;
    case OP_LIST_DIRECTORY_BUCKETS: ops_list_dir_buckets(s, c); break;
    case OP_CREATE_SESSION: ops_create_session(s, c, b); break;
    case OP_CREATE_BUCKET:
        if (emu_is_dir_bucket(q->bucket))
            ops_create_dir_bucket(s, c, b);
        else
            ops_create_bucket(s, c, b);
        break;
    case OP_HEAD_BUCKET: ops_head_bucket(s, c, b); break;
    case OP_DELETE_BUCKET: ops_delete_bucket(s, c, b); break;
    case OP_GET_BUCKET_LOCATION: ops_get_location(s, c, b); break;
    case OP_GET_BUCKET_VERSIONING: ops_get_versioning(s, c, b); break;
    case OP_PUT_BUCKET_VERSIONING: ops_put_versioning(s, c, b); break;
    case OP_GET_BUCKET_ENCRYPTION: ops_get_encryption(s, c, b); break;
    case OP_PUT_BUCKET_ENCRYPTION: ops_put_encryption(s, c, b); break;
    case OP_LIST_OBJECTS: ops_list_objects(s, c, b, false); break;
    case OP_LIST_OBJECTS_V2:
        if (b->directory)
            ops_list_dir_objects(s, c, b);
        else
            ops_list_objects(s, c, b, true);
        break;
    case OP_LIST_OBJECT_VERSIONS: ops_list_versions(s, c, b); break;
    case OP_PUT_OBJECT: ops_put_object(s, c, b, bc); break;
    case OP_APPEND_OBJECT: ops_append_object(s, c, b, bc); break;
    case OP_GET_OBJECT: ops_get_object(s, c, b, false); break;
    case OP_HEAD_OBJECT: ops_get_object(s, c, b, true); break;
    case OP_DELETE_OBJECT: ops_delete_object(s, c, b); break;
    case OP_DELETE_OBJECTS: ops_delete_objects(s, c, b); break;
    case OP_COPY_OBJECT: ops_copy_object(s, c, b); break;
    case OP_RENAME_OBJECT: ops_rename_object(s, c, b); break;
    case OP_CREATE_MPU: ops_create_mpu(s, c, b); break;
    case OP_UPLOAD_PART: ops_upload_part(s, c, b, bc, false); break;
    case OP_UPLOAD_PART_COPY: ops_upload_part(s, c, b, bc, true); break;
    case OP_COMPLETE_MPU: ops_complete_mpu(s, c, b); break;
    case OP_ABORT_MPU: ops_abort_mpu(s, c, b); break;
    case OP_LIST_PARTS: ops_list_parts(s, c, b); break;
    case OP_LIST_MPUS: ops_list_mpus(s, c, b); break;
    case OP_GET_BUCKET_ACL:
    case OP_PUT_BUCKET_ACL:
    case OP_GET_OBJECT_ACL:
    case OP_PUT_OBJECT_ACL: ops_acl(s, c, b); break;
    case OP_GET_OBJECT_TAGGING: ops_get_tagging(s, c, b); break;
    case OP_PUT_OBJECT_TAGGING: ops_put_tagging(s, c, b); break;
    case OP_DELETE_OBJECT_TAGGING: ops_delete_tagging(s, c, b); break;
    case OP_RESTORE_OBJECT: ops_restore_object(s, c, b); break;
    default:
        ops_error(s, c, 501, "NotImplemented", "Not implemented.", NULL);
    }
}

void emu_ops_error(struct emu_server *s, struct emu_conn *c, int status, const char *code,
                   const char *msg)
{
    ops_error(s, c, status, code, msg, NULL);
}
