/*
 * creds_process.c: credential_process as botocore's ProcessProvider runs
 * it: the command split as shlex.split would, run without a shell, its
 * stdout read as JSON Version 1 (AccessKeyId, SecretAccessKey, optional
 * SessionToken and Expiration). A failure says how in one line (the exit
 * code and the first line of stderr); stdout never reaches a message, as it
 * carries the secret.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "auth/creds_impl.h"

#define PROCESS_STDERR_MAX_BYTES ((size_t)64 << 10)

extern char **environ;

/* ---- splitting ---- */

enum s3c_err creds_shell_split(const char *cmd, char ***argv, struct s3c_error *e)
{
    struct buf words = BUF_INIT((size_t)1 << 20);
    size_t n_words = 0, i;
    bool in_word = false, dangling = false;
    char quote = 0, **v = NULL, *base;
    const char *p, *w;
    enum s3c_err rc = S3C_OK;

    *argv = NULL;
    for (p = cmd; *p && !rc; p++) {
        char c = *p;

        if (quote == '\'') {
            if (c == '\'')
                quote = 0;
            else
                rc = buf_addc(&words, c);
        } else if (quote == '"') {
            if (c == '"') {
                quote = 0;
            } else if (c == '\\' && (p[1] == '"' || p[1] == '\\')) {
                rc = buf_addc(&words, *++p);
            } else {
                rc = buf_addc(&words, c);
            }
        } else if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
            if (in_word && !(rc = buf_addc(&words, '\0')))
                n_words++;
            in_word = false;
        } else {
            in_word = true;
            if (c == '\'' || c == '"')
                quote = c;
            else if (c == '\\' && !p[1])
                dangling = true;
            else
                rc = buf_addc(&words, c == '\\' ? *++p : c);
        }
    }
    if (rc) {
        buf_release(&words);
        return s3c_fail(e, S3C_ENOMEM, "credential_process: command too long");
    }
    if (quote || dangling) {
        buf_release(&words);
        return s3c_fail(e, S3C_ECONFIG, "credential_process: %s",
                        quote ? "No closing quotation" : "No escaped character");
    }
    if (in_word && !buf_addc(&words, '\0'))
        n_words++;
    /* One allocation: the pointer array, then the words. */
    v = malloc((n_words + 1) * sizeof(char *) + words.len + 1);
    if (!v) {
        buf_release(&words);
        return s3c_fail(e, S3C_ENOMEM, "credential_process: out of memory");
    }
    base = (char *)(v + n_words + 1);
    if (words.len)
        memcpy(base, words.data, words.len);
    base[words.len] = '\0';
    for (i = 0, w = base; i < n_words; i++) {
        v[i] = (char *)w;
        w += strlen(w) + 1;
    }
    v[n_words] = NULL;
    buf_release(&words);
    *argv = v;
    return S3C_OK;
}

/* ---- the reply ---- */

enum s3c_err creds_process_parse(const char *json_text, size_t n, struct creds *out,
                                 struct s3c_error *e)
{
    json_error_t jerr;
    json_t *root = json_loadb(json_text, n, 0, &jerr), *v;
    const char *ak, *sk, *tok = NULL, *exp = NULL;
    time_t t = 0;
    enum s3c_err rc = S3C_OK;

    creds_release(out);
    if (!root || !json_is_object(root)) {
        /* jansson's text can quote the input: say where only. */
        rc = root ? s3c_fail(e, S3C_EAUTH, "credential_process: output is not a JSON object")
                  : s3c_fail(e, S3C_EAUTH, "credential_process: output is not JSON (line %d, column %d)",
                             jerr.line, jerr.column);
        goto out;
    }
    v = json_object_get(root, "Version");
    if (!(json_is_integer(v) && json_integer_value(v) == 1) &&
        !(json_is_real(v) && json_real_value(v) == 1.0)) {
        char *shown = v ? json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT) : NULL;
        rc = s3c_fail(e, S3C_EAUTH,
                      "credential_process: Unsupported version '%.32s' for credential process "
                      "provider, supported versions: 1",
                      v ? (shown ? shown : "?") : "<Version key not provided>");
        free(shown);
        goto out;
    }
    ak = json_string_value(json_object_get(root, "AccessKeyId"));
    sk = json_string_value(json_object_get(root, "SecretAccessKey"));
    if (!ak || !sk) {
        rc = s3c_fail(e, S3C_EAUTH, "credential_process: Missing required key in response: '%s'",
                      !ak ? "AccessKeyId" : "SecretAccessKey");
        goto out;
    }
    if ((v = json_object_get(root, "SessionToken")) && !json_is_null(v) &&
        !(tok = json_string_value(v))) {
        rc = s3c_fail(e, S3C_EAUTH, "credential_process: SessionToken is not a string");
        goto out;
    }
    if ((v = json_object_get(root, "Expiration")) && !json_is_null(v) &&
        (!(exp = json_string_value(v)) || !creds_parse_time(exp, &t))) {
        rc = s3c_fail(e, S3C_EAUTH,
                      "credential_process: Expiration \"%.64s\" is not an ISO 8601 time",
                      exp ? exp : "(not a string)");
        goto out;
    }
    if ((rc = creds_dup(&out->access_key, ak, e)) || (rc = creds_dup(&out->secret_key, sk, e)) ||
        (rc = creds_dup(&out->session_token, tok && tok[0] ? tok : NULL, e)))
        goto out;
    out->expires = t;
