// donegate for pi: keeps the agent working until its task is done.
//
// `closer init --host pi` writes this file into .pi/extensions/ (--user:
// ~/.pi/agent/extensions/), where pi loads extensions from at start (the
// project's only once the person trusts the project). pi has no hook that
// can hold an agent; its extensions' agent_before_settle, the last point
// at which a run can go on (after pi's own retries, compaction and queued
// messages), can: this extension runs donegate's stop-hook there on an
// event of its own making (docs/hosts.md, pi) and, while work is open,
// appends the hook's reason as a message to the agent and asks pi for one
// more request. stop-hook decides everything else: the checks, the count
// (limits.max_blocks per prompt of the person; pi has no cap of its own,
// and an unconditional continuation would loop), and when to let go.
//
// The hook runs in the background, bounded in time and in what it may
// print, in a process group of its own that is killed with it: pi awaits
// the handler, and stays responsive meanwhile. Before the agent's bash,
// write and edit calls run, posttooluse-hook looks at them (the guard:
// docs/security.md), and a call it denies is blocked. If a hook cannot be
// run or fails, the agent is let go (the call goes on) and the error is
// said: a broken gate must never trap an agent. The person's message
// "donegate release", typed while the agent works, lets the running turn
// go (stop-hook --criteria records it).

import { spawn } from "node:child_process"
import { VERSION } from "@earendil-works/pi-coding-agent"

// The stop-hook binary: this name on PATH, or $DONEGATE_STOP_HOOK.
const STOP_HOOK = process.env.DONEGATE_STOP_HOOK || "stop-hook"

// The posttooluse-hook binary, which looks at the agent's shell and edit
// calls before they run: this name on PATH, or $DONEGATE_TOOL_HOOK.
const TOOL_HOOK = process.env.DONEGATE_TOOL_HOOK || "posttooluse-hook"

// The tools the guard looks at: pi's shell and edit tools.
const GUARDED = ["bash", "write", "edit"]

// The longest the guard may take before the call goes on unguarded.
const GUARD_TIMEOUT_MS = 10_000

// The longest a stop-hook run may take: it ends its own checks at
// limits.budget (540 s by default) and answers; this is only a backstop.
const HOOK_TIMEOUT_MS = 600_000

// The most a hook's run may print: more is no answer of donegate's, and
// the run is stopped (the agent let go, and said).
const MAX_OUTPUT_BYTES = 16 << 20

// The person's message that lets the running turn go, typed alone
// (gate.ReleasePhrase; case and spaces do not matter).
const RELEASE_PHRASE = "donegate release"

// run runs a hook with args on input: its exit status and what it
// printed, or why it gave no answer (error). Its process group is killed
// at the timeout or past the output bound, and its pipes are no longer
// read then (what it started may hold them open).
const run = (program, input, timeoutMs, cwd, args = []) =>
  new Promise((resolve) => {
    let child
    try {
      child = spawn(program, args, { cwd, stdio: ["pipe", "pipe", "pipe"], detached: process.platform !== "win32" })
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
    say("error", `${r.error}; the agent was let go unchecked. Install donegate's binaries or set DONEGATE_STOP_HOOK.`)
    return {}
  }
  try {
    return JSON.parse(r.stdout || "{}") ?? {}
  } catch {
    say("error", `the hook printed no JSON answer: ${String(r.stdout).slice(0, 200)}`)
    return {}
  }
}

// lastText is the text of the agent's last message in a run's context.
const lastText = (context) => {
  const messages = context?.llmMessages ?? context?.contextMessages ?? []
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]
    if (m?.role !== "assistant") continue
    if (typeof m.content === "string") return m.content
    return (m.content ?? [])
      .filter((c) => c?.type === "text")
      .map((c) => c.text)
      .join("\n")
  }
  return ""
}

export default function (pi) {
  let turn = "" // the person's prompt that started this run
  let prompts = 0
  let continued = false // this run goes on after a hold of ours

  // say tells the person: a notice in the TUI, stderr where pi has none.
  const say = (ctx, level, message) => {
    const line = message.startsWith("donegate:") ? message : `donegate: ${message}`
    if (ctx?.hasUI) ctx.ui.notify(line, level === "error" ? "error" : "warning")
    else process.stderr.write(`${line}\n`)
  }

  const base = (ctx) => ({
    pi_version: VERSION,
    pi_mode: ctx.mode,
    session_id: ctx.sessionManager.getSessionId(),
    transcript_path: ctx.sessionManager.getSessionFile() ?? "",
    cwd: ctx.cwd,
  })

  pi.on("input", async (event, ctx) => {
    // The release phrase typed while the agent works (pi fires input at
    // once for it, as a steer or follow-up; "interactive" is the
    // person's keyboard, which no tool of the agent's types into): it
    // releases the running turn, and is no message to the agent.
    const phrase = String(event.text ?? "").trim().split(/\s+/).join(" ").toLowerCase() === RELEASE_PHRASE
    if (phrase && event.source === "interactive" && event.streamingBehavior && turn) {
      const r = await run(
        STOP_HOOK,
        { hook_event_name: "UserPromptSubmit", ...base(ctx), prompt_id: turn, prompt: event.text },
        GUARD_TIMEOUT_MS,
        ctx.cwd,
        ["--criteria"],
      )
      const a = answer(r, (level, m) => say(ctx, level, m))
      if (a.systemMessage) say(ctx, "info", a.systemMessage)
      return { action: "handled" }
    }
    // A prompt of the person's (typed, or sent over RPC): a new turn.
    turn = `prompt-${Date.now().toString(36)}-${++prompts}`
    continued = false
  })

  pi.on("agent_before_settle", async (event, ctx) => {
    if (event.outcome && event.outcome !== "completed") return
    const r = await run(
      STOP_HOOK,
      {
        hook_event_name: "Stop",
        ...base(ctx),
        prompt_id: turn,
        stop_hook_active: continued,
        last_assistant_message: lastText(event.context),
      },
      HOOK_TIMEOUT_MS,
      ctx.cwd,
    )
    const a = answer(r, (level, m) => say(ctx, level, m))
    if (a.systemMessage) say(ctx, "warn", a.systemMessage)
    if (a.decision !== "block" || !a.reason) return
    continued = true
    // pi -p prints the agent's messages only: the person reads the hold.
    if (!ctx.hasUI) say(ctx, "info", `holding the agent: ${a.reason.split("\n")[0]}`)
    return {
      entries: [...event.entries, { type: "custom_message", customType: "donegate", content: a.reason, display: true }],
      continue: true,
    }
  })

  pi.on("tool_call", async (event, ctx) => {
    if (!GUARDED.includes(event.toolName)) return
    const r = await run(
      TOOL_HOOK,
      { hook_event_name: "PreToolUse", ...base(ctx), tool_name: event.toolName, tool_input: event.input ?? {} },
      GUARD_TIMEOUT_MS,
      ctx.cwd,
    )
    if (r.error) {
      say(ctx, "error", `${r.error}; the call was not looked at`)
      return
    }
    let a = {}
    try {
      a = JSON.parse(r.stdout || "{}") ?? {}
    } catch {
      return
    }
    const d = a.hookSpecificOutput
    if (d && (d.permissionDecision === "deny" || d.permissionDecision === "ask")) {
      say(ctx, "warn", `refused the agent's ${event.toolName} call: ${d.permissionDecisionReason}`)
      return { block: true, reason: d.permissionDecisionReason }
    }
  })
}
