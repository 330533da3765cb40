/*
 * run FILE|-: one s3c command a line, executed in this process. Lines that
 * move or delete objects (cp, mv, rm, restore, sync) become jobs on ONE engine, so
 * their objects share the in-flight cap and their deletes share batches;
 * they run in parallel, in no promised order (as s5cmd's run). Any other
 * verb (mb, rb, ls, head, ...) is a barrier: the jobs before it finish,
 * then it runs, then the lines after it start. Lines are read as the engine
 * asks for work, and a job is freed once its last object is done, so memory
 * stays flat however long the file.
 *
 * The exit code is the whole file's: 0 when every line succeeded, 1 when
 * any failed (a line that does not parse is a failed line, reported with
 * its number), 2 when lines only skipped files (as cp's), 130 when interrupted.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/stop.h"
#include "cli/args.h"
#include "cli/job.h"
#include "cli/output.h"
#include "cli/words.h"

#define RUN_LINE_MAX (1 << 20)

typedef enum s3c_err (*job_new_fn)(struct cli_ctx *c, const char *verb, int argc, char **argv,
                                   struct job **out, struct s3c_error *e);

static const struct {
    const char *verb;
    job_new_fn make;
} job_verbs[] = {
    { "cp", cp_job_new },
    { "mv", cp_job_new },
    { "sync", sync_job_new },
    { "rm", rm_job_new },
    { "restore", rm_job_new },
    { NULL, NULL },
};

/* A job of the file, with the words it points into. */
struct run_job {
    struct job *job;
    struct buf words;
    uint64_t inflight;      /* objects yielded, not yet done */
    bool ended;             /* next() said END */
    bool waiting;           /* next() said WAIT: ask again after a done */
    struct out_opts out;    /* the run's output options, and the line's own (--json...) */
    struct out_slot *slot;  /* its place in the output's line order */
    unsigned long line;
    struct run_job *next_live;
    struct run_job *next_over;  /* on run.over */
};

struct run {
    struct cli_ctx *c;
    FILE *in;
    const char *name;       /* the file's name, for error lines */
    unsigned long line;
    char *linebuf;
    size_t linecap;
    bool eof;
    char **barrier;         /* a non-job line waiting for the engine to drain */
    int barrier_argc;
    struct buf barrier_words;
    unsigned long barrier_line;
    struct out_opts barrier_out;
    struct out_opts out;    /* the run's own output options */
    struct run_job *cur;    /* the job being read for objects */
    struct run_job *live;   /* every job not yet finished (cur included) */
    struct run_job *over;   /* jobs whose last object is done, to close at the next next() */
    struct job_counts total;
    uint64_t lines_ok, lines_failed;
    enum s3c_err first_error;
    bool cancelled;
    struct shard shard;     /* run --shard: for every line that has none of its own */
};

static void line_failed(struct run *r, enum s3c_err rc)
{
    r->lines_failed++;
    /* A line that failed beats one that only skipped (exit 1 over 2). */
    if (!r->first_error || (r->first_error == S3C_ESKIPPED && rc != S3C_ESKIPPED))
        r->first_error = rc == S3C_EUSAGE || rc == S3C_ECONFIG ? S3C_EPARSE : rc;
}

/* Error lines name the file and line they come from: "s3c: cmds:12: ...";
 * the line's own output options ('o', NULL for the run's) and its place in
 * the output's order ('slot') hold until leave(). */
static void set_origin(struct run *r, unsigned long line, const struct out_opts *o, struct out_slot *slot)
{
    static char where[512];

    snprintf(where, sizeof(where), "%s:%lu: ", r->name, line);
    out_set_origin(where);
    out_line_opts(o);
    out_slot_use(slot);
}

static void leave(void)
{
    out_set_origin(NULL);
    out_line_opts(NULL);
    out_slot_use(NULL);
}

/* A line that failed before it ran: its error in its place, 'slot' (the line's own, or a new one);
 * with --json a record, with s5cmd's "command" (the line) and "error". */
static void line_error_in(struct run *r, unsigned long line, struct out_slot *slot, const struct s3c_error *e)
{
    set_origin(r, line, NULL, slot);
    if (out_opts()->json) {
        struct json j = JSON_INIT;

        json_str(&j, "operation", "run");
        json_bool(&j, "success", false);
        json_str(&j, "source", r->name);
        json_u64(&j, "line", line);
        json_str(&j, "command", r->linebuf ? r->linebuf : "");
        json_str(&j, "error", e->msg);
        json_end(&j);
    } else {
        out_usage_error(e);
    }
    leave();
    out_slot_close(slot);
    line_failed(r, e->code);
}

