/*
 * The man page against the parsers: every flag a verb's arg_spec table
 * accepts (read from the table itself, see cli/doc.h) and every global flag
 * must be listed in that verb's section of s3c(1), which is rendered from the
 * same help text `s3c help VERB` prints. And the version is the one the
 * VERSION file and debian/changelog give.
 */
#include "t.h"

#include <ctype.h>
#include <stdlib.h>

#include "cli/cli.h"
#include "cli/doc.h"

/* 'flag' in roff ("--no-clobber" -> "\-\-no\-clobber") into out[n]. */
static void roff_flag(const char *flag, char *out, size_t n)
{
    size_t k = 0;

    for (; *flag && k + 3 < n; flag++) {
        if (*flag == '-')
            out[k++] = '\\';
        out[k++] = *flag;
    }
    out[k] = '\0';
}

/* Does the roff text [s, end) hold 'flag' as a whole word (not as the start
 * of a longer flag, "--sse" in "--sse-c", nor inside one, "-n" in "--no-x")? */
static bool lists_flag(const char *s, const char *end, const char *flag)
{
    char want[128];
    size_t n;
    const char *p;

    roff_flag(flag, want, sizeof(want));
    n = strlen(want);
    for (p = s; p + n <= end && (p = memmem(p, (size_t)(end - p), want, n)); p++) {
        const char *after = p + n;
        bool starts = p == s || (!isalnum((unsigned char)p[-1]) && p[-1] != '-') ||
                      (p - s >= 3 && p[-3] == '\\' && p[-2] == 'f');   /* after \fB */
        bool ends = after >= end || (!isalnum((unsigned char)*after) &&
                                     !(after[0] == '\\' && after + 1 < end && after[1] == '-'));
        if (starts && ends)
            return true;
    }
    return false;
}

/* The roff of one verb's .SS section of the COMMANDS text. */
static bool verb_section(const char *man, const char *verb, const char **s, const char **end)
{
    char head[64];
    const char *next;

    snprintf(head, sizeof(head), ".SS %s\n", verb);
    if (!strncmp(man, head, strlen(head)))
        *s = man;
    else if ((*s = strstr(man, head)) && (*s)[-1] == '\n')
        ;
    else
        return false;
    next = strstr(*s + strlen(head), "\n.SS ");
    *end = next ? next : *s + strlen(*s);
    return true;
}

TEST(doc_lists_every_flag)
{
    struct buf man = BUF_INIT(1 << 20);
    struct doc_flags f;
    const char *verb, *s, *end;
    int i, k, total = 0;

    CHECK(doc_man_commands(&man) == S3C_OK);
    for (i = 0; (verb = cli_verb_at(i)); i++) {
        const char *in = doc_flags_documented_in(verb);

        CHECK(doc_verb_flags(verb, &f));
        if (!verb_section(buf_cstr(&man), in, &s, &end)) {
            t_fail(__FILE__, __LINE__, "s3c(1) has no section for the verb \"%s\" (help.c)", in);
            continue;
        }
        total += f.n;
        for (k = 0; k < f.n; k++) {
            if (!lists_flag(s, end, f.v[k].name))
                t_fail(__FILE__, __LINE__, "%s accepts %s, which s3c(1) and `s3c help %s` do not list",
                       verb, f.v[k].name, in);
            if (f.v[k].alias && !lists_flag(s, end, f.v[k].alias))
                t_fail(__FILE__, __LINE__, "%s accepts %s (%s), which s3c(1) does not list", verb,
                       f.v[k].alias, f.v[k].name);
        }
    }
    CHECK(total > 100);                         /* the probe did read the tables */
    CHECK(doc_verb_flags("cp", &f) && f.n > 30);
    CHECK(!doc_verb_flags("no-such-verb", &f));
    CHECK(verb_section(buf_cstr(&man), "cp", &s, &end));
    CHECK(lists_flag(s, end, "--sse"));
    CHECK(!lists_flag(s, end, "--no-such-flag"));
    CHECK(!lists_flag(s, end, "--sse-c-copy"));  /* only a longer flag holds it */
    buf_release(&man);
}

TEST(doc_lists_every_global_flag)
{
    struct buf man = BUF_INIT(1 << 20);
    struct doc_flags f;
    const char *end;
    int k;

    CHECK(doc_man_globals(&man) == S3C_OK);
    doc_global_flags(&f);
    CHECK(f.n >= 10);
    end = buf_cstr(&man) + man.len;
    for (k = 0; k < f.n; k++)
        if (!lists_flag(buf_cstr(&man), end, f.v[k].name))
            t_fail(__FILE__, __LINE__, "the global flag %s is not in s3c(1)'s GLOBAL OPTIONS",
                   f.v[k].name);
    buf_release(&man);
}

TEST(doc_roff_of_help_text)
{
    struct buf b = BUF_INIT(4096);

    CHECK(doc_roff_text(&b, "Prose -x.\n.starts with a dot\n"
                            "  --a-b, -c X  what it does\n"
                            "               and more\n"
                            "  --d, --e V\n"
                            "Back to prose \\ here.\n") == S3C_OK);
    CHECK_STR(buf_cstr(&b), "Prose \\-x.\n\\&.starts with a dot\n"
                            ".TP\n\\fB\\-\\-a\\-b\\fR, \\fB\\-c\\fR X\nwhat it does\nand more\n"
                            ".TP\n\\fB\\-\\-d\\fR, \\fB\\-\\-e\\fR V\n"
                            ".PP\nBack to prose \\e here.\n");
    buf_release(&b);
}

TEST(doc_summary_is_first_sentence)
{
    char s[40];

    doc_summary("Remove an empty bucket. --force first\n", s, sizeof(s));
    CHECK_STR(s, "Remove an empty bucket");
    doc_summary("Copy local files to S3, S3 objects to local files, or S3 to S3.\n", s, sizeof(s));
    CHECK_STR(s, "Copy local files to S3, S3 objects to");
}

/* The first line of 'path' into out[n]; false when it cannot be read. */
static bool first_line(const char *path, char *out, size_t n)
{
    FILE *f = fopen(path, "r");
    bool ok = f && fgets(out, (int)n, f);

    if (f)
        fclose(f);
    if (ok)
        out[strcspn(out, "\n")] = '\0';
    return ok;
}

TEST(version_is_the_files_and_the_changelogs)
{
    char v[64], cl[256], want[128];

    CHECK(first_line("VERSION", v, sizeof(v)));
    CHECK_STR(cli_version(), v);
    CHECK(first_line("debian/changelog", cl, sizeof(cl)));
    snprintf(want, sizeof(want), "s3c (%s) ", cli_version());
    if (strncmp(cl, want, strlen(want)))
        t_fail(__FILE__, __LINE__, "debian/changelog starts \"%s\", want \"%s...\" (VERSION)", cl, want);
}
