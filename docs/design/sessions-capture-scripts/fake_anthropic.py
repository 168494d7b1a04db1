#!/usr/bin/env python3
"""Scratch fake of the Anthropic messages API for capturing Claude Code's turn-end hooks.
Main-loop requests (streaming, with tools): a user text containing FAIL-400 gets HTTP 400,
FAIL-529 gets HTTP 529, FAIL-429 HTTP 429 (checked in that order, first); anything else gets the text "I finished: <instruction>" (end_turn).
Asides get "OK". Every main-loop request body is appended to requests.jsonl."""
import json, sys, http.server, os

LOG = sys.argv[2]

def last_user_text(body):
    msgs = body.get("messages") or []
    if not msgs: return ""
    c = msgs[-1].get("content")
    if isinstance(c, str): return c
    texts = [b.get("text", "") for b in c if isinstance(b, dict) and b.get("type") == "text"
             and not b.get("text", "").startswith("<system-reminder>")]
    return "\n".join(texts)

class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *a): pass
    def send(self, code, ctype, data):
        self.send_response(code)
        self.send_header("content-type", ctype)
        self.send_header("content-length", str(len(data)))
        self.end_headers(); self.wfile.write(data)
    def do_POST(self):
        n = int(self.headers.get("content-length", 0))
        body = json.loads(self.rfile.read(n) or b"{}")
        if self.path.startswith("/v1/messages/count_tokens"):
            return self.send(200, "application/json", b'{"input_tokens": 10}')
        main = body.get("stream") and body.get("tools")
        text = last_user_text(body) if main else ""
        if main:
            with open(LOG, "a") as f: f.write(json.dumps({"last_user_text": text, "messages": body.get("messages")[-2:]}) + "\n")
        if "FAIL-429" in text:
            return self.send(429, "application/json", json.dumps({"type": "error", "error": {"type": "rate_limit_error", "message": "scripted rate limit"}}).encode())
        if "FAIL-529" in text:
            return self.send(529, "application/json", json.dumps({"type": "error", "error": {"type": "overloaded_error", "message": "scripted overload"}}).encode())
        if "FAIL-400" in text:
            return self.send(400, "application/json", json.dumps({"type": "error", "error": {"type": "invalid_request_error", "message": "scripted failure for the capture"}}).encode())
        if "FAIL-529" in text:
            return self.send(529, "application/json", json.dumps({"type": "error", "error": {"type": "overloaded_error", "message": "scripted overload"}}).encode())
        reply = ("I finished: " + text.strip()[:80]) if main else "OK"
        msg = {"id": "msg_1", "type": "message", "role": "assistant", "model": body.get("model"),
               "content": [], "stop_reason": None, "stop_sequence": None, "usage": {"input_tokens": 10, "output_tokens": 2}}
        if not body.get("stream"):
            msg["content"] = [{"type": "text", "text": reply}]; msg["stop_reason"] = "end_turn"
            return self.send(200, "application/json", json.dumps(msg).encode())
        ev = [("message_start", {"type": "message_start", "message": msg}),
              ("content_block_start", {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
              ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": reply}}),
              ("content_block_stop", {"type": "content_block_stop", "index": 0}),
              ("message_delta", {"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": None}, "usage": {"output_tokens": 5}}),
              ("message_stop", {"type": "message_stop"})]
        data = "".join(f"event: {k}\ndata: {json.dumps(v)}\n\n" for k, v in ev).encode()
        self.send(200, "text/event-stream", data)

srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
with open(sys.argv[1], "w") as f: f.write(str(srv.server_address[1]))
srv.serve_forever()
