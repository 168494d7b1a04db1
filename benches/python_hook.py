#!/usr/bin/env python3
"""The smallest hook most people write, for comparison with gatehouse's hook: parse the event JSON
from stdin, connect to the gateway's socket, say hello as a hook in the build's protocol (the
bench passes it in GATEHOUSE_BENCH_PROTOCOL), report the observation, exit."""
import json
import os
import socket
import sys

event = json.load(sys.stdin)
observation = {
    "type": "tool_finished",
    "adapter": "claude",
    "session": event["session_id"],
    "correlation": event["tool_name"] + ":" + event.get("tool_use_id", ""),
}
try:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
        connection.connect(os.environ["GATEHOUSE_SOCKET"])
        stream = connection.makefile("rwb")
        hello = {
            "protocol": int(os.environ["GATEHOUSE_BENCH_PROTOCOL"]),
            "role": "hook",
            "client": "python-hook",
            "host": socket.gethostname(),
        }
        for request in (
            {"jsonrpc": "2.0", "id": 1, "method": "hello", "params": hello},
            {"jsonrpc": "2.0", "id": 2, "method": "hook.observe", "params": {"observation": observation}},
        ):
            stream.write(json.dumps(request).encode() + b"\n")
            stream.flush()
            reply = json.loads(stream.readline())
            if "error" in reply:
                print(f"python hook: {reply['error']}", file=sys.stderr)
                break
except (OSError, ValueError, KeyError) as error:
    print(f"python hook: {error}", file=sys.stderr)
