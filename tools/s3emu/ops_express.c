/*
 * ops_express: S3 Express One Zone, the directory buckets (README, "S3
 * Express One Zone"): their names, CreateBucket with its zone body,
 * ListDirectoryBuckets, CreateSession, who may sign what (session or IAM
 * keys, service s3express), and what they refuse or do otherwise than a
 * general-purpose bucket (storage class, ACLs, versions, ETags, checksums,
 * DeleteObjects keys). Their listing is in ops_list.c; nothing here verifies
 * a signature (auth.c does), it only judges what the signature was.
 */
#include "ops.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "base/hash.h"

#define DIR_SUFFIX "--x-s3"
#define LIST_DIR_MAX 1000

/* ---- names ---- */

/* ZONEID: lower-case letters and digits in '-'-separated runs, ending in "-az" digits. */
static bool zone_id_ok(const char *z, size_t n)
{
    size_t i;

    if (n < 4 || n > 31 || z[0] == '-' || z[n - 1] == '-')
        return false;
    for (i = 0; i < n; i++) {
        if (z[i] == '-' ? z[i + 1] == '-' : !(islower((unsigned char)z[i]) || isdigit((unsigned char)z[i])))
            return false;
    }
    i = n;
    while (i && isdigit((unsigned char)z[i - 1]))
        i--;
    return i < n && i >= 4 && !memcmp(z + i - 3, "-az", 3);
}

bool ops_dir_name_ok(const char *name, char zone[32])
{
    size_t n = strlen(name), sl = strlen(DIR_SUFFIX), i, zs;
    const char *z;

    if (n < 3 || n > 63 || !emu_is_dir_bucket(name))
        return false;
    for (i = 0; i < n; i++)
        if (!(islower((unsigned char)name[i]) || isdigit((unsigned char)name[i]) || name[i] == '-'))
            return false;
    if (!isalnum((unsigned char)name[0]) || !strncmp(name, "xn--", 4) || !strncmp(name, "sthree-", 7))
        return false;
    /* BASE--ZONEID--x-s3: the zone is between the last "--" before the suffix and the suffix. */
    for (zs = n - sl; zs >= 2 && memcmp(name + zs - 2, "--", 2) != 0; zs--)
        ;
    if (zs < 3)     /* no "--", or an empty base */
        return false;
    z = name + zs;
    if (!zone_id_ok(z, n - sl - zs) || name[zs - 3] == '-')
        return false;
    snprintf(zone, 32, "%.*s", (int)(n - sl - zs), z);
    return true;
}

/* ---- who signs what ---- */

static void refuse(struct emu_server *s, struct emu_auth_result *ar, int status, const char *code,
                   const char *msg)
{
    ar->status = status;
    ar->code = code;
    str_copy(ar->msg, sizeof(ar->msg), msg);
    EMU_STAT(s, auth_failures, 1);
}

void ops_express_auth(struct emu_server *s, const struct emu_req *q, struct emu_auth_result *ar,
                      bool session_required)
{
    if (s->anonymous || ar->status || ar->unsigned_request)
        return;
    if (ar->session && (!q->bucket || strcmp(ar->session_bucket, q->bucket) != 0)) {
        refuse(s, ar, 403, "AccessDenied", "Access Denied: the session credentials are for another bucket.");
        return;
    }
    if (!q->express)
        return;
    if (strcmp(ar->scope_service, "s3express") != 0) {
        refuse(s, ar, 403, "SignatureDoesNotMatch", "Credential should be scoped to correct service: 's3express'.");
        return;
    }
    switch (q->op) {
    case OP_CREATE_BUCKET: case OP_DELETE_BUCKET: case OP_LIST_DIRECTORY_BUCKETS: case OP_CREATE_SESSION:
        if (ar->session)
            refuse(s, ar, 403, "AccessDenied", "Access Denied: this operation is signed with IAM "
                   "credentials, not with CreateSession's.");
        return;
    case OP_HEAD_BUCKET: case OP_COPY_OBJECT: case OP_UPLOAD_PART_COPY:
        break;  /* either kind of credentials */
    default:
        if (!ar->session && !ar->presigned && session_required) {
            refuse(s, ar, 403, "AccessDenied", "Access Denied: requests on a directory bucket's zonal "
                   "endpoint must be signed with CreateSession credentials (x-amz-s3session-token).");
            return;
        }
    }
    if (ar->session && ar->session_readonly && emu_op_is_write(q->op))
        refuse(s, ar, 403, "AccessDenied", "Access Denied: the session is ReadOnly.");
}

