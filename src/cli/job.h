/*
 * job: one command line's work on the transfer engine. cp, mv, rm and sync
 * each build a job from their arguments; job_run() runs one job alone, and
 * `run FILE` runs many jobs on one engine, so that their objects share the
 * in-flight cap and their deletes share DeleteObjects batches.
 *
 * A job is a stream of engine objects (struct xfer_obj) plus the results of
 * those objects. The engine calls next() when it has room and done() when an
 * object ends; every call is on the engine's thread, never re-entered. Each
 * object a job yields carries the job in o->owner (set by the driver), so
 * one engine can route results of many jobs.
 *
 * Lifecycle:
 *   xxx_job_new(c, verb, argc, argv, &job, &e)  parse flags and ends; usage errors
 *                                               come back as S3C_EUSAGE in 'e'
 *   job_run(c, job)    or    run: many jobs, one engine
 *   job->ops->finish(job, engine_rc)            flush, last lines; the job's result
 *   job->ops->free(job)
 */
#ifndef S3C_CLI_JOB_H
#define S3C_CLI_JOB_H

#include <stdbool.h>
#include <stdint.h>

#include "cli/cmd.h"
#include "plan/shard.h"
#include "plan/walk.h"
#include "xfer/xfer.h"

struct job;

struct job_ops {
    /* Next object for the engine: XFER_NEXT_ONE with *out set, XFER_NEXT_END when
     * the job has no more, XFER_NEXT_WAIT when more may come once one of the
     * job's objects in flight is done (mv's source deletes), XFER_NEXT_LATER
     * (only when later_ok) while a listing's next page is out on the loop. */
    int (*next)(struct job *j, struct xfer_obj **out);
    /* One of this job's objects finished; 'e' NULL on success. The engine
     * frees the object after this returns. */
    void (*done)(struct job *j, const struct xfer_obj *o, const struct s3c_error *e);
    /* Prepare (first use of the store, the first listing page): called once
     * before the engine runs; an error here fails the job (already reported). */
    enum s3c_err (*start)(struct job *j);
    /* The engine drained (engine_rc: S3C_ECANCEL when interrupted): print what
     * is left and return the job's result. */
    enum s3c_err (*finish)(struct job *j, enum s3c_err engine_rc);
    void (*free)(struct job *j);
};

/* Engine knobs a command line may set; zero means "from the configuration, else adaptive". */
struct job_knobs {
    int concurrency;
    int loops;                      /* --loops N: event loops (threads); 0: S3C_LOOPS, else one per core */
    bool hedge_writes_set;          /* --hedge-writes given; else S3C_HEDGE_WRITES, else auto */
    enum xfer_hedge_writes hedge_writes;
    uint64_t part_size;
    uint64_t bwlimit_bytes_s;
    uint64_t expected_size;
    bool no_progress;
    bool stat;                      /* --stat: a summary table at the end */
    bool resume;                    /* --resume: continue journaled multipart uploads and large downloads */
    struct shard shard;             /* --shard K/N|auto: only this shard's objects (plan/shard.h) */
    bool shard_set;                 /* --shard was given (run passes its own to lines without) */
    int page_size;                  /* --page-size N: keys a list request asks for (0: the store's 1000) */
};

/* What every job counts, for --stat and the exit code: per operation
 * (indexed by enum xfer_op; a move counts under its own row). */
enum { JOB_OP_MOVE = XFER_RESTORE + 1, JOB_N_OPS };
struct job_op_counts {
    uint64_t ok, failed, bytes;
};
struct job_counts {
    struct job_op_counts op[JOB_N_OPS];
    uint64_t ok, failed, skipped;
    uint64_t warned;                /* refused before they started (S3C_ESKIPPED): exit 2 */
    uint64_t bytes;
    enum s3c_err first_error;
    /* The engine's (job_count_engine): requests sent, duplicates of overdue
     * ones and those that answered first, slow transfers sent again. */
    uint64_t requests, hedged, hedge_wins, slow_resent;
};

