// donegate for Amp: keeps the agent working until its task is done.
//
// `closer init --host amp` writes this file into .amp/plugins/ (--user:
// ~/.config/amp/plugins/), where Amp loads plugins from when it runs with
// PLUGINS=all. Amp has no hook that can hold an agent; a plugin's
// agent.end handler, which Amp awaits when the agent has finished a turn,
// can: answered {action: "continue", userMessage}, Amp sends that message
// and the agent goes on. This plugin runs donegate's stop-hook there on an
// event of its own making (docs/hosts.md, Amp) and, while work is open,
// answers so, the hook's reason as the message. stop-hook decides
// everything else: the checks, the count (limits.max_blocks per prompt of
// the person; Amp itself ignores a continue after 5 in a row), and when
// to let go.
//
// The hook runs in the background, bounded in time and in what it may
// print, in a process group of its own that is killed with it. Before the
// agent's shell and edit calls run, posttooluse-hook looks at them (the
// guard: docs/security.md), and a call it denies is rejected with its
// reason. If a hook cannot be run or fails, the agent is let go (the call
// goes on) and the error is said: a broken gate must never trap an agent.
//
// Plain JavaScript in a .ts file (Amp loads *.ts and runs it with Bun):
// nothing is imported but node's child_process.

import { spawn } from "node:child_process"

export const description = "donegate: runs donegate's stop-hook when the agent ends a turn, and keeps it working while its task is not done"

// The stop-hook binary: this name on PATH, or $DONEGATE_STOP_HOOK.
const STOP_HOOK = process.env.DONEGATE_STOP_HOOK || "stop-hook"

// The posttooluse-hook binary, which looks at the agent's shell and edit
// calls before they run: this name on PATH, or $DONEGATE_TOOL_HOOK.
const TOOL_HOOK = process.env.DONEGATE_TOOL_HOOK || "posttooluse-hook"

// Amp's edit tools (the guard reads the files they write through Amp's
// own helper); its shell tools are told by Amp's helper too.
const EDIT_TOOLS = ["edit_file", "create_file", "apply_patch"]

// The longest the guard may take before the call goes on unguarded.
const GUARD_TIMEOUT_MS = 10_000

// The longest a stop-hook run may take: it ends its own checks at
// limits.budget (540 s by default) and answers; this is only a backstop.
const HOOK_TIMEOUT_MS = 600_000

// The most a hook's run may print: more is no answer of donegate's, and
// the run is stopped (the agent let go, and said).
const MAX_OUTPUT_BYTES = 16 << 20

// run runs a hook on input: its exit status and what it printed, or why
// it gave no answer (error). Its process group is killed at the timeout
// or past the output bound, and its pipes are no longer read then (what
// it started may hold them open).
const run = (program, input, timeoutMs, cwd) =>
  new Promise((resolve) => {
    let child
    try {
      child = spawn(program, [], { cwd, stdio: ["pipe", "pipe", "pipe"], detached: process.platform !== "win32" })
    } catch (e) {
      resolve({ error: `could not run ${program} (${e.message})` })
      return
    }
    let stdout = "",
      stderr = "",
      size = 0,
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
    const timer = setTimeout(() => stop(`${program} took over ${timeoutMs / 1000} s`), timeoutMs)
    const keep = (d) => {
      size += d.length
      if (size <= MAX_OUTPUT_BYTES) return true
      stop(`${program} printed over ${MAX_OUTPUT_BYTES >> 20} MiB, which is no answer of donegate's`)
      return false
    }
    child.stdout.on("data", (d) => keep(d) && (stdout += d))
    child.stderr.on("data", (d) => keep(d) && (stderr += d))
    child.on("error", (e) => {
      clearTimeout(timer)
      resolve({ error: `could not run ${program} (${e.message})` })
    })
    child.on("close", (status) => {
      clearTimeout(timer)
      if (stopped) resolve({ error: stopped })
      else if (status !== 0) resolve({ error: `${program} exited ${status}: ${stderr.trim()}` })
      else resolve({ stdout })
    })
    child.stdin.on("error", () => {})
    child.stdin.end(JSON.stringify(input))
  })

// answer reads what a hook printed: {} where it printed no JSON.
const answer = (r, say) => {
  if (r.error) {
    say(`${r.error}; the agent was let go unchecked. Install donegate's binaries or set DONEGATE_STOP_HOOK.`)
    return {}
  }
  try {
    return JSON.parse(r.stdout || "{}") ?? {}
  } catch {
    say(`the hook printed no JSON answer: ${String(r.stdout).slice(0, 200)}`)
    return {}
  }
}

