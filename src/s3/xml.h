/*
 * s3/xml: S3 reply bodies in, S3 request bodies out. No I/O: bytes come from
 * and go to the caller's buffers.
 *
 * Replies are parsed as a stream of events, never as a DOM: each entry of a
 * listing (Contents, Version, Part, Upload, ...) goes straight into a flat
 * array, and every string goes into a pool owned by the result, so a page of
 * 1,000 keys costs one array, a few pool blocks and no tree. Bodies can be
 * parsed whole (s3_parse_X) or fed in chunks as they arrive
 * (s3_xml_stream_*), with the same result. Chunks go to expat; a whole body
 * goes first to a tokenizer of the plain XML stores write (xml_scan.c, four
 * times cheaper than expat on a listing), which declines anything else, and
 * then expat reads it from the start: the result, errors included, is
 * expat's either way (tests/fuzz/fuzz_xml.c holds the two to it).
 *
 * Hostile input: the body, each element's text, each array and the element
 * depth have caps (struct s3_xml_limits); a DOCTYPE, any entity declaration
 * and external entities are refused, so entity expansion ("billion laughs")
 * cannot happen. Elements are matched by local name, with or without the S3
 * namespace or a prefix; unknown elements are skipped, so new S3 fields do
 * not break old clients.
 *
 * Results: every string field of a result is non-NULL once s3_parse_X (or
 * s3_xml_stream_new) has run: "" when the element was absent or empty. A
 * result must start as its *_INIT value; parsing into it releases what it
 * held, so one struct can be reused page after page. s3_X_release() frees
 * everything and leaves the *_INIT value. Strings stay valid until then.
 *
 * Listings: send encoding-type=url on ListObjects(V2), ListObjectVersions
 * and ListMultipartUploads. Without it S3 writes keys holding characters
 * that XML 1.0 cannot carry (U+0001..U+001F but tab, CR, LF) as invalid XML
 * and the whole page fails to parse. When the reply says
 * <EncodingType>url</EncodingType>, the parser decodes exactly the elements
 * S3 encodes (per the API reference): Key, Prefix, Delimiter, StartAfter
 * (V2), Marker and NextMarker (V1), KeyMarker and NextKeyMarker (versions,
 * uploads) and CommonPrefixes/Prefix -- form encoding, so '+' is a space.
 * Continuation tokens and version ids are opaque and never decoded.
 *
 * Errors: S3C_EPARSE for malformed XML or a bad value (one line, with the
 * element name); S3C_ENOMEM past a cap or on OOM; S3C_EHTTP when a 2xx body
 * is an <Error> document (CompleteMultipartUpload, CopyObject and
 * UploadPartCopy can answer 200 and fail): e->s3_code holds the S3 code and
 * e->msg "Code: Message".
 *
 * Threads: no global state; a result or a stream is used by one thread at a
 * time.
 */
#ifndef S3C_S3_XML_H
#define S3C_S3_XML_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/str.h"

#define S3_XML_NS "http://s3.amazonaws.com/doc/2006-03-01/"

/* ---- limits ------------------------------------------------------------ */

struct s3_xml_limits {
    size_t body_max_bytes;  /* total bytes of one reply */
    size_t field_max_bytes; /* text of one element (a key is <= 1 KiB, 3 KiB encoded) */
    size_t entries_max;     /* entries in one array (S3 pages hold <= 1,000) */
    size_t depth_max;       /* element nesting (S3 replies use <= 4) */
};

#define S3_XML_BODY_MAX_BYTES ((size_t)64 << 20)
#define S3_XML_LIMITS_DEFAULT { S3_XML_BODY_MAX_BYTES, (size_t)64 << 10, 100000, 32 }

/* ---- shared pieces ----------------------------------------------------- */

/*
 * The strings of one result. Blocks never move, so pointers into them stay
 * valid while the pool grows. Freed by the result's release function.
 */
struct s3_strblk;
struct s3_strpool {
    struct s3_strblk *head; /* newest block first; NULL when empty */
};

/* Checksums as S3 returns them (base64 digests); "" when absent. */
struct s3_checksums {
    const char *crc32;
    const char *crc32c;
    const char *crc64nvme;
    const char *sha1;
    const char *sha256;
    const char *type; /* ChecksumType: "FULL_OBJECT", "COMPOSITE" or "" */
};

/* ---- Error --------------------------------------------------------------- */