/* ---- buckets ---- */

struct dir_conf {
    char loc_name[32], loc_type[24], bucket_type[16], redundancy[32];
    char pending_type[24];     /* <Type> seen, its parent not yet closed */
    bool bad;
};

static void dir_conf_cb(void *ctx, const char *name, const char *text, int depth)
{
    struct dir_conf *d = ctx;

    if (depth == 3 && !strcmp(name, "Type")) {
        d->bad |= !str_copy(d->pending_type, sizeof(d->pending_type), text);
    } else if (depth == 3 && !strcmp(name, "Name")) {
        d->bad |= !str_copy(d->loc_name, sizeof(d->loc_name), text);
    } else if (depth == 3 && !strcmp(name, "DataRedundancy")) {
        d->bad |= !str_copy(d->redundancy, sizeof(d->redundancy), text);
    } else if (depth == 2 && !strcmp(name, "Location")) {
        str_copy(d->loc_type, sizeof(d->loc_type), d->pending_type);
        d->pending_type[0] = 0;
    } else if (depth == 2 && !strcmp(name, "Bucket")) {
        str_copy(d->bucket_type, sizeof(d->bucket_type), d->pending_type);
        d->pending_type[0] = 0;
    }
}

static bool acl_headers_refused(struct emu_server *s, struct emu_conn *c)
{
    struct emu_req *q = &c->req;
    struct sv acl = emu_req_header(q, "x-amz-acl");
    int i;

    for (i = 0; i < q->n_hdrs; i++)
        if (sv_starts(q->hdrs[i].name, "x-amz-grant-") || sv_starts(q->hdrs[i].name, "X-Amz-Grant-"))
            break;
    if ((acl.p && !sv_eqs(acl, "bucket-owner-full-control")) || i < q->n_hdrs) {
        ops_error(s, c, 400, "AccessControlListNotSupported", "The bucket does not allow ACLs", NULL);
        return true;
    }
    return false;
}

void ops_create_dir_bucket(struct emu_server *s, struct emu_conn *c, struct emu_bucket *b)
{
    struct emu_req *q = &c->req;
    struct dir_conf d;
    struct emu_bucket *nb;
    char zone[32];
    bool local;

    memset(&d, 0, sizeof(d));
    if (!ops_dir_name_ok(q->bucket, zone)) {
        ops_err_bucket(s, c, 400, "InvalidBucketName", "The specified bucket is not valid.");
        return;
    }
    if (!q->body || !q->body->len) {
        ops_error(s, c, 400, "InvalidRequest", "A directory bucket needs a CreateBucketConfiguration "
                  "with its Location and Bucket.", NULL);
        return;
    }
    if (emu_xml_walk(q->body->data, (size_t)q->body->len, dir_conf_cb, &d) || d.bad) {
        ops_error(s, c, 400, "MalformedXML",
                  "The XML you provided was not well-formed or did not validate against our published schema.", NULL);
        return;
    }
    local = !strcmp(d.loc_type, "LocalZone");
    if (strcmp(d.loc_name, zone) != 0 || (!local && strcmp(d.loc_type, "AvailabilityZone") != 0) ||
        strcmp(d.bucket_type, "Directory") != 0 ||
        strcmp(d.redundancy, local ? "SingleLocalZone" : "SingleAvailabilityZone") != 0) {
        ops_error(s, c, 400, "InvalidArgument", "The CreateBucketConfiguration of a directory bucket needs "
                  "Location Name (the zone of the bucket's name) and Type, and Bucket Type Directory with "
                  "its DataRedundancy.", NULL);
        return;
    }
    if (b) {
        ops_err_bucket(s, c, 409, "BucketAlreadyOwnedByYou",
                       "Your previous request to create the named bucket succeeded and you already own it.");
        return;
    }
    if (acl_headers_refused(s, c))
        return;
    nb = emu_store_bucket_create(s, q->bucket, q->sig_region[0] ? q->sig_region : s->region);
    if (!nb) {
        ops_error(s, c, 500, "InternalError", "Out of memory.", NULL);
        return;
    }
    str_copy(nb->zone, sizeof(nb->zone), zone);
    str_copy(nb->zone_type, sizeof(nb->zone_type), local ? "LocalZone" : "AvailabilityZone");
    emu_resp_header(&c->resp, "Location", "/%s", q->bucket);
    ops_ok_empty(c, 200);
}

