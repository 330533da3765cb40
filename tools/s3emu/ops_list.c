/*
 * ops_list: the listings of a bucket's keys: ListObjects v1 and v2 (one walk,
 * two spellings) and ListObjectVersions, each a seek in the bucket's skip list
 * and a walk with prefix, delimiter and marker; and the unsorted ListObjectsV2
 * of directory buckets. Read-only; the listings of uploads and parts are in
 * ops_mpu.c.
 */
#include "ops.h"

#include <stdlib.h>
#include <string.h>

#include "base/hash.h"

/* First node past every key that starts with p[0..n). */
static struct emu_sl_node *seek_past_prefix(const struct emu_sl *sl, const char *p, size_t n)
{
    char tmp[MAX_KEY_BYTES + 8];

    if (n > sizeof(tmp))
        return NULL;
    memcpy(tmp, p, n);
    while (n && (unsigned char)tmp[n - 1] == 0xff)
        n--;
    if (!n)
        return NULL;
    tmp[n - 1]++;
    return emu_sl_seek(sl, tmp, n, 0);
}

static int key_cmp(const char *a, size_t an, const char *b, size_t bn)
{
    int c = memcmp(a, b, an < bn ? an : bn);

    return c ? c : (an < bn ? -1 : an > bn);
}

/* Append a string literal (its length known when compiled). */
#define ADD_LIT(b, lit) buf_add((b), (lit), sizeof(lit) - 1)

