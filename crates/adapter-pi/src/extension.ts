// gatehouse's pi extension: asks before pi runs the chosen tools, in pi's own dialog and through
// gatehouse at once, and takes the first answer. Written by `gatehouse install pi`, removed by
// `gatehouse uninstall pi`; do not edit (a reinstall overwrites it).
//
// pi has no permission prompt of its own: every tool call runs unless an extension blocks it.
// For each call of a tool in TOOLS this extension, at the same time:
// - runs `HOOK hook pi tool_call` as a child process (no shell: an argument array) with the call
//   as JSON on stdin, and reads the verdict it prints (`{"allow": true}`, or `{"allow": false,
//   "reason": R}`);
// - shows pi's own confirm dialog, Yes or No, with the call whole.
// The first answer wins: a verdict from gatehouse closes the dialog; an answer in the dialog ends
// the hook (so gatehouse withdraws its prompt) and tells gatehouse the call is settled. A deny
// reaches the model as the reason.
//
// Every failure is "ask in pi's dialog", never "run": no gatehouse, no gateway, a hook that
// fails, prints too much or something that is not a verdict, or passes its deadline leaves the
// dialog to decide. Without a dialog (print mode), such a call is blocked. Cancelling the turn
// (Esc) blocks it. Nothing here throws into pi, the children and the bytes read back are bounded,
// and nothing of a call is ever run here: it is only written to the hook's stdin.
import { spawn } from "node:child_process"
import { readFileSync, realpathSync } from "node:fs"
import { dirname, join } from "node:path"

// The hook program, as `gatehouse install pi` found it, and the tools whose calls are asked
// about (any other runs as pi runs it).
const HOOK = "@GATEHOUSE_HOOK@"
const TOOLS = "@GATEHOUSE_TOOLS@"
// The longest a hook holding a call may run: gatehouse's own hold, and a margin.
const HOLD_DEADLINE_MS = "@HOLD_DEADLINE_MS@"
const OBSERVATION_DEADLINE_MS = 10 * 1000
// How many hooks may run at once; a call beyond that is left to pi's dialog.
const MAX_CHILDREN = 32
// The most a call sent to the hook may be; a larger one is left to pi's dialog.
const MAX_EVENT_CHARS = 4 * 1024 * 1024
// The most a hook may print; more is not a verdict.
const MAX_VERDICT_BYTES = 64 * 1024
// The most of a gatehouse reason the model is given.
const MAX_REASON_CHARS = 4096
// What the model is told when the call is not run, by who decided.
const DENIED_IN_DIALOG = "The person denied this tool call in pi's dialog."
const CANCELLED = "The turn was cancelled before this tool call was answered."
const NO_DIALOG =
  "gatehouse could not ask about this tool call (no answer from its gateway) and pi shows no dialog here, so it was not run."
const DIALOG_FAILED = "pi's dialog could not ask about this tool call, so it was not run."

// The version of the pi this runs in, from its package's package.json above the script it runs,
// for the hook to report (pi sets its process title, so its command line no longer names the
// script). Unknown is "": gatehouse then offers nothing for the call.
function piVersion() {
  try {
    let folder = dirname(realpathSync(process.argv[1]))
    for (let depth = 0; depth < 4; depth += 1) {
      try {
        const found = JSON.parse(readFileSync(join(folder, "package.json"), "utf8"))
        if (found?.name === "@mariozechner/pi-coding-agent" && typeof found.version === "string")
          return found.version
      } catch {}
      folder = dirname(folder)
    }
  } catch {}
  return ""
}

// A call's text as the dialog shows it: control, bidirectional and zero-width characters as
// escapes (gatehouse's `text::visible`), so that the model's text cannot redraw pi's terminal or
// hide what is approved. Newlines and tabs stay.
function visible(text) {
  let shown = ""
  for (const character of String(text)) {
    const code = character.codePointAt(0)
    if (character === "\n" || character === "\t") shown += character
    else if (code === 0x1b) shown += "\\e"
    else if (code === 0x0d) shown += "\\r"
    else if (
      code < 0x20 ||
      (code >= 0x7f && code <= 0x9f) ||
      (code >= 0x200b && code <= 0x200f) ||
      (code >= 0x2028 && code <= 0x202e) ||
      (code >= 0x2060 && code <= 0x2069) ||
      code === 0x061c ||
      code === 0xfeff
    )
      shown += "\\u{" + code.toString(16) + "}"
    else shown += character
  }
  return shown
}

// What the dialog says of a call: a command whole, else the input whole as JSON.
function described(event) {
  const input = event?.input
  if (event?.toolName === "bash" && typeof input?.command === "string") return visible(input.command)
  try {
    return visible(JSON.stringify(input, null, 2))
  } catch {
    return visible(String(input))
  }
}

