#!/usr/bin/env node
// donegate for Cline: keeps the agent working until its task is done.
//
// `closer init --host cline` writes this file into .clinerules/hooks/
// (--user: ~/.cline/hooks/). Cline runs every file of a hooks dir named
// after an event as that event's hook, each on the event's JSON; this one
// is a PreToolUse hook, the only one of Cline's that can keep its agent
// going (docs/hosts.md, Cline). It hands the event, unchanged, to the
// hook that answers it:
//
//   - the agent's call of submit_and_exit, with which a run of `cline
//     --yolo` ends, is the end of its turn: stop-hook, which while work
//     is open answers so that Cline refuses the submission and tells the
//     agent what is left;
//   - every other call: posttooluse-hook, which refuses the agent's shell
//     and edit calls that would loosen the gate (the guard:
//     docs/security.md), and answers nothing to the rest.
//
// stop-hook decides everything else: the checks, the count
// (limits.max_blocks), and when to let go. The hook runs bounded in time
// and in what it may print, in a process group of its own that is killed
// with it. If it cannot be run or fails, nothing is answered and the
// call goes on (a broken gate must never trap an agent), and the error
// is said on stderr, which Cline logs, as is what donegate tells the
// person.
"use strict"

const { spawn } = require("node:child_process")

// The stop-hook binary: this name on PATH, or $DONEGATE_STOP_HOOK.
const STOP_HOOK = process.env.DONEGATE_STOP_HOOK || "stop-hook"

// The posttooluse-hook binary: this name on PATH, or $DONEGATE_TOOL_HOOK.
const TOOL_HOOK = process.env.DONEGATE_TOOL_HOOK || "posttooluse-hook"

// The tool with which Cline's agent ends a run (cline --yolo).
const FINAL_TOOL = "submit_and_exit"

// The longest a hook's run may take: stop-hook ends its own checks at
// limits.budget (540 s by default) and answers; this is only a backstop.
const HOOK_TIMEOUT_MS = 600_000

// The most an event or a hook's answer may be: more is no event of
// Cline's and no answer of donegate's.
const MAX_BYTES = 16 << 20

// readInput reads the event on stdin, at most MAX_BYTES of it.
const readInput = () =>
  new Promise((resolve, reject) => {
    const chunks = []
    let size = 0
    process.stdin.on("data", (d) => {
      size += d.length
      if (size > MAX_BYTES) {
        reject(new Error(`the event is over ${MAX_BYTES >> 20} MiB`))
        process.stdin.destroy()
        return
      }
      chunks.push(d)
    })
    process.stdin.on("end", () => resolve(Buffer.concat(chunks)))
    process.stdin.on("error", reject)
  })

// run runs program on input: its exit status and what it printed, or why
// it gave no answer (error).
const run = (program, input, cwd) =>
  new Promise((resolve) => {
    let child
    try {
      child = spawn(program, [], { cwd, stdio: ["pipe", "pipe", "pipe"], detached: process.platform !== "win32" })
    } catch (e) {
      resolve({ error: `could not run ${program} (${e.message})` })
      return
    }
    const out = []
    let size = 0,
      stderr = "",
      stopped = ""
    const stop = (why) => {
      if (stopped) return
      stopped = why
      try {
        if (process.platform !== "win32") process.kill(-child.pid, "SIGKILL")
        else child.kill("SIGKILL")
      } catch {
        child.kill("SIGKILL")
      }
      child.stdout.destroy()
      child.stderr.destroy()
    }
    const timer = setTimeout(() => stop(`${program} took over ${HOOK_TIMEOUT_MS / 1000} s`), HOOK_TIMEOUT_MS)
    child.stdout.on("data", (d) => {
      size += d.length
      if (size > MAX_BYTES) stop(`${program} printed over ${MAX_BYTES >> 20} MiB, which is no answer of donegate's`)
      else out.push(d)
    })
    child.stderr.on("data", (d) => {
      if (stderr.length < 64 << 10) stderr += d
    })
    child.on("error", (e) => {
      clearTimeout(timer)
      resolve({ error: `could not run ${program} (${e.message})` })
    })
    child.on("close", (code) => {
      clearTimeout(timer)
      if (stopped) resolve({ error: stopped })
      else resolve({ code, stdout: Buffer.concat(out), stderr })
    })
    child.stdin.on("error", () => {})
    child.stdin.end(input)
  })

const main = async () => {
  let input, event
  try {
    input = await readInput()
    event = JSON.parse(input.toString("utf8"))
  } catch (e) {
    process.stderr.write(`donegate: not an event of Cline's: ${e.message}\n`)
    return
  }
  const tool = (event && event.tool_call && event.tool_call.name) || ""
  const program = tool === FINAL_TOOL ? STOP_HOOK : TOOL_HOOK
  const cwd = (event && event.workspaceInfo && event.workspaceInfo.rootPath) || process.cwd()
  const r = await run(program, input, cwd)
  if (r.error || r.code !== 0) {
    process.stderr.write(`donegate: ${r.error || `${program} exited ${r.code}: ${r.stderr.trim()}`}; the call goes on\n`)
    return
  }
  if (r.stderr) process.stderr.write(r.stderr)
  // What the person is told (a let-go past limits.max_blocks, say):
  // no field of Cline's answer, so on stderr, which Cline logs.
  try {
    const answer = JSON.parse(r.stdout.toString("utf8"))
    if (answer && typeof answer.systemMessage === "string") process.stderr.write(`${answer.systemMessage}\n`)
  } catch {}
  process.stdout.write(r.stdout)
}

main()
