/*
 * s3emu: a fast S3 emulator for tests and benchmarks. See README.md beside
 * this file for the flags, the admin endpoint and the fault grammar.
 */
#include "emu.h"

#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: s3emu --port N [--host 127.0.0.1] [--access-key K --secret-key S | --anonymous]\n"
            "             [--region R] [--latency-ms M] [--jitter SIGMA] [--tail-pct P] [--tail-mult X]\n"
            "             [--bandwidth-mbps B] [--rate-get N] [--rate-put N] [--prefix-depth D]\n"
            "             [--xregion-ms M] [--copy-ms M] [--copy-mbps R] [--min-part-bytes N] [--faults SPEC]\n"
            "             [--dir D] [--bucket NAME]...\n"
            "             [--threads N] [--listen ADDR]... [--tls-dir DIR [--tls-name NAME]... |\n"
            "             --tls-cert FILE --tls-key FILE]\n"
            "Prints 'ready http://HOST:PORT' (https with TLS) once it accepts connections\n"
            "(--port 0 picks a free port).\n");
}

/* One worker per CPU this process may run on (taskset counts), at most EMU_MAX_THREADS. */
static int default_threads(void)
{
    cpu_set_t set;
    int n;

    if (sched_getaffinity(0, sizeof(set), &set) < 0)
        return 1;
    n = CPU_COUNT(&set);
    return n < 1 ? 1 : n > EMU_MAX_THREADS ? EMU_MAX_THREADS : n;
}

