/*
 * endpoint.c: the subset of botocore's S3 endpoint rule set that s3c
 * needs (no ARNs, access points, FIPS or outposts; S3 Express zonal and
 * control endpoints), written as one decision per function. See
 * endpoint.h for the table.
 */
#include "s3/endpoint.h"

#include "base/pct.h"

#include <string.h>
#include <strings.h>

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

enum s3c_err s3_uri_encode(struct sv in, bool keep_slash, struct buf *out)
{
    return pct_encode(in, keep_slash, out);
}

/* Four dot-separated runs of 1-3 digits, as botocore's IPV4_RE sees an address. */
static bool looks_ipv4(struct sv s)
{
    int parts = 0;
    size_t i = 0;

    while (i < s.n) {
        size_t start = i;
        while (i < s.n && is_digit(s.p[i]))
            i++;
        if (i == start || i - start > 3)
            return false;
        parts++;
        if (i == s.n)
            break;
        if (s.p[i] != '.' || parts == 4)
            return false;
        i++;
        if (i == s.n)
            return false;
    }
    return parts == 4;
}

/* ^(?!-)[a-zA-Z0-9-]{1,63}(?<!-)$ */
static bool host_label_ok(struct sv l)
{
    size_t i;

    if (l.n < 1 || l.n > 63 || l.p[0] == '-' || l.p[l.n - 1] == '-')
        return false;
    for (i = 0; i < l.n; i++) {
        char c = l.p[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(c) || c == '-'))
            return false;
    }
    return true;
}

bool s3_bucket_is_virtual_hostable(const char *bucket, bool allow_dots)
{
    struct sv b = sv_from(bucket);
    size_t i, start = 0;

    if (b.n < 3 || looks_ipv4(b))
        return false;
    for (i = 0; i < b.n; i++)
        if (b.p[i] >= 'A' && b.p[i] <= 'Z')
            return false;
    if (!allow_dots)
        return host_label_ok(b);
    for (i = 0; i <= b.n; i++) {
        if (i == b.n || b.p[i] == '.') {
            if (!host_label_ok((struct sv){ b.p + start, i - start }))
                return false;
            start = i + 1;
        }
    }
    return true;
}

enum s3c_err s3_url_parse(const char *url, struct s3_url *out, struct s3c_error *e)
{
    const char *p, *host_end, *auth_end;
    struct s3_url u = { false, SV_NULL, 0, SV_NULL, false };

    if (strncasecmp(url, "https://", 8) == 0) {
        u.tls = true;
        p = url + 8;
    } else if (strncasecmp(url, "http://", 7) == 0) {
        p = url + 7;
    } else {
        goto bad;
    }
    if (strpbrk(url, "?#@ \t\r\n"))
        goto bad;
    auth_end = p + strcspn(p, "/");
    if (*p == '[') {
        host_end = memchr(p, ']', (size_t)(auth_end - p));
        if (!host_end || host_end == p + 1)
            goto bad;
        host_end++;
        u.host_is_ip = true;
    } else {
        host_end = p;
        while (host_end < auth_end && *host_end != ':')
            host_end++;
        if (host_end == p)
            goto bad;
    }
    u.host = (struct sv){ p, (size_t)(host_end - p) };
    if (!u.host_is_ip) {
        size_t i;
        for (i = 0; i < u.host.n; i++) {
            char c = u.host.p[i];
            if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(c) || c == '-' ||
                  c == '.' || c == '_'))
                goto bad;
        }
        u.host_is_ip = looks_ipv4(u.host);
    }
    if (host_end < auth_end) {
        unsigned long port = 0;
        const char *q = host_end + 1;

        if (*host_end != ':' || q == auth_end)
            goto bad;
        for (; q < auth_end; q++) {
            if (!is_digit(*q))
                goto bad;
            port = port * 10 + (unsigned long)(*q - '0');
            if (port > 65535)
                goto bad;
        }
        if (port == 0)
            goto bad;
        if (port != (u.tls ? 443u : 80u))
            u.port = (unsigned)port;
    }
    u.path = sv_from(auth_end);
    *out = u;
    return S3C_OK;
bad:
    return s3c_fail(e, S3C_ECONFIG, "endpoint URL \"%.300s\" is not an http:// or https:// URL",
                    url);
}

#define EXPRESS_SUFFIX "--x-s3"

bool s3_express_zone(const char *bucket, char *out, size_t n)
{
    size_t len = bucket ? strlen(bucket) : 0, sl = strlen(EXPRESS_SUFFIX), end, start;

    if (len <= sl || strcmp(bucket + len - sl, EXPRESS_SUFFIX) != 0)
        return false;
    end = len - sl;
    /* The zone id runs back to the "--" before it (a zone id has single '-' only). */
    for (start = end; start >= 2; start--)
        if (bucket[start - 1] == '-' && bucket[start - 2] == '-')
            break;
    if (start < 3 || start == end || end - start >= n) /* a BASE, a ZONEID, room for it */
        return false;
    memcpy(out, bucket + start, end - start);
    out[end - start] = '\0';
    return true;
}

