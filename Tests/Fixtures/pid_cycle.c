/* Runs PROGRAM under the pid TARGET, as any program of the user can without privilege: starts
 * children that exit at once until one is given TARGET, and that one executes PROGRAM instead.
 * The handover has no gap another process could use, so a busy machine only costs more rounds.
 * Exits 0 once PROGRAM runs as TARGET (left running; the caller, a child subreaper, reaps it);
 * 1 when SECONDS passed first; 3 when fork or exec failed.
 * Usage: pid_cycle TARGET SECONDS PROGRAM [ARGUMENT...] */
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc < 4) return 64;
    pid_t target = (pid_t)atol(argv[1]);
    time_t deadline = time(NULL) + atol(argv[2]);
    for (unsigned long count = 1;; count++) {
        pid_t child = vfork();
        if (child == 0) {
            if (getpid() == target) execv(argv[3], argv + 3);
            _exit(getpid() == target ? 127 : 0);
        }
        if (child < 0) return 3;
        /* vfork returns once the child exited or executed PROGRAM: either way no wait is owed
         * to a child that is now PROGRAM, and a failed exec shows as its exit status. */
        if (child == target) {
            int status = 0;
            return waitpid(child, &status, WNOHANG) == 0 ? 0 : 3;
        }
        waitpid(child, NULL, 0);
        if (count % 1024 == 0 && time(NULL) > deadline) return 1;
    }
}
