package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/donegate/donegate/config"
	"github.com/donegate/donegate/internal/gate"
)

// What a stop costs the agent's change (issue 28): a project that does
// not ignore its tests' by-products, the agent's own passing run, checks
// started after the agent's edit, and a one-package change in an npm
// workspace. Each is timed against what it
// should cost: git status of the same tree, or the whole suite.

// speedCases are the cases, their rows, and what must be in place before
// they run.
type speedCases struct {
	cases []*bcase
	rows  func(by map[string]*bcase, ratio func(a, b string) float64) []row
}

// wsPackages is how many packages the workspace has; each package's test
// sleeps wsSleep, so the whole suite takes at least wsPackages×wsSleep.
const (
	wsPackages = 20
	wsSleep    = "1"
)

func setupSpeed(work, bin string, baseEnv []string) (*speedCases, error) {
	stop := func(name, dir string, extra ...string) *bcase {
		ev, _ := json.Marshal(map[string]any{
			"session_id": "bench-" + name, "transcript_path": filepath.Join(work, "none-such.jsonl"), "cwd": dir, "prompt_id": "p1",
			"permission_mode": "default", "hook_event_name": "Stop", "stop_hook_active": false,
		})
		argv := append([]string{filepath.Join(bin, "stop-hook"), "--state-dir", filepath.Join(work, "state-"+name)}, extra...)
		return &bcase{name: name, argv: argv, stdin: ev, env: baseEnv, dir: dir, expect: "{}"}
	}
	// allowAs records consent as the person would in the hooks' own
	// environment: they run with HOME=work (baseEnv), and npm test's
	// consent covers the user's ~/.npmrc, so a consent taken with this
	// process's HOME held every stop of a machine that has one.
	allowAs := func(state, dir string, l config.Lookup) error {
		home := os.Getenv("HOME")
		defer os.Setenv("HOME", home)
		if err := os.Setenv("HOME", work); err != nil {
			return err
		}
		_, err := gate.Allow(state, dir, l, "hookbench", time.Now())
		return err
	}
	allow := func(name, dir string) error {
		return allowAs(filepath.Join(work, "state-"+name), dir, config.Lookup{ProjectDir: dir})
	}

	// A 10,000-file repository without a .gitignore whose test command
	// writes what pytest writes: a second stop reuses the result.
	fmt.Fprintln(os.Stderr, "generating a 10,000-file repository without a .gitignore...")
	py := filepath.Join(work, "pycache")
	if err := setupBig(py, 100, 100); err != nil {
		return nil, err
	}
	pyCommand := "mkdir -p __pycache__ .pytest_cache/v/cache && date +%N > .pytest_cache/v/cache/lastfailed && date +%N > __pycache__/test_x.cpython-312.pyc && sleep 0.5"
	if err := writeConfig(py, `{"checkers":[{"type":"test","command":"`+pyCommand+`"}]}`); err != nil {
		return nil, err
	}
	// The agent's own passing run, told by Claude Code at PostToolUse of
	// Bash, in a copy of the same kind of tree: the stop reuses it (the
	// config opts in, as the person must).
	agent := filepath.Join(work, "agentrun")
	if err := setupBig(agent, 100, 100); err != nil {
		return nil, err
	}
	if err := writeConfig(agent, `{"reuse_agent_runs":true,"checkers":[{"type":"test","command":"sleep 5"}]}`); err != nil {
		return nil, err
	}
	for _, a := range []struct{ name, dir string }{{"pycache", py}, {"agentrun", agent}, {"ws", ""}, {"ws-all", ""}} {
		if a.dir != "" {
			if err := allow(a.name, a.dir); err != nil {
				return nil, err
			}
		}
	}
	bashRun, _ := json.Marshal(map[string]any{
		"session_id": "bench-agentrun", "transcript_path": filepath.Join(work, "none-such.jsonl"), "cwd": agent, "prompt_id": "p1",
		"permission_mode": "default", "hook_event_name": "PostToolUse", "tool_name": "Bash",
		"tool_input":    map[string]any{"command": "sleep 5", "description": "run the tests"},
		"tool_response": map[string]any{"stdout": "", "stderr": "", "interrupted": false, "isImage": false, "noOutputExpected": false},
	})
	record := exec.Command(filepath.Join(bin, "posttooluse-hook"), "--state-dir", filepath.Join(work, "state-agentrun"))
	record.Dir, record.Env = agent, baseEnv
	record.Stdin = bytes.NewReader(bashRun)
	if out, err := record.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("recording the agent's run: %v: %s", err, out)
	}

	// Checks started after the agent's last edit (stop-hook --start, run
	// by Claude Code in the background), the stop arriving once they
	// have run: before each round the agent writes a file and the start
	// runs its suite for that tree; the stop finds the result.
	early := filepath.Join(work, "early")
	if err := setupBig(early, 100, 100); err != nil {
		return nil, err
	}
	if err := writeConfig(early, `{"checkers":[{"type":"test","command":"sleep 1"}]}`); err != nil {
		return nil, err
	}
	if err := allow("early", early); err != nil {
		return nil, err
	}
	edits := 0
	editAndStart := func() error {
		edits++
		written := filepath.Join(early, "written.txt")
		if err := os.WriteFile(written, []byte(fmt.Sprintf("edit %d\n", edits)), 0o644); err != nil {
			return err
		}
		ev, _ := json.Marshal(map[string]any{
			"session_id": "bench-early", "transcript_path": filepath.Join(work, "none-such.jsonl"), "cwd": early, "prompt_id": "p1",
			"permission_mode": "default", "hook_event_name": "PostToolUse", "tool_name": "Write",
			"tool_input":    map[string]any{"file_path": written, "content": "..."},
			"tool_response": map[string]any{"type": "update", "filePath": written},
		})
		start := exec.Command(filepath.Join(bin, "stop-hook"), "--start", "--state-dir", filepath.Join(work, "state-early"))
		start.Dir, start.Env, start.Stdin = early, baseEnv, bytes.NewReader(ev)
		if out, err := start.CombinedOutput(); err != nil || !bytes.Contains(out, []byte("early for the stop")) {
			return fmt.Errorf("stop-hook --start: %v: %s", err, out)
		}
		return nil
	}
	earlyStop := stop("early", early)
	earlyStop.before = editAndStart

	// An npm workspace of wsPackages packages (see setupWorkspace): a
	// change to the leaf p20, before each round, runs its tests alone.
	ws := filepath.Join(work, "ws")
	if err := setupWorkspace(ws); err != nil {
		return nil, err
	}
	allConfig := filepath.Join(work, "ws-all.json")
	if err := os.WriteFile(allConfig, []byte(`{"hold_unchanged":true,"checkers":[{"type":"test","scope":"all"}]}`), 0o644); err != nil {
		return nil, err
	}
	if err := allow("ws", ws); err != nil {
		return nil, err
	}
	if err := allowAs(filepath.Join(work, "state-ws-all"), ws, config.Lookup{Flag: allConfig, ProjectDir: ws}); err != nil {
		return nil, err
	}
	leaf := filepath.Join(ws, "packages", fmt.Sprintf("p%02d", wsPackages), "index.js")
	n := 0
	touchLeaf := func() error {
		n++
		return os.WriteFile(leaf, []byte(fmt.Sprintf("module.exports = %d\n", n)), 0o644)
	}
	wsEnv := append([]string{"npm_config_update_notifier=false", "npm_config_cache=" + filepath.Join(work, "npm-cache")}, baseEnv...)
	leafStop := stop("ws", ws)
	leafStop.env, leafStop.before = wsEnv, touchLeaf
	whole := stop("ws-all", ws, "--config", allConfig)
	whole.env, whole.before, whole.maxRuns = wsEnv, touchLeaf, 2

	status := func(name, dir string) *bcase {
		return &bcase{name: name, argv: []string{"git", "status", "--porcelain", "--untracked-files=all"}, env: baseEnv, dir: dir}
	}
	cases := []*bcase{
		stop("pycache", py), status("pycache-status", py),
		stop("agentrun", agent), status("agentrun-status", agent),
		earlyStop, status("early-status", early),
		leafStop, whole,
	}
	return &speedCases{cases: cases, rows: func(by map[string]*bcase, ratio func(a, b string) float64) []row {
		return []row{
			{"pytest-like project without a .gitignore, 10,000 files: a second stop on an unchanged tree (its by-products untracked)",
				fmt.Sprintf("%s = %.2f× git status", ms(median(by["pycache"].times)), ratio("pycache", "pycache-status")), "≤ 1.3× git status", ratio("pycache", "pycache-status") <= 1.3},
			{"the agent ran the suite itself (PostToolUse of Bash), tree unchanged: the stop, 10,000 files",
				fmt.Sprintf("%s = %.2f× git status", ms(median(by["agentrun"].times)), ratio("agentrun", "agentrun-status")), "≤ 1.3× git status", ratio("agentrun", "agentrun-status") <= 1.3},
			{"checks started after the last edit (stop-hook --start), the stop arriving once they ran: the stop, 10,000 files",
				fmt.Sprintf("%s = %.2f× git status", ms(median(by["early"].times)), ratio("early", "early-status")), "≤ 1.3× git status", ratio("early", "early-status") <= 1.3},
			{fmt.Sprintf("npm workspace of %d packages, whole suite (scope all) ≥ %d s", wsPackages, wsPackages),
				fmt.Sprintf("%.1f s", secs(median(by["ws-all"].times))), "(baseline)", true},
			{"the same workspace: a stop after a change in one leaf package",
				fmt.Sprintf("%.2f s = %.0f%% of the whole suite", secs(median(by["ws"].times)), 100*ratio("ws", "ws-all")), "≤ 15% of the whole suite", ratio("ws", "ws-all") <= 0.15},
		}
	}}, nil
}