struct job {
    const struct job_ops *ops;
    const char *verb;               /* "cp", "mv", "rm", "sync" */
    struct cli_ctx *c;
    struct job_knobs knobs;
    struct job_counts n;
    bool dryrun;                    /* --dryrun: see job_dryrun() */
    uint64_t one_size;              /* a single object's size, for the progress line's ETA */
    bool reads_only;                /* writes no bucket (a download): ReadOnly S3 Express sessions */
    bool writes_stdout;             /* an object's bytes to stdout (cp s3://b/k -) */
    struct store_s3 *src_s3;        /* S3 to S3: the source side's store when it has its own settings
                                       (objopts_source_store), set by start(); NULL: the run's */
    bool src_deletes;               /* ... and the deletes are of sources (mv) */
    bool relay_copies;              /* ... on another service: copies move the bytes through s3c */
    bool later_ok;                  /* next() may answer XFER_NEXT_LATER (set by the engine's drivers,
                                       job_run and run; a dry run's loop waits for pages itself). Set
                                       before start() when that runs on the engine (run's jobs): what
                                       start() would wait for (a manifest, a single source's HEAD)
                                       is then sent, and next() answers LATER until it is over */
};

/* The flags of struct job_knobs as args_parse specs: append them to a verb's table.
 * JOB_KNOB_SPECS(k, raw) where 'raw' is a struct job_knob_args. */
struct job_knob_args {
    const char *numworkers, *concurrency, *loops, *part_size, *bwlimit, *expected_size, *shard, *hedge_writes;
    const char *page_size;
    bool no_progress, stat, resume;
};
#define JOB_KNOB_SPECS(a)                                               \
    { "--numworkers", NULL, ARG_STR, &(a)->numworkers },                \
    { "--concurrency", NULL, ARG_STR, &(a)->concurrency },              \
    { "--loops", NULL, ARG_STR, &(a)->loops },                          \
    { "--part-size", NULL, ARG_STR, &(a)->part_size },                  \
    { "--bwlimit", NULL, ARG_STR, &(a)->bwlimit },                      \
    { "--expected-size", NULL, ARG_STR, &(a)->expected_size },          \
    { "--no-progress", NULL, ARG_BOOL, &(a)->no_progress },             \
    { "--stat", NULL, ARG_BOOL, &(a)->stat },                           \
    { "--resume", NULL, ARG_BOOL, &(a)->resume },                       \
    { "--hedge-writes", NULL, ARG_STR, &(a)->hedge_writes },            \
    { "--page-size", NULL, ARG_STR, &(a)->page_size }
/* --shard, for the verbs that shard (cp, mv, rm, sync, run). */
#define JOB_SHARD_SPEC(a) { "--shard", NULL, ARG_STR, &(a)->shard }

/* Check and convert the parsed knob flags into j->knobs (S3C_EUSAGE with a message naming the verb).
 * --shard auto reads the process's environment. s5cmd's globals given before the verb (j->c->g:
 * --dry-run, --stat, --numworkers) count as the verb's own flags, which win. */
enum s3c_err job_knobs_parse(struct job *j, const struct job_knob_args *a, struct s3c_error *e);

/* The engine options for 'j' (configuration, then the job's knobs); next/done/progress left for the driver. */
void job_engine_opts(const struct job *j, struct xfer_opts *xo);

/* A dry run: every object next() yields goes straight to done(o, NULL), which
 * prints its "(dryrun) ..." line and neither counts nor deletes anything.
 * S3C_ECANCEL when a stop was asked (base/stop.h), else S3C_OK. */
enum s3c_err job_dryrun(struct job *j);

/* Run one job to completion on its own engine: start, engine (or job_dryrun), finish, --stat. */
enum s3c_err job_run(struct job *j);

/* Account one finished object of operation 'op' (enum xfer_op or JOB_OP_MOVE)
 * into j->n: failed when e != NULL (first_error keeps the first code), warned
 * when e->code is S3C_ESKIPPED. */
void job_count(struct job *j, int op, uint64_t bytes, const struct s3c_error *e);

/*
 * walk_opts.tmp_of for every walk of a local tree: whether the file 'name' (in
 * the directory open as 'dfd'), named like a download's temp file, is one. Only
 * what s3c made counts: a temp file a running s3c writes now (fs_tmp_in_use:
 * it holds a lock on it), or one an interrupted run kept for --resume (the
 * download journal names that very file). Anything else is the user's file.
 */
