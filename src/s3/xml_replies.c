/*
 * The S3 replies s3c reads, each as a schema for the engine in xml.c, and
 * the thin typed entry points over it. Element names and which of them S3
 * URL-encodes follow the S3 API reference. This file calls the engine;
 * the engine never calls this file (it is handed the schemas).
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "s3/xml.h"
#include "s3/xml_impl.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* Field helpers: T is the struct, M the member. */
#define FS(path, T, M) { path, XF_STR, offsetof(struct T, M), 0, false }
#define FU(path, T, M) { path, XF_URL, offsetof(struct T, M), 0, false }
#define FN(path, T, M) { path, XF_U64, offsetof(struct T, M), 0, false }
#define FB(path, T, M) { path, XF_BOOL, offsetof(struct T, M), 0, false }
#define FT(path, T, M, E) { path, XF_TIME, offsetof(struct T, M), offsetof(struct T, E), false }
#define REQ(path, type, T, M) { path, type, offsetof(struct T, M), 0, true }

#define CHECKSUM_FIELDS(T, M)                                  \
    FS("ChecksumCRC32", T, M.crc32),                           \
    FS("ChecksumCRC32C", T, M.crc32c),                         \
    FS("ChecksumCRC64NVME", T, M.crc64nvme),                   \
    FS("ChecksumSHA1", T, M.sha1),                             \
    FS("ChecksumSHA256", T, M.sha256),                         \
    FS("ChecksumType", T, M.type)

#define GROUP(path, fields, E, T, arr, n) \
    { path, fields, COUNT(fields), sizeof(struct E), offsetof(struct T, arr), offsetof(struct T, n), 0, false }

/* ---- Error ------------------------------------------------------------------ */

static const struct xml_field error_fields[] = {
    FS("Code", s3_error, code),
    FS("Message", s3_error, message),
    FS("Resource", s3_error, resource),
    FS("RequestId", s3_error, request_id),
    FS("HostId", s3_error, host_id),
    FS("Region", s3_error, region),
    FS("Endpoint", s3_error, endpoint),
    FS("BucketName", s3_error, bucket),
    FS("Bucket", s3_error, bucket),
    FS("Key", s3_error, key),
    FS("VersionId", s3_error, version_id),
    FS("UploadId", s3_error, upload_id),
    FS("ArgumentName", s3_error, argument_name),
    FS("ArgumentValue", s3_error, argument_value),
    FS("Condition", s3_error, condition),
};

static enum s3c_err error_finish(void *out, struct s3_strpool *pool, struct s3c_error *e)
{
    (void)pool, (void)e;
    ((struct s3_error *)out)->is_xml = true;
    return S3C_OK;
}

static const struct xml_schema error_schema = {
    .root = "Error",
    .size = sizeof(struct s3_error),
    .fields = error_fields,
    .n_fields = COUNT(error_fields),
    .pool_off = offsetof(struct s3_error, pool),
    .finish = error_finish,
};

/* ---- ListBuckets ------------------------------------------------------------- */

static const struct xml_field bucket_fields[] = {
    REQ("Name", XF_STR, s3_bucket, name),
    FT("CreationDate", s3_bucket, creation_date, creation_epoch),
    FS("BucketRegion", s3_bucket, region),
};

static const struct xml_group list_buckets_groups[] = {
    GROUP("Buckets/Bucket", bucket_fields, s3_bucket, s3_list_buckets, buckets, n_buckets),
};

static const struct xml_field list_buckets_fields[] = {
    FS("Owner/ID", s3_list_buckets, owner_id),
    FS("Owner/DisplayName", s3_list_buckets, owner_name),
    FS("ContinuationToken", s3_list_buckets, continuation_token),
    FS("Prefix", s3_list_buckets, prefix),
};

