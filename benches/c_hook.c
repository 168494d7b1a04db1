/* The floor for a command hook that does a real hook's work for an observed event or a prompt
 * registered for watching, in C with nothing to spare: read the whole event from stdin in
 * blocks, pick the few fields it needs out of it (no JSON parser: a scan for each key, and the
 * strings copied still escaped), find the gateway's socket as gatehouse does (GATEHOUSE_SOCKET,
 * else under XDG_RUNTIME_DIR, else /tmp/gatehouse-UID) after looking for a config file, connect,
 * refuse a server of another user (SO_PEERCRED) before sending a byte, say hello in the current
 * protocol as a hook naming its host, then report the observation (a Claude Code PostToolUse)
 * or hold the prompt (a Codex PermissionRequest, which a gateway that offers nothing for it
 * registers and answers `watched` at once), read each reply in blocks up to its newline, and
 * exit 0 whatever happens; an observation that finds no gateway is appended to the spool. It computes no correlation digest and
 * checks no reply beyond its line, so no real hook is cheaper.
 *
 * benches/hook_overhead.rs compiles it with `cc -O2 -DGATEHOUSE_PROTOCOL=N`, N being the
 * protocol version of the build (gatehouse_host_ipc::PROTOCOL_VERSION), and runs it beside
 * gatehouse's hooks. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#ifndef GATEHOUSE_PROTOCOL
#error "compile with -DGATEHOUSE_PROTOCOL=<the protocol version>"
#endif
#define STRINGIFY(x) #x
#define TEXT(x) STRINGIFY(x)

/* As gatehouse's hook: the most of an event that is read. */
#define MAX_EVENT (12 * 1024 * 1024)

static char *event;
static size_t event_length;

/* The whole of stdin, read in blocks; 0 when it cannot be, or is larger than MAX_EVENT. */
static int read_event(void) {
    size_t capacity = 64 * 1024;
    event = malloc(capacity + 1);
    while (event != NULL) {
        ssize_t got = read(0, event + event_length, capacity - event_length);
        if (got == 0) {
            event[event_length] = 0;
            return 1;
        }
        if (got < 0) {
            return 0;
        }
        event_length += (size_t)got;
        if (event_length == capacity) {
            if (capacity >= MAX_EVENT) {
                return 0;
            }
            capacity *= 2;
            event = realloc(event, capacity + 1);
        }
    }
    return 0;
}

/* The string value of the first `"key":` in the event, still escaped (it is written back into
 * JSON as it is), or "" when there is none. */
static const char *string_of(const char *key, char *out, size_t size) {
    char quoted[64];
    snprintf(quoted, sizeof quoted, "\"%s\"", key);
    out[0] = 0;
    const char *at = strstr(event, quoted);
    if (at == NULL) {
        return out;
    }
    at += strlen(quoted);
    while (*at == ' ' || *at == '\n' || *at == '\t' || *at == '\r' || *at == ':') {
        at++;
    }
    if (*at != '"') {
        return out;
    }
    const char *end = ++at;
    while (*end != 0 && *end != '"') {
        end += (*end == '\\' && end[1] != 0) ? 2 : 1;
    }
    size_t length = (size_t)(end - at);
    if (length >= size) {
        length = size - 1;
    }
    memcpy(out, at, length);
    out[length] = 0;
    return out;
}

/* Reads one reply up to its newline, in blocks; 0 on an error or a closed connection. Bytes
 * read past the newline (the next reply, come in the same block) are kept for the next call. */
static int read_reply(int fd) {
    static char buffer[64 * 1024];
    static size_t kept;
    for (;;) {
        char *newline = memchr(buffer, '\n', kept);
        if (newline != NULL) {
            size_t line = (size_t)(newline - buffer) + 1;
            memmove(buffer, newline + 1, kept - line);
            kept -= line;
            return 1;
        }
        if (kept == sizeof buffer) {
            kept = 0;
        }
        ssize_t got = read(fd, buffer + kept, sizeof buffer - kept);
        if (got <= 0) {
            return 0;
        }
        kept += (size_t)got;
    }
}

/* An observation that found no gateway goes to the spool, as gatehouse's hook keeps it for the
 * next hook that reaches one: its folders made below HOME (mode 0700), one line appended to a
 * file of mode 0600 that is not followed if it is a link. */
