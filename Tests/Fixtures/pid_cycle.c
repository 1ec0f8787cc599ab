/* Makes TARGET the next pid the kernel hands out, as any program of the user can without
 * privilege: starts children that exit at once until the last one got TARGET - 1. Exits 0 then;
 * 2 when another process took TARGET - 1 or TARGET first; 1 when SECONDS passed before either.
 * Usage: pid_cycle TARGET SECONDS */
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc != 3) return 64;
    pid_t target = (pid_t)atol(argv[1]);
    time_t deadline = time(NULL) + atol(argv[2]);
    pid_t last = 0;
    for (unsigned long count = 0;; count++) {
        pid_t child = vfork();
        if (child == 0) _exit(0);
        if (child < 0) return 3;
        waitpid(child, NULL, 0);
        if (child == target - 1) return 0;
        if (child == target || (last != 0 && last < target - 1 && child > target)) return 2;
        last = child;
        if (count % 1024 == 0 && time(NULL) > deadline) return 1;
    }
}
