#include "store.h"

#include <stdio.h>

#include <stdlib.h>
#include <string.h>

#include "base/crc.h"
#include "base/hash.h"

int64_t emu_wall_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void emu_store_lock(struct emu_server *s, bool write)
{
    if (write)
        pthread_rwlock_wrlock(&s->store_lock);
    else
        pthread_rwlock_rdlock(&s->store_lock);
}

void emu_store_unlock(struct emu_server *s)
{
    pthread_rwlock_unlock(&s->store_lock);
}

struct emu_bucket *emu_store_bucket(struct emu_server *s, const char *name)
{
    return emu_sl_get(&s->buckets, name, strlen(name));
}

struct emu_bucket *emu_store_bucket_create(struct emu_server *s, const char *name, const char *region)
{
    struct emu_bucket *b = calloc(1, sizeof(*b));

    if (!b)
        return NULL;
    str_copy(b->name, sizeof(b->name), name);
    str_copy(b->region, sizeof(b->region), region);
    str_copy(b->acl, sizeof(b->acl), "private");
    b->directory = emu_is_dir_bucket(name);
    if (b->directory) {     /* the zone from the name: ops_express.c has checked it */
        size_t n = strlen(name) - 6, z = n;

        while (z >= 2 && memcmp(name + z - 2, "--", 2) != 0)
            z--;
        snprintf(b->zone, sizeof(b->zone), "%.*s", (int)(n - z), name + z);
        str_copy(b->zone_type, sizeof(b->zone_type), "AvailabilityZone");
    }
    b->created_ms = emu_wall_ms();
    if (emu_sl_init(&b->keys) || emu_sl_init(&b->uploads) ||
        emu_sl_put(&s->buckets, name, strlen(name), b, NULL)) {
        emu_sl_release(&b->keys, NULL);
        emu_sl_release(&b->uploads, NULL);
        free(b);
        return NULL;
    }
    return b;
}

static void free_versions(void *p)
{
    struct emu_obj *o = p, *nx;

    for (; o; o = nx) {
        nx = o->older;
        emu_store_obj_free(o);
    }
}

static void free_upload(void *p)
{
    emu_store_upload_free(p);
}

void emu_store_bucket_delete(struct emu_server *s, struct emu_bucket *b)
{
    emu_sl_del(&s->buckets, b->name, strlen(b->name));
    emu_sl_release(&b->keys, free_versions);
    emu_sl_release(&b->uploads, free_upload);
    free(b);
}

bool emu_store_bucket_empty(const struct emu_bucket *b)
{
    return b->keys.count == 0;
}

void emu_tags_release(struct emu_tags *t)
{
    free(t->data);
    memset(t, 0, sizeof(*t));
}

int emu_tags_copy(struct emu_tags *dst, const struct emu_tags *src)
{
    memset(dst, 0, sizeof(*dst));
    if (!src->n)
        return 0;
    dst->data = malloc(src->len);
    if (!dst->data)
        return -1;
    memcpy(dst->data, src->data, src->len);
    dst->len = src->len;
    dst->n = src->n;
    return 0;
}

struct emu_obj *emu_store_obj_new(void)
{
    struct emu_obj *o = calloc(1, sizeof(*o));

    if (!o)
        return NULL;
    o->hdrs = strdup("");
    if (!o->hdrs) {
        free(o);
        return NULL;
    }
    str_copy(o->storage_class, sizeof(o->storage_class), "STANDARD");
    str_copy(o->acl, sizeof(o->acl), "private");
    o->mtime_ms = emu_wall_ms();
    return o;
}

/* The headers of an object PUT without any: shared by populated objects, never freed. */
static char default_hdrs[] = "Content-Type: binary/octet-stream\r\n";

void emu_store_obj_free(struct emu_obj *o)
{
    if (!o)
        return;
    emu_blob_unref(o->blob);
    if (o->hdrs != default_hdrs)
        free(o->hdrs);
    emu_tags_release(&o->tags);
    free(o->part_ends);
    free(o);
}

struct emu_obj *emu_store_get(struct emu_bucket *b, const char *key, size_t klen, const char *vid)
{
    struct emu_obj *o = emu_sl_get(&b->keys, key, klen);

    if (!vid)
        return o;
    for (; o; o = o->older)
        if (strcmp(o->vid, vid) == 0)
            return o;
    return NULL;
}

int emu_store_put(struct emu_server *s, struct emu_bucket *b, const char *key, size_t klen,
                  struct emu_obj *o)
{
    struct emu_obj *head = emu_sl_get(&b->keys, key, klen), **pp;

    if (b->versioning == VER_ENABLED) {
        /* Ids sort newest first, as S3's do, though only their order matters here. */
        emu_random_hex(s, o->vid, 32);
    } else {
        str_copy(o->vid, sizeof(o->vid), "null");
        /* Replace the null version wherever it sits. */
        for (pp = &head; *pp; pp = &(*pp)->older) {
            if (strcmp((*pp)->vid, "null") == 0) {
                struct emu_obj *dead = *pp;
                *pp = dead->older;
                emu_store_obj_free(dead);
                break;
            }
        }
    }
    o->older = head;
    return emu_sl_put(&b->keys, key, klen, o, NULL);
}

int emu_store_del_version(struct emu_bucket *b, const char *key, size_t klen, const char *vid,
                          bool *was_marker)
{
    struct emu_obj *head = emu_sl_get(&b->keys, key, klen), **pp;

    for (pp = &head; *pp; pp = &(*pp)->older) {
        if (strcmp((*pp)->vid, vid) == 0) {
            struct emu_obj *dead = *pp;

            *pp = dead->older;
            if (was_marker)
                *was_marker = dead->delete_marker;
            emu_store_obj_free(dead);
            if (head)
                emu_sl_put(&b->keys, key, klen, head, NULL);
            else
                emu_sl_del(&b->keys, key, klen);
            return 1;
        }
    }
    return 0;
}

