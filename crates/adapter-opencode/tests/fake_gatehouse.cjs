#!/usr/bin/env node
// A fake `gatehouse` for plugin_driver.mjs: logs each run (pid, arguments, stdin) to `runs` beside
// it, then does what the file `mode` says: `out TEXT` prints TEXT, `sleep` waits a minute,
// `flood` prints a megabyte.
const fs = require("node:fs")
const path = require("node:path")
const dir = path.dirname(process.argv[1])
let input = ""
process.stdin.on("data", (data) => (input += data))
process.stdin.on("end", () => {
  let stdin
  try {
    stdin = JSON.parse(input)
  } catch {
    stdin = input
  }
  // The mode is read before the run is logged: once logged, a change is for later runs only.
  const mode = fs.readFileSync(path.join(dir, "mode"), "utf8")
  fs.appendFileSync(path.join(dir, "runs"), JSON.stringify({ pid: process.pid, args: process.argv.slice(2), stdin }) + "\n")
  if (mode === "sleep") setTimeout(() => {}, 60000)
  else if (mode === "flood") process.stdout.write("x".repeat(1024 * 1024))
  else if (mode.startsWith("out ")) process.stdout.write(mode.slice(4))
})
