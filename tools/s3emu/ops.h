/*
 * ops: what the files of s3emu's S3 operations share, and nothing else is
 * to include. ops.c names a request and dispatches it; each ops_*.c is one
 * API family and answers only through the reply helpers of ops_reply.c, so
 * every answer is built as S3 builds it. net.c sees ops through emu.h only.
 *
 * Reading order: ops.c (classify, checks, dispatch) -> ops_reply.c (errors,
 * XML pieces, times) -> ops_payload.c (body checks, checksums, stored
 * headers, SSE-C) -> ops_object.c -> ops_mpu.c -> ops_bucket.c ->
 * ops_list.c -> ops_version.c -> ops_acl.c -> ops_tagging.c -> ops_express.c ->
 * ops_admin.c.
 *
 * Every operation runs under the store lock that emu_ops_handle() takes
 * (shared for reads, exclusive for changes) and answers in c->resp,
 * an error included; none of them takes a lock or touches the network.
 */
#ifndef S3EMU_OPS_H
#define S3EMU_OPS_H

#include "emu.h"
#include "store.h"

#define XMLNS "http://s3.amazonaws.com/doc/2006-03-01/"
#define XML_DECL "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
#define OWNER_ID "75aa57f09aa0c8caeab4f8c24e99d10f8e7faeebf76c078efc7c6caea54ba06a"
#define OWNER_NAME "s3emu"
#define MAX_KEY_BYTES 1024

/*
 * What PutObject and UploadPart learn of their body before the store lock is
 * taken: the payload checks (aws-chunked decoding, signatures, digests), the
 * ETag and the move to --dir, all of it work that grows with the body, so
 * none of it runs while other workers wait for the store.
 */
struct body_check {
    int rc;                 /* 0, or -1 with the error in c->resp (sent unless a check
                             * that comes first in S3's order fails too and answers instead) */
    struct emu_cksum ck;    /* the verified x-amz-checksum (algo "" if none) */
    bool ck_ours;           /* ck is the CRC32 a directory bucket computes, not the request's */
    char etag[48];          /* the payload's MD5, quoted */
};

/* ---- ops_reply.c: times, ETags, XML pieces, errors, empty answers ---- */

void ops_iso_time(int64_t ms, char out[48]);
void ops_http_time(int64_t ms, char out[40]);
/* The quoted hex MD5 of p[0..n), as an ETag. */
void ops_md5_etag(const void *p, size_t n, char out[48]);
/* The time a server-side copy of 'bytes' takes by the model (copy_ms, copy_mbps), in ns. */
int64_t ops_copy_delay_ns(struct emu_server *s, uint64_t bytes);
/* Compare ETags ignoring quotes and a W/ prefix; "*" matches anything. */
bool ops_etag_match(struct sv want, const char *have);
/* <name>s[0..n)</name>, escaped, and URL-encoded first when 'url' (encoding-type=url). */
void ops_xml_key(struct buf *b, const char *name, const char *s, size_t n, bool url);
/* The XML declaration and <root xmlns="...">. */
void ops_xml_open(struct buf *b, const char *root);
void ops_owner_xml(struct buf *b, const char *tag);
/* Replace c->resp with an S3 <Error> (extra_xml, may be NULL, goes inside it). */
void ops_error(struct emu_server *s, struct emu_conn *c, int status, const char *code,
               const char *msg, const char *extra_xml);
/* The same with <Key> (of the request) or <BucketName>. */
void ops_err_key(struct emu_server *s, struct emu_conn *c, int status, const char *code,
                 const char *msg);
void ops_err_bucket(struct emu_server *s, struct emu_conn *c, int status, const char *code,
                    const char *msg);