void ops_list_dir_buckets(struct emu_server *s, struct emu_conn *c)
{
    struct emu_req *q = &c->req;
    const char *token = emu_req_param(q, "continuation-token");
    const char *mx = emu_req_param(q, "max-directory-buckets");
    struct buf *x = &c->resp.body, after = BUF_INIT(256);
    struct emu_sl_node *n;
    uint64_t max = LIST_DIR_MAX;
    int count = 0;
    char t[48];

    if (mx && (!sv_to_u64(sv_from(mx), &max) || max > LIST_DIR_MAX)) {
        ops_error(s, c, 400, "InvalidArgument", "max-directory-buckets must be an integer from 0 to 1000.", NULL);
        goto out;
    }
    if (token && *token && base64_decode(sv_from(token), &after)) {
        ops_error(s, c, 400, "InvalidArgument", "The continuation token provided is incorrect", NULL);
        goto out;
    }
    n = after.len ? emu_sl_seek(&s->buckets, after.data, after.len, 1) : emu_sl_first(&s->buckets);
    ops_xml_open(x, "ListAllMyDirectoryBucketsResult");
    buf_adds(x, "<Buckets>");
    for (; n; n = emu_sl_next(n)) {
        struct emu_bucket *b = n->val;

        if (!b->directory)
            continue;
        if ((uint64_t)count == max)
            break;
        ops_iso_time(b->created_ms, t);
        buf_adds(x, "<Bucket>");
        emu_xml_elem(x, "Name", b->name);
        emu_xml_elem(x, "CreationDate", t);
        emu_xml_elem(x, "BucketRegion", b->region);
        buf_addf(x, "<BucketArn>arn:aws:s3express:%s:000000000000:bucket/", b->region);
        emu_xml_esc(x, b->name, strlen(b->name));
        buf_adds(x, "</BucketArn></Bucket>");
        count++;
        buf_reset(&after);
        buf_adds(&after, b->name);
    }
    buf_adds(x, "</Buckets>");
    for (; n && !((struct emu_bucket *)n->val)->directory; n = emu_sl_next(n))
        ;
    if (n) {    /* more remain */
        struct buf tok = BUF_INIT(256);
        base64_encode(after.data, after.len, &tok);
        emu_xml_elem(x, "ContinuationToken", buf_cstr(&tok));
        buf_release(&tok);
    }
    buf_adds(x, "</ListAllMyDirectoryBucketsResult>");
    ops_ok_xml(c);
out:
    buf_release(&after);
}

void ops_create_session(struct emu_server *s, struct emu_conn *c, struct emu_bucket *b)
{
    struct sv mode = emu_req_header(&c->req, "x-amz-create-session-mode");
    struct buf *x = &c->resp.body, token = BUF_INIT(512);
    char akid[24], secret[48], t[48];
    bool readonly = false;
    int64_t exp;

    if (!b->directory) {
        ops_error(s, c, 501, "NotImplemented", "CreateSession is an operation of directory buckets.", NULL);
        goto out;
    }
    if (mode.p && sv_eqs(mode, "ReadOnly"))
        readonly = true;
    else if (mode.p && !sv_eqs(mode, "ReadWrite")) {
        ops_error(s, c, 400, "InvalidArgument", "x-amz-create-session-mode must be ReadWrite or ReadOnly.", NULL);
        goto out;
    }
    /* The model's settings may be read under the store lock (struct emu_server). */
    exp = (int64_t)time(NULL) + (int64_t)(s->model.express_session_s > 0 ? s->model.express_session_s : 1);
    emu_auth_session_issue(s, b->name, readonly, exp, akid, secret, &token);
    ops_iso_time(exp * 1000, t);
    ops_xml_open(x, "CreateSessionResult");
    buf_adds(x, "<Credentials>");
    emu_xml_elem(x, "SessionToken", buf_cstr(&token));
    emu_xml_elem(x, "SecretAccessKey", secret);
    emu_xml_elem(x, "AccessKeyId", akid);
    emu_xml_elem(x, "Expiration", t);
    buf_adds(x, "</Credentials></CreateSessionResult>");
    emu_resp_header(&c->resp, "x-amz-server-side-encryption", "AES256");
    ops_ok_xml(c);
out:
    buf_release(&token);
}

