// Package plugin holds the files of donegate's host plugins that closer
// writes into a project: the OpenCode plugin (closer init --host
// opencode). The Claude Code plugin, the Codex plugin and the Gemini
// extension are built from this directory by scripts/build-plugin.
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
