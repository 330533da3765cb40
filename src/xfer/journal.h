/*
 * journal: what a later `--resume` needs to continue an interrupted
 * multipart upload: the upload id, and what the source was (path, size,
 * mtime) and how it was cut (part size), so that a changed file is never
 * resumed into. A copy relayed between two stores (copy.c) is journaled the
 * same way, its source named by its key and ETag. One small file per (bucket, key) in the state directory,
 * written when CreateMultipartUpload succeeds and removed when the upload
 * completes or is aborted; what a killed run leaves behind is what
 * --resume finds (and what a run without it aborts). Which parts reached the store is not journaled: the
 * store says (ListParts), and each part's ETag is checked against the MD5
 * of the local bytes before it is trusted.
 *
 * With --resume, a large (ranged) download is journaled too, one record per
 * destination path: the source object as it was (bucket, key, version,
 * ETag, size, LastModified), how it was cut (part size), the temp file the
 * parts go to, and which parts that temp file holds. A part is recorded only
 * after its bytes were written and the temp file fdatasync'd, so a record
 * never claims bytes a crash could still lose; the whole-object check at the
 * end covers every byte again, re-read from the temp file.
 *
 * A run holds the record of the (bucket, key) it uploads to while its
 * upload lives (journal_upload_lock: flock on a hidden lock file beside the
 * record, which the kernel lets go when the process dies, kill -9 included),
 * so a record that another run can lock was left by a run that is gone: its
 * upload is continued (--resume) or aborted, never left open; a record held
 * by a live run is left alone.
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
    char *source;           /* the local file's absolute path; a relayed copy's source object,
                               "s3://bucket/key" (with "?versionId=..." for a version) */
    char *etag;             /* a relayed copy's: the source's ETag, quotes included; "" for a file
                               (and in a record of an s3c from before relays were journaled) */
    uint64_t size;
    int64_t mtime_s;        /* the file's; -1 for a relayed copy */
    uint64_t part_size;
};

/* The state directory from the environment ('env' as environ); S3C_ECONFIG when none can be named. */
enum s3c_err journal_dir(char *const *env, struct buf *out, struct s3c_error *e);

/* Write (replace) the record of j->bucket/j->key, atomically (temp + rename). */
enum s3c_err journal_upload_save(const char *dir, const struct journal_upload *j, struct s3c_error *e);

/* Read the record of bucket/key: 1 found (release it), 0 none, -1 unreadable or malformed ('e'). */
int journal_upload_load(const char *dir, const char *bucket, const char *key, struct journal_upload *out,
                        struct s3c_error *e);

/* Remove the record of bucket/key if it is of upload 'upload_id' (any upload when NULL). */
void journal_upload_remove(const char *dir, const char *bucket, const char *key, const char *upload_id);

/*
 * Take the record of bucket/key for this process until journal_upload_unlock:
 * its lock file's fd, or -1 when another live process holds it (errno
 * EWOULDBLOCK) or no lock file can be made (the directory cannot be created).
 * Whoever holds it alone may read, act on, write or remove the record.
 */
int journal_upload_lock(const char *dir, const char *bucket, const char *key);

/* Let go of the lock 'fd' (-1: none); the lock file goes too when no record is left. */
void journal_upload_unlock(const char *dir, const char *bucket, const char *key, int fd);
void journal_upload_release(struct journal_upload *j);

struct journal_download {
    char *dest;             /* the destination's absolute path: what the record is keyed on */
    char *bucket;
    char *key;
    char *version;          /* "" when none was asked for */
    char *etag;             /* quotes included */
    uint64_t size;
    int64_t mtime_s;        /* the object's LastModified; -1 unknown */
    uint64_t part_size;
    char *tmp;              /* the temp file's absolute path */
    uint32_t n_parts;       /* parts of part_size that make size */
    uint8_t *done;          /* n_parts flags: 1 = complete in the temp file (and synced) */
};

/* Write (replace) the record of j->dest, atomically (temp + rename). */
enum s3c_err journal_download_save(const char *dir, const struct journal_download *j, struct s3c_error *e);

/* Read the record of 'dest': 1 found (release it), 0 none, -1 unreadable or malformed ('e').
 * A found record is consistent: n_parts parts of part_size make size, 'done' has n_parts flags. */
int journal_download_load(const char *dir, const char *dest, struct journal_download *out, struct s3c_error *e);

void journal_download_remove(const char *dir, const char *dest);
void journal_download_release(struct journal_download *j);

#endif
