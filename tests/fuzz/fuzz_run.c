/*
 * libFuzzer target for the lines of `s3c run FILE` (cli/cmd_run): each line
 * of the input is trimmed of its line end as cmd_run's reader does, split
 * into words (cli/words, the shell-like splitter run uses), and the words
 * after the verb parsed with the flag parser every verb uses (cli/args),
 * here with a table of flags of each kind. Checks, beyond "no crash, no
 * leak, no UB": a split line has at most WORDS_MAX words, each a string
 * within the line's bytes; a refusal says why in one line.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli/args.h"
#include "cli/words.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void one_line(const struct s3c_error *e)
{
    if (!e->msg[0] || strlen(e->msg) >= sizeof(e->msg))
        abort();
}

static void line(const char *s, size_t len)
{
    static char *argv[WORDS_MAX + 1];
    struct buf words = BUF_INIT((size_t)1 << 20);
    struct s3c_error e = S3C_ERROR_INIT;
    bool recursive = false, dryrun = false;
    const char *storage = NULL, *pos[4];
    static struct arg_list exclude;
    int argc = -1, n_pos = 0, i;
    const struct arg_spec spec[] = {
        { "--recursive", "-r", ARG_BOOL, &recursive },
        { "--dryrun", NULL, ARG_BOOL, &dryrun },
        { "--storage-class", NULL, ARG_STR, &storage },
        { "--exclude", NULL, ARG_STR_LIST, &exclude },
        { NULL, NULL, ARG_BOOL, NULL },
    };

    if (words_split(s, &words, argv, &argc, &e)) {
        one_line(&e);
        goto out;
    }
    if (argc < 0 || argc > WORDS_MAX)
        abort();
    for (i = 0; i < argc; i++)
        if (!argv[i] || strlen(argv[i]) > len)
            abort();
    memset(&exclude, 0, sizeof(exclude));
    if (argc > 0 && args_parse(argv[0], spec, argc - 1, argv + 1, pos, 4, &n_pos, &e) != S3C_OK)
        one_line(&e);
    else if (n_pos < 0 || n_pos > 4)
        abort();
out:
    buf_release(&words);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1), *p, *nl;

    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    for (p = text; p <= text + size; p = nl + 1) {
        size_t n;

        nl = memchr(p, '\n', (size_t)(text + size - p));
        if (!nl)
            nl = text + size;
        *nl = '\0';
        n = (size_t)(nl - p);
        while (n && p[n - 1] == '\r')
            p[--n] = '\0';
        line(p, n);
    }
    free(text);
    return 0;
}