enum walk_tmp job_tmp_of(void *ctx, int dfd, const char *name);
/* True when the object named 'rel' (relative to the job's source root) is this shard's. */
bool job_owns(const struct job *j, struct sv rel);

/*
 * An upload whose file could not be opened (unreadable, or gone since the
 * walk saw it) is skipped, as the AWS CLI skips such files (exit 2): 'e'
 * rewritten as S3C_ESKIPPED into 'out', which is returned; else 'e'.
 */
const struct s3c_error *job_skip_unreadable(const struct xfer_obj *o, const struct s3c_error *e,
                                            struct s3c_error *out);

/*
 * The AWS CLI's Glacier rule (awscli s3 FileInfo.is_glacier_compatible): a
 * download or copy of an object of storage class GLACIER or DEEP_ARCHIVE
 * fails unless restored ('restore', its x-amz-restore, NULL when unknown as
 * in a listing, says ongoing-request="false"). Such an object is skipped:
 * true, with the CLI's warning as 'op' says it ("download" or "copy", mv's too)
 * and exit 2, or silently with --ignore-glacier-warnings ('ignore'). False
 * (go on) for any other object, and with --force-glacier-transfer ('force').
 */
bool job_glacier_skip(struct job *j, int count_op, const char *op, const char *src_shown, const char *storage_class,
                      const char *restore, bool force, bool ignore);
/* The job failed to start with 'rc' (told already): its result is that failure. For a start
 * failure run meets at start(), and for one a job meets later, in next(), when what it started
 * (a manifest's GET, a single source's HEAD) is a request in flight there. */
void job_start_failed(struct job *j, enum s3c_err rc);

/* Account one object skipped on purpose (-n, --no-overwrite, unchanged in sync). */
void job_skip(struct job *j);

/*
 * A file given where --recursive (or sync) wants a directory: skipped as the
 * AWS CLI skips it ("warning: Skipping file /abs/FILE/. File does not
 * exist.", the walk of FILE/ finding nothing), counted under 'op' (its
 * --json record's "operation" is 'word'): exit 2. Returns S3C_ESKIPPED.
 */
enum s3c_err skip_not_a_dir(struct job *j, const char *arg, int op, const char *word);

/* 'path' as the AWS CLI names a directory in its messages: absolute, normalised, with a trailing
 * '/' ("/home/u/d/"); 'path' itself when that cannot be made. Into 'out'. */
void job_abs_dir(const char *path, struct buf *out);
/* Add 'from' into 'to' (run's totals). */
void job_counts_add(struct job_counts *to, const struct job_counts *from);

/* Add what an engine run counted (xfer_run's stats) to 'n', for --stat. */
void job_count_engine(struct job_counts *n, const struct xfer_stats *st);
/* The job's result from its counts: S3C_OK, the first failure's code, or
 * S3C_ESKIPPED when nothing failed but something was skipped with a warning. */
enum s3c_err job_result(const struct job *j);

/* The --stat summary table (or one JSON line with --json), on stdout; with a
 * shard (n > 1) the line names it ("shard": K, "shards": N), so a driver can
 * add up the lines of all the shards (README: "Many machines"); with 's3'
 * (may be NULL) a "session" row of its S3 Express CreateSession calls. */
void job_print_stat(const struct job_counts *n, const struct shard *sh, struct store_s3 *s3);

/* The live status line for an engine's stats ('ok' objects done; one_size: ETA for one object). */
void job_progress_line(const struct xfer_stats *st, uint64_t ok, uint64_t one_size);

/* After the engine: the line for an interrupted run, and --debug's engine summary. */
void job_engine_report(enum s3c_err engine_rc, const struct xfer_stats *st, bool resume);

/* The job constructors. */
enum s3c_err cp_job_new(struct cli_ctx *c, const char *verb, int argc, char **argv,
                        struct job **out, struct s3c_error *e);   /* cp and mv */
enum s3c_err rm_job_new(struct cli_ctx *c, const char *verb, int argc, char **argv,
                        struct job **out, struct s3c_error *e);   /* rm and restore */
enum s3c_err sync_job_new(struct cli_ctx *c, const char *verb, int argc, char **argv,
                          struct job **out, struct s3c_error *e);

#endif
