// Package paths resolves the directories donegate reads and writes — the
// home, the Claude config dir, the state dir — from the environment, one
// way for the hooks and for closer, so that closer check, doctor and
// explain look where the hooks look.
package paths

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// Getenv reads one environment variable; tests pass their own.
type Getenv func(string) string

// Home is $HOME, else the user's home dir as the system knows it.
func Home(getenv Getenv) string {
	if h := getenv("HOME"); h != "" {
		return h
	}
	h, _ := os.UserHomeDir()
	return h
}

// Expand resolves a leading ~ or ~/ against Home, as the shell would.
func Expand(getenv Getenv, p string) string {
	if p == "~" {
		return Home(getenv)
	}
	if strings.HasPrefix(p, "~/") {
		return filepath.Join(Home(getenv), p[2:])
	}
	return p
}

// ClaudeDir is the Claude config dir: derived from a session transcript's
// path (<dir>/projects/<slug>/<session>.jsonl), which is right even when
// the host runs with a custom config dir; else $CLAUDE_CONFIG_DIR; else
// ~/.claude.
func ClaudeDir(getenv Getenv, transcriptPath string) string {
	if transcriptPath != "" {
		projects := filepath.Dir(filepath.Dir(transcriptPath))
		if filepath.Base(projects) == "projects" {
			return filepath.Dir(projects)
		}
	}
	if d := getenv("CLAUDE_CONFIG_DIR"); d != "" {
		return d
	}
	return filepath.Join(Home(getenv), ".claude")
}

// StateDir is donegate's state dir (block counts, cached results) when no
// --state-dir names one: $DONEGATE_STATE_DIR, else on Windows
// %LOCALAPPDATA%\donegate (the user's own, not roamed), else
// $XDG_STATE_HOME/donegate, else ~/.local/state/donegate.
func StateDir(getenv Getenv) string {
	if d := getenv("DONEGATE_STATE_DIR"); d != "" {
		return d
	}
	if d := getenv("LOCALAPPDATA"); d != "" && runtime.GOOS == "windows" {
		return filepath.Join(d, "donegate")
	}
	if d := getenv("XDG_STATE_HOME"); d != "" {
		return filepath.Join(d, "donegate")
	}
	return filepath.Join(Home(getenv), ".local", "state", "donegate")
}

// ProjectDir is the project dir the host names in a hook's environment:
// $CLAUDE_PROJECT_DIR (Claude Code and Qwen Code; Gemini CLI and Copilot
// CLI set it too, measured with 0.61.0 and 1.0.102), else
// $GEMINI_PROJECT_DIR; "" when neither is set (Codex and Cursor name
// none: the event's cwd is the project dir there).
func ProjectDir(getenv Getenv) string {
	if d := getenv("CLAUDE_PROJECT_DIR"); d != "" {
		return d
	}
	return getenv("GEMINI_PROJECT_DIR")
}

// HasDir reports whether a program name names a directory too (bin/x,
// or bin\x on Windows): such a name is a path, run as it is, where a bare
// name is looked up on PATH.
func HasDir(name string) bool {
	return strings.ContainsRune(name, '/') || strings.ContainsRune(name, filepath.Separator)
}