static void line_error(struct run *r, unsigned long line, const struct s3c_error *e)
{
    line_error_in(r, line, out_slot_open(), e);
}

/* Finish and free a job whose objects are all done. */
static void job_close(struct run *r, struct run_job *rj)
{
    struct run_job **pp;
    enum s3c_err rc;

    for (pp = &r->live; *pp; pp = &(*pp)->next_live)
        if (*pp == rj) {
            *pp = rj->next_live;
            break;
        }
    if (r->cur == rj)
        r->cur = NULL;
    set_origin(r, rj->line, &rj->out, rj->slot);
    rc = rj->job->ops->finish(rj->job, r->cancelled ? S3C_ECANCEL : S3C_OK);
    leave();
    out_slot_close(rj->slot);
    job_counts_add(&r->total, &rj->job->n);
    if (rc)
        line_failed(r, rc);
    else
        r->lines_ok++;
    rj->job->ops->free(rj->job);
    buf_release(&rj->words);
    free(rj);
}

static void close_if_done(struct run *r, struct run_job *rj)
{
    if (rj->ended && !rj->inflight)
        job_close(r, rj);
}

/* Read the next non-blank line into words; 0 at EOF. */
static int read_line(struct run *r, struct buf *words, char **argv, int *argc)
{
    for (;;) {
        struct s3c_error e = S3C_ERROR_INIT;
        ssize_t n = getline(&r->linebuf, &r->linecap, r->in);

        if (n < 0) {
            if (ferror(r->in)) {
                s3c_fail_errno(&e, errno, "cannot read %s", r->name);
                line_error(r, r->line, &e);
            }
            r->eof = true;
            return 0;
        }
        r->line++;
        if (n > RUN_LINE_MAX) {
            s3c_fail(&e, S3C_EUSAGE, "line longer than %d bytes", RUN_LINE_MAX);
            line_error(r, r->line, &e);
            continue;
        }
        while (n && (r->linebuf[n - 1] == '\n' || r->linebuf[n - 1] == '\r'))
            r->linebuf[--n] = '\0';
        if (words_split(r->linebuf, words, argv, argc, &e)) {
            line_error(r, r->line, &e);
            continue;
        }
        if (*argc)
            return 1;
    }
}

static job_new_fn job_maker(const char *verb)
{
    int i;

    for (i = 0; job_verbs[i].verb; i++)
        if (!strcmp(job_verbs[i].verb, verb))
            return job_verbs[i].make;
    return NULL;
}

/* A barrier: the line keeps its words until the engine has drained; 'rj' is freed. */
static void set_barrier(struct run *r, struct run_job *rj, char **argv, int argc)
{
    r->barrier_words = rj->words;
    r->barrier = argv;
    r->barrier_argc = argc;
    r->barrier_line = rj->line;
    r->barrier_out = rj->out;
    free(rj);
}

/*
 * Start the job of the next line. Returns the job, or NULL when the file
 * ended or a barrier line is waiting (r->barrier set). Lines that fail to
 * start are dealt with here; a dry-run job is read by run_next (dry_next),
 * its objects never reach the engine.
 */
static struct run_job *open_next_job(struct run *r)
{
    static char *argv[WORDS_MAX];