bool s3_bucket_is_express(const char *bucket)
{
    char zone[64];

    return s3_express_zone(bucket, zone, sizeof(zone));
}

void s3_target_release(struct s3_target *t)
{
    buf_release(&t->url);
    buf_release(&t->host);
    buf_release(&t->path);
}

/* DNS suffix of the region's partition. */
static const char *dns_suffix(const char *region)
{
    return strncmp(region, "cn-", 3) == 0 ? "amazonaws.com.cn" : "amazonaws.com";
}

/* path = base (made to end in '/') + encoded bucket [+ '/' + encoded key] */
static enum s3c_err path_style(struct sv base, const char *bucket, const char *key,
                               struct buf *path)
{
    if (buf_addsv(path, base))
        return S3C_ENOMEM;
    if (path->len == 0 || path->data[path->len - 1] != '/')
        if (buf_addc(path, '/'))
            return S3C_ENOMEM;
    if (s3_uri_encode(sv_from(bucket), false, path))
        return S3C_ENOMEM;
    if (key && *key && (buf_addc(path, '/') || s3_uri_encode(sv_from(key), true, path)))
        return S3C_ENOMEM;
    return S3C_OK;
}

/* path = base without its trailing '/' + '/' + encoded key; no key: the base or "/" */
static enum s3c_err virtual_style(struct sv base, const char *key, struct buf *path)
{
    if (!key || !*key)
        return buf_addsv(path, base.n ? base : SV("/"));
    while (base.n && base.p[base.n - 1] == '/')
        base.n--;
    if (buf_addsv(path, base) || buf_addc(path, '/') || s3_uri_encode(sv_from(key), true, path))
        return S3C_ENOMEM;
    return S3C_OK;
}

static enum s3c_err resolve_custom(const struct s3c_config *cfg, const char *bucket, const char *key,
                                   enum s3_endpoint_kind kind, struct s3_target *out, struct s3c_error *e)
{
    struct s3_url u;
    enum s3c_err rc;
    bool force_path, virt = false;

    if ((rc = s3_url_parse(cfg->endpoint_url, &u, e)))
        return rc;
    if (cfg->s3.use_accelerate_endpoint.value)
        return s3c_fail(e, S3C_ECONFIG, "A custom endpoint cannot be combined with S3 Accelerate");
    out->tls = u.tls;
    if (kind == S3_EP_CONTROL || (bucket && s3_bucket_is_express(bucket))) {
        /* botocore: control requests path style on the endpoint; zonal ones
         * virtual-hosted, or path style in front of an IP address (or when
         * addressing_style = path says so: an emulator takes both). */
        out->express = true;
        if (bucket && kind != S3_EP_CONTROL && !u.host_is_ip && cfg->s3.addressing_style != CFG_ADDRESSING_PATH) {
            if (!s3_bucket_is_virtual_hostable(bucket, false))
                return s3c_fail(e, S3C_EUSAGE, "directory bucket \"%.100s\": not a valid virtual-hostable name",
                                bucket);
            virt = true;
        }
    } else if (bucket) {
        force_path = cfg->s3.addressing_style != CFG_ADDRESSING_VIRTUAL;
        virt = !force_path && !u.host_is_ip &&
               (s3_bucket_is_virtual_hostable(bucket, false) ||
                (!u.tls && s3_bucket_is_virtual_hostable(bucket, true)));
    }
    out->virtual_hosted = virt;
    if (virt && (buf_adds(&out->host, bucket) || buf_addc(&out->host, '.')))
        return S3C_ENOMEM;
    if (buf_addsv(&out->host, u.host))
        return S3C_ENOMEM;
    if (u.port && buf_addf(&out->host, ":%u", u.port))
        return S3C_ENOMEM;
    if (!bucket)
        rc = buf_addsv(&out->path, u.path.n ? u.path : SV("/"));
    else if (virt)
        rc = virtual_style(u.path, key, &out->path);
    else
        rc = path_style(u.path, bucket, key, &out->path);
    return rc;
}

/* S3 Express on AWS: the regional control endpoint (path style) or the
 * bucket's zonal one (virtual-hosted only). */
static enum s3c_err resolve_aws_express(const struct s3c_config *cfg, const char *region, const char *bucket,
                                        const char *key, enum s3_endpoint_kind kind, struct s3_target *out,
                                        struct s3c_error *e)
{
    const char *ds = cfg->s3.use_dualstack_endpoint.value ? ".dualstack" : "";
    char zone[64];

