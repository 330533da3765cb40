/*
 * Records, in memory and in run files alike:
 *   u32 rel_len, u32 etag_len, u8 kind (0x80: archived), u64 size, i64 mtime, i32 mtime_nsec, i64 ctime (native order;
 *   the files never outlive the process), then rel, NUL, etag, NUL.
 * In memory the records sit back to back in one arena, and an index of
 * their offsets is what gets sorted.
 */
#include "plan/xsort.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define HDR_BYTES (4 + 4 + 1 + 8 + 8 + 4 + 8)
#define XSORT_NAME_MAX ((size_t)1 << 20)   /* longest rel or etag accepted */

struct run {
    FILE *f;
};

/* A run being read: its current record. */
struct reader {
    FILE *f;
    struct merge_entry en;
    char *data;             /* rel NUL etag NUL */
    size_t cap;
};

/*
 * A full batch sorted (and written as a run, or kept: the last one when
 * nothing went to disk) on a thread of its own (xsort_background): the
 * sorter's owner polls 'done' and joins. The batch is the job's meanwhile;
 * tmp_dir is only read.
 */
struct bg_job {
    pthread_t th;
    atomic_bool done;
    const char *tmp_dir;
    char *arena;
    size_t *idx;
    size_t n;
    bool write;                 /* write it as a run (else: sorted in place, kept) */
    bool inline_run;            /* no thread could be had: run by the owner, nothing to join */
    FILE *f;                    /* the run written */
    enum s3c_err rc;
    struct s3c_error err;
};

struct xsort {
    size_t budget;
    char *tmp_dir;
    /* Background (xsort_background): sorting and writing are the thread's. */
    bool bg;
    bool busy;                  /* 'job' is out */
    bool side_done;             /* xsort_fill: the side has ended; adding ends when the job is in */
    bool last_out;              /* the last batch went to the thread */
    struct bg_job job;
    /* Adding: the in-memory batch. */
    char *arena;
    size_t arena_len, arena_cap;
    size_t *idx;
    size_t n, idx_cap;
    /* Runs on disk, in the order written. */
    struct run *runs;
    size_t n_runs, runs_cap;
    uint64_t runs_written;
    /* Reading. */
    bool reading;
    size_t mem_i;               /* in-memory mode: next index */
    struct reader **heap;       /* disk mode: min-heap of readers with a record */
    size_t heap_n;
    struct reader *readers;
    size_t n_readers;
    struct reader *advance;     /* returned last: read its next record first */
};

struct xsort *xsort_new(size_t budget_bytes, const char *tmp_dir, struct s3c_error *e)
{
    struct xsort *s = calloc(1, sizeof(*s));
    const char *t = tmp_dir ? tmp_dir : getenv("TMPDIR");

    if (!s) {
        s3c_fail(e, S3C_ENOMEM, "out of memory");
        return NULL;
    }
    s->budget = budget_bytes ? budget_bytes : XSORT_BUDGET_DEFAULT;
    s->tmp_dir = strdup(t && *t ? t : "/tmp");
    if (!s->tmp_dir) {
        free(s);
        s3c_fail(e, S3C_ENOMEM, "out of memory");
        return NULL;
    }
    return s;
}

uint64_t xsort_runs(const struct xsort *s)
{
    return s->runs_written;
}

/* ---- records ----------------------------------------------------------------------- */

static size_t rec_bytes(const struct merge_entry *en)
{
    return HDR_BYTES + en->rel.n + 1 + en->etag.n + 1;
}

static void hdr_put(char *p, const struct merge_entry *en)
{
    uint32_t rl = (uint32_t)en->rel.n, el = (uint32_t)en->etag.n;
    uint8_t k = (uint8_t)((uint8_t)en->kind | (en->archived ? 0x80 : 0));

    memcpy(p, &rl, 4);
    memcpy(p + 4, &el, 4);
    memcpy(p + 8, &k, 1);
    memcpy(p + 9, &en->size, 8);
    memcpy(p + 17, &en->mtime, 8);
    memcpy(p + 25, &en->mtime_nsec, 4);
    memcpy(p + 29, &en->ctime, 8);
}

