#ifndef CCURLSHIMS_H
#define CCURLSHIMS_H

#include <stddef.h>

/// How `vault_http_request` ended.
enum vault_http_outcome {
    VAULT_HTTP_ANSWERED = 0,   // `status` and `body` hold the answer
    VAULT_HTTP_TOO_LARGE = 1,  // the body (by Content-Length or as it arrived) passed `max_body`
    VAULT_HTTP_FAILED = 2,     // no answer: `error` says why (timeout, refused, TLS, ...)
    VAULT_HTTP_TIMED_OUT = 3,  // no complete answer within the timeout
};

typedef struct {
    long status;
    unsigned char *body;  // malloc'd; vault_http_result_free wipes and frees it
    size_t body_length;
    char error[256];
} vault_http_result;

/// One HTTP request through libcurl, blocking: no redirects followed (a 3xx is the answer), http
/// and https only, no cookies, no decompression, the whole request within `timeout_ms`, the body
/// refused past `max_body` bytes by its Content-Length and while it arrives (libcurl's write
/// callback stops the transfer, so no more than `max_body` is ever held). `headers` are
/// "Name: value" lines. `ca_file`: the PEM file of the certificate authorities to trust instead of
/// the system's (NULL: the system's); verification itself is never turned off. Libcurl's variadic curl_easy_setopt cannot be called from Swift.
int vault_http_request(const char *method, const char *url, const char *const *headers, size_t header_count,
                       const unsigned char *body, size_t body_length, long timeout_ms, size_t max_body,
                       const char *ca_file, vault_http_result *result);

void vault_http_result_free(vault_http_result *result);

#endif