void ops_no_such_bucket(struct emu_server *s, struct emu_conn *c);
void ops_no_such_key(struct emu_server *s, struct emu_conn *c);
void ops_no_such_upload(struct emu_server *s, struct emu_conn *c);
/* 200 with c->resp.body as XML; 'status' with no body. */
void ops_ok_xml(struct emu_conn *c);
void ops_ok_empty(struct emu_conn *c, int status);
/* Percent-decode a path segment; malloc'd, its length in *len. */
char *ops_decode_path(struct sv in, size_t *len);
/* The max-keys style parameter 'name' (default and cap 1000); false when answered 400. */
bool ops_get_max(struct emu_server *s, struct emu_conn *c, const char *name, int *out);

/* ---- ops_payload.c: body checks, checksums, stored headers, SSE-C ---- */

/* The headers S3 keeps with an object, rendered "Name: v\r\n"; malloc'd. */
char *ops_capture_headers(const struct emu_req *q, char sc[24]);
char *ops_copy_headers(const char *src, const struct emu_req *q);
/* "crc32c" -> "CRC32C"; NULL for an algorithm S3 does not have. */
const char *ops_ck_algo_norm(struct sv v);
/* Raw checksum bytes of 'algo' over p[0..n); returns the length (4, 8, 20, 32). */
size_t ops_ck_raw(const char *algo, const void *p, size_t n, unsigned char out[32]);
/* The same, base64. */
void ops_ck_b64(const char *algo, const void *p, size_t n, char out[96]);
/* A CRC's raw (big-endian) bytes as a number, as ck_combine takes it. */
uint64_t ops_crc_value(const unsigned char *raw, size_t n);
/* "x-amz-checksum-crc32c"; "ChecksumCRC32C". */
void ops_ck_header_name(const char *algo, char out[40]);
void ops_ck_xml_name(const char *algo, char out[32]);
/*
 * Check the payload of a body-carrying request: aws-chunked framing, signed
 * payload hash, Content-MD5 and x-amz-checksum-* (header or trailer). On
 * success 'ck' holds the verified checksum (algo "" when none was sent).
 * Returns 0, or -1 after writing the error response.
 */
int ops_check_payload(struct emu_server *s, struct emu_conn *c, struct emu_auth_result *ar,
                      struct emu_cksum *ck);
/* PutObject and UploadPart: ops_check_payload, the ETag and the move to --dir, before the lock. */
void ops_body_prepare(struct emu_server *s, struct emu_conn *c, struct emu_auth_result *ar,
                      struct body_check *bc);
/* Take the request body as object bytes (an empty blob when there was none). */
struct emu_blob *ops_take_body(struct emu_req *q);
/*
 * SSE-C. take: the customer key a request gives, as the base64 MD5 S3 keeps
 * ("" none). check: reading (or adding parts to) what was written with key
 * 'stored' needs the same key. Both return non-zero when they answered.
 * headers: the algorithm and key MD5 of a reply, if 'md5' is not "".
 */
int ops_ssec_take(struct emu_server *s, struct emu_conn *c, bool copy_source, const struct emu_bucket *write_to,
                  char md5_out[28]);
int ops_ssec_check(struct emu_server *s, struct emu_conn *c, const char *stored, bool copy_source);
void ops_ssec_headers(struct emu_conn *c, const char *md5);

/* ---- ops_object.c: GET, HEAD, PUT, copy, delete ---- */

/* Conditional writes: If-None-Match: * and If-Match. 0 go on, else answered. */
int ops_put_preconditions(struct emu_server *s, struct emu_conn *c, struct emu_bucket *b);
/* x-amz-copy-source, found and its conditions checked; answers errors itself (NULL). */
struct emu_obj *ops_copy_source(struct emu_server *s, struct emu_conn *c, struct emu_bucket **sb_out,
                                char **skey_out, size_t *sklen_out);
void ops_get_object(struct emu_server *s, struct emu_conn *c, struct emu_bucket *b, bool head);
/* RestoreObject (POST ?restore) of a GLACIER or DEEP_ARCHIVE object: done at once (202 the first
 * time, 200 after), readable for the Days asked (1 when none). */