    out->tls = out->express = true;
    if (cfg->s3.use_accelerate_endpoint.value)
        return s3c_fail(e, S3C_ECONFIG, "S3 Express directory buckets do not support S3 Accelerate");
    if (kind == S3_EP_CONTROL) {
        if (buf_addf(&out->host, "s3express-control%s.%s.%s", ds, region, dns_suffix(region)))
            return S3C_ENOMEM;
        return bucket ? path_style(SV_NULL, bucket, key, &out->path) : buf_addc(&out->path, '/');
    }
    if (!s3_express_zone(bucket, zone, sizeof(zone)) || !s3_bucket_is_virtual_hostable(bucket, false))
        return s3c_fail(e, S3C_EUSAGE, "directory bucket \"%.100s\": not a BASE--ZONEID--x-s3 name that can "
                                       "be virtual-hosted", bucket);
    out->virtual_hosted = true;
    if (buf_addf(&out->host, "%s.s3express-%s%s.%s.%s", bucket, zone, ds, region, dns_suffix(region)))
        return S3C_ENOMEM;
    return virtual_style(SV_NULL, key, &out->path);
}

static enum s3c_err resolve_aws(const struct s3c_config *cfg, const char *region, const char *bucket,
                                const char *key, enum s3_endpoint_kind kind, struct s3_target *out,
                                struct s3c_error *e)
{
    if (!region || !*region)
        region = cfg->region && *cfg->region ? cfg->region : CFG_DEFAULT_REGION;
    if (kind == S3_EP_CONTROL || (bucket && s3_bucket_is_express(bucket)))
        return resolve_aws_express(cfg, region, bucket, key, kind, out, e);
    bool dualstack = cfg->s3.use_dualstack_endpoint.value;
    bool accelerate = cfg->s3.use_accelerate_endpoint.value && bucket;
    bool virt = false;
    enum s3c_err rc;

    out->tls = true;
    if (bucket) {
        virt = s3_bucket_is_virtual_hostable(bucket, false) &&
               (accelerate || cfg->s3.addressing_style != CFG_ADDRESSING_PATH);
        if (accelerate && !virt)
            return s3c_fail(e, S3C_ECONFIG,
                            "bucket \"%.100s\": path-style addressing cannot be used with S3 "
                            "Accelerate (the name must be a DNS label without dots)",
                            bucket);
        if (accelerate && strncmp(region, "cn-", 3) == 0)
            return s3c_fail(e, S3C_ECONFIG, "S3 Accelerate cannot be used in region %s", region);
    }
    out->virtual_hosted = virt;
    if (virt && (buf_adds(&out->host, bucket) || buf_addc(&out->host, '.')))
        return S3C_ENOMEM;
    if (accelerate)
        rc = buf_addf(&out->host, "s3-accelerate%s.amazonaws.com", dualstack ? ".dualstack" : "");
    else
        rc = buf_addf(&out->host, "s3%s.%s.%s", dualstack ? ".dualstack" : "", region,
                      dns_suffix(region));
    if (rc)
        return S3C_ENOMEM;
    if (!bucket)
        return buf_addc(&out->path, '/');
    if (virt)
        return virtual_style(SV_NULL, key, &out->path);
    return path_style(SV_NULL, bucket, key, &out->path);
}

enum s3c_err s3_endpoint_resolve(const struct s3c_config *cfg, const char *bucket,
                                 const char *key, struct s3_target *out, struct s3c_error *e)
{
    return s3_endpoint_resolve_in(cfg, NULL, bucket, key, out, e);
}

enum s3c_err s3_endpoint_resolve_in(const struct s3c_config *cfg, const char *region, const char *bucket,
                                    const char *key, struct s3_target *out, struct s3c_error *e)
{
    return s3_endpoint_resolve_kind(cfg, region, bucket, key, S3_EP_OBJECT, out, e);
}

enum s3c_err s3_endpoint_resolve_kind(const struct s3c_config *cfg, const char *region, const char *bucket,
                                      const char *key, enum s3_endpoint_kind kind, struct s3_target *out,
                                      struct s3c_error *e)
{
    enum s3c_err rc;

    buf_reset(&out->url);
    buf_reset(&out->host);
    buf_reset(&out->path);
    out->tls = out->virtual_hosted = out->express = false;
    if (bucket && !*bucket)
        bucket = NULL;
    if (bucket && strchr(bucket, '/'))
        return s3c_fail(e, S3C_EUSAGE, "bucket name \"%.100s\" contains '/'", bucket);

    rc = cfg->endpoint_url ? resolve_custom(cfg, bucket, key, kind, out, e)
                           : resolve_aws(cfg, region, bucket, key, kind, out, e);
    if (!rc && (buf_adds(&out->url, out->tls ? "https://" : "http://") ||
                buf_addsv(&out->url, buf_sv(&out->host)) ||
                buf_addsv(&out->url, buf_sv(&out->path))))
        rc = S3C_ENOMEM;
    if (rc == S3C_ENOMEM)
        s3c_fail(e, rc, "request URL longer than %d bytes", S3_URL_MAX_BYTES);
    return rc;
}
