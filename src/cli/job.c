#include "cli/job.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "auth/express.h"
#include "cli/args.h"
#include "cli/output.h"
#include "plan/filter.h"
#include "store/store_fs.h"
#include "base/stop.h"
#include "http/http.h"
#include "xfer/journal.h"

static enum s3c_err parse_count(const char *verb, const char *flag, const char *s, int max, int *out,
                                struct s3c_error *e)
{
    char *end;
    long v;

    if (!s)
        return S3C_OK;
    v = strtol(s, &end, 10);
    if (end == s || *end || v < 1 || v > max)
        return s3c_fail(e, S3C_EUSAGE, "%s: %s must be a whole number from 1 to %d, not \"%s\"", verb, flag, max, s);
    *out = (int)v;
    return S3C_OK;
}

extern char **environ;

/* "auto", "never" or "always" (--hedge-writes, S3C_HEDGE_WRITES); false for anything else. */
static bool hedge_writes_parse(const char *s, enum xfer_hedge_writes *out)
{
    if (!strcmp(s, "auto"))
        *out = XFER_HEDGE_WRITES_AUTO;
    else if (!strcmp(s, "never"))
        *out = XFER_HEDGE_WRITES_NEVER;
    else if (!strcmp(s, "always"))
        *out = XFER_HEDGE_WRITES_ALWAYS;
    else
        return false;
    return true;
}

enum s3c_err job_knobs_parse(struct job *j, const struct job_knob_args *a, struct s3c_error *e)
{
    struct job_knobs *k = &j->knobs;
    const char *verb = j->verb;
    const struct cli_globals *g = j->c ? &j->c->g : NULL;

    k->no_progress = a->no_progress;
    k->stat = a->stat || (g && g->stat);
    k->resume = a->resume;
    j->dryrun = j->dryrun || (g && g->dryrun);
    if (parse_count(verb, "--numworkers", a->numworkers ? a->numworkers : g ? g->numworkers : NULL, 100000,
                    &k->concurrency, e) ||
        parse_count(verb, "--concurrency", a->concurrency, 100000, &k->concurrency, e) ||
        parse_count(verb, "--loops", a->loops, XFER_LOOPS_MAX, &k->loops, e))
        return e->code;
    if (a->part_size && (!cfg_parse_size(sv_from(a->part_size), &k->part_size) ||
                         k->part_size < ((uint64_t)5 << 20) || k->part_size > ((uint64_t)5 << 30)))
        return s3c_fail(e, S3C_EUSAGE, "%s: --part-size must be a size from 5MiB to 5GiB, not \"%s\"", verb,
                        a->part_size);
    if (a->expected_size && !cfg_parse_size(sv_from(a->expected_size), &k->expected_size))
        return s3c_fail(e, S3C_EUSAGE, "%s: --expected-size must be a size, not \"%s\"", verb, a->expected_size);
    if (cli_page_size(verb, a->page_size, &k->page_size, e))
        return e->code;
    k->shard_set = a->shard != NULL;
    if (shard_parse(a->shard, environ, &k->shard, e)) {
        char why[sizeof(e->msg)];
        memcpy(why, e->msg, sizeof(why));
        return s3c_fail(e, S3C_EUSAGE, "%s: %.400s", verb, why);
    }
    if (a->bwlimit && (!cfg_parse_rate(sv_from(a->bwlimit), &k->bwlimit_bytes_s) || !k->bwlimit_bytes_s))
        return s3c_fail(e, S3C_EUSAGE, "%s: --bwlimit must be a rate like 50MB/s, not \"%s\"", verb, a->bwlimit);
    k->hedge_writes_set = a->hedge_writes != NULL;
    if (a->hedge_writes && !hedge_writes_parse(a->hedge_writes, &k->hedge_writes))
        return s3c_fail(e, S3C_EUSAGE, "%s: --hedge-writes must be auto, never or always, not \"%s\"", verb,
                        a->hedge_writes);
    return S3C_OK;
}

