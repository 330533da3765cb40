/*
 * Parts: sizing and content types (pure functions, xfer.h), and the engine's
 * part planning (whether an object goes in parts, how many, putting it on
 * the active list). Calls no other engine file.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "xfer/engine.h"
#include "base/mime.h"
#include "xfer/journal.h"

#define MIB ((uint64_t)1 << 20)
#define PART_MIN (8 * MIB)
#define PART_MAX ((uint64_t)5 << 30)
#define PARTS_MAX 10000
#define WINDOW_BYTES (64 * MIB)     /* a stream's parts held in memory at once */
#define WINDOW_PARTS_MAX 16
#define STDOUT_PART_MIN MIB
#define STDOUT_PARTS_WANTED 8       /* small objects: parts small enough for this many in parallel */
#define GROW_EVERY_PARTS 2000
#define GROW_DOUBLINGS_MAX 4
#define DEFAULT_THRESHOLD ((uint64_t)8 << 20)   /* objects this large go in parts */
#define LINK_LATENCY_S 0.020        /* S3's first-byte latency, until the engine has seen one */
#define LINK_CONN_BYTES_S 90e6      /* S3's bytes per second a connection, until seen */
#define LATENCY_SHARE 8             /* a part lasts at least this many first-byte latencies */
#define PARALLEL_PARTS 16           /* an object alone keeps this many requests going */
#define COPY_LATENCY_SHARE 16       /* a copied part copies for at least this many latencies */
#define COPY_PARALLEL_PARTS 64      /* an object alone is copied in at most this many parts */

uint64_t xfer_part_size(uint64_t size, uint64_t configured)
{
    uint64_t p = configured ? configured : PART_MIN, min_for_count;

    /* A configured size may be smaller than 8 MiB (the store's floor is 5 MiB). */
    if (!configured && p < PART_MIN)
        p = PART_MIN;
    min_for_count = (size + PARTS_MAX - 1) / PARTS_MAX;
    if (p < min_for_count) {
        /* Round up to whole MiB so parts stay aligned. */
        p = (min_for_count + MIB - 1) / MIB * MIB;
    }
    if (p > PART_MAX)
        p = PART_MAX;
    return p;
}

/* The power of two of MiB nearest to 'bytes' (by ratio: 11.3 MiB is the middle of 8 and 16). */
static uint64_t pow2_mib_near(double bytes)
{
    uint64_t p = MIB;

    while (p < PART_MAX && (double)(p * 2) <= bytes * 1.4142135623730951)
        p *= 2;
    return p;
}

/*
 * A request of P bytes on a connection of bandwidth B with first-byte latency
 * L takes L + P/B: at P = 8 L B the latency is a ninth of it (S3, 20 ms and
 * 90 MB/s: 14.4 MB, so 16 MiB). Fewer, longer requests pay L fewer times, but
 * an object cut in fewer parts than there are connections to use leaves some
 * idle: an object alone is cut in 16 parts at least, one of several in its
 * share of 16, and any in 2 at least (it is over the multipart threshold).
 * Powers of two of MiB keep the sizes among those a later download guesses
 * from a multipart ETag (xfer_part_size_guesses) when the store does not say.
 */
uint64_t xfer_part_size_fit(uint64_t size, uint64_t configured, const struct xfer_link *l)
{
    double lat = l && l->latency_s > 0 ? l->latency_s : LINK_LATENCY_S;
    double bw = l && l->conn_bytes_s > 0 ? l->conn_bytes_s : LINK_CONN_BYTES_S;
    int objects = l && l->objects > 1 ? l->objects : 1;
    int conns = PARALLEL_PARTS / objects;
    uint64_t least = xfer_part_size(size, 0), p;
    double want = LATENCY_SHARE * lat * bw;

    if (configured)
        return xfer_part_size(size, configured);
    if (conns < 2)
        conns = 2;
    if (want > (double)size / conns)
        want = (double)size / conns;
    if (!(want > 0))
        want = 0; /* NaN from a bad observation: the floor */
    p = pow2_mib_near(want);
    return p < least ? least : p > PART_MAX ? PART_MAX : p;
}

/* The power of two of MiB at or above 'bytes'. */
static uint64_t pow2_mib_up(double bytes)
{
    uint64_t p = MIB;

    while (p < PART_MAX && (double)p < bytes)
        p *= 2;
    return p;
}

