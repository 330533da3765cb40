/*
 * fattr: a file's modification time, mode and owner as S3 user metadata, in
 * the forms other tools write and read. Pure: no I/O.
 *
 * Written (uploads): rclone's "mtime" key (x-amz-meta-mtime), seconds since
 * 1970 with the nanoseconds as a decimal fraction ("1700000000.123456789");
 * with --preserve also rclone's "mode" (octal, file type included: "100644"),
 * "uid" and "gid" (decimal), the keys of rclone's --metadata. rclone's form
 * and not s3cmd's because rclone reads it on every download and sync by
 * default, keeps the nanoseconds, and needs one key per value, each readable
 * on its own; s3cmd's one "s3cmd-attrs" value has whole seconds only.
 *
 * Read (downloads): those keys, and s3cmd's "s3cmd-attrs"
 * ("atime:1700000000/ctime:.../gid:0/gname:root/md5:.../mode:33188/
 * mtime:1700000000/uid:0/uname:root": decimal values, whole seconds) for
 * what rclone's keys do not give. A value that does not parse is ignored,
 * as if absent: metadata is anyone's to write.
 */
#ifndef S3C_S3_FATTR_H
#define S3C_S3_FATTR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/str.h"

/* The user metadata keys, as headers. */
#define FATTR_H_MTIME "x-amz-meta-mtime"
#define FATTR_H_MODE "x-amz-meta-mode"
#define FATTR_H_UID "x-amz-meta-uid"
#define FATTR_H_GID "x-amz-meta-gid"
#define FATTR_H_S3CMD "x-amz-meta-s3cmd-attrs"

/* What a file keeps beside its bytes; each part only when its has_ flag is set. */
struct fattr {
    bool has_mtime, has_mode, has_uid, has_gid;
    int64_t mtime_s;        /* seconds since 1970 */
    int32_t mtime_ns;       /* 0..999,999,999 */
    uint32_t mode;          /* the permission bits, setuid, setgid and sticky (07777) */
    uint32_t uid, gid;
};

#define FATTR_INIT { false, false, false, false, 0, 0, 0, 0, 0 }

/* The text of an mtime as rclone writes it: "S" or "S.F" (no trailing zeros), NUL-ended. */
#define FATTR_MTIME_MAX 32
void fattr_mtime_format(int64_t s, int32_t ns, char out[FATTR_MTIME_MAX]);

/* An mtime as rclone writes it ("1700000000.5", "-1.25") or RFC 3339 (to the
 * second); false when 'v' is neither. */
bool fattr_mtime_parse(struct sv v, int64_t *s, int32_t *ns);

/*
 * The metadata values a reply carried, each an empty view when absent, into
 * 'a': rclone's keys first, s3cmd-attrs for what they do not give. Only the
 * parts that parse are set; the rest of 'a' is left as it was.
 */
struct fattr_meta {
    struct sv mtime, mode, uid, gid, s3cmd;
};
void fattr_from_meta(struct fattr *a, const struct fattr_meta *m);

#endif
