/*
 * model: how the emulator performs and fails. First-byte latency (median,
 * lognormal jitter, a slow tail), per-connection bandwidth (applied by
 * net.c's pacing), per-prefix request-rate limits answered with 503
 * SlowDown, and fault rules. All of it can change at run time through
 * POST /_s3emu/config; counters are read with GET /_s3emu/stats.
 */
#include "emu.h"

#include <ctype.h>
#include <fnmatch.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store.h"

static const char *const op_names[OP_COUNT] = {
    [OP_UNKNOWN] = "Unknown",
    [OP_LIST_BUCKETS] = "ListBuckets",
    [OP_CREATE_BUCKET] = "CreateBucket",
    [OP_HEAD_BUCKET] = "HeadBucket",
    [OP_DELETE_BUCKET] = "DeleteBucket",
    [OP_GET_BUCKET_LOCATION] = "GetBucketLocation",
    [OP_GET_BUCKET_VERSIONING] = "GetBucketVersioning",
    [OP_PUT_BUCKET_VERSIONING] = "PutBucketVersioning",
    [OP_LIST_OBJECTS] = "ListObjects",
    [OP_LIST_OBJECTS_V2] = "ListObjectsV2",
    [OP_LIST_OBJECT_VERSIONS] = "ListObjectVersions",
    [OP_PUT_OBJECT] = "PutObject",
    [OP_GET_OBJECT] = "GetObject",
    [OP_HEAD_OBJECT] = "HeadObject",
    [OP_DELETE_OBJECT] = "DeleteObject",
    [OP_DELETE_OBJECTS] = "DeleteObjects",
    [OP_COPY_OBJECT] = "CopyObject",
    [OP_CREATE_MPU] = "CreateMultipartUpload",
    [OP_UPLOAD_PART] = "UploadPart",
    [OP_UPLOAD_PART_COPY] = "UploadPartCopy",
    [OP_COMPLETE_MPU] = "CompleteMultipartUpload",
    [OP_ABORT_MPU] = "AbortMultipartUpload",
    [OP_LIST_PARTS] = "ListParts",
    [OP_LIST_MPUS] = "ListMultipartUploads",
    [OP_GET_BUCKET_ACL] = "GetBucketAcl",
    [OP_PUT_BUCKET_ACL] = "PutBucketAcl",
    [OP_GET_OBJECT_ACL] = "GetObjectAcl",
    [OP_PUT_OBJECT_ACL] = "PutObjectAcl",
    [OP_CREATE_SESSION] = "CreateSession",
    [OP_LIST_DIRECTORY_BUCKETS] = "ListDirectoryBuckets",
    [OP_GET_OBJECT_TAGGING] = "GetObjectTagging",
    [OP_PUT_OBJECT_TAGGING] = "PutObjectTagging",
    [OP_DELETE_OBJECT_TAGGING] = "DeleteObjectTagging",
    [OP_RESTORE_OBJECT] = "RestoreObject",
    [OP_RENAME_OBJECT] = "RenameObject",
    [OP_APPEND_OBJECT] = "AppendObject",
    [OP_GET_BUCKET_ENCRYPTION] = "GetBucketEncryption",
    [OP_PUT_BUCKET_ENCRYPTION] = "PutBucketEncryption",
    [OP_ADMIN_STATS] = "AdminStats",
    [OP_ADMIN_CONFIG] = "AdminConfig",
    [OP_ADMIN_RESET] = "AdminReset",
    [OP_ADMIN_POPULATE] = "AdminPopulate",
};

const char *emu_op_name(enum emu_op op)
{
    return op < OP_COUNT && op_names[op] ? op_names[op] : "Unknown";
}

