/*
 * blob: object bytes, refcounted and shared by the store and responses in
 * flight (a GET keeps its bytes alive after an overwrite on another worker,
 * so the count is atomic). Where the bytes live depends on the size:
 *
 *   heap   under EMU_BLOB_MAP_MIN: malloc
 *   anon   EMU_BLOB_MAP_MIN and more: an anonymous mapping asking for
 *          transparent huge pages. Receiving 64 MB into fresh memory then
 *          takes 32 page faults instead of 16,384, which on a VM was a
 *          fifth of the emulator's CPU per uploaded byte.
 *   file   --dir, EMU_BLOB_DIR_MIN and more: a shared mapping of a file
 *          under the directory, unlinked at once (the page cache holds the
 *          bytes and nothing is left behind). A body whose size is known is
 *          received straight into it; others are written out once complete
 *          (emu_store_spill). Smaller blobs stay on the heap: every mapping
 *          counts against vm.max_map_count (65,530 by default), and a test
 *          with a million small objects must not run into it.
 */
#include "emu.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "store.h"

#define HUGE_BYTES ((uint64_t)2 << 20)

enum { KIND_HEAP = 0, KIND_FILE = 1, KIND_ANON = 2, KIND_STATIC = 3, KIND_GONE = 4, KIND_SLICE = 5 };

static uint64_t round_up(uint64_t n, uint64_t to)
{
    return (n + to - 1) / to * to;
}

/*
 * Recycled memory. On a VM, touching a page the guest never used (or gave
 * back) costs ten times more than the copy that fills it: 1.5 ns a byte
 * with huge pages, 11-15 ns with small ones, against 0.1 to write memory
 * already mapped. So the anonymous mappings of freed blobs are kept, up to
 * POOL_MAX_BYTES, and new large blobs are carved from them: an upload that
 * overwrites a key reuses the bytes of the version it replaces.
 */
#define POOL_MAX_BYTES ((uint64_t)4 << 30)
#define POOL_MAX_RANGES 128
#define CARVE_BYTES ((uint64_t)32 << 20)

struct range {
    char *p;
    uint64_t len;
};

static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static struct range pool[POOL_MAX_RANGES];   /* free, mapped, page multiples */
static int pool_n;
static uint64_t pool_bytes;

/*
 * 'len' bytes (a multiple of the page size) from the pool, starting on an
 * 'align' boundary (the page, or HUGE_BYTES), best fit; NULL if no range
 * holds them. What lies before the boundary stays in the pool, as a range
 * of its own while there is room for one.
 */
static char *pool_take(uint64_t len, uint64_t align)
{
    char *p = NULL, *drop = NULL;
    uint64_t drop_len = 0, head = 0;
    int i, best = -1;

    pthread_mutex_lock(&pool_lock);
    for (i = 0; i < pool_n; i++) {
        uint64_t skip = round_up((uintptr_t)pool[i].p, align) - (uintptr_t)pool[i].p;

        if (pool[i].len >= skip + len && (best < 0 || pool[i].len < pool[best].len)) {
            best = i;
            head = skip;
        }
    }
    if (best >= 0) {
        struct range r = pool[best];

        p = r.p + head;
        pool_bytes -= len;
        if (head && r.len > head + len && pool_n == POOL_MAX_RANGES) {
            /* No room to keep both sides: the head goes. */
            drop = r.p;
            drop_len = head;
            pool_bytes -= head;
            head = 0;
        }
        if (head) {
            pool[best].len = head;
            if (r.len > head + len)
                pool[pool_n++] = (struct range){ p + len, r.len - head - len };
        } else if (r.len > len + drop_len) {
            pool[best] = (struct range){ p + len, r.len - drop_len - len };
        } else {
            pool[best] = pool[--pool_n];
        }
    }
    pthread_mutex_unlock(&pool_lock);
    if (drop)
        munmap(drop, (size_t)drop_len);
    return p;
}