/* ---- what directory buckets refuse or do otherwise ---- */

bool ops_express_refuse(struct emu_server *s, struct emu_conn *c, struct emu_bucket *b)
{
    struct emu_req *q = &c->req;
    const char *vid = emu_req_param(q, "versionId");

    switch (q->op) {
    case OP_LIST_OBJECTS: case OP_LIST_OBJECT_VERSIONS: case OP_GET_BUCKET_VERSIONING:
    case OP_PUT_BUCKET_VERSIONING: case OP_GET_BUCKET_LOCATION: case OP_GET_BUCKET_ACL:
    case OP_PUT_BUCKET_ACL: case OP_GET_OBJECT_ACL: case OP_PUT_OBJECT_ACL:
    case OP_GET_OBJECT_TAGGING: case OP_PUT_OBJECT_TAGGING: case OP_DELETE_OBJECT_TAGGING:
        ops_error(s, c, 501, "NotImplemented", "This operation is not supported by directory buckets.", NULL);
        return true;
    case OP_PUT_OBJECT: case OP_APPEND_OBJECT: case OP_COPY_OBJECT: case OP_CREATE_MPU: {
        struct sv sc = emu_req_header(q, "x-amz-storage-class");

        if (sc.p && !sv_eqs(sc, "EXPRESS_ONEZONE")) {
            ops_error(s, c, 400, "InvalidStorageClass", "The storage class you specified is not valid", NULL);
            return true;
        }
        if (acl_headers_refused(s, c))
            return true;
        if (emu_req_header(q, "x-amz-tagging").p) {
            ops_error(s, c, 501, "NotImplemented", "Object tagging is not supported by directory buckets.", NULL);
            return true;
        }
        break;
    }
    default:
        break;
    }
    if (vid && strcmp(vid, "null") != 0) {
        ops_error(s, c, 400, "InvalidArgument", "Invalid version id specified", NULL);
        return true;
    }
    (void)b;
    return false;
}

/* 32 random hex digits, quoted: a directory bucket's ETags are not MD5s. */
static void random_etag(struct emu_server *s, char out[48])
{
    out[0] = '"';
    emu_random_hex(s, out + 1, 32);
    out[33] = '"';
    out[34] = 0;
}

void ops_express_body(struct emu_server *s, struct emu_conn *c, struct body_check *bc)
{
    struct emu_blob *body = c->req.body;

    random_etag(s, bc->etag);
    if ((c->req.op == OP_PUT_OBJECT || c->req.op == OP_APPEND_OBJECT) && !bc->ck.algo[0]) {
        bc->ck_ours = true;
        str_copy(bc->ck.algo, sizeof(bc->ck.algo), "CRC32");
        str_copy(bc->ck.type, sizeof(bc->ck.type), "FULL_OBJECT");
        ops_ck_b64("CRC32", body ? body->data : "", body ? (size_t)body->len : 0, bc->ck.value);
    }
}

void ops_express_obj(struct emu_server *s, struct emu_bucket *b, struct emu_obj *o)
{
    if (!b->directory)
        return;
    str_copy(o->storage_class, sizeof(o->storage_class), "EXPRESS_ONEZONE");
    emu_tags_release(&o->tags); /* a copy's source's tags stay behind: directory buckets have none */
    random_etag(s, o->etag);
    if (!o->ck.algo[0] && o->blob) {
        str_copy(o->ck.algo, sizeof(o->ck.algo), "CRC32");
        str_copy(o->ck.type, sizeof(o->ck.type), "FULL_OBJECT");
        ops_ck_b64("CRC32", o->blob->data, (size_t)o->size, o->ck.value);
    }
}

bool ops_express_delete_key_ok(const char *key)
{
    const unsigned char *p = (const unsigned char *)key;
    bool visible = false;

    for (; *p; p++) {
        if ((*p < 0x20 && *p != '\t' && *p != '\n' && *p != '\r') || *p == 0x7f)
            return false;
        if (!isspace(*p))
            visible = true;
    }
    return visible;
}