static void rec_put(char *p, const struct merge_entry *en)
{
    uint32_t rl = (uint32_t)en->rel.n, el = (uint32_t)en->etag.n;

    hdr_put(p, en);
    p += HDR_BYTES;
    if (rl)
        memcpy(p, en->rel.p, rl);
    p[rl] = '\0';
    if (el)
        memcpy(p + rl + 1, en->etag.p, el);
    p[rl + 1 + el] = '\0';
}

/* Decode a header; 'body' (rel NUL etag NUL) is where the views will point. */
static void rec_hdr(const char *p, struct merge_entry *en, uint32_t *rl, uint32_t *el)
{
    uint8_t k;

    memcpy(rl, p, 4);
    memcpy(el, p + 4, 4);
    memcpy(&k, p + 8, 1);
    memcpy(&en->size, p + 9, 8);
    memcpy(&en->mtime, p + 17, 8);
    memcpy(&en->mtime_nsec, p + 25, 4);
    memcpy(&en->ctime, p + 29, 8);
    en->kind = (enum merge_kind)(k & 0x7f);
    en->archived = (k & 0x80) != 0;
}

static void rec_views(struct merge_entry *en, const char *body, uint32_t rl, uint32_t el)
{
    en->rel = (struct sv){ body, rl };
    en->etag = (struct sv){ body + rl + 1, el };
}

static void rec_get(const char *p, struct merge_entry *en)
{
    uint32_t rl, el;

    rec_hdr(p, en, &rl, &el);
    rec_views(en, p + HDR_BYTES, rl, el);
}

static struct sv rec_rel(const char *p)
{
    uint32_t rl;

    memcpy(&rl, p, 4);
    return (struct sv){ p + HDR_BYTES, rl };
}

/* ---- runs ---------------------------------------------------------------------------- */

/* A new temp file, unlinked at once: it lives as long as its FILE. */
static FILE *tmp_open(const char *tmp_dir, struct s3c_error *e)
{
    char path[4096];
    FILE *f;
    int fd;

    if ((size_t)snprintf(path, sizeof(path), "%s/s3c-sort-XXXXXX", tmp_dir) >= sizeof(path)) {
        s3c_fail(e, S3C_EIO, "temp directory name too long: %.200s", tmp_dir);
        return NULL;
    }
    fd = mkstemp(path);
    if (fd < 0) {
        s3c_fail_errno(e, errno, "cannot create a sort file in %.200s", tmp_dir);
        return NULL;
    }
    unlink(path);
    f = fdopen(fd, "w+");
    if (!f) {
        s3c_fail_errno(e, errno, "cannot open a sort file");
        close(fd);
    }
    return f;
}

static enum s3c_err run_push(struct xsort *s, FILE *f, struct s3c_error *e)
{
    if (s->n_runs == s->runs_cap) {
        size_t cap = s->runs_cap ? s->runs_cap * 2 : 16;
        struct run *r = realloc(s->runs, cap * sizeof(*r));
        if (!r) {
            fclose(f);
            return s3c_fail(e, S3C_ENOMEM, "out of memory");
        }
        s->runs = r;
        s->runs_cap = cap;
    }
    s->runs[s->n_runs++].f = f;
    s->runs_written++;
    return S3C_OK;
}

static int idx_cmp(const void *a, const void *b, void *arena)
{
    const char *base = arena;
    return merge_cmp(rec_rel(base + *(const size_t *)a), rec_rel(base + *(const size_t *)b));
}

static void batch_sort(char *arena, size_t *idx, size_t n)
{
    if (n > 1)
        qsort_r(idx, n, sizeof(*idx), idx_cmp, arena);
}

