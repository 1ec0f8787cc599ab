#ifndef VAULT_SHIMS_H
#define VAULT_SHIMS_H

#include <pthread.h>
#include <stddef.h>
#include <sys/types.h>

/// The peer of a connected Unix socket (SO_PEERCRED). Returns 0, or -1 with errno set.
int vault_peer_credentials(int fd, pid_t *pid, uid_t *uid, gid_t *gid);

/// Core dumps off and the process not dumpable (prctl PR_SET_DUMPABLE 0, RLIMIT_CORE 0), so key
/// material cannot end up in a core file or be read through ptrace by the same user's processes.
/// Returns 0, or -1 with errno set.
int vault_disable_core_dumps(void);

/// Starts `path` with `argv` in a new session (POSIX_SPAWN_SETSID), stdin and stdout on /dev/null,
/// stderr on `stderr_fd` (or /dev/null when negative), every other descriptor closed.
/// Returns the pid, or -1 with errno set.
pid_t vault_spawn_detached(const char *path, char *const argv[], char *const envp[], int stderr_fd);

/// For `vaultctl run`: installs a handler for each of `signals` that writes one byte to a pipe and
/// returns the pipe's read end (both ends close-on-exec and non-blocking), or -1 with errno set.
/// The byte is the signal's number, plus 128 when the kernel sent it (si_code SI_KERNEL: the
/// terminal's ^C, ^\ and window changes, which reach the whole foreground process group). A
/// signal ignored on entry (nohup's SIGHUP) is left ignored, except SIGCHLD; the others are
/// unblocked in the calling thread, whatever mask the parent left.
int vault_signal_pipe(const int *signals, int count);

/// Starts `file` (looked up in PATH as execvp does) with `argv` and exactly `envp`, in the
/// caller's process group, with an empty signal mask and the default action for SIGPIPE and
/// every signal vault_signal_pipe caught; stdout and stderr on `stdout_fd` and `stderr_fd` when not
/// negative, inherited otherwise; every other descriptor from 3 up closed. Returns the pid, or -1
/// with errno set (ENOENT: no such program).
pid_t vault_spawn_command(const char *file, char *const argv[], char *const envp[], int stdout_fd, int stderr_fd);

/// Unblocks `signals` in the calling thread (a parent may have left them blocked). 0 or -1.
int vault_unblock_signals(const int *signals, int count);

/// pipe2(2), which Swift's Glibc module does not export: `flags` O_CLOEXEC, O_NONBLOCK.
int vault_pipe(int ends[2], int flags);

/// A pidfd for the process that connected the Unix socket `fd` (SO_PEERPIDFD, Linux 6.5+): taken
/// by the kernel at connect(2), so it cannot name a later process that reuses the pid. Returns the
/// descriptor (close-on-exec), or -1 with errno set (ENOPROTOOPT on older kernels).
int vault_peer_pidfd(int fd);

/// A pidfd for `pid` (pidfd_open(2), close-on-exec): it keeps naming that process, never one that
/// reuses its pid later. Returns the descriptor, or -1 with errno set (ENOSYS before Linux 5.3).
int vault_pidfd_open(pid_t pid);

/// Whether the process behind `pidfd` is still running (pidfd_send_signal with signal 0): while it
/// is, its pid names it and nothing else. Returns 1 running, 0 exited, -1 with errno set.
int vault_pidfd_running(int pidfd);

/// Asks the kernel to attach each message's sender to what `fd` (a listening or connected Unix
/// socket) receives: SO_PASSCRED. A socket accepted from a listening one inherits it, and bytes
/// sent before the accept carry their sender too. Returns 0, or -1 with errno set.
int vault_pass_senders(int fd);

/// recvmsg(MSG_PEEK) of up to `size` bytes, all from one sender (the kernel never joins bytes of
/// two senders in one read once SO_PASSCRED is on): its pid in `*sender` (0 when none came).
/// Descriptors sent along (SCM_RIGHTS) are closed. Returns the count, or -1 with errno set.
ssize_t vault_peek_from_sender(int fd, void *buffer, size_t size, pid_t *sender);

/// A pidfd for the sender of the next unread byte of `fd` (with `ask_pidfd`, turning SO_PASSPIDFD
/// on, Linux 6.5+: SCM_PIDFD names the process that sent it,
/// never one that reused its pid since; none once it has been reaped), and its pid in `*sender`
/// (left alone when no byte waits). Returns the pidfd, or -1 (no byte waiting, no pidfd from this
/// kernel, or the sender is gone).
int vault_sender_pidfd(int fd, pid_t *sender, int ask_pidfd);

/// When process `pid` started, in clock ticks since boot (/proc/PID/stat's starttime); -1 if unknown.
long long vault_process_start_ticks(pid_t pid);

/// CLOCK_BOOTTIME now, in the same clock ticks; -1 if unknown.
long long vault_boot_ticks_now(void);

/// A readers-writer lock that prefers writers (glibc's PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP):
/// once a writer waits, new readers wait behind it. Readers take it without a system call while
/// no writer is about. Returns 0, or an errno value.
int vault_rwlock_init_prefer_writer(pthread_rwlock_t *lock);

/// mallopt(M_MMAP_THRESHOLD, bytes): glibc serves blocks of `bytes` and more with mmap from now
/// on, and stops raising that threshold dynamically. Returns 1 on success, 0 on error.
int vault_set_mmap_threshold(int bytes);

/// getrandom(2) with no flags, which Swift's Glibc module does not export: up to `count` random
/// bytes from the kernel's pool. Returns how many it wrote, or -1 with errno set.
ssize_t vault_getrandom(void *buffer, size_t count);

/// Whether the `count` bytes at `a` and `b` are equal, in a time that depends only on `count`
/// (every byte is read; no early exit), for comparing secrets. Returns 1 equal, 0 different.
int vault_constant_time_equal(const void *a, const void *b, size_t count);

/// How many CPUs this thread may run on (sched_getaffinity: taskset, cpusets, a container's
/// cpuset), at least 1; the online count when that cannot be read.
int vault_usable_cpu_count(void);

/// The type of the filesystem holding `path` (statfs's f_type: EXT4_SUPER_MAGIC, NFS_SUPER_MAGIC,
/// ...), in `*type`. Returns 0, or -1 with errno set.
int vault_filesystem_type(const char *path, long long *type);

/// Opens the directory `path` for use as a directory descriptor only (O_PATH | O_DIRECTORY |
/// O_NOFOLLOW | O_CLOEXEC): nothing in it can be read through it, names can be looked up in it.
/// Returns the descriptor, or -1 with errno set.
int vault_open_directory_path(const char *path);

#endif