/* Where multipart uploads are journaled for --resume; NULL when no directory can be named. */
static const char *state_dir(void)
{
    static struct buf dir = BUF_INIT(4096);
    static bool done;
    struct s3c_error e = S3C_ERROR_INIT;

    if (!done) {
        done = true;
        if (journal_dir(environ, &dir, &e))
            buf_release(&dir);
    }
    return dir.len ? buf_cstr(&dir) : NULL;
}

/* S3C_LOOPS: the engine's event loops when --loops is not given (0: one per core). */
static int loops_from_env(void)
{
    const char *v = getenv("S3C_LOOPS");
    char *end;
    long n;

    if (!v || !*v)
        return 0;
    n = strtol(v, &end, 10);
    return *end || n < 1 ? 0 : n > XFER_LOOPS_MAX ? XFER_LOOPS_MAX : (int)n;
}

/*
 * S3C_HEDGE_BUDGET: duplicates of overdue requests allowed, in percent of the
 * requests sent (0 for none); unset or not a number from 0 to 100: the
 * engine's default (3%).
 */
static double hedge_budget(void)
{
    const char *v = getenv("S3C_HEDGE_BUDGET");
    char *end;
    double pct;

    if (!v || !*v)
        return 0;
    pct = strtod(v, &end);
    if (*end || !(pct >= 0 && pct <= 100))
        return 0;
    return pct == 0 ? -1 : pct / 100;
}

/* S3C_HEDGE_WRITES: --hedge-writes when the flag is not given; unset or not a mode: auto. */
static enum xfer_hedge_writes hedge_writes_env(void)
{
    const char *v = getenv("S3C_HEDGE_WRITES");
    enum xfer_hedge_writes w = XFER_HEDGE_WRITES_AUTO;

    if (v && *v)
        hedge_writes_parse(v, &w);
    return w;
}

void job_engine_opts(const struct job *j, struct xfer_opts *xo)
{
    const struct s3c_config *cfg = &j->c->cfg;
    const struct job_knobs *k = &j->knobs;

    memset(xo, 0, sizeof(*xo));
    /* Configuration, then flags. */
    xo->concurrency = k->concurrency                         ? k->concurrency
                      : cfg->s3.max_concurrent_requests.set ? (int)cfg->s3.max_concurrent_requests.value
                                                             : 0;
    xo->part_size = k->part_size ? k->part_size : cfg->s3.multipart_chunksize.set ? cfg->s3.multipart_chunksize.value : 0;
    xo->multipart_threshold = cfg->s3.multipart_threshold.set ? cfg->s3.multipart_threshold.value : 0;
    xo->bwlimit_bytes_s = k->bwlimit_bytes_s ? k->bwlimit_bytes_s
                          : cfg->s3.max_bandwidth.set ? cfg->s3.max_bandwidth.value : 0;
    xo->loops = k->loops ? k->loops : loops_from_env();
    if (xo->bwlimit_bytes_s && j->c->s3) {
        /* The read timeout's speed floor (http.h) under a bandwidth limit: a
         * quarter of each request's share of it at the most concurrency, so a
         * transfer slowed on purpose is never taken for a trickle. */
        uint64_t most = xo->concurrency > 0 ? (uint64_t)xo->concurrency : 512;
        uint64_t floor = xo->bwlimit_bytes_s / (4 * most);

        store_s3_speed_floor(j->c->s3, floor < HTTP_LOW_SPEED_BYTES_S ? (long)floor : HTTP_LOW_SPEED_BYTES_S);
    }
    xo->expected_size = k->expected_size;
    xo->verify = true;
    /* request_checksum_calculation = when_required: only what S3 demands (Content-MD5). */
    xo->flexible_checksums = cfg->request_checksum_calculation != CFG_WHEN_REQUIRED;
    /* response_checksum_validation = when_required: stored checksums only where --checksum-mode asks. */
    xo->checksum_mode_off = cfg->response_checksum_validation == CFG_WHEN_REQUIRED;
    xo->state_dir = state_dir();
    xo->resume = k->resume;
    xo->hedge_budget = hedge_budget();
    xo->hedge_writes = k->hedge_writes_set ? k->hedge_writes : hedge_writes_env();
}

