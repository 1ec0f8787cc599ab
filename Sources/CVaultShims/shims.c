#define _GNU_SOURCE
#include "CVaultShims.h"

#include <sched.h>

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int vault_peer_credentials(int fd, pid_t *pid, uid_t *uid, gid_t *gid) {
    struct ucred credentials;
    socklen_t length = sizeof(credentials);
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) != 0) return -1;
    if (length != sizeof(credentials)) { errno = EPROTO; return -1; }
    *pid = credentials.pid;
    *uid = credentials.uid;
    *gid = credentials.gid;
    return 0;
}

int vault_disable_core_dumps(void) {
    struct rlimit none = {0, 0};
    if (setrlimit(RLIMIT_CORE, &none) != 0) return -1;
    if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) return -1;
    return 0;
}

// Initializes both; on failure destroys what was made and returns -1 with errno set.
static int spawn_begin(posix_spawn_file_actions_t *actions, posix_spawnattr_t *attributes) {
    int result;
    if ((result = posix_spawn_file_actions_init(actions)) != 0) { errno = result; return -1; }
    if ((result = posix_spawnattr_init(attributes)) != 0) {
        posix_spawn_file_actions_destroy(actions);
        errno = result;
        return -1;
    }
    return 0;
}

pid_t vault_spawn_detached(const char *path, char *const argv[], char *const envp[], int stderr_fd) {
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attributes;
    pid_t pid = -1;
    int result;
    if (spawn_begin(&actions, &attributes) != 0) return -1;
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    if (stderr_fd >= 0) posix_spawn_file_actions_adddup2(&actions, stderr_fd, 2);
    else posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
    // Descriptors the caller inherited without close-on-exec (a parent's pipes) must not stay
    // open for the daemon's lifetime: whoever waits for EOF on them would hang.
    posix_spawn_file_actions_addclosefrom_np(&actions, 3);
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSID);
    result = posix_spawn(&pid, path, &actions, &attributes, argv, envp);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
    if (result != 0) { errno = result; return -1; }
    return pid;
}

int vault_pipe(int ends[2], int flags);

static int signal_pipe_write_end = -1;
// The signals vault_signal_pipe caught: the ones vault_spawn_command resets for the child.
static sigset_t caught_signals;

static void vault_signal_to_pipe(int number, siginfo_t *info, void *context) {
    (void)context;
    int saved = errno;
    unsigned char byte = (unsigned char)number | (info != NULL && info->si_code == SI_KERNEL ? 0x80 : 0);
    // Non-blocking: a full pipe drops the byte rather than blocking inside a handler.
    ssize_t ignored = write(signal_pipe_write_end, &byte, 1);
    (void)ignored;
    errno = saved;
}

int vault_signal_pipe(const int *signals, int count) {
    int ends[2];
    if (vault_pipe(ends, O_CLOEXEC | O_NONBLOCK) != 0) return -1;
    signal_pipe_write_end = ends[1];
    struct sigaction action;
    memset(&action, 0, sizeof(action));
    action.sa_sigaction = vault_signal_to_pipe;
    action.sa_flags = SA_SIGINFO | SA_RESTART;
    sigfillset(&action.sa_mask);
    sigemptyset(&caught_signals);
    for (int i = 0; i < count; i++) {
        struct sigaction current;
        // One ignored on entry (nohup's SIGHUP) stays ignored, for us and the child.
        if (sigaction(signals[i], NULL, &current) != 0) return -1;
        if (current.sa_handler == SIG_IGN && signals[i] != SIGCHLD) continue;
        if (sigaction(signals[i], &action, NULL) != 0) return -1;
        sigaddset(&caught_signals, signals[i]);
    }
    // A parent may have left them blocked (Foundation's Process does): they must arrive.
    if (sigprocmask(SIG_UNBLOCK, &caught_signals, NULL) != 0) return -1;
    return ends[0];
}