/* Sort a batch and write it to a new run file (*out). Any thread: touches only what it is given. */
static enum s3c_err batch_write(const char *tmp_dir, char *arena, size_t *idx, size_t n, FILE **out,
                                struct s3c_error *e)
{
    FILE *f;
    size_t i;

    *out = NULL;
    batch_sort(arena, idx, n);
    f = tmp_open(tmp_dir, e);
    if (!f)
        return e->code;
    for (i = 0; i < n; i++) {
        const char *p = arena + idx[i];
        struct merge_entry en;
        rec_get(p, &en);
        if (fwrite(p, 1, rec_bytes(&en), f) != rec_bytes(&en))
            break;
    }
    if (i < n || fflush(f) != 0) {
        s3c_fail_errno(e, errno ? errno : EIO, "cannot write a sort file in %.200s", tmp_dir);
        fclose(f);
        return e->code;
    }
    *out = f;
    return S3C_OK;
}

/* Sort the in-memory batch and write it out as one run; the batch is then empty. */
static enum s3c_err spill(struct xsort *s, struct s3c_error *e)
{
    FILE *f;
    enum s3c_err rc;

    if (!s->n)
        return S3C_OK;
    if ((rc = batch_write(s->tmp_dir, s->arena, s->idx, s->n, &f, e)))
        return rc;
    s->n = 0;
    s->arena_len = 0;
    return run_push(s, f, e);
}

/* ---- in the background ------------------------------------------------------------- */

static void *bg_main(void *arg)
{
    struct bg_job *j = arg;

    if (j->write)
        j->rc = batch_write(j->tmp_dir, j->arena, j->idx, j->n, &j->f, &j->err);
    else
        batch_sort(j->arena, j->idx, j->n);
    atomic_store(&j->done, true);
    return NULL;
}

/*
 * Hand the batch to the background thread (s->busy then, until bg_take), to
 * be written as a run ('write': the sorter starts a new, empty batch) or
 * sorted in place (the last one, when nothing went to disk).
 */
static void bg_start(struct xsort *s, bool write)
{
    struct bg_job *j = &s->job;

    memset(j, 0, sizeof(*j));
    j->tmp_dir = s->tmp_dir;
    j->arena = s->arena;
    j->idx = s->idx;
    j->n = s->n;
    j->write = write;
    j->err = (struct s3c_error)S3C_ERROR_INIT;
    atomic_init(&j->done, false);
    if (write) {
        s->arena = NULL;
        s->idx = NULL;
        s->arena_cap = s->idx_cap = s->arena_len = s->n = 0;
    }
    s->busy = true;
    if (pthread_create(&j->th, NULL, bg_main, j) != 0) {
        j->inline_run = true; /* no thread to be had: the owner's, as without the background */
        bg_main(j);
    }
}

/*
 * The job's result, once it is done ('wait': join it however long it takes;
 * else S3C_OK with s->busy still set while it runs): its run pushed, its
 * batch freed; or the write's failure.
 */
static enum s3c_err bg_take(struct xsort *s, bool wait, struct s3c_error *e)
{
    struct bg_job *j = &s->job;

    if (!s->busy)
        return S3C_OK;
    if (!wait && !atomic_load(&j->done))
        return S3C_OK;
    if (!j->inline_run)
        pthread_join(j->th, NULL);
    s->busy = false;
    if (!j->write)
        return S3C_OK; /* the batch sorted in place: still the sorter's */
    free(j->arena);
    free(j->idx);
    j->arena = NULL;
    j->idx = NULL;
    if (j->rc) {
        *e = j->err;
        return j->rc;
    }
    return run_push(s, j->f, e);
}

enum s3c_err xsort_add(struct xsort *s, const struct merge_entry *en, struct s3c_error *e)
{
    size_t need = rec_bytes(en);
    enum s3c_err rc;

