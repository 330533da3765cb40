/*
 * store_fs: the local end of a transfer. Sources are read with pread at any
 * offset; destinations are written with pwrite into a temp file in the
 * destination's directory, which is renamed into place only when complete
 * and verified. A failed or interrupted download leaves no partial file
 * under the name the user will read.
 */
#ifndef S3C_STORE_STORE_FS_H
#define S3C_STORE_STORE_FS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/buf.h"
#include "base/err.h"
#include "s3/fattr.h"

/* Open 'path' for reading; size and mtime (seconds, nanoseconds) from fstat. */
enum s3c_err fs_open_read(const char *path, int *fd, uint64_t *size, int64_t *mtime_s,
                          struct s3c_error *e);

/*
 * Create a temp file for 'dst' in dst's directory (creating missing parent
 * directories), of length 'size' (sparse; space reserved where the file
 * system can). Its path goes to 'tmp_path'.
 */
enum s3c_err fs_tmp_create(const char *dst, uint64_t size, int *fd, struct buf *tmp_path,
                           struct s3c_error *e);

/*
 * Whether the file 'name' in the directory open as 'dfd' is a temp file that a
 * running s3c (this run, or another at the same time) is writing now:
 * fs_tmp_create and fs_tmp_reopen hold a write lock (an open file description
 * lock, which conflicts across processes and within one) on every temp file
 * until it is committed or removed. A name alone never says so: a user's
 * file may have any name.
 */
bool fs_tmp_in_use(int dfd, const char *name);

/* Whether 'tmp_path' is a name fs_tmp_create gives temp files of 'dst' (same
 * directory, ".s3c-BASE.XXXXXXXX.tmp"): only such a file is reused or removed
 * on the word of a journal. */
bool fs_tmp_is_for(const char *tmp_path, const char *dst);

/* Reopen the temp file 'tmp_path' for reading and writing, to continue it: a
 * regular file of exactly 'size' bytes (not a symlink), or an error. */
enum s3c_err fs_tmp_reopen(const char *tmp_path, uint64_t size, int *fd, struct s3c_error *e);

/*
 * Give the temp file what 'a' has (NULL: nothing): its owner (uid, gid: only
 * when this process may, as root; else left), then its mode, then its mtime
 * (atime too); close it and rename it to 'dst'. A mode's setuid and setgid
 * bits are kept only when its owner was set too (tar's rule). An owner or a
 * mode the file system refuses is no failure: the bytes are what was asked.
 */
enum s3c_err fs_tmp_commit(int fd, const char *tmp_path, const char *dst, const struct fattr *a,
                           struct s3c_error *e);

/* What fstat says of 'fd' as a struct fattr: mtime to the nanosecond, mode (07777), uid, gid. */
void fs_fattr_of(int fd, struct fattr *a, uint32_t *type_mode);

/* Close and remove the temp file (fd < 0: only remove). Never fails. */
void fs_tmp_abort(int fd, const char *tmp_path);

/* pwrite all of it; S3C_EIO (ENOSPC and friends) naming 'what' on failure. */
enum s3c_err fs_pwrite_all(int fd, const void *p, size_t n, uint64_t off, const char *what,
                           struct s3c_error *e);

/* pread exactly n bytes; S3C_EIO if the file is shorter now (it changed). */
enum s3c_err fs_pread_all(int fd, void *p, size_t n, uint64_t off, const char *what,
                          struct s3c_error *e);

/* Create the directories of 'path' up to (not including) its last component. */
enum s3c_err fs_mkdir_parents(const char *path, struct s3c_error *e);

/* Raise the soft limit of open files to the hard limit; returns the limit in force. */
long fs_raise_nofile(void);

#endif