static const struct xml_schema list_buckets_schema = {
    .root = "ListAllMyBucketsResult",
    .root_alt = "ListAllMyDirectoryBucketsResult",
    .size = sizeof(struct s3_list_buckets),
    .fields = list_buckets_fields,
    .n_fields = COUNT(list_buckets_fields),
    .groups = list_buckets_groups,
    .n_groups = COUNT(list_buckets_groups),
    .pool_off = offsetof(struct s3_list_buckets, pool),
};

/* ---- ListObjects V1 / V2 ------------------------------------------------------- */

static const struct xml_field object_fields[] = {
    REQ("Key", XF_URL, s3_object, key),
    FT("LastModified", s3_object, last_modified, mtime_epoch),
    FS("ETag", s3_object, etag),
    FN("Size", s3_object, size),
    FS("StorageClass", s3_object, storage_class),
    FS("RestoreStatus/IsRestoreInProgress", s3_object, restore_in_progress),
    FS("RestoreStatus/RestoreExpiryDate", s3_object, restore_expiry),
    FS("Owner/ID", s3_object, owner_id),
    FS("Owner/DisplayName", s3_object, owner_name),
    FS("ChecksumAlgorithm", s3_object, checksum_algorithm),
    FS("ChecksumType", s3_object, checksum_type),
};

/* CommonPrefixes: an array of const char *, the "entry" being the pointer. */
static const struct xml_field prefix_fields[] = {
    { "Prefix", XF_URL, 0, 0, true },
};

#define PREFIX_GROUP(T) \
    { "CommonPrefixes", prefix_fields, 1, sizeof(const char *), offsetof(struct T, prefixes), offsetof(struct T, n_prefixes), 0, false }

static const struct xml_group list_objects_groups[] = {
    GROUP("Contents", object_fields, s3_object, s3_list_objects, objects, n_objects),
    PREFIX_GROUP(s3_list_objects),
};

static const struct xml_field list_objects_fields[] = {
    FS("Name", s3_list_objects, name),
    FU("Prefix", s3_list_objects, prefix),
    FU("Delimiter", s3_list_objects, delimiter),
    FS("EncodingType", s3_list_objects, encoding_type),
    FB("IsTruncated", s3_list_objects, is_truncated),
    FN("MaxKeys", s3_list_objects, max_keys),
    FN("KeyCount", s3_list_objects, key_count),
    FS("ContinuationToken", s3_list_objects, continuation_token),
    FS("NextContinuationToken", s3_list_objects, next_continuation_token),
    FU("StartAfter", s3_list_objects, start_after),
    FU("Marker", s3_list_objects, marker),
    FU("NextMarker", s3_list_objects, next_marker),
};

static const struct xml_schema list_objects_schema = {
    .root = "ListBucketResult",
    .size = sizeof(struct s3_list_objects),
    .fields = list_objects_fields,
    .n_fields = COUNT(list_objects_fields),
    .groups = list_objects_groups,
    .n_groups = COUNT(list_objects_groups),
    .pool_off = offsetof(struct s3_list_objects, pool),
    .has_encoding = true,
    .encoding_off = offsetof(struct s3_list_objects, encoding_type),
};

/* ---- ListObjectVersions ------------------------------------------------------- */

static const struct xml_field version_fields[] = {
    REQ("Key", XF_URL, s3_version, key),
    FS("VersionId", s3_version, version_id),
    FB("IsLatest", s3_version, is_latest),
    FT("LastModified", s3_version, last_modified, mtime_epoch),
    FS("ETag", s3_version, etag),
    FN("Size", s3_version, size),
    FS("StorageClass", s3_version, storage_class),
    FS("Owner/ID", s3_version, owner_id),
    FS("Owner/DisplayName", s3_version, owner_name),
    FS("ChecksumAlgorithm", s3_version, checksum_algorithm),
    FS("ChecksumType", s3_version, checksum_type),
};