    if (s->reading)
        return s3c_fail(e, S3C_EINTERNAL, "xsort_add after reading began");
    if (en->rel.n > XSORT_NAME_MAX || en->etag.n > XSORT_NAME_MAX)
        return s3c_fail(e, S3C_ENOMEM, "a name longer than %zu bytes", XSORT_NAME_MAX);
    /* Over budget with this one: write out what is held first (in the background: unless the
     * batch before is still being written; then this one goes over, and xsort_fill stops). */
    if (s->n && s->arena_len + need + (s->n + 1) * sizeof(size_t) > s->budget && !s->busy) {
        if (!s->bg && (rc = spill(s, e)))
            return rc;
        if (s->bg)
            bg_start(s, true);
    }
    if (s->arena_len + need > s->arena_cap) {
        size_t cap = s->arena_cap ? s->arena_cap : 4096;
        char *a;
        while (cap < s->arena_len + need)
            cap *= 2;
        if (cap > s->budget && s->arena_len + need <= s->budget)
            cap = s->budget;
        a = realloc(s->arena, cap);
        if (!a)
            return s3c_fail(e, S3C_ENOMEM, "out of memory");
        s->arena = a;
        s->arena_cap = cap;
    }
    if (s->n == s->idx_cap) {
        size_t cap = s->idx_cap ? s->idx_cap * 2 : 256;
        size_t *x = realloc(s->idx, cap * sizeof(*x));
        if (!x)
            return s3c_fail(e, S3C_ENOMEM, "out of memory");
        s->idx = x;
        s->idx_cap = cap;
    }
    rec_put(s->arena + s->arena_len, en);
    s->idx[s->n++] = s->arena_len;
    s->arena_len += need;
    return S3C_OK;
}

static enum s3c_err start_reading(struct xsort *s, struct s3c_error *e);

void xsort_background(struct xsort *s)
{
    s->bg = true;
}

/* The batch has reached the budget: in the background, no more is taken until the one before is out. */
static bool batch_full(const struct xsort *s)
{
    return s->arena_len + s->n * sizeof(size_t) >= s->budget;
}

int xsort_fill(struct xsort *s, merge_next_fn next, void *ctx, struct s3c_error *e)
{
    for (;;) {
        struct merge_entry en;
        int r;

        if (bg_take(s, false, e))
            return -1;
        if (s->busy && (s->side_done || batch_full(s)))
            return MERGE_NEXT_LATER; /* a batch is being written or sorted: poll again */
        if (s->side_done) {
            /* In the background the last batch goes there too: written as a run when runs
             * went to disk already, else sorted in place. */
            if (s->bg && s->n && !s->last_out) {
                s->last_out = true;
                bg_start(s, s->n_runs > 0);
                continue;
            }
            break;
        }
        memset(&en, 0, sizeof(en));
        r = next(ctx, &en, e);
        if (r < 0) {
            if (!e->code)
                s3c_fail(e, S3C_EINTERNAL, "a listing failed");
            return -1;
        }
        if (r == MERGE_NEXT_LATER)
            return MERGE_NEXT_LATER;
        if (r == 0)
            s->side_done = true;
        else if (xsort_add(s, &en, e))
            return -1;
    }
    if (s->bg && !s->n_runs) {
        s->reading = true; /* sorted in place by the thread: read from memory */
        return 0;
    }
    /* Adding is over: spill and free the batch now, so the memory is free for the next side. */
    return start_reading(s, e) ? -1 : 0;
}

enum s3c_err xsort_add_all(struct xsort *s, merge_next_fn next, void *ctx, struct s3c_error *e)
{
    int r = xsort_fill(s, next, ctx, e);

    if (r == MERGE_NEXT_LATER)
        return s3c_fail(e, S3C_EINTERNAL, "xsort_add_all: a side that answers later");
    return r < 0 ? e->code : S3C_OK;
}

/* ---- reading runs back ------------------------------------------------------------- */

