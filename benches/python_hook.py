#!/usr/bin/env python3
"""The smallest hook most people write, for comparison with `gatehouse hook claude`: parse the
event JSON from stdin, connect to the gateway's socket, report the observation, exit."""
import json
import os
import socket
import sys

event = json.load(sys.stdin)
observation = {
    "type": "tool_finished",
    "adapter": "claude",
    "session": event["session_id"],
    "correlation": event["tool_name"] + ":" + json.dumps(event["tool_input"], sort_keys=True, separators=(",", ":")),
}
try:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
        connection.connect(os.environ["GATEHOUSE_SOCKET"])
        stream = connection.makefile("rwb")
        for request in (
            {"jsonrpc": "2.0", "id": 1, "method": "hello", "params": {"protocol": 1, "role": "hook"}},
            {"jsonrpc": "2.0", "id": 2, "method": "hook.observe", "params": {"observation": observation}},
        ):
            stream.write(json.dumps(request).encode() + b"\n")
            stream.flush()
            stream.readline()
except OSError as error:
    print(f"python hook: {error}", file=sys.stderr)
