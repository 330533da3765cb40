/*
 * objsrc: one argument's objects as one stream, for cp, mv, rm and sync
 * (objsrc.h). Below the verbs, above job.c (the shard, the counts) and
 * listing.c (versions).
 */
#include "cli/objsrc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/job.h"
#include "cli/output.h"
#include "plan/manifest.h"
#include "plan/shard.h"
#include "plan/wild.h"

#define OBJSRC_NAME_MAX 65536   /* a path built from the root and a rel */

/* A listed key kept from the verbs (outside the prefix, or unnamable): warned,
 * counted as skipped (exit 2). On a sync's destination too: such a key is never
 * taken for one the source lacks, so --delete never touches it. */
static void listed_skip(void *ctx, const char *key, enum listcheck_verdict why)
{
    struct objsrc *src = ctx;
    struct s3c_error e = S3C_ERROR_INIT;

    listing_warn_skip(src->u.bucket, key, why, &e);
    job_count(src->o.job, src->o.count_op, 0, &e);
}

/* The base name of a key or path ("a/b/c" -> "c"). */
static struct sv base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return sv_from(s ? s + 1 : p);
}

/* Whether 'rel' is one the pattern a sync's other end was given would name (objsrc_opts.match_rel). */
static bool rel_named(const struct objsrc *src, struct sv rel)
{
    if (!src->o.match_rel)
        return true;
    return src->o.match_rel_path ? wild_path_match(src->o.match_rel, rel) : wild_match(src->o.match_rel, rel);
}

/* A name the filters kept out, as a --json record when asked: 'name' a key of the argument's bucket, or a path. */
static void tell_filtered(const struct objsrc *src, const char *name)
{
    struct buf shown = BUF_INIT(1 << 16);
    struct out_result r = { "filter", NULL, NULL, 0, false, NULL, false, false, "excluded by --exclude/--include" };

    if (!src->o.tell_filtered || !out_opts()->json)
        return;
    if (src->u.bucket ? buf_addf(&shown, "s3://%s/%s", src->u.bucket, name) : buf_adds(&shown, name))
        buf_adds(&shown, "(a name too long to show)");
    r.src = buf_cstr(&shown);
    out_result(&r, NULL);
    buf_release(&shown);
}

/* Does 'rel' (of 'name', the key or the path) pass the filters (when there are) and belong to the shard? */
static bool accepted(const struct objsrc *src, struct sv rel, const char *name)
{
    if (!rel_named(src, rel))
        return false;
    if (src->o.filter && !filter_empty(src->o.filter) && !filter_accept(src->o.filter, src->o.filter_root, rel)) {
        if (job_owns(src->o.job, rel))
            tell_filtered(src, name); /* (another shard's name is that shard's to tell) */
        return false;
    }
    return job_owns(src->o.job, rel);
}

/* ---- opening ------------------------------------------------------------------------ */

/*
 * walk_opts.keep of a wildcard's walk, or of an end named by another's
 * (match_rel): a directory is entered only when something under it can
 * match, a file looked at only when it does; what cannot is never opened,
 * stat'ed or warned about.
 */
static bool walk_keep(void *ctx, struct sv rel, bool is_dir)
{
    struct objsrc *src = ctx;

    if (src->pattern) {
        buf_reset(&src->match);
        if (buf_adds(&src->match, src->walk_match) || buf_addsv(&src->match, rel))
            return true; /* too long to tell: the entry's own error says so */
        if (!(is_dir ? wild_path_enter(src->pattern, buf_sv(&src->match))
                     : wild_path_match(src->pattern, buf_sv(&src->match))))
            return false;
    }
    if (src->o.match_rel && src->o.match_rel_path)
        return is_dir ? wild_path_enter(src->o.match_rel, rel) : wild_path_match(src->o.match_rel, rel);
    return true;
}