/* The reader's next record: 1, 0 at the end of its run, -1 with 'e' set. */
static int reader_read(struct reader *r, struct s3c_error *e)
{
    char hdr[HDR_BYTES];
    uint32_t rl, el;
    size_t body;

    if (fread(hdr, 1, HDR_BYTES, r->f) != HDR_BYTES) {
        if (ferror(r->f)) {
            s3c_fail_errno(e, errno ? errno : EIO, "cannot read a sort file");
            return -1;
        }
        return 0;
    }
    rec_hdr(hdr, &r->en, &rl, &el);
    body = (size_t)rl + 1 + el + 1;
    if (rl > XSORT_NAME_MAX || el > XSORT_NAME_MAX) {
        s3c_fail(e, S3C_EINTERNAL, "a sort file is damaged");
        return -1;
    }
    if (body > r->cap) {
        size_t cap = r->cap ? r->cap : 256;
        char *d;
        while (cap < body)
            cap *= 2;
        d = realloc(r->data, cap);
        if (!d) {
            s3c_fail(e, S3C_ENOMEM, "out of memory");
            return -1;
        }
        r->data = d;
        r->cap = cap;
    }
    if (fread(r->data, 1, body, r->f) != body) {
        s3c_fail(e, S3C_EIO, "a sort file is short");
        return -1;
    }
    rec_views(&r->en, r->data, rl, el);
    return 1;
}

static bool heap_less(struct reader *a, struct reader *b)
{
    return merge_cmp(a->en.rel, b->en.rel) < 0;
}

static void heap_down(struct reader **h, size_t n, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        struct reader *t;
        if (l < n && heap_less(h[l], h[m]))
            m = l;
        if (r < n && heap_less(h[r], h[m]))
            m = r;
        if (m == i)
            return;
        t = h[i];
        h[i] = h[m];
        h[m] = t;
        i = m;
    }
}

static void heap_build(struct reader **h, size_t n)
{
    size_t i;

    for (i = n / 2; i-- > 0;)
        heap_down(h, n, i);
}

/*
 * Open readers on runs [first, first + n) (rewound) and fill a heap with
 * those that hold a record. The caller owns readers[] and heap[].
 */
static enum s3c_err readers_open(struct xsort *s, size_t first, size_t n, struct reader *rd,
                                 struct reader **heap, size_t *heap_n, struct s3c_error *e)
{
    size_t i;

    *heap_n = 0;
    for (i = 0; i < n; i++) {
        int r;
        rd[i].f = s->runs[first + i].f;
        s->runs[first + i].f = NULL;
        if (fseek(rd[i].f, 0, SEEK_SET) != 0)
            return s3c_fail_errno(e, errno, "cannot rewind a sort file");
        r = reader_read(&rd[i], e);
        if (r < 0)
            return e->code;
        if (r > 0)
            heap[(*heap_n)++] = &rd[i];
    }
    heap_build(heap, *heap_n);
    return S3C_OK;
}

static void readers_close(struct reader *rd, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++) {
        if (rd[i].f)
            fclose(rd[i].f);
        free(rd[i].data);
        rd[i].f = NULL;
        rd[i].data = NULL;
        rd[i].cap = 0;
    }
}

/* Take the heap's smallest record out and refill from its reader; -1 on a read failure. */
static int heap_pop_advance(struct reader **heap, size_t *n, struct s3c_error *e)
{
    int r = reader_read(heap[0], e);

    if (r < 0)
        return -1;
    if (r == 0)
        heap[0] = heap[--*n];
    heap_down(heap, *n, 0);
    return 0;
}

/* Merge the first XSORT_FANIN runs into one new run at the end of the list. */
static enum s3c_err merge_pass(struct xsort *s, struct s3c_error *e)
{
    struct reader rd[XSORT_FANIN];
    struct reader *heap[XSORT_FANIN];
    size_t heap_n = 0, n = XSORT_FANIN;
    enum s3c_err rc;
    FILE *out = NULL;

