#include "cli/listing.h"

#include <stdlib.h>
#include <string.h>

#include "cli/output.h"
#include "plan/wild.h"
#include "plan/xsort.h"
#include "s3/endpoint.h"

enum s3c_err listing_set_key(struct listing_opts *o, const char *key, struct buf *prefix,
                             struct s3c_error *e)
{
    /* Without a wildcard the key is the prefix, its escapes ("\\*") removed, as every verb reads it. */
    o->pattern = wild_has(key) ? key : NULL;
    buf_reset(prefix);
    if (wild_prefix(key, prefix))
        return s3c_fail(e, S3C_ENOMEM, "wildcard prefix too long");
    o->prefix = buf_cstr(prefix);
    return S3C_OK;
}

void listing_open(struct listing *l, struct store_s3 *s3, const struct listing_opts *o)
{
    static const struct buf unpacked = BUF_INIT(3 << 16), query = BUF_INIT(16384);
    static const struct store_s3_async page = STORE_S3_ASYNC_INIT;

    memset(l, 0, sizeof(*l));
    l->s3 = s3;
    l->o = *o;
    l->unpacked = unpacked;
    l->page = page;
    l->page_q = query;
}

/* Keep a copy of the page's resume point; false on OOM. */
static bool take(char **dst, const char *src)
{
    free(*dst);
    *dst = strdup(src);
    return *dst != NULL;
}

/*
 * Entries rise: each of 'n' strings (a page's keys, or its common prefixes,
 * each list in order) sorts after the one before it and after every entry
 * of the pages before ('l->last'); with 'or_equal' (versions of one key) it
 * may equal it. '*top' is raised to the page's greatest. Keys holding a NUL
 * are not compared. False with 'e' set when they do not.
 */
static bool rises(const struct listing *l, const char *op, const char *const *v, size_t stride, size_t n,
                  bool or_equal, const char **top, struct s3c_error *e)
{
    const char *prev = l->last;
    size_t i;

    for (i = 0; i < n; i++) {
        const char *k = *(const char *const *)((const char *)v + i * stride);

        if (!k[0])
            continue;
        if (!listcheck_rises(prev, k, or_equal)) {
            if (prev == l->last)
                s3c_fail(e, S3C_EPARSE, "%s: the page after \"%.100s\" went back to \"%.100s\": a token that "
                         "leads to pages already read", op, prev, k);
            else
                s3c_fail(e, S3C_EPARSE, "%s: the store listed \"%.100s\" after \"%.100s\": entries out of order",
                         op, k, prev);
            return false;
        }
        prev = k;
    }
    if (prev != l->last && (!*top || strcmp(prev, *top) > 0))
        *top = prev;
    return true;
}

/* After a page: it moved the listing on (entries past the last page's), or an error. */
static int page_moves_on(struct listing *l, const char *op, const char *const *keys, size_t key_stride, size_t n_keys,
                         const char *const *prefixes, size_t n_prefixes, bool or_equal, struct s3c_error *e)
{
    const char *top = NULL;

    /* Directory buckets list in no order (sorted or not afterwards): the tokens alone tell. */
    if (l->o.sorted || s3_bucket_is_express(l->o.bucket))
        return 0;
    if (!rises(l, op, keys, key_stride, n_keys, or_equal, &top, e) ||
        !rises(l, op, prefixes, sizeof(*prefixes), n_prefixes, false, &top, e))
        return -1;
    if (top && !take(&l->last, top)) {
        s3c_fail(e, S3C_ENOMEM, "out of memory");
        return -1;
    }
    return 0;
}

/* ListObjects (V1) goes on from a marker: NextMarker (sent with a delimiter), else the page's
 * greatest key or prefix; "" when there is none (the page then fails as a token-less one). */
