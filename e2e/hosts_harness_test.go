//go:build e2e && !windows

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The harness the tests of the other hosts' real clients share (Codex
// CLI, Qwen Code, the Claude Agent SDK): where each client is, a hook
// command that records what the client sends, the recorded fixtures
// re-checked against it, a Go project with a failing test, and
// donegate's own block count.

var updateEvents = flag.Bool("update-events", false, "record the real clients' hook events as testdata/events/<host>/ fixtures")

// clientPath finds a pinned client: $envVar, else what scripts/script
// installed. A missing client fails the test loudly, as claudeBinary
// does: these tests are the proof against the real client and are never
// skipped (go test ./... without the e2e tag does not build them).
func clientPath(t *testing.T, envVar, script string) string {
	t.Helper()
	if p := os.Getenv(envVar); p != "" {
		return p
	}
	out, err := exec.Command(filepath.Join(repoRoot(t), "scripts", script)).Output()
	if err != nil {
		t.Fatalf("the client is not installed and scripts/%s failed (%v); run make test, or set %s", script, err, envVar)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	return lines[len(lines)-1]
}

// recorder writes a shell script that saves each event on its stdin to
// dir (one file per call, numbered in order, named .json once whole) and
// then hands it to the command in its arguments, if any; without one it
// answers nothing. It
// stands between the client and donegate's hook, so the recording is what
// the hook read.
func recorder(t *testing.T, dir string) string {
	t.Helper()
	require.NoError(t, os.MkdirAll(dir, 0o755))
	script := filepath.Join(t.TempDir(), "record-event")
	body := `#!/bin/sh
# Saves the hook event on stdin, then runs the hook given as arguments on it.
dir='` + dir + `'
# The next number, taken exclusively (noclobber): hooks of one client can
# run at once (OpenCode's serve mode runs them in the background).
while :; do
  n=$(ls "$dir" | wc -l)
  f=$(printf '%s/%03d.json' "$dir" "$n")
  if (set -C; : > "$f.part") 2>/dev/null; then break; fi
done
# Whole before it is named .json: the test reads the events while a
# client runs, and a half-written event read as empty JSON.
cat > "$f.part"
mv "$f.part" "$f"
if [ $# -eq 0 ]; then
  exit 0
fi
exec "$@" < "$f"
`
	require.NoError(t, os.WriteFile(script, []byte(body), 0o755))
	return script
}

// clientEvent is one event a client sent, as recorded.
type clientEvent struct {
	Raw    []byte
	Fields map[string]any
}

func (e clientEvent) str(key string) string {
	s, _ := e.Fields[key].(string)
	return s
}

// clientEvents reads the events recorder saved in dir, in order.
func clientEvents(t *testing.T, dir string) []clientEvent {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	require.NoError(t, err)
	sort.Strings(files)
	var out []clientEvent
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		var fields map[string]any
		require.NoError(t, json.Unmarshal(data, &fields), "%s: %s", f, data)
		out = append(out, clientEvent{Raw: data, Fields: fields})
	}
	return out
}

// ofEvent returns the recorded events named name (hook_event_name).
func ofEvent(events []clientEvent, name string) []clientEvent {
	var out []clientEvent
	for _, e := range events {
		if e.str("hook_event_name") == name {
			out = append(out, e)
		}
	}
	return out
}

// fixture is a recorded event in testdata/events/<host>/, and which of a
// run's recorded events it stands for.
type fixture struct {
	file string
	pick func([]clientEvent) (clientEvent, bool)
}

// nthEvent picks the i-th event named name whose field key, when key is
// not "", has the value want.
func nthEvent(name string, i int, key string, want any) func([]clientEvent) (clientEvent, bool) {
	return func(events []clientEvent) (clientEvent, bool) {
		n := 0
		for _, e := range ofEvent(events, name) {
			if key != "" && e.Fields[key] != want {
				continue
			}
			if n == i {
				return e, true
			}
			n++
		}
		return clientEvent{}, false
	}
}

// afterStop picks the first event named name sent after the first Stop.
func afterStop(name string) func([]clientEvent) (clientEvent, bool) {
	return func(events []clientEvent) (clientEvent, bool) {
		stopped := false
		for _, e := range events {
			switch {
			case e.str("hook_event_name") == "Stop":
				stopped = true
			case stopped && e.str("hook_event_name") == name:
				return e, true
			}
		}
		return clientEvent{}, false
	}
}

// checkFixtures holds the fixtures of host to what its real client sent
// in this run: each must have the same keys, with values of the same JSON
// types, as the event it stands for (ids, times and paths differ from run
// to run). -update-events writes them again, with the run's throwaway
// paths and ids replaced by placeholders (paths: pairs of from, to): the
// unit tests of hookio read them for exact values.
func checkFixtures(t *testing.T, host string, events []clientEvent, fixtures []fixture, paths ...string) {
	t.Helper()
	for _, fx := range fixtures {
		ev, ok := fx.pick(events)
		if !assert.True(t, ok, "%s: the run sent no such event; recorded: %s", fx.file, eventNames(events)) {
			continue
		}
		checkJSONFixture(t, filepath.Join("events", host, fx.file), ev.Raw, paths...)
	}
}

