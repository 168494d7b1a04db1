// gatehouse's @AGENT_NAME@ plugin: hands @AGENT_NAME@'s permission prompts and questions to
// gatehouse, and replies with the person's answer. Written by `gatehouse install @ADAPTER_ID@`,
// removed by `gatehouse uninstall @ADAPTER_ID@`; do not edit (a reinstall overwrites it).
//
// One plugin for OpenCode and the agents built from it: they load it alike, send the same bus
// events and take the same replies. For each `permission.asked` and `question.asked` it runs
// `gatehouse-hook hook @ADAPTER_ID@ <event>` (or `gatehouse hook @ADAPTER_ID@ <event>` where
// there is no `gatehouse-hook`) as a child process (no shell: an argument array), with
// the event as JSON on stdin, and reads the verdict the hook prints. Only then does it reply,
// in-process, through the agent's own client: `/permission/{id}/reply` (`once`, `always` or
// `reject` with a message) or `/question/{id}/reply`. The agent's own prompt stays live
// meanwhile, and the first answer wins. `permission.replied`, `question.replied` and
// `question.rejected` are passed to gatehouse too, and end the hook still waiting for that
// request, so that a prompt answered in the agent's terminal is withdrawn at once.
//
// Whatever fails (no gatehouse, no gateway, a crash, a late reply answered 404) is ignored: the
// agent's prompt stays in charge. Nothing here throws into the agent or blocks its event loop,
// the children and the bytes read back are bounded, and nothing from an event's text is ever
// run: it is only written to the hook's stdin.
import { spawn } from "node:child_process"

// The hook, as `gatehouse install @ADAPTER_ID@` found it (`gatehouse-hook` beside the gatehouse
// binary, else that binary), and the adapter it runs.
const GATEHOUSE = "@GATEHOUSE_PROGRAM@"
const ADAPTER = "@ADAPTER_ID@"
// How many hooks may run at once; a prompt beyond that is left to the agent.
const MAX_CHILDREN = 32
// The most an event sent to the hook may be; a larger one is left to the agent.
const MAX_EVENT_CHARS = 4 * 1024 * 1024
// The most a hook may print; more is not a verdict.
const MAX_VERDICT_BYTES = 256 * 1024
// The longest a hook may run: its own wait is at most a day.
const PROMPT_DEADLINE_MS = (24 * 60 * 60 + 120) * 1000
const OBSERVATION_DEADLINE_MS = 60 * 1000
// The agent's request ids, such as `per_231e3ebcd001DDV59Lb7r2I5ZQ`.
const REQUEST_ID = /^[A-Za-z0-9_-]{1,128}$/
// The events gatehouse hears of, each with the word the hook command ends with.
const PROMPTS = { "permission.asked": "permission.asked", "question.asked": "question.asked" }
const SETTLED = {
  "permission.replied": "permission.replied",
  "question.replied": "question.replied",
  "question.rejected": "question.rejected",
}