static const char *v1_marker(const struct s3_list_objects *p)
{
    const char *m = p->next_marker && p->next_marker[0] ? p->next_marker : "";

    if (!m[0] && p->n_objects)
        m = p->objects[p->n_objects - 1].key;
    if (p->n_prefixes && strcmp(p->prefixes[p->n_prefixes - 1], m) > 0)
        m = p->prefixes[p->n_prefixes - 1];
    return m;
}

static int fetch_objects(struct listing *l, struct s3c_error *e)
{
    struct store_s3_list_args a = { l->o.bucket, l->o.prefix, l->o.delimiter, l->token, NULL,
                                     l->o.page_size, l->o.v1, l->o.restore_status };

    if (store_s3_list_objects(l->s3, &a, &l->objs, e))
        return -1;
    if (l->o.v1 && l->objs.is_truncated && !l->objs.next_continuation_token[0])
        l->objs.next_continuation_token = v1_marker(&l->objs);
    if (page_moves_on(l, "ListObjectsV2", l->objs.n_objects ? &l->objs.objects[0].key : NULL,
                      sizeof(struct s3_object), l->objs.n_objects, l->objs.prefixes, l->objs.n_prefixes, false, e))
        return -1;
    l->more = l->objs.is_truncated;
    if (!l->more)
        return 0;
    if (!l->objs.next_continuation_token[0]) {
        s3c_fail(e, S3C_EPARSE, "ListObjectsV2: truncated page without a continuation token");
        return -1;
    }
    if (listcheck_token(&l->seen, "ListObjectsV2", l->objs.next_continuation_token,
                        l->objs.n_objects + l->objs.n_prefixes, e))
        return -1;
    if (!take(&l->token, l->objs.next_continuation_token)) {
        s3c_fail(e, S3C_ENOMEM, "out of memory");
        return -1;
    }
    return 0;
}

/* The next versions page into l->vers: 0, -1 with 'e' set, or LISTING_LATER while it is out (nonblock). */
static int fetch_versions(struct listing *l, struct s3c_error *e)
{
    enum s3c_err rc;

    if (!l->page_started) {
        struct store_s3_list_versions_args a = { l->o.bucket, l->o.prefix, l->o.delimiter, l->key_marker,
                                                 l->version_marker, l->o.page_size };
        struct s3_req r;

        if (store_s3_list_versions_req(&a, &r, &l->page_q, e))
            return -1;
        memset(&l->page_x, 0, sizeof(l->page_x));
        l->page_x.body_max = STORE_S3_LIST_BODY_MAX_BYTES;
        store_s3_async_start(l->s3, &r, &l->page_x, &l->page);
        l->page_started = true;
    }
    if (!store_s3_async_poll(l->s3, &l->page)) {
        if (l->nonblock)
            return LISTING_LATER; /* the engine steps the loop: the page comes in meanwhile */
        store_s3_async_wait(l->s3, &l->page);
    }
    rc = l->page.rc;
    if (rc)
        *e = l->page.err;
    else
        rc = s3_xml_parse(S3_REPLY_LIST_VERSIONS, buf_sv(&l->page_x.resp.body), &l->vers, NULL, e);
    store_s3_async_release(l->s3, &l->page);
    http_xfer_release(&l->page_x);
    l->page_started = false;
    if (rc)
        return -1;
    /* Several versions of one key follow each other, and a page may end inside them. */
    if (page_moves_on(l, "ListObjectVersions", l->vers.n_versions ? &l->vers.versions[0].key : NULL,
                      sizeof(struct s3_version), l->vers.n_versions, l->vers.prefixes, l->vers.n_prefixes, true, e))
        return -1;
    l->more = l->vers.is_truncated;
    if (!l->more)
        return 0;
    /* The version marker may be absent (the page ended on a common prefix). */
    if (!l->vers.next_key_marker[0]) {
        s3c_fail(e, S3C_EPARSE, "ListObjectVersions: truncated page without a NextKeyMarker");
        return -1;
    }
    {
        /* The marker pair is this listing's token: the same pair twice is a page read again. */
        struct buf pair = BUF_INIT(1 << 16);

        rc = buf_addf(&pair, "%s\n%s", l->vers.next_key_marker, l->vers.next_version_id_marker)
                              ? s3c_fail(e, S3C_ENOMEM, "out of memory")
                              : listcheck_token(&l->seen, "ListObjectVersions", buf_cstr(&pair),
                                                l->vers.n_versions + l->vers.n_prefixes, e);

        buf_release(&pair);
        if (rc)
            return -1;
    }
    if (!take(&l->key_marker, l->vers.next_key_marker) ||
        !take(&l->version_marker, l->vers.next_version_id_marker)) {
        s3c_fail(e, S3C_ENOMEM, "out of memory");
        return -1;
    }
    return 0;
}