/*
 * <Error> as S3 and S3-compatible stores send it. Credentials-adjacent
 * fields (AWSAccessKeyId, StringToSign, CanonicalRequest, their byte dumps)
 * are deliberately not kept, so an error line can never leak them.
 */
struct s3_error {
    bool is_xml;                /* the body was an <Error> document */
    const char *code;           /* "NoSuchKey"; "" if unknown */
    const char *message;        /* "" for Ceph's <Message/> */
    const char *resource;
    const char *request_id;
    const char *host_id;
    const char *region;         /* AuthorizationHeaderMalformed, IllegalLocation... */
    const char *endpoint;       /* PermanentRedirect */
    const char *bucket;         /* <BucketName> or <Bucket> */
    const char *key;
    const char *version_id;
    const char *upload_id;
    const char *argument_name;  /* InvalidArgument */
    const char *argument_value;
    const char *condition;      /* PreconditionFailed */
    struct s3_strpool pool;
};
#define S3_ERROR_INIT { 0 }

/*
 * Parse an error reply. Never fails on content: an empty body (HEAD), a
 * body that is not XML (a proxy's HTML page) or another root leaves every
 * field "" and is_xml false, and the caller falls back on the HTTP status.
 * Returns S3C_ENOMEM only when memory runs out.
 */
enum s3c_err s3_parse_error(struct sv body, struct s3_error *out, struct s3c_error *e);
void s3_error_release(struct s3_error *err);

/*
 * Fill 'e' from an error reply and its HTTP status and return the code set:
 * S3C_ENOTFOUND (404, NoSuch*), S3C_EAUTH (401, 403, AccessDenied, bad
 * signature or token), else S3C_EHTTP. e->s3_code is the S3 code, or one
 * derived from the status when there was none ("NotFound" for a bodiless
 * 404); e->msg is "Code: Message" or "HTTP 404 NotFound". 'err' may be NULL.
 */
enum s3c_err s3_error_to_s3c(const struct s3_error *err, long http_status, struct s3c_error *e);

/* What a reply body holds, judged from its root element. */
enum s3_body_kind {
    S3_BODY_EMPTY,     /* no bytes, or only white space */
    S3_BODY_ERROR,     /* a well-formed <Error> document */
    S3_BODY_RESULT,    /* a well-formed document with another root */
    S3_BODY_MALFORMED, /* not well-formed, cut short, or over the body cap */
};

/*
 * Classify a 200 body. S3 can answer CompleteMultipartUpload, CopyObject and
 * UploadPartCopy with 200 and then fail, writing <Error> as the body; a body
 * cut short by the network shows up as S3_BODY_MALFORMED. The AWS SDKs treat
 * both as a 500 (retryable); do the same.
 */
enum s3_body_kind s3_xml_body_kind(struct sv body);

/* ---- ListBuckets ------------------------------------------------------- */

struct s3_bucket {
    const char *name;
    const char *creation_date;  /* as sent: "2019-12-11T23:32:47.000Z" */
    int64_t creation_epoch;     /* seconds since 1970, UTC */
    const char *region;         /* <BucketRegion>, newer S3 only; else "" */
};

/* <ListAllMyBucketsResult>, or ListDirectoryBuckets' <ListAllMyDirectoryBucketsResult>. */
struct s3_list_buckets {
    struct s3_bucket *buckets;  /* n_buckets entries, in reply order */
    size_t n_buckets;
    const char *owner_id;
    const char *owner_name;     /* <DisplayName>; S3 is retiring it */
    const char *continuation_token; /* "" on the last page */
    const char *prefix;
    struct s3_strpool pool;
};
#define S3_LIST_BUCKETS_INIT { 0 }

enum s3c_err s3_parse_list_buckets(struct sv body, struct s3_list_buckets *out,
                                   struct s3c_error *e);
void s3_list_buckets_release(struct s3_list_buckets *r);

/* ---- ListObjects (V1 and V2) ------------------------------------------- */