    while (!r->eof && !r->barrier) {
        struct run_job *rj = calloc(1, sizeof(*rj));
        struct s3c_error e = S3C_ERROR_INIT;
        job_new_fn make;
        int argc = 0;
        enum s3c_err rc;

        if (!rj) {
            s3c_fail(&e, S3C_ENOMEM, "out of memory");
            line_error(r, r->line, &e);
            r->eof = true;
            return NULL;
        }
        rj->words = (struct buf)BUF_INIT(2 * RUN_LINE_MAX);
        if (!read_line(r, &rj->words, argv, &argc)) {
            buf_release(&rj->words);
            free(rj);
            return NULL;
        }
        rj->line = r->line;
        rj->out = r->out;
        if (cli_line_globals(&argc, argv, &rj->out, &e)) {
            line_error(r, rj->line, &e);
            buf_release(&rj->words);
            free(rj);
            continue;
        }
        /* One live status line for the whole run: a line's --no-progress turns it off. */
        r->out.no_progress |= rj->out.no_progress;
        make = job_maker(argv[0]);
        if (!make) {
            set_barrier(r, rj, argv, argc);
            return NULL;
        }
        rj->slot = out_slot_open();
        set_origin(r, rj->line, &rj->out, rj->slot); /* (what making the job says is the line's) */
        rc = make(r->c, argv[0], argc - 1, argv + 1, &rj->job, &e);
        leave();
        if (rc) {
            line_error_in(r, rj->line, rj->slot, &e);
            buf_release(&rj->words);
            free(rj);
            continue;
        }
        if (rj->job->writes_stdout && r->live) {
            /* Its bytes would pass what lines before it still write: it runs alone, after them. */
            rj->job->ops->free(rj->job);
            out_slot_close(rj->slot);
            set_barrier(r, rj, argv, argc);
            return NULL;
        }
        if (!rj->job->knobs.shard_set)
            rj->job->knobs.shard = r->shard;
        set_origin(r, rj->line, &rj->out, rj->slot);
        /* start() runs inside the engine's next(): what it sends (a manifest, a single
         * source's HEAD) goes in flight, and a listing's page, never waited for on the loop. */
        rj->job->later_ok = true;
        rc = rj->job->ops->start ? rj->job->ops->start(rj->job) : S3C_OK;
        rj->next_live = r->live;
        r->live = rj;
        if (rc) {
            rj->ended = true;
            job_start_failed(rj->job, rc); /* start() reported it */
            job_close(r, rj);
            continue;
        }
        leave();
        return rj;
    }
    return NULL;
}

/* The job's next(), with its error lines naming its line. */
static int job_next_of(struct run *r, struct run_job *rj, struct xfer_obj **out)
{
    int n;

    if (!out_slot_may_grow(rj->slot))
        return XFER_NEXT_WAIT; /* its output is held behind a line still running: no more of it yet */
    set_origin(r, rj->line, &rj->out, rj->slot);
    n = rj->job->ops->next(rj->job, out);
    leave();
    return n;
}

/*
 * A dry-run line, on the engine as the others: what its next() yields goes
 * straight to done() (job_dryrun's rule), as far as it goes now;
 * XFER_NEXT_LATER while its page (or HEAD) is out, else XFER_NEXT_END.
 */
static int dry_next(struct run *r, struct run_job *rj)
{
    struct xfer_obj *o;
    int n;

    while (!stop_requested() && (n = job_next_of(r, rj, &o)) == XFER_NEXT_ONE) {
        o->owner = rj->job;
        set_origin(r, rj->line, &rj->out, rj->slot);
        rj->job->ops->done(rj->job, o, NULL);
        leave();
        xfer_obj_free(o);
    }
    if (stop_requested())
        return XFER_NEXT_END;
    return n == XFER_NEXT_LATER || n == XFER_NEXT_WAIT ? n : XFER_NEXT_END; /* (WAIT: its output is held) */
}

/* The line's next(): a dry run's objects go to done() here, never to the engine. */
static int line_next(struct run *r, struct run_job *rj, struct xfer_obj **out)
{
    return rj->job->dryrun ? dry_next(r, rj) : job_next_of(r, rj, out);
}

static int run_next(void *ctx, struct xfer_obj **out)
{
    struct run *r = ctx;
    struct run_job *rj, *nx;
    bool any_wait = false, any_later = false;

    /* Jobs done with: closed now (the engine no longer holds their objects), so
     * their output's place moves on and the lines held behind it come out. */
    while ((rj = r->over)) {
        r->over = rj->next_over;
        job_close(r, rj);
    }
    /* Jobs that said WAIT may have work now that something finished. */
    for (rj = r->live; rj; rj = nx) {
        nx = rj->next_live;
        if (!rj->waiting)
            continue;
        switch (line_next(r, rj, out)) {
        case XFER_NEXT_ONE:
            (*out)->owner = rj;
            rj->inflight++;
            return XFER_NEXT_ONE;
        case XFER_NEXT_WAIT:
            any_wait = true;
            break;
        case XFER_NEXT_LATER:
            any_later = true; /* still waiting: its page is out */
            break;
        default:
            rj->waiting = false;
            rj->ended = true;
            close_if_done(r, rj);
        }
    }
    for (;;) {
        if (!r->cur && r->live && out_slots_full())
            any_wait = true; /* held output at its bound: no new line until the head's moves */
        else if (!r->cur)
            r->cur = open_next_job(r);
        if (!r->cur)
            return any_later ? XFER_NEXT_LATER : any_wait ? XFER_NEXT_WAIT : XFER_NEXT_END;
        rj = r->cur;
        switch (line_next(r, rj, out)) {
        case XFER_NEXT_ONE:
            (*out)->owner = rj;
            rj->inflight++;
            return XFER_NEXT_ONE;
        case XFER_NEXT_WAIT:
            rj->waiting = true;
            any_wait = true;
            r->cur = NULL;
            break;
        case XFER_NEXT_LATER:
            return XFER_NEXT_LATER; /* the current line's listing: the lines after it wait their turn */
        default:
            rj->ended = true;
            r->cur = NULL;
            close_if_done(r, rj);
        }
    }
}

