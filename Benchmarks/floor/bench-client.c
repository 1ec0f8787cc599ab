/* The benchmark's client (scripts/bench), used against vaultd and against floor-server alike:
 *   bench-client SOCKET REQUEST CONNECTIONS SECONDS
 *     CONNECTIONS threads, each on its own connection, send REQUEST (one line) and wait for the
 *     whole response line, again and again for SECONDS; prints "rps=N p50=US p99=US".
 *   bench-client --once SOCKET REQUEST
 *     one connection, one request; the response line goes to stdout (the whole-process floor).
 *   bench-client --fill SOCKET SERVICE FROM TO
 *     one connection, one `set` of SERVICE/item-N for each N from FROM up to TO (exclusive), each
 *     waiting for its response; prints "seconds=S p50=US p99=US errors=N". */
#define _GNU_SOURCE  /* memmem */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static const char *socket_path;
static char request[4096];
static size_t request_size;
static double deadline;

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static int connect_to(void) {
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un address = {.sun_family = AF_UNIX};
    strncpy(address.sun_path, socket_path, sizeof address.sun_path - 1);
    if (connect(fd, (struct sockaddr *)&address, sizeof address)) { perror("connect"); exit(1); }
    return fd;
}

/* Sends the request and reads through the end of one response line; 0 on success. */
static int round_trip(int fd, char *buffer, size_t capacity, size_t *length) {
    if (write(fd, request, request_size) != (ssize_t)request_size) return -1;
    size_t have = 0;
    for (;;) {
        ssize_t n = read(fd, buffer + have, capacity - have);
        if (n <= 0) return -1;
        have += (size_t)n;
        if (buffer[have - 1] == '\n') break;
        if (have == capacity) return -1;
    }
    if (length) *length = have;
    return 0;
}

struct worker {
    pthread_t thread;
    double *samples;
    size_t count, capacity;
};

static void *run(void *arg) {
    struct worker *worker = arg;
    int fd = connect_to();
    char *buffer = malloc(1 << 22);
    while (now() < deadline && worker->count < worker->capacity) {
        double start = now();
        if (round_trip(fd, buffer, 1 << 22, NULL)) { fprintf(stderr, "bench-client: connection failed\n"); exit(1); }
        worker->samples[worker->count++] = (now() - start) * 1e6;
    }
    close(fd);
    free(buffer);
    return NULL;
}

static int compare(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Fills a vault with distinct items, one `set` at a time on one connection. */
static int fill(const char *service, long from, long to) {
    static char buffer[1 << 16];
    size_t total = (size_t)(to > from ? to - from : 0), count = 0, errors = 0, length;
    double *samples = malloc((total + 1) * sizeof(double));
    int fd = connect_to();
    double start = now();
    for (long n = from; n < to; n++) {
        request_size = (size_t)snprintf(request, sizeof request,
            "{\"op\":\"set\",\"service\":\"%s\",\"account\":\"item-%ld\",\"secret\":\"fill secret %ld\"}\n", service, n, n);
        double began = now();
        if (round_trip(fd, buffer, sizeof buffer, &length)) { fprintf(stderr, "bench-client: connection failed\n"); return 1; }
        samples[count++] = (now() - began) * 1e6;
        if (!memmem(buffer, length, "\"ok\":true", 9)) errors++;
    }
    double elapsed = now() - start;
    qsort(samples, count, sizeof(double), compare);
    printf("seconds=%.2f p50=%.1f p99=%.1f errors=%zu\n", elapsed, count ? samples[count / 2] : 0, count ? samples[(size_t)(count * 0.99)] : 0, errors);
    return errors ? 1 : 0;
}

int main(int argc, char **argv) {
    if (argc == 6 && strcmp(argv[1], "--fill") == 0) {
        socket_path = argv[2];
        return fill(argv[3], atol(argv[4]), atol(argv[5]));
    }
    if (argc == 4 && strcmp(argv[1], "--once") == 0) {
        socket_path = argv[2];
        request_size = (size_t)snprintf(request, sizeof request, "%s\n", argv[3]);
        static char buffer[1 << 22];
        size_t length;
        int fd = connect_to();
        if (round_trip(fd, buffer, sizeof buffer, &length)) return 1;
        fwrite(buffer, 1, length, stdout);
        return 0;
    }
    if (argc != 5) { fprintf(stderr, "usage: bench-client SOCKET REQUEST CONNECTIONS SECONDS | --once SOCKET REQUEST | --fill SOCKET SERVICE FROM TO\n"); return 2; }
    socket_path = argv[1];
    request_size = (size_t)snprintf(request, sizeof request, "%s\n", argv[2]);
    int connections = atoi(argv[3]);
    double seconds = atof(argv[4]);
    struct worker *workers = calloc((size_t)connections, sizeof *workers);
    /* Warm up each side for a moment first (connections, caches), then measure. */
    deadline = now() + 0.2;
    for (int i = 0; i < connections; i++) {
        workers[i].capacity = 4000000 / connections;
        workers[i].samples = malloc(workers[i].capacity * sizeof(double));
        pthread_create(&workers[i].thread, NULL, run, &workers[i]);
    }
    for (int i = 0; i < connections; i++) { pthread_join(workers[i].thread, NULL); workers[i].count = 0; }
    double start = now();
    deadline = start + seconds;
    for (int i = 0; i < connections; i++) pthread_create(&workers[i].thread, NULL, run, &workers[i]);
    for (int i = 0; i < connections; i++) pthread_join(workers[i].thread, NULL);
    double elapsed = now() - start;
    size_t total = 0;
    for (int i = 0; i < connections; i++) total += workers[i].count;
    double *all = malloc(total * sizeof(double));
    size_t at = 0;
    for (int i = 0; i < connections; i++) { memcpy(all + at, workers[i].samples, workers[i].count * sizeof(double)); at += workers[i].count; }
    qsort(all, total, sizeof(double), compare);
    printf("rps=%.0f p50=%.1f p99=%.1f\n", total / elapsed, all[total / 2], all[(size_t)(total * 0.99)]);
    return 0;
}