static enum s3c_err open_walk(struct objsrc *src, struct s3c_error *e)
{
    struct walk_opts wo = WALK_OPTS_INIT;
    struct buf dir = BUF_INIT(OBJSRC_NAME_MAX);

    wo.follow_symlinks = src->o.follow_symlinks;
    wo.check_readable = src->o.check_readable;
    wo.tmp_files = src->o.tmp_files;
    wo.tmp_of = job_tmp_of;
    wo.empty_dirs = src->o.empty_dirs;
    if (src->pattern || (src->o.match_rel && src->o.match_rel_path)) {
        wo.keep = walk_keep;
        wo.keep_ctx = src;
    }
    if (src->pattern) {
        if (wild_prefix_dir(src->pattern, &dir))
            return s3c_fail(e, S3C_ENOMEM, "path too long");
        src->walk_match = strdup(buf_cstr(&dir));
        src->walk_root = strdup(dir.len ? buf_cstr(&dir) : ".");
    } else {
        src->walk_match = strdup("");
        src->walk_root = strdup(src->o.arg);
    }
    buf_release(&dir);
    if (!src->walk_match || !src->walk_root)
        return s3c_fail(e, S3C_ENOMEM, "out of memory");
    src->kind = OBJSRC_WALK;
    src->walk = walk_open(src->walk_root, &wo, e);
    if (!src->walk && e->code == S3C_ENOTFOUND && src->o.missing_is_empty) {
        s3c_error_clear(e);
        src->kind = OBJSRC_EMPTY;
        return S3C_OK;
    }
    if (!src->walk)
        return e->code ? e->code : S3C_EIO;
    return S3C_OK;
}

/*
 * --all-versions: one key without --recursive lists its key as a prefix and
 * keeps that key only (filtered by its name, as a single object is); a
 * prefix or a wildcard goes through the listing's own pattern, then the filters.
 */
static enum s3c_err open_versions(struct objsrc *src, bool wild, struct s3c_error *e)
{
    struct listing_opts lo = { .bucket = src->u.bucket, .versions = true, .skip = listed_skip, .skip_ctx = src,
                               .page_size = src->o.page_size };
    enum s3c_err rc = S3C_OK;

    src->kind = OBJSRC_VERSIONS;
    src->versions_exact = !wild && !src->o.recursive;
    if (wild) {
        rc = listing_set_key(&lo, src->u.key, &src->vprefix, e);
    } else {
        size_t kl = strlen(src->u.key);
        if (buf_adds(&src->vprefix, src->u.key) ||
            (src->o.recursive && kl && src->u.key[kl - 1] != '/' && buf_addc(&src->vprefix, '/')))
            rc = s3c_fail(e, S3C_ENOMEM, "key too long");
        lo.prefix = buf_cstr(&src->vprefix);
    }
    if (rc)
        return rc;
    listing_open(&src->versions, src->o.s3, &lo); /* (filtered here, in versions_next: to tell what they keep out) */
    src->versions_open = true;
    return S3C_OK;
}

enum s3c_err objsrc_open(struct objsrc *src, const struct objsrc_opts *o, struct s3c_error *e)
{
    bool s3 = s3_uri_is(o->arg), wild;
    struct buf pre = BUF_INIT(OBJSRC_NAME_MAX);
    enum s3c_err rc;