static const struct xml_group list_versions_groups[] = {
    GROUP("Version", version_fields, s3_version, s3_list_versions, versions, n_versions),
    { "DeleteMarker", version_fields, COUNT(version_fields), sizeof(struct s3_version),
      offsetof(struct s3_list_versions, versions), offsetof(struct s3_list_versions, n_versions),
      offsetof(struct s3_version, is_delete_marker), true },
    PREFIX_GROUP(s3_list_versions),
};

static const struct xml_field list_versions_fields[] = {
    FS("Name", s3_list_versions, name),
    FU("Prefix", s3_list_versions, prefix),
    FU("Delimiter", s3_list_versions, delimiter),
    FS("EncodingType", s3_list_versions, encoding_type),
    FU("KeyMarker", s3_list_versions, key_marker),
    FS("VersionIdMarker", s3_list_versions, version_id_marker),
    FU("NextKeyMarker", s3_list_versions, next_key_marker),
    FS("NextVersionIdMarker", s3_list_versions, next_version_id_marker),
    FB("IsTruncated", s3_list_versions, is_truncated),
    FN("MaxKeys", s3_list_versions, max_keys),
};

static const struct xml_schema list_versions_schema = {
    .root = "ListVersionsResult",
    .size = sizeof(struct s3_list_versions),
    .fields = list_versions_fields,
    .n_fields = COUNT(list_versions_fields),
    .groups = list_versions_groups,
    .n_groups = COUNT(list_versions_groups),
    .pool_off = offsetof(struct s3_list_versions, pool),
    .has_encoding = true,
    .encoding_off = offsetof(struct s3_list_versions, encoding_type),
};

/* ---- multipart ------------------------------------------------------------------- */

static const struct xml_field initiate_fields[] = {
    FS("Bucket", s3_initiate_multipart, bucket),
    FS("Key", s3_initiate_multipart, key),
    REQ("UploadId", XF_STR, s3_initiate_multipart, upload_id),
};

static const struct xml_schema initiate_schema = {
    .root = "InitiateMultipartUploadResult",
    .size = sizeof(struct s3_initiate_multipart),
    .fields = initiate_fields,
    .n_fields = COUNT(initiate_fields),
    .pool_off = offsetof(struct s3_initiate_multipart, pool),
};

static const struct xml_field complete_fields[] = {
    FS("Location", s3_complete_multipart, location),
    FS("Bucket", s3_complete_multipart, bucket),
    FS("Key", s3_complete_multipart, key),
    FS("ETag", s3_complete_multipart, etag),
    CHECKSUM_FIELDS(s3_complete_multipart, checksums),
};

static const struct xml_schema complete_schema = {
    .root = "CompleteMultipartUploadResult",
    .root_alt = "CompleteMultipartUploadResponse", /* moto's server names it so */
    .size = sizeof(struct s3_complete_multipart),
    .fields = complete_fields,
    .n_fields = COUNT(complete_fields),
    .pool_off = offsetof(struct s3_complete_multipart, pool),
};

static const struct xml_field copy_fields[] = {
    REQ("ETag", XF_STR, s3_copy_result, etag),
    FT("LastModified", s3_copy_result, last_modified, mtime_epoch),
    CHECKSUM_FIELDS(s3_copy_result, checksums),
};

static const struct xml_schema copy_schema = {
    .root = "CopyObjectResult",
    .root_alt = "CopyPartResult",
    .size = sizeof(struct s3_copy_result),
    .fields = copy_fields,
    .n_fields = COUNT(copy_fields),
    .pool_off = offsetof(struct s3_copy_result, pool),
};

static const struct xml_field part_fields[] = {
    { "PartNumber", XF_U32, offsetof(struct s3_part, number), 0, true },
    REQ("ETag", XF_STR, s3_part, etag),
    FN("Size", s3_part, size),
    FT("LastModified", s3_part, last_modified, mtime_epoch),
    CHECKSUM_FIELDS(s3_part, checksums),
};

static const struct xml_group list_parts_groups[] = {
    GROUP("Part", part_fields, s3_part, s3_list_parts, parts, n_parts),
};