// checkJSONFixture holds testdata/file, one JSON object, to got, what
// the real client wrote, as checkFixtures does.
func checkJSONFixture(t *testing.T, file string, got []byte, paths ...string) {
	t.Helper()
	path := filepath.Join(repoRoot(t), "testdata", file)
	if *updateEvents {
		var indented bytes.Buffer
		require.NoError(t, json.Indent(&indented, bytes.TrimSpace(got), "", " "))
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(strings.NewReplacer(paths...).Replace(indented.String())+"\n"), 0o644))
	}
	data, err := os.ReadFile(path)
	require.NoError(t, err, "run go test -tags e2e ./e2e -run %s -update-events", t.Name())
	var recorded, real map[string]any
	require.NoError(t, json.Unmarshal(data, &recorded), path)
	require.NoError(t, json.Unmarshal(got, &real), "%s", got)
	assert.Equal(t, shape(recorded), shape(real), "%s: the real client wrote another shape than the fixture; record it again with -update-events", file)
}

// checkLineFixture holds the line of testdata/file (JSON lines) that
// contains marker to the first such line of got, a file the real client
// wrote, as checkFixtures does. -update-events writes the whole of got,
// its long strings (the instructions) shortened.
func checkLineFixture(t *testing.T, file string, got []byte, marker string, paths ...string) {
	t.Helper()
	path := filepath.Join(repoRoot(t), "testdata", file)
	if *updateEvents {
		var out bytes.Buffer
		enc := json.NewEncoder(&out)
		enc.SetEscapeHTML(false)
		for _, line := range bytes.Split(bytes.TrimSpace(got), []byte("\n")) {
			var v any
			require.NoError(t, json.Unmarshal(line, &v), "%s", line)
			require.NoError(t, enc.Encode(shorten(v)))
		}
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(strings.NewReplacer(paths...).Replace(out.String())), 0o644))
	}
	data, err := os.ReadFile(path)
	require.NoError(t, err, "run go test -tags e2e ./e2e -run %s -update-events", t.Name())
	line := func(data []byte) map[string]any {
		for _, l := range bytes.Split(data, []byte("\n")) {
			if bytes.Contains(l, []byte(marker)) {
				var v map[string]any
				require.NoError(t, json.Unmarshal(l, &v), "%s", l)
				return v
			}
		}
		t.Fatalf("no line holds %s", marker)
		return nil
	}
	assert.Equal(t, shape(line(data)), shape(line(got)), "%s: the real client wrote another shape than the fixture; record it again with -update-events", file)
}

// shorten cuts the long strings of a decoded JSON value: the
// instructions a client repeats in its files are not what a fixture is
// for.
func shorten(v any) any {
	switch v := v.(type) {
	case string:
		if len(v) > 300 {
			return v[:120] + " [... shortened for the fixture]"
		}
	case map[string]any:
		for k, x := range v {
			v[k] = shorten(x)
		}
	case []any:
		for i, x := range v {
			v[i] = shorten(x)
		}
	}
	return v
}

// shape is each key of a JSON object with the JSON type of its value,
// the keys of nested objects dotted.
func shape(fields map[string]any) []string {
	var out []string
	for k, v := range fields {
		if m, ok := v.(map[string]any); ok {
			for _, sub := range shape(m) {
				out = append(out, k+"."+sub)
			}
			continue
		}
		out = append(out, fmt.Sprintf("%s:%T", k, v))
	}
	sort.Strings(out)
	return out
}

func eventNames(events []clientEvent) string {
	var names []string
	for _, e := range events {
		names = append(names, e.str("hook_event_name"))
	}
	return strings.Join(names, ",")
}

// stopCounter is donegate's own count of the blocks of a session's Stop
// gate, from its state dir: what decides when the agent is let go,
// whatever the host's own cap.
type stopCounter struct {
	PromptID  string `json:"prompt_id"`
	Blocks    int    `json:"blocks"`
	Exhausted bool   `json:"exhausted"`
}

func donegateStopCount(t *testing.T, stateDir string) stopCounter {
	t.Helper()
	states, err := filepath.Glob(filepath.Join(stateDir, "*.json"))
	require.NoError(t, err)
	require.Len(t, states, 1, "one session's state in %s", stateDir)
	data, err := os.ReadFile(states[0])
	require.NoError(t, err)
	var st struct {
		Counters map[string]stopCounter `json:"counters"`
	}
	require.NoError(t, json.Unmarshal(data, &st), "%s", data)
	return st.Counters["stop"]
}