    memset(rd, 0, sizeof(rd));
    rc = readers_open(s, 0, n, rd, heap, &heap_n, e);
    if (rc)
        goto out;
    memmove(s->runs, s->runs + n, (s->n_runs - n) * sizeof(*s->runs));
    s->n_runs -= n;
    out = tmp_open(s->tmp_dir, e);
    if (!out) {
        rc = e->code;
        goto out;
    }
    while (heap_n) {
        const struct merge_entry *en = &heap[0]->en;
        size_t body = en->rel.n + 1 + en->etag.n + 1;
        char hdr[HDR_BYTES];

        hdr_put(hdr, en);
        if (fwrite(hdr, 1, HDR_BYTES, out) != HDR_BYTES || fwrite(heap[0]->data, 1, body, out) != body) {
            rc = s3c_fail_errno(e, errno ? errno : EIO, "cannot write a sort file in %.200s", s->tmp_dir);
            goto out;
        }
        if (heap_pop_advance(heap, &heap_n, e) < 0) {
            rc = e->code;
            goto out;
        }
    }
    if (fflush(out) != 0) {
        rc = s3c_fail_errno(e, errno ? errno : EIO, "cannot write a sort file in %.200s", s->tmp_dir);
        goto out;
    }
    rc = run_push(s, out, e);
    s->runs_written--;      /* a merged run is not a new batch */
    out = NULL;
out:
    if (out)
        fclose(out);
    readers_close(rd, n);
    return rc;
}

/* Adding is over: either sort the batch in place, or spill it and set up the final merge. */
static enum s3c_err start_reading(struct xsort *s, struct s3c_error *e)
{
    enum s3c_err rc;

    s->reading = true;
    if (!s->n_runs) {
        batch_sort(s->arena, s->idx, s->n);
        return S3C_OK;
    }
    if ((rc = spill(s, e)))
        return rc;
    free(s->arena);
    free(s->idx);
    s->arena = NULL;
    s->idx = NULL;
    s->arena_cap = s->idx_cap = 0;
    while (s->n_runs > XSORT_FANIN)
        if ((rc = merge_pass(s, e)))
            return rc;
    s->readers = calloc(s->n_runs, sizeof(*s->readers));
    s->heap = calloc(s->n_runs, sizeof(*s->heap));
    if (!s->readers || !s->heap)
        return s3c_fail(e, S3C_ENOMEM, "out of memory");
    s->n_readers = s->n_runs;
    rc = readers_open(s, 0, s->n_runs, s->readers, s->heap, &s->heap_n, e);
    s->n_runs = 0;
    return rc;
}

int xsort_next(void *ctx, struct merge_entry *out, struct s3c_error *e)
{
    struct xsort *s = ctx;

    if (!s->reading && start_reading(s, e))
        return -1;
    if (!s->readers) {
        if (s->mem_i >= s->n)
            return 0;
        rec_get(s->arena + s->idx[s->mem_i++], out);
        return 1;
    }
    if (s->advance) {
        s->advance = NULL;
        if (heap_pop_advance(s->heap, &s->heap_n, e) < 0)
            return -1;
    }
    if (!s->heap_n)
        return 0;
    *out = s->heap[0]->en;
    s->advance = s->heap[0];
    return 1;
}

void xsort_free(struct xsort *s)
{
    struct s3c_error e = S3C_ERROR_INIT;
    size_t i;

    if (!s)
        return;
    bg_take(s, true, &e); /* a batch being written: its thread ends first (a local write) */
    for (i = 0; i < s->n_runs; i++)
        if (s->runs[i].f)
            fclose(s->runs[i].f);
    if (s->readers)
        readers_close(s->readers, s->n_readers);
    free(s->readers);
    free(s->heap);
    free(s->runs);
    free(s->arena);
    free(s->idx);
    free(s->tmp_dir);
    free(s);
}
