/*
 * ops_acl: canned ACLs: the x-amz-acl of a request, Get/Put Bucket and
 * Object ACL, and what an unsigned request may do under them. Grants other
 * than AllUsers READ/WRITE are not modelled; signatures are not checked here.
 */
#include "ops.h"

#include <string.h>

static const char *const canned_acls[] = {
    "private", "public-read", "public-read-write", "authenticated-read", "aws-exec-read",
    "bucket-owner-read", "bucket-owner-full-control", "log-delivery-write",
};

/*
 * The x-amz-acl of the request into 'out' ("private" when absent).
 * false (answered 400) for an unknown canned ACL.
 */
bool ops_request_acl(struct emu_server *s, struct emu_conn *c, char out[32])
{
    struct sv v = emu_req_header(&c->req, "x-amz-acl");
    size_t i;

    str_copy(out, 32, "private");
    if (!v.p)
        return true;
    for (i = 0; i < sizeof(canned_acls) / sizeof(canned_acls[0]); i++) {
        if (sv_eqs(v, canned_acls[i])) {
            str_copy(out, 32, canned_acls[i]);
            return true;
        }
    }
    ops_error(s, c, 400, "InvalidArgument", "The canned ACL you provided is not valid.", NULL);
    return false;
}

static void acl_xml(struct buf *x, const char *acl)
{
    static const char grantee_user[] =
        "<Grantee xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" xsi:type=\"CanonicalUser\">"
        "<ID>" OWNER_ID "</ID><DisplayName>" OWNER_NAME "</DisplayName></Grantee>";
    static const char all_users[] =
        "<Grantee xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" xsi:type=\"Group\">"
        "<URI>http://acs.amazonaws.com/groups/global/AllUsers</URI></Grantee>";

    ops_xml_open(x, "AccessControlPolicy");
    ops_owner_xml(x, "Owner");
    buf_addf(x, "<AccessControlList><Grant>%s<Permission>FULL_CONTROL</Permission></Grant>", grantee_user);
    if (!strcmp(acl, "public-read") || !strcmp(acl, "public-read-write"))
        buf_addf(x, "<Grant>%s<Permission>READ</Permission></Grant>", all_users);
    if (!strcmp(acl, "public-read-write"))
        buf_addf(x, "<Grant>%s<Permission>WRITE</Permission></Grant>", all_users);
    buf_adds(x, "</AccessControlList></AccessControlPolicy>");
}

/* PUT ?acl: a canned ACL header, or a grant list (AllUsers READ/WRITE is all we model). */
static void put_acl(struct emu_server *s, struct emu_conn *c, char acl[32])
{
    struct emu_req *q = &c->req;
    char v[32];

    if (emu_req_header(q, "x-amz-acl").p) {
        if (!ops_request_acl(s, c, v))
            return;
    } else if (q->body && q->body->len) {
        const char *d = q->body->data;
        size_t n = (size_t)q->body->len;
        bool all = memmem(d, n, "AllUsers", 8) != NULL;
        str_copy(v, sizeof(v), !all ? "private"
                 : memmem(d, n, "<Permission>WRITE</Permission>", 30) ? "public-read-write" : "public-read");
    } else {
        ops_error(s, c, 400, "MissingSecurityHeader", "Your request was missing a required header",
                  "<MissingHeaderName>x-amz-acl</MissingHeaderName>");
        return;
    }
    str_copy(acl, 32, v);
    ops_ok_empty(c, 200);
}

/* May an unsigned request do this, given the canned ACLs of the bucket and the object? */
bool ops_public_allows(struct emu_bucket *b, struct emu_req *q)
{
    bool bucket_read = !strcmp(b->acl, "public-read") || !strcmp(b->acl, "public-read-write");
    bool bucket_write = !strcmp(b->acl, "public-read-write");

    switch (q->op) {
    case OP_HEAD_BUCKET: case OP_LIST_OBJECTS: case OP_LIST_OBJECTS_V2: case OP_LIST_OBJECT_VERSIONS:
    case OP_GET_BUCKET_LOCATION: case OP_LIST_MPUS:
        return bucket_read;
    case OP_GET_OBJECT: case OP_HEAD_OBJECT: {
        struct emu_obj *o = emu_store_get(b, q->key, q->klen, emu_req_param(q, "versionId"));
        if (!o || o->delete_marker)
            return bucket_read; /* S3 answers 404 to those who may list, 403 to others */
        return !strcmp(o->acl, "public-read") || !strcmp(o->acl, "public-read-write");
    }
    case OP_PUT_OBJECT: case OP_DELETE_OBJECT: case OP_DELETE_OBJECTS: case OP_CREATE_MPU:
    case OP_UPLOAD_PART: case OP_COMPLETE_MPU: case OP_ABORT_MPU:
        return bucket_write;
    default:
        return false;
    }
}

/* Get/Put Bucket and Object ACL. */
void ops_acl(struct emu_server *s, struct emu_conn *c, struct emu_bucket *b)
{
    struct emu_req *q = &c->req;
    struct emu_obj *o;

    if (q->op == OP_GET_BUCKET_ACL) {
        acl_xml(&c->resp.body, b->acl);
        ops_ok_xml(c);
        return;
    }
    if (q->op == OP_PUT_BUCKET_ACL) {
        put_acl(s, c, b->acl);
        return;
    }
    o = ops_find_obj(s, c, b, q->key, q->klen, emu_req_param(q, "versionId"));
    if (!o)
        return;
    if (q->op == OP_PUT_OBJECT_ACL) {
        put_acl(s, c, o->acl);
    } else {
        acl_xml(&c->resp.body, o->acl);
        ops_ok_xml(c);
    }
}
