/* The floor for a hook that does what `gatehouse hook claude` does for an observed event: read
 * the event from stdin, connect to the gateway's socket, say hello, report an observation, read
 * each reply, exit. No JSON is parsed (the observation is fixed), so no real hook is cheaper.
 * benches/hook_overhead.rs compiles it with `cc -O2` and runs it beside gatehouse's hook. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static void read_line(int fd) {
    char byte;
    while (read(fd, &byte, 1) == 1 && byte != '\n') {
    }
}

int main(void) {
    char buffer[65536];
    while (read(0, buffer, sizeof buffer) > 0) {
    }
    const char *path = getenv("GATEHOUSE_SOCKET");
    if (path == NULL || strlen(path) >= sizeof(((struct sockaddr_un *)0)->sun_path)) {
        return 0;
    }
    struct sockaddr_un address = {.sun_family = AF_UNIX};
    strcpy(address.sun_path, path);
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    if (fd < 0 || connect(fd, (struct sockaddr *)&address, sizeof address) != 0) {
        return 0;
    }
    static const char *requests[] = {
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"hello\",\"params\":{\"protocol\":1,\"role\":\"hook\"}}\n",
        "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"hook.observe\",\"params\":{\"observation\":"
        "{\"type\":\"tool_finished\",\"adapter\":\"claude\",\"session\":\"s\",\"correlation\":\"c\"}}}\n",
    };
    for (int i = 0; i < 2; i++) {
        if (write(fd, requests[i], strlen(requests[i])) < 0) {
            return 0;
        }
        read_line(fd);
    }
    close(fd);
    return 0;
}
