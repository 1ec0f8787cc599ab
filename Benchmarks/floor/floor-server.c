/* The benchmark's floor server (scripts/bench): a thread per connection on a Unix socket,
 * answering every request line with one fixed response line, read from a file (vaultd's real
 * answer to the same request, so both send the same number of bytes). No parsing, no store:
 * what the kernel and a minimal server cost.
 *
 * With --checks VAULT_FILE AUDIT_LOG it also makes, for each request, the system calls vaultd's
 * cached `get` makes besides its read and send (docs/performance.md): a poll before the read,
 * the read made as a peek with the sender's credentials attached (SO_PASSCRED, recvmsg with
 * SCM_CREDENTIALS: each request is answered as its sender) and the bytes consumed by a second
 * read after the answer, a stat of
 * "exe" in the caller's /proc/PID directory (opened when the connection is accepted), a poll of
 * an inotify instance watching the vault file's directory and the file and one of another
 * watching the audit log's directory (vaultd's ChangeWatch), and a write of one record's size
 * (300 bytes) to the audit log; no parsing, no crypto, no locks. What vaultd's checks cost in
 * the kernel alone, whatever it is written in.
 *
 * With FLOOR_WORKERS=N it serves every connection from N worker threads on one epoll set instead
 * of a thread per connection: each connection is armed once (EPOLLONESHOT), the worker that takes
 * it answers what it peeked and arms it again, so a busy worker takes the next ready connection
 * without sleeping. What that design would gain vaultd, measured before building it
 * (docs/performance.md, part H). The checks' poll is then epoll_wait's.
 *
 * Usage: floor-server [--checks VAULT_FILE AUDIT_LOG] SOCKET RESPONSE_FILE
 * (FLOOR_CHECKS=exec,vault,audit or a subset: only those checks; the poll is always made) */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libgen.h>
#include <sys/epoll.h>
#include <sys/inotify.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

static char *response;
static size_t response_size;
static const char *vault_file, *audit_path;
static int audit_fd = -1;
/* The inotify instances vaultd polls: the vault file's directory and the file; audit.log's directory. */
static int vault_watch = -1, audit_watch = -1;
static char record[300];
/* What has been appended since the log was last emptied: emptied past 1 MiB, as vaultd rotates. */
static long audit_size;

/* Which checks run (FLOOR_CHECKS, a comma-separated subset of exec,vault,audit; all by default):
 * what each costs, for docs/performance.md. */
static int check_exec = 1, check_vault = 1, check_audit = 1;

/* Whether an inotify instance has events, without waiting: vaultd's ChangeWatch.news(). Events
 * (other files of the benchmark's directory) are drained, as vaultd's rearm would. */
static void poll_watch(int watch) {
    struct pollfd entry = {.fd = watch, .events = POLLIN};
    char events[4096];
    if (poll(&entry, 1, 0) == 1) while (read(watch, events, sizeof events) > 0) {}
}

/* vaultd's per-request checks, in its order (see the comment above). */
static void checks(int process) {
    struct stat status;
    if (check_exec) fstatat(process, "exe", &status, 0);
    if (check_vault) poll_watch(vault_watch);
    if (!check_audit) return;
    poll_watch(audit_watch);
    if (write(audit_fd, record, sizeof record) < 0) perror("audit log");
    if (__atomic_add_fetch(&audit_size, (long)sizeof record, __ATOMIC_RELAXED) > (1L << 20)) {
        __atomic_store_n(&audit_size, 0, __ATOMIC_RELAXED);
        if (ftruncate(audit_fd, 0) != 0) perror("audit log");
    }
}

/* An inotify instance watching `file`'s directory (names created, removed, renamed) and, when
 * `watch_file`, the file (writes, attributes), as vaultd's ChangeWatch; -1 on failure. */