out:
    if (rc)
        creds_release(out);
    json_decref(root);
    return rc;
}

/* ---- running it ---- */

/* Read both pipes to their end; stdout into 'out', stderr into 'err' (both capped). */
static bool drain(int fd_out, int fd_err, struct buf *out, struct buf *err)
{
    struct pollfd pf[2] = { { fd_out, POLLIN, 0 }, { fd_err, POLLIN, 0 } };
    struct buf *dst[2] = { out, err };
    char chunk[4096];
    bool ok = true;
    int i;

    while (pf[0].fd >= 0 || pf[1].fd >= 0) {
        if (poll(pf, 2, -1) < 0) {
            if (errno == EINTR)
                continue;
            return false;
        }
        for (i = 0; i < 2; i++) {
            ssize_t n;

            if (pf[i].fd < 0 || !pf[i].revents)
                continue;
            n = read(pf[i].fd, chunk, sizeof(chunk));
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0) {
                pf[i].fd = -1;
                continue;
            }
            /* Past a cap keep draining (the process must not block), keep nothing. */
            if (dst[i]->len + (size_t)n <= dst[i]->max)
                buf_add(dst[i], chunk, (size_t)n);
            else if (i == 0)
                ok = false;
        }
    }
    explicit_bzero(chunk, sizeof(chunk));
    return ok;
}

/* The first line of 'err', trimmed, for a message. */
static void first_line(const struct buf *err, char *line, size_t n)
{
    struct sv s = sv_trim(buf_sv(err));
    const char *nl = memchr(s.p, '\n', s.n);
    size_t len = nl ? (size_t)(nl - s.p) : s.n;

    s = sv_trim((struct sv){ s.p, len });
    snprintf(line, n, "%.*s", (int)(s.n < n ? s.n : n - 1), s.p);
}

enum s3c_err creds_process_fetch(struct creds_src *s, struct creds *out, struct s3c_error *e)
{
    struct buf so = BUF_INIT(CREDS_JSON_MAX_BYTES), se = BUF_INIT(PROCESS_STDERR_MAX_BYTES);
    posix_spawn_file_actions_t fa;
    int po[2] = { -1, -1 }, pe[2] = { -1, -1 }, status = 0, err;
    char **argv = NULL, line[300];
    bool fa_ok = false, read_ok;
    pid_t pid;
    enum s3c_err rc;

    if ((rc = creds_shell_split(s->command, &argv, e)))
        goto out;
    if (!argv[0]) {
        rc = s3c_fail(e, S3C_ECONFIG, "profile \"%s\": credential_process is empty", s->profile);
        goto out;
    }
    /* A path that cannot run fails here with its reason: posix_spawn reports
     * a failed exec only where the child shares the parent's memory until
     * exec (not under qemu-user, where the child exits 127 instead). */
    if (strchr(argv[0], '/') && access(argv[0], X_OK)) {
        rc = s3c_fail(e, S3C_EAUTH, "credential_process \"%.200s\": %s", argv[0], strerror(errno));
        goto out;
    }
    if (pipe2(po, O_CLOEXEC) || pipe2(pe, O_CLOEXEC)) {
        rc = s3c_fail_errno(e, errno, "credential_process: pipe");
        goto out;
    }
    if ((err = posix_spawn_file_actions_init(&fa))) {
        rc = s3c_fail_errno(e, err, "credential_process");
        goto out;
    }
    fa_ok = true;
    if ((err = posix_spawn_file_actions_adddup2(&fa, po[1], 1)) ||
        (err = posix_spawn_file_actions_adddup2(&fa, pe[1], 2)) ||
        (err = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ))) {
        rc = s3c_fail(e, S3C_EAUTH, "credential_process \"%.200s\": %s", argv[0], strerror(err));
        goto out;
    }
    close(po[1]);
    close(pe[1]);
    po[1] = pe[1] = -1;
    read_ok = drain(po[0], pe[0], &so, &se);
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (WIFSIGNALED(status)) {
        rc = s3c_fail(e, S3C_EAUTH, "credential_process killed by signal %d", WTERMSIG(status));
    } else if (WEXITSTATUS(status) != 0) {
        first_line(&se, line, sizeof(line));
        rc = s3c_fail(e, S3C_EAUTH, "credential_process exited %d%s%s", WEXITSTATUS(status),
                      line[0] ? ": " : "", line);
    } else if (!read_ok) {
        rc = s3c_fail(e, S3C_EAUTH, "credential_process: output larger than %zu bytes", so.max);
    } else {
        rc = creds_process_parse(so.data ? so.data : "", so.len, out, e);
    }
out:
    if (fa_ok)
        posix_spawn_file_actions_destroy(&fa);
    for (err = 0; err < 2; err++) {
        if (po[err] >= 0)
            close(po[err]);
        if (pe[err] >= 0)
            close(pe[err]);
    }
    if (so.data)
        explicit_bzero(so.data, so.cap);
    buf_release(&so);
    buf_release(&se);
    free(argv);
    return rc;
}
