#ifndef VAULT_SHIMS_H
#define VAULT_SHIMS_H

#include <pthread.h>
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

/// A readers-writer lock that prefers writers (glibc's PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP):
/// once a writer waits, new readers wait behind it. Readers take it without a system call while
/// no writer is about. Returns 0, or an errno value.
int vault_rwlock_init_prefer_writer(pthread_rwlock_t *lock);

#endif
