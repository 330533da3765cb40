/*
 * The merge keeps one head entry per side and consumes the smaller one, or
 * both when equal, exactly as the AWS CLI's Comparator.call() walks its two
 * generators. Each entry is checked against the one before it on its side
 * when it is loaded, before any decision is taken on it.
 */
#include "plan/merge.h"

#include <string.h>

/* Longest rel the order check keeps (S3 keys stop at 1024 bytes; local paths at WALK_REL_MAX). */
#define MERGE_REL_MAX ((size_t)1 << 20)

int merge_cmp(struct sv a, struct sv b)
{
    size_t n = a.n < b.n ? a.n : b.n;
    int c = n ? memcmp(a.p, b.p, n) : 0;    /* memcmp compares unsigned bytes */

    if (c)
        return c;
    return a.n < b.n ? -1 : a.n > b.n ? 1 : 0;
}

static bool by_size_and_time(const struct merge_opts *o, const struct merge_entry *src,
                             const struct merge_entry *dst, enum merge_why *why);

bool merge_should_copy(const struct merge_opts *o, const struct merge_entry *src,
                       const struct merge_entry *dst, enum merge_why *why)
{
    bool copy;

    /* A directory marker ("dir/", 0 bytes; --directory-markers) at both ends: nothing to copy. */
    if (sv_is_dir(src->rel) && src->size == dst->size) {
        *why = MERGE_WHY_NONE;
        return false;
    }
    copy = by_size_and_time(o, src, dst, why);

    /* --checksum: one size at both ends goes to the caller to prove by content, with what size
     * and time say for when there is nothing to compare. */
    if (o->checksum && !o->size_only && *why != MERGE_WHY_SIZE) {
        *why = copy ? MERGE_WHY_CHECKSUM_TIME : MERGE_WHY_CHECKSUM;
        return true;
    }
    return copy;
}

/* The AWS CLI's decision: sizes, then times. */
static bool by_size_and_time(const struct merge_opts *o, const struct merge_entry *src,
                             const struct merge_entry *dst, enum merge_why *why)
{
    int64_t delta = dst->mtime - src->mtime;    /* > 0: the destination is newer */
    bool same_time;

    *why = MERGE_WHY_NONE;
    if (src->size != dst->size) {
        *why = MERGE_WHY_SIZE;
        return true;
    }
    if (o->size_only)
        return false;
    if (o->dir == MERGE_DOWNLOAD && o->recorded_mtime && delta != 0) {
        /* A file whose mtime is not LastModified: the HEAD decides where the listing cannot
         * (merge.h, "Recorded mtimes"). */
        if (o->exact_timestamps || delta > 0) {
            *why = MERGE_WHY_RECORDED_COPY;
            return true;
        }
        if (dst->ctime <= src->mtime) {
            *why = MERGE_WHY_RECORDED;
            return true;
        }
        return false;
    }
    if (o->dir == MERGE_DOWNLOAD) {
        /* The CLI re-downloads when the local file is newer than the object, not
         * when the object is newer: a download stamps LastModified on the file,
         * its second with no fraction. A fraction in the object's second is a
         * file written since, and whether before the object cannot be told. */
        if (delta == 0 && dst->mtime_nsec > 0) {
            *why = MERGE_WHY_SAME_SECOND;
            return true;
        }
        same_time = o->exact_timestamps ? delta == 0 : delta <= 0;
    } else {
        /* Uploads and copies: only a newer source copies. The destination's
         * second says nothing of a source written within it; but two times
         * of one store's own clock, both to the millisecond (listings of Ceph
         * and s3emu; S3's say ".000"), do. A local clock is not the store's. */
        if (delta == 0 && o->dir == MERGE_COPY && src->mtime_nsec > 0 && dst->mtime_nsec > 0) {
            if (dst->mtime_nsec >= src->mtime_nsec)
                return false;
            *why = MERGE_WHY_TIME;
            return true;
        }
        if (delta == 0) {
            *why = MERGE_WHY_SAME_SECOND;
            return true;
        }
        same_time = delta > 0;
    }
    if (same_time)
        return false;
    *why = MERGE_WHY_TIME;
    return true;
}

void merge_init(struct merge *m, const struct merge_opts *o, merge_next_fn src_next, void *src_ctx,
                merge_next_fn dst_next, void *dst_ctx)
{
    memset(m, 0, sizeof(*m));
    m->o = *o;
    m->src_next = src_next;
    m->src_ctx = src_ctx;
    m->dst_next = dst_next;
    m->dst_ctx = dst_ctx;
    m->src_prev = (struct buf)BUF_INIT(MERGE_REL_MAX);
    m->dst_prev = (struct buf)BUF_INIT(MERGE_REL_MAX);
    m->protect = (struct buf)BUF_INIT(MERGE_REL_MAX);
}

void merge_release(struct merge *m)
{
    buf_release(&m->src_prev);
    buf_release(&m->dst_prev);
    buf_release(&m->protect);
}

/*
 * Load the next entry of one side into *head. Returns S3C_OK with *have set
 * (or *done at the end), or a failure with 'e' set. The destination's
 * PROTECT entries are dropped here: what it could not read counts as absent.
 */