export default function (pi) {
  const version = piVersion()
  let running = 0
  const waiting = new Set()
  // Sessions with a call gatehouse heard of in the turn under way.
  const asked = new Set()

  // Runs the hook for `word` with `payload` on stdin; `done(stdout)` gets what it printed when it
  // exited 0 within its deadline and printed little enough, `done(null)` otherwise. Returns a
  // function that ends the hook, or null when none was started.
  function runHook(word, payload, deadlineMs, done) {
    let finished = false
    const finish = (stdout) => {
      if (finished) return
      finished = true
      try {
        done(stdout)
      } catch {}
    }
    if (running >= MAX_CHILDREN) return finish(null), null
    let text
    try {
      text = JSON.stringify({ event: word, ...payload })
    } catch {
      return finish(null), null
    }
    if (typeof text !== "string" || text.length > MAX_EVENT_CHARS) return finish(null), null
    let child
    try {
      child = spawn(HOOK, ["hook", "pi", word], {
        stdio: ["pipe", "pipe", "ignore"],
        shell: false,
        windowsHide: true,
        env: { ...process.env, GATEHOUSE_PI_PID: String(process.pid), GATEHOUSE_PI_VERSION: version },
      })
    } catch {
      return finish(null), null
    }
    running += 1
    waiting.add(child)
    const chunks = []
    let size = 0
    let spoiled = false
    const stop = () => {
      try {
        child.kill("SIGTERM")
      } catch {}
    }
    const timer = setTimeout(() => {
      spoiled = true
      stop()
    }, deadlineMs)
    timer?.unref?.()
    const end = (ok) => {
      if (!waiting.delete(child)) return
      running -= 1
      clearTimeout(timer)
      finish(ok && !spoiled ? Buffer.concat(chunks).toString("utf8") : null)
    }
    child.on("error", () => end(false))
    child.on("close", (code, signal) => end(code === 0 && !signal))
    child.stdout.on("error", () => {})
    child.stdout.on("data", (chunk) => {
      size += chunk.length
      if (size > MAX_VERDICT_BYTES) {
        spoiled = true
        stop()
        return
      }
      chunks.push(chunk)
    })
    child.stdin.on("error", () => {})
    try {
      child.stdin.end(text)
    } catch {}
    return () => {
      spoiled = true
      stop()
    }
  }

  // The verdict the hook printed, if it is one: `{"allow": true}`, or `{"allow": false}` with
  // its reason. Anything else is none.
  function verdictOf(stdout) {
    if (typeof stdout !== "string" || !stdout.trim()) return null
    try {
      const verdict = JSON.parse(stdout)
      if (verdict?.allow === true) return { allow: true }
      if (verdict?.allow === false && typeof verdict.reason === "string" && verdict.reason)
        return { allow: false, reason: verdict.reason.slice(0, MAX_REASON_CHARS) }
    } catch {}
    return null
  }

  function sessionOf(ctx) {
    try {
      const id = ctx?.sessionManager?.getSessionId?.()
      return typeof id === "string" ? id : ""
    } catch {
      return ""
    }
  }

  // Asks about one call: gatehouse and pi's dialog at once, the first answer wins.
  async function decide(event, ctx) {
    const session = sessionOf(ctx)
    const payload = {
      session,
      cwd: typeof ctx?.cwd === "string" ? ctx.cwd : "",
      toolName: event.toolName,
      toolCallId: typeof event.toolCallId === "string" ? event.toolCallId : "",
      input: event.input,
    }
    const dialog = new AbortController()
    let endHook = null
    const answer = await new Promise((resolve) => {
      const hasDialog = ctx?.hasUI === true && typeof ctx?.ui?.confirm === "function"
      asked.add(session)
      endHook = runHook("tool_call", payload, HOLD_DEADLINE_MS, (stdout) => {
        const verdict = verdictOf(stdout)
        if (verdict) resolve({ by: "gatehouse", ...verdict })
        else if (!hasDialog) resolve({ by: "nobody", allow: false, reason: NO_DIALOG })
      })
      if (hasDialog) {
        try {
          Promise.resolve(
            ctx.ui.confirm(`Allow ${visible(event.toolName)}?`, described(event), { signal: dialog.signal }),
          ).then(
            (yes) => {
              if (!dialog.signal.aborted)
                resolve({ by: "dialog", allow: yes === true, reason: DENIED_IN_DIALOG })
            },
            () => resolve({ by: "dialog", allow: false, reason: DIALOG_FAILED }),
          )
        } catch {
          resolve({ by: "dialog", allow: false, reason: DIALOG_FAILED })
        }
      }
      try {
        if (ctx?.signal?.aborted) resolve({ by: "cancel", allow: false, reason: CANCELLED })
        ctx?.signal?.addEventListener?.(
          "abort",
          () => resolve({ by: "cancel", allow: false, reason: CANCELLED }),
          { once: true },
        )
      } catch {}
    })
    // The dialog goes if gatehouse answered; the hook goes if it did not.
    dialog.abort()
    if (answer.by !== "gatehouse") {
      endHook?.()
      runHook("tool_call_settled", payload, OBSERVATION_DEADLINE_MS, () => {})
    }
    return answer.allow === true ? undefined : { block: true, reason: answer.reason }
  }

  pi.on("tool_call", async (event, ctx) => {
    try {
      if (!TOOLS.includes(event?.toolName)) return undefined
      return await decide(event, ctx)
    } catch {
      return { block: true, reason: DIALOG_FAILED }
    }
  })

  // The end of a turn or session settles whatever gatehouse still lists of it.
  for (const [piEvent, word] of [
    ["agent_end", "agent_end"],
    ["session_shutdown", "session_shutdown"],
  ]) {
    pi.on(piEvent, (_event, ctx) => {
      try {
        const session = sessionOf(ctx)
        if (!asked.delete(session)) return
        runHook(word, { session, cwd: typeof ctx?.cwd === "string" ? ctx.cwd : "" }, OBSERVATION_DEADLINE_MS, () => {})
      } catch {}
    })
  }

  // A hook still holding a call when pi ends would hold it for nobody: end it too, so that
  // gatehouse withdraws the prompt.
  try {
    process.once("exit", () => {
      for (const child of waiting) {
        try {
          child.kill("SIGTERM")
        } catch {}
      }
    })
  } catch {}
}
