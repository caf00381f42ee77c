// donegate for OpenCode: keeps the agent working until its task is done.
// The Kilo CLI, a fork of OpenCode, loads it too.
//
// `closer init --host opencode` writes this file into .opencode/plugin/
// (--user: ~/.config/opencode/plugin/); OpenCode loads every file there at
// start. `closer init --host kilo` writes it into .kilo/plugin/ (--user:
// ~/.config/kilo/plugin/), where Kilo loads it from. OpenCode has no hook that can hold an agent at the end of a turn,
// so this plugin does what a Stop hook does elsewhere: when the agent ends
// its turn it runs donegate's stop-hook on an event of OpenCode's shape
// (docs/hosts.md, OpenCode) and, while work is open, gives the hook's reason
// back to the agent as the next user message. stop-hook decides everything
// else: the checks, the count (limits.max_blocks per prompt of the person;
// OpenCode has no cap of its own), and when to let go.
//
// Two ways to give the reason back, measured with OpenCode 1.18.33:
//
//   - `opencode run` exits as soon as its session goes idle, so a prompt
//     sent at session.idle is lost. There the hook runs when the agent's
//     last step finishes (its step-finish part), before the loop looks for
//     a new message, and the reason is stored with noReply: the loop reads
//     it and calls the model again. The hook runs synchronously: nothing
//     else of OpenCode runs meanwhile, which is what keeps the loop from
//     ending first (a hold sent after one await was lost in every run).
//     Kilo 7.7.7 reads no message stored that way once its loop has
//     finished: there the reason is sent as a prompt (promptAsync), which
//     Kilo queues while the session is busy and runs before `kilo run`
//     ends (it drains the session's queue first).
//   - Everywhere else (the TUI, `opencode serve` and what attaches to it)
//     the hook runs in the background at session.idle and the reason is
//     sent as a new prompt: OpenCode stays responsive while checks run.
//
// Subagent sessions (they have a parent) are left alone: their parent's
// stop is checked. If stop-hook cannot be run or fails, the agent is let
// go and the error is logged: a broken gate must never trap an agent.

import { spawn, spawnSync } from "node:child_process"

// The host: Kilo sets KILOCODE_VERSION in the process that loads plugins;
// its events name it ("kilo_version"), so that stop-hook answers it as
// Kilo's.
const HOST = process.env.KILOCODE_VERSION ? "kilo" : "opencode"

// The stop-hook binary: this name on PATH, or $DONEGATE_STOP_HOOK.
const STOP_HOOK = process.env.DONEGATE_STOP_HOOK || "stop-hook"

// The posttooluse-hook binary, which looks at the agent's shell and edit
// calls before they run (the guard: docs/security.md): this name on
// PATH, or $DONEGATE_TOOL_HOOK.
const TOOL_HOOK = process.env.DONEGATE_TOOL_HOOK || "posttooluse-hook"

// The tools the guard looks at: OpenCode's shell and edit tools.
const GUARDED = ["bash", "write", "edit"]

// The longest the guard may take before the call goes on unguarded.
const GUARD_TIMEOUT_MS = 10_000

// The longest a hook run may take: stop-hook ends its own checks at
// limits.budget (540 s by default) and answers; this is only a backstop.
const HOOK_TIMEOUT_MS = 600_000

// The most a hook's run may print: more is no answer of donegate's, and
// the run is stopped (the agent let go, and said) rather than held in
// OpenCode's memory.
const MAX_OUTPUT_BYTES = 16 << 20

// The finish reasons after which OpenCode's loop goes on by itself.
const GOES_ON = ["tool-calls", "unknown"]