/* Keep [p, p+len) for reuse, merged with a neighbour when they touch; else unmap it. */
static void pool_give(char *p, uint64_t len)
{
    int i;

    pthread_mutex_lock(&pool_lock);
    if (pool_bytes + len <= POOL_MAX_BYTES) {
        for (i = 0; i < pool_n; i++) {
            if (pool[i].p + pool[i].len == p) {
                pool[i].len += len;
                break;
            }
            if (p + len == pool[i].p) {
                pool[i].p = p;
                pool[i].len += len;
                break;
            }
        }
        if (i == pool_n && pool_n == POOL_MAX_RANGES) {
            /* Full of ranges (the tails parts leave when Complete moves their pages):
             * the smallest makes room for a larger one. */
            int small = 0, k;

            for (k = 1; k < pool_n; k++)
                if (pool[k].len < pool[small].len)
                    small = k;
            if (pool[small].len < len) {
                munmap(pool[small].p, (size_t)pool[small].len);
                pool_bytes -= pool[small].len;
                pool[small] = pool[--pool_n];
                i = pool_n;
            }
        }
        if (i == pool_n && pool_n < POOL_MAX_RANGES)
            pool[pool_n++] = (struct range){ p, len };
        if (i < pool_n) {
            pool_bytes += len;
            p = NULL;
        }
    }
    pthread_mutex_unlock(&pool_lock);
    if (p)
        munmap(p, (size_t)len);
}

/*
 * A new anonymous mapping of 'len' bytes (a multiple of HUGE_BYTES) that
 * starts on a HUGE_BYTES boundary, so that all of it can be huge pages;
 * NULL on failure.
 */