func writeConfig(dir, cfg string) error {
	return os.WriteFile(filepath.Join(dir, ".claude", "donegate.json"), []byte(cfg), 0o644)
}

// setupWorkspace writes an npm workspace of wsPackages packages in a git
// repository, each test sleeping wsSleep seconds; every package depends
// on p01, and nothing on p20, the leaf whose change the rounds time.
func setupWorkspace(dir string) error {
	if err := os.MkdirAll(filepath.Join(dir, ".claude"), 0o755); err != nil {
		return err
	}
	files := map[string]string{
		"package.json":          `{"name":"ws","private":true,"workspaces":["packages/*"],"scripts":{"test":"npm test --workspaces --if-present"}}`,
		".claude/donegate.json": `{"hold_unchanged":true,"checkers":[{"type":"test"}]}`,
		".gitignore":            "node_modules/\n",
	}
	for i := 1; i <= wsPackages; i++ {
		deps := "" // p01 is the packages' shared base; nothing depends on the others
		if i > 1 {
			deps = `"p01":"1.0.0"`
		}
		files[fmt.Sprintf("packages/p%02d/package.json", i)] = fmt.Sprintf(`{"name":"p%02d","version":"1.0.0","dependencies":{%s},"scripts":{"test":"sleep %s"}}`, i, deps, wsSleep)
		files[fmt.Sprintf("packages/p%02d/index.js", i)] = "module.exports = 0\n"
	}
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			return err
		}
	}
	return commitAll(dir)
}
