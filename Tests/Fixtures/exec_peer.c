/* One connection to vaultd that may change programs: `exec_peer SOCKET` connects, then reads
 * lines from stdin. "EXEC PATH" executes PATH with "--fd N" (the connection stays open across
 * the exec, so PATH goes on with it); "FORK" forks, and the process that connected exits once
 * the child runs (the child, the same program, goes on with the connection and writes "forked"
 * once its parent is gone); any other line is sent as a request and the answer's line is written
 * to stdout. stdin is read a byte at a time, so nothing meant for the next program is
 * lost in a buffer. The attacker of the caller cache: vaultd must see who asks now, not who
 * connected. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static int read_line(int fd, char *line, size_t size) {
    size_t length = 0;
    for (;;) {
        char byte;
        ssize_t count = read(fd, &byte, 1);
        if (count <= 0) return -1;
        if (byte == '\n') break;
        if (length + 1 < size) line[length++] = byte;
    }
    line[length] = 0;
    return (int)length;
}

int main(int argc, char **argv) {
    int fd;
    if (argc == 3 && strcmp(argv[1], "--fd") == 0) {
        fd = atoi(argv[2]);
    } else if (argc == 2) {
        struct sockaddr_un address = {.sun_family = AF_UNIX};
        strncpy(address.sun_path, argv[1], sizeof(address.sun_path) - 1);
        fd = socket(AF_UNIX, SOCK_STREAM, 0);
        if (fd < 0 || connect(fd, (struct sockaddr *)&address, sizeof(address)) != 0) { perror("connect"); return 1; }
    } else {
        fprintf(stderr, "usage: exec_peer SOCKET | exec_peer --fd N\n");
        return 2;
    }
    static char line[65536];
    while (read_line(0, line, sizeof(line)) >= 0) {
        if (strncmp(line, "EXEC ", 5) == 0) {
            char number[16];
            snprintf(number, sizeof(number), "%d", fd);
            execl(line + 5, line + 5, "--fd", number, (char *)NULL);
            perror("exec");
            return 1;
        }
        if (strcmp(line, "FORK") == 0) {
            pid_t parent = getpid();
            pid_t child = fork();
            if (child < 0) { perror("fork"); return 1; }
            if (child > 0) _exit(0);
            while (getppid() == parent) usleep(1000);
            printf("forked\n");
            fflush(stdout);
            continue;
        }
        size_t length = strlen(line);
        line[length] = '\n';
        if (write(fd, line, length + 1) != (ssize_t)(length + 1)) return 1;
        if (read_line(fd, line, sizeof(line)) < 0) return 1;
        printf("%s\n", line);
        fflush(stdout);
    }
    return 0;
}