    src->o = *o;
    src->vprefix = (struct buf)BUF_INIT(OBJSRC_NAME_MAX);
    src->path = (struct buf)BUF_INIT(OBJSRC_NAME_MAX);
    src->match = (struct buf)BUF_INIT(OBJSRC_NAME_MAX);
    if (s3 && (rc = s3_uri_parse(o->arg, &src->u, e)))
        return rc;
    wild = !o->raw && wild_has(s3 ? src->u.key : o->arg);
    if (!o->raw && !wild) {
        /* No wildcard: the name it means, "\\*" a star (wild_unescape). */
        if (!s3 && !(src->lit = strdup(o->arg)))
            return s3c_fail(e, S3C_ENOMEM, "out of memory");
        wild_unescape(s3 ? src->u.key : src->lit);
        if (!s3)
            src->o.arg = src->lit;
    }
    if (s3 && o->all_versions)
        return open_versions(src, wild, e);
    if (wild) {
        /* Every matching key or file, named relative to the literal prefix. */
        src->pattern = s3 ? src->u.key : o->arg;
        if (!s3)
            return open_walk(src, e);
        src->kind = OBJSRC_LIST;
        rc = wild_prefix(src->pattern, &pre);
    } else if (s3 && (o->recursive || o->from_manifest)) {
        size_t kl = strlen(src->u.key);
        src->kind = OBJSRC_LIST;
        rc = buf_adds(&pre, src->u.key);
        if (!rc && kl && src->u.key[kl - 1] != '/')
            rc = buf_addc(&pre, '/');
    } else if (o->recursive) {
        return open_walk(src, e);
    } else {
        src->kind = OBJSRC_ONE;
        return S3C_OK;
    }
    if (!rc && !(src->prefix = strdup(buf_cstr(&pre))))
        rc = S3C_ENOMEM;
    buf_release(&pre);
    if (rc)
        return s3c_fail(e, S3C_ENOMEM, "out of memory");
    if (o->from_manifest) {
        src->kind = OBJSRC_MANIFEST;
        src->manifest = manifest_open(o->from_manifest, o->s3, o->later, e);
        return src->manifest ? S3C_OK : e->code;
    }
    rc = lister_open(&src->lister, o->s3, src->u.bucket, src->prefix, listed_skip, src, e);
    src->lister_open = !rc;
    src->lister.page_size = o->page_size;
    src->lister.v1 = o->list_v1;
    return rc;
}

bool objsrc_root_is_dir(const struct objsrc *src)
{
    return src->walk && walk_root_is_dir(src->walk);
}

void objsrc_close(struct objsrc *src)
{
    if (src->lister_open)
        lister_close(&src->lister);
    manifest_free(src->manifest);
    if (src->versions_open)
        listing_close(&src->versions);
    walk_close(src->walk);
    free(src->walk_root);
    free(src->walk_match);
    free(src->lit);
    free(src->prefix);
    buf_release(&src->vprefix);
    buf_release(&src->path);
    buf_release(&src->match);
    s3_uri_release(&src->u);
    *src = (struct objsrc)OBJSRC_INIT;
}

/* ---- the entries -------------------------------------------------------------------- */

/*
 * A listed or manifest key (under the prefix): the placeholders the verb
 * leaves out, the wildcard, the filters and the shard. True with
 * src->cur.rel set when it stays.
 */
static bool key_selected(struct objsrc *src, const char *key, bool has_attrs, uint64_t size)
{
    size_t kl = strlen(key), pl = strlen(src->prefix);
    struct sv rel = { key + pl, kl - pl };

    if (src->o.dirs == OBJSRC_DIRS_SKIP && kl && key[kl - 1] == '/')
        return false;
    if (src->o.dirs == OBJSRC_DIRS_SKIP_EMPTY &&
        (kl == pl || (has_attrs && size == 0 && key[kl - 1] == '/')))
        return false;
    if (src->o.dirs == OBJSRC_DIRS_MARKERS && kl && key[kl - 1] == '/' && (kl == pl || !has_attrs || size))
        return false;
    if (src->pattern) {
        if (!wild_match(src->pattern, (struct sv){ key, kl }))
            return false;
        src->matched++;
        rel = wild_relative(src->pattern, (struct sv){ key, kl });
    }
    if (!accepted(src, rel, key))
        return false;
    src->cur.rel = rel;
    return true;
}

