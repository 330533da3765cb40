/*
 * doc: what s3c says about itself outside `s3c help`: the man page's COMMANDS
 * and GLOBAL OPTIONS sections, rendered from help.c's text, and the flags each
 * verb's parser accepts, read from its own arg_spec table. tools/docgen builds
 * s3c.1 and the shell completions from these at build time and the unit tests
 * check them against each other, so help, man page, completions and parser
 * cannot drift apart. s3c itself never calls this module. It prints nothing.
 */
#ifndef S3C_CLI_DOC_H
#define S3C_CLI_DOC_H

#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"

struct doc_flag {
    const char *name;       /* "--recursive" (a string literal of the table) */
    const char *alias;      /* "-r" or NULL */
    bool takes_value;       /* ARG_STR or ARG_STR_LIST: the next word is its value */
};

#define DOC_FLAGS_MAX 128

struct doc_flags {
    struct doc_flag v[DOC_FLAGS_MAX];
    int n;
};

/*
 * The flags the parser of 'verb' accepts: the verb is run with argv empty and
 * args_parse() in probe mode (args_set_probe), which hands over its table and
 * fails before anything else happens; the usage line the verb then prints
 * goes to /dev/null. False when cli_main() dispatches no such verb.
 */
bool doc_verb_flags(const char *verb, struct doc_flags *out);

/* The global flags cli_main() takes out of any place on the line. */
void doc_global_flags(struct doc_flags *out);

/* Where a verb's flags are documented: its own section, or another verb's
 * ("mv" -> "cp": mv takes cp's flags and its help says so). */
const char *doc_flags_documented_in(const char *verb);

/* The first sentence (up to '.', ':' or ';') of a verb's help text, at most 'n' - 1 bytes (cut at a word). */
void doc_summary(const char *text, char *out, size_t n);

/* Help text (help.c's format) as roff: prose paragraphs, "  --flag ARG  what"
 * lines as .TP items, deeper-indented lines continuing the item above. */
enum s3c_err doc_roff_text(struct buf *out, const char *text);

/* The man page's COMMANDS section (a .SS per verb, in help order) and its
 * GLOBAL OPTIONS section, without the .SH lines. */
enum s3c_err doc_man_commands(struct buf *out);
enum s3c_err doc_man_globals(struct buf *out);

/* help.c's table, by index (false past the end), and its global-options text. */
bool cli_help_at(int i, const char **verb, const char **synopsis, const char **text);
const char *cli_help_globals(void);

#endif