// lastText is the text of the agent's last message of a turn.
const lastText = (messages) => {
  for (let i = (messages ?? []).length - 1; i >= 0; i--) {
    const m = messages[i]
    if (m?.role !== "assistant") continue
    return (m.content ?? [])
      .filter((c) => c?.type === "text")
      .map((c) => c.text)
      .join("\n")
  }
  return ""
}

export default function (amp) {
  // held: the threads whose last turn ended in a hold of ours, by thread
  // id: the turn (the person's prompt) it goes on, and the message the
  // hold sent.
  const held = new Map()

  // root is the workspace's dir: the hooks run there.
  const root = () => (amp.system.workspaceRoot ? amp.helpers.filePathFromURI(amp.system.workspaceRoot) : process.cwd())

  const executor = () => amp.system.executor?.kind ?? "unknown"

  // say tells the person: a notice in Amp's UI, stderr where it has none
  // (amp -x).
  const say = (ctx) => (message) => {
    const line = message.startsWith("donegate:") ? message : `donegate: ${message}`
    ctx.logger.log(line)
    Promise.resolve()
      .then(() => ctx.ui.notify(line))
      .catch(() => process.stderr.write(`${line}\n`))
  }

  // subagent reports whether the event's thread is a subagent's: the
  // thread that started it checks the work at its own end.
  const subagent = async (ctx) => {
    try {
      return (await ctx.thread.parentThreadID()) != null
    } catch {
      return false
    }
  }

  // A turn that starts from any other message than the hold's is the
  // person's: Amp ignores a continue past its cap, and the person's next
  // prompt then starts afresh.
  amp.on("agent.start", (event) => {
    if (held.get(event.thread.id)?.message !== event.message) held.delete(event.thread.id)
    return {}
  })

  amp.on("agent.end", async (event, ctx) => {
    const thread = event.thread.id
    if (event.status !== "done" || (await subagent(ctx))) {
      held.delete(thread)
      return
    }
    // A turn that follows no hold of ours starts from the person's
    // prompt: its message id names the turn until a stop lets it go.
    const turn = held.get(thread)?.turn ?? `${thread}-${event.id}`
    const r = await run(
      STOP_HOOK,
      {
        hook_event_name: "Stop",
        amp_executor: executor(),
        session_id: thread,
        cwd: root(),
        prompt_id: turn,
        stop_hook_active: held.has(thread),
        last_assistant_message: lastText(event.messages),
      },
      HOOK_TIMEOUT_MS,
      root(),
    )
    const a = answer(r, say(ctx))
    if (a.systemMessage) say(ctx)(a.systemMessage)
    if (a.decision !== "block" || !a.reason) {
      held.delete(thread)
      return
    }
    held.set(thread, { turn, message: a.reason })
    return { action: "continue", userMessage: a.reason }
  })

  amp.on("tool.call", async (event, ctx) => {
    const call = guarded(amp, event)
    if (!call) return { action: "allow" }
    const r = await run(
      TOOL_HOOK,
      {
        hook_event_name: "PreToolUse",
        amp_executor: executor(),
        session_id: event.thread.id,
        cwd: root(),
        tool_name: call.tool,
        tool_input: call.input,
      },
      GUARD_TIMEOUT_MS,
      root(),
    )
    if (r.error) {
      say(ctx)(`${r.error}; the call was not looked at`)
      return { action: "allow" }
    }
    let a = {}
    try {
      a = JSON.parse(r.stdout || "{}") ?? {}
    } catch {
      return { action: "allow" }
    }
    const d = a.hookSpecificOutput
    if (d && (d.permissionDecision === "deny" || d.permissionDecision === "ask")) {
      say(ctx)(`refused the agent's ${event.tool} call: ${d.permissionDecisionReason}`)
      return { action: "reject-and-continue", message: d.permissionDecisionReason }
    }
    return { action: "allow" }
  })
}

// guarded is what the guard is sent of a call, by Amp's own helpers: a
// shell command as Bash {command, cwd}, an edit as the tool with the
// files it writes ({paths}); null for any other call.
const guarded = (amp, event) => {
  const shell = amp.helpers.shellCommandFromToolCall(event)
  if (shell) return { tool: "Bash", input: shell.dir ? { command: shell.command, cwd: shell.dir } : { command: shell.command } }
  if (!EDIT_TOOLS.includes(event.tool)) return null
  const files = amp.helpers.filesModifiedByToolCall(event) ?? []
  return { tool: event.tool, input: { paths: files.map((u) => amp.helpers.filePathFromURI(u)) } }
}
