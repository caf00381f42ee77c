// Package plugin holds the files of donegate's host plugins that closer
// writes into a project: the OpenCode plugin (closer init --host
// opencode, --host kilo), the extension for pi (--host pi), the Cline
// hook (--host cline) and the plugin for Amp (--host amp). The Claude
// Code plugin, the Codex plugin and the Gemini extension are built from
// this directory by scripts/build-plugin.
package plugin

import _ "embed"

// OpenCode is donegate's OpenCode plugin, opencode/donegate.js: OpenCode
// loads it from .opencode/plugin/ (or ~/.config/opencode/plugin/).
//
//go:embed opencode/donegate.js
var OpenCode []byte

// OpenCodeStopHook is the line of OpenCode that names the stop-hook
// binary; closer init --absolute puts this machine's path in its quotes.
const OpenCodeStopHook = `const STOP_HOOK = process.env.DONEGATE_STOP_HOOK || "stop-hook"`

// Pi is donegate's extension for pi, pi/donegate.js: pi loads it from
// .pi/extensions/ (or ~/.pi/agent/extensions/).
//
//go:embed pi/donegate.js
var Pi []byte

// PiStopHook is the line of Pi that names the stop-hook binary.
const PiStopHook = `const STOP_HOOK = process.env.DONEGATE_STOP_HOOK || "stop-hook"`

// Cline is donegate's Cline hook, cline/PreToolUse.cjs: Cline runs it
// from .clinerules/hooks/ (or ~/.cline/hooks/) at each tool call.
//
//go:embed cline/PreToolUse.cjs
var Cline []byte

// ClineStopHook is the line of Cline that names the stop-hook binary.
const ClineStopHook = `const STOP_HOOK = process.env.DONEGATE_STOP_HOOK || "stop-hook"`

// Amp is donegate's plugin for Amp, amp/donegate.ts: Amp loads it from
// .amp/plugins/ (or ~/.config/amp/plugins/) when run with PLUGINS=all.
//
//go:embed amp/donegate.ts
var Amp []byte

// AmpStopHook is the line of Amp that names the stop-hook binary.
const AmpStopHook = `const STOP_HOOK = process.env.DONEGATE_STOP_HOOK || "stop-hook"`