static char *huge_map(uint64_t len)
{
    char *p = mmap(NULL, (size_t)(len + HUGE_BYTES), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    uint64_t head;

    if (p == MAP_FAILED)
        return NULL;
    /* Nothing is touched yet, so trimming the ends splits no huge page. */
    head = round_up((uintptr_t)p, HUGE_BYTES) - (uintptr_t)p;
    if (head)
        munmap(p, (size_t)head);
    if (HUGE_BYTES - head)
        munmap(p + head + len, (size_t)(HUGE_BYTES - head));
    p += head;
    madvise(p, (size_t)len, MADV_HUGEPAGE); /* a hint: without THP it still works */
    return p;
}

/*
 * An anonymous mapping of at least 'cap' bytes, from the pool when 'pooled'
 * (to the page: an upload part, 16 MiB and its framing, must not take 18 MiB
 * of what a 16 MiB part freed, or the pool runs dry an eighth of the way
 * short), else a new one rounded to huge pages; NULL on failure.
 *
 * A blob of HUGE_BYTES or more starts on a huge page's boundary, wherever
 * it comes from. Complete moves a part's pages into the object (mremap):
 * moved between boundaries, huge pages move whole; moved from anywhere
 * else, the kernel splits each into 512 small ones, for good, and the pool
 * hands them to the next uploads. Receiving into split pages cost this
 * emulator three times the CPU per byte (on a VM, a TLB miss walks two page
 * tables): 4 x 200 MiB up, 1.6 CPU-s in a fresh emulator, 4.5-5 from the
 * third run on. Its length then stays page-granular: the rest of its last
 * huge page is the pool's, for the next small blob.
 */
static char *anon_map(uint64_t *cap, bool pooled)
{
    uint64_t len = round_up(*cap, (uint64_t)sysconf(_SC_PAGESIZE));
    uint64_t align = len >= HUGE_BYTES ? HUGE_BYTES : (uint64_t)sysconf(_SC_PAGESIZE);
    char *p = pooled ? pool_take(len, align) : NULL;

    if (!p) {
        /* A small one is carved from a new CARVE_BYTES, the rest pooled: a 1 MiB body
         * then costs 1 MiB of huge pages to touch, not 2. */
        uint64_t map_len = round_up(*cap, HUGE_BYTES);

        if (pooled && map_len < CARVE_BYTES)
            map_len = CARVE_BYTES;
        else
            len = map_len;
        p = huge_map(map_len);
        if (!p)
            return NULL;
        if (map_len > len)
            pool_give(p + len, map_len - len);
    }
    *cap = len;
    return p;
}

static struct emu_blob *blob_new(uint64_t cap, bool pooled)
{
    struct emu_blob *b = calloc(1, sizeof(*b));

    if (!b)
        return NULL;
    atomic_init(&b->refs, 1);
    b->cap = cap ? cap : 1;
    if (b->cap >= EMU_BLOB_MAP_MIN) {
        b->data = anon_map(&b->cap, pooled);
        b->mapped = KIND_ANON;
    } else {
        b->data = malloc((size_t)b->cap);
    }
    if (!b->data) {
        free(b);
        return NULL;
    }
    return b;
}

struct emu_blob *emu_blob_new(uint64_t cap)
{
    return blob_new(cap, true);
}

/*
 * Fresh address space, not pooled memory: the pages moved in over it
 * (emu_blob_move_head) would throw the pool's away, and the next upload
 * would receive into memory never touched (on a VM, ten times a copy).
 */
struct emu_blob *emu_blob_new_target(uint64_t cap)
{
    return blob_new(cap, false);
}

struct emu_blob *emu_blob_empty(void)
{
    static struct emu_blob empty = { .refs = 1, .len = 0, .cap = 1, .data = "", .mapped = KIND_STATIC };

    return emu_blob_ref(&empty); /* the static reference is never dropped */
}

/* A file under s->dir, unlinked, sized and mapped writable; NULL (errno set) on failure. */
static char *file_map(struct emu_server *s, uint64_t len)
{
    static atomic_ullong seq;
    char path[1200];
    void *map;
    int fd;

    snprintf(path, sizeof(path), "%s/blob-%d-%llu", s->dir, (int)getpid(),
             (unsigned long long)atomic_fetch_add(&seq, 1) + 1);
    fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0)
        return NULL;
    /* Unlinked at once: the mapping keeps the bytes, and nothing is left behind. */
    unlink(path);
    /*
     * Blocks reserved now, not on first touch: writing through a mapping
     * into a hole the disk cannot fill is SIGBUS, while this fails politely.
     */
    if (fallocate(fd, 0, 0, (off_t)len) < 0) {
        close(fd);
        return NULL;
    }
    map = mmap(NULL, (size_t)len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    return map == MAP_FAILED ? NULL : map;
}

struct emu_blob *emu_blob_new_body(struct emu_server *s, uint64_t len)
{
    struct emu_blob *b;

    if (!s->dir[0] || len < EMU_BLOB_DIR_MIN)
        return emu_blob_new(len);
    b = calloc(1, sizeof(*b));
    if (!b)
        return NULL;
    b->data = file_map(s, len);
    if (!b->data) {
        free(b);
        return emu_blob_new(len); /* the disk said no: keep it in memory */
    }
    atomic_init(&b->refs, 1);
    b->cap = len;
    b->mapped = KIND_FILE;
    return b;
}

int emu_blob_reserve(struct emu_blob *b, uint64_t need, uint64_t max)
{
    uint64_t cap = b->cap;
    char *p;

    if (need <= b->cap)
        return 0;
    if (need > max || b->mapped == KIND_FILE || b->mapped == KIND_STATIC || b->mapped == KIND_SLICE)
        return -1;
    while (cap < need)
        cap = cap * 2 < max ? cap * 2 : max;
    if (cap >= EMU_BLOB_MAP_MIN) {
        /* Pooled ranges may span mappings, so no mremap: a new range and one copy. */
        p = anon_map(&cap, true);
        if (!p)
            return -1;
        memcpy(p, b->data, (size_t)b->len);
        if (b->mapped == KIND_ANON)
            pool_give(b->data, b->cap);
        else
            free(b->data);
        b->mapped = KIND_ANON;
    } else {
        p = realloc(b->data, (size_t)cap);
        if (!p)
            return -1;
    }
    b->data = p;
    b->cap = cap;
    return 0;
}

void emu_blob_trim(struct emu_blob *b)
{
    uint64_t slack = b->cap - b->len;

    if (slack <= 4096 || slack <= b->cap / 8)
        return;
    if (b->mapped == KIND_HEAP) {
        char *p = realloc(b->data, b->len ? (size_t)b->len : 1);

        if (p) {
            b->data = p;
            b->cap = b->len ? b->len : 1;
        }
    } else if (b->mapped == KIND_ANON) {
        uint64_t keep = round_up(b->len ? b->len : 1, HUGE_BYTES);

        if (keep < b->cap) {
            pool_give(b->data + keep, b->cap - keep);
            b->cap = keep;
        }
    }
}

/*
 * Appends grow a blob geometrically (twice what it needs), so a run of
 * them copies the object's bytes a constant number of times in all: 100
 * appends of 8 MiB to 1 GiB copy the 1 GiB once, not 100 times. They
 * write in place when the object's bytes end where the blob's do: whoever
 * else reads the blob (a GET in flight, a copy sharing it, populate's
 * objects) reads no further than its own length, so bytes after it reach
 * none of them. Only moving the bytes must wait for the last reader: a
 * blob shared and full, or one that cannot grow (a --dir file mapping, a
 * slice, the static empty one), is copied into a new one, in memory.
 */
struct emu_blob *emu_blob_append(struct emu_blob *b, uint64_t len, const void *p, uint64_t n)
{
    uint64_t need = len + n;
    struct emu_blob *nb;

    if (b->len == len && (b->mapped == KIND_HEAP || b->mapped == KIND_ANON) &&
        (need <= b->cap || (atomic_load(&b->refs) == 1 && !emu_blob_reserve(b, need, need * 2)))) {
        memcpy(b->data + len, p, (size_t)n);
        b->len = need;
        return b;
    }
    nb = emu_blob_new(need * 2);
    if (!nb)
        return NULL;
    memcpy(nb->data, b->data, (size_t)len);
    memcpy(nb->data + len, p, (size_t)n);
    nb->len = need;
    emu_blob_unref(b);
    return nb;
}

struct emu_blob *emu_blob_ref(struct emu_blob *b)
{
    if (b)
        atomic_fetch_add_explicit(&b->refs, 1, memory_order_relaxed);
    return b;
}

/*
 * Complete's parts without a copy: the whole pages of the first 'len' bytes
 * of 'from' (a part's own anonymous mapping, no one else holding it) become
 * the bytes at 'dst' (a page boundary, inside another anonymous blob) by
 * moving them (mremap), and 'from' keeps what is after them. On a VM,
 * copying 1 GiB of parts into fresh memory cost the emulator more than
 * receiving them. Returns the bytes moved (a multiple of the page size), 0
 * when nothing could move (a place not on a page boundary, or not as far
 * from a huge page's boundary as the part's bytes are, a range carved from
 * two pooled mappings): the caller copies what was not moved. A
 * Complete that fails after this (out of memory storing the object) leaves
 * its upload without the moved bytes.
 */
struct emu_blob *emu_blob_slice(struct emu_blob *parent, uint64_t off, uint64_t len)
{
    struct emu_blob *b = calloc(1, sizeof(*b));

    if (!b)
        return NULL;
    atomic_init(&b->refs, 1);
    b->data = parent->data + off;
    b->len = b->cap = len;
    b->mapped = KIND_SLICE;
    b->parent = emu_blob_ref(parent);
    return b;
}

struct emu_blob *emu_blob_parent(const struct emu_blob *b, uint64_t *off)
{
    if (b->mapped != KIND_SLICE)
        return NULL;
    *off = (uint64_t)(b->data - b->parent->data);
    return b->parent;
}

uint64_t emu_blob_move_head(struct emu_blob *from, char *dst, uint64_t len)
{
    uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);

    len = len / page * page;
    if (from->mapped != KIND_ANON || atomic_load(&from->refs) != 1 || !len || len > from->len ||
        (uintptr_t)dst % (uintptr_t)page)
        return 0;
    /* Huge pages that would land across a boundary would be split for good (see anon_map): copied instead. */
    if (len >= HUGE_BYTES && ((uintptr_t)from->data - (uintptr_t)dst) % HUGE_BYTES)
        return 0;
    if (mremap(from->data, (size_t)len, (size_t)len, MREMAP_MAYMOVE | MREMAP_FIXED, dst) == MAP_FAILED)
        return 0;
    from->data += len;
    from->cap -= len;
    from->len -= len;
    if (!from->cap)
        from->mapped = KIND_GONE;
    return len;
}

