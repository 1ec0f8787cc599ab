#include "CCurlShims.h"

#include <curl/curl.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    unsigned char *data;
    size_t length;
    size_t capacity;
    size_t limit;
    int too_large;
} body_buffer;

static void wipe(void *pointer, size_t length) {
    volatile unsigned char *bytes = pointer;
    while (length--) *bytes++ = 0;
}

static size_t on_data(char *incoming, size_t size, size_t count, void *context) {
    body_buffer *buffer = context;
    size_t length = size * count;
    if (length > buffer->limit - buffer->length) {
        buffer->too_large = 1;
        return 0;  // stops the transfer (CURLE_WRITE_ERROR)
    }
    if (buffer->length + length > buffer->capacity) {
        size_t capacity = buffer->capacity ? buffer->capacity : 4096;
        while (capacity < buffer->length + length) capacity *= 2;
        if (capacity > buffer->limit) capacity = buffer->limit;
        unsigned char *grown = malloc(capacity);
        if (!grown) return 0;
        if (buffer->data) {
            memcpy(grown, buffer->data, buffer->length);
            wipe(buffer->data, buffer->capacity);
            free(buffer->data);
        }
        buffer->data = grown;
        buffer->capacity = capacity;
    }
    memcpy(buffer->data + buffer->length, incoming, length);
    buffer->length += length;
    return length;
}

int vault_http_request(const char *method, const char *url, const char *const *headers, size_t header_count,
                       const unsigned char *body, size_t body_length, long timeout_ms, size_t max_body,
                       const char *ca_file, vault_http_result *result) {
    memset(result, 0, sizeof *result);
    CURL *curl = curl_easy_init();
    if (!curl) {
        strncpy(result->error, "cannot start an HTTP request", sizeof result->error - 1);
        return VAULT_HTTP_FAILED;
    }
    struct curl_slist *list = NULL;
    for (size_t index = 0; index < header_count; index++) list = curl_slist_append(list, headers[index]);
    list = curl_slist_append(list, "Expect:");
    body_buffer buffer = {NULL, 0, 0, max_body, 0};
    char error[CURL_ERROR_SIZE] = {0};

    curl_easy_setopt(curl, CURLOPT_URL, url);
    curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, timeout_ms);
    curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, timeout_ms);
    curl_easy_setopt(curl, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)max_body);
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, list);
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_data);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, &buffer);
    curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, error);
    if (ca_file) curl_easy_setopt(curl, CURLOPT_CAINFO, ca_file);
    if (body) {
        curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)body_length);
        curl_easy_setopt(curl, CURLOPT_POSTFIELDS, (const char *)body);
    }
    if (strcmp(method, "POST") != 0 || !body) curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, method);

    CURLcode code = curl_easy_perform(curl);
    int outcome = VAULT_HTTP_ANSWERED;
    if (code == CURLE_OK) {
        curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &result->status);
        result->body = buffer.data;
        result->body_length = buffer.length;
        buffer.data = NULL;
    } else {
        if (buffer.too_large || code == CURLE_FILESIZE_EXCEEDED) {
            outcome = VAULT_HTTP_TOO_LARGE;
        } else if (code == CURLE_OPERATION_TIMEDOUT) {
            outcome = VAULT_HTTP_TIMED_OUT;
        } else {
            outcome = VAULT_HTTP_FAILED;
        }
        strncpy(result->error, error[0] ? error : curl_easy_strerror(code), sizeof result->error - 1);
        if (buffer.data) {
            wipe(buffer.data, buffer.capacity);
            free(buffer.data);
        }
    }
    curl_slist_free_all(list);
    curl_easy_cleanup(curl);
    return outcome;
}

void vault_http_result_free(vault_http_result *result) {
    if (result->body) {
        wipe(result->body, result->body_length);
        free(result->body);
    }
    result->body = NULL;
    result->body_length = 0;
}
