#ifndef VAULT_SHIMS_H
#define VAULT_SHIMS_H

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

#endif