pid_t vault_spawn_command(const char *file, char *const argv[], char *const envp[], int stdout_fd, int stderr_fd) {
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attributes;
    pid_t pid = -1;
    int result;
    if (spawn_begin(&actions, &attributes) != 0) return -1;
    if (stdout_fd >= 0) posix_spawn_file_actions_adddup2(&actions, stdout_fd, 1);
    if (stderr_fd >= 0) posix_spawn_file_actions_adddup2(&actions, stderr_fd, 2);
    posix_spawn_file_actions_addclosefrom_np(&actions, 3);
    sigset_t none, defaults = caught_signals;
    sigemptyset(&none);
    sigaddset(&defaults, SIGPIPE);
    posix_spawnattr_setsigmask(&attributes, &none);
    posix_spawnattr_setsigdefault(&attributes, &defaults);
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    result = posix_spawnp(&pid, file, &actions, &attributes, argv, envp);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
    if (result != 0) { errno = result; return -1; }
    return pid;
}

int vault_pipe(int ends[2], int flags) {
    return pipe2(ends, flags);
}

int vault_unblock_signals(const int *signals, int count) {
    sigset_t set;
    sigemptyset(&set);
    for (int i = 0; i < count; i++) sigaddset(&set, signals[i]);
    return sigprocmask(SIG_UNBLOCK, &set, NULL);
}

int vault_pidfd_open(pid_t pid) {
    return (int)syscall(SYS_pidfd_open, pid, 0);
}

int vault_pidfd_running(int pidfd) {
    if (syscall(SYS_pidfd_send_signal, pidfd, 0, NULL, 0) == 0) return 1;
    return errno == ESRCH ? 0 : -1;
}

#ifndef SO_PEERPIDFD
#define SO_PEERPIDFD 77
#endif

int vault_peer_pidfd(int fd) {
    int pidfd = -1;
    socklen_t length = sizeof(pidfd);
    if (getsockopt(fd, SOL_SOCKET, SO_PEERPIDFD, &pidfd, &length) != 0) return -1;
    if (length != sizeof(pidfd) || pidfd < 0) { errno = EPROTO; return -1; }
    return pidfd;
}

int vault_rwlock_init_prefer_writer(pthread_rwlock_t *lock) {
    pthread_rwlockattr_t attributes;
    int result = pthread_rwlockattr_init(&attributes);
    if (result != 0) return result;
    result = pthread_rwlockattr_setkind_np(&attributes, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
    if (result == 0) result = pthread_rwlock_init(lock, &attributes);
    pthread_rwlockattr_destroy(&attributes);
    return result;
}

#include <malloc.h>

int vault_set_mmap_threshold(int bytes) {
    return mallopt(M_MMAP_THRESHOLD, bytes);
}

ssize_t vault_getrandom(void *buffer, size_t count) {
    return getrandom(buffer, count, 0);
}

int vault_constant_time_equal(const void *a, const void *b, size_t count) {
    const volatile unsigned char *left = a;
    const volatile unsigned char *right = b;
    unsigned char difference = 0;
    for (size_t i = 0; i < count; i++) difference |= left[i] ^ right[i];
    return difference == 0;
}

int vault_usable_cpu_count(void) {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) == 0) {
        int count = CPU_COUNT(&set);
        if (count > 0) return count;
    }
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    return online > 0 ? (int)online : 1;
}

int vault_filesystem_type(const char *path, long long *type) {
    struct statfs info;
    if (statfs(path, &info) != 0) return -1;
    *type = (long long)info.f_type;
    return 0;
}

