/* The benchmark's floor server (scripts/bench): a thread per connection on a Unix socket,
 * answering every request line with one fixed response line, read from a file (vaultd's real
 * answer to the same request, so both send the same number of bytes). No parsing, no store:
 * what the kernel and a minimal server cost. Usage: floor-server SOCKET RESPONSE_FILE */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static char *response;
static size_t response_size;

static void *serve(void *arg) {
    int fd = (int)(long)arg;
    char buffer[65536];
    ssize_t got;
    while ((got = read(fd, buffer, sizeof buffer)) > 0) {
        for (ssize_t i = 0; i < got; i++) {
            if (buffer[i] != '\n') continue;
            size_t sent = 0;
            while (sent < response_size) {
                ssize_t n = write(fd, response + sent, response_size - sent);
                if (n <= 0) goto done;
                sent += (size_t)n;
            }
        }
    }
done:
    close(fd);
    return NULL;
}

int main(int argc, char **argv) {
    if (argc != 3) { fprintf(stderr, "usage: floor-server SOCKET RESPONSE_FILE\n"); return 2; }
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