static int num_arg(const char *flag, const char *v, double *out)
{
    char *end;

    *out = strtod(v, &end);
    if (!*v || *end || *out < 0) {
        fprintf(stderr, "s3emu: %s wants a non-negative number, got '%s'\n", flag, v);
        return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    static struct emu_server srv;
    struct emu_server *s = &srv;
    const char *buckets[64];
    int n_buckets = 0, i, port_set = 0;
    char err[256];

    if (emu_server_init(s)) {
        fprintf(stderr, "s3emu: out of memory\n");
        return 1;
    }
    s->n_workers = default_threads();
    str_copy(s->host, sizeof(s->host), "127.0.0.1");
    str_copy(s->access_key, sizeof(s->access_key), "s3emu-access");
    str_copy(s->secret_key, sizeof(s->secret_key), "s3emu-secret");
    str_copy(s->region, sizeof(s->region), "us-east-1");
    s->rng ^= (uint64_t)getpid() << 32;
    for (i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        double d;

        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        }
        if (!strcmp(a, "--anonymous")) {
            s->anonymous = true;
            continue;
        }
        if (!v) {
            fprintf(stderr, "s3emu: %s needs a value\n", a);
            usage(stderr);
            return 2;
        }
        i++;
        if (!strcmp(a, "--port")) {
            if (num_arg(a, v, &d) || d > 65535)
                return 2;
            s->port = (int)d;
            port_set = 1;
        } else if (!strcmp(a, "--host")) {
            str_copy(s->host, sizeof(s->host), v);
        } else if (!strcmp(a, "--listen")) {
            if (s->n_listen == EMU_MAX_LISTEN) {
                fprintf(stderr, "s3emu: at most %d --listen addresses\n", EMU_MAX_LISTEN);
                return 2;
            }
            str_copy(s->listen[s->n_listen++], sizeof(s->listen[0]), v);
        } else if (!strcmp(a, "--tls-dir")) {
            str_copy(s->tls_dir, sizeof(s->tls_dir), v);
        } else if (!strcmp(a, "--tls-cert")) {
            str_copy(s->tls_cert, sizeof(s->tls_cert), v);
        } else if (!strcmp(a, "--tls-key")) {
            str_copy(s->tls_key, sizeof(s->tls_key), v);
        } else if (!strcmp(a, "--tls-name")) {
            if (s->n_tls_names == EMU_MAX_TLS_NAMES) {
                fprintf(stderr, "s3emu: at most %d --tls-name names\n", EMU_MAX_TLS_NAMES);
                return 2;
            }
            str_copy(s->tls_names[s->n_tls_names++], sizeof(s->tls_names[0]), v);
        } else if (!strcmp(a, "--access-key")) {
            str_copy(s->access_key, sizeof(s->access_key), v);
        } else if (!strcmp(a, "--secret-key")) {
            str_copy(s->secret_key, sizeof(s->secret_key), v);
        } else if (!strcmp(a, "--region")) {
            str_copy(s->region, sizeof(s->region), v);
        } else if (!strcmp(a, "--threads")) {
            if (num_arg(a, v, &d) || d < 1 || d > EMU_MAX_THREADS || d != (int)d) {
                fprintf(stderr, "s3emu: --threads wants a whole number from 1 to %d\n", EMU_MAX_THREADS);
                return 2;
            }
            s->n_workers = (int)d;
        } else if (!strcmp(a, "--dir")) {
            str_copy(s->dir, sizeof(s->dir), v);
        } else if (!strcmp(a, "--faults")) {
            if (emu_model_parse_faults(&s->model, v, err, sizeof(err))) {
                fprintf(stderr, "s3emu: --faults: %s\n", err);
                return 2;
            }
        } else if (!strcmp(a, "--bucket")) {
            if (n_buckets < 64)
                buckets[n_buckets++] = v;
        } else {
            char kv[512];
            const char *k = a + 2;

            if (strncmp(a, "--", 2) != 0 || num_arg(a, v, &d)) {
                fprintf(stderr, "s3emu: unknown flag %s\n", a);
                usage(stderr);
                return 2;
            }
            /* Every numeric model flag is also a config key: --latency-ms -> latency_ms. */
            snprintf(kv, sizeof(kv), "%s=%s", k, v);
            for (char *p = kv; *p && *p != '='; p++)
                if (*p == '-')
                    *p = '_';
            if (emu_model_configure(s, sv_from(kv), err, sizeof(err))) {
                fprintf(stderr, "s3emu: unknown flag %s\n", a);
                usage(stderr);
                return 2;
            }
        }
    }
    if (!port_set) {
        usage(stderr);
        return 2;
    }
    if ((s->tls_dir[0] && (s->tls_cert[0] || s->tls_key[0])) || !s->tls_cert[0] != !s->tls_key[0]) {
        fprintf(stderr, "s3emu: give --tls-dir, or both --tls-cert and --tls-key\n");
        return 2;
    }
    /* --host is the one address without --listen; with them, the first is the one printed. */
    if (!s->n_listen)
        str_copy(s->listen[s->n_listen++], sizeof(s->listen[0]), s->host);
    str_copy(s->host, sizeof(s->host), s->listen[0]);
    if (s->dir[0] && mkdir(s->dir, 0700) < 0 && access(s->dir, W_OK) < 0) {
        fprintf(stderr, "s3emu: --dir %s: not a writable directory\n", s->dir);
        return 2;
    }
    for (i = 0; i < n_buckets; i++)
        if (!emu_store_bucket(s, buckets[i]))
            emu_store_bucket_create(s, buckets[i], s->region);
    signal(SIGPIPE, SIG_IGN);
    {
        /* Benchmarks open thousands of connections: take every descriptor we may. */
        struct rlimit rl;
        if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
            rl.rlim_cur = rl.rlim_max;
            setrlimit(RLIMIT_NOFILE, &rl);
        }
    }
    s->workers = calloc((size_t)s->n_workers, sizeof(*s->workers));
    if (!s->workers) {
        fprintf(stderr, "s3emu: out of memory\n");
        return 1;
    }
    if (emu_net_listen(s))
        return 1;
    if ((s->tls_dir[0] || s->tls_cert[0]) && emu_tls_setup(s))
        return 1;
    printf("ready %s://%s:%d\n", s->tls_ctx ? "https" : "http", s->host, s->port);
    fflush(stdout);
    return emu_net_run(s) ? 1 : 0;
}