struct s3_object {
    /* URL-decoded when the reply was encoded. A key holding a NUL byte (%00)
     * is "" followed by its encoded form: S3 has no empty key, and a C
     * string cannot carry the NUL (plan/listcheck.h skips it). So are the
     * keys of versions and the common prefixes. */
    const char *key;
    const char *last_modified;  /* as sent */
    int64_t mtime_epoch;        /* last_modified in seconds since 1970, UTC; 0 if absent */
    const char *etag;           /* as sent, quotes included: "\"9b2c...\"" */
    uint64_t size;
    const char *storage_class;
    const char *restore_in_progress; /* RestoreStatus/IsRestoreInProgress ("true", "false"; "" none):
                                       asked by x-amz-optional-object-attributes: RestoreStatus */
    const char *restore_expiry; /* RestoreStatus/RestoreExpiryDate, as sent ("" none) */
    const char *owner_id;       /* only with fetch-owner (V2) or V1 */
    const char *owner_name;
    const char *checksum_algorithm; /* "CRC64NVME", ...; the last one if several */
    const char *checksum_type;
};

/* <ListBucketResult>, V1 or V2: the fields of the other version stay "". */
struct s3_list_objects {
    struct s3_object *objects;  /* <Contents>, n_objects entries in key order */
    size_t n_objects;
    const char **prefixes;      /* <CommonPrefixes><Prefix>, n_prefixes entries */
    size_t n_prefixes;
    const char *name;           /* the bucket */
    const char *prefix;
    const char *delimiter;
    const char *encoding_type;  /* "url" when the reply was encoded (then decoded) */
    bool is_truncated;
    uint64_t max_keys;
    uint64_t key_count;         /* V2 */
    const char *continuation_token;      /* V2 */
    const char *next_continuation_token; /* V2: "" on the last page */
    const char *start_after;    /* V2 */
    const char *marker;         /* V1 */
    const char *next_marker;    /* V1: only sent with a delimiter */
    struct s3_strpool pool;
};
#define S3_LIST_OBJECTS_INIT { 0 }

enum s3c_err s3_parse_list_objects(struct sv body, struct s3_list_objects *out,
                                   struct s3c_error *e);
void s3_list_objects_release(struct s3_list_objects *r);

/*
 * The marker for the next V1 page: NextMarker when sent, else the greater of
 * the last key and the last common prefix (S3's documented rule). "" when
 * the listing is not truncated. Points into 'r'.
 */
const char *s3_list_objects_next_marker(const struct s3_list_objects *r);

/* ---- ListObjectVersions ------------------------------------------------- */

struct s3_version {
    bool is_delete_marker;      /* a <DeleteMarker> (no etag, size, class) */
    bool is_latest;
    const char *key;
    const char *version_id;     /* "null" for objects written before versioning */
    const char *last_modified;
    int64_t mtime_epoch;
    const char *etag;
    uint64_t size;
    const char *storage_class;
    const char *owner_id;
    const char *owner_name;
    const char *checksum_algorithm;
    const char *checksum_type;
};

struct s3_list_versions {
    struct s3_version *versions; /* <Version> and <DeleteMarker>, in reply order */
    size_t n_versions;
    const char **prefixes;
    size_t n_prefixes;
    const char *name;
    const char *prefix;
    const char *delimiter;
    const char *encoding_type;
    const char *key_marker;
    const char *version_id_marker;
    const char *next_key_marker;        /* "" on the last page */
    const char *next_version_id_marker;
    bool is_truncated;
    uint64_t max_keys;
    struct s3_strpool pool;
};
#define S3_LIST_VERSIONS_INIT { 0 }

enum s3c_err s3_parse_list_versions(struct sv body, struct s3_list_versions *out,
                                    struct s3c_error *e);
void s3_list_versions_release(struct s3_list_versions *r);

/* ---- Multipart uploads -------------------------------------------------- */

struct s3_initiate_multipart {
    const char *bucket;
    const char *key;
    const char *upload_id;      /* required: a reply without it is S3C_EPARSE */
    struct s3_strpool pool;
};
#define S3_INITIATE_MULTIPART_INIT { 0 }

enum s3c_err s3_parse_initiate_multipart(struct sv body, struct s3_initiate_multipart *out,
                                         struct s3c_error *e);
void s3_initiate_multipart_release(struct s3_initiate_multipart *r);

struct s3_complete_multipart {
    const char *location;
    const char *bucket;
    const char *key;
    const char *etag;           /* "\"<md5 of md5s>-<parts>\"" on S3 */
    struct s3_checksums checksums;
    struct s3_strpool pool;
};
#define S3_COMPLETE_MULTIPART_INIT { 0 }