static const struct xml_field list_parts_fields[] = {
    FS("Bucket", s3_list_parts, bucket),
    FS("Key", s3_list_parts, key),
    FS("UploadId", s3_list_parts, upload_id),
    FS("StorageClass", s3_list_parts, storage_class),
    FS("ChecksumAlgorithm", s3_list_parts, checksum_algorithm),
    FS("ChecksumType", s3_list_parts, checksum_type),
    FB("IsTruncated", s3_list_parts, is_truncated),
    FN("PartNumberMarker", s3_list_parts, part_number_marker),
    FN("NextPartNumberMarker", s3_list_parts, next_part_number_marker),
    FN("MaxParts", s3_list_parts, max_parts),
};

static const struct xml_schema list_parts_schema = {
    .root = "ListPartsResult",
    .size = sizeof(struct s3_list_parts),
    .fields = list_parts_fields,
    .n_fields = COUNT(list_parts_fields),
    .groups = list_parts_groups,
    .n_groups = COUNT(list_parts_groups),
    .pool_off = offsetof(struct s3_list_parts, pool),
};

static const struct xml_field upload_fields[] = {
    REQ("Key", XF_URL, s3_upload, key),
    REQ("UploadId", XF_STR, s3_upload, upload_id),
    FT("Initiated", s3_upload, initiated, initiated_epoch),
    FS("StorageClass", s3_upload, storage_class),
    FS("ChecksumAlgorithm", s3_upload, checksum_algorithm),
    FS("ChecksumType", s3_upload, checksum_type),
};

static const struct xml_group list_uploads_groups[] = {
    GROUP("Upload", upload_fields, s3_upload, s3_list_uploads, uploads, n_uploads),
    PREFIX_GROUP(s3_list_uploads),
};

static const struct xml_field list_uploads_fields[] = {
    FS("Bucket", s3_list_uploads, bucket),
    FU("Prefix", s3_list_uploads, prefix),
    FU("Delimiter", s3_list_uploads, delimiter),
    FS("EncodingType", s3_list_uploads, encoding_type),
    FU("KeyMarker", s3_list_uploads, key_marker),
    FS("UploadIdMarker", s3_list_uploads, upload_id_marker),
    FU("NextKeyMarker", s3_list_uploads, next_key_marker),
    FS("NextUploadIdMarker", s3_list_uploads, next_upload_id_marker),
    FB("IsTruncated", s3_list_uploads, is_truncated),
    FN("MaxUploads", s3_list_uploads, max_uploads),
};

static const struct xml_schema list_uploads_schema = {
    .root = "ListMultipartUploadsResult",
    .size = sizeof(struct s3_list_uploads),
    .fields = list_uploads_fields,
    .n_fields = COUNT(list_uploads_fields),
    .groups = list_uploads_groups,
    .n_groups = COUNT(list_uploads_groups),
    .pool_off = offsetof(struct s3_list_uploads, pool),
    .has_encoding = true,
    .encoding_off = offsetof(struct s3_list_uploads, encoding_type),
};

/* ---- DeleteObjects ------------------------------------------------------------------ */

static const struct xml_field deleted_fields[] = {
    REQ("Key", XF_STR, s3_deleted, key),
    FS("VersionId", s3_deleted, version_id),
    FB("DeleteMarker", s3_deleted, delete_marker),
    FS("DeleteMarkerVersionId", s3_deleted, delete_marker_version_id),
};

static const struct xml_field delete_error_fields[] = {
    FS("Key", s3_delete_error, key),
    FS("VersionId", s3_delete_error, version_id),
    REQ("Code", XF_STR, s3_delete_error, code),
    FS("Message", s3_delete_error, message),
};

static const struct xml_group delete_groups[] = {
    GROUP("Deleted", deleted_fields, s3_deleted, s3_delete_result, deleted, n_deleted),
    GROUP("Error", delete_error_fields, s3_delete_error, s3_delete_result, errors, n_errors),
};