static void from_object(struct listing_entry *d, const struct s3_object *o)
{
    d->kind = LISTING_OBJECT;
    d->key = o->key;
    d->version_id = "";
    d->is_latest = true;
    d->size = o->size;
    d->mtime_epoch = o->mtime_epoch;
    d->last_modified = o->last_modified;
    d->etag = o->etag;
    d->storage_class = o->storage_class;
    d->restore_in_progress = o->restore_in_progress;
    d->restore_expiry = o->restore_expiry;
}

static void from_version(struct listing_entry *d, const struct s3_version *v)
{
    d->kind = v->is_delete_marker ? LISTING_DELETE_MARKER : LISTING_OBJECT;
    d->key = v->key;
    d->version_id = v->version_id;
    d->is_latest = v->is_latest;
    d->size = v->is_delete_marker ? 0 : v->size;
    d->mtime_epoch = v->mtime_epoch;
    d->last_modified = v->last_modified;
    d->etag = v->is_delete_marker ? "" : v->etag;
    d->storage_class = v->is_delete_marker ? "" : v->storage_class;
}

/* The wildcard and the filters: should 'key' be shown? */
static bool selected(const struct listing *l, const char *key)
{
    struct sv k = sv_from(key), rel;
    size_t plen = l->o.prefix ? strlen(l->o.prefix) : 0;

    if (l->o.pattern && !wild_match(l->o.pattern, k))
        return false;
    if (!l->o.filter || filter_empty(l->o.filter))
        return true;
    if (l->o.pattern)
        rel = wild_relative(l->o.pattern, k);
    else
        rel = k.n >= plen ? (struct sv){ k.p + plen, k.n - plen } : k;
    return filter_accept(l->o.filter, l->o.filter_root, rel);
}

void listing_warn_skip(const char *bucket, const char *key, enum listcheck_verdict why, struct s3c_error *e)
{
    struct buf shown = BUF_INIT(1 << 16);
    struct out_result r = { "list", "", NULL, 0, false, NULL, false, false, NULL };

    s3c_fail(e, S3C_ESKIPPED, "%s", listcheck_why(why));
    if (buf_addf(&shown, "s3://%s/%s", bucket, key))
        buf_adds(&shown, "(a key too long to show)");
    r.src = buf_cstr(&shown);
    out_result(&r, e);
    buf_release(&shown);
}

/* Whether the containment check lets the caller see entry 'key' (else told, and counted). */
static bool contained(struct listing *l, const char *key, bool common)
{
    enum listcheck_verdict v = listcheck_key(l->o.prefix, key, common);

    if (v == LISTCHECK_OK)
        return true;
    l->skipped++;
    if (l->o.skip) {
        l->o.skip(l->o.skip_ctx, listcheck_shown(key), v);
    } else {
        struct s3c_error e = S3C_ERROR_INIT;
        listing_warn_skip(l->o.bucket, listcheck_shown(key), v, &e);
    }
    return false;
}

/*
 * A truncated versions page's last entry is the next page's marker
 * (key-marker, version-id-marker): it is handed out, to be deleted perhaps,
 * only once the next page is in. A store may read a marker that names a
 * version no longer there as past the whole key (s3emu does), and the key's
 * later versions would never be listed: `rm --all-versions` left them.
 */
