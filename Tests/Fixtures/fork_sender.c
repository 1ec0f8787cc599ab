/* Attack 2 of issue 30, connect, fork, exec: `fork_sender SOCKET REQUEST PROGRAM [ARG...]`
 * connects to vaultd and forks; the process that connected executes PROGRAM (an allowed program
 * that runs a while), and the child, once its parent runs PROGRAM, sends REQUEST (one JSON line)
 * on the connection it inherited and writes vaultd's answer to stdout. vaultd must answer the
 * child, which sent the request, not the allowed program, which connected. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: fork_sender SOCKET REQUEST PROGRAM [ARG...]\n");
        return 2;
    }
    struct sockaddr_un address = {.sun_family = AF_UNIX};
    strncpy(address.sun_path, argv[1], sizeof(address.sun_path) - 1);
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    if (fd < 0 || connect(fd, (struct sockaddr *)&address, sizeof(address)) != 0) { perror("connect"); return 1; }
    char mine[PATH_MAX] = {0};
    if (readlink("/proc/self/exe", mine, sizeof(mine) - 1) < 0) { perror("readlink"); return 1; }
    pid_t parent = getpid();
    pid_t child = fork();
    if (child < 0) { perror("fork"); return 1; }
    if (child > 0) {
        execv(argv[3], argv + 3);
        perror("exec");
        return 1;
    }
    char link[64], theirs[PATH_MAX];
    snprintf(link, sizeof(link), "/proc/%d/exe", (int)parent);
    for (int tries = 0; tries < 5000; tries++) {
        ssize_t length = readlink(link, theirs, sizeof(theirs) - 1);
        if (length > 0) {
            theirs[length] = 0;
            if (strcmp(theirs, mine) != 0) break;
        }
        usleep(1000);
    }
    char line[4096];
    snprintf(line, sizeof(line), "%s\n", argv[2]);
    if (write(fd, line, strlen(line)) < 0) { perror("write"); return 1; }
    char answer[65536];
    size_t length = 0;
    while (length < sizeof(answer) - 1) {
        ssize_t count = read(fd, answer + length, sizeof(answer) - 1 - length);
        if (count <= 0) break;
        length += (size_t)count;
        if (answer[length - 1] == '\n') break;
    }
    fwrite(answer, 1, length, stdout);
    return 0;
}