enum walk_tmp job_tmp_of(void *ctx, int dfd, const char *name)
{
    const char *dir = state_dir();
    struct buf dest = BUF_INIT(8192);
    struct s3c_error e = S3C_ERROR_INIT;
    struct journal_download j;
    enum walk_tmp t = WALK_TMP_NO;
    char link[64], path[4096];
    struct stat a, b;
    size_t n = strlen(name);
    ssize_t got;

    if (fs_tmp_in_use(dfd, name))
        return WALK_TMP_LIVE;
    if (!dir || n < 5 + 1 + 13)
        return WALK_TMP_NO;
    /* ".s3c-" BASE ".XXXXXXXX.tmp" was made for the destination BASE beside it; a
     * journal keys a download on its destination's absolute path. */
    snprintf(link, sizeof(link), "/proc/self/fd/%d", dfd);
    got = readlink(link, path, sizeof(path) - 1);
    if (got <= 0)
        return WALK_TMP_NO;
    path[got] = '\0';
    if (buf_addf(&dest, "%s/%.*s", path, (int)(n - 5 - 13), name + 5) ||
        journal_download_load(dir, buf_cstr(&dest), &j, &e) != 1)
        goto out;
    /* That record's temp file, and no other file of the same name. */
    if (fstatat(dfd, name, &a, AT_SYMLINK_NOFOLLOW) == 0 && stat(j.tmp, &b) == 0 && a.st_dev == b.st_dev &&
        a.st_ino == b.st_ino)
        t = WALK_TMP_KEPT;
    journal_download_release(&j);
out:
    buf_release(&dest);
    return t;
}

void job_count(struct job *j, int op, uint64_t bytes, const struct s3c_error *e)
{
    struct job_op_counts *c = &j->n.op[op >= 0 && op < JOB_N_OPS ? op : XFER_COPY];

    if (e && e->code == S3C_ESKIPPED) {
        c->failed++;        /* not transferred: an error in --stat's table */
        j->n.warned++;      /* but the exit code is 2, not 1 (job_result) */
        return;
    }
    if (e) {
        c->failed++;
        j->n.failed++;
        /* A real error beats the cancellations it caused (a run-wide error stops the rest). */
        if (!j->n.first_error || (j->n.first_error == S3C_ECANCEL && e->code != S3C_ECANCEL))
            j->n.first_error = e->code == S3C_OK ? S3C_EHTTP : e->code;
        return;
    }
    c->ok++;
    c->bytes += bytes;
    j->n.ok++;
    j->n.bytes += bytes;
}

const struct s3c_error *job_skip_unreadable(const struct xfer_obj *o, const struct s3c_error *e,
                                            struct s3c_error *out)
{
    if (!e || o->op != XFER_UPLOAD || o->stdio || e->code != S3C_EIO ||
        (e->sys_errno != EACCES && e->sys_errno != EPERM && e->sys_errno != ENOENT))
        return e;
    *out = *e;
    out->code = S3C_ESKIPPED;
    return out;
}

bool job_owns(const struct job *j, struct sv rel)
{
    return shard_owns(&j->knobs.shard, rel);
}

bool job_glacier_skip(struct job *j, int count_op, const char *op, const char *src_shown, const char *storage_class,
                      const char *restore, bool force, bool ignore)
{
    struct s3c_error e = S3C_ERROR_INIT;
    struct out_result r = { op, src_shown, NULL, 0, false, NULL, j->dryrun, false, NULL };

    if (force || !storage_class || (strcmp(storage_class, "GLACIER") && strcmp(storage_class, "DEEP_ARCHIVE")) ||
        (restore && strstr(restore, "ongoing-request=\"false\"")))
        return false;
    if (ignore) {
        job_skip(j);
        return true;
    }
    s3c_fail(&e, S3C_ESKIPPED, "Object is of storage class GLACIER. Unable to perform %s operations on GLACIER "
             "objects. You must restore the object to be able to perform the operation. See aws s3 %s help for "
             "additional parameter options to ignore or force these transfers.", op, op);
    out_result(&r, &e);
    job_count(j, count_op, 0, &e);
    return true;
}