static enum s3c_err load(struct merge *m, bool is_src, struct s3c_error *e)
{
    merge_next_fn next = is_src ? m->src_next : m->dst_next;
    void *ctx = is_src ? m->src_ctx : m->dst_ctx;
    struct merge_entry *head = is_src ? &m->src : &m->dst;
    struct buf *prev = is_src ? &m->src_prev : &m->dst_prev;
    bool *any = is_src ? &m->src_any : &m->dst_any;
    const char *side = is_src ? "source" : "destination";

    for (;;) {
        int r;

        memset(head, 0, sizeof(*head));
        r = next(ctx, head, e);
        if (r == MERGE_NEXT_LATER)
            return S3C_OK; /* neither have nor done: merge_next answers MERGE_LATER */
        if (r < 0)
            return e->code ? e->code : s3c_fail(e, S3C_EINTERNAL, "the %s listing failed", side);
        if (r == 0) {
            *(is_src ? &m->src_done : &m->dst_done) = true;
            return S3C_OK;
        }
        if (*any && merge_cmp(head->rel, buf_sv(prev)) <= 0)
            return s3c_fail(e, S3C_EPARSE, "the %s listing is not in key order (\"%.200s\" after \"%.200s\")",
                            side, head->rel.p, buf_cstr(prev));
        buf_reset(prev);
        if (buf_addsv(prev, head->rel))
            return s3c_fail(e, S3C_ENOMEM, "a %s name is longer than %zu bytes", side, MERGE_REL_MAX);
        *any = true;
        if (is_src)
            m->n_src++;
        else
            m->n_dst++;
        if (!is_src && head->kind == MERGE_PROTECT)
            continue;
        *(is_src ? &m->src_have : &m->dst_have) = true;
        return S3C_OK;
    }
}

/* Is this destination-only rel under the last thing the source could not read? */
static bool protected_rel(const struct merge *m, struct sv rel)
{
    const struct buf *p = &m->protect;

    if (!p->len)
        return false;
    if (p->data[p->len - 1] == '/')
        return rel.n >= p->len && memcmp(rel.p, p->data, p->len) == 0;
    return rel.n == p->len && memcmp(rel.p, p->data, p->len) == 0;
}

static enum s3c_err set_protect(struct merge *m, struct sv rel, struct s3c_error *e)
{
    buf_reset(&m->protect);
    if (buf_addsv(&m->protect, rel))
        return s3c_fail(e, S3C_ENOMEM, "a source name is longer than %zu bytes", MERGE_REL_MAX);
    return S3C_OK;
}

static enum s3c_err fail(struct merge *m, enum s3c_err rc, const struct s3c_error *e)
{
    m->failed = true;
    m->err = *e;
    m->err.code = rc;
    return rc;
}

enum s3c_err merge_next(struct merge *m, struct merge_action *out, struct s3c_error *e)
{
    enum s3c_err rc;

    memset(out, 0, sizeof(*out));
    if (m->failed) {
        *e = m->err;
        return m->err.code;
    }
    for (;;) {
        int c;

        if (!m->src_have && !m->src_done && (rc = load(m, true, e)))
            return fail(m, rc, e);
        if (!m->dst_have && !m->dst_done && (rc = load(m, false, e)))
            return fail(m, rc, e);
        if ((!m->src_have && !m->src_done) || (!m->dst_have && !m->dst_done)) {
            out->act = MERGE_LATER; /* a side's head is on its way: its place in the order is unknown */
            return S3C_OK;
        }
        if (!m->src_have && !m->dst_have) {
            out->act = MERGE_END;
            return S3C_OK;
        }
        c = !m->dst_have ? -1 : !m->src_have ? 1 : merge_cmp(m->src.rel, m->dst.rel);
        if (c < 0) {
            /* Only at the source. */
            m->src_have = false;
            if (m->src.kind == MERGE_PROTECT) {
                if ((rc = set_protect(m, m->src.rel, e)))
                    return fail(m, rc, e);
                continue;
            }
            out->act = MERGE_COPY_IT;
            out->why = MERGE_WHY_NEW;
            out->src = &m->src;
            return S3C_OK;
        }
        if (c > 0) {
            /* Only at the destination. */
            m->dst_have = false;
            out->dst = &m->dst;
            if (protected_rel(m, m->dst.rel)) {
                out->act = MERGE_KEEP;
                out->why = MERGE_WHY_PROTECTED;
            } else {
                out->act = m->o.delete ? MERGE_DELETE : MERGE_KEEP;
            }
            return S3C_OK;
        }
        /* On both sides. */
        m->src_have = m->dst_have = false;
        out->src = &m->src;
        out->dst = &m->dst;
        if (m->src.kind == MERGE_PROTECT) {
            if ((rc = set_protect(m, m->src.rel, e)))
                return fail(m, rc, e);
            out->act = MERGE_KEEP;
            out->why = MERGE_WHY_PROTECTED;
            return S3C_OK;
        }
        if (m->src.kind == MERGE_NAME) {
            out->act = MERGE_SKIP; /* nothing to compare with: present is enough */
            return S3C_OK;
        }
        out->act = merge_should_copy(&m->o, &m->src, &m->dst, &out->why) ? MERGE_COPY_IT : MERGE_SKIP;
        return S3C_OK;
    }
}