static void spool(const char *home, const char *session, const char *tool) {
    if (home == NULL || home[0] == 0) {
        return;
    }
    char path[4096];
    const char *folders[] = {"/.local", "/.local/state", "/.local/state/gatehouse"};
    for (int i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s%s", home, folders[i]);
        mkdir(path, 0700);
    }
    snprintf(path, sizeof path, "%s/.local/state/gatehouse/spool.jsonl", home);
    int file = open(path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (file < 0) {
        return;
    }
    char line[1024];
    int length = snprintf(line, sizeof line,
                          "{\"observed_at\":%ld,\"observation\":{\"type\":\"tool_finished\","
                          "\"adapter\":\"claude\",\"session\":\"%s\",\"correlation\":\"%s\"}}\n",
                          (long)time(NULL) * 1000, session, tool);
    if (length > 0 && (size_t)length < sizeof line) {
        write(file, line, (size_t)length);
    }
    close(file);
}

static int send_all(int fd, const char *text, size_t length) {
    while (length > 0) {
        ssize_t sent = write(fd, text, length);
        if (sent <= 0) {
            return 0;
        }
        text += sent;
        length -= (size_t)sent;
    }
    return 1;
}

int main(void) {
    if (!read_event()) {
        return 0;
    }
    static char name[64], session[256], tool[256], cwd[4096], command[8192];
    string_of("hook_event_name", name, sizeof name);
    string_of("session_id", session, sizeof session);
    string_of("tool_name", tool, sizeof tool);
    int observe = strcmp(name, "PostToolUse") == 0;
    if (!observe && strcmp(name, "PermissionRequest") != 0) {
        return 0;
    }

    /* Where the socket is: the config file may name it (looked for; absent here), then the
     * environment, then the default. */
    const char *home = getenv("HOME");
    char path[4096];
    snprintf(path, sizeof path, "%s/.config/gatehouse/config.toml", home ? home : "");
    int config = open(path, O_RDONLY | O_CLOEXEC);
    if (config >= 0) {
        close(config);
    }
    const char *socket_path = getenv("GATEHOUSE_SOCKET");
    const char *runtime = getenv("XDG_RUNTIME_DIR");
    if (socket_path != NULL && socket_path[0] != 0) {
        snprintf(path, sizeof path, "%s", socket_path);
    } else if (runtime != NULL && runtime[0] != 0) {
        snprintf(path, sizeof path, "%s/gatehouse/gatehouse.sock", runtime);
    } else {
        snprintf(path, sizeof path, "/tmp/gatehouse-%u/gatehouse.sock", (unsigned)getuid());
    }
    struct sockaddr_un address = {.sun_family = AF_UNIX};
    if (strlen(path) >= sizeof address.sun_path) {
        return 0;
    }
    strcpy(address.sun_path, path);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || connect(fd, (struct sockaddr *)&address, sizeof address) != 0) {
        if (observe) {
            spool(home, session, tool);
        }
        return 0;
    }
    struct ucred server;
    socklen_t server_length = sizeof server;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &server, &server_length) != 0 ||
        server.uid != geteuid()) {
        return 0;
    }

    char host[256] = "";
    gethostname(host, sizeof host - 1);
    static char request[64 * 1024];
    int length = snprintf(request, sizeof request,
                          "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"hello\",\"params\":{\"protocol\":" TEXT(
                              GATEHOUSE_PROTOCOL) ",\"role\":\"hook\",\"client\":\"c-hook\",\"host\":\"%s\"}}\n",
                          host);
    if (!send_all(fd, request, (size_t)length) || !read_reply(fd)) {
        return 0;
    }
    if (observe) {
        static char tool_use[256];
        string_of("tool_use_id", tool_use, sizeof tool_use);
        length = snprintf(request, sizeof request,
                          "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"hook.observe\",\"params\":{"
                          "\"observation\":{\"type\":\"tool_finished\",\"adapter\":\"claude\","
                          "\"session\":\"%s\",\"correlation\":\"%s:%s\"}}}\n",
                          session, tool, tool_use);
    } else {
        string_of("cwd", cwd, sizeof cwd);
        string_of("command", command, sizeof command);
        length = snprintf(
            request, sizeof request,
            "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"hook.hold\",\"params\":{\"prompt\":{"
            "\"adapter\":\"codex\",\"session\":\"%s\",\"cwd\":\"%s\",\"kind\":\"permission\","
            "\"tool\":\"%s\",\"input\":{\"command\":\"%s\"},\"summary\":\"%s\",\"correlation\":"
            "\"%s\",\"host\":\"%s\"},\"wait_ms\":600000,\"watch_if_read_only\":true}}\n",
            session, cwd, tool, command, command, session, host);
    }
    if (length < 0 || (size_t)length >= sizeof request) {
        return 0;
    }
    /* A hold is answered twice: `hook.registered`, then its outcome (`watched`, at once, for a
     * prompt nothing is offered for). */
    if (send_all(fd, request, (size_t)length) && read_reply(fd) && !observe) {
        read_reply(fd);
    }
    close(fd);
    return 0;
}