static const struct xml_schema delete_schema = {
    .root = "DeleteResult",
    .size = sizeof(struct s3_delete_result),
    .groups = delete_groups,
    .n_groups = COUNT(delete_groups),
    .pool_off = offsetof(struct s3_delete_result, pool),
};

/* ---- GetBucketLocation ---------------------------------------------------------------- */

static const struct xml_field location_fields[] = {
    FS("", s3_location, raw), /* the root's own text */
};

static enum s3c_err location_finish(void *out, struct s3_strpool *pool, struct s3c_error *e)
{
    struct s3_location *r = out;
    struct sv raw = sv_trim(sv_from(r->raw));

    /* The API predates regions as names: no constraint is us-east-1, and
     * "EU" is what buckets made in eu-west-1 long ago report. */
    if (raw.n == 0)
        r->region = "us-east-1";
    else if (sv_eqs(raw, "EU"))
        r->region = "eu-west-1";
    else if (!(r->region = xml_pool_dup(pool, raw.p, raw.n)))
        return s3c_fail(e, S3C_ENOMEM, "out of memory parsing a bucket location");
    return S3C_OK;
}

static const struct xml_schema location_schema = {
    .root = "LocationConstraint",
    .size = sizeof(struct s3_location),
    .fields = location_fields,
    .n_fields = COUNT(location_fields),
    .pool_off = offsetof(struct s3_location, pool),
    .finish = location_finish,
};

/* ---- CreateSession ------------------------------------------------------------ */

static const struct xml_field create_session_fields[] = {
    REQ("Credentials/AccessKeyId", XF_STR, s3_create_session, access_key),
    REQ("Credentials/SecretAccessKey", XF_STR, s3_create_session, secret_key),
    REQ("Credentials/SessionToken", XF_STR, s3_create_session, session_token),
    FT("Credentials/Expiration", s3_create_session, expiration, expires_epoch),
};

static const struct xml_schema create_session_schema = {
    .root = "CreateSessionResult",
    .size = sizeof(struct s3_create_session),
    .fields = create_session_fields,
    .n_fields = COUNT(create_session_fields),
    .pool_off = offsetof(struct s3_create_session, pool),
};

/* ---- GetObjectTagging ----------------------------------------------------------- */

static const struct xml_field tag_fields[] = {
    REQ("Key", XF_STR, s3_tag, key),
    FS("Value", s3_tag, value),
};

static const struct xml_group tagging_groups[] = {
    GROUP("TagSet/Tag", tag_fields, s3_tag, s3_tagging, tags, n_tags),
};

static const struct xml_schema tagging_schema = {
    .root = "Tagging",
    .size = sizeof(struct s3_tagging),
    .groups = tagging_groups,
    .n_groups = COUNT(tagging_groups),
    .pool_off = offsetof(struct s3_tagging, pool),
};

/* ---- GetBucketVersioning ------------------------------------------------------------ */

static const struct xml_field versioning_fields[] = {
    FS("Status", s3_versioning, status),
    FS("MfaDelete", s3_versioning, mfa_delete),
};

static const struct xml_schema versioning_schema = {
    .root = "VersioningConfiguration",
    .root_alt = "GetBucketVersioningResponse", /* moto's server names it so */
    .size = sizeof(struct s3_versioning),
    .fields = versioning_fields,
    .n_fields = COUNT(versioning_fields),
    .pool_off = offsetof(struct s3_versioning, pool),
};

_Static_assert(COUNT(error_fields) <= XML_MAX_FIELDS, "too many fields");
_Static_assert(COUNT(list_objects_fields) <= XML_MAX_FIELDS, "too many fields");
_Static_assert(COUNT(version_fields) <= XML_MAX_FIELDS, "too many fields");

/* ---- dispatch ----------------------------------------------------------------------------- */