/* A 200 whose body is <Error> gives S3C_EHTTP (see the top of this file). */
enum s3c_err s3_parse_complete_multipart(struct sv body, struct s3_complete_multipart *out,
                                         struct s3c_error *e);
void s3_complete_multipart_release(struct s3_complete_multipart *r);

/* <CopyObjectResult> (CopyObject) or <CopyPartResult> (UploadPartCopy). */
struct s3_copy_result {
    const char *etag;           /* required */
    const char *last_modified;
    int64_t mtime_epoch;
    struct s3_checksums checksums;
    struct s3_strpool pool;
};
#define S3_COPY_RESULT_INIT { 0 }

enum s3c_err s3_parse_copy_result(struct sv body, struct s3_copy_result *out,
                                  struct s3c_error *e);
void s3_copy_result_release(struct s3_copy_result *r);

struct s3_part {
    uint32_t number;            /* 1..10000 */
    const char *etag;
    uint64_t size;
    const char *last_modified;
    int64_t mtime_epoch;
    struct s3_checksums checksums;
};

struct s3_list_parts {
    struct s3_part *parts;      /* n_parts entries, by part number */
    size_t n_parts;
    const char *bucket;
    const char *key;
    const char *upload_id;
    const char *storage_class;
    const char *checksum_algorithm;
    const char *checksum_type;
    bool is_truncated;
    uint64_t part_number_marker;
    uint64_t next_part_number_marker;   /* resume from here when truncated */
    uint64_t max_parts;
    struct s3_strpool pool;
};
#define S3_LIST_PARTS_INIT { 0 }

enum s3c_err s3_parse_list_parts(struct sv body, struct s3_list_parts *out,
                                 struct s3c_error *e);
void s3_list_parts_release(struct s3_list_parts *r);

struct s3_upload {
    const char *key;
    const char *upload_id;
    const char *initiated;
    int64_t initiated_epoch;
    const char *storage_class;
    const char *checksum_algorithm;
    const char *checksum_type;
};

struct s3_list_uploads {
    struct s3_upload *uploads;  /* n_uploads entries */
    size_t n_uploads;
    const char **prefixes;
    size_t n_prefixes;
    const char *bucket;
    const char *prefix;
    const char *delimiter;
    const char *encoding_type;
    const char *key_marker;
    const char *upload_id_marker;
    const char *next_key_marker;
    const char *next_upload_id_marker;
    bool is_truncated;
    uint64_t max_uploads;
    struct s3_strpool pool;
};
#define S3_LIST_UPLOADS_INIT { 0 }

enum s3c_err s3_parse_list_uploads(struct sv body, struct s3_list_uploads *out,
                                   struct s3c_error *e);
void s3_list_uploads_release(struct s3_list_uploads *r);

/* ---- DeleteObjects -------------------------------------------------------- */

struct s3_deleted {
    const char *key;
    const char *version_id;
    bool delete_marker;         /* the delete made or removed a delete marker */
    const char *delete_marker_version_id;
};

struct s3_delete_error {
    const char *key;
    const char *version_id;
    const char *code;           /* "AccessDenied", "InternalError", ... */
    const char *message;
};

struct s3_delete_result {
    struct s3_deleted *deleted; /* empty with <Quiet>true</Quiet> */
    size_t n_deleted;
    struct s3_delete_error *errors;
    size_t n_errors;
    struct s3_strpool pool;
};
#define S3_DELETE_RESULT_INIT { 0 }

enum s3c_err s3_parse_delete_result(struct sv body, struct s3_delete_result *out,
                                    struct s3c_error *e);
void s3_delete_result_release(struct s3_delete_result *r);

/* ---- GetBucketLocation ---------------------------------------------------- */

struct s3_location {
    const char *raw;            /* the text as sent, often "" */
    const char *region;         /* "" -> "us-east-1", "EU" -> "eu-west-1", else raw */
    struct s3_strpool pool;
};
#define S3_LOCATION_INIT { 0 }

enum s3c_err s3_parse_location(struct sv body, struct s3_location *out, struct s3c_error *e);
void s3_location_release(struct s3_location *r);

/* ---- CreateSession (S3 Express) ------------------------------------------- */

/* <CreateSessionResult><Credentials>: a directory bucket's session keys. */
struct s3_create_session {
    const char *access_key;     /* required */
    const char *secret_key;     /* required */
    const char *session_token;  /* required */
    const char *expiration;     /* as sent: "2025-01-01T00:05:00Z" */
    int64_t expires_epoch;      /* expiration in seconds since 1970; 0 if absent */
    struct s3_strpool pool;
};
#define S3_CREATE_SESSION_INIT { 0 }