void job_skip(struct job *j)
{
    j->n.skipped++;
}

void job_abs_dir(const char *path, struct buf *out)
{
    struct s3c_error e = S3C_ERROR_INIT;

    if (filter_root(path, true, out, &e) || buf_addc(out, '/')) {
        buf_reset(out);
        buf_adds(out, path);
    }
}

enum s3c_err skip_not_a_dir(struct job *j, const char *arg, int op, const char *word)
{
    struct buf abs = BUF_INIT(65536);
    struct s3c_error e = S3C_ERROR_INIT;
    struct out_result r = { word, NULL, NULL, 0, false, NULL, j->dryrun, false, NULL };

    job_abs_dir(arg, &abs);
    r.src = buf_cstr(&abs);
    s3c_fail(&e, S3C_ESKIPPED, "File does not exist.");
    out_result(&r, &e);
    job_count(j, op, 0, &e);
    buf_release(&abs);
    return S3C_ESKIPPED;
}

void job_counts_add(struct job_counts *to, const struct job_counts *from)
{
    int i;

    for (i = 0; i < JOB_N_OPS; i++) {
        to->op[i].ok += from->op[i].ok;
        to->op[i].failed += from->op[i].failed;
        to->op[i].bytes += from->op[i].bytes;
    }
    to->ok += from->ok;
    to->failed += from->failed;
    to->skipped += from->skipped;
    to->warned += from->warned;
    to->bytes += from->bytes;
    if (!to->first_error)
        to->first_error = from->first_error;
    to->requests += from->requests;
    to->hedged += from->hedged;
    to->hedge_wins += from->hedge_wins;
    to->slow_resent += from->slow_resent;
}

void job_count_engine(struct job_counts *n, const struct xfer_stats *st)
{
    n->requests += st->requests;
    n->hedged += st->hedged;
    n->hedge_wins += st->hedge_wins;
    n->slow_resent += st->slow_resent;
}

void job_start_failed(struct job *j, enum s3c_err rc)
{
    j->n.failed++;
    j->n.first_error = rc;
}

enum s3c_err job_result(const struct job *j)
{
    if (!j->n.failed)
        return j->n.warned ? S3C_ESKIPPED : S3C_OK;
    return j->n.first_error ? j->n.first_error : S3C_EHTTP;
}

static const char *const op_names[JOB_N_OPS] = { "upload", "download", "copy", "delete", "restore", "move" };