/*
 * A server-side copy of P bytes takes L + P/R (R: the store's copy rate per
 * request, bench/README.md has the published figures), and a multipart copy
 * pays about four round trips more than one CopyObject (the source's HEAD
 * and tags, Create, Complete). A part long enough to copy for 16 latencies
 * (S3: 20 ms at 64 MB/s, 20 MB, so 32 MiB) makes those round trips small
 * beside what two parallel parts save; an object is cut in at most 64 such
 * parts (its share when others are in flight): beyond that only the
 * requests grow. One part's worth or less: one CopyObject.
 */
uint64_t xfer_copy_part_size(uint64_t size, const struct xfer_copy_model *m)
{
    double lat = m && m->latency_s > 0 ? m->latency_s : LINK_LATENCY_S;
    double rate = m && m->copy_bytes_s > 0 ? m->copy_bytes_s : XFER_COPY_BYTES_S;
    int objects = m && m->objects > 1 ? m->objects : 1;
    int width = COPY_PARALLEL_PARTS / objects;
    double want = COPY_LATENCY_SHARE * lat * rate;
    uint64_t p;

    if (width < 1)
        width = 1;
    if (want < (double)size / width)
        want = (double)size / width;
    p = pow2_mib_up(want);
    if (p < PART_MIN)
        p = PART_MIN;
    if (size <= p && size <= PART_MAX)
        return 0;
    return xfer_part_size(size, p);
}

uint32_t xfer_window_parts(uint64_t part)
{
    uint64_t k = part ? WINDOW_BYTES / part : WINDOW_PARTS_MAX;

    return k < 2 ? 2 : k > WINDOW_PARTS_MAX ? WINDOW_PARTS_MAX : (uint32_t)k;
}

/*
 * Ranged GETs need not match the parts the object was uploaded with, so the
 * range size serves memory and parallelism only: the configured part size
 * (8 MiB by default) capped to half the window, and for small objects ranges
 * small enough that several run at once.
 */
uint64_t xfer_stdout_part_size(uint64_t size, uint64_t configured)
{
    uint64_t p = configured ? configured : PART_MIN, small;

    if (p > WINDOW_BYTES / 2)
        p = WINDOW_BYTES / 2;
    if (size / p < STDOUT_PARTS_WANTED) {
        small = (size + STDOUT_PARTS_WANTED - 1) / STDOUT_PARTS_WANTED;
        small = (small + MIB - 1) / MIB * MIB;
        p = small < STDOUT_PART_MIN ? STDOUT_PART_MIN : small < p ? small : p;
    }
    return p;
}

/*
 * S3 takes parts of different sizes, so a stream of unknown length can start
 * small (little memory, early parallelism) and double its part size every
 * 2,000 parts, four times: 10,000 parts then hold 62,000 base parts
 * (484 GiB at 8 MiB) instead of 10,000.
 */
uint64_t xfer_stream_part_size(uint64_t base, uint32_t n, bool grow)
{
    uint32_t doublings = grow && n > 0 ? (n - 1) / GROW_EVERY_PARTS : 0;
    uint64_t p;

    if (doublings > GROW_DOUBLINGS_MAX)
        doublings = GROW_DOUBLINGS_MAX;
    p = base << doublings;
    return p > PART_MAX ? PART_MAX : p;
}

uint32_t xfer_etag_parts(const char *etag, char hex[33])
{
    size_t n = etag ? strlen(etag) : 0, i;
    uint64_t parts = 0;

    if (n >= 2 && etag[0] == '"' && etag[n - 1] == '"') {
        etag++;
        n -= 2;
    }
    if (n < 34 || etag[32] != '-' || n > 32 + 1 + 5)
        return 0;
    for (i = 0; i < 32; i++) {
        char c = etag[i];
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
            return 0;
        hex[i] = c;
    }
    hex[32] = '\0';
    for (i = 33; i < n; i++) {
        if (etag[i] < '0' || etag[i] > '9')
            return 0;
        parts = parts * 10 + (uint64_t)(etag[i] - '0');
    }
    return parts >= 1 && parts <= PARTS_MAX ? (uint32_t)parts : 0;
}

bool xfer_parts_fit(uint64_t size, uint32_t n, uint64_t part_size)
{
    if (n == 0 || part_size == 0)
        return false;
    /* (n-1) whole parts leave something for the last, which is no bigger than one. */
    return (uint64_t)(n - 1) * part_size < size && size <= (uint64_t)n * part_size;
}

