#!/bin/bash
# Scratch capture: real Claude Code 2.1.332 in a private tmux server against fake_anthropic.py.
# Turn 1 ends normally (Stop), turn 2 gets HTTP 400 (StopFailure?), turn 3 gets 529 with no retries.
set -u
CAP=/work/notes/captures
OUT=$CAP/claude-code-2.1.332; mkdir -p $OUT
ROOT=$(mktemp -d /tmp/gh-cap-claude-XXXXXX); ROOT=$(cd $ROOT && pwd -P)
H=$ROOT/home; W=$ROOT/workspace; L=$ROOT/log; mkdir -p $H/.claude $W $L
SOCK=gh-cap-$$
cleanup() { tmux -L $SOCK kill-server 2>/dev/null; rm -f /tmp/tmux-$(id -u)/$SOCK; [ -n "${FAKE:-}" ] && kill $FAKE 2>/dev/null; wait 2>/dev/null; rm -rf "$ROOT"; }
trap cleanup EXIT
KEY=sk-ant-test-gatehouse-0123456789abcdefghij
python3 - "$H" "$W" "$KEY" "$CAP/log-hook.sh" "$L" <<'PY'
import json, sys
h, w, key, hook, log = sys.argv[1:]
json.dump({"hasCompletedOnboarding": True, "lastOnboardingVersion": "2.1.332", "theme": "dark",
  "customApiKeyResponses": {"approved": [key[-20:]], "rejected": []},
  "projects": {w: {"hasTrustDialogAccepted": True, "hasCompletedProjectOnboarding": True}}}, open(h + "/.claude.json", "w"))
ev = ["SessionStart", "UserPromptSubmit", "Stop", "StopFailure", "SessionEnd", "Notification", "PreToolUse", "PermissionRequest"]
hooks = {e: [dict({"hooks": [{"type": "command", "command": f"{hook} {log} {e}", "timeout": 10}]}, **({"matcher": "*"} if e in ("PreToolUse", "PermissionRequest") else {}))] for e in ev}
json.dump({"hooks": hooks}, open(h + "/.claude/settings.json", "w"))
PY
python3 $CAP/fake_anthropic.py $ROOT/port $L/requests.jsonl & FAKE=$!
for i in $(seq 100); do [ -s $ROOT/port ] && break; sleep 0.1; done
PORT=$(cat $ROOT/port)
BIN=/work/main/node_modules/.bin/claude
tmux -L $SOCK -f /dev/null new-session -d -s cap -x 160 -y 50 -c $W \
  env -i HOME=$H PATH=$PATH TERM=xterm-256color LANG=C.UTF-8 SHELL=/bin/bash \
  ANTHROPIC_BASE_URL=http://127.0.0.1:$PORT ANTHROPIC_API_KEY=$KEY \
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_AUTOUPDATER=1 CLAUDE_CODE_MAX_RETRIES=0 \
  $BIN --model claude-haiku-4-5
tmux -L $SOCK set-option -t cap remain-on-exit on 2>/dev/null
sleep 4; tmux -L $SOCK capture-pane -p -t cap; [ -n "${DEBUG_ONLY:-}" ] && exit 0
screen() { tmux -L $SOCK capture-pane -p -t cap 2>/dev/null || echo "(no pane)"; }
old_screen() { tmux -L $SOCK capture-pane -p -t cap; }
waitfor() { for i in $(seq 600); do screen | grep -qF "$1" && return 0; sleep 0.1; done; echo "TIMEOUT waiting for $1"; screen; return 1; }
waitfile() { for i in $(seq 600); do [ -s "$1" ] && return 0; sleep 0.1; done; echo "TIMEOUT waiting for $1"; screen; return 1; }
typeline() { tmux -L $SOCK send-keys -t cap -l "$1"; sleep 0.3; tmux -L $SOCK send-keys -t cap Enter; }
waitfor "? for shortcuts"
typeline "say the first sentence"
waitfile $L/Stop.jsonl; waitfor "? for shortcuts"
screen > $OUT/screen-after-stop.txt
# The messaging socket: unauthenticated, wrong token, right token (while idle).
P=$CAP/probe-messaging-socket.py
python3 $P $L/Stop.env noauth > $OUT/socket-probe.txt 2>&1; sleep 2
python3 $P $L/Stop.env badauth >> $OUT/socket-probe.txt 2>&1; sleep 2
N0=$(wc -l < $L/requests.jsonl)
python3 $P $L/Stop.env auth >> $OUT/socket-probe.txt 2>&1
for i in $(seq 150); do [ $(wc -l < $L/requests.jsonl) -gt $N0 ] && break; sleep 0.1; done
sleep 3; waitfor "? for shortcuts"
screen > $OUT/screen-after-socket-message.txt
ls -la $(dirname $(grep MESSAGING_SOCKET $L/Stop.env | cut -d= -f2)) >> $OUT/socket-probe.txt 2>&1
typeline "now FAIL-400 please"
waitfile $L/StopFailure.jsonl; sleep 1
screen > $OUT/screen-after-stopfailure-400.txt
cp $L/StopFailure.jsonl $L/StopFailure-400.jsonl; : > $L/StopFailure.jsonl
typeline "now FAIL-529 please"
waitfile $L/StopFailure.jsonl; sleep 1
screen > $OUT/screen-after-stopfailure-529.txt
# Copy the transcript as it stands, and the messaging socket probe material
cp $H/.claude/projects/*/*.jsonl $OUT/transcript.jsonl 2>/dev/null
echo "$ROOT" > $OUT/.root
if [ -n "${PROBE_SOCKET:-}" ]; then $PROBE_SOCKET $L $OUT; fi
typeline "/exit"
waitfile $L/SessionEnd.jsonl
sleep 1
for f in $L/*; do cp "$f" $OUT/; done
sed -i "s|$ROOT/home|/home/dev|g; s|$ROOT/workspace|/home/dev/project|g; s|$ROOT|/tmp/root|g" $OUT/* 2>/dev/null
sed -i "s/\(MESSAGING_TOKEN=\).*/\1<redacted, 64 chars?>/" $OUT/*.env 2>/dev/null
echo done
