#!/bin/bash
# Scratch capture: real Codex 0.171.0 in a private tmux server against mock_responses.py.
# Turn 1: an assistant message (Stop). Turn 2: HTTP 400 (which hook, if any?). Then /quit.
set -u
CAP=/work/notes/captures; OUT=$CAP/codex-0.171.0; mkdir -p $OUT
ROOT=$(mktemp -d /tmp/gh-cap-codex-XXXXXX); ROOT=$(cd $ROOT && pwd -P)
CH=$ROOT/codex-home; W=$ROOT/workspace; L=$ROOT/log; mkdir -p $CH $W $L/ctl
SOCK=gh-capx-$$
cleanup() { tmux -L $SOCK kill-server 2>/dev/null; rm -f /tmp/tmux-$(id -u)/$SOCK; [ -n "${FAKE:-}" ] && kill $FAKE 2>/dev/null; wait 2>/dev/null; rm -rf "$ROOT"; }
trap cleanup EXIT
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
python3 $CAP/mock_responses.py --write-catalog $CH/model-catalog.json
echo '[{"message": "I finished the first task."}, {"fail": 400, "text": "scripted failure for the capture"}]' > $ROOT/script.json
cat > $CH/config.toml <<TOML
model = "gpt-5.1-codex"
model_provider = "fake"
approval_policy = "on-request"
sandbox_mode = "read-only"
model_catalog_json = "$CH/model-catalog.json"
[model_providers.fake]
name = "fake"
base_url = "http://127.0.0.1:$PORT/v1"
wire_api = "responses"
env_key = "FAKE_KEY"
request_max_retries = 0
stream_max_retries = 0
[projects."$W"]
trust_level = "trusted"
[features]
daemon_auto_start = false
TOML
python3 - "$CH" "$CAP/log-hook.sh" "$L" <<'PY'
import json, sys
ch, hook, log = sys.argv[1:]
ev = ["SessionStart", "UserPromptSubmit", "Stop", "Interrupt", "SessionEnd", "PostToolUse", "PermissionRequest"]
json.dump({"hooks": {e: [dict({"hooks": [{"type": "command", "command": f"{hook} {log} {e}", "timeout": 10}]}, **({"matcher": "*"} if e in ("PostToolUse", "PermissionRequest") else {}))] for e in ev}}, open(ch + "/hooks.json", "w"), indent=1)
PY
python3 $CAP/mock_responses.py --port $PORT --script $ROOT/script.json --dir $L/mock & FAKE=$!
BIN=/work/main/node_modules/.bin/codex
tmux -L $SOCK -f /dev/null new-session -d -s cap -x 160 -y 50 -c $W \
  env -i HOME=$ROOT PATH=$PATH TERM=xterm-256color SHELL=/bin/bash CODEX_HOME=$CH FAKE_KEY=unused $BIN
tmux -L $SOCK set-option -t cap remain-on-exit on
screen() { tmux -L $SOCK capture-pane -p -t cap 2>/dev/null || echo "(no pane)"; }
waitfor() { for i in $(seq 450); do screen | grep -qF "$1" && return 0; sleep 0.1; done; echo "TIMEOUT waiting for $1"; screen; return 1; }
waitfile() { for i in $(seq 300); do [ -s "$1" ] && return 0; sleep 0.1; done; echo "TIMEOUT waiting for $1"; return 1; }
typeline() { tmux -L $SOCK send-keys -t cap -l "$1"; sleep 0.3; tmux -L $SOCK send-keys -t cap Enter; }
waitfor "Hooks need review" && { for i in 1 2 3 4 5; do screen | grep -qF "Hooks need review" || break; tmux -L $SOCK send-keys -t cap 2; sleep 0.2; tmux -L $SOCK send-keys -t cap Enter; sleep 1.5; done; }
sleep 2; screen > $OUT/screen-start.txt
typeline "say the first sentence"
waitfile $L/Stop.jsonl; sleep 2
screen > $OUT/screen-after-stop.txt
typeline "now fail please"
sleep 8
screen > $OUT/screen-after-failure.txt
cp $CH/sessions/*/*/*/*.jsonl $OUT/rollout.jsonl 2>/dev/null
typeline "/quit"
sleep 4
screen > $OUT/screen-after-quit.txt
for f in $L/*.jsonl $L/*.env; do [ -f "$f" ] && cp "$f" $OUT/; done
sed -i "s|$CH|/home/dev/.codex|g; s|$W|/home/dev/project|g; s|$ROOT|/home/dev|g" $OUT/* 2>/dev/null
echo done