void ops_restore_object(struct emu_server *s, struct emu_conn *c, struct emu_bucket *b);
/* GetBucketEncryption, PutBucketEncryption: SSE-S3 by default, and whether SSE-C writes are
 * blocked (BlockedEncryptionTypes, SSE-C or NONE); other rules are not modelled. */
void ops_get_encryption(struct emu_server *s, struct emu_conn *c, struct emu_bucket *b);
void ops_put_encryption(struct emu_server *s, struct emu_conn *c, struct emu_bucket *b);
/* An archived object (GLACIER, DEEP_ARCHIVE) not restored: answers S3's 403 InvalidObjectState and
 * returns true; false for any other object. */
bool ops_archived_refuse(struct emu_server *s, struct emu_conn *c, const struct emu_obj *o);
void ops_put_object(struct emu_server *s, struct emu_conn *c, struct emu_bucket *b,
                    const struct body_check *bc);
/*
 * AppendObject (S3 Express): PutObject with x-amz-write-offset-bytes: N. No object yet: N is 0
 * and it is a PutObject; else N is its size, and the body is one more part of it (README).
 */
void ops_append_object(struct emu_server *s, struct emu_conn *c, struct emu_bucket *b,
                       const struct body_check *bc);
void ops_copy_object(struct emu_server *s, struct emu_conn *c, struct emu_bucket *b);
/* RenameObject (S3 Express, 2025): the object moves to the request's key at once, all of it kept. */
void ops_rename_object(struct emu_server *s, struct emu_conn *c, struct emu_bucket *b);
void ops_delete_object(struct emu_server *s, struct emu_conn *c, struct emu_bucket *b);
void ops_delete_objects(struct emu_server *s, struct emu_conn *c, struct emu_bucket *b);

/* ---- ops_mpu.c: multipart uploads ---- */

void ops_create_mpu(struct emu_server *s, struct emu_conn *c, struct emu_bucket *b);
void ops_upload_part(struct emu_server *s, struct emu_conn *c, struct emu_bucket *b,
                     const struct body_check *bc, bool copy);
void ops_complete_mpu(struct emu_server *s, struct emu_conn *c, struct emu_bucket *b);
void ops_abort_mpu(struct emu_server *s, struct emu_conn *c, struct emu_bucket *b);
void ops_list_parts(struct emu_server *s, struct emu_conn *c, struct emu_bucket *b);
void ops_list_mpus(struct emu_server *s, struct emu_conn *c, struct emu_bucket *b);

/* ---- ops_bucket.c: buckets ---- */

void ops_list_buckets(struct emu_server *s, struct emu_conn *c);
/* 'b' is the bucket of that name if it exists already (then 409). */
void ops_create_bucket(struct emu_server *s, struct emu_conn *c, struct emu_bucket *b);
void ops_head_bucket(struct emu_server *s, struct emu_conn *c, struct emu_bucket *b);
void ops_delete_bucket(struct emu_server *s, struct emu_conn *c, struct emu_bucket *b);
void ops_get_location(struct emu_server *s, struct emu_conn *c, struct emu_bucket *b);

/* ---- ops_list.c: ListObjects v1, v2, ListObjectVersions ---- */

void ops_list_objects(struct emu_server *s, struct emu_conn *c, struct emu_bucket *b, bool v2);
void ops_list_versions(struct emu_server *s, struct emu_conn *c, struct emu_bucket *b);
/* ListObjectsV2 of a directory bucket: unsorted (hash order), '/' the only delimiter. */
void ops_list_dir_objects(struct emu_server *s, struct emu_conn *c, struct emu_bucket *b);

/* ---- ops_version.c: bucket versioning, the version a request names, deletes ---- */

void ops_get_versioning(struct emu_server *s, struct emu_conn *c, struct emu_bucket *b);
void ops_put_versioning(struct emu_server *s, struct emu_conn *c, struct emu_bucket *b);
/* The object a GET/HEAD/copy names; answers the error itself and returns NULL. */
struct emu_obj *ops_find_obj(struct emu_server *s, struct emu_conn *c, struct emu_bucket *b,
                             const char *key, size_t klen, const char *vid);