void emu_blob_unref(struct emu_blob *b)
{
    if (!b || atomic_fetch_sub_explicit(&b->refs, 1, memory_order_acq_rel) != 1)
        return;
    if (b->mapped == KIND_STATIC)
        return;
    if (b->mapped == KIND_GONE)
        ;
    else if (b->mapped == KIND_SLICE)
        emu_blob_unref(b->parent);
    else if (b->mapped == KIND_HEAP)
        free(b->data);
    else if (b->mapped == KIND_ANON)
        pool_give(b->data, b->cap);
    else
        munmap(b->data, (size_t)b->cap);
    free(b);
}

int emu_store_spill(struct emu_server *s, struct emu_blob *b)
{
    uint64_t off = 0;
    char *map;

    if (!s->dir[0] || b->mapped == KIND_FILE || b->mapped == KIND_STATIC || b->mapped == KIND_SLICE ||
        b->len < EMU_BLOB_DIR_MIN)
        return 0;
    map = file_map(s, b->len);
    if (!map)
        return -1;
    /* Through the mapping: the same one copy a write() would make, and no descriptor kept. */
    while (off < b->len) {
        uint64_t n = b->len - off < ((uint64_t)1 << 30) ? b->len - off : (uint64_t)1 << 30;

        memcpy(map + off, b->data + off, (size_t)n);
        off += n;
    }
    if (b->mapped == KIND_HEAP)
        free(b->data);
    else
        pool_give(b->data, b->cap);
    b->data = map;
    b->cap = b->len;
    b->mapped = KIND_FILE;
    return 0;
}
