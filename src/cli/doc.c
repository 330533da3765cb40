/*
 * doc: the man page's generated sections and the per-verb flag tables, for
 * tools/docgen and the unit tests (see doc.h). Text in, roff out: no I/O
 * beyond silencing stderr while a verb is probed for its flags.
 */
#include "cli/doc.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cmd.h"

static void on_probe(const char *verb, const struct arg_spec *specs, void *arg)
{
    struct doc_flags *out = arg;

    if (out->n)                 /* only the first table a verb parses with */
        return;
    for (; specs->name && out->n < DOC_FLAGS_MAX; specs++) {
        out->v[out->n].name = specs->name;
        out->v[out->n].alias = specs->alias;
        out->v[out->n].takes_value = specs->kind != ARG_BOOL;
        out->n++;
    }
}

bool doc_verb_flags(const char *verb, struct doc_flags *out)
{
    cli_verb_fn run = cli_verb(verb);
    struct cli_ctx ctx;
    char *argv[1] = { NULL };
    int null_fd, saved = -1;

    out->n = 0;
    if (!run)
        return false;
    memset(&ctx, 0, sizeof(ctx));
    fflush(stderr);
    null_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (null_fd >= 0) {
        saved = dup(STDERR_FILENO);
        dup2(null_fd, STDERR_FILENO);
        close(null_fd);
    }
    args_set_probe(on_probe, out);
    run(&ctx, 0, argv);
    args_set_probe(NULL, NULL);
    fflush(stderr);
    if (saved >= 0) {
        dup2(saved, STDERR_FILENO);
        close(saved);
    }
    return true;
}

void doc_global_flags(struct doc_flags *out)
{
    const char *name;
    bool takes;

    out->n = 0;
    while (out->n < DOC_FLAGS_MAX && (name = cli_global_flag_at(out->n, &takes))) {
        out->v[out->n].name = name;
        out->v[out->n].alias = NULL;
        out->v[out->n].takes_value = takes;
        out->n++;
    }
}

const char *doc_flags_documented_in(const char *verb)
{
    return !strcmp(verb, "mv") ? "cp" : verb;
}

void doc_summary(const char *text, char *out, size_t n)
{
    size_t len = 0, cut = 0;
    const char *p;

    for (p = text; *p && len + 1 < n; p++) {
        if ((*p == '.' || *p == ':' || *p == ';') && (p[1] == ' ' || p[1] == '\n' || !p[1]))
            break;
        out[len++] = *p == '\n' ? ' ' : *p;
        if (*p == ' ' || *p == '\n')
            cut = len - 1;
    }
    if (*p && !strchr(".:;", *p) && cut)
        len = cut;              /* out of room: end at the last whole word */
    while (len && (out[len - 1] == ' ' || out[len - 1] == ',' || out[len - 1] == ':'))
        len--;
    out[len] = '\0';
}

/* Text for a roff line: '-' as \- (options copy and paste as typed), '\' as \e,
 * and \& before a leading '.' or '\'' so the line is never read as a request. */
static enum s3c_err roff_escape(struct buf *out, const char *s, size_t n, bool line_start)
{
    enum s3c_err rc = S3C_OK;
    size_t i;

    for (i = 0; i < n && !rc; i++) {
        if (i == 0 && line_start && (s[i] == '.' || s[i] == '\''))
            rc = buf_adds(out, "\\&");
        if (rc)
            break;
        if (s[i] == '-')
            rc = buf_adds(out, "\\-");
        else if (s[i] == '\\')
            rc = buf_adds(out, "\\e");
        else
            rc = buf_addc(out, s[i]);
    }
    return rc;
}

/* An item's tag: each word starting with '-' (a flag) in bold, up to a ','. */
static enum s3c_err roff_tag(struct buf *out, const char *s, size_t n)
{
    enum s3c_err rc = S3C_OK;
    size_t i = 0, w;

    while (i < n && !rc) {
        for (w = i; w < n && s[w] != ' '; w++)
            ;
        if (s[i] == '-') {
            size_t end = w;
            while (end > i && s[end - 1] == ',')
                end--;
            if (!(rc = buf_adds(out, "\\fB")) && !(rc = roff_escape(out, s + i, end - i, false)) &&
                !(rc = buf_adds(out, "\\fR")))
                rc = roff_escape(out, s + end, w - end, false);
        } else {
            rc = roff_escape(out, s + i, w - i, i == 0);
        }
        for (i = w; i < n && s[i] == ' ' && !rc; i++)
            rc = buf_addc(out, ' ');
    }
    return rc;
}

enum s3c_err doc_roff_text(struct buf *out, const char *text)
{
    enum { PROSE, ITEM } mode = PROSE;
    enum s3c_err rc = S3C_OK;
    const char *line = text;

    while (*line && !rc) {
        const char *nl = strchr(line, '\n');
        size_t n = nl ? (size_t)(nl - line) : strlen(line), ind = 0;

        while (ind < n && line[ind] == ' ')
            ind++;
        if (ind == n) {
            rc = buf_adds(out, ".PP\n");
            mode = PROSE;
        } else if (ind == 0) {                          /* prose */
            if (mode == ITEM)
                rc = buf_adds(out, ".PP\n");
            mode = PROSE;
            if (!rc && !(rc = roff_escape(out, line, n, true)))
                rc = buf_addc(out, '\n');
        } else if (ind > 2 && mode == ITEM) {           /* an item's description, continued */
            if (!(rc = roff_escape(out, line + ind, n - ind, true)))
                rc = buf_addc(out, '\n');
        } else {                                        /* "  TAG  description" */
            const char *s = line + ind, *gap = NULL;
            size_t len = n - ind, tag;

            for (tag = 0; tag + 1 < len; tag++)
                if (s[tag] == ' ' && s[tag + 1] == ' ') {
                    gap = s + tag;
                    break;
                }
            tag = gap ? (size_t)(gap - s) : len;
            mode = ITEM;
            if (!(rc = buf_adds(out, ".TP\n")) && !(rc = roff_tag(out, s, tag)))
                rc = buf_addc(out, '\n');
            if (!rc && gap) {
                while (*gap == ' ' && gap < s + len)
                    gap++;
                if (!(rc = roff_escape(out, gap, (size_t)(s + len - gap), true)))
                    rc = buf_addc(out, '\n');
            }
        }
        line = nl ? nl + 1 : line + n;
    }
    return rc;
}

enum s3c_err doc_man_commands(struct buf *out)
{
    const char *verb, *synopsis, *text;
    enum s3c_err rc = S3C_OK;
    int i;

    for (i = 0; !rc && cli_help_at(i, &verb, &synopsis, &text); i++) {
        const char *rest = synopsis;
        size_t head = strlen("s3c ") + strlen(verb);

        if (!strncmp(synopsis, "s3c ", 4) && !strncmp(synopsis + 4, verb, strlen(verb)))
            rest = synopsis + head;
        if ((rc = buf_addf(out, ".SS %s\n.PP\n\\fBs3c %s\\fR", verb, verb)) ||
            (rc = roff_escape(out, rest, strlen(rest), false)) || (rc = buf_adds(out, "\n.PP\n")))
            break;
        rc = doc_roff_text(out, text);
    }
    return rc;
}

enum s3c_err doc_man_globals(struct buf *out)
{
    return doc_roff_text(out, cli_help_globals());
}