enum s3c_err s3_parse_create_session(struct sv body, struct s3_create_session *out, struct s3c_error *e);
void s3_create_session_release(struct s3_create_session *r);

/* ---- GetObjectTagging ----------------------------------------------------- */

struct s3_tag {
    const char *key;            /* required */
    const char *value;          /* "" when empty */
};

/* <Tagging><TagSet><Tag><Key/><Value/></Tag>...</TagSet></Tagging>. */
struct s3_tagging {
    struct s3_tag *tags;        /* n_tags entries, in the reply's order */
    size_t n_tags;
    struct s3_strpool pool;
};
#define S3_TAGGING_INIT { 0 }

enum s3c_err s3_parse_tagging(struct sv body, struct s3_tagging *out, struct s3c_error *e);
void s3_tagging_release(struct s3_tagging *r);

/*
 * The tags as the x-amz-tagging header of PutObject, CopyObject and
 * CreateMultipartUpload carries them: "k1=v1&k2=v2", keys and values
 * percent-encoded (RFC 3986). Appended to 'out'; S3C_ENOMEM past its cap.
 */
enum s3c_err s3_tagging_header(const struct s3_tagging *t, struct buf *out);

/* The PutObjectTagging body of those tags (<Tagging><TagSet>...), appended to 'out'. */
enum s3c_err s3_build_tagging(const struct s3_tagging *t, struct buf *out, struct s3c_error *e);

/* ---- GetBucketVersioning -------------------------------------------------- */

/* <VersioningConfiguration>: Status is "Enabled", "Suspended", or absent ("")
 * for a bucket that never had versioning turned on. */
struct s3_versioning {
    const char *status;         /* "" when the reply has none */
    const char *mfa_delete;     /* "" when the reply has none */
    struct s3_strpool pool;
};
#define S3_VERSIONING_INIT { 0 }

enum s3c_err s3_parse_versioning(struct sv body, struct s3_versioning *out, struct s3c_error *e);
void s3_versioning_release(struct s3_versioning *r);

/* ---- streaming ------------------------------------------------------------ */

/* Which reply a stream parses, and so which struct 'out' points to. */
enum s3_reply {
    S3_REPLY_ERROR,             /* struct s3_error (never fails on content) */
    S3_REPLY_LIST_BUCKETS,      /* struct s3_list_buckets */
    S3_REPLY_LIST_OBJECTS,      /* struct s3_list_objects */
    S3_REPLY_LIST_VERSIONS,     /* struct s3_list_versions */
    S3_REPLY_INITIATE_MULTIPART, /* struct s3_initiate_multipart */
    S3_REPLY_COMPLETE_MULTIPART, /* struct s3_complete_multipart */
    S3_REPLY_COPY_RESULT,       /* struct s3_copy_result */
    S3_REPLY_LIST_PARTS,        /* struct s3_list_parts */
    S3_REPLY_LIST_UPLOADS,      /* struct s3_list_uploads */
    S3_REPLY_DELETE_RESULT,     /* struct s3_delete_result */
    S3_REPLY_LOCATION,          /* struct s3_location */
    S3_REPLY_CREATE_SESSION,    /* struct s3_create_session */
    S3_REPLY_TAGGING,           /* struct s3_tagging */
    S3_REPLY_VERSIONING,        /* struct s3_versioning */
};

struct s3_xml_stream;

/*
 * Start parsing a reply of kind 'kind' into 'out', which must point to an
 * initialized struct of the matching type; what it held is released first.
 * 'lim' may be NULL for S3_XML_LIMITS_DEFAULT. Feed the body in any chunks,
 * then finish. 'out' belongs to the caller throughout; after an error it is
 * still safe to release. Returns NULL on OOM.
 */
struct s3_xml_stream *s3_xml_stream_new(enum s3_reply kind, void *out,
                                        const struct s3_xml_limits *lim);
/* Parse 'n' more bytes. After an error, later calls return the same error. */
enum s3c_err s3_xml_stream_feed(struct s3_xml_stream *st, const void *p, size_t n,
                                struct s3c_error *e);
