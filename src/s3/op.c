#include "s3/op.h"

#include <string.h>

/* Whether 'query' (a=b&c&...) has the parameter 'name', with or without a value. */
static bool has_param(const char *query, const char *name)
{
    size_t n = strlen(name);
    const char *p = query;

    while (p && *p) {
        if (!strncmp(p, name, n) && (p[n] == '\0' || p[n] == '=' || p[n] == '&'))
            return true;
        p = strchr(p, '&');
        if (p)
            p++;
    }
    return false;
}

/* Sub-resources whose operations are named <Verb><Name>: ?tagging -> GetObjectTagging. */
static const char *sub_resource(const char *method, bool has_key, const char *q)
{
    static const struct {
        const char *param, *get, *put, *del;
        bool object;
    } subs[] = {
        { "tagging", "GetObjectTagging", "PutObjectTagging", "DeleteObjectTagging", true },
        { "acl", "GetObjectAcl", "PutObjectAcl", NULL, true },
        { "attributes", "GetObjectAttributes", NULL, NULL, true },
        { "tagging", "GetBucketTagging", "PutBucketTagging", "DeleteBucketTagging", false },
        { "acl", "GetBucketAcl", "PutBucketAcl", NULL, false },
        { "location", "GetBucketLocation", NULL, NULL, false },
        { "versioning", "GetBucketVersioning", "PutBucketVersioning", NULL, false },
        { "policy", "GetBucketPolicy", "PutBucketPolicy", "DeleteBucketPolicy", false },
        { "lifecycle", "GetBucketLifecycleConfiguration", "PutBucketLifecycleConfiguration",
          "DeleteBucketLifecycle", false },
        { "versions", "ListObjectVersions", NULL, NULL, false },
        { "uploads", "ListMultipartUploads", NULL, NULL, false },
        { "session", "CreateSession", NULL, NULL, false },
    };
    size_t i;

    for (i = 0; i < sizeof(subs) / sizeof(subs[0]); i++) {
        const char *name;

        if (subs[i].object != has_key || !has_param(q, subs[i].param))
            continue;
        name = !strcmp(method, "GET") ? subs[i].get : !strcmp(method, "PUT") ? subs[i].put
               : !strcmp(method, "DELETE") ? subs[i].del : NULL;
        if (name)
            return name;
    }
    return NULL;
}

const char *s3_op_name(const char *method, bool has_bucket, bool has_key, const char *query, bool copy_source)
{
    const char *q = query ? query : "";
    const char *sub;

    if (!method)
        return "Request";
    if ((sub = sub_resource(method, has_key, q)))
        return sub;
    if (!has_bucket)
        return !strcmp(method, "GET") ? "ListBuckets" : "Request";
    if (!has_key) {
        if (!strcmp(method, "HEAD"))
            return "HeadBucket";
        if (!strcmp(method, "PUT"))
            return "CreateBucket";
        if (!strcmp(method, "DELETE"))
            return "DeleteBucket";
        if (!strcmp(method, "POST") && has_param(q, "delete"))
            return "DeleteObjects";
        if (!strcmp(method, "GET"))
            return has_param(q, "list-type") ? "ListObjectsV2" : "ListObjects";
        return "Request";
    }
    if (!strcmp(method, "HEAD"))
        return "HeadObject";
    if (!strcmp(method, "GET"))
        return has_param(q, "uploadId") ? "ListParts" : "GetObject";
    if (!strcmp(method, "PUT")) {
        if (has_param(q, "partNumber"))
            return copy_source ? "UploadPartCopy" : "UploadPart";
        return copy_source ? "CopyObject" : "PutObject";
    }
    if (!strcmp(method, "POST")) {
        if (has_param(q, "uploads"))
            return "CreateMultipartUpload";
        if (has_param(q, "uploadId"))
            return "CompleteMultipartUpload";
        if (has_param(q, "restore"))
            return "RestoreObject";
        return "Request";
    }
    if (!strcmp(method, "DELETE"))
        return has_param(q, "uploadId") ? "AbortMultipartUpload" : "DeleteObject";
    return "Request";
}