/* Append v in decimal. */
static void add_u64(struct buf *b, uint64_t v)
{
    char d[24], *p = d + sizeof(d);

    do {
        *--p = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    buf_add(b, p, (size_t)(d + sizeof(d) - p));
}

/*
 * One <Contents>, without printf: a large listing writes a million of
 * them, and formatting them was a quarter of s3emu's time serving it.
 */
static void contents_xml(const struct emu_server *s, struct buf *x, const char *key, size_t klen,
                         const struct emu_obj *o, bool url, bool owner, bool restore)
{
    char t[48];

    ops_iso_time(o->mtime_ms, t);
    ADD_LIT(x, "<Contents>");
    ops_xml_key(x, "Key", key, klen, url);
    ADD_LIT(x, "<LastModified>");
    buf_adds(x, t);
    ADD_LIT(x, "</LastModified><ETag>");
    emu_xml_esc(x, o->etag, strlen(o->etag));
    ADD_LIT(x, "</ETag>");
    if (o->ck.algo[0]) {
        ADD_LIT(x, "<ChecksumAlgorithm>");
        buf_adds(x, o->ck.algo);
        ADD_LIT(x, "</ChecksumAlgorithm><ChecksumType>");
        buf_adds(x, o->ck.type);
        ADD_LIT(x, "</ChecksumType>");
    }
    ADD_LIT(x, "<Size>");
    add_u64(x, o->size);
    ADD_LIT(x, "</Size>");
    if (owner)
        ops_owner_xml(x, "Owner");
    ADD_LIT(x, "<StorageClass>");
    buf_adds(x, o->storage_class);
    ADD_LIT(x, "</StorageClass>");
    /* x-amz-optional-object-attributes: RestoreStatus, for an object with a restore asked */
    if (restore && o->restore_asked_ms) {
        struct emu_restore rs = emu_model_restore(s, o, emu_wall_ms());

        ADD_LIT(x, "<RestoreStatus><IsRestoreInProgress>");
        buf_adds(x, rs.ongoing ? "true" : "false");
        ADD_LIT(x, "</IsRestoreInProgress>");
        if (!rs.ongoing) {
            ops_iso_time(rs.until_ms, t);
            ADD_LIT(x, "<RestoreExpiryDate>");
            buf_adds(x, t);
            ADD_LIT(x, "</RestoreExpiryDate>");
        }
        ADD_LIT(x, "</RestoreStatus>");
    }
    ADD_LIT(x, "</Contents>");
}

/* An entry of a page: a key (cpl 0) or the common prefix of its first cpl bytes. */
struct list_item {
    const struct emu_sl_node *n;
    size_t cpl;
};

/*
 * ListObjects (v1) and ListObjectsV2: one walk, two spellings. The walk
 * picks the page's entries first, so the page is written once, in order,
 * into the answer's own buffer (kept by the connection from one answer to
 * the next): building it aside and copying it in was a sixth of s3emu's
 * time serving a large listing, page faults included.
 */
void ops_list_objects(struct emu_server *s, struct emu_conn *c, struct emu_bucket *b, bool v2)
{
    struct emu_req *q = &c->req;
    const char *prefix = emu_req_param(q, "prefix");
    const char *delim = emu_req_param(q, "delimiter");
    const char *enc = emu_req_param(q, "encoding-type");
    const char *start_after = emu_req_param(q, v2 ? "start-after" : "marker");
    const char *token = v2 ? emu_req_param(q, "continuation-token") : NULL;
    const char *fo = emu_req_param(q, "fetch-owner");
    bool url = enc && !strcmp(enc, "url"), owner = !v2 || (fo && !strcmp(fo, "true"));
    struct sv oa = emu_req_header(q, "x-amz-optional-object-attributes");
    bool restore = v2 && oa.n && memmem(oa.p, oa.n, "RestoreStatus", 13);
    struct buf marker = BUF_INIT(4096), next = BUF_INIT(4096);
    struct buf *x = &c->resp.body;
    size_t plen = prefix ? strlen(prefix) : 0, dlen = delim ? strlen(delim) : 0, i, key_bytes = 0;
    struct list_item *items = NULL;
    struct emu_sl_node *n;
    int max, count = 0;
    bool truncated = false;

    if (enc && strcmp(enc, "url") != 0) {
        ops_error(s, c, 400, "InvalidArgument", "Invalid Encoding Method specified in Request", NULL);
        goto out;
    }
    if (!ops_get_max(s, c, "max-keys", &max))
        goto out;
    if (token) {
        if (base64_decode(sv_from(token), &marker)) {
            ops_error(s, c, 400, "InvalidArgument", "The continuation token provided is incorrect", NULL);
            goto out;
        }
    } else if (start_after) {
        buf_adds(&marker, start_after);
    }
    items = malloc(((size_t)max + 1) * sizeof(*items));
    if (!items) {
        ops_error(s, c, 500, "InternalError", "Out of memory.", NULL);
        goto out;
    }
    n = emu_sl_seek(&b->keys, prefix ? prefix : "", plen, 0);
    if (marker.len && (!prefix || key_cmp(marker.data, marker.len, prefix, plen) >= 0))
        n = emu_sl_seek(&b->keys, marker.data, marker.len, 1);
    while (n) {
        const struct emu_obj *o = n->val;

        if (plen && (n->klen < plen || memcmp(n->key, prefix, plen) != 0))
            break;
        if (dlen) {
            const char *d = memmem(n->key + plen, n->klen - plen, delim, dlen);

            if (d) {
                size_t cpl = (size_t)(d - n->key) + dlen;

                if (marker.len && key_cmp(n->key, cpl, marker.data, marker.len) <= 0) {
                    n = seek_past_prefix(&b->keys, n->key, cpl);
                    continue;
                }
                if (count == max) {
                    truncated = true;
                    break;
                }
                items[count++] = (struct list_item){ n, cpl };
                key_bytes += cpl;
                n = seek_past_prefix(&b->keys, n->key, cpl);
                continue;
            }
        }
        if (o->delete_marker) {
            n = emu_sl_next(n);
            continue;
        }
        if (count == max) {
            truncated = true;
            break;
        }
        items[count++] = (struct list_item){ n, 0 };
        key_bytes += n->klen;
        n = emu_sl_next(n);
    }
    if (!n)
        truncated = false;
    if (count) {
        const struct list_item *last = &items[count - 1];

        buf_add(&next, last->n->key, last->cpl ? last->cpl : last->n->klen);
    }

    /* Room for it all at once: keys may triple (URL-encoded) or grow six times (escaped). */
    buf_grow(x, (size_t)count * 256 + key_bytes * 6 + 16384);
    ops_xml_open(x, "ListBucketResult");
    emu_xml_elem(x, "Name", b->name);
    ops_xml_key(x, "Prefix", prefix ? prefix : "", plen, url);
    if (v2) {
        if (start_after)
            ops_xml_key(x, "StartAfter", start_after, strlen(start_after), url);
        if (token)
            emu_xml_elem(x, "ContinuationToken", token);
        ADD_LIT(x, "<KeyCount>");
        add_u64(x, (uint64_t)count);
        ADD_LIT(x, "</KeyCount>");
    } else {
        ops_xml_key(x, "Marker", start_after ? start_after : "", start_after ? strlen(start_after) : 0, url);
    }
    ADD_LIT(x, "<MaxKeys>");
    add_u64(x, (uint64_t)max);
    ADD_LIT(x, "</MaxKeys>");
    if (delim)
        ops_xml_key(x, "Delimiter", delim, dlen, url);
    if (url)
        ADD_LIT(x, "<EncodingType>url</EncodingType>");
    if (truncated)
        ADD_LIT(x, "<IsTruncated>true</IsTruncated>");
    else
        ADD_LIT(x, "<IsTruncated>false</IsTruncated>");
    if (truncated && v2) {
        struct buf t = BUF_INIT(8192);
        base64_encode(next.data, next.len, &t);
        emu_xml_elem(x, "NextContinuationToken", buf_cstr(&t));
        buf_release(&t);
    } else if (truncated && delim) {
        ops_xml_key(x, "NextMarker", next.data, next.len, url);
    }
    /* The keys, then the common prefixes, as S3 orders them. */
    for (i = 0; i < (size_t)count; i++)
        if (!items[i].cpl)
            contents_xml(s, x, items[i].n->key, items[i].n->klen, items[i].n->val, url, owner, restore);
    for (i = 0; i < (size_t)count; i++) {
        if (!items[i].cpl)
            continue;
        ADD_LIT(x, "<CommonPrefixes>");
        ops_xml_key(x, "Prefix", items[i].n->key, items[i].cpl, url);
        ADD_LIT(x, "</CommonPrefixes>");
    }
    ADD_LIT(x, "</ListBucketResult>");
    ops_ok_xml(c);
out:
    free(items);
    buf_release(&marker);
    buf_release(&next);
}

void ops_list_versions(struct emu_server *s, struct emu_conn *c, struct emu_bucket *b)
{
    struct emu_req *q = &c->req;
    const char *prefix = emu_req_param(q, "prefix");
    const char *delim = emu_req_param(q, "delimiter");
    const char *enc = emu_req_param(q, "encoding-type");
    const char *km = emu_req_param(q, "key-marker");
    const char *vm = emu_req_param(q, "version-id-marker");
    bool url = enc && !strcmp(enc, "url");
    struct buf items = BUF_INIT((size_t)64 << 20), cps = BUF_INIT((size_t)16 << 20);
    struct buf nk = BUF_INIT(4096), nv = BUF_INIT(64);
    struct buf *x = &c->resp.body;
    size_t plen = prefix ? strlen(prefix) : 0, dlen = delim ? strlen(delim) : 0;
    struct emu_sl_node *n;
    int max, count = 0;
    bool truncated = false;

    if (!ops_get_max(s, c, "max-keys", &max))
        goto out;
    n = emu_sl_seek(&b->keys, prefix ? prefix : "", plen, 0);
    if (km && *km && (!prefix || strcmp(km, prefix) >= 0))
        n = emu_sl_seek(&b->keys, km, strlen(km), !(vm && *vm));
    for (; n && !truncated; ) {
        const struct emu_obj *o = n->val;
        bool skipping = vm && *vm && km && n->klen == strlen(km) && !memcmp(n->key, km, n->klen);

        if (plen && (n->klen < plen || memcmp(n->key, prefix, plen) != 0))
            break;
        if (dlen) {
            const char *d = memmem(n->key + plen, n->klen - plen, delim, dlen);

            if (d) {
                size_t cpl = (size_t)(d - n->key) + dlen;

                if (km && *km && key_cmp(n->key, cpl, km, strlen(km)) <= 0) {
                    n = seek_past_prefix(&b->keys, n->key, cpl);
                    continue;
                }
                if (count == max) {
                    truncated = true;
                    break;
                }
                buf_adds(&cps, "<CommonPrefixes>");
                ops_xml_key(&cps, "Prefix", n->key, cpl, url);
                buf_adds(&cps, "</CommonPrefixes>");
                count++;
                buf_reset(&nk);
                buf_add(&nk, n->key, cpl);
                buf_reset(&nv);
                n = seek_past_prefix(&b->keys, n->key, cpl);
                continue;
            }
        }
        for (; o; o = o->older) {
            char t[48];

            if (skipping) {
                if (!strcmp(o->vid, vm))
                    skipping = false;
                continue;
            }
            if (count == max) {
                truncated = true;
                break;
            }
            ops_iso_time(o->mtime_ms, t);
            buf_adds(&items, o->delete_marker ? "<DeleteMarker>" : "<Version>");
            ops_xml_key(&items, "Key", n->key, n->klen, url);
            buf_addf(&items, "<VersionId>%s</VersionId><IsLatest>%s</IsLatest><LastModified>%s</LastModified>",
                     o->vid, o == n->val ? "true" : "false", t);
            if (!o->delete_marker) {
                buf_adds(&items, "<ETag>");
                emu_xml_esc(&items, o->etag, strlen(o->etag));
                buf_addf(&items, "</ETag><Size>%llu</Size>", (unsigned long long)o->size);
            }
            ops_owner_xml(&items, "Owner");
            if (!o->delete_marker)
                buf_addf(&items, "<StorageClass>%s</StorageClass>", o->storage_class);
            buf_adds(&items, o->delete_marker ? "</DeleteMarker>" : "</Version>");
            count++;
            buf_reset(&nk);
            buf_add(&nk, n->key, n->klen);
            buf_reset(&nv);
            buf_adds(&nv, o->vid);
        }
        if (!truncated)
            n = emu_sl_next(n);
    }
    ops_xml_open(x, "ListVersionsResult");
    emu_xml_elem(x, "Name", b->name);
    ops_xml_key(x, "Prefix", prefix ? prefix : "", plen, url);
    ops_xml_key(x, "KeyMarker", km ? km : "", km ? strlen(km) : 0, url);
    emu_xml_elem(x, "VersionIdMarker", vm ? vm : "");
    buf_addf(x, "<MaxKeys>%d</MaxKeys>", max);
    if (delim)
        ops_xml_key(x, "Delimiter", delim, dlen, url);
    if (url)
        buf_adds(x, "<EncodingType>url</EncodingType>");
    buf_addf(x, "<IsTruncated>%s</IsTruncated>", truncated ? "true" : "false");
    if (truncated) {
        ops_xml_key(x, "NextKeyMarker", nk.data ? nk.data : "", nk.len, url);
        emu_xml_elem(x, "NextVersionIdMarker", buf_cstr(&nv));
    }
    buf_addsv(x, buf_sv(&items));
    buf_addsv(x, buf_sv(&cps));
    buf_adds(x, "</ListVersionsResult>");
    ops_ok_xml(c);
out:
    buf_release(&items);
    buf_release(&cps);
    buf_release(&nk);
    buf_release(&nv);
}

/* ---- directory buckets: ListObjectsV2 in a fixed, unsorted order ---- */

/* An entry of a directory listing: a key (o set) or a common prefix (o NULL). */
struct dir_ent {
    uint64_t h;
    const char *p;
    size_t n;
    const struct emu_obj *o;
};

/* The order of a directory bucket's listing: a scrambled FNV-1a of the entry. */
static uint64_t dir_hash(const char *p, size_t n)
{
    uint64_t h = str_fnv1a(STR_FNV1A_BASIS, p, n);

    h ^= h >> 31;
    h *= 0x9E3779B97F4A7C15ull;
    return h ^ (h >> 29);
}

static int dir_cmp(uint64_t ha, const char *a, size_t an, uint64_t hb, const char *b, size_t bn)
{
    if (ha != hb)
        return ha < hb ? -1 : 1;
    return key_cmp(a, an, b, bn);
}

static int dir_ent_cmp(const void *x, const void *y)
{
    const struct dir_ent *a = x, *b = y;

    return dir_cmp(a->h, a->p, a->n, b->h, b->p, b->n);
}

/*
 * Every entry under the prefix (keys, or with '/' the common prefixes once
 * each) is hashed; those after the continuation token (hash, entry) are
 * sorted by (hash, entry) and the first max-keys answered. O(entries) per page.
 */
void ops_list_dir_objects(struct emu_server *s, struct emu_conn *c, struct emu_bucket *b)
{
    struct emu_req *q = &c->req;
    const char *prefix = emu_req_param(q, "prefix");
    const char *delim = emu_req_param(q, "delimiter");
    const char *enc = emu_req_param(q, "encoding-type");
    const char *token = emu_req_param(q, "continuation-token");
    const char *fo = emu_req_param(q, "fetch-owner");
    bool url = enc && !strcmp(enc, "url"), owner = fo && !strcmp(fo, "true");
    size_t plen = prefix ? strlen(prefix) : 0, n_ent = 0, cap = 0, i;
    struct buf contents = BUF_INIT((size_t)64 << 20), cps = BUF_INIT((size_t)16 << 20);
    struct buf marker = BUF_INIT(4096), *x = &c->resp.body;
    struct dir_ent *ents = NULL;
    struct emu_sl_node *n;
    uint64_t mh = 0;
    int max, count = 0;
    bool truncated = false;

    if (enc && strcmp(enc, "url") != 0) {
        ops_error(s, c, 400, "InvalidArgument", "Invalid Encoding Method specified in Request", NULL);
        goto out;
    }
    if (delim && strcmp(delim, "/") != 0) {
        ops_error(s, c, 400, "InvalidArgument", "For directory buckets, / is the only supported delimiter.", NULL);
        goto out;
    }
    if (delim && plen && prefix[plen - 1] != '/') {
        ops_error(s, c, 400, "InvalidArgument", "For directory buckets, prefixes must end in the delimiter (/).",
                  NULL);
        goto out;
    }
    if (emu_req_param(q, "start-after")) {
        ops_error(s, c, 400, "InvalidArgument", "StartAfter is not supported by directory buckets.", NULL);
        goto out;
    }
    if (!ops_get_max(s, c, "max-keys", &max))
        goto out;
    if (token) {   /* 16 hex digits of the hash, then the entry */
        char hx[17], *end;

        if (base64_decode(sv_from(token), &marker) || marker.len < 16) {
            ops_error(s, c, 400, "InvalidArgument", "The continuation token provided is incorrect", NULL);
            goto out;
        }
        memcpy(hx, marker.data, 16);
        hx[16] = 0;
        mh = strtoull(hx, &end, 16);
        if (*end) {
            ops_error(s, c, 400, "InvalidArgument", "The continuation token provided is incorrect", NULL);
            goto out;
        }
    }
    for (n = emu_sl_seek(&b->keys, prefix ? prefix : "", plen, 0); n;) {
        struct dir_ent e = { 0, n->key, n->klen, n->val };
        const char *d;

        if (plen && (n->klen < plen || memcmp(n->key, prefix, plen) != 0))
            break;
        d = delim ? memchr(n->key + plen, '/', n->klen - plen) : NULL;
        if (d) {
            e.n = (size_t)(d - n->key) + 1;
            e.o = NULL;
            n = seek_past_prefix(&b->keys, n->key, e.n);
        } else {
            n = emu_sl_next(n);
            if (e.o->delete_marker)
                continue;
        }
        e.h = dir_hash(e.p, e.n);
        if (token && dir_cmp(e.h, e.p, e.n, mh, marker.data + 16, marker.len - 16) <= 0)
            continue;
        if (n_ent == cap) {
            struct dir_ent *ne = realloc(ents, (cap ? cap * 2 : 256) * sizeof(*ents));
            if (!ne) {
                ops_error(s, c, 500, "InternalError", "Out of memory.", NULL);
                goto out;
            }
            ents = ne;
            cap = cap ? cap * 2 : 256;
        }
        ents[n_ent++] = e;
    }
    if (n_ent)
        qsort(ents, n_ent, sizeof(*ents), dir_ent_cmp);
    for (i = 0; i < n_ent; i++) {
        if (count == max) {
            truncated = count > 0;
            break;
        }
        if (ents[i].o) {
            contents_xml(s, &contents, ents[i].p, ents[i].n, ents[i].o, url, owner, false);
        } else {
            buf_adds(&cps, "<CommonPrefixes>");
            ops_xml_key(&cps, "Prefix", ents[i].p, ents[i].n, url);
            buf_adds(&cps, "</CommonPrefixes>");
        }
        count++;
    }
    ops_xml_open(x, "ListBucketResult");
    emu_xml_elem(x, "Name", b->name);
    ops_xml_key(x, "Prefix", prefix ? prefix : "", plen, url);
    if (token)
        emu_xml_elem(x, "ContinuationToken", token);
    buf_addf(x, "<KeyCount>%d</KeyCount><MaxKeys>%d</MaxKeys>", count, max);
    if (delim)
        ops_xml_key(x, "Delimiter", delim, 1, url);
    if (url)
        buf_adds(x, "<EncodingType>url</EncodingType>");
    buf_addf(x, "<IsTruncated>%s</IsTruncated>", truncated ? "true" : "false");
    if (truncated) {
        struct buf raw = BUF_INIT(4096), t = BUF_INIT(8192);
        const struct dir_ent *last = &ents[count - 1];

        buf_addf(&raw, "%016llx", (unsigned long long)last->h);
        buf_add(&raw, last->p, last->n);
        base64_encode(raw.data, raw.len, &t);
        emu_xml_elem(x, "NextContinuationToken", buf_cstr(&t));
        buf_release(&raw);
        buf_release(&t);
    }
    buf_addsv(x, buf_sv(&contents));
    buf_addsv(x, buf_sv(&cps));
    buf_adds(x, "</ListBucketResult>");
    ops_ok_xml(c);
out:
    free(ents);
    buf_release(&contents);
    buf_release(&cps);
    buf_release(&marker);
}
