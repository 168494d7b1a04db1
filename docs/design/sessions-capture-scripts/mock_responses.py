#!/usr/bin/env python3
"""A scripted stand-in for the OpenAI Responses API, on loopback, for driving the real Codex CLI
offline. Variant of bars/lib/mock_openai.py that can script Codex's apply_patch tool.

Every POST that lists the exec_command tool (a model turn; not the title request, which lists only
apply_patch) takes the next entry from the queue file --script (a JSON list, re-read on every request
and rewritten without that entry, so entries can be added while Codex runs) and answers it:
  {"patch": "*** Begin Patch\n...\n*** End Patch\n"}    -> custom_tool_call apply_patch (freeform)
  {"cmd": "printf x > y", "escalate": true}             -> function_call exec_command, with
       sandbox_permissions "require_escalated" and a justification when escalate is true;
       optional "prefix_rule": ["printf"] (the model's suggested rule) and "justification"
  {"message": "text"}                                   -> assistant message
  {"fail": 400, "text": "why"}                          -> HTTP 400 with an error body (sessions capture)
Any entry may set "call_id"; otherwise it is call_N, N counting requests.
An empty queue answers with the message "done". Each request body is saved as --dir/req-N.json and
every function/custom tool output Codex sends back is appended to --dir/outputs.jsonl (once per call_id).

Codex 0.171.0 offers apply_patch only for a model whose catalog entry says apply_patch_tool_type
"freeform"; gpt-5.1-codex is not in its bundled catalog and the GET /v1/models answer is not used, so
write the catalog with --write-catalog PATH (and exit) and set `model_catalog_json = "PATH"` in
config.toml, beside model = "gpt-5.1-codex"."""
import argparse, http.server, json, os, socketserver, threading

CATALOG = {"models": [{
    "slug": "gpt-5.1-codex", "display_name": "gpt-5.1-codex", "description": "scripted mock model",
    "base_instructions": "You are a scripted stand-in model for offline tests.",
    "apply_patch_tool_type": "freeform", "shell_type": "unified_exec", "visibility": "list",
    "supported_in_api": True, "priority": 1, "default_reasoning_level": "medium",
    "supported_reasoning_levels": [{"effort": "medium", "description": "medium"}],
    "context_window": 272000, "truncation_policy": {"mode": "tokens", "limit": 10000},
    "input_modalities": ["text"], "prefer_websockets": False, "support_verbosity": False,
    "experimental_supported_tools": []}]}

ap = argparse.ArgumentParser()
ap.add_argument("--write-catalog", help="write the model catalog for config.toml's model_catalog_json here, and exit")
ap.add_argument("--port", type=int)
ap.add_argument("--script")
ap.add_argument("--dir")
args = ap.parse_args()
if args.write_catalog:
    json.dump(CATALOG, open(args.write_catalog, "w"), indent=1)
    raise SystemExit(0)
if not (args.port and args.script and args.dir):
    ap.error("--port, --script and --dir are required")
os.makedirs(args.dir, exist_ok=True)
OUT = open(os.path.join(args.dir, "outputs.jsonl"), "a", buffering=1)
LOCK = threading.Lock()
STATE = {"n": 0, "calls": 0}
SEEN = set()


def next_entry():
    try:
        queue = json.load(open(args.script))
    except (OSError, ValueError):
        queue = []
    if not queue:
        return None
    entry = queue.pop(0)
    with open(args.script + ".tmp", "w") as f:
        json.dump(queue, f)
    os.replace(args.script + ".tmp", args.script)
    return entry


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def do_GET(self):
        with open(os.path.join(args.dir, "gets.log"), "a") as f:
            f.write(self.path + "\n")
        out = json.dumps({"object": "list", "data": [], "models": []}).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)

    def do_POST(self):
        n = int(self.headers.get("content-length", 0))
        raw = self.rfile.read(n) or b"{}"
        try:
            body = json.loads(raw)
        except ValueError:
            body = {}
        tools = [t.get("name") or t.get("type") for t in body.get("tools", [])]
        with LOCK:
            STATE["n"] += 1
            seq = STATE["n"]
            with open(os.path.join(args.dir, f"req-{seq:03d}.json"), "w") as f:
                json.dump({"path": self.path, "body": body}, f, indent=1)
            for i in body.get("input", []):
                if isinstance(i, dict) and i.get("type") in ("function_call_output", "custom_tool_call_output") \
                        and i.get("call_id") not in SEEN:
                    SEEN.add(i.get("call_id"))
                    OUT.write(json.dumps({"req": seq, "type": i["type"], "call_id": i.get("call_id"), "output": i.get("output")}) + "\n")
            entry = next_entry() if "exec_command" in tools else None  # not the title request
            STATE["calls"] += 1
            cid = f"call_{STATE['calls']}"
        if entry and "fail" in entry:  # added for the sessions capture: an HTTP error for this turn
            out = json.dumps({"error": {"message": entry.get("text", "scripted failure"), "type": "invalid_request_error", "code": None}}).encode()
            self.send_response(int(entry["fail"]))
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(out)))
            self.end_headers()
            self.wfile.write(out)
            return
        if entry and entry.get("call_id"):
            cid = entry["call_id"]
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("connection", "close")
        self.end_headers()

        def event(d):
            self.wfile.write(f"event: {d['type']}\ndata: {json.dumps(d)}\n\n".encode())

        event({"type": "response.created", "response": {"id": f"resp_{seq}"}})
        if entry and "patch" in entry:
            item = {"type": "custom_tool_call", "id": f"ctc_{seq}", "call_id": cid, "name": "apply_patch",
                    "input": entry["patch"], "status": "completed"}
        elif entry and "cmd" in entry:
            call = {"cmd": entry["cmd"]}
            if entry.get("escalate"):
                call.update({"sandbox_permissions": "require_escalated", "justification": entry.get("justification", "acceptance check")})
            if entry.get("prefix_rule"):
                call["prefix_rule"] = entry["prefix_rule"]
            item = {"type": "function_call", "id": f"fc_{seq}", "call_id": cid, "name": "exec_command", "arguments": json.dumps(call)}
        else:
            text = (entry or {}).get("message", "done")
            item = {"type": "message", "id": f"msg_{seq}", "role": "assistant", "content": [{"type": "output_text", "text": text}]}
        event({"type": "response.output_item.done", "item": item})
        event({"type": "response.completed", "response": {"id": f"resp_{seq}", "usage": {"input_tokens": 10, "input_tokens_details": None,
               "output_tokens": 5, "output_tokens_details": None, "total_tokens": 15}}})
        self.wfile.flush()
        self.close_connection = True


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True


Server(("127.0.0.1", args.port), Handler).serve_forever()