/* The schema for a reply kind; NULL for an unknown kind. */
static const struct xml_schema *xml_schema_for(enum s3_reply kind)
{
    switch (kind) {
    case S3_REPLY_ERROR:
        return &error_schema;
    case S3_REPLY_LIST_BUCKETS:
        return &list_buckets_schema;
    case S3_REPLY_LIST_OBJECTS:
        return &list_objects_schema;
    case S3_REPLY_LIST_VERSIONS:
        return &list_versions_schema;
    case S3_REPLY_INITIATE_MULTIPART:
        return &initiate_schema;
    case S3_REPLY_COMPLETE_MULTIPART:
        return &complete_schema;
    case S3_REPLY_COPY_RESULT:
        return &copy_schema;
    case S3_REPLY_LIST_PARTS:
        return &list_parts_schema;
    case S3_REPLY_LIST_UPLOADS:
        return &list_uploads_schema;
    case S3_REPLY_DELETE_RESULT:
        return &delete_schema;
    case S3_REPLY_LOCATION:
        return &location_schema;
    case S3_REPLY_CREATE_SESSION:
        return &create_session_schema;
    case S3_REPLY_TAGGING:
        return &tagging_schema;
    case S3_REPLY_VERSIONING:
        return &versioning_schema;
    }
    return NULL;
}

struct s3_xml_stream *s3_xml_stream_new(enum s3_reply kind, void *out,
                                        const struct s3_xml_limits *lim)
{
    return xml_stream_open(xml_schema_for(kind), &error_schema, out, lim);
}

enum s3c_err s3_xml_parse(enum s3_reply kind, struct sv body, void *out,
                          const struct s3_xml_limits *lim, struct s3c_error *e)
{
    return xml_parse_schema(xml_schema_for(kind), &error_schema, body, out, lim, e);
}

/* One parse and one release function per reply, all the same shape. */
#define REPLY_FUNCS(name, KIND)                                                       \
    enum s3c_err s3_parse_##name(struct sv body, struct s3_##name *out,               \
                                 struct s3c_error *e)                                 \
    {                                                                                 \
        return s3_xml_parse(KIND, body, out, NULL, e);                                \
    }                                                                                 \
    void s3_##name##_release(struct s3_##name *r)                                     \
    {                                                                                 \
        xml_release(xml_schema_for(KIND), r);                                         \
    }

REPLY_FUNCS(list_buckets, S3_REPLY_LIST_BUCKETS)
REPLY_FUNCS(list_objects, S3_REPLY_LIST_OBJECTS)
REPLY_FUNCS(list_versions, S3_REPLY_LIST_VERSIONS)
REPLY_FUNCS(initiate_multipart, S3_REPLY_INITIATE_MULTIPART)
REPLY_FUNCS(complete_multipart, S3_REPLY_COMPLETE_MULTIPART)
REPLY_FUNCS(copy_result, S3_REPLY_COPY_RESULT)
REPLY_FUNCS(list_parts, S3_REPLY_LIST_PARTS)
REPLY_FUNCS(list_uploads, S3_REPLY_LIST_UPLOADS)
REPLY_FUNCS(delete_result, S3_REPLY_DELETE_RESULT)
REPLY_FUNCS(location, S3_REPLY_LOCATION)
REPLY_FUNCS(create_session, S3_REPLY_CREATE_SESSION)
REPLY_FUNCS(tagging, S3_REPLY_TAGGING)
REPLY_FUNCS(versioning, S3_REPLY_VERSIONING)

void s3_error_release(struct s3_error *err)
{
    xml_release(&error_schema, err);
}

enum s3c_err s3_parse_error(struct sv body, struct s3_error *out, struct s3c_error *e)
{
    struct s3_xml_stream *st = s3_xml_stream_new(S3_REPLY_ERROR, out, NULL);
    struct s3c_error ignored = S3C_ERROR_INIT;
    enum s3c_err rc;
    bool oom;

