/*
 * docgen: build-time generator of the man page and the shell completions.
 *
 *   docgen man|bash|zsh|fish TEMPLATE > OUT
 *
 * Copies TEMPLATE to stdout, replacing @VERSION@ and @DATE@ anywhere, and a
 * line holding only @COMMANDS@ or @GLOBAL_OPTIONS@ (man) or @DATA@ (shells)
 * by what src/cli/doc.h renders from help.c's text and the parsers' arg_spec
 * tables.
 *
 * Why generate the man page from help.c, and not the reverse: the help text
 * sits next to the code and is what reviewers read when a flag is added; the
 * binary must carry it anyway (`s3c help VERB` works where no man page is
 * installed); and a C table is read by the unit tests directly, with no
 * parser for a second format. The man-only sections (configuration,
 * environment, exit status, examples) live in the template, docs/s3c.1.in.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#include "cli/doc.h"

#define TEMPLATE_MAX_BYTES ((size_t)1 << 20)

static void put_sv(const char *s, size_t n)
{
    fwrite(s, 1, n, stdout);
}

/* The page's date: SOURCE_DATE_EPOCH (set by dpkg-buildpackage from the
 * changelog) for a reproducible build, else empty (man shows none). */
static void page_date(char *out, size_t n)
{
    const char *sde = getenv("SOURCE_DATE_EPOCH");
    char *end;
    time_t t;
    struct tm tm;

    out[0] = '\0';
    if (!sde || !*sde)
        return;
    t = (time_t)strtoll(sde, &end, 10);
    if (*end || !gmtime_r(&t, &tm))
        return;
    strftime(out, n, "%Y-%m-%d", &tm);
}

/* The verbs to complete: those cli_main() dispatches, then help and version. */
static const char *verb_at(int i)
{
    const char *v = cli_verb_at(i);
    int n = 0;

    if (v)
        return v;
    while (cli_verb_at(n))
        n++;
    return i == n ? "help" : i == n + 1 ? "version" : NULL;
}

static const char *help_text(const char *verb)
{
    const char *v, *syn, *text;
    int i;

    for (i = 0; cli_help_at(i, &v, &syn, &text); i++)
        if (!strcmp(v, verb))
            return text;
    return "";
}

/* Single-quoted: a quote inside is \' for fish, '\'' for zsh. */
static void put_quoted(const char *s, bool fish)
{
    putchar('\'');
    for (; *s; s++) {
        if (*s == '\'')
            fputs(fish ? "\\'" : "'\\''", stdout);
        else
            putchar(*s);
    }
    putchar('\'');
}

static void put_flags(const struct doc_flags *f, bool valued_only)
{
    int i, first = 1;

    for (i = 0; i < f->n; i++) {
        if (valued_only && !f->v[i].takes_value)
            continue;
        printf("%s%s", first ? "" : " ", f->v[i].name);
        if (f->v[i].alias)
            printf(" %s", f->v[i].alias);
        first = 0;
    }
}

/* bash and zsh: the same data, as shell variables and case functions. */
static void data_sh(bool zsh)
{
    struct doc_flags f;
    char sum[64];
    const char *v;
    int i;

    printf("_s3c_verbs='");
    for (i = 0; (v = verb_at(i)); i++)
        printf("%s%s", i ? " " : "", v);
    printf("'\n");
    if (zsh) {
        printf("_s3c_verb_descs=(\n");
        for (i = 0; (v = verb_at(i)); i++) {
            char item[128];
            doc_summary(help_text(v), sum, sizeof(sum));
            snprintf(item, sizeof(item), "%s:%s", v, sum);
            printf("    ");
            put_quoted(item, false);
            printf("\n");
        }
        printf(")\n");
    }
    doc_global_flags(&f);
    printf("_s3c_global_flags='");
    put_flags(&f, false);
    printf("'\n_s3c_global_valued=' ");
    put_flags(&f, true);
    printf(" '\n");
    printf("# _s3c_verb_flags VERB: the flags its parser accepts; _s3c_verb_valued VERB:\n"
           "# those followed by a value (space-padded, for a \" $flag \" match).\n");
    printf("_s3c_verb_flags() {\n    case $1 in\n");
    for (i = 0; (v = cli_verb_at(i)); i++) {
        doc_verb_flags(v, &f);
        printf("    %s) echo '", v);
        put_flags(&f, false);
        printf("' ;;\n");
    }
    printf("    esac\n}\n_s3c_verb_valued() {\n    case $1 in\n");
    for (i = 0; (v = cli_verb_at(i)); i++) {
        doc_verb_flags(v, &f);
        printf("    %s) echo ' ", v);
        put_flags(&f, true);
        printf(" ' ;;\n");
    }
    printf("    esac\n}\n");
}