bool emu_op_is_write(enum emu_op op)
{
    switch (op) {
    case OP_PUT_OBJECT: case OP_DELETE_OBJECT: case OP_DELETE_OBJECTS: case OP_COPY_OBJECT:
    case OP_CREATE_MPU: case OP_UPLOAD_PART: case OP_UPLOAD_PART_COPY: case OP_COMPLETE_MPU:
    case OP_ABORT_MPU: case OP_CREATE_BUCKET: case OP_DELETE_BUCKET: case OP_PUT_BUCKET_VERSIONING:
    case OP_PUT_BUCKET_ACL: case OP_PUT_OBJECT_ACL: case OP_PUT_OBJECT_TAGGING: case OP_DELETE_OBJECT_TAGGING:
    case OP_RESTORE_OBJECT: case OP_PUT_BUCKET_ENCRYPTION: case OP_RENAME_OBJECT: case OP_APPEND_OBJECT:
        return true;
    default:
        return false;
    }
}

static const char *const fault_names[FAULT_KIND_COUNT] = {
    [FAULT_NONE] = "none", [FAULT_500] = "500", [FAULT_503] = "503",
    [FAULT_RESET] = "reset", [FAULT_RESET_MID] = "reset-mid", [FAULT_TRUNCATE] = "truncate",
    [FAULT_SLOW] = "slow", [FAULT_CORRUPT] = "corrupt", [FAULT_DELAY] = "delay",
    [FAULT_DENY] = "deny", [FAULT_501] = "501", [FAULT_409] = "409", [FAULT_LOST_REPLY] = "lost-reply",
};

const char *emu_fault_name(enum emu_fault_kind k)
{
    return k < FAULT_KIND_COUNT ? fault_names[k] : "none";
}

void emu_model_defaults(struct emu_model *m)
{
    memset(m, 0, sizeof(*m));
    m->tail_mult = 10;
    m->prefix_depth = 1;
    m->min_part_bytes = (uint64_t)5 << 20;
    m->express_latency_ms = -1;
    m->express_session_s = 300;
    m->express_session_required = 1;
    m->append_max_parts = 10000;
}

/* ---- the server ---- */