/*
 * Delete 'key' (version 'vid', or the current one when NULL) as the
 * bucket's versioning says: a version removed, or a delete marker laid.
 * *out_marker: the version removed was a delete marker, or one was laid;
 * out_marker_vid gets 'vid', or the new marker's version id.
 */
void ops_version_delete(struct emu_server *s, struct emu_conn *c, struct emu_bucket *b,
                        const char *key, size_t klen, const char *vid, struct buf *out_marker_vid,
                        bool *out_marker);

/* ---- ops_acl.c: canned ACLs ---- */

/* The x-amz-acl of the request into 'out' ("private" when absent); false when answered 400. */
bool ops_request_acl(struct emu_server *s, struct emu_conn *c, char out[32]);
/* May an unsigned request do this, given the canned ACLs of the bucket and the object? */
bool ops_public_allows(struct emu_bucket *b, struct emu_req *q);
/* Get/Put Bucket and Object ACL. */
void ops_acl(struct emu_server *s, struct emu_conn *c, struct emu_bucket *b);

/* ---- ops_tagging.c: object tags ---- */

/*
 * The x-amz-tagging of a PutObject, CopyObject (REPLACE) or
 * CreateMultipartUpload ("k1=v1&k2=v2", URL-encoded), checked as S3 checks
 * it, into 'out' (none when the header is absent or empty). Non-zero when
 * answered (400).
 */
int ops_tags_from_header(struct emu_server *s, struct emu_conn *c, struct emu_tags *out);
/* x-amz-tagging-count of a GET or HEAD, when the object has tags. */
void ops_tags_count_header(struct emu_conn *c, const struct emu_tags *t);
/* Get/Put/DeleteObjectTagging (versionId too). */
void ops_get_tagging(struct emu_server *s, struct emu_conn *c, struct emu_bucket *b);
void ops_put_tagging(struct emu_server *s, struct emu_conn *c, struct emu_bucket *b);
void ops_delete_tagging(struct emu_server *s, struct emu_conn *c, struct emu_bucket *b);

/* ---- ops_express.c: S3 Express One Zone, the directory buckets ---- */

/* BASE--ZONEID--x-s3 by the naming rules; 'zone' gets ZONEID. */
bool ops_dir_name_ok(const char *name, char zone[32]);
/*
 * Who may sign what on directory buckets (README): after a good signature,
 * refuse it in 'ar' (status, code, msg) when the service is not s3express,
 * session keys sign a bucket operation or another bucket, IAM keys an object
 * operation while sessions are required, or a ReadOnly session a write.
 */
void ops_express_auth(struct emu_server *s, const struct emu_req *q, struct emu_auth_result *ar,
                      bool session_required);
void ops_create_dir_bucket(struct emu_server *s, struct emu_conn *c, struct emu_bucket *b);
void ops_list_dir_buckets(struct emu_server *s, struct emu_conn *c);
void ops_create_session(struct emu_server *s, struct emu_conn *c, struct emu_bucket *b);
/* What a directory bucket refuses (operations, storage classes, ACLs, versions); true if answered. */
bool ops_express_refuse(struct emu_server *s, struct emu_conn *c, struct emu_bucket *b);
/* PutObject, appends and UploadPart, before the lock: a random ETag, and a PutObject's or append's
 * CRC32 if none was sent (ck_ours). */
void ops_express_body(struct emu_server *s, struct emu_conn *c, struct body_check *bc);
/* An object about to be stored in 'b': if a directory bucket, its class, ETag and checksum. */
void ops_express_obj(struct emu_server *s, struct emu_bucket *b, struct emu_obj *o);
/* DeleteObjects on a directory bucket: one visible character, no control but \t \n \r. */
bool ops_express_delete_key_ok(const char *key);

/* ---- ops_admin.c: /_s3emu/ ---- */

void ops_admin(struct emu_server *s, struct emu_conn *c);

#endif
