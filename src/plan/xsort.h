/*
 * xsort: an external sort of merge entries (plan/merge.h) by rel, in
 * bounded memory, for a sync side that does not come sorted (S3 Express
 * directory buckets list in no particular order) or that must not be held
 * in memory.
 *
 * Entries are added in any order. They are kept in memory up to the budget;
 * past it each full batch is sorted and written to a temp file as a sorted
 * run, and reading merges the runs (k-way, a heap of run readers; when there
 * are more runs than XSORT_FANIN, groups of them are merged into longer
 * runs first, so open files stay bounded too). When everything fits, no
 * file is written. Temp files are unlinked as soon as they are created:
 * nothing is left behind, even by a crash.
 *
 * Memory: the budget (entries and their index), plus one read buffer per
 * run being merged (XSORT_FANIN at most). Disk: the size of the entries.
 *
 * Not thread-safe: one sorter, one thread (its background thread, if any,
 * is the sorter's own: xsort_background).
 */
#ifndef S3C_PLAN_XSORT_H
#define S3C_PLAN_XSORT_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "plan/merge.h"

#define XSORT_FANIN 32                      /* runs merged at once */
#define XSORT_BUDGET_DEFAULT ((size_t)64 << 20)

struct xsort;

/*
 * A new, empty sorter holding at most 'budget_bytes' of entries in memory
 * (0: XSORT_BUDGET_DEFAULT). Runs go to 'tmp_dir' (NULL: $TMPDIR, else /tmp).
 * NULL with 'e' set on OOM.
 */
struct xsort *xsort_new(size_t budget_bytes, const char *tmp_dir, struct s3c_error *e);

/* Add a copy of one entry. S3C_EIO when a run cannot be written (disk full), S3C_ENOMEM. */
enum s3c_err xsort_add(struct xsort *s, const struct merge_entry *en, struct s3c_error *e);

/*
 * Sort and write batches on a thread of the sorter's own, never the
 * caller's (one at a time, a thread each; the last batch sorted there too):
 * for a sorter filled on an event loop (a run file's sync, xsort_fill), so
 * that the loop goes on serving its transfers meanwhile. Memory: up to
 * twice the budget while a batch is written. Before the first add.
 */
void xsort_background(struct xsort *s);

/*
 * Add the entries of a side (a merge_next_fn) until its end, and end adding
 * (the last batch goes to disk and its memory is freed when there are runs
 * already): 0. MERGE_NEXT_LATER when the side answered it (its page is
 * out), or, in the background, while a batch is being written and the next
 * one is full, or the last one is being sorted or written: call again later
 * (nothing waits here). -1 with 'e' set: the side's failure, or a sort
 * file's.
 */
int xsort_fill(struct xsort *s, merge_next_fn next, void *ctx, struct s3c_error *e);

/* xsort_fill of a side that never answers later (a blocking one): its failure's code, else S3C_OK. */
enum s3c_err xsort_add_all(struct xsort *s, merge_next_fn next, void *ctx, struct s3c_error *e);

/*
 * The entries in increasing rel order, as a merge_next_fn ('ctx' is the
 * sorter): 1 with *out set (valid until the next call), 0 at the end, -1
 * with 'e' set (a run could not be read). The first call ends adding.
 */
int xsort_next(void *ctx, struct merge_entry *out, struct s3c_error *e);

/* How many sorted runs went to disk so far (0 when everything fit in memory). */
uint64_t xsort_runs(const struct xsort *s);

/* Close and free everything (the temp files vanish). NULL is a no-op. */
void xsort_free(struct xsort *s);

#endif
