/*
 * jsync: a download journal's disk work off the loop. A journaled download
 * (--resume) records its finished parts once a second, each record after
 * an fdatasync of its temp file, and removes the record once it is done:
 * on a slow disk or NFS an fdatasync takes a long while, which no loop
 * thread may spend. One worker thread does them, in the order asked, so a
 * removal never comes before a save asked earlier.
 *
 * Threads: every function is the owner's (the engine's loop).
 */
#ifndef S3C_XFER_JSYNC_H
#define S3C_XFER_JSYNC_H

#include <stdbool.h>

#include "xfer/journal.h"

struct jsync;

struct jsync *jsync_new(void);  /* NULL: out of memory */

/*
 * Sync the file open as 'fd' (dup'd here: the caller may close its own at
 * once; -1: no sync), then write 'rec' (copied here) into 'dir': later, on
 * the worker. A failed sync writes no record. false: nothing was queued.
 */
bool jsync_save(struct jsync *q, const char *dir, int fd, const struct journal_download *rec);

/* Remove dest's record from 'dir', after every save asked before. false: nothing queued. */
bool jsync_drop(struct jsync *q, const char *dir, const char *dest);

/* Do what is queued, end the worker, free. NULL is a no-op. */
void jsync_free(struct jsync *q);

#endif
