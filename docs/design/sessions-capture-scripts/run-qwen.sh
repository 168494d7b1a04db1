#!/bin/bash
# Scratch capture: real Qwen Code 0.24.4 in a private tmux server against fake_chat.py.
# Turn 1 ends normally (Stop), turn 2 gets HTTP 400 (StopFailure?). Then /quit.
set -u
CAP=/work/notes/captures; OUT=$CAP/qwen-code-0.24.4; mkdir -p $OUT
ROOT=$(mktemp -d /tmp/gh-cap-qwen-XXXXXX); ROOT=$(cd $ROOT && pwd -P)
H=$ROOT/home; W=$ROOT/workspace; L=$ROOT/log; mkdir -p $H/.qwen $W $L
SOCK=gh-capq-$$
cleanup() { tmux -L $SOCK kill-server 2>/dev/null; rm -f /tmp/tmux-$(id -u)/$SOCK; [ -n "${FAKE:-}" ] && kill $FAKE 2>/dev/null; wait 2>/dev/null; rm -rf "$ROOT"; }
trap cleanup EXIT
python3 - "$H" "$CAP/log-hook.sh" "$L" <<'PY'
import json, sys
h, hook, log = sys.argv[1:]
s = json.load(open("/work/shared/fixtures/qwen-code-0.24.4/settings.json"))
ev = ["SessionStart", "UserPromptSubmit", "Stop", "StopFailure", "SessionEnd", "Notification"]
s["hooks"] = {e: [{"matcher": "*", "hooks": [{"type": "command", "command": f"{hook} {log} {e}", "timeout": 10}]}] for e in ev}
json.dump(s, open(h + "/.qwen/settings.json", "w"), indent=1)
PY
python3 $CAP/fake_chat.py $ROOT/port $L/requests.jsonl & FAKE=$!
for i in $(seq 100); do [ -s $ROOT/port ] && break; sleep 0.1; done
PORT=$(cat $ROOT/port)
tmux -L $SOCK -f /dev/null new-session -d -s cap -x 160 -y 50 -c $W \
  env -i HOME=$H PATH=$PATH TERM=xterm-256color LANG=C.UTF-8 SHELL=/bin/bash \
  OPENAI_BASE_URL=http://127.0.0.1:$PORT/v1 OPENAI_API_KEY=fake OPENAI_MODEL=gpt-4.1 \
  /work/main/node_modules/.bin/qwen
tmux -L $SOCK set-option -t cap remain-on-exit on
screen() { tmux -L $SOCK capture-pane -p -t cap 2>/dev/null || echo "(no pane)"; }
waitfile() { for i in $(seq 300); do [ -s "$1" ] && return 0; sleep 0.1; done; echo "TIMEOUT waiting for $1"; screen; return 1; }
typeline() { tmux -L $SOCK send-keys -t cap -l "$1"; sleep 0.5; tmux -L $SOCK send-keys -t cap Enter; }
waitfile $L/SessionStart.jsonl; sleep 3
screen > $OUT/screen-start.txt
typeline "say the first sentence"
waitfile $L/Stop.jsonl; sleep 2
screen > $OUT/screen-after-stop.txt
typeline "now FAIL-400 please"
waitfile $L/StopFailure.jsonl; sleep 3
screen > $OUT/screen-after-failure.txt
typeline "/quit"
waitfile $L/SessionEnd.jsonl; sleep 1
for f in $L/*; do cp "$f" $OUT/; done
sed -i "s|$H|/home/dev|g; s|$W|/home/dev/project|g; s|$ROOT|/tmp/root|g" $OUT/* 2>/dev/null
echo done
