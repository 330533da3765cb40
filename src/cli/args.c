#include "cli/args.h"

#include <string.h>

static const struct arg_spec *find(const struct arg_spec *specs, const char *name, size_t n)
{
    for (; specs->name; specs++) {
        if (strlen(specs->name) == n && strncmp(specs->name, name, n) == 0)
            return specs;
        if (specs->alias && strlen(specs->alias) == n && strncmp(specs->alias, name, n) == 0)
            return specs;
    }
    return NULL;
}

static args_probe_fn probe;
static void *probe_arg;

void args_set_probe(args_probe_fn fn, void *arg)
{
    probe = fn;
    probe_arg = arg;
}

enum s3c_err args_parse(const char *verb, const struct arg_spec *specs, int argc, char **argv,
                        const char **pos, int max_pos, int *n_pos, struct s3c_error *e)
{
    bool flags_done = false;
    int i;

    *n_pos = 0;
    if (probe) {
        probe(verb, specs, probe_arg);
        return s3c_fail(e, S3C_EUSAGE, "%s: flags probed", verb);
    }
    for (i = 0; i < argc; i++) {
        const char *a = argv[i], *eq, *value = NULL;
        const struct arg_spec *s;
        size_t n;

        if (!flags_done && strcmp(a, "--") == 0) {
            flags_done = true;
            continue;
        }
        if (flags_done || a[0] != '-' || strcmp(a, "-") == 0) {
            if (*n_pos >= max_pos)
                return s3c_fail(e, S3C_EUSAGE, "%s: too many arguments (\"%s\")", verb, a);
            pos[(*n_pos)++] = a;
            continue;
        }
        eq = strchr(a, '=');
        n = eq && a[1] == '-' ? (size_t)(eq - a) : strlen(a);
        s = find(specs, a, n);
        if (!s)
            return s3c_fail(e, S3C_EUSAGE, "%s: unknown option %.*s", verb, (int)n, a);
        if (s->kind == ARG_BOOL) {
            if (eq && a[1] == '-')
                return s3c_fail(e, S3C_EUSAGE, "%s: %s takes no value", verb, s->name);
            *(bool *)s->dst = true;
            continue;
        }
        if (eq && a[1] == '-')
            value = eq + 1;
        else if (i + 1 < argc)
            value = argv[++i];
        else
            return s3c_fail(e, S3C_EUSAGE, "%s: %s needs a value", verb, s->name);
        if (s->kind == ARG_STR) {
            *(const char **)s->dst = value;
            continue;
        }
        for (;;) {
            struct arg_list *l = s->dst;
            if (l->n >= ARG_LIST_MAX)
                return s3c_fail(e, S3C_EUSAGE, "%s: too many %s", verb, s->name);
            l->flag[l->n] = s->name;
            l->v[l->n++] = value;
            if (s->kind != ARG_STR_NARGS || i + 1 >= argc || argv[i + 1][0] == '-' ||
                !strchr(argv[i + 1], '=') || !strncmp(argv[i + 1], "s3://", 5))
                break;
            value = argv[++i];
        }
    }
    return S3C_OK;
}
