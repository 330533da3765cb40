/*
 * creds_http.c: one blocking HTTP request on its own libcurl easy handle,
 * for the few calls the credential chain makes (STS, SSO, the container and
 * instance metadata services). It never runs on the engine's loop: the
 * chain is called before the engine starts or from the refresh thread.
 * Replies are capped; redirects are not followed; nothing is logged.
 */
#include <string.h>

#include <curl/curl.h>

#include "auth/creds_impl.h"
#include "base/stop.h"

/* SIGINT, SIGTERM: a non-zero return ends the perform (CURLE_ABORTED_BY_CALLBACK). */
static int on_progress(void *ud, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal, curl_off_t ulnow)
{
    (void)ud;
    (void)dltotal;
    (void)dlnow;
    (void)ultotal;
    (void)ulnow;
    return stop_requested() != 0;
}

static size_t on_write(char *p, size_t size, size_t n, void *ud)
{
    struct buf *b = ud;

    return buf_add(b, p, size * n) ? 0 : size * n;   /* past the cap: curl stops */
}

enum s3c_err creds_http(const struct creds_http_req *r, long *status, struct buf *body,
                        bool *timed_out, struct s3c_error *e)
{
    CURL *c = curl_easy_init();
    struct curl_slist *hdrs = NULL, *t;
    long timeout_ms = r->timeout_ms ? r->timeout_ms : 10000;
    CURLcode cc;
    enum s3c_err rc = S3C_OK;
    size_t i;

    *status = 0;
    if (timed_out)
        *timed_out = false;
    if (!c)
        return s3c_fail(e, S3C_ENOMEM, "credentials: cannot create an HTTP handle");
    for (i = 0; i < r->n_headers; i++) {
        if (!(t = curl_slist_append(hdrs, r->headers[i]))) {
            rc = s3c_fail(e, S3C_ENOMEM, "credentials: out of memory");
            goto out;
        }
        hdrs = t;
    }
    if (!(t = curl_slist_append(hdrs, "Expect:"))) {
        rc = s3c_fail(e, S3C_ENOMEM, "credentials: out of memory");
        goto out;
    }
    hdrs = t;
    curl_easy_setopt(c, CURLOPT_URL, r->url);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdrs);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, timeout_ms);
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS,
                     r->connect_timeout_ms ? r->connect_timeout_ms : timeout_ms);
    if (r->net) {
        curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, r->net->verify_tls ? 1L : 0L);
        curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, r->net->verify_tls ? 2L : 0L);
        if (r->net->ca_bundle)
            curl_easy_setopt(c, CURLOPT_CAINFO, r->net->ca_bundle);
    }
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_write);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, body);
    if (r->body) {
        curl_easy_setopt(c, CURLOPT_POSTFIELDS, r->body);
        curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)r->body_len);
    }
    if (strcmp(r->method, "GET") != 0 && !(r->body && strcmp(r->method, "POST") == 0))
        curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, r->method);

    /* A blocking perform sees no signal: curl asks this callback (about once a second). */
    curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, on_progress);
    curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
    cc = curl_easy_perform(c);
    if (cc == CURLE_ABORTED_BY_CALLBACK) {
        rc = s3c_fail(e, S3C_ECANCEL, "interrupted");
    } else if (cc == CURLE_WRITE_ERROR) {
        rc = s3c_fail(e, S3C_ENOMEM, "reply larger than %zu bytes", body->max);
    } else if (cc != CURLE_OK) {
        if (timed_out)
            *timed_out = cc == CURLE_OPERATION_TIMEDOUT;
        rc = s3c_fail(e, S3C_ENET, "%s", curl_easy_strerror(cc));
    } else {
        curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, status);
    }
out:
    curl_slist_free_all(hdrs);
    curl_easy_cleanup(c);
    return rc;
}