// goProject writes a Go module whose test fails (Add subtracts) into dir
// and returns the environment its go test needs: the developer's build
// cache keeps it quick, and no toolchain is ever fetched.
func goProject(t *testing.T, dir, home string) []string {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Fatal("go is not on PATH")
	}
	files := map[string]string{
		"go.mod":       "module example.com/calc\n\ngo 1.21\n",
		"calc.go":      brokenCalc,
		"calc_test.go": "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif got := Add(2, 3); got != 5 {\n\t\tt.Fatalf(\"Add(2, 3) = %d, want 5\", got)\n\t}\n}\n",
	}
	for name, content := range files {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644))
	}
	cache, err := exec.Command("go", "env", "GOCACHE").Output()
	require.NoError(t, err)
	return []string{"GOCACHE=" + strings.TrimSpace(string(cache)), "GOTOOLCHAIN=local", "GOFLAGS=", "GOPATH=" + filepath.Join(home, "go")}
}

const (
	brokenCalc = "package calc\n\n// Add returns a plus b.\nfunc Add(a, b int) int { return a - b }\n"
	fixedCalc  = "package calc\n\n// Add returns a plus b.\nfunc Add(a, b int) int { return a + b }\n"
	// goTestFailure is how donegate's test checker tells the agent.
	goTestFailure = "The test command `go test ./...` failed with exit code 1."
)

// gitInit makes dir a git repository (Codex wants one; the others do not
// mind).
func gitInit(t *testing.T, dir string) {
	t.Helper()
	cmd := exec.Command("git", "init", "-q")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
}

// commitAll commits every file of the repository at dir, as "init".
func commitAll(t *testing.T, dir string) {
	t.Helper()
	for _, args := range [][]string{{"add", "-A"}, {"-c", "user.email=a@b", "-c", "user.name=n", "commit", "-q", "-m", "init"}} {
		out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput()
		require.NoError(t, err, "%s", out)
	}
}

// clientRun is one finished run of a client.
type clientRun struct {
	Stdout, Stderr string
	ExitCode       int
	Took           time.Duration
}

// runClient runs name args in dir with exactly env (nothing of the
// developer's own environment but PATH), in its own process group, killed
// with it after limit. The time it took is logged, never asserted.
func runClient(t *testing.T, limit time.Duration, dir string, env []string, name string, args ...string) clientRun {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "LANG=C.UTF-8", "TMPDIR=" + t.TempDir()}, env...)
	cmd.Stdin = nil // the clients read a prompt from a stdin that is not a terminal
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	r := clientRun{Stdout: stdout.String(), Stderr: stderr.String(), Took: time.Since(start)}
	t.Logf("%s took %v", filepath.Base(name), r.Took.Round(time.Millisecond))
	if ctx.Err() != nil {
		t.Fatalf("%s did not finish within %v\nstdout: %s\nstderr: %s", name, limit, r.Stdout, r.Stderr)
	}
	if ee, ok := err.(*exec.ExitError); ok {
		r.ExitCode = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run %s: %v\nstderr: %s", name, err, r.Stderr)
	}
	return r
}

// writeJSON writes v as indented JSON to path, making its directory.
func writeJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := json.MarshalIndent(v, "", "  ")
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, data, 0o644))
}

// claudeShapedHooks is the hooks object Codex and Qwen read, Claude
// Code's shape: event -> [{hooks: [{type: command, command, timeout}]}].
func claudeShapedHooks(commands map[string]string) map[string]any {
	hooks := map[string]any{}
	for event, command := range commands {
		hooks[event] = []any{map[string]any{"hooks": []any{map[string]any{"type": "command", "command": command, "timeout": 60}}}}
	}
	return hooks
}

// closerInit runs closer init --host host in project, as a person would on
// a fresh repository: HOME is home, the hooks are found on PATH by their
// bare names. It returns PATH with the hooks' dir first, for the client.
func closerInit(t *testing.T, host, project, home string) string {
	t.Helper()
	path := hookBinaries(t) + string(os.PathListSeparator) + os.Getenv("PATH")
	r := runClient(t, time.Minute, project, []string{"HOME=" + home, "PATH=" + path}, closerBinary(t), "init", "--host", host)
	require.Equal(t, 0, r.ExitCode, "closer init --host %s\nstdout: %s\nstderr: %s", host, r.Stdout, r.Stderr)
	t.Logf("closer init --host %s:\n%s", host, r.Stdout)
	return path
}

// needDebianTool fails the test when a program from Debian's packages
// (scripts/install-debian-tools) is not on PATH — or skips it, saying
// why, where the script says they cannot be had here (exit 3: no
// apt-get, no root) and DONEGATE_REQUIRE_DEBIAN is not set.
func needDebianTool(t *testing.T, programs ...string) {
	t.Helper()
	for _, p := range programs {
		if _, err := exec.LookPath(p); err == nil {
			continue
		}
		var stderr strings.Builder
		cmd := exec.Command(filepath.Join(repoRoot(t), "scripts", "install-debian-tools"))
		cmd.Stderr = &stderr
		err := cmd.Run()
		var exit *exec.ExitError
		if errors.As(err, &exit) && exit.ExitCode() == 3 && os.Getenv("DONEGATE_REQUIRE_DEBIAN") == "" {
			t.Skipf("%s cannot be had here: %s", p, strings.TrimSpace(stderr.String()))
		}
		t.Fatalf("%s is not on PATH: make test installs it (scripts/install-debian-tools: %v %s)", p, err, strings.TrimSpace(stderr.String()))
	}
}
