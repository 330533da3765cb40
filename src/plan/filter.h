/*
 * filter: --exclude / --include as the AWS CLI applies them
 * (awscli/customizations/s3/filters.py). Pure: no I/O except filter_root()
 * reading the working directory.
 *
 * The rules, exactly:
 *   - Every path starts included. All filters are tried in command-line
 *     order; each one that matches sets the verdict (exclude -> out,
 *     include -> in), so the LAST matching filter wins.
 *     "--exclude '*' --include '*.txt'" keeps only .txt files;
 *     "--include '*.txt' --exclude '*'" keeps nothing.
 *   - A pattern is Python fnmatch (plan/wild.h, wild_fnmatch): '*' crosses
 *     '/', '?' is one character, "[seq]" and "[!seq]" are sets.
 *   - The AWS CLI prefixes each pattern with the source root (os.path.join)
 *     and matches the full path of each file: root + "/" + rel. Since the
 *     root is the same literal text on both sides, s3c matches the pattern
 *     against 'rel' alone, which is the same thing, with one deliberate
 *     difference: the AWS CLI lets glob characters in the root itself act
 *     as wildcards (a source directory "photos[1]" makes every filter miss);
 *     s3c takes the root literally.
 *   - An absolute pattern ("/home/me/src/core") replaces the root, as
 *     os.path.join does, and is matched against the full path root/rel.
 *   - Roots, as the AWS CLI forms them (filter_root()): for a local source
 *     the absolute, normalised path of the directory (--recursive, sync) or
 *     of the file's directory (single file); for S3 "bucket/key-prefix" with
 *     no "s3://" (for a single object, the key up to its last '/').
 *   - The source side is filtered with the source root; for sync --delete,
 *     files found only at the destination are filtered with the destination
 *     root, so what --exclude protects is never deleted. (The AWS CLI tries
 *     both roots' patterns on every path; that differs only when one root
 *     lies inside the other.)
 */
#ifndef S3C_PLAN_FILTER_H
#define S3C_PLAN_FILTER_H

#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/str.h"

enum filter_kind {
    FILTER_EXCLUDE,
    FILTER_INCLUDE,
};

struct filter_rule {
    enum filter_kind kind;
    char *pattern;      /* owned copy, as given on the command line */
    size_t len;
    bool absolute;      /* starts with '/': matched against root/rel */
};

struct filter {
    struct filter_rule *rules;  /* in command-line order */
    size_t n;
    size_t cap;
};

#define FILTER_INIT { NULL, 0, 0 }

/* At most this many filters (the CLI's repeatable-flag cap is lower). */
#define FILTER_MAX 4096

/* Append one filter (the pattern is copied). S3C_ENOMEM on OOM or past FILTER_MAX. */
enum s3c_err filter_add(struct filter *f, enum filter_kind kind, const char *pattern,
                        struct s3c_error *e);

/*
 * Append filters from parallel arrays as the argument parser records them:
 * flag[i] is "--exclude" or "--include" (any other flag is skipped, so a
 * list of mixed flags may be passed), value[i] its pattern. Order is kept.
 */
enum s3c_err filter_add_list(struct filter *f, const char *const *flag, const char *const *value,
                             size_t n, struct s3c_error *e);

/* True if no filter was added: every path is accepted, no need to call. */
bool filter_empty(const struct filter *f);

/*
 * Should the file at 'rel' (relative to 'root', '/'-separated, no leading
 * '/') take part? 'root' is as filter_root() forms it; it is read only by
 * absolute patterns and may be NULL when there are none. Thread-safe on a
 * filter no longer being added to.
 */
bool filter_accept(const struct filter *f, const char *root, struct sv rel);

/*
 * Form the AWS CLI's filter root for the source or destination argument
 * 'arg' ("s3://bucket/prefix" or a local path) into 'out'. 'dir_op' is true
 * for --recursive and sync. A relative local path is made absolute against
 * the working directory and normalised lexically (".", ".." and repeated
 * '/' folded; no symlink is resolved), as os.path.abspath does.
 */
enum s3c_err filter_root(const char *arg, bool dir_op, struct buf *out, struct s3c_error *e);

/* Free the rules; 'f' is FILTER_INIT again. */
void filter_release(struct filter *f);

#endif
