/*
 * path: turning object keys into local paths without ever leaving the
 * destination directory. A key is data from the network: "../x",
 * "a/../../x", "/etc/passwd", "a\\b", NUL and "."/".." segments are refused,
 * never "cleaned", so a hostile listing cannot write outside the tree.
 */
#ifndef S3C_FS_PATH_H
#define S3C_FS_PATH_H

#include <stdbool.h>

#include "base/buf.h"
#include "base/err.h"

/*
 * Check that the relative key part 'rel' is a safe relative path: not empty,
 * not absolute, no NUL or backslash, no "." or ".." segment, no empty
 * segment except a trailing '/' (a "directory" marker). S3C_EUSAGE with a
 * message naming the key when it is not.
 */
enum s3c_err path_check_relative(struct sv rel, struct s3c_error *e);

/* Append "dir/rel" to 'out' after path_check_relative(rel). */
enum s3c_err path_join_safe(const char *dir, struct sv rel, struct buf *out, struct s3c_error *e);

/* Whether a file name is the hidden name of a download's temp file,
 * ".s3c-NAME.XXXXXXXX.tmp" (store_fs.h): never data of the user's. */
bool path_is_tmp_name(const char *name);

#endif