static bool last_is_marker(const struct listing *l)
{
    return l->o.versions && l->more && l->i_prefix >= l->vers.n_prefixes && l->vers.n_versions &&
           l->i_entry == l->vers.n_versions - 1;
}

static int raw_next(struct listing *l, const struct listing_entry **out, struct s3c_error *e)
{
    if (l->held_out) {
        s3_list_versions_release(&l->held); /* its last entry, handed out, is done with */
        l->held_out = false;
    }
    for (;;) {
        const char **prefixes = l->o.versions ? l->vers.prefixes : l->objs.prefixes;
        size_t n_prefixes = l->o.versions ? l->vers.n_prefixes : l->objs.n_prefixes;
        size_t n = l->o.versions ? l->vers.n_versions : l->objs.n_objects;
        struct listing_entry *d = &l->cur;

        if (l->holding || last_is_marker(l)) {
            int rc;

            if (!l->holding) {
                l->held = l->vers;
                memset(&l->vers, 0, sizeof(l->vers));
                l->holding = true;
            }
            rc = fetch_versions(l, e);
            if (rc == LISTING_LATER)
                return LISTING_LATER;
            l->holding = false;
            l->held_out = true;
            l->i_prefix = l->i_entry = 0;
            if (rc) {
                l->more = false;
                return -1;
            }
            from_version(d, &l->held.versions[l->held.n_versions - 1]);
            if (!contained(l, d->key, false) || !selected(l, d->key))
                continue;
            *out = d;
            return 1;
        }
        if (!l->started || (l->i_prefix >= n_prefixes && l->i_entry >= n && l->more)) {
            int rc = l->o.versions ? fetch_versions(l, e) : fetch_objects(l, e);

            if (rc == LISTING_LATER)
                return LISTING_LATER; /* the page before stays as it was: nothing more to read on it */
            l->started = true;
            l->i_prefix = l->i_entry = 0;
            if (rc) {
                l->more = false;
                return -1;
            }
            continue;
        }
        if (l->i_prefix < n_prefixes) {
            if (!contained(l, prefixes[l->i_prefix], true)) {
                l->i_prefix++;
                continue;
            }
            memset(d, 0, sizeof(*d));
            d->kind = LISTING_PREFIX;
            d->key = prefixes[l->i_prefix++];
            d->version_id = d->last_modified = d->etag = d->storage_class = "";
            *out = d;
            return 1;
        }
        if (l->i_entry >= n)
            return 0;
        if (l->o.versions)
            from_version(d, &l->vers.versions[l->i_entry++]);
        else
            from_object(d, &l->objs.objects[l->i_entry++]);
        if (!contained(l, d->key, false) || !selected(l, d->key))
            continue;
        *out = d;
        return 1;
    }
}

/*
 * Sorted listings (directory buckets list in no order): every entry goes
 * through an external sort as a merge entry whose rel is a tag ('0' for a
 * common prefix, '1' for an object, so prefixes come first as on one page
 * of `aws s3 ls`) and the key, and whose etag carries the rest:
 * "ETAG\x1fCLASS\x1fLAST_MODIFIED".
 */
#define PACK_SEP '\x1f'

static enum s3c_err sort_all(struct listing *l, struct s3c_error *e)
{
    const struct listing_entry *en;
    struct buf rel = BUF_INIT(1 << 16), rest = BUF_INIT(1 << 16);
    enum s3c_err rc = S3C_OK;
    int r;

