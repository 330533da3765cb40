/*
 * manifest: a source set read from a file instead of a listing, so a huge
 * bucket needs no ListObjectsV2 at all (--from-manifest). Two forms:
 *
 *   - an S3 Inventory report: its manifest.json ("fileFormat": "CSV",
 *     "fileSchema": "Bucket, Key, Size, LastModifiedDate, ...", "files":
 *     [{"key": ...}]) and the CSV data files it names, gzip'd or not. Keys
 *     are URL-encoded in those files, as S3 writes them; rows of delete
 *     markers and of versions that are not the latest are skipped. A local
 *     manifest.json finds its data files where a downloaded report keeps
 *     them (../data/NAME beside the manifest's directory, else data/NAME or
 *     NAME in it); an s3:// one reads them from the report's destination
 *     bucket.
 *   - anything else: a plain list of keys, one a line ("s3://BUCKET/KEY"
 *     lines name their bucket); no sizes or times (has_attrs false).
 *
 * Entries come in the file's order (an inventory is not sorted: sync sorts
 * them). One data file is read at a time, the next one on its way into a
 * temp file meanwhile; memory does not grow with the report. Not
 * thread-safe: the thread of the store's loop. An s3:// manifest (or key
 * list) and an inventory's s3:// data files are waited for on the store's
 * loop (by manifest_open, and by manifest_next), unless nonblock: then each
 * is a request in flight, and manifest_next answers MANIFEST_LATER while
 * the one it needs is out.
 */
#ifndef S3C_PLAN_MANIFEST_H
#define S3C_PLAN_MANIFEST_H

#include <stdbool.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/str.h"
#include "store/store_s3.h"

#define MANIFEST_LINE_MAX (64u << 10)   /* one CSV row or key line */
#define MANIFEST_JSON_MAX (64u << 20)   /* manifest.json */

struct manifest_entry {
    const char *bucket;     /* "" when the line named none */
    const char *key;
    bool has_attrs;         /* size, mtime and etag are known (an inventory with those columns) */
    uint64_t size;
    int64_t mtime;          /* LastModifiedDate, seconds since 1970 */
    const char *etag;       /* quoted, as a listing gives it; "" when unknown */
};

struct manifest;

/*
 * Open 'path': a local file or s3://BUCKET/KEY (through 's3', which may be
 * NULL for local files). NULL with 'e' set when it cannot be read. With
 * 'nonblock' (the engine's source: its loop may not wait) an s3:// one is
 * not waited for: its GET goes out, and manifest_next answers
 * MANIFEST_LATER until it is in, then reads it (its failures then
 * manifest_next's -1); as manifest_nonblock(m, true).
 */
struct manifest *manifest_open(const char *path, struct store_s3 *s3, bool nonblock, struct s3c_error *e);

#define MANIFEST_LATER 2

/*
 * The next entry: 1 with *out valid until the next call, 0 at the end, -1
 * with 'e' set; with nonblock (manifest_nonblock), MANIFEST_LATER while an
 * s3:// file (the manifest itself, or a data file) is on its way: step the store's loop (the engine does)
 * and ask again soon (XFER_LATER_MS: a retry's backoff ends in a call).
 */
int manifest_next(struct manifest *m, struct manifest_entry *out, struct s3c_error *e);

/* Whether manifest_next may answer MANIFEST_LATER (the engine's source) or waits (a dry run). */
void manifest_nonblock(struct manifest *m, bool on);

/* Its own file (the manifest.json or key list) was read: a failure now is no longer the open's. */
bool manifest_opened(const struct manifest *m);

void manifest_free(struct manifest *m);

/* ---- the pure parts, for tests ---- */

/*
 * Split one CSV row (RFC 4180: quoted fields, "" for a quote) into at most
 * 'max' fields, unquoted into 'scratch' (reset first; the views point into
 * it). False on a malformed row.
 */
bool manifest_csv_split(struct sv row, struct sv *fields, size_t max, size_t *n, struct buf *scratch);

/* Form-decode (S3 Inventory's URL encoding: %XX, '+' a space) 'in' into 'out'. False on a bad escape or NUL. */
bool manifest_url_decode(struct sv in, struct buf *out);

#endif
