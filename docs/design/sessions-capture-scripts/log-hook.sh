#!/bin/sh
# Appends the event's stdin (and, once per event name, the hook's env) to $1/<event>.jsonl; returns at once.
d="$1"; ev="$2"
cat >> "$d/$ev.jsonl"; printf '\n' >> "$d/$ev.jsonl"
[ -f "$d/$ev.env" ] || env | grep -E '^(CLAUDE|TMUX|CODEX|TERM)' | sort > "$d/$ev.env"
exit 0
