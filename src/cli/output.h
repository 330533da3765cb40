/*
 * output: the only writer to the terminal. Results go to stdout as text
 * lines or, with --json, one JSON object per line; errors go to stderr as
 * one line that names the operation:
 *   s3c: ERROR "rb s3://logs": The bucket you tried to delete is not empty (409 BucketNotEmpty)
 * Nothing here ever prints a credential: callers pass none.
 */
#ifndef S3C_CLI_OUTPUT_H
#define S3C_CLI_OUTPUT_H

#include <stdbool.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/err.h"

struct out_opts {
    bool json;          /* --json: results as JSON lines */
    bool quiet;         /* --quiet: no result lines, not even failures' (the AWS CLI's) */
    bool only_errors;   /* --only-show-errors */
    bool debug;         /* --debug: trace lines on stderr */
    bool no_progress;   /* --no-progress: no live status line */
};

void out_init(const struct out_opts *o);
const struct out_opts *out_opts(void);
/* A run file's line with options of its own (--json...): they hold until
 * out_line_opts(NULL) puts back those of out_init(). */
void out_line_opts(const struct out_opts *o);

/* A result line on stdout (suppressed by --quiet / --only-show-errors). */
void out_line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Raw text on stdout, never suppressed (ls output, JSON documents). */
void out_text(const char *s);

/*
 * Streams belong to the data: from this call on, stdout carries an object's
 * bytes (cat, cp s3://b/k -, such a line in a run file), so everything this
 * module would write there (result lines, --json records, --stat tables, a
 * run's summary, ls text) goes to stderr instead, for the rest of the process.
 * Called when a job that writes to stdout is made, before any of its bytes.
 */
void out_stdout_is_data(void);

/*
 * The live status line (progress): shown on stderr only when stderr is a
 * terminal and none of --quiet, --only-show-errors, --json or --no-progress
 * is on; every other line printed clears it first. out_status(NULL) clears
 * it for good.
 */
void out_status(const char *text);
bool out_status_enabled(void);

/*
 * Append 's' to 'b' as text output shows a name (result lines, ls, error
 * lines): well-formed UTF-8 as it is, but C0 controls, DEL, C1 controls
 * (U+0080..U+009F) and bytes that start no UTF-8 as \xNN, one per byte
 * (LF, CR and tab as \n, \r, \t). So a name is one line and cannot drive the
 * terminal. A backslash stays as it is: the text is for reading, --json
 * carries the exact bytes (json_str).
 */
void out_escape(struct buf *b, struct sv s);

/* One error line on stderr naming the operation 'op' (e.g. "ls s3://b"). */
void out_error(const char *op, const struct s3c_error *e);

/*
 * One object's outcome (cp, mv, sync, rm), in the AWS CLI's shapes:
 *   upload: a.txt to s3://b/a.txt                          (stdout; --quiet drops it)
 *   download failed: s3://b/k to x An error occurred (NoSuchKey) when calling
 *     the GetObject operation: The specified key does not exist.   (stderr, one line)
 *   warning: Skipping file s3://b/../x. key "../x" has a "." or ".." segment
 *                                  (stderr: e->code S3C_ESKIPPED, refused before it started)
 *   fatal error: An error occurred (NoSuchBucket) when calling the
 *     ListObjectsV2 operation: ...  (stderr: 'fatal', what failed is no one object)
 * or, with --json, one record on stdout whatever the outcome (docs/JSON.md).
 */
struct out_result {
    const char *op;             /* "upload", "download", "copy", "move", "delete" */
    const char *src;            /* as shown: s3://b/k or a local path */
    const char *dst;            /* as shown; NULL for a delete */
    uint64_t size;
    bool has_size;
    const char *version_id;     /* a delete of one version; NULL */
    bool dryrun;
    bool fatal;                 /* no one object's: a listing or walk failed, the
                                   command stops; 'op' is the verb, src/dst its arguments */
    const char *left;           /* nothing done, as asked (-n, -s, -u): why, in s5cmd's words;
                                   a --json record only, as neither CLI prints a line */
};
void out_result(const struct out_result *r, const struct s3c_error *e);
/* The same, a success saying its outcome: 'status' a word for --json's "status" (restore:
 * "started"...), 'note' words for the text line, after it in parentheses; either may be NULL. */
void out_result_said(const struct out_result *r, const char *status, const char *note, const struct s3c_error *e);
/*
 * A store's error as the AWS CLI prints one outside a transfer (ls, head):
 * "An error occurred (NoSuchBucket) when calling the ListObjectsV2
 * operation: ..." (the CLI puts a blank line before it; one line here); an
 * error without the store's code as out_error(op, e).
 */
void out_aws_error(const char *op, const struct s3c_error *e);

/* A usage/config error line: "s3c: <msg>" (and a hint to `s3c help`). */
void out_usage_error(const struct s3c_error *e);
/* Where the lines that follow come from, put before them ("cmds:12: " in a
 * run file; NULL or "" for none). Borrowed: must outlive its use. */
void out_set_origin(const char *where);
/*
 * A run file's output in line order (issue 23: `run` keeps order). When
 * stdout is no terminal, out_order_lines() turns it on; each line then
 * opens a slot, in line order, and writes only while it is in use
 * (out_slot_use). The oldest slot not closed writes through; the others'
 * lines, stdout's and stderr's alike, are held until every slot before
 * theirs is closed, then written as they came. out_slot_may_grow() is false
 * for a slot behind the head once 16 MiB are held: its line should be asked
 * for no more work until the head moves, so memory stays flat. With order
 * off, out_slot_open() is NULL and a NULL slot writes through.
 */
struct out_slot;
void out_order_lines(void);
struct out_slot *out_slot_open(void);
void out_slot_use(struct out_slot *s);
void out_slot_close(struct out_slot *s);
bool out_slot_may_grow(const struct out_slot *s);
bool out_slots_full(void);

/* Whether a warning that only informs is shown: not with --quiet or --only-show-errors. */
bool out_warnings_shown(void);
/* A warning line on stderr. */
void out_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* --debug trace sink (matches http_loop_opts.debug). */
void out_debug(void *ctx, const char *line);

/*
 * JSON objects built field by field into a buf:
 *   struct json j = JSON_INIT; json_str(&j, "key", k); json_u64(&j, "size", n); json_end(&j);
 * json_end prints the line and resets j.
 */
struct json {
    struct buf b;
    int fields;
};

#define JSON_INIT { BUF_INIT(1 << 20), 0 }

/* "name":"value"; and when 'value' is not UTF-8, also "name_base64": its bytes. */
void json_str(struct json *j, const char *name, const char *value);
void json_u64(struct json *j, const char *name, uint64_t value);
void json_i64(struct json *j, const char *name, int64_t value);
void json_bool(struct json *j, const char *name, bool value);
/* 'raw' is already JSON (an object or array). */
void json_raw(struct json *j, const char *name, const char *raw);
/* Print the object as one line on stdout (stderr: out_stdout_is_data) and reset 'j'. */
void json_end(struct json *j);
/* Finish the object into 'out' instead of printing it (for nesting), and reset 'j'. */
void json_end_into(struct json *j, struct buf *out);
/*
 * Append 's' as a JSON string literal (quoted, escaped) to 'b'. A byte that
 * starts no well-formed UTF-8 sequence cannot be in JSON text: it is written
 * as the six characters \\xNN (the text \xNN once parsed), as out_escape()
 * shows it; json_str() then adds the exact bytes as NAME_base64.
 */
void json_escape(struct buf *b, const char *s);

#endif