export const GatehousePlugin = async (input) => {
  const client = input?.client
  const directory = typeof input?.directory === "string" ? input.directory : ""
  // Hooks holding a prompt, by request id: {child, printed}.
  const waiting = new Map()
  let running = 0

  // Runs the hook for `word` with `event` on stdin; `done(stdout)` gets what it printed, if it
  // exited within its deadline and printed little enough. Returns the child, or null.
  function runHook(word, event, deadlineMs, done) {
    if (running >= MAX_CHILDREN) return null
    let text
    try {
      text = JSON.stringify({ directory, payload: event })
    } catch {
      return null
    }
    if (typeof text !== "string" || text.length > MAX_EVENT_CHARS) return null
    let child
    try {
      child = spawn(GATEHOUSE, ["hook", ADAPTER, word], {
        stdio: ["pipe", "pipe", "ignore"],
        shell: false,
        windowsHide: true,
      })
    } catch {
      return null
    }
    running += 1
    const chunks = []
    let size = 0
    let spoiled = false
    let finished = false
    const entry = { child, printed: false }
    const timer = setTimeout(() => stop(), deadlineMs)
    timer?.unref?.()
    function stop() {
      try {
        child.kill("SIGTERM")
      } catch {}
    }
    function finish(ok) {
      if (finished) return
      finished = true
      running -= 1
      clearTimeout(timer)
      if (!ok || spoiled) return
      try {
        done(Buffer.concat(chunks).toString("utf8"))
      } catch {}
    }
    child.on("error", () => finish(false))
    child.on("close", (code, signal) => finish(code === 0 && !signal))
    child.stdout.on("error", () => {})
    child.stdout.on("data", (chunk) => {
      size += chunk.length
      entry.printed = true
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
    return entry
  }

  // The verdict the hook printed, if it is one: one JSON object.
  function verdictOf(stdout) {
    const text = stdout.trim()
    if (!text) return null
    try {
      const verdict = JSON.parse(text)
      return verdict && typeof verdict === "object" && !Array.isArray(verdict) ? verdict : null
    } catch {
      return null
    }
  }

  async function post(url, requestID, body) {
    try {
      await client._client.post({
        url,
        path: { requestID },
        body,
        headers: { "Content-Type": "application/json" },
      })
    } catch {}
  }

  function replyToPermission(requestID, verdict) {
    const reply = verdict.reply
    if (reply !== "once" && reply !== "always" && reply !== "reject") return
    const body = { reply }
    if (reply === "reject" && typeof verdict.message === "string") body.message = verdict.message
    return post("/permission/{requestID}/reply", requestID, body)
  }

  function replyToQuestion(requestID, verdict) {
    const answers = verdict.answers
    const strings = (list) => Array.isArray(list) && list.every((item) => typeof item === "string")
    if (!Array.isArray(answers) || !answers.every(strings)) return
    return post("/question/{requestID}/reply", requestID, { answers })
  }

  function asked(word, event) {
    const requestID = event?.properties?.id
    if (typeof requestID !== "string" || !REQUEST_ID.test(requestID)) return
    if (waiting.has(requestID)) return
    const entry = runHook(word, event, PROMPT_DEADLINE_MS, (stdout) => {
      if (waiting.get(requestID) === entry) waiting.delete(requestID)
      const verdict = verdictOf(stdout)
      if (!verdict) return
      if (word === "permission.asked") replyToPermission(requestID, verdict)
      else replyToQuestion(requestID, verdict)
    })
    if (!entry) return
    waiting.set(requestID, entry)
    entry.child.on("close", () => {
      if (waiting.get(requestID) === entry) waiting.delete(requestID)
    })
  }

  function settled(word, event) {
    const requestID = event?.properties?.requestID
    if (typeof requestID === "string") {
      const entry = waiting.get(requestID)
      // A hook that printed its verdict is finishing by itself; one still waiting is ended.
      if (entry && !entry.printed) {
        waiting.delete(requestID)
        try {
          entry.child.kill("SIGTERM")
        } catch {}
      }
    }
    runHook(word, event, OBSERVATION_DEADLINE_MS, () => {})
  }

  // A hook still holding a prompt when the agent ends would hold it for nobody: end it too, so
  // that gatehouse withdraws the prompt ("the waiting hook went away").
  try {
    process.once("exit", () => {
      for (const entry of waiting.values()) {
        try {
          entry.child.kill("SIGTERM")
        } catch {}
      }
    })
  } catch {}

  function handle(event) {
    try {
      const type = event?.type
      if (typeof type !== "string") return
      if (Object.hasOwn(PROMPTS, type)) asked(PROMPTS[type], event)
      else if (Object.hasOwn(SETTLED, type)) settled(SETTLED[type], event)
    } catch {}
  }

  return {
    // Returns at once: starting a process is left to a timer, in the order the events came (an
    // answer is handled after the prompt it answers).
    event: async ({ event } = {}) => {
      try {
        setTimeout(() => handle(event), 0)
      } catch {}
    },
  }
}