/* End of body: check the document is complete, decode, normalize. */
enum s3c_err s3_xml_stream_finish(struct s3_xml_stream *st, struct s3c_error *e);
/* NULL is a no-op. Does not touch 'out'. */
void s3_xml_stream_free(struct s3_xml_stream *st);

/* Parse a whole body: new, feed, finish, free. */
enum s3c_err s3_xml_parse(enum s3_reply kind, struct sv body, void *out,
                          const struct s3_xml_limits *lim, struct s3c_error *e);

/* ---- helpers -------------------------------------------------------------- */

/*
 * ISO 8601 as S3 writes it, "2009-10-12T17:50:30.000Z": any fraction
 * (dropped), 'Z' or +hh:mm / -hh:mm or no zone (taken as UTC). False on
 * anything else, including impossible dates.
 */
bool s3_xml_time_parse(struct sv s, int64_t *epoch);

/*
 * True if 'key' can travel in an XML 1.0 request body: valid UTF-8, no NUL,
 * no U+0001..U+001F other than tab, LF and CR (those are escaped), no
 * U+FFFE/U+FFFF. A key that fails must be deleted with a single DeleteObject
 * (the key travels in the URL), not through DeleteObjects. The AWS SDKs
 * silently replace such characters with U+FFFD, which names another key;
 * s3c refuses instead.
 */
bool s3_xml_key_ok(struct sv key);

/*
 * Append 's' escaped as XML 1.0 element text: & < > " ' as entities, and
 * CR, LF, tab, U+0085, U+2028 as character references so that the
 * receiving parser's line-end normalization cannot change them. Fails with
 * S3C_EPARSE when !s3_xml_key_ok(s), S3C_ENOMEM past the buffer's cap.
 */
enum s3c_err s3_xml_escape(struct sv s, struct buf *out, struct s3c_error *e);

/* ---- request bodies ------------------------------------------------------- */

#define S3_MAX_PARTS 10000
#define S3_DELETE_MAX_KEYS 1000

/* One part of a CompleteMultipartUpload body. */
struct s3_complete_part {
    uint32_t number;            /* 1..10000, strictly ascending across the list */
    const char *etag;           /* as UploadPart returned it, quotes included */
    struct s3_checksums checksums; /* NULL or "" fields are left out; type unused */
};

/*
 * Append <CompleteMultipartUpload> with 'n' parts to 'out'. S3C_EINTERNAL if
 * n is 0 or over S3_MAX_PARTS, or the part numbers are not strictly
 * ascending in 1..10000 (a caller bug S3 would answer with InvalidPartOrder);
 * S3C_EPARSE for a value XML cannot carry; S3C_ENOMEM past out's cap.
 * On failure 'out' may hold a partial body: reset it before reuse.
 */
enum s3c_err s3_build_complete_multipart(const struct s3_complete_part *parts, size_t n,
                                         struct buf *out, struct s3c_error *e);

/* One object of a DeleteObjects body. */
struct s3_delete_object {
    const char *key;
    const char *version_id;     /* NULL or "" for the current version */
    const char *etag;           /* NULL or "": any; else deleted only while the object has this ETag
                                   (S3 since 2025; a store that ignores it deletes all the same) */
};

/*
 * Append <Delete> with 'n' objects (1..1000) to 'out'. quiet: S3 lists only
 * the failures. S3C_EINTERNAL for a bad count or an empty key; S3C_EPARSE
 * for a key that fails s3_xml_key_ok (e->msg names its index: filter keys
 * with s3_xml_key_ok first); S3C_ENOMEM past out's cap.
 */
enum s3c_err s3_build_delete(const struct s3_delete_object *objs, size_t n, bool quiet,
                             struct buf *out, struct s3c_error *e);

/*
 * Append the CreateBucket body for 'region' to 'out'. Nothing is appended
 * for NULL, "" or "us-east-1": S3 refuses a LocationConstraint of us-east-1,
 * and an empty body means us-east-1.
 */
enum s3c_err s3_build_create_bucket(const char *region, struct buf *out, struct s3c_error *e);

/*
 * Append the CreateBucket body of a directory bucket (S3 Express) in zone
 * 'zone' ("use1-az4": an Availability Zone, SingleAvailabilityZone; an id
 * with a location, "usw2-lax1-az1": a Local Zone, SingleLocalZone).
 */
enum s3c_err s3_build_create_directory_bucket(const char *zone, struct buf *out, struct s3c_error *e);

#endif
