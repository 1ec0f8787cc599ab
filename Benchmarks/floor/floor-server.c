/* The benchmark's floor server (scripts/bench): a thread per connection on a Unix socket,
 * answering every request line with one fixed response line, read from a file (vaultd's real
 * answer to the same request, so both send the same number of bytes). No parsing, no store:
 * what the kernel and a minimal server cost.
 *
 * With --checks VAULT_FILE AUDIT_LOG it also makes, for each request, the system calls vaultd's
 * cached `get` makes besides its read and send (docs/performance.md): a poll before the read,
 * the read made as a peek and the bytes consumed by a second read after the answer, a stat of
 * the caller's /proc/PID/exe, a pidfd signal-0 check, a stat of the vault file and of the audit
 * log, and a write of one record's size (300 bytes) to the audit log; no parsing, no crypto, no
 * locks. What vaultd's checks cost in the kernel alone, whatever it is written in.
 *
 * Usage: floor-server [--checks VAULT_FILE AUDIT_LOG] SOCKET RESPONSE_FILE
 * (FLOOR_CHECKS=exec,vault,audit or a subset: only those checks; the poll is always made) */
#define _GNU_SOURCE
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

static char *response;
static size_t response_size;
static const char *vault_file, *audit_path;
static int audit_fd = -1;
static char record[300];
/* What has been appended since the log was last emptied: emptied past 1 MiB, as vaultd rotates. */
static long audit_size;

/* Which checks run (FLOOR_CHECKS, a comma-separated subset of exec,vault,audit; all by default):
 * what each costs, for docs/performance.md. */
static int check_exec = 1, check_vault = 1, check_audit = 1;

/* vaultd's per-request checks, in its order (see the comment above). */
static void checks(int pidfd, const char *exe) {
    struct stat status;
    if (check_exec) {
        stat(exe, &status);
        syscall(SYS_pidfd_send_signal, pidfd, 0, NULL, 0);
    }
    if (check_vault) stat(vault_file, &status);
    if (!check_audit) return;
    stat(audit_path, &status);
    if (write(audit_fd, record, sizeof record) < 0) perror("audit log");
    if (__atomic_add_fetch(&audit_size, (long)sizeof record, __ATOMIC_RELAXED) > (1L << 20)) {
        __atomic_store_n(&audit_size, 0, __ATOMIC_RELAXED);
        if (ftruncate(audit_fd, 0) != 0) perror("audit log");
    }
}

/* Every check must work here, or the floor would measure cheap failures instead of the calls. */
static int checks_work(void) {
    struct stat status;
    int pidfd = (int)syscall(SYS_pidfd_open, getpid(), 0);
    if (pidfd < 0) { perror("pidfd_open"); return 0; }
    int ok = syscall(SYS_pidfd_send_signal, pidfd, 0, NULL, 0) == 0;
    if (!ok) perror("pidfd_send_signal");
    close(pidfd);
    if (stat("/proc/self/exe", &status) != 0) { perror("/proc/self/exe"); ok = 0; }
    if (stat(vault_file, &status) != 0) { perror(vault_file); ok = 0; }
    if (stat(audit_path, &status) != 0) { perror(audit_path); ok = 0; }
    return ok;
}

static void *serve(void *arg) {
    int fd = (int)(long)arg;
    char buffer[65536], exe[64];
    ssize_t got;
    int pidfd = -1;
    if (audit_fd >= 0) {
        struct ucred peer;
        socklen_t length = sizeof peer;
        if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &peer, &length) != 0 ||
            (pidfd = (int)syscall(SYS_pidfd_open, peer.pid, 0)) < 0) {
            perror("peer");
            close(fd);
            return NULL;
        }
        snprintf(exe, sizeof exe, "/proc/%d/exe", peer.pid);
    }
    for (;;) {
        if (audit_fd >= 0) {
            struct pollfd wait = {.fd = fd, .events = POLLIN};
            if (poll(&wait, 1, 10000) <= 0) break;
        }
        /* With the checks, as vaultd: the bytes are peeked and consumed after the answers. */
        if ((got = recv(fd, buffer, sizeof buffer, audit_fd >= 0 ? MSG_PEEK : 0)) <= 0) break;
        for (ssize_t i = 0; i < got; i++) {
            if (buffer[i] != '\n') continue;
            if (audit_fd >= 0) checks(pidfd, exe);
            size_t sent = 0;
            while (sent < response_size) {
                ssize_t n = write(fd, response + sent, response_size - sent);
                if (n <= 0) goto done;
                sent += (size_t)n;
            }
        }
        if (audit_fd >= 0 && read(fd, buffer, (size_t)got) != got) break;
    }
done:
    if (pidfd >= 0) close(pidfd);
    close(fd);
    return NULL;
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
    for (;;) {
        int client = accept(listener, NULL, NULL);
        if (client < 0) continue;
        pthread_t thread;
        pthread_create(&thread, NULL, serve, (void *)(long)client);
        pthread_detach(thread);
    }
}