static int upload_key(struct buf *k, const char *key, size_t klen, const char *id)
{
    return buf_add(k, key, klen) || buf_addc(k, 0) || buf_adds(k, id) ? -1 : 0;
}

struct emu_upload *emu_store_upload(struct emu_bucket *b, const char *key, size_t klen,
                                    const char *id)
{
    struct buf k = BUF_INIT(4096);
    struct emu_upload *u = NULL;

    if (!upload_key(&k, key, klen, id))
        u = emu_sl_get(&b->uploads, k.data, k.len);
    buf_release(&k);
    return u;
}

void emu_store_upload_free(struct emu_upload *u)
{
    int i;

    if (!u)
        return;
    for (i = 0; i < u->n_parts; i++)
        emu_blob_unref(u->parts[i].blob);
    free(u->parts);
    free(u->key);
    free(u->hdrs);
    emu_tags_release(&u->tags);
    free(u);
}

int emu_store_upload_part(struct emu_upload *u, struct emu_part *p)
{
    int lo = 0, hi = u->n_parts;

    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (u->parts[mid].num < p->num)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < u->n_parts && u->parts[lo].num == p->num) {
        emu_blob_unref(u->parts[lo].blob);
        u->parts[lo] = *p;
        return 1;
    }
    if (u->n_parts == u->cap_parts) {
        int cap = u->cap_parts ? u->cap_parts * 2 : 16;
        struct emu_part *np = realloc(u->parts, (size_t)cap * sizeof(*np));

        if (!np)
            return -1;
        u->parts = np;
        u->cap_parts = cap;
    }
    memmove(&u->parts[lo + 1], &u->parts[lo], (size_t)(u->n_parts - lo) * sizeof(*p));
    u->parts[lo] = *p;
    u->n_parts++;
    return 0;
}

#define POPULATE_BATCH 10000

int emu_store_populate(struct emu_server *s, const char *bucket, const char *prefix, uint64_t start,
                       uint64_t count, uint64_t size, char *err, size_t errn)
{
    struct emu_blob *blob = NULL;
    struct emu_bucket *b;
    char etag[48], hex[2 * MD5_LEN + 1], key[1100];
    unsigned char d[MD5_LEN];
    struct emu_cksum dir_ck;
    size_t plen = strlen(prefix);
    uint64_t i = 0;
    int rc = -1;

    if (plen + 10 > 1024) { /* S3's key limit */
        snprintf(err, errn, "prefix too long");
        return -1;
    }
    if (count > EMU_POPULATE_MAX || start + count > 1000000000ull) {
        snprintf(err, errn, "count at most %llu, and start + count at most 10^9", EMU_POPULATE_MAX);
        return -1;
    }
    if (size > EMU_OBJECT_MAX) {
        snprintf(err, errn, "size over 5 GiB");
        return -1;
    }
    blob = size ? emu_blob_new(size) : emu_blob_empty();
    if (!blob)
        goto oom;
    memset(blob->data, 0, (size_t)size);
    blob->len = size;
    hash_md5(blob->data, (size_t)size, d);
    str_hex(d, MD5_LEN, hex);
    snprintf(etag, sizeof(etag), "\"%s\"", hex);
    {   /* a directory bucket's objects carry a CRC32 (README, "S3 Express One Zone") */
        struct buf b64 = BUF_INIT(16);

        memset(&dir_ck, 0, sizeof(dir_ck));
        crc_b64_32(crc_crc32_update(0, blob->data, (size_t)size), &b64);
        str_copy(dir_ck.algo, sizeof(dir_ck.algo), "CRC32");
        str_copy(dir_ck.type, sizeof(dir_ck.type), "FULL_OBJECT");
        str_copy(dir_ck.value, sizeof(dir_ck.value), buf_cstr(&b64));
        buf_release(&b64);
    }
    memcpy(key, prefix, plen);
    while (i < count) {
        uint64_t end = i + POPULATE_BATCH < count ? i + POPULATE_BATCH : count;

        emu_store_lock(s, true);
        b = emu_store_bucket(s, bucket);
        if (!b && !(b = emu_store_bucket_create(s, bucket, s->region))) {
            emu_store_unlock(s);
            goto oom;
        }
        for (; i < end; i++) {
            struct emu_obj *o = calloc(1, sizeof(*o));
            int kl = snprintf(key + plen, sizeof(key) - plen, "%09llu", (unsigned long long)(start + i));

            if (!o) {
                emu_store_unlock(s);
                goto oom;
            }
            o->hdrs = default_hdrs;
            str_copy(o->storage_class, sizeof(o->storage_class), "STANDARD");
            str_copy(o->acl, sizeof(o->acl), "private");
            o->mtime_ms = emu_wall_ms();
            o->blob = emu_blob_ref(blob);
            o->size = size;
            memcpy(o->etag, etag, sizeof(etag));
            if (b->directory) {     /* not MD5s: random, as ops_express.c makes them */
                str_copy(o->storage_class, sizeof(o->storage_class), "EXPRESS_ONEZONE");
                o->etag[0] = '"';
                emu_random_hex(s, o->etag + 1, 32);
                o->etag[33] = '"';
                o->etag[34] = 0;
                o->ck = dir_ck;
            }
            if (emu_store_put(s, b, key, plen + (size_t)kl, o)) {
                emu_store_obj_free(o);
                emu_store_unlock(s);
                goto oom;
            }
        }
        emu_store_unlock(s);
    }
    rc = 0;
    goto out;
oom:
    snprintf(err, errn, "out of memory after %llu objects", (unsigned long long)i);
out:
    emu_blob_unref(blob);
    return rc;
}
