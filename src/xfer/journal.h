/*
 * journal: what a later `--resume` needs to continue an interrupted
 * multipart upload: the upload id, and what the source was (path, size,
 * mtime) and how it was cut (part size), so that a changed file is never
 * resumed into. One small file per (bucket, key) in the state directory,
 * written when CreateMultipartUpload succeeds and removed when the upload
 * completes or is aborted; what a killed run leaves behind is what
 * --resume finds. Which parts reached the store is not journaled: the
 * store says (ListParts), and each part's ETag is checked against the MD5
 * of the local bytes before it is trusted.
 *
 * The directory: $S3C_STATE_DIR, else $XDG_STATE_HOME/s3c, else
 * $HOME/.local/state/s3c; created on first save (mode 0700).
 */
#ifndef S3C_XFER_JOURNAL_H
#define S3C_XFER_JOURNAL_H

#include <stdint.h>

#include "base/buf.h"
#include "base/err.h"

struct journal_upload {
    char *bucket;
    char *key;
    char *upload_id;
    char *source;           /* the local path, as given */
    uint64_t size;
    int64_t mtime_s;
    uint64_t part_size;
};

/* The state directory from the environment ('env' as environ); S3C_ECONFIG when none can be named. */
enum s3c_err journal_dir(char *const *env, struct buf *out, struct s3c_error *e);

/* Write (replace) the record of j->bucket/j->key, atomically (temp + rename). */
enum s3c_err journal_upload_save(const char *dir, const struct journal_upload *j, struct s3c_error *e);

/* Read the record of bucket/key: 1 found (release it), 0 none, -1 unreadable or malformed ('e'). */
int journal_upload_load(const char *dir, const char *bucket, const char *key, struct journal_upload *out,
                        struct s3c_error *e);

void journal_upload_remove(const char *dir, const char *bucket, const char *key);
void journal_upload_release(struct journal_upload *j);

#endif