static int guess_add(uint64_t size, uint32_t n, uint64_t p, uint64_t *out, int k, int max)
{
    int i;

    if (k >= max || !xfer_parts_fit(size, n, p))
        return k;
    for (i = 0; i < k; i++)
        if (out[i] == p)
            return k;
    out[k] = p;
    return k + 1;
}

int xfer_part_size_guesses(uint64_t size, uint32_t n, uint64_t configured, uint64_t *out, int max)
{
    /* Defaults of common clients: AWS CLI and boto3 8 MiB, Go/Java SDKs and
     * rclone 5 MiB, mc 16 MiB, s3cmd 15 MiB, s5cmd 50 MiB, and round sizes
     * people configure (s3c's own are powers of two: xfer_part_size_fit).
     * Adjusters double them to stay under 10,000 parts. */
    static const uint64_t common_mib[] = { 8, 5, 16, 15, 50, 32, 64, 100, 128, 256, 512, 1024, 2048, 4096 };
    size_t i;
    int k = 0;

    if (n == 1)
        return guess_add(size, n, size, out, 0, max);  /* one part: the whole object */
    if (configured)
        k = guess_add(size, n, xfer_part_size(size, configured), out, k, max);
    k = guess_add(size, n, xfer_part_size(size, 0), out, k, max);
    for (i = 0; i < sizeof(common_mib) / sizeof(common_mib[0]); i++) {
        uint64_t p = common_mib[i] * MIB;
        while (p * PARTS_MAX < size && p < PART_MAX)
            p *= 2;
        k = guess_add(size, n, p, out, k, max);
    }
    return k;
}

const char *xfer_guess_mime(const char *name)
{
    const char *t = mime_guess(name);

    return t ? t : "binary/octet-stream";
}

/* ---- the engine's part planning ---------------------------------------------- */

/*
 * The parts of an object going in parts, sized from what the engine has seen
 * of the network so far (adapt.c's link_observe). A download resumed from its
 * journal keeps the ranges it recorded: those on disk are of that size.
 */
void plan_parts(struct engine *g, struct xfer_obj_state *os)
{
    struct xfer_link l = { g->link_latency_s, g->link_bytes_s, g->n_objects };
    const struct obj_dl_file *f = os->family == FAM_DL_FILE ? dl_file_of(os) : NULL;
    const struct journal_download *j = f ? f->dj : NULL;

    if (f && f->dj_resumed && j && !g->opts.part_size && j->part_size >= 5 * MIB && j->part_size <= PART_MAX &&
        j->n_parts <= PARTS_MAX && xfer_parts_fit(os->size, j->n_parts, j->part_size))
        os->part_size = j->part_size;
    else
        os->part_size = xfer_part_size_fit(os->size, g->opts.part_size, &l);
    os->n_parts = (uint32_t)((os->size + os->part_size - 1) / os->part_size);
}

/* An object below the threshold uploaded in several parts: downloaded part by
 * part, so that its md5-of-md5s ETag can be checked. */
bool small_multipart(const struct xfer_obj *o)
{
    char hex[33];

    return o->size > 0 && xfer_etag_parts(o->etag, hex) > 1;
}

bool wants_multipart(struct engine *g, uint64_t size)
{
    uint64_t threshold = g->opts.multipart_threshold ? g->opts.multipart_threshold : DEFAULT_THRESHOLD;

    return size > 0 && (size >= threshold || size > ((uint64_t)5 << 30));
}

/*
 * The parts start: the object goes on the active list (xfer.c's next_part
 * takes them from there). An upload's per-part records are made first
 * (stdin's for as many parts as it may come to).
 */
enum s3c_err start_parts(struct engine *g, struct xfer_obj_state *os, struct s3c_error *e)
{
    struct mpu_state *m = mpu_find(os);
    size_t room = os->family == FAM_STDIN ? S3_MAX_PARTS : os->n_parts;

    if (m && !m->etags)
        m->etags = calloc(room, sizeof(*m->etags));
    if (m && !m->md5s)
        m->md5s = calloc(room, sizeof(*m->md5s));
    if (m && (!m->etags || !m->md5s))
        return s3c_fail(e, S3C_ENOMEM, "out of memory");
    obj_phase_set(g, os, PH_PARTS);
    os->next_part = 1;
    os->next = g->active;
    g->active = os;
    return S3C_OK;
}
