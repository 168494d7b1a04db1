// Drives gatehouse's OpenCode plugin as OpenCode would (its `event` hook, its `client`), with a
// fake `gatehouse` (fake-gatehouse.sh in DIR) whose output each case sets, and checks what the
// plugin does. ADAPTER is the adapter id the plugin was written for (opencode, kilo), which its
// hook must run. Prints one line per failed check and exits 1 if any failed.
//
// Usage: node plugin_driver.mjs DIR PLUGIN PLUGIN_WITHOUT_GATEHOUSE ADAPTER
import fs from "node:fs"
import path from "node:path"

const [DIR, PLUGIN, PLUGIN_WITHOUT_GATEHOUSE, ADAPTER] = process.argv.slice(2)
const failures = []
function check(name, ok, detail) {
  if (!ok) failures.push(`${name}: ${typeof detail === "string" ? detail : JSON.stringify(detail)}`)
}
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))
// Waits for a condition, generously: each fake gatehouse is a Node process, and 32 of them start
// slowly on a busy 2-core machine (10 s saw only 11 of them start).
async function until(condition, ms = 60000) {
  const started = Date.now()
  while (!condition() && Date.now() - started < ms) await sleep(20)
  return condition()
}
// What the fake gatehouse does on its next runs: print `out`, or sleep first.
function behave(mode) {
  fs.writeFileSync(path.join(DIR, "mode"), mode)
}
function runs() {
  try {
    return fs
      .readFileSync(path.join(DIR, "runs"), "utf8")
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line))
  } catch {
    return []
  }
}
function alive(pid) {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

const posts = []
let postFails = null
const client = {
  _client: {
    post: async (request) => {
      posts.push(JSON.parse(JSON.stringify(request)))
      if (postFails === "throw") throw new Error("Permission request not found")
      if (postFails === "404") return { data: null, error: { _tag: "PermissionNotFoundError" }, response: { status: 404 } }
      return { data: true, response: { status: 200 } }
    },
  },
}

const { GatehousePlugin } = await import(PLUGIN)
const hooks = await GatehousePlugin({ client, directory: "/home/dev/project" })
const permission = (id, command = "printf x > x.txt") => ({
  id: "evt_" + id,
  type: "permission.asked",
  properties: {
    id,
    sessionID: "ses_1",
    permission: "bash",
    patterns: [command],
    metadata: { command },
    always: ["printf *"],
    tool: { messageID: "msg_1", callID: "call_1" },
  },
})
const replied = (id, reply = "once") => ({
  id: "evt_r" + id,
  type: "permission.replied",
  properties: { sessionID: "ses_1", requestID: id, reply },
})
async function ask(event) {
  const started = Date.now()
  const returned = hooks.event({ event })
  check("the event hook returns at once", Date.now() - started < 50, `${Date.now() - started} ms`)
  await returned
}

// once: the verdict becomes OpenCode's reply for the request asked about, and nothing else.
behave('out {"reply":"once","requestID":"per_other"}')
await ask(permission("per_once", "printf $(touch pwned) `touch pwned2` > x.txt; echo \u202e"))
await until(() => posts.length === 1)
check("once is posted", posts.length === 1, posts)
check("once goes to the request asked about", posts[0]?.path?.requestID === "per_once" && posts[0]?.url === "/permission/{requestID}/reply", posts[0])
check("once is once", JSON.stringify(posts[0]?.body) === '{"reply":"once"}', posts[0]?.body)
const first = runs()[0]
check("the hook gets its words as arguments", JSON.stringify(first?.args) === JSON.stringify(["hook", ADAPTER, "permission.asked"]), first)
check("the hook gets the event on stdin", first?.stdin?.payload?.properties?.metadata?.command?.startsWith("printf $(touch pwned)") && first?.stdin?.directory === "/home/dev/project", first)
check("nothing from the event runs", !fs.existsSync(path.join(DIR, "pwned")) && !fs.existsSync(path.join(DIR, "pwned2")), "a file was made")
posts.length = 0

// reject with a message; always carries no message.
behave('out {"reply":"reject","message":"use a dry run"}')
await ask(permission("per_reject"))
await until(() => posts.length === 1)
check("reject carries its message", JSON.stringify(posts[0]?.body) === '{"reply":"reject","message":"use a dry run"}', posts)
posts.length = 0

// Nothing that is not a verdict is ever posted.
for (const out of ['{"reply":"allow"}', "not json", '["once"]', '{"answers":[["Red"]]}', "", '{"reply":"once"} trailing']) {
  behave("out " + out)
  const before = runs().length
  await ask(permission("per_bad" + before))
  await until(() => runs().length > before)
  await sleep(300)
}
check("no reply for anything but a permission verdict", posts.length === 0, posts)

// A flood on stdout is not read whole, and is no verdict.
behave("flood")
await ask(permission("per_flood"))
await sleep(1500)
check("a flood is no verdict", posts.length === 0, posts)

// A hostile request id is never handed on.
const before = runs().length
behave('out {"reply":"once"}')
await ask(permission("../../session/ses_1/abort"))
await ask(permission("per_" + "x".repeat(200)))
await ask({ type: "permission.asked", properties: { id: { toString: () => "per_1" } } })
await sleep(500)
check("a hostile id starts no hook", runs().length === before, runs().slice(before))
check("a hostile id gets no reply", posts.length === 0, posts)

// A question's answers go to the question asked about.
behave('out {"answers":[["Red"]]}')
await ask({ id: "evt_q", type: "question.asked", properties: { id: "que_1", sessionID: "ses_1", questions: [{ question: "Which color?", header: "Color", options: [{ label: "Red" }] }] } })
await until(() => posts.length === 1)
check("a question is answered", posts[0]?.url === "/question/{requestID}/reply" && posts[0]?.path?.requestID === "que_1" && JSON.stringify(posts[0]?.body) === '{"answers":[["Red"]]}', posts)
posts.length = 0

// A late reply that OpenCode refuses (404) or a client that throws changes nothing.
for (const failure of ["404", "throw"]) {
  postFails = failure
  behave('out {"reply":"once"}')
  await ask(permission("per_late_" + failure))
  await until(() => posts.length === 1)
  check(`a ${failure} reply is ignored`, posts.length === 1, posts)
  posts.length = 0
}
postFails = null

// Answered in OpenCode first: the waiting hook is ended at once and gatehouse is told.
behave("sleep")
const waitingBefore = runs().length
await ask(permission("per_tui"))
await until(() => runs().length > waitingBefore)
const waiting = runs()[waitingBefore]
check("the hook holds the prompt", alive(waiting?.pid), waiting)
behave("out ")
await ask(replied("per_tui"))
check("the waiting hook is ended", await until(() => !alive(waiting.pid), 5000), waiting)
await until(() => runs().some((run) => run.args[2] === "permission.replied"))
const observed = runs().find((run) => run.args[2] === "permission.replied")
check("gatehouse hears of the answer", observed?.stdin?.payload?.properties?.requestID === "per_tui", observed)
check("no reply after the terminal answered", posts.length === 0, posts)

// At most 32 hooks at once; the rest is left to OpenCode.
check("no earlier hook is left", await until(() => runs().every((run) => !alive(run.pid))), runs().filter((run) => alive(run.pid)))
behave("sleep")
const boundBefore = runs().length
for (let n = 0; n < 40; n++) await ask(permission("per_many_" + n))
await until(() => runs().length - boundBefore >= 32)
await sleep(1000)
check("at most 32 hooks run at once", runs().length - boundBefore === 32, runs().length - boundBefore)
behave("out ")
for (let n = 0; n < 40; n++) await ask(replied("per_many_" + n))
const many = runs().slice(boundBefore, boundBefore + 32)
check("every waiting hook is ended", await until(() => many.every((run) => !alive(run.pid))), many.filter((run) => alive(run.pid)))

// The events hook never throws, whatever it is given.
for (const event of [undefined, null, 5, { type: 7 }, { type: "permission.asked" }, { type: "permission.replied", properties: null }]) {
  try {
    await hooks.event({ event })
    await hooks.event(undefined)
  } catch (error) {
    check("the event hook never throws", false, String(error))
  }
}

// No gatehouse at the path the plugin names: nothing happens, nothing throws.
{
  const { GatehousePlugin: Missing } = await import(PLUGIN_WITHOUT_GATEHOUSE)
  const missing = await Missing({ client, directory: "/w" })
  try {
    await missing.event({ event: permission("per_missing") })
    await missing.event({ event: replied("per_missing") })
  } catch (error) {
    check("a missing gatehouse throws nothing", false, String(error))
  }
  await sleep(500)
  check("a missing gatehouse replies nothing", posts.length === 0, posts)
}

if (failures.length) {
  console.log(failures.join("\n"))
  process.exit(1)
}
console.log("ok")
process.exit(0)
