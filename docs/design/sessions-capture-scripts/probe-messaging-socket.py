#!/usr/bin/env python3
"""Scratch probe of Claude Code's CLAUDE_CODE_MESSAGING_SOCKET: reads the socket and token from a
hook's env dump ($1), sends (a) a user line with no auth frame, (b) an auth frame with a wrong
token then a user line, (c) the right token then a user line. Prints what the socket answered."""
import json, socket, sys, time
env = dict(l.rstrip("\n").split("=", 1) for l in open(sys.argv[1]) if "=" in l)
path, token = env.get("CLAUDE_CODE_MESSAGING_SOCKET"), env.get("CLAUDE_CODE_MESSAGING_TOKEN")
print("socket:", path, "token present:", bool(token), "token length:", len(token or ""))
def send(lines, label):
    s = socket.socket(socket.AF_UNIX); s.settimeout(2)
    try:
        s.connect(path)
        for l in lines: s.sendall((json.dumps(l) + "\n").encode())
        time.sleep(0.5); s.shutdown(socket.SHUT_WR)
        got = b""
        try:
            while True:
                d = s.recv(65536)
                if not d: break
                got += d
        except Exception as e: got += f"<{e}>".encode()
        print(label, "->", got[:500])
    except Exception as e:
        print(label, "-> error", e)
    finally: s.close()
mode = sys.argv[2]
if mode == "noauth":
    send([{"type": "user", "message": {"content": "UNAUTHENTICATED socket message"}}], "no auth frame")
elif mode == "badauth":
    send([{"type": "auth", "token": "0" * len(token or "x")}, {"type": "user", "message": {"content": "BAD-TOKEN socket message"}}], "wrong token")
elif mode == "auth":
    send([{"type": "auth", "token": token}, {"type": "user", "message": {"content": "SOCKET-REPLY: say the second sentence"}}], "right token")
