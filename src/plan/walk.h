/*
 * walk: a streaming walk of a local tree that yields its files in S3 key
 * order, so that sync can merge it with a ListObjectsV2 listing (sorted by
 * the UTF-8 bytes of the key) without holding either side in memory.
 *
 * Order. S3 sorts "a-b" (0x2D) < "a.b" (0x2E) < "a/b" (0x2F) < "a0" (0x30),
 * so reading a directory, sorting its names and recursing would put the
 * files of directory "a" before "a-b": wrong. Instead each directory's
 * names are sorted as if every subdirectory's name ended in '/', and a
 * subdirectory is walked at the place where "name/" sorts. Since no name
 * holds a '/', every key under "a/" then sorts between the neighbours of
 * "a/", and the whole walk comes out in exact byte order of the relative
 * path. (The AWS CLI's FileGenerator sorts the same way.) Bytes compare
 * unsigned, as S3 compares UTF-8.
 *
 * Memory. A stack of open directories, one per level of the current path;
 * each level holds its directory's names, read and sorted when the walk
 * enters it. Memory is bounded by the largest directory on the current
 * path, never by the tree. Each level holds one file descriptor, so a tree
 * deeper than the descriptor limit reports its deepest directories as
 * errors (EMFILE) rather than failing the walk.
 *
 * What is yielded: regular files (and, when following, symlinks to them).
 * Directories are not yielded (S3 has none: an empty directory yields
 * nothing); they are descended into. Symlinks: followed by default, as the
 * AWS CLI's --follow-symlinks; with follow_symlinks false they are skipped
 * silently, as --no-follow-symlinks does. The root itself is always
 * followed (the user named it). Sockets, FIFOs and devices come as
 * WALK_SPECIAL, for the caller to skip with a warning, as the AWS CLI does.
 * Temp files of downloads are recognised by what s3c made, never by their name
 * alone (a user's file may be named ".s3c-x.12345678.tmp" too): a name of that
 * form (path_is_tmp_name) is asked of opts.tmp_of, which says whether a running
 * s3c writes it now (never yielded: partial data, never a source, never to be
 * deleted) or an earlier run kept it for --resume (skipped unless
 * opts.tmp_files). Without tmp_of every file is the user's.
 * What cannot be read comes as WALK_ERROR and the walk goes on: the caller
 * reports it and carries on with the job.
 *
 * A WALK_ERROR for a directory has mode S_IFDIR and rel "dir/" (with the
 * '/', which is its place in key order): that subtree was not listed, so a
 * sync must not treat its files as deleted (--delete must skip every key
 * starting with rel). Every entry, errors included, comes in strictly
 * increasing byte order of rel.
 *
 * Not thread-safe: one walk, one thread at a time.
 */
#ifndef S3C_PLAN_WALK_H
#define S3C_PLAN_WALK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/err.h"
#include "base/str.h"

/* What a file named like a download's temp file is (walk_opts.tmp_of). */
enum walk_tmp {
    WALK_TMP_NO = 0,        /* the user's file */
    WALK_TMP_KEPT,          /* a temp file an interrupted run kept for --resume (its journal says so) */
    WALK_TMP_LIVE,          /* a temp file a running s3c is writing now */
};

struct walk_opts {
    bool follow_symlinks;   /* follow symlinks (default); false: skip them silently */
    bool check_readable;    /* a file the user cannot read is a WALK_ERROR (default), as the AWS CLI checks */
    size_t dir_max_bytes;   /* cap on one directory's listing in memory; 0: WALK_DIR_MAX_DEFAULT */
    bool tmp_files;         /* yield temp files kept for --resume too (a sync destination's --delete
                               removes what an interrupted run left); default false: skipped */
    enum walk_tmp (*tmp_of)(void *ctx, int dfd, const char *name); /* NULL: no file is a temp file */
    void *tmp_ctx;
    /* NULL, or asked of every name below the root before it is looked at ('rel' the path under
     * the root; 'is_dir' when it is a directory): false leaves it out silently, never opened or
     * stat'ed (a wildcard's walk: what cannot match is not the user's concern). */
    bool (*keep)(void *ctx, struct sv rel, bool is_dir);
    void *keep_ctx;
    bool empty_dirs;        /* yield empty directories (WALK_EMPTY_DIR): --directory-markers */
};

#define WALK_OPTS_INIT { true, true, 0, false, NULL, NULL, NULL, NULL, false }
#define WALK_DIR_MAX_DEFAULT ((size_t)256 << 20)
#define WALK_REL_MAX 16384      /* longest relative path; S3 keys stop at 1024 bytes */

enum walk_kind {
    WALK_END = 0,   /* no more entries */
    WALK_FILE,      /* a regular file, or a followed symlink to one */
    WALK_SPECIAL,   /* FIFO, socket or device: skip it with a warning */
    WALK_ERROR,     /* this file or directory could not be read; the walk goes on */
    WALK_EMPTY_DIR, /* walk_opts.empty_dirs: a directory with nothing in it, rel "dir/" (its
                       place in key order: before "dir0", after "dir-x"), size 0 */
};

struct walk_entry {
    enum walk_kind kind;
    struct sv rel;          /* path under the root, '/'-separated, NUL-terminated
                               ("dir/" for a directory's WALK_ERROR); valid until
                               the next walk_next() or walk_close() */
    uint64_t size_bytes;    /* WALK_FILE: st_size */
    int64_t mtime_sec;      /* WALK_FILE: modification time */
    long mtime_nsec;
    mode_t mode;            /* type and permissions (of the target, for a followed
                               link); for WALK_ERROR S_IFDIR if a directory failed */
    dev_t dev;              /* device and inode (hard-link detection) */
    ino_t ino;
    int sys_errno;          /* WALK_ERROR: why (EACCES, ELOOP, ENOENT for a dangling link, ...) */
    int64_t ctime_sec;      /* WALK_FILE: status change time (sync down's recorded mtimes, merge.h) */
};

#define WALK_ENTRY_INIT { WALK_END, { "", 0 }, 0, 0, 0, 0, 0, 0, 0, 0 }

struct walk;

/*
 * Start walking 'root', a directory or a single file (then the walk yields
 * that one file, with rel its base name). 'o' may be NULL for the defaults.
 * Returns NULL with 'e' set when the root cannot be walked: S3C_ENOTFOUND
 * if it does not exist, S3C_EIO if it cannot be opened or read, S3C_ENOMEM.
 */
struct walk *walk_open(const char *root, const struct walk_opts *o, struct s3c_error *e);

/*
 * The next entry, in byte order of 'rel'. Returns S3C_OK with out->kind
 * WALK_FILE, WALK_SPECIAL, or WALK_END when the walk is over (WALK_END
 * again on every later call). Any other return comes with out->kind ==
 * WALK_ERROR: out->rel names what failed, 'e' says why (S3C_EIO with
 * sys_errno, S3C_ENOMEM for a directory over dir_max_bytes or a path over
 * WALK_REL_MAX); that entry (and below a directory, its subtree) is
 * skipped, and the next call goes on with the rest of the walk.
 */
enum s3c_err walk_next(struct walk *w, struct walk_entry *out, struct s3c_error *e);

/*
 * True if the root is a directory (then rel paths are relative to it);
 * false if it is a single file (or special file), named by its base name.
 */
bool walk_root_is_dir(const struct walk *w);

/* Close every directory and free the walk. NULL is a no-op. */
void walk_close(struct walk *w);

#endif