void job_print_stat(const struct job_counts *n, const struct shard *sh, struct store_s3 *s3)
{
    struct express_stats xs = { 0 };
    char line[256];
    int i;

    if (s3)
        store_s3_express_stats(s3, &xs);

    if (out_opts()->json) {
        struct json j = JSON_INIT;
        struct buf rows = BUF_INIT(1 << 16);
        buf_addc(&rows, '[');
        for (i = 0; i < JOB_N_OPS; i++) {
            struct json r = JSON_INIT;
            if (!n->op[i].ok && !n->op[i].failed)
                continue;
            json_str(&r, "operation", op_names[i]);
            json_u64(&r, "total", n->op[i].ok + n->op[i].failed);
            json_u64(&r, "success", n->op[i].ok);
            json_u64(&r, "error", n->op[i].failed);
            json_u64(&r, "bytes", n->op[i].bytes);
            if (rows.len > 1)
                buf_addc(&rows, ',');
            json_end_into(&r, &rows);
        }
        buf_addc(&rows, ']');
        json_raw(&j, "stat", buf_cstr(&rows));
        json_u64(&j, "skipped", n->skipped);
        if (sh && sh->n > 1) {
            json_u64(&j, "shard", sh->k);
            json_u64(&j, "shards", sh->n);
        }
        if (xs.sessions || xs.failures) {
            json_u64(&j, "express_sessions", xs.sessions);
            json_u64(&j, "express_session_errors", xs.failures);
            json_u64(&j, "express_sessions_ahead", xs.ahead);
            json_u64(&j, "express_session_waits", xs.waited);
        }
        if (n->requests) {
            json_u64(&j, "requests", n->requests);
            json_u64(&j, "hedged", n->hedged);
            json_u64(&j, "hedge_wins", n->hedge_wins);
            json_u64(&j, "slow_resent", n->slow_resent);
        }
        json_end(&j);
        buf_release(&rows);
        return;
    }
    if (sh && sh->n > 1) {
        snprintf(line, sizeof(line), "\nshard %u of %u (0-based)", sh->k, sh->n);
        out_text(line);
    }
    snprintf(line, sizeof(line), "\n%-10s %10s %10s %10s %16s\n", "Operation", "Total", "Error", "Success", "Bytes");
    out_text(line);
    for (i = 0; i < JOB_N_OPS; i++) {
        if (!n->op[i].ok && !n->op[i].failed)
            continue;
        snprintf(line, sizeof(line), "%-10s %10" PRIu64 " %10" PRIu64 " %10" PRIu64 " %16" PRIu64 "\n", op_names[i],
                 n->op[i].ok + n->op[i].failed, n->op[i].failed, n->op[i].ok, n->op[i].bytes);
        out_text(line);
    }
    if (n->skipped) {
        snprintf(line, sizeof(line), "%-10s %10" PRIu64 " %10d %10" PRIu64 " %16d\n", "skip", n->skipped, 0,
                 n->skipped, 0);
        out_text(line);
    }
    /* S3 Express: CreateSession calls (those made ahead of expiry, and the
     * times a request waited for one, in --debug). */
    if (xs.sessions || xs.failures) {
        snprintf(line, sizeof(line), "%-10s %10u %10u %10u %16d\n", "session", xs.sessions + xs.failures,
                 xs.failures, xs.sessions, 0);
        out_text(line);
    }
    /* Duplicates of requests whose answer was overdue, and slow transfers sent again. */
    if (n->hedged || n->slow_resent) {
        snprintf(line, sizeof(line), "\nrequests %" PRIu64 ": %" PRIu64 " hedged (%" PRIu64 " answered first), %"
                 PRIu64 " slow sent again\n", n->requests, n->hedged, n->hedge_wins, n->slow_resent);
        out_text(line);
    }
}

static void human_bytes(double v, char out[32])
{
    static const char *units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
    int i = 0;

    while (v >= 1024.0 && i < 5) {
        v /= 1024.0;
        i++;
    }
    snprintf(out, 32, i ? "%.1f %s" : "%.0f %s", v, units[i]);
}

void job_progress_line(const struct xfer_stats *st, uint64_t ok, uint64_t one_size)
{
    char done[32], rate[32], line[256];
    double secs = st->seconds > 0.001 ? st->seconds : 0.001;
    int n;

    human_bytes((double)st->bytes_live, done);
    human_bytes((double)st->bytes_live / secs, rate);
    n = snprintf(line, sizeof(line), "Completed %" PRIu64 " object(s), %s (%s/s), %d request(s) in flight", ok,
                 done, rate, st->inflight);
    if (one_size && ok == 0 && st->bytes_live <= one_size && st->bytes_live > 0) {
        double eta = (double)(one_size - st->bytes_live) / ((double)st->bytes_live / secs);
        char total[32];
        human_bytes((double)one_size, total);
        snprintf(line + n, sizeof(line) - (size_t)n, " of %s, ETA %.0f s", total, eta);
    }
    out_status(line);
}