static int make_watch(const char *file, int watch_file) {
    char copy[4096];
    snprintf(copy, sizeof copy, "%s", file);
    int watch = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    if (watch < 0) { perror("inotify_init1"); return -1; }
    uint32_t directory_events = IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR;
    if (inotify_add_watch(watch, dirname(copy), directory_events) < 0 ||
        (watch_file && inotify_add_watch(watch, file, IN_MODIFY | IN_ATTRIB | IN_DELETE_SELF | IN_MOVE_SELF | IN_DONT_FOLLOW) < 0)) {
        perror(file);
        close(watch);
        return -1;
    }
    return watch;
}

/* The caller's /proc/PID directory, as vaultd opens it at accept; -1 on failure. */
static int open_process(int fd) {
    struct ucred peer;
    socklen_t length = sizeof peer;
    char path[64];
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &peer, &length) != 0) return -1;
    snprintf(path, sizeof path, "/proc/%d", peer.pid);
    return open(path, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

/* Whether every check can be made here (the watches made, /proc/self's exe found). */
static int checks_work(void) {
    struct stat status;
    int ok = 1;
    int process = open("/proc/self", O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (process < 0 || fstatat(process, "exe", &status, 0) != 0) { perror("/proc/self/exe"); ok = 0; }
    if (process >= 0) close(process);
    if ((vault_watch = make_watch(vault_file, 1)) < 0 || (audit_watch = make_watch(audit_path, 0)) < 0) ok = 0;
    return ok;
}

/* Reads (peeks, with the checks: the sender's credentials attached, as vaultd's peek) what `fd` has. */
static ssize_t take(int fd, char *buffer, size_t size, int flags) {
    if (audit_fd < 0) return recv(fd, buffer, size, flags);
    struct iovec vector = {.iov_base = buffer, .iov_len = size};
    union {
        char bytes[CMSG_SPACE(sizeof(struct ucred))];
        struct cmsghdr align;
    } control;
    struct msghdr message = {.msg_iov = &vector, .msg_iovlen = 1, .msg_control = control.bytes, .msg_controllen = sizeof control.bytes};
    return recvmsg(fd, &message, flags | MSG_PEEK | MSG_CMSG_CLOEXEC);
}

/* With the checks, vaultd's setting on an accepted connection: credentials on every message. */
static int pass_credentials(int fd) {
    int on = 1;
    return audit_fd < 0 ? 0 : setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof on);
}

/* Answers every request line in the `got` bytes read (peeked, with the checks) from `fd`, making
 * the checks first, then consumes them when they were peeked; 0 on success. */
static int answer(int fd, char *buffer, ssize_t got, int process) {
    for (ssize_t i = 0; i < got; i++) {
        if (buffer[i] != '\n') continue;
        if (audit_fd >= 0) checks(process);
        size_t sent = 0;
        while (sent < response_size) {
            ssize_t n = write(fd, response + sent, response_size - sent);
            if (n <= 0) return -1;
            sent += (size_t)n;
        }
    }
    if (audit_fd >= 0 && read(fd, buffer, (size_t)got) != got) return -1;
    return 0;
}

static void *serve(void *arg) {
    int fd = (int)(long)arg;
    char buffer[65536];
    ssize_t got;
    int process = -1;
    if (audit_fd >= 0 && ((process = open_process(fd)) < 0 || pass_credentials(fd) != 0)) {
        perror("peer");
        close(fd);
        return NULL;
    }
    for (;;) {
        if (audit_fd >= 0) {
            struct pollfd wait = {.fd = fd, .events = POLLIN};
            if (poll(&wait, 1, 10000) <= 0) break;
        }
        /* With the checks, as vaultd: the bytes are peeked and consumed after the answers. */
        if ((got = take(fd, buffer, sizeof buffer, 0)) <= 0) break;
        if (answer(fd, buffer, got, process) != 0) break;
    }
    if (process >= 0) close(process);
    close(fd);
    return NULL;
}

/* FLOOR_WORKERS: one connection of the epoll set, and what its checks need. */
struct connection {
    int fd, process;
};
static int epoll_set = -1;

/* Arms the connection for one readiness event; 0 on success. */
static int arm(struct connection *connection, int operation) {
    struct epoll_event event = {.events = EPOLLIN | EPOLLONESHOT, .data.ptr = connection};
    return epoll_ctl(epoll_set, operation, connection->fd, &event);
}

static void *work(void *unused) {
    (void)unused;
    char buffer[65536];
    for (;;) {
        struct epoll_event event;
        if (epoll_wait(epoll_set, &event, 1, -1) != 1) continue;
        struct connection *connection = event.data.ptr;
        int fd = connection->fd;
        ssize_t got = take(fd, buffer, sizeof buffer, MSG_DONTWAIT);
        if (got < 0 && (errno == EAGAIN || errno == EINTR) && arm(connection, EPOLL_CTL_MOD) == 0) continue;
        if (got <= 0) goto drop;
        if (answer(fd, buffer, got, connection->process) == 0 && arm(connection, EPOLL_CTL_MOD) == 0) continue;
    drop:
        if (connection->process >= 0) close(connection->process);
        close(fd);
        free(connection);
    }
    return NULL;
}

/* Adds an accepted connection to the epoll set (closed if its peer cannot be read). */
static void add(int fd) {
    struct connection *connection = calloc(1, sizeof *connection);
    if (!connection) { perror("calloc"); close(fd); return; }
    connection->fd = fd;
    connection->process = -1;
    if (audit_fd >= 0 && ((connection->process = open_process(fd)) < 0 || pass_credentials(fd) != 0)) {
        perror("peer");
        close(fd);
        free(connection);
        return;
    }
    if (arm(connection, EPOLL_CTL_ADD) != 0) {
        perror("epoll_ctl");
        if (connection->process >= 0) close(connection->process);
        close(fd);
        free(connection);
    }
}

int main(int argc, char **argv) {
    if (argc > 1 && strcmp(argv[1], "--checks") == 0) {
        if (argc != 6) { fprintf(stderr, "usage: floor-server [--checks VAULT_FILE AUDIT_LOG] SOCKET RESPONSE_FILE\n"); return 2; }
        vault_file = argv[2];
        audit_path = argv[3];
        audit_fd = open(audit_path, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (audit_fd < 0) { perror(audit_path); return 1; }
        if (!checks_work()) return 1;
        const char *only = getenv("FLOOR_CHECKS");
        if (only) {
            check_exec = strstr(only, "exec") != NULL;
            check_vault = strstr(only, "vault") != NULL;
            check_audit = strstr(only, "audit") != NULL;
        }
        memset(record, 'a', sizeof record - 1);
        record[sizeof record - 1] = '\n';
        argv += 3;
        argc -= 3;
    }
    if (argc != 3) { fprintf(stderr, "usage: floor-server [--checks VAULT_FILE AUDIT_LOG] SOCKET RESPONSE_FILE\n"); return 2; }
    FILE *file = fopen(argv[2], "rb");
    if (!file) { perror(argv[2]); return 1; }
    response = malloc(1 << 20);
    response_size = fread(response, 1, 1 << 20, file);
    fclose(file);
    int listener = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un address = {.sun_family = AF_UNIX};
    strncpy(address.sun_path, argv[1], sizeof address.sun_path - 1);
    unlink(argv[1]);
    if (bind(listener, (struct sockaddr *)&address, sizeof address) || listen(listener, 128)) { perror("bind"); return 1; }
    const char *workers = getenv("FLOOR_WORKERS");
    if (workers) {
        int count = atoi(workers);
        if (count < 1) { fprintf(stderr, "floor-server: FLOOR_WORKERS must be 1 or more\n"); return 2; }
        if ((epoll_set = epoll_create1(EPOLL_CLOEXEC)) < 0) { perror("epoll_create1"); return 1; }
        for (int i = 0; i < count; i++) {
            pthread_t thread;
            if (pthread_create(&thread, NULL, work, NULL) != 0) { fprintf(stderr, "floor-server: could not start a worker\n"); return 1; }
        }
        for (;;) {
            int client = accept(listener, NULL, NULL);
            if (client >= 0) add(client);
        }
    }
    for (;;) {
        int client = accept(listener, NULL, NULL);
        if (client < 0) continue;
        pthread_t thread;
        pthread_create(&thread, NULL, serve, (void *)(long)client);
        pthread_detach(thread);
    }
}