    if (!st)
        return s3c_fail(e, S3C_ENOMEM, "out of memory starting an XML parser");
    rc = s3_xml_stream_feed(st, body.p, body.n, &ignored);
    if (!rc)
        rc = s3_xml_stream_finish(st, &ignored);
    oom = xml_stream_oom(st);
    s3_xml_stream_free(st);
    if (rc && oom)
        return s3c_fail(e, S3C_ENOMEM, "out of memory parsing an error reply");
    if (rc) {
        /* Not an <Error> document: no detail beyond the HTTP status. */
        xml_release(&error_schema, out);
        for (size_t i = 0; i < COUNT(error_fields); i++)
            *(const char **)((char *)out + error_fields[i].off) = "";
    }
    return S3C_OK;
}

/* ---- helpers ------------------------------------------------------------------------------ */

const char *s3_list_objects_next_marker(const struct s3_list_objects *r)
{
    const char *last = "";

    if (!r->is_truncated)
        return "";
    if (r->next_marker && r->next_marker[0])
        return r->next_marker;
    if (r->n_objects)
        last = r->objects[r->n_objects - 1].key;
    if (r->n_prefixes && strcmp(r->prefixes[r->n_prefixes - 1], last) > 0)
        last = r->prefixes[r->n_prefixes - 1];
    return last;
}

static bool code_is(const char *code, const char *const *list)
{
    for (; *list; list++)
        if (strcmp(code, *list) == 0)
            return true;
    return false;
}

/* A code for a reply without one (HEAD has no body), as the AWS CLI shows them. */
static const char *code_for_status(long status)
{
    switch (status) {
    case 301: return "PermanentRedirect";
    case 304: return "NotModified";
    case 307: return "TemporaryRedirect";
    case 400: return "BadRequest";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "NotFound";
    case 405: return "MethodNotAllowed";
    case 409: return "Conflict";
    case 412: return "PreconditionFailed";
    case 416: return "InvalidRange";
    case 429: return "TooManyRequests";
    case 500: return "InternalError";
    case 501: return "NotImplemented";
    case 502: return "BadGateway";
    case 503: return "ServiceUnavailable";
    case 504: return "GatewayTimeout";
    default:  return "";
    }
}

enum s3c_err s3_error_to_s3c(const struct s3_error *err, long http_status, struct s3c_error *e)
{
    static const char *const not_found[] = {
        "NoSuchKey", "NoSuchBucket", "NoSuchUpload", "NoSuchVersion", "NotFound", NULL,
    };
    static const char *const auth[] = {
        "AccessDenied", "AllAccessDisabled", "AccountProblem", "InvalidAccessKeyId",
        "SignatureDoesNotMatch", "ExpiredToken", "InvalidToken", "TokenRefreshRequired",
        "InvalidSecurity", "Forbidden", "Unauthorized", NULL,
    };
    const char *code = err && err->code && err->code[0] ? err->code : code_for_status(http_status);
    const char *message = err && err->message ? err->message : "";
    enum s3c_err rc = S3C_EHTTP;

    if (code_is(code, not_found) || (http_status == 404 && !code_is(code, auth)))
        rc = S3C_ENOTFOUND;
    else if (code_is(code, auth) || http_status == 401 || http_status == 403)
        rc = S3C_EAUTH;
    if (!e)
        return rc;
    e->code = rc;
    e->http_status = http_status;
    str_copy(e->s3_code, sizeof(e->s3_code), code);
    if (message[0])
        snprintf(e->msg, sizeof(e->msg), "%s: %s", code[0] ? code : "Error", message);
    else
        snprintf(e->msg, sizeof(e->msg), "HTTP %ld%s%s", http_status, code[0] ? " " : "", code);
    /* The message comes from the network: keep it to one line. */
    for (char *c = e->msg; *c; c++)
        if (*c == '\n' || *c == '\r' || *c == '\t')
            *c = ' ';
    return rc;
}
