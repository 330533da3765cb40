#include "store.h"

#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

int64_t emu_wall_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void emu_store_blob_free(struct emu_blob *b)
{
    if (b->mapped)
        munmap(b->data, b->cap ? b->cap : 1);
    else
        free(b->data);
    free(b);
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

void emu_store_obj_free(struct emu_obj *o)
{
    if (!o)
        return;
    emu_blob_unref(o->blob);
    free(o->hdrs);
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
        return 0;
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

int emu_store_spill(struct emu_server *s, struct emu_blob *b)
{
    static unsigned long long seq;
    char path[1200];
    uint64_t off = 0;
    void *map;
    int fd;

    if (!s->dir[0] || b->mapped || b->len == 0)
        return 0;
    snprintf(path, sizeof(path), "%s/blob-%d-%llu", s->dir, (int)getpid(), ++seq);
    fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0)
        return -1;
    /* Unlinked at once: the mapping keeps the bytes, and nothing is left behind. */
    unlink(path);
    while (off < b->len) {
        ssize_t n = write(fd, b->data + off, (size_t)(b->len - off));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            close(fd);
            return -1;
        }
        off += (uint64_t)n;
    }
    map = mmap(NULL, (size_t)b->len, PROT_READ, MAP_SHARED, fd, 0);
    close(fd);
    if (map == MAP_FAILED)
        return -1;
    free(b->data);
    b->data = map;
    b->cap = b->len;
    b->mapped = 1;
    return 0;
}