static void run_done(void *ctx, const struct xfer_obj *o, const struct s3c_error *e)
{
    struct run *r = ctx;
    struct run_job *rj = o->owner;

    set_origin(r, rj->line, &rj->out, rj->slot);
    if (o->warning)
        out_warn("%s", o->warning);
    rj->job->ops->done(rj->job, o, e);
    leave();
    rj->inflight--;
    /* Closing frees the job: done later, from next() or the end of the engine,
     * since the engine still holds 'o' (whose options live in the job). */
    if (rj->ended && !rj->inflight && !rj->waiting) {
        rj->next_over = r->over;
        r->over = rj;
    }
}

static void run_progress(void *ctx, const struct xfer_stats *st)
{
    struct run *r = ctx;
    uint64_t ok = r->total.ok;
    struct run_job *rj;

    for (rj = r->live; rj; rj = rj->next_live)
        ok += rj->job->n.ok;
    job_progress_line(st, ok, 0);
}

/* Close every job that has ended with nothing in flight (after a drain: all of them). */
static void close_finished(struct run *r)
{
    struct run_job *rj, *nx;

    r->over = NULL; /* (all of them live, with nothing in flight: closed below) */
    for (rj = r->live; rj; rj = nx) {
        nx = rj->next_live;
        if (r->cancelled || !rj->inflight) {
            rj->ended = true;
            rj->inflight = 0;
            job_close(r, rj);
        }
    }
}

/*
 * Streams belong to the data: a file with a line that writes an object to
 * stdout (cat, cp s3://b/k -) has every record on stderr from its first line
 * on, not only from that line's (making such a cp job calls
 * out_stdout_is_data). A file that can be read twice is read through for them
 * first; from stdin the lines ahead are unknown, so records of lines before
 * the first such one go to stdout, ahead of the object's bytes.
 */
static void run_scan_streams(struct run *r)
{
    static char *argv[WORDS_MAX];
    struct buf words = BUF_INIT(2 * RUN_LINE_MAX);
    struct stat st;
    ssize_t n;

    if (fstat(fileno(r->in), &st) || !S_ISREG(st.st_mode))
        return;
    while ((n = getline(&r->linebuf, &r->linecap, r->in)) >= 0) {
        struct s3c_error e = S3C_ERROR_INIT;
        struct out_opts o = r->out;
        struct job *j = NULL;
        int argc = 0, i;

        while (n && (r->linebuf[n - 1] == '\n' || r->linebuf[n - 1] == '\r'))
            r->linebuf[--n] = '\0';
        if (n > RUN_LINE_MAX || words_split(r->linebuf, &words, argv, &argc, &e) || !argc ||
            cli_line_globals(&argc, argv, &o, &e))
            continue; /* blank, or reported when the line is run */
        if (!strcmp(argv[0], "cat")) {
            out_stdout_is_data();
            break;
        }
        for (i = 1; i < argc && strcmp(argv[i], "-"); i++)
            ;
        /* cp decides what "-" is (its parse calls out_stdout_is_data); nothing is sent. */
        if (i < argc && !strcmp(argv[0], "cp") && !cp_job_new(r->c, argv[0], argc - 1, argv + 1, &j, &e))
            j->ops->free(j);
    }
    buf_release(&words);
    rewind(r->in); /* (clears EOF and errors: read_line sees them anew) */
}

static enum s3c_err run_file(struct run *r, struct job *knobs)
{
    struct xfer_opts xo;
    struct xfer_stats st;
    struct s3c_error e = S3C_ERROR_INIT;
    struct store_s3 *s3 = cli_s3(r->c, &e);