/* The milliseconds of a listed LastModified ("2026-12-02T05:50:00.123Z"): 0 when it shows none. */
static int32_t listed_ms(const char *t)
{
    const char *dot = t ? strchr(t, '.') : NULL;
    int32_t ms = 0;
    int i;

    for (i = 1; dot && i <= 3 && dot[i] >= '0' && dot[i] <= '9'; i++)
        ms = ms * 10 + (dot[i] - '0');
    return dot && i == 4 ? ms : 0;
}

static enum objsrc_next list_next(struct objsrc *src, struct s3c_error *e)
{
    const struct s3_object *so;
    int r;

    /* The lister yields only keys under the prefix (plan/listcheck.h). */
    src->lister.nonblock = src->later;
    while ((r = lister_next(&src->lister, &so, e)) == 1) {
        if (!key_selected(src, so->key, true, so->size))
            continue;
        src->cur.key = so->key;
        src->cur.has_attrs = true;
        src->cur.size = so->size;
        src->cur.mtime = so->mtime_epoch;
        src->cur.mtime_nsec = listed_ms(so->last_modified) * 1000000;
        src->cur.etag = so->etag;
        src->cur.storage_class = so->storage_class ? so->storage_class : "";
        return OBJSRC_ENTRY;
    }
    return r == LISTER_LATER ? OBJSRC_LATER : r < 0 ? OBJSRC_FAILED : OBJSRC_END;
}

static enum objsrc_next manifest_entry_next(struct objsrc *src, struct s3c_error *e)
{
    size_t pl = strlen(src->prefix);
    struct manifest_entry me;
    int r;

    manifest_nonblock(src->manifest, src->later);
    while ((r = manifest_next(src->manifest, &me, e)) == 1) {
        /* The manifest may cover more than the argument: keep what is under it. */
        if ((me.bucket[0] && strcmp(me.bucket, src->u.bucket) != 0) || strncmp(me.key, src->prefix, pl) != 0 ||
            !me.key[pl])
            continue;
        memset(&src->cur, 0, sizeof(src->cur));
        src->cur.key = me.key;
        src->cur.has_attrs = me.has_attrs;
        src->cur.size = me.size;
        src->cur.mtime = me.mtime;
        src->cur.etag = me.etag;
        src->cur.version_id = "";
        if (!me.has_attrs && src->o.fill && !src->o.fill(src->o.fill_ctx, &src->cur))
            continue;
        if (!key_selected(src, me.key, src->cur.has_attrs, src->cur.size))
            continue;
        return OBJSRC_ENTRY;
    }
    if (r == MANIFEST_LATER)
        return OBJSRC_LATER;
    /* Opened on the engine (o.later): the failure may be the open's. */
    src->open_failed = r < 0 && !manifest_opened(src->manifest);
    return r < 0 ? OBJSRC_FAILED : OBJSRC_END;
}

static enum objsrc_next walk_entry_next(struct objsrc *src, struct s3c_error *e)
{
    for (;;) {
        struct walk_entry we;
        enum s3c_err rc = walk_next(src->walk, &we, e);
        struct sv rel;

        buf_reset(&src->path);
        buf_reset(&src->match);
        if (!rc && we.kind == WALK_END)
            return OBJSRC_END;
        if (buf_adds(&src->path, src->walk_root) ||
            (src->path.len && src->path.data[src->path.len - 1] != '/' && buf_addc(&src->path, '/')) ||
            buf_addsv(&src->path, we.rel)) {
            if (!rc)
                s3c_fail(e, S3C_ENOMEM, "path too long");
            rc = S3C_ENOMEM;
        }
        src->cur.key = buf_cstr(&src->path);
        src->cur.rel = we.rel;
        if (rc || we.kind == WALK_SPECIAL) {
            /* Unreadable, a dangling link, a loop, a FIFO or a device: the verb's to tell. */
            src->cur.special = !rc;
            if (!rc)
                s3c_fail(e, S3C_ESKIPPED, "not a regular file (a device, a FIFO or a socket)");
            return OBJSRC_BAD;
        }
        rel = we.rel;
        if (src->pattern) {
            buf_reset(&src->match);
            if (buf_adds(&src->match, src->walk_match) || buf_addsv(&src->match, we.rel) ||
                !wild_path_match(src->pattern, buf_sv(&src->match)))
                continue;
            src->matched++;
            rel = wild_relative(src->pattern, buf_sv(&src->match));
        }
        if (!accepted(src, rel, buf_cstr(&src->path)))
            continue;
        src->cur.rel = rel;
        src->cur.has_attrs = true;
        src->cur.size = we.size_bytes;
        src->cur.mtime = we.mtime_sec;
        src->cur.mtime_nsec = (int32_t)we.mtime_nsec;
        src->cur.ctime = we.ctime_sec;
        return OBJSRC_ENTRY;
    }
}

