/*
 * The request bodies s3c sends: CompleteMultipartUpload, Delete and
 * CreateBucketConfiguration, Tagging; and the x-amz-tagging header, which
 * carries the tags a GetObjectTagging reply gave back to a new object. Text is
 * escaped so that S3's parser gives back exactly the bytes s3c meant; what
 * XML 1.0 cannot carry is refused, never replaced.
 */
#include <string.h>

#include "base/pct.h"
#include "base/str.h"
#include "s3/xml.h"

/* The Char production of XML 1.0. */
static bool xml_char_ok(uint32_t c)
{
    return c == 0x9 || c == 0xa || c == 0xd || (c >= 0x20 && c <= 0xd7ff) ||
           (c >= 0xe000 && c <= 0xfffd) || (c >= 0x10000 && c <= 0x10ffff);
}

bool s3_xml_key_ok(struct sv key)
{
    const unsigned char *p = (const unsigned char *)key.p;
    size_t i = 0, len;
    uint32_t c;

    while (i < key.n) {
        len = str_utf8_next(p + i, key.n - i, &c);
        if (!len || !xml_char_ok(c))
            return false;
        i += len;
    }
    return true;
}

enum s3c_err s3_xml_escape(struct sv s, struct buf *out, struct s3c_error *e)
{
    const unsigned char *p = (const unsigned char *)s.p;
    size_t i = 0, run = 0, len;
    const char *esc;
    uint32_t c;

    if (!s3_xml_key_ok(s))
        return s3c_fail(e, S3C_EPARSE, "text holds characters XML 1.0 cannot carry");
    while (i < s.n) {
        len = str_utf8_next(p + i, s.n - i, &c);
        switch (c) {
        case '&': esc = "&amp;"; break;
        case '<': esc = "&lt;"; break;
        case '>': esc = "&gt;"; break;
        case '"': esc = "&quot;"; break;
        case '\'': esc = "&apos;"; break;
        /* Line ends and tabs as references: a parser normalizes CR LF and
         * lone CR to LF, and S3 would then look up another key. */
        case '\r': esc = "&#xD;"; break;
        case '\n': esc = "&#xA;"; break;
        case '\t': esc = "&#x9;"; break;
        /* NEL and LINE SEPARATOR are line ends to an XML 1.1 parser. */
        case 0x85: esc = "&#x85;"; break;
        case 0x2028: esc = "&#x2028;"; break;
        default: esc = NULL; break;
        }
        if (esc) {
            if (buf_add(out, s.p + i - run, run) || buf_adds(out, esc))
                goto full;
            run = 0;
        } else {
            run += len;
        }
        i += len;
    }
    if (buf_add(out, s.p + i - run, run))
        goto full;
    return S3C_OK;
full:
    return s3c_fail(e, S3C_ENOMEM, "request body over %zu bytes", out->max);
}

static enum s3c_err add(struct buf *out, const char *s, struct s3c_error *e)
{
    if (buf_adds(out, s))
        return s3c_fail(e, S3C_ENOMEM, "request body over %zu bytes", out->max);
    return S3C_OK;
}

/* <name>escaped text</name>, or nothing when 'text' is NULL or "". */
static enum s3c_err add_elem(struct buf *out, const char *name, const char *text,
                             struct s3c_error *e)
{
    enum s3c_err rc;

    if (!text || !text[0])
        return S3C_OK;
    if (buf_addf(out, "<%s>", name))
        return s3c_fail(e, S3C_ENOMEM, "request body over %zu bytes", out->max);
    rc = s3_xml_escape(sv_from(text), out, e);
    if (!rc && buf_addf(out, "</%s>", name))
        rc = s3c_fail(e, S3C_ENOMEM, "request body over %zu bytes", out->max);
    return rc;
}

enum s3c_err s3_build_complete_multipart(const struct s3_complete_part *parts, size_t n,
                                         struct buf *out, struct s3c_error *e)
{
    enum s3c_err rc;
    uint32_t prev = 0;
    size_t i;

    if (n == 0 || n > S3_MAX_PARTS)
        return s3c_fail(e, S3C_EINTERNAL, "CompleteMultipartUpload with %zu parts", n);
    for (i = 0; i < n; i++) {
        if (parts[i].number <= prev || parts[i].number > S3_MAX_PARTS)
            return s3c_fail(e, S3C_EINTERNAL, "part number %u after %u: want 1..%d ascending",
                            (unsigned)parts[i].number, (unsigned)prev, S3_MAX_PARTS);
        if (!parts[i].etag || !parts[i].etag[0])
            return s3c_fail(e, S3C_EINTERNAL, "part %u has no ETag", (unsigned)parts[i].number);
        prev = parts[i].number;
    }
    rc = add(out, "<CompleteMultipartUpload xmlns=\"" S3_XML_NS "\">", e);
    for (i = 0; i < n && !rc; i++) {
        const struct s3_checksums *c = &parts[i].checksums;

        if (buf_addf(out, "<Part><PartNumber>%u</PartNumber>", (unsigned)parts[i].number))
            return s3c_fail(e, S3C_ENOMEM, "request body over %zu bytes", out->max);
        rc = add_elem(out, "ETag", parts[i].etag, e);
        if (!rc)
            rc = add_elem(out, "ChecksumCRC32", c->crc32, e);
        if (!rc)
            rc = add_elem(out, "ChecksumCRC32C", c->crc32c, e);
        if (!rc)
            rc = add_elem(out, "ChecksumCRC64NVME", c->crc64nvme, e);
        if (!rc)
            rc = add_elem(out, "ChecksumSHA1", c->sha1, e);
        if (!rc)
            rc = add_elem(out, "ChecksumSHA256", c->sha256, e);
        if (!rc)
            rc = add(out, "</Part>", e);
    }
    if (!rc)
        rc = add(out, "</CompleteMultipartUpload>", e);
    return rc;
}