int vault_open_directory_path(const char *path) {
    return open(path, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

#ifndef SO_PASSPIDFD
#define SO_PASSPIDFD 76
#endif
#ifndef SCM_PIDFD
#define SCM_PIDFD 0x04
#endif

int vault_pass_senders(int fd) {
    int on = 1;
    return setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof(on));
}

/* Closes every descriptor a control message carries (SCM_RIGHTS from a hostile client, a
 * pidfd nobody asked for), and returns the sender's pid from SCM_CREDENTIALS (0: none), with the
 * pidfd from SCM_PIDFD in *pidfd when `pidfd` is not NULL (-1: none). */
static pid_t vault_take_sender(struct msghdr *message, int *pidfd) {
    pid_t pid = 0;
    if (pidfd) *pidfd = -1;
    for (struct cmsghdr *header = CMSG_FIRSTHDR(message); header; header = CMSG_NXTHDR(message, header)) {
        if (header->cmsg_level != SOL_SOCKET) continue;
        size_t length = header->cmsg_len - CMSG_LEN(0);
        if (header->cmsg_type == SCM_CREDENTIALS && length >= sizeof(struct ucred)) {
            struct ucred credentials;
            memcpy(&credentials, CMSG_DATA(header), sizeof(credentials));
            pid = credentials.pid;
        } else if (header->cmsg_type == SCM_PIDFD && length >= sizeof(int)) {
            int received;
            memcpy(&received, CMSG_DATA(header), sizeof(received));
            if (pidfd && *pidfd < 0 && received >= 0) *pidfd = received;
            else if (received >= 0) close(received);
        } else if (header->cmsg_type == SCM_RIGHTS) {
            for (size_t offset = 0; offset + sizeof(int) <= length; offset += sizeof(int)) {
                int received;
                memcpy(&received, CMSG_DATA(header) + offset, sizeof(received));
                if (received >= 0) close(received);
            }
        }
    }
    return pid;
}

ssize_t vault_peek_from_sender(int fd, void *buffer, size_t size, pid_t *sender) {
    /* Room for the credentials and for descriptors someone may have sent (closed at once), not
     * for a pidfd: the kernel then makes none (it checks the room first). */
    union { struct cmsghdr align; char bytes[CMSG_SPACE(sizeof(struct ucred)) + CMSG_SPACE(sizeof(int) * 8)]; } control;
    struct iovec vector = {.iov_base = buffer, .iov_len = size};
    struct msghdr message = {.msg_iov = &vector, .msg_iovlen = 1, .msg_control = control.bytes, .msg_controllen = sizeof(control.bytes)};
    ssize_t count;
    do {
        count = recvmsg(fd, &message, MSG_PEEK | MSG_CMSG_CLOEXEC);
    } while (count < 0 && errno == EINTR);
    if (count < 0) return -1;
    *sender = vault_take_sender(&message, NULL);
    return count;
}

int vault_sender_pidfd(int fd, pid_t *sender, int ask_pidfd) {
    /* Asked for only now, for bytes already queued: each carries its sender's pid since
     * SO_PASSCRED was on, and SCM_PIDFD gives a pidfd for it (Linux 6.5+; else none). */
    int on = 1;
    if (ask_pidfd) (void)setsockopt(fd, SOL_SOCKET, SO_PASSPIDFD, &on, sizeof(on));
    union { struct cmsghdr align; char bytes[CMSG_SPACE(sizeof(struct ucred)) + CMSG_SPACE(sizeof(int)) + CMSG_SPACE(sizeof(int) * 8)]; } control;
    char byte;
    struct iovec vector = {.iov_base = &byte, .iov_len = 1};
    struct msghdr message = {.msg_iov = &vector, .msg_iovlen = 1, .msg_control = control.bytes, .msg_controllen = sizeof(control.bytes)};
    ssize_t count;
    do {
        count = recvmsg(fd, &message, MSG_PEEK | MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
    } while (count < 0 && errno == EINTR);
    if (count <= 0) return -1;
    int pidfd = -1;
    *sender = vault_take_sender(&message, &pidfd);
    return pidfd;
}

long long vault_process_start_ticks(pid_t pid) {
    char path[64], text[1024];
    snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    ssize_t count = read(fd, text, sizeof(text) - 1);
    close(fd);
    if (count <= 0) return -1;
    text[count] = 0;
    /* After the command name, which may hold any byte: field 22, starttime, is the 20th after ')'. */
    char *rest = strrchr(text, ')');
    if (!rest) return -1;
    int field = 2;
    for (char *cursor = rest + 1; *cursor; cursor++) {
        if (*cursor != ' ') continue;
        field++;
        if (field == 22) return strtoll(cursor + 1, NULL, 10);
    }
    return -1;
}

long long vault_boot_ticks_now(void) {
    struct timespec now;
    if (clock_gettime(CLOCK_BOOTTIME, &now) != 0) return -1;
    long ticks = sysconf(_SC_CLK_TCK);
    return (long long)now.tv_sec * ticks + (long long)now.tv_nsec / (1000000000L / ticks);
}