static enum objsrc_next versions_entry_next(struct objsrc *src, struct s3c_error *e)
{
    const struct listing_entry *en;
    int got;

    src->versions.nonblock = src->later;
    while ((got = listing_next(&src->versions, &en, e)) == 1) {
        struct sv k = sv_from(en->key), rel;

        if (en->kind == LISTING_PREFIX)
            continue;
        if (src->versions_exact) {
            rel = base_name(en->key);
            if (strcmp(en->key, src->u.key) != 0 || !accepted(src, rel, en->key))
                continue;
        } else {
            /* The listing matched the pattern; the filters and the shard go by the same relative name. */
            if (!src->o.raw && wild_has(src->u.key))
                rel = wild_relative(src->u.key, k);
            else
                rel = k.n >= src->vprefix.len ? (struct sv){ k.p + src->vprefix.len, k.n - src->vprefix.len } : k;
            if (!accepted(src, rel, en->key))
                continue;
        }
        src->cur.key = en->key;
        src->cur.rel = rel;
        src->cur.has_attrs = en->kind == LISTING_OBJECT;
        src->cur.size = en->size;
        src->cur.mtime = en->mtime_epoch;
        src->cur.etag = en->etag;
        src->cur.version_id = en->version_id;
        src->cur.storage_class = en->storage_class ? en->storage_class : "";
        return OBJSRC_ENTRY;
    }
    return got == LISTING_LATER ? OBJSRC_LATER : got < 0 ? OBJSRC_FAILED : OBJSRC_END;
}

static enum objsrc_next one_next(struct objsrc *src)
{
    const char *name = src->u.bucket ? src->u.key : src->o.arg;
    struct sv rel = base_name(name);

    if (src->one_given)
        return OBJSRC_END;
    src->one_given = true;
    /* A single object is the shard's of its name (and filtered by it, for rm). */
    if (!job_owns(src->o.job, rel))
        return OBJSRC_END;
    if (src->o.filter_one && src->o.filter && !filter_empty(src->o.filter) &&
        !filter_accept(src->o.filter, src->o.filter_root, rel)) {
        tell_filtered(src, name);
        return OBJSRC_END;
    }
    src->cur.key = name;
    src->cur.rel = rel;
    return OBJSRC_ENTRY;
}

enum objsrc_next objsrc_next(struct objsrc *src, const struct objsrc_entry **out, struct s3c_error *e)
{
    enum objsrc_next r = OBJSRC_END;

    memset(&src->cur, 0, sizeof(src->cur));
    src->cur.etag = src->cur.version_id = "";
    switch (src->kind) {
    case OBJSRC_ONE: r = one_next(src); break;
    case OBJSRC_LIST: r = list_next(src, e); break;
    case OBJSRC_MANIFEST: r = manifest_entry_next(src, e); break;
    case OBJSRC_WALK: r = walk_entry_next(src, e); break;
    case OBJSRC_VERSIONS: r = versions_entry_next(src, e); break;
    case OBJSRC_EMPTY: break;
    }
    *out = &src->cur;
    return r;
}