static void fish_flag(const char *cond, const struct doc_flag *fl)
{
    printf("complete -c s3c -n %s -l %s", cond, fl->name + 2);
    if (fl->alias && strlen(fl->alias) == 2)
        printf(" -s %s", fl->alias + 1);
    printf("%s\n", fl->takes_value ? " -r" : "");
}

static void data_fish(void)
{
    struct doc_flags f;
    char sum[64], cond[128];
    const char *v;
    int i, k;

    doc_global_flags(&f);
    printf("set -g __s3c_global_valued ");
    put_flags(&f, true);
    printf("\ncomplete -c s3c -n '__fish_seen_subcommand_from help' -f -a '");
    for (i = 0; (v = verb_at(i)); i++)
        printf("%s%s", i ? " " : "", v);
    printf("'\n");
    for (i = 0; (v = verb_at(i)); i++) {
        doc_summary(help_text(v), sum, sizeof(sum));
        printf("complete -c s3c -f -n __s3c_needs_verb -a %s -d ", v);
        put_quoted(sum, true);
        printf("\n");
    }
    doc_global_flags(&f);
    for (k = 0; k < f.n; k++)
        fish_flag("'not __s3c_needs_verb'", &f.v[k]);
    for (i = 0; (v = cli_verb_at(i)); i++) {
        doc_verb_flags(v, &f);
        snprintf(cond, sizeof(cond), "'__fish_seen_subcommand_from %s'", v);
        for (k = 0; k < f.n; k++)
            fish_flag(cond, &f.v[k]);
    }
}

static int expand_line(const char *kind, const char *line, size_t n, const char *date)
{
    struct buf b = BUF_INIT(TEMPLATE_MAX_BYTES);
    enum s3c_err rc = S3C_OK;

    if (n == 10 && !strncmp(line, "@COMMANDS@", n) && !strcmp(kind, "man")) {
        rc = doc_man_commands(&b);
    } else if (n == 16 && !strncmp(line, "@GLOBAL_OPTIONS@", n) && !strcmp(kind, "man")) {
        rc = doc_man_globals(&b);
    } else if (n == 6 && !strncmp(line, "@DATA@", n) && strcmp(kind, "man")) {
        if (!strcmp(kind, "fish"))
            data_fish();
        else
            data_sh(!strcmp(kind, "zsh"));
        return 0;
    } else {
        const char *p = line, *end = line + n, *at;
        while ((at = memchr(p, '@', (size_t)(end - p)))) {
            put_sv(p, (size_t)(at - p));
            if (end - at >= 9 && !strncmp(at, "@VERSION@", 9)) {
                fputs(cli_version(), stdout);
                p = at + 9;
            } else if (end - at >= 6 && !strncmp(at, "@DATE@", 6)) {
                fputs(date, stdout);
                p = at + 6;
            } else {
                putchar('@');
                p = at + 1;
            }
        }
        put_sv(p, (size_t)(end - p));
        putchar('\n');
        return 0;
    }
    if (!rc)
        put_sv(buf_cstr(&b), b.len);
    buf_release(&b);
    return rc ? -1 : 0;
}

int main(int argc, char **argv)
{
    struct buf text = BUF_INIT(TEMPLATE_MAX_BYTES);
    char chunk[8192], date[32];
    const char *kind = argc == 3 ? argv[1] : "", *p;
    FILE *f;
    size_t got;
    int rc = 0;

    if (strcmp(kind, "man") && strcmp(kind, "bash") && strcmp(kind, "zsh") && strcmp(kind, "fish")) {
        fprintf(stderr, "usage: docgen man|bash|zsh|fish TEMPLATE > OUT\n");
        return 2;
    }
    if (!(f = fopen(argv[2], "r"))) {
        perror(argv[2]);
        return 1;
    }
    while ((got = fread(chunk, 1, sizeof(chunk), f)) > 0)
        if (buf_add(&text, chunk, got)) {
            fprintf(stderr, "docgen: %s: too large\n", argv[2]);
            rc = 1;
            break;
        }
    fclose(f);
    page_date(date, sizeof(date));
    for (p = buf_cstr(&text); !rc && *p;) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        rc = expand_line(kind, p, n, date);
        p += n + (nl ? 1 : 0);
    }
    buf_release(&text);
    if (fflush(stdout) || ferror(stdout))
        rc = 1;
    return rc ? 1 : 0;
}