    l->sorted = xsort_new(0, NULL, e);
    if (!l->sorted)
        return e->code;
    while (!rc && (r = raw_next(l, &en, e)) > 0) {
        struct merge_entry m = { MERGE_FILE, SV_NULL, en->size, en->mtime_epoch, SV_NULL, 0, false, 0 };

        buf_reset(&rel);
        buf_reset(&rest);
        if (buf_addc(&rel, en->kind == LISTING_PREFIX ? '0' : '1') || buf_adds(&rel, en->key) ||
            buf_addf(&rest, "%s%c%s%c%s", en->etag, PACK_SEP, en->storage_class, PACK_SEP, en->last_modified)) {
            rc = s3c_fail(e, S3C_ENOMEM, "out of memory");
            break;
        }
        m.rel = buf_sv(&rel);
        buf_cstr(&rel);
        m.etag = buf_sv(&rest);
        rc = xsort_add(l->sorted, &m, e);
    }
    if (!rc && r < 0)
        rc = e->code ? e->code : S3C_EHTTP;
    buf_release(&rel);
    buf_release(&rest);
    return rc;
}

/* The next entry of the sorted listing, unpacked into l->cur (strings in l->unpacked). */
static int sorted_next(struct listing *l, const struct listing_entry **out, struct s3c_error *e)
{
    struct listing_entry *d = &l->cur;
    struct merge_entry m;
    char *p, *sep;
    int r;

    if (!l->sorted && sort_all(l, e))
        return -1;
    r = xsort_next(l->sorted, &m, e);
    if (r <= 0)
        return r;
    buf_reset(&l->unpacked);
    if (buf_add(&l->unpacked, m.rel.p + 1, m.rel.n - 1) || buf_addc(&l->unpacked, '\0') ||
        buf_add(&l->unpacked, m.etag.p, m.etag.n) || buf_addc(&l->unpacked, '\0')) {
        s3c_fail(e, S3C_ENOMEM, "out of memory");
        return -1;
    }
    memset(d, 0, sizeof(*d));
    d->kind = m.rel.p[0] == '0' ? LISTING_PREFIX : LISTING_OBJECT;
    d->key = l->unpacked.data;
    d->version_id = "";
    d->is_latest = true;
    d->size = m.size;
    d->mtime_epoch = m.mtime;
    p = l->unpacked.data + m.rel.n;
    d->etag = p;
    d->storage_class = d->last_modified = "";
    if ((sep = strchr(p, PACK_SEP))) {
        *sep = '\0';
        d->storage_class = sep + 1;
        if ((sep = strchr(sep + 1, PACK_SEP))) {
            *sep = '\0';
            d->last_modified = sep + 1;
        }
    }
    *out = d;
    return 1;
}

int listing_next(struct listing *l, const struct listing_entry **out, struct s3c_error *e)
{
    if (l->o.sorted && !l->o.versions)
        return sorted_next(l, out, e);
    return raw_next(l, out, e);
}

bool listing_page_done(struct listing *l)
{
    size_t n_prefixes = l->o.versions ? l->vers.n_prefixes : l->objs.n_prefixes;
    size_t n = l->o.versions ? l->vers.n_versions : l->objs.n_objects;

    size_t i;

    if (l->i_prefix < n_prefixes)
        return false;
    /* Whether listing_next would return one more entry of this page. (It still
     * sees the rest: a key kept from the caller is told when it is reached.) */
    for (i = l->i_entry; i < n; i++) {
        const char *key = l->o.versions ? l->vers.versions[i].key : l->objs.objects[i].key;
        if (listcheck_key(l->o.prefix, key, false) == LISTCHECK_OK && selected(l, key))
            return false;
    }
    return true;
}

void listing_close(struct listing *l)
{
    if (l->page_started)
        store_s3_async_release(l->s3, &l->page); /* a page out is cut off */
    http_xfer_release(&l->page_x);
    buf_release(&l->page_q);
    xsort_free(l->sorted);
    buf_release(&l->unpacked);
    s3_list_objects_release(&l->objs);
    s3_list_versions_release(&l->vers);
    s3_list_versions_release(&l->held);
    free(l->token);
    free(l->key_marker);
    free(l->version_marker);
    free(l->last);
    listcheck_tokens_release(&l->seen);
    memset(l, 0, sizeof(*l));
}