void job_engine_report(enum s3c_err engine_rc, const struct xfer_stats *st, bool resume)
{
    out_status(NULL);
    if (engine_rc == S3C_ECANCEL) {
        struct s3c_error e = S3C_ERROR_INIT;
        s3c_fail(&e, S3C_ECANCEL, "interrupted: stopped, multipart uploads aborted, %s",
                 resume ? "large downloads kept for the next --resume, other partial files removed"
                        : "partial files removed");
        out_usage_error(&e);
    }
    if (out_opts()->debug) {
        char line[512];
        snprintf(line, sizeof(line), "xfer: %" PRIu64 " ok, %" PRIu64 " failed, %" PRIu64 " bytes, %" PRIu64
                 " requests, %" PRIu64 " retries, %" PRIu64 " hedged (%" PRIu64 " answered first), %" PRIu64
                 " slow sent again, peak concurrency %d, %.2f s",
                 st->objects_ok, st->objects_failed, st->bytes, st->requests, st->retries, st->hedged,
                 st->hedge_wins, st->slow_resent, st->peak_concurrency, st->seconds);
        out_debug(NULL, line);
    }
}

/* ---- one job on its own engine ------------------------------------------------------ */

enum s3c_err job_dryrun(struct job *j)
{
    struct xfer_obj *o;

    /* Listing only, but the user may stop it all the same (SIGINT, SIGTERM, stdout gone):
     * pages already listed are not all printed first. */
    while (!stop_requested() && j->ops->next(j, &o) == XFER_NEXT_ONE) {
        o->owner = j;
        j->ops->done(j, o, NULL);
        xfer_obj_free(o);
    }
    return stop_requested() ? S3C_ECANCEL : S3C_OK;
}

static int one_next(void *ctx, struct xfer_obj **out)
{
    struct job *j = ctx;
    int r = j->ops->next(j, out);

    if (r == XFER_NEXT_ONE)
        (*out)->owner = j;
    return r;
}

static void one_done(void *ctx, const struct xfer_obj *o, const struct s3c_error *e)
{
    struct job *j = ctx;

    if (o->warning)
        out_warn("%s", o->warning);
    j->ops->done(j, o, e);
}

static void one_progress(void *ctx, const struct xfer_stats *st)
{
    struct job *j = ctx;

    job_progress_line(st, j->n.ok, j->one_size);
}

enum s3c_err job_run(struct job *j)
{
    struct xfer_opts xo;
    struct xfer_stats st;
    enum s3c_err rc, erc = S3C_OK;

    cli_reads_only(j->c, j->reads_only);
    rc = j->ops->start ? j->ops->start(j) : S3C_OK;
    if (rc) {
        /* Failed before any transfer (a single source that is not there): --stat still
         * has its table, with that failure in it; bad usage has none. */
        if (j->knobs.stat && rc != S3C_EUSAGE)
            job_print_stat(&j->n, &j->knobs.shard, j->c->s3);
        return rc;
    }
    if (!j->dryrun) {
        struct s3c_error e = S3C_ERROR_INIT;
        struct store_s3 *s3 = cli_s3(j->c, &e);

        if (!s3) {
            out_error(j->verb, &e);
            return e.code;
        }
        job_engine_opts(j, &xo);
        j->later_ok = true; /* the engine steps the loop while a listing's page is out */
        xo.next = one_next;
        xo.next_ctx = j;
        xo.done = one_done;
        xo.done_ctx = j;
        xo.src_store = j->src_s3 != s3 ? j->src_s3 : NULL;
        xo.src_deletes = j->src_deletes;
        xo.relay_copies = j->relay_copies;
        if (!j->knobs.no_progress && out_status_enabled()) {
            xo.progress = one_progress;
            xo.progress_ctx = j;
        }
        memset(&st, 0, sizeof(st));
        erc = xfer_run(s3, &xo, &st);
        job_engine_report(erc, &st, j->knobs.resume);
        job_count_engine(&j->n, &st);
    } else {
        erc = job_dryrun(j);
    }
    rc = j->ops->finish(j, erc);
    if (j->knobs.stat)
        job_print_stat(&j->n, &j->knobs.shard, j->c->s3);
    return rc;
}