export const DonegatePlugin = async ({ client, directory }) => {
  const mode = process.env.DONEGATE_OPENCODE_MODE || (process.argv.slice(2).includes("run") ? "run" : "serve")
  const sessions = new Map()

  const session = (id) => {
    let s = sessions.get(id)
    if (!s) {
      s = {
        parent: undefined,
        version: "",
        todos: undefined,
        turn: "", // the person's message that started this turn
        continued: false, // this turn goes on after a hold of ours
        pending: false, // a hold was sent and its message not seen yet
        users: new Set(),
        assistants: new Set(),
        texts: new Map(), // the latest assistant message -> its text
        final: undefined, // serve: the finished message to check at idle
        checked: new Set(),
      }
      sessions.set(id, s)
      // The plan when this process joins a session it did not start
      // (opencode run --continue, a resumed TUI session): todo.updated
      // events keep it current after that.
      client.session
        .todo({ path: { id } })
        .then((r) => {
          if (s.todos === undefined && Array.isArray(r?.data)) s.todos = r.data
        })
        .catch(() => {})
    }
    return s
  }

  const log = (level, message) => {
    client.app.log({ body: { service: "donegate", level, message } }).catch(() => {})
    const line = message.startsWith("donegate:") ? message : `donegate: ${message}`
    if (mode === "run" && level !== "debug") process.stderr.write(`${line}\n`)
  }

  const stopEvent = (id, s, messageID) => ({
    hook_event_name: "Stop",
    [`${HOST}_version`]: s.version || "unknown",
    [`${HOST}_mode`]: mode,
    session_id: id,
    cwd: directory,
    prompt_id: s.turn,
    stop_hook_active: s.continued,
    message_id: messageID,
    last_assistant_message: s.texts.get(messageID) ?? "",
    ...(s.todos === undefined ? {} : { todos: s.todos }),
  })

  // answer reads what stop-hook printed: {"decision":"block","reason":R} to
  // hold, {"systemMessage":M} (or {}) to let go.
  const answer = (status, stdout, stderr, error) => {
    if (error) {
      log("error", `could not run ${STOP_HOOK} (${error.message}); the agent was let go unchecked. Install donegate's binaries or set DONEGATE_STOP_HOOK.`)
      return {}
    }
    if (status !== 0) {
      log("error", `${STOP_HOOK} exited ${status}: ${String(stderr).trim()}`)
      return {}
    }
    try {
      return JSON.parse(stdout || "{}") ?? {}
    } catch {
      log("error", `${STOP_HOOK} printed no JSON answer: ${String(stdout).slice(0, 200)}`)
      return {}
    }
  }

  const tell = (a) => {
    if (!a.systemMessage) return
    log("warn", a.systemMessage)
    client.tui?.showToast?.({ body: { message: a.systemMessage, variant: "warning" } }).catch(() => {})
  }

  // checkNow runs the hook and holds the agent before OpenCode's loop can
  // look for a new message (opencode run).
  const checkNow = (id, s, messageID) => {
    const r = spawnSync(STOP_HOOK, [], {
      input: JSON.stringify(stopEvent(id, s, messageID)),
      cwd: directory,
      encoding: "utf8",
      timeout: HOOK_TIMEOUT_MS,
      killSignal: "SIGKILL",
      maxBuffer: MAX_OUTPUT_BYTES,
    })
    const a = answer(r.status, r.stdout, r.stderr, r.error)
    tell(a)
    if (a.decision !== "block" || !a.reason) return
    s.pending = true
    // Not awaited before anything else: the message must be stored before
    // the loop reads the session again (Kilo: queued before the run ends).
    const parts = [{ type: "text", text: a.reason }]
    const held =
      HOST === "kilo"
        ? client.session.promptAsync({ path: { id }, body: { parts } })
        : client.session.prompt({ path: { id }, body: { noReply: true, parts } })
    held.catch((e) => {
        s.pending = false
        log("error", `could not give the agent donegate's reason: ${e}`)
      })
    // opencode run prints the agent's messages only, not the one that
    // holds it: the person reads the hold on stderr.
    log("info", `holding the agent: ${a.reason.split("\n")[0]}`)
  }

  // checkLater runs the hook in the background once the session is idle
  // and, on a hold, prompts the agent again (TUI, opencode serve).
  const checkLater = (id, s, messageID) => {
    const lastUser = s.lastUser
    return new Promise((resolve) => {
      let stdout = "",
        stderr = ""
      let child
      try {
        // A process group of its own (not on Windows, where that would
        // open a console), so that stopping it stops what it started.
        child = spawn(STOP_HOOK, [], { cwd: directory, stdio: ["pipe", "pipe", "pipe"], detached: process.platform !== "win32" })
      } catch (e) {
        resolve(answer(null, "", "", e))
        return
      }
      // stop ends the run: its process group killed, its output no longer
      // read (what it started may hold the pipes open).
      const stop = () => {
        try {
          if (process.platform !== "win32") process.kill(-child.pid, "SIGKILL")
          else child.kill("SIGKILL")
        } catch {
          child.kill("SIGKILL")
        }
        child.stdout.destroy()
        child.stderr.destroy()
      }
      const timer = setTimeout(stop, HOOK_TIMEOUT_MS)
      // What the run printed is kept up to MAX_OUTPUT_BYTES; past it the
      // run is stopped.
      let size = 0,
        overflow = false
      const keep = (d) => {
        size += d.length
        if (size <= MAX_OUTPUT_BYTES) return true
        if (!overflow) {
          overflow = true
          stop()
        }
        return false
      }
      child.stdout.on("data", (d) => keep(d) && (stdout += d))
      child.stderr.on("data", (d) => keep(d) && (stderr += d))
      child.on("error", (e) => {
        clearTimeout(timer)
        resolve(answer(null, "", "", e))
      })
      child.on("close", (status) => {
        clearTimeout(timer)
        if (overflow) {
          log("error", `${STOP_HOOK} printed over ${MAX_OUTPUT_BYTES >> 20} MiB, which is no answer of donegate's: stopped, and the agent let go unchecked`)
          resolve({})
          return
        }
        resolve(answer(status, stdout, stderr))
      })
      child.stdin.on("error", () => {})
      child.stdin.end(JSON.stringify(stopEvent(id, s, messageID)))
    }).then(async (a) => {
      tell(a)
      if (a.decision !== "block" || !a.reason) return
      // The person may have prompted meanwhile: their turn goes first.
      if (s.lastUser !== lastUser) return
      s.pending = true
      try {
        await client.session.promptAsync({ path: { id }, body: { parts: [{ type: "text", text: a.reason }] } })
      } catch (e) {
        s.pending = false
        log("error", `could not give the agent donegate's reason: ${e}`)
      }
    })
  }

  // guard asks posttooluse-hook about a call of the agent's shell or edit
  // tools before it runs, and refuses it (throws, which OpenCode tells
  // the model) where the hook denies it. A hook that cannot be run lets
  // the call go: the guard never traps an agent.
  const guard = (input, output) => {
    if (!GUARDED.includes(input.tool)) return
    const s = session(input.sessionID)
    if (s.parent) return
    const r = spawnSync(TOOL_HOOK, [], {
      input: JSON.stringify({
        hook_event_name: "PreToolUse",
        [`${HOST}_version`]: s.version || "unknown",
        [`${HOST}_mode`]: mode,
        session_id: input.sessionID,
        cwd: directory,
        tool_name: input.tool,
        tool_input: output.args ?? {},
      }),
      cwd: directory,
      encoding: "utf8",
      timeout: GUARD_TIMEOUT_MS,
      killSignal: "SIGKILL",
      maxBuffer: 1 << 20,
    })
    if (r.error || r.status !== 0) {
      log("error", `could not run ${TOOL_HOOK} (${r.error?.message ?? `exit ${r.status}: ${String(r.stderr).trim()}`}); the call was not looked at`)
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
      log("warn", `refused the agent's ${input.tool} call: ${d.permissionDecisionReason}`)
      throw new Error(d.permissionDecisionReason)
    }
  }

  return {
    "tool.execute.before": async (input, output) => guard(input, output),
    event: async ({ event }) => {
      const p = event.properties ?? {}
      switch (event.type) {
        case "session.created":
        case "session.updated": {
          const s = session(p.info.id)
          s.parent = p.info.parentID
          s.version = p.info.version ?? s.version
          return
        }
        case "todo.updated":
          session(p.sessionID).todos = p.todos
          return
        case "message.updated": {
          const info = p.info
          const s = session(info.sessionID)
          if (info.role === "user") {
            if (s.users.has(info.id)) return
            s.users.add(info.id)
            s.lastUser = info.id
            if (s.pending) {
              // The hold's own message: the same turn, continued.
              s.pending = false
              s.continued = true
            } else {
              s.turn = info.id
              s.continued = false
            }
            s.final = undefined
            return
          }
          if (info.role !== "assistant") return
          s.assistants.add(info.id)
          if (mode !== "run" && info.finish && !GOES_ON.includes(info.finish) && info.time?.completed && !info.error) {
            s.final = info.id
          }
          return
        }
        case "message.part.updated": {
          const part = p.part
          const s = session(part.sessionID)
          if (part.type === "text" && s.assistants.has(part.messageID) && !part.synthetic) {
            // The latest message's text alone: a stop checks the message
            // that just finished, and a long session keeps no history here.
            if (!s.texts.has(part.messageID)) s.texts.clear()
            s.texts.set(part.messageID, part.text)
            return
          }
          if (mode !== "run" || part.type !== "step-finish" || GOES_ON.includes(part.reason)) return
          if (s.parent || s.checked.has(part.messageID)) return
          s.checked.add(part.messageID)
          checkNow(part.sessionID, s, part.messageID)
          return
        }
        case "session.idle": {
          const s = sessions.get(p.sessionID)
          if (mode === "run" || !s || s.parent || s.final === undefined || s.checked.has(s.final)) return
          const messageID = s.final
          s.checked.add(messageID)
          s.final = undefined
          await checkLater(p.sessionID, s, messageID)
          return
        }
      }
    },
  }
}
