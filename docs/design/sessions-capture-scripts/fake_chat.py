#!/usr/bin/env python3
"""Scratch OpenAI chat-completions fake for the sessions capture (Qwen Code, Copilot CLI).
A request whose last user text contains FAIL-400 gets HTTP 400; otherwise the reply
"I finished: <text>" (streamed when asked). Writes its port to argv[1], logs to argv[2]."""
import json, sys, http.server, time

def last_user_text(body):
    for m in reversed(body.get("messages") or []):
        if m.get("role") == "user":
            c = m.get("content")
            if isinstance(c, str): return c
            return "\n".join(p.get("text", "") for p in c or [] if isinstance(p, dict))
    return ""

class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *a): pass
    def send(self, code, ctype, data):
        self.send_response(code); self.send_header("content-type", ctype)
        self.send_header("content-length", str(len(data))); self.end_headers(); self.wfile.write(data)
    def do_GET(self):
        self.send(200, "application/json", json.dumps({"object": "list", "data": [{"id": "gpt-4.1", "object": "model"}]}).encode())
    def do_POST(self):
        n = int(self.headers.get("content-length", 0)); body = json.loads(self.rfile.read(n) or b"{}")
        text = last_user_text(body)
        with open(sys.argv[2], "a") as f: f.write(json.dumps({"path": self.path, "stream": body.get("stream"), "tools": bool(body.get("tools")), "last_user_text": text[-300:]}) + "\n")
        if "FAIL-400" in text:
            return self.send(400, "application/json", json.dumps({"error": {"message": "scripted failure for the capture", "type": "invalid_request_error", "code": None}}).encode())
        reply = "I finished: " + text.strip().splitlines()[-1][:80] if text.strip() else "OK"
        base = {"id": "chatcmpl-1", "object": "chat.completion", "created": int(time.time()), "model": "gpt-4.1"}
        if not body.get("stream"):
            return self.send(200, "application/json", json.dumps(dict(base, choices=[{"index": 0, "message": {"role": "assistant", "content": reply}, "finish_reason": "stop"}], usage={"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15})).encode())
        chunks = [dict(base, object="chat.completion.chunk", choices=[{"index": 0, "delta": {"role": "assistant", "content": reply}, "finish_reason": None}]),
                  dict(base, object="chat.completion.chunk", choices=[{"index": 0, "delta": {}, "finish_reason": "stop"}], usage={"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15})]
        data = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"
        self.send(200, "text/event-stream", data.encode())

srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
open(sys.argv[1], "w").write(str(srv.server_address[1]))
srv.serve_forever()