enum s3c_err s3_build_delete(const struct s3_delete_object *objs, size_t n, bool quiet,
                             struct buf *out, struct s3c_error *e)
{
    enum s3c_err rc;
    size_t i;

    if (n == 0 || n > S3_DELETE_MAX_KEYS)
        return s3c_fail(e, S3C_EINTERNAL, "DeleteObjects with %zu keys, want 1..%d", n,
                        S3_DELETE_MAX_KEYS);
    /* Check every key before writing, so a refusal names the key's index
     * and leaves 'out' as it was. */
    for (i = 0; i < n; i++) {
        if (!objs[i].key || !objs[i].key[0])
            return s3c_fail(e, S3C_EINTERNAL, "DeleteObjects key %zu is empty", i);
        if (!s3_xml_key_ok(sv_from(objs[i].key)))
            return s3c_fail(e, S3C_EPARSE,
                            "DeleteObjects key %zu holds characters XML 1.0 cannot carry", i);
        if (objs[i].version_id && !s3_xml_key_ok(sv_from(objs[i].version_id)))
            return s3c_fail(e, S3C_EPARSE, "DeleteObjects version id %zu is not XML text", i);
        if (objs[i].etag && !s3_xml_key_ok(sv_from(objs[i].etag)))
            return s3c_fail(e, S3C_EPARSE, "DeleteObjects ETag %zu is not XML text", i);
    }
    rc = add(out, "<Delete xmlns=\"" S3_XML_NS "\">", e);
    if (!rc && quiet)
        rc = add(out, "<Quiet>true</Quiet>", e);
    for (i = 0; i < n && !rc; i++) {
        rc = add(out, "<Object>", e);
        if (!rc)
            rc = add_elem(out, "Key", objs[i].key, e);
        if (!rc)
            rc = add_elem(out, "VersionId", objs[i].version_id, e);
        if (!rc)
            rc = add_elem(out, "ETag", objs[i].etag, e);
        if (!rc)
            rc = add(out, "</Object>", e);
    }
    if (!rc)
        rc = add(out, "</Delete>", e);
    return rc;
}

enum s3c_err s3_build_create_bucket(const char *region, struct buf *out, struct s3c_error *e)
{
    enum s3c_err rc;

    if (!region || !region[0] || strcmp(region, "us-east-1") == 0)
        return S3C_OK;
    rc = add(out, "<CreateBucketConfiguration xmlns=\"" S3_XML_NS "\">", e);
    if (!rc)
        rc = add_elem(out, "LocationConstraint", region, e);
    if (!rc)
        rc = add(out, "</CreateBucketConfiguration>", e);
    return rc;
}

enum s3c_err s3_build_create_directory_bucket(const char *zone, struct buf *out, struct s3c_error *e)
{
    /* An Availability Zone id is REGION-azN ("use1-az4"); a Local Zone's has
     * a location between ("usw2-lax1-az1"). */
    const char *dash = strchr(zone, '-');
    bool local = dash && strchr(dash + 1, '-');
    enum s3c_err rc;

    rc = add(out, "<CreateBucketConfiguration xmlns=\"" S3_XML_NS "\"><Location>", e);
    if (!rc)
        rc = add_elem(out, "Name", zone, e);
    if (!rc)
        rc = add_elem(out, "Type", local ? "LocalZone" : "AvailabilityZone", e);
    if (!rc)
        rc = add(out, "</Location><Bucket>", e);
    if (!rc)
        rc = add_elem(out, "DataRedundancy", local ? "SingleLocalZone" : "SingleAvailabilityZone", e);
    if (!rc)
        rc = add_elem(out, "Type", "Directory", e);
    if (!rc)
        rc = add(out, "</Bucket></CreateBucketConfiguration>", e);
    return rc;
}

enum s3c_err s3_build_tagging(const struct s3_tagging *t, struct buf *out, struct s3c_error *e)
{
    enum s3c_err rc = add(out, "<Tagging xmlns=\"" S3_XML_NS "\"><TagSet>", e);
    size_t i;

    for (i = 0; i < t->n_tags && !rc; i++) {
        rc = add(out, "<Tag><Key>", e);
        if (!rc)
            rc = s3_xml_escape(sv_from(t->tags[i].key), out, e);
        if (!rc)
            rc = add(out, "</Key><Value>", e);
        if (!rc)
            rc = s3_xml_escape(sv_from(t->tags[i].value), out, e);
        if (!rc)
            rc = add(out, "</Value></Tag>", e);
    }
    if (!rc)
        rc = add(out, "</TagSet></Tagging>", e);
    return rc;
}

enum s3c_err s3_tagging_header(const struct s3_tagging *t, struct buf *out)
{
    enum s3c_err rc = S3C_OK;
    size_t i;

    for (i = 0; i < t->n_tags && !rc; i++) {
        if (i)
            rc = buf_addc(out, '&');
        if (!rc)
            rc = pct_encode(sv_from(t->tags[i].key), false, out);
        if (!rc)
            rc = buf_addc(out, '=');
        if (!rc)
            rc = pct_encode(sv_from(t->tags[i].value), false, out);
    }
    return rc;
}