int emu_server_init(struct emu_server *s)
{
    pthread_rwlockattr_t ra;
    int rc;

    emu_model_defaults(&s->model);
    /* Writers first: a stream of GETs must not starve a PUT. */
    if (pthread_rwlockattr_init(&ra))
        return -1;
    pthread_rwlockattr_setkind_np(&ra, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
    rc = pthread_rwlock_init(&s->store_lock, &ra);
    pthread_rwlockattr_destroy(&ra);
    if (rc || pthread_mutex_init(&s->model_lock, NULL))
        return -1;
    s->rng = (uint64_t)emu_now_ns() ^ 0x9E3779B97F4A7C15ull;
    return emu_sl_init(&s->buckets) || emu_sl_init(&s->rates) ? -1 : 0;
}

/* ---- fault rules ---- */

static int parse_rule(struct emu_fault_rule *r, char *text, char *err, size_t errn)
{
    char *conds = strpbrk(text, "@:");
    char *kind = text, *tok, *save = NULL;
    int k;

    memset(r, 0, sizeof(*r));
    r->prob = 1;
    if (conds)
        *conds++ = 0;
    for (k = 1; k < FAULT_KIND_COUNT; k++)
        if (strcmp(kind, fault_names[k]) == 0)
            break;
    if (k == FAULT_KIND_COUNT) {
        snprintf(err, errn, "unknown fault kind '%s'", kind);
        return -1;
    }
    r->kind = (enum emu_fault_kind)k;
    r->arg = r->kind == FAULT_SLOW ? 65536 : r->kind == FAULT_DELAY ? 1000 : 0;
    for (tok = conds ? strtok_r(conds, ",", &save) : NULL; tok; tok = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(tok, '=');
        const char *v;

        if (!eq) {
            snprintf(err, errn, "fault condition '%s' has no '='", tok);
            return -1;
        }
        *eq = 0;
        v = eq + 1;
        if (strcmp(tok, "op") && strcmp(tok, "method") && strcmp(tok, "key") && strcmp(tok, "bucket")) {
            char *end;
            double d = strtod(v, &end);

            if (!*v || *end || d < 0 || ((!strcmp(tok, "p") || !strcmp(tok, "prob")) && d > 1)) {
                snprintf(err, errn, "fault condition %s=%s: not a valid number", tok, v);
                return -1;
            }
        }
        if (!strcmp(tok, "p") || !strcmp(tok, "prob"))
            r->prob = strtod(v, NULL);
        else if (!strcmp(tok, "op"))
            str_copy(r->op, sizeof(r->op), v);
        else if (!strcmp(tok, "method"))
            str_copy(r->method, sizeof(r->method), v);
        else if (!strcmp(tok, "key"))
            str_copy(r->key_glob, sizeof(r->key_glob), v);
        else if (!strcmp(tok, "bucket"))
            str_copy(r->bucket_glob, sizeof(r->bucket_glob), v);
        else if (!strcmp(tok, "nth"))
            r->nth = strtoull(v, NULL, 10);
        else if (!strcmp(tok, "every"))
            r->every = strtoull(v, NULL, 10);
        else if (!strcmp(tok, "times"))
            r->times = strtoull(v, NULL, 10);
        else if (!strcmp(tok, "rate") || !strcmp(tok, "ms"))
            r->arg = strtod(v, NULL);
        else {
            snprintf(err, errn, "unknown fault condition '%s'", tok);
            return -1;
        }
    }
    return 0;
}

int emu_model_parse_faults(struct emu_model *m, const char *spec, char *err, size_t errn)
{
    struct emu_fault_rule rules[EMU_MAX_RULES];
    char *copy = strdup(spec ? spec : ""), *tok, *save = NULL;
    int n = 0, rc = -1;

    if (!copy) {
        snprintf(err, errn, "out of memory");
        return -1;
    }
    for (tok = strtok_r(copy, "; \t\n", &save); tok; tok = strtok_r(NULL, "; \t\n", &save)) {
        if (n == EMU_MAX_RULES) {
            snprintf(err, errn, "more than %d fault rules", EMU_MAX_RULES);
            goto out;
        }
        if (parse_rule(&rules[n], tok, err, errn))
            goto out;
        n++;
    }
    memcpy(m->rules, rules, (size_t)n * sizeof(rules[0]));
    m->n_rules = n;
    rc = 0;
out:
    free(copy);
    return rc;
}

/* Does rule 'r' apply to request 'q' with key 'key' (NULL: none)? Counts nothing. */
static bool rule_matches(const struct emu_fault_rule *r, const struct emu_req *q, const char *key)
{
    if (r->op[0] && strcasecmp(r->op, emu_op_name(q->op)) != 0)
        return false;
    if (r->method[0] && !sv_ieqs(q->method, r->method))
        return false;
    if (r->key_glob[0] && (!key || fnmatch(r->key_glob, key, 0) != 0))
        return false;
    if (r->bucket_glob[0] && (!q->bucket || fnmatch(r->bucket_glob, q->bucket, 0) != 0))
        return false;
    return true;
}

/* A rule matched: count it, and say whether it fires (nth, every, times, p). model_lock held. */
static bool rule_fires(struct emu_server *s, struct emu_fault_rule *r)
{
    r->matched++;
    if (r->nth && r->matched != r->nth)
        return false;
    if (r->every && r->matched % r->every != 0)
        return false;
    if (r->times && r->fired >= r->times)
        return false;
    if (r->prob < 1 && emu_rand01(s) >= r->prob)
        return false;
    r->fired++;
    EMU_STAT(s, faults[r->kind], 1);
    return true;
}

enum emu_fault_kind emu_model_pick_fault(struct emu_server *s, struct emu_req *q, double *arg)
{
    struct emu_model *m = &s->model;
    enum emu_fault_kind kind = FAULT_NONE;
    int i;

    pthread_mutex_lock(&s->model_lock);
    for (i = 0; i < m->n_rules; i++) {
        struct emu_fault_rule *r = &m->rules[i];

        if (!rule_matches(r, q, q->key) || !rule_fires(s, r))
            continue;
        *arg = r->arg;
        kind = r->kind;
        break;
    }
    pthread_mutex_unlock(&s->model_lock);
    return kind;
}

bool emu_model_deny_key(struct emu_server *s, struct emu_req *q, const char *key)
{
    struct emu_model *m = &s->model;
    bool deny = false;
    int i;

    pthread_mutex_lock(&s->model_lock);
    for (i = 0; i < m->n_rules && !deny; i++) {
        struct emu_fault_rule *r = &m->rules[i];

        if (r->kind == FAULT_DENY && r->key_glob[0] && rule_matches(r, q, key) && rule_fires(s, r))
            deny = true;
    }
    pthread_mutex_unlock(&s->model_lock);
    return deny;
}

/* ---- latency and rates ---- */

static double gaussian(struct emu_server *s)
{
    double u1 = emu_rand01(s), u2 = emu_rand01(s);

    if (u1 < 1e-12)
        u1 = 1e-12;
    return sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
}

int64_t emu_model_latency_ns(struct emu_server *s, struct emu_req *q)
{
    struct emu_model *m = &s->model;
    double ms, jitter, tail_pct, tail_mult;

    pthread_mutex_lock(&s->model_lock);
    ms = m->latency_ms;
    if (q->express)     /* S3 Express: its own profile, by default a tenth of Standard's */
        ms = m->express_latency_ms >= 0 ? m->express_latency_ms : ms / 10;
    jitter = m->jitter;
    tail_pct = m->tail_pct;
    tail_mult = m->tail_mult;
    pthread_mutex_unlock(&s->model_lock);
    if (ms > 0 && jitter > 0)
        ms *= exp(jitter * gaussian(s));
    if (ms > 0 && tail_pct > 0 && emu_rand01(s) * 100 < tail_pct)
        ms *= tail_mult;
    if (q->fault == FAULT_DELAY)
        ms += q->fault_arg;
    return (int64_t)(ms * 1e6);
}

struct emu_rate {
    double get_tokens, put_tokens;
    int64_t last_ns;
};

bool emu_model_rate_limited(struct emu_server *s, struct emu_req *q)
{
    struct emu_model *m = &s->model;
    bool write = emu_op_is_write(q->op);
    double rate;
    struct buf pfx = BUF_INIT(2048);
    struct emu_rate *r;
    int64_t now;
    bool limited = false;
    double *tok;

    pthread_mutex_lock(&s->model_lock);
    rate = write ? m->rate_put : m->rate_get;
    if (rate <= 0 || !q->bucket) {
        pthread_mutex_unlock(&s->model_lock);
        return false;
    }
    buf_adds(&pfx, q->bucket);
    buf_addc(&pfx, '/');
    if (q->key) {
        size_t i, n = 0;
        int depth = 0;

        for (i = 0; i < q->klen && depth < m->prefix_depth; i++)
            if (q->key[i] == '/') {
                depth++;
                n = i + 1;
            }
        buf_add(&pfx, q->key, n);
    }
    r = emu_sl_get(&s->rates, pfx.data, pfx.len);
    now = emu_now_ns();
    if (!r) {
        r = calloc(1, sizeof(*r));
        if (!r || emu_sl_put(&s->rates, pfx.data, pfx.len, r, NULL)) {
            free(r);
            goto out;
        }
        r->get_tokens = m->rate_get;
        r->put_tokens = m->rate_put;
        r->last_ns = now;
    }
    r->get_tokens += m->rate_get * (double)(now - r->last_ns) / 1e9;
    r->put_tokens += m->rate_put * (double)(now - r->last_ns) / 1e9;
    if (r->get_tokens > m->rate_get)
        r->get_tokens = m->rate_get;
    if (r->put_tokens > m->rate_put)
        r->put_tokens = m->rate_put;
    r->last_ns = now;
    tok = write ? &r->put_tokens : &r->get_tokens;
    if (*tok >= 1)
        *tok -= 1;
    else
        limited = true;
out:
    pthread_mutex_unlock(&s->model_lock);
    buf_release(&pfx);
    if (limited)
        EMU_STAT(s, slowdowns, 1);
    return limited;
}

/* ---- the admin endpoint ---- */

/* Zero the counters (open connections excepted) and the rules' counts; model_lock held. */
static void stats_reset_locked(struct emu_server *s)
{
    size_t keep = offsetof(struct emu_stats, conns_open) / sizeof(_Atomic uint64_t), i;
    int w;

    for (w = 0; s->workers && w < s->n_workers; w++) {
        _Atomic uint64_t *v = (_Atomic uint64_t *)&s->workers[w].stats;

        for (i = 0; i < EMU_STATS_N; i++)
            if (i != keep)
                atomic_store_explicit(&v[i], 0, memory_order_relaxed);
    }
    for (w = 0; w < s->model.n_rules; w++)
        s->model.rules[w].matched = s->model.rules[w].fired = 0;
    emu_auth_signers_reset();
}

static int set_key(struct emu_server *s, const char *k, const char *v, char *err, size_t errn)
{
    struct emu_model *m = &s->model;
    double d = strtod(v, NULL);

    if (!strcmp(k, "latency_ms") || !strcmp(k, "latency-ms"))
        m->latency_ms = d;
    else if (!strcmp(k, "jitter"))
        m->jitter = d;
    else if (!strcmp(k, "tail_pct"))
        m->tail_pct = d;
    else if (!strcmp(k, "tail_mult"))
        m->tail_mult = d;
    else if (!strcmp(k, "bandwidth_mbps") || !strcmp(k, "bandwidth-mbps"))
        m->bandwidth_mbps = d;
    else if (!strcmp(k, "rate_get"))
        m->rate_get = d;
    else if (!strcmp(k, "rate_put"))
        m->rate_put = d;
    else if (!strcmp(k, "prefix_depth"))
        m->prefix_depth = (int)d;
    else if (!strcmp(k, "xregion_ms"))
        m->xregion_ms = d;
    else if (!strcmp(k, "copy_ms"))
        m->copy_ms = d;
    else if (!strcmp(k, "copy_mbps"))
        m->copy_mbps = d;
    else if (!strcmp(k, "express_latency_ms"))
        m->express_latency_ms = d;
    else if (!strcmp(k, "express_session_s"))
        m->express_session_s = d;
    else if (!strcmp(k, "express_session_required"))
        m->express_session_required = d != 0;
    else if (!strcmp(k, "min_part_bytes"))
        m->min_part_bytes = (uint64_t)d;
    else if (!strcmp(k, "apply_late"))
        m->apply_late = d != 0;
    else if (!strcmp(k, "ignore_part_number"))
        m->ignore_part_number = d != 0;
    else if (!strcmp(k, "restore_ms"))
        m->restore_ms = d;
    else if (!strcmp(k, "block_ssec"))
        m->block_ssec = d != 0;
    else if (!strcmp(k, "delete_ignores_if_match"))
        m->delete_ignores_if_match = d != 0;
    else if (!strcmp(k, "append_max_parts")) {
        if (d < 1 || d > 10000) {
            snprintf(err, errn, "append_max_parts must be 1 to 10000");
            return -1;
        }
        m->append_max_parts = (uint32_t)d;
    } else if (!strcmp(k, "faults"))
        return emu_model_parse_faults(m, v, err, errn);
    else if (!strcmp(k, "reset_stats")) {
        if (d != 0)
            stats_reset_locked(s);
    } else {
        snprintf(err, errn, "unknown setting '%s'", k);
        return -1;
    }
    return 0;
}

/* Flat JSON object of strings, numbers and booleans. */
static int parse_json(struct emu_server *s, const char *p, const char *end, char *err, size_t errn)
{
    char key[64], val[4096];

    while (p < end && isspace((unsigned char)*p))
        p++;
    if (p == end || *p++ != '{')
        goto bad;
    for (;;) {
        size_t n = 0;

        while (p < end && (isspace((unsigned char)*p) || *p == ','))
            p++;
        if (p < end && *p == '}')
            return 0;
        if (p == end || *p++ != '"')
            goto bad;
        while (p < end && *p != '"' && n + 1 < sizeof(key))
            key[n++] = *p++;
        key[n] = 0;
        if (p == end || *p++ != '"')
            goto bad;
        while (p < end && isspace((unsigned char)*p))
            p++;
        if (p == end || *p++ != ':')
            goto bad;
        while (p < end && isspace((unsigned char)*p))
            p++;
        n = 0;
        if (p < end && *p == '"') {
            p++;
            while (p < end && *p != '"' && n + 1 < sizeof(val)) {
                if (*p == '\\' && p + 1 < end)
                    p++;
                val[n++] = *p++;
            }
            if (p == end)
                goto bad;
            p++;
        } else {
            while (p < end && !strchr(",} \t\r\n", *p) && n + 1 < sizeof(val))
                val[n++] = *p++;
        }
        val[n] = 0;
        if (!strcmp(val, "true"))
            str_copy(val, sizeof(val), "1");
        else if (!strcmp(val, "false") || !strcmp(val, "null"))
            str_copy(val, sizeof(val), "0");
        if (set_key(s, key, val, err, errn))
            return -1;
    }
bad:
    snprintf(err, errn, "malformed JSON object");
    return -1;
}

static int configure_locked(struct emu_server *s, struct sv body, char *err, size_t errn)
{
    struct sv t = sv_trim(body);
    char *copy, *tok, *save = NULL;
    int rc = 0;

    if (t.n && t.p[0] == '{')
        return parse_json(s, t.p, t.p + t.n, err, errn);
    copy = sv_dup(t);
    if (!copy) {
        snprintf(err, errn, "out of memory");
        return -1;
    }
    for (tok = strtok_r(copy, "&\r\n", &save); tok && !rc; tok = strtok_r(NULL, "&\r\n", &save)) {
        char *eq = strchr(tok, '=');
        struct sv k;
        char *kd;

        if (!eq) {
            snprintf(err, errn, "setting '%s' has no '='", tok);
            rc = -1;
            break;
        }
        *eq = 0;
        k = sv_trim(sv_from(tok));
        kd = sv_dup(k);
        rc = kd ? set_key(s, kd, eq + 1, err, errn) : -1;
        free(kd);
    }
    free(copy);
    return rc;
}

int emu_model_configure(struct emu_server *s, struct sv body, char *err, size_t errn)
{
    int rc;

    /* Both locks: the operations (ops_*.c) read a few settings under the store lock alone. */
    emu_store_lock(s, true);
    pthread_mutex_lock(&s->model_lock);
    rc = configure_locked(s, body, err, errn);
    atomic_store(&s->bw_bps, s->model.bandwidth_mbps * 1e6);
    pthread_mutex_unlock(&s->model_lock);
    emu_store_unlock(s);
    return rc;
}

void emu_model_stats_reset(struct emu_server *s)
{
    pthread_mutex_lock(&s->model_lock);
    stats_reset_locked(s);
    pthread_mutex_unlock(&s->model_lock);
}

static void json_str(struct buf *b, const char *v)
{
    buf_addc(b, '"');
    for (; *v; v++) {
        if (*v == '"' || *v == '\\')
            buf_addc(b, '\\');
        if ((unsigned char)*v < 0x20)
            buf_addf(b, "\\u%04x", *v);
        else
            buf_addc(b, *v);
    }
    buf_addc(b, '"');
}

/* The counters summed over the workers, as plain numbers with the struct's names. */
struct stats_sum {
    uint64_t requests, errors, connections, conns_open;
    uint64_t bytes_in, bytes_out;
    uint64_t by_op[OP_COUNT];
    uint64_t faults[FAULT_KIND_COUNT];
    uint64_t slowdowns;
    uint64_t status[6];
    uint64_t auth_failures;
    uint64_t stored_again, hung_up;
    uint64_t tls_handshakes, tls_resumed;
    uint64_t md5_bytes, md5_x8_bytes;
    uint64_t listener_conns[EMU_MAX_LISTEN];
    uint64_t listener_reqs[EMU_MAX_LISTEN];
};
_Static_assert(sizeof(struct stats_sum) / sizeof(uint64_t) == EMU_STATS_N, "stats_sum mirrors emu_stats");

void emu_model_stats_json(struct emu_server *s, struct buf *b)
{
    struct stats_sum sum, *st = &sum;
    struct emu_model *m = &s->model;
    int i, first = 1;

    emu_stats_sum(s, (uint64_t *)&sum, EMU_STATS_N);
    emu_store_lock(s, false);
    pthread_mutex_lock(&s->model_lock);

    buf_addf(b, "{\"requests\":%llu,\"errors\":%llu,\"connections\":%llu,\"open_connections\":%llu,"
                "\"bytes_in\":%llu,\"bytes_out\":%llu,\"slowdowns\":%llu,\"auth_failures\":%llu,"
                "\"stored_again\":%llu,\"hung_up\":%llu,",
             (unsigned long long)st->requests, (unsigned long long)st->errors,
             (unsigned long long)st->connections, (unsigned long long)st->conns_open,
             (unsigned long long)st->bytes_in, (unsigned long long)st->bytes_out,
             (unsigned long long)st->slowdowns, (unsigned long long)st->auth_failures,
             (unsigned long long)st->stored_again, (unsigned long long)st->hung_up);
    buf_addf(b, "\"status\":{\"1xx\":%llu,\"2xx\":%llu,\"3xx\":%llu,\"4xx\":%llu,\"5xx\":%llu},",
             (unsigned long long)st->status[1], (unsigned long long)st->status[2],
             (unsigned long long)st->status[3], (unsigned long long)st->status[4],
             (unsigned long long)st->status[5]);
    buf_addf(b, "\"tls\":{\"handshakes\":%llu,\"resumed\":%llu},", (unsigned long long)st->tls_handshakes,
             (unsigned long long)st->tls_resumed);
    buf_addf(b, "\"md5\":{\"bytes\":%llu,\"side_by_side\":%llu},\"listeners\":[",
             (unsigned long long)st->md5_bytes, (unsigned long long)st->md5_x8_bytes);
    for (i = 0; i < s->n_listen; i++)
        buf_addf(b, "%s{\"addr\":\"%s:%d\",\"conns\":%llu,\"reqs\":%llu}", i ? "," : "",
                 s->listen[i], s->port, (unsigned long long)st->listener_conns[i],
                 (unsigned long long)st->listener_reqs[i]);
    buf_adds(b, "],\"ops\":{");
    for (i = 1; i < OP_COUNT; i++) {
        if (!st->by_op[i])
            continue;
        buf_addf(b, "%s\"%s\":%llu", first ? "" : ",", emu_op_name((enum emu_op)i),
                 (unsigned long long)st->by_op[i]);
        first = 0;
    }
    buf_adds(b, "},\"faults\":{");
    for (i = 1; i < FAULT_KIND_COUNT; i++)
        buf_addf(b, "%s\"%s\":%llu", i > 1 ? "," : "", fault_names[i],
                 (unsigned long long)st->faults[i]);
    buf_adds(b, "},\"rules\":[");
    for (i = 0; i < m->n_rules; i++) {
        struct emu_fault_rule *r = &m->rules[i];

        buf_addf(b, "%s{\"kind\":\"%s\",\"op\":", i ? "," : "", fault_names[r->kind]);
        json_str(b, r->op);
        buf_adds(b, ",\"key\":");
        json_str(b, r->key_glob);
        buf_addf(b, ",\"p\":%g,\"nth\":%llu,\"matched\":%llu,\"fired\":%llu}", r->prob,
                 (unsigned long long)r->nth, (unsigned long long)r->matched,
                 (unsigned long long)r->fired);
    }
    buf_addf(b, "],\"model\":{\"latency_ms\":%g,\"jitter\":%g,\"tail_pct\":%g,\"tail_mult\":%g,"
                "\"bandwidth_mbps\":%g,\"rate_get\":%g,\"rate_put\":%g,\"prefix_depth\":%d,"
                "\"xregion_ms\":%g,\"express_latency_ms\":%g,\"express_session_s\":%g,"
                "\"express_session_required\":%d,\"min_part_bytes\":%llu,\"apply_late\":%d,"
                "\"copy_ms\":%g,\"copy_mbps\":%g,\"ignore_part_number\":%d,\"append_max_parts\":%u},",
             m->latency_ms, m->jitter, m->tail_pct, m->tail_mult, m->bandwidth_mbps, m->rate_get,
             m->rate_put, m->prefix_depth, m->xregion_ms, m->express_latency_ms,
             m->express_session_s, m->express_session_required,
             (unsigned long long)m->min_part_bytes, m->apply_late, m->copy_ms, m->copy_mbps,
             m->ignore_part_number, m->append_max_parts);
    {
        struct emu_sl_node *n;
        uint64_t objects = 0, nb = 0;

        for (n = emu_sl_first(&s->buckets); n; n = emu_sl_next(n)) {
            struct emu_bucket *bk = n->val;
            objects += bk->keys.count;
            nb++;
        }
        buf_addf(b, "\"buckets\":%llu,\"keys\":%llu,\"signers\":", (unsigned long long)nb,
                 (unsigned long long)objects);
        emu_auth_signers_json(b);
        buf_adds(b, "}\n");
    }
    pthread_mutex_unlock(&s->model_lock);
    emu_store_unlock(s);
}

/* A whole number parameter of the admin request; false if present and not one. */
static bool admin_u64(const struct emu_req *q, const char *name, uint64_t dflt, uint64_t *out)
{
    const char *v = emu_req_param(q, name);

    *out = dflt;
    return !v || sv_to_u64(sv_from(v), out);
}

void emu_admin_populate(struct emu_server *s, struct emu_conn *c)
{
    struct emu_req *q = &c->req;
    struct emu_resp *r = &c->resp;
    const char *bucket = emu_req_param(q, "bucket"), *prefix = emu_req_param(q, "prefix");
    uint64_t count, size, start, keys = 0;
    struct emu_bucket *b;
    char err[160];
    int64_t t0 = emu_now_ns();

    if (!sv_eqs(q->method, "POST") || !bucket || !*bucket || strlen(bucket) > 63 ||
        !emu_req_param(q, "count") || !admin_u64(q, "count", 0, &count) ||
        !admin_u64(q, "size", 0, &size) || !admin_u64(q, "start", 0, &start)) {
        str_copy(err, sizeof(err), "want POST /_s3emu/populate?bucket=B&count=N[&prefix=P][&size=S][&start=K]");
        goto bad;
    }
    if (emu_store_populate(s, bucket, prefix ? prefix : "", start, count, size, err, sizeof(err)))
        goto bad;
    emu_store_lock(s, false);
    b = emu_store_bucket(s, bucket);
    keys = b ? b->keys.count : 0;
    emu_store_unlock(s);
    buf_adds(&r->body, "{\"bucket\":");
    json_str(&r->body, bucket);
    buf_adds(&r->body, ",\"prefix\":");
    json_str(&r->body, prefix ? prefix : "");
    buf_addf(&r->body, ",\"created\":%llu,\"size\":%llu,\"keys\":%llu,\"ms\":%lld}\n",
             (unsigned long long)count, (unsigned long long)size, (unsigned long long)keys,
             (long long)((emu_now_ns() - t0) / 1000000));
    emu_resp_json_body(r, 200);
    return;
bad:
    buf_reset(&r->body);
    buf_adds(&r->body, "{\"error\":");
    json_str(&r->body, err);
    buf_adds(&r->body, "}\n");
    emu_resp_json_body(r, 400);
}

struct emu_restore emu_model_restore(const struct emu_server *s, const struct emu_obj *o, int64_t now)
{
    struct emu_restore r = { false, false, 0 };
    int64_t ready;

    if (!o->restore_asked_ms)
        return r;
    r.asked = true;
    ready = o->restore_asked_ms + (int64_t)s->model.restore_ms;
    r.ongoing = !o->restored_until_ms && ready > now;
    r.until_ms = o->restored_until_ms ? o->restored_until_ms : ready + o->restore_days_ms;
    return r;
}