    if (!s3) {
        out_error("run", &e);
        return e.code;
    }
    while (!r->cancelled) {
        enum s3c_err erc;

        job_engine_opts(knobs, &xo);
        xo.next = run_next;
        xo.next_ctx = r;
        xo.done = run_done;
        xo.done_ctx = r;
        if (!knobs->knobs.no_progress && !r->out.no_progress && out_status_enabled()) {
            xo.progress = run_progress;
            xo.progress_ctx = r;
        }
        memset(&st, 0, sizeof(st));
        erc = xfer_run(s3, &xo, &st);
        job_engine_report(erc, &st, knobs->knobs.resume);
        job_count_engine(&r->total, &st);
        if (erc == S3C_ECANCEL)
            r->cancelled = true;
        close_finished(r);
        if (r->cancelled || (!r->barrier && r->eof))
            break;
        if (!r->barrier)
            continue; /* the engine ran dry with lines unread (all waiting on held output): on */
        /* The barrier line runs alone, now that everything before it is done. */
        {
            cli_verb_fn fn = r->c->verb ? r->c->verb(r->barrier[0]) : NULL;
            enum s3c_err rc;

            if (!fn || !strcmp(r->barrier[0], "run")) {
                s3c_fail(&e, S3C_EUSAGE, "\"%s\" cannot run in a run file", r->barrier[0]);
                line_error(r, r->barrier_line, &e);
            } else {
                set_origin(r, r->barrier_line, &r->barrier_out, NULL); /* every line before it is out */
                rc = fn(r->c, r->barrier_argc - 1, r->barrier + 1);
                leave();
                if (rc)
                    line_failed(r, rc);
                else
                    r->lines_ok++;
            }
            buf_release(&r->barrier_words);
            r->barrier = NULL;
        }
    }
    return S3C_OK;
}

enum s3c_err cmd_run(struct cli_ctx *c, int argc, char **argv)
{
    struct run r;
    struct job knobs;
    struct job_knob_args ka;
    const struct arg_spec specs[] = {
        JOB_KNOB_SPECS(&ka),
        JOB_SHARD_SPEC(&ka),
        { NULL, NULL, 0, NULL },
    };
    struct s3c_error e = S3C_ERROR_INIT;
    const char *pos[1];
    int n_pos = 0;
    enum s3c_err rc;

    c->run_file = true; /* its lines share one engine, so one source side (cli_s3_source) */
    memset(&r, 0, sizeof(r));
    memset(&knobs, 0, sizeof(knobs));
    memset(&ka, 0, sizeof(ka));
    knobs.c = c;
    knobs.verb = "run";
    rc = args_parse("run", specs, argc, argv, pos, 1, &n_pos, &e);
    if (!rc && n_pos != 1)
        rc = s3c_fail(&e, S3C_EUSAGE, "run: expected one FILE, or - for standard input");
    if (!rc)
        rc = job_knobs_parse(&knobs, &ka, &e);
    if (rc) {
        out_usage_error(&e);
        return rc;
    }
    r.c = c;
    r.out = *out_opts();
    r.shard = knobs.knobs.shard;
    r.name = strcmp(pos[0], "-") ? pos[0] : "-";
    r.in = strcmp(pos[0], "-") ? fopen(pos[0], "r") : stdin;
    if (!r.in) {
        s3c_fail_errno(&e, errno, "run: cannot open %s", pos[0]);
        out_usage_error(&e);
        return S3C_EUSAGE;
    }
    out_order_lines();
    run_scan_streams(&r);
    rc = run_file(&r, &knobs);
    if (r.in != stdin)
        fclose(r.in);
    free(r.linebuf);
    buf_release(&r.barrier_words);
    if (rc)
        return rc;
    if (knobs.knobs.stat)
        job_print_stat(&r.total, &r.shard, c->s3);
    if (out_opts()->json) {
        struct json j = JSON_INIT;
        json_str(&j, "operation", "run");
        json_u64(&j, "lines_ok", r.lines_ok);
        json_u64(&j, "lines_failed", r.lines_failed);
        json_end(&j);
    } else if (r.lines_failed) {
        out_warn("run %s: %" PRIu64 " line(s) failed, %" PRIu64 " succeeded", r.name, r.lines_failed, r.lines_ok);
    }
    if (r.cancelled)
        return S3C_ECANCEL;
    return r.lines_failed ? (r.first_error ? r.first_error : S3C_EHTTP) : S3C_OK;
}
