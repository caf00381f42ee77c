//go:build e2e && !windows

package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/hookio"
	"github.com/donegate/donegate/internal/testsupport/fakeapi"
)

// otelcolBinary is the pinned OpenTelemetry Collector, built by
// scripts/install-otelcol (see pinned).
func otelcolBinary(t *testing.T) string {
	return pinned(t, "DONEGATE_OTELCOL", "otelcol", "the OpenTelemetry Collector")
}

// collector is a real OpenTelemetry Collector on 127.0.0.1: its OTLP
// receiver (HTTP) on port, its file exporter writing to out.
type collector struct {
	t    *testing.T
	port int
	out  string
	conf string
	cmd  *exec.Cmd
}

// newCollector readies a collector on a free port, not started.
func newCollector(t *testing.T) *collector {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := l.Addr().(*net.TCPAddr).Port
	require.NoError(t, l.Close())
	dir := t.TempDir()
	c := &collector{t: t, port: port, out: filepath.Join(dir, "logs.jsonl"), conf: filepath.Join(dir, "otelcol.yaml")}
	conf := fmt.Sprintf(`receivers:
  otlp:
    protocols:
      http:
        endpoint: 127.0.0.1:%d
exporters:
  file:
    path: %s
    flush_interval: 100ms
service:
  telemetry:
    metrics:
      level: none
  pipelines:
    logs:
      receivers: [otlp]
      exporters: [file]
`, port, c.out)
	require.NoError(t, os.WriteFile(c.conf, []byte(conf), 0o600))
	t.Cleanup(c.stop)
	return c
}

// URL is the collector's base URL, as OTEL_EXPORTER_OTLP_ENDPOINT takes it.
func (c *collector) URL() string { return fmt.Sprintf("http://127.0.0.1:%d", c.port) }

// start runs the collector and waits until it takes connections.
func (c *collector) start() {
	c.t.Helper()
	c.cmd = exec.Command(otelcolBinary(c.t), "--config", c.conf)
	logFile, err := os.OpenFile(c.conf+".log", os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	require.NoError(c.t, err)
	defer logFile.Close()
	c.cmd.Stdout, c.cmd.Stderr = logFile, logFile
	c.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	require.NoError(c.t, c.cmd.Start())
	deadline := time.Now().Add(30 * time.Second)
	for {
		conn, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", c.port), time.Second)
		if err == nil {
			conn.Close()
			return
		}
		if time.Now().After(deadline) {
			out, _ := os.ReadFile(c.conf + ".log")
			c.t.Fatalf("the collector took no connection within 30 s: %v\n%s", err, out)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (c *collector) stop() {
	if c.cmd == nil || c.cmd.Process == nil {
		return
	}
	_ = syscall.Kill(-c.cmd.Process.Pid, syscall.SIGKILL)
	_ = c.cmd.Wait()
	c.cmd = nil
}

// exported is one log record the collector wrote.
type exported struct {
	Body     string
	Severity string
	Event    string
	Attrs    map[string]any
	Resource map[string]any
}

// records reads what the collector has written (OTLP/JSON, a request a
// line).
func (c *collector) records() []exported {
	c.t.Helper()
	f, err := os.Open(c.out)
	if os.IsNotExist(err) {
		return nil
	}
	require.NoError(c.t, err)
	defer f.Close()
	var out []exported
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var req struct {
			ResourceLogs []struct {
				Resource  struct{ Attributes []otlpKV }
				ScopeLogs []struct {
					LogRecords []struct {
						Body         otlpValue
						SeverityText string
						EventName    string
						Attributes   []otlpKV
					}
				}
			}
		}
		require.NoError(c.t, json.Unmarshal(sc.Bytes(), &req))
		for _, rl := range req.ResourceLogs {
			for _, sl := range rl.ScopeLogs {
				for _, r := range sl.LogRecords {
					body, _ := r.Body.value().(string)
					out = append(out, exported{Body: body, Severity: r.SeverityText, Event: r.EventName, Attrs: kvMap(r.Attributes), Resource: kvMap(rl.Resource.Attributes)})
				}
			}
		}
	}
	require.NoError(c.t, sc.Err())
	return out
}

// waitFor waits until the collector holds n records of donegate's, and
// a moment more to see that no more come.
func (c *collector) waitFor(n int, within time.Duration) []exported {
	c.t.Helper()
	deadline := time.Now().Add(within)
	for {
		got := c.records()
		if len(got) >= n {
			time.Sleep(time.Second)
			return c.records()
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("the collector holds %d of the %d decisions after %s", len(got), n, within)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// otlpKV and otlpValue read OTLP/JSON's attributes.
type otlpKV struct {
	Key   string
	Value otlpValue
}

type otlpValue struct {
	StringValue *string
	IntValue    *string
	BoolValue   *bool
	ArrayValue  *struct{ Values []otlpValue }
	KvlistValue *struct{ Values []otlpKV }
}

func (v otlpValue) value() any {
	switch {
	case v.StringValue != nil:
		return *v.StringValue
	case v.IntValue != nil:
		return *v.IntValue
	case v.BoolValue != nil:
		return *v.BoolValue
	case v.ArrayValue != nil:
		var out []any
		for _, e := range v.ArrayValue.Values {
			out = append(out, e.value())
		}
		return out
	case v.KvlistValue != nil:
		return kvMap(v.KvlistValue.Values)
	}
	return nil
}

func kvMap(kvs []otlpKV) map[string]any {
	m := map[string]any{}
	for _, kv := range kvs {
		m[kv.Key] = kv.Value.value()
	}
	return m
}

// exportProject is a project whose test fails, printing a secret of the
// environment, until fixed.txt holds ok.
const exportTest = `echo "FAIL: the service refused $MY_SERVICE_API_KEY"; grep -q ok fixed.txt`

const exportSecret = "k3y-0123456789-abcdef"

// The decisions reach a real OpenTelemetry Collector from a real Claude
// Code session, each with its attributes, once, and joined to Claude
// Code's own telemetry by prompt.id; the secret a failing test printed
// reaches none of the log, the cache and the export.
func TestDecisionsReachTheCollector(t *testing.T) {
	t.Parallel()
	col := newCollector(t)
	col.start()
	api := fakeapi.New(fakeapi.Say("Done."))
	s := newSession(t, api)
	api = fakeapi.New(
		fakeapi.Say("Done."),
		fakeapi.Call("Write", map[string]any{"file_path": filepath.Join(s.Project, "fixed.txt"), "content": "ok\n"}),
		fakeapi.Say("Fixed, tests pass."),
	)
	s.API = api
	t.Cleanup(api.Close)
	s.Args = []string{"--permission-mode", "acceptEdits"}
	s.Env = []string{
		"MY_SERVICE_API_KEY=" + exportSecret,
		// The person's OpenTelemetry settings, as Claude Code's monitoring
		// docs set them: Claude Code exports its own events there. It
		// removes OTEL_* from its hooks' environment (2.1.332), so the
		// hooks are told the collector by donegate's own variable.
		"DONEGATE_OTLP_ENDPOINT=" + col.URL(),
		"CLAUDE_CODE_ENABLE_TELEMETRY=1",
		"OTEL_LOGS_EXPORTER=otlp",
		"OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf",
		"OTEL_EXPORTER_OTLP_ENDPOINT=" + col.URL(),
		"OTEL_LOGS_EXPORT_INTERVAL=200",
	}
	s.config(`{"checkers":[{"type":"test","command":` + fmt.Sprintf("%q", exportTest) + `}]}`)
	s.useDonegate()
	r := s.run("Make the tests pass")
	assertEnded(t, api, r, "Fixed, tests pass.", 3)

	var decisions []exported
	deadline := time.Now().Add(30 * time.Second)
	for len(decisions) < 2 && time.Now().Before(deadline) {
		time.Sleep(200 * time.Millisecond)
		decisions = decisions[:0]
		for _, rec := range col.records() {
			if rec.Event == "donegate.decision" {
				decisions = append(decisions, rec)
			}
		}
	}
	if len(decisions) != 2 {
		cmd := exec.Command(closerBinary(t), "export", "--status")
		cmd.Env = []string{"HOME=" + s.Home, "DONEGATE_STATE_DIR=" + filepath.Join(s.Home, "donegate-state"), "DONEGATE_OTLP_ENDPOINT=" + col.URL()}
		status, _ := cmd.CombinedOutput()
		log, _ := os.ReadFile(filepath.Join(s.Home, "donegate-state", "decisions.jsonl"))
		t.Logf("closer export --status:\n%s\ndecision log:\n%s\ncollector: %d records\nstderr: %s", status, log, len(col.records()), r.Stderr)
	}
	require.Len(t, decisions, 2, "a hold and a let-go, each once")
	held, done := decisions[0], decisions[1]
	assert.Equal(t, "blocked", held.Attrs["donegate.decision"])
	assert.Equal(t, "WARN", held.Severity)
	assert.Equal(t, "complete", done.Attrs["donegate.decision"])
	assert.Equal(t, "INFO", done.Severity)
	for _, d := range decisions {
		assert.Equal(t, "claude", d.Attrs["donegate.host"])
		assert.Equal(t, r.SessionID, d.Attrs["gen_ai.conversation.id"])
		assert.Equal(t, s.Project, d.Attrs["donegate.project"])
		assert.Equal(t, "Stop", d.Attrs["donegate.event"])
		assert.Equal(t, "donegate", d.Resource["service.name"])
		assert.NotEmpty(t, d.Attrs["prompt.id"])
		checks, _ := d.Attrs["donegate.checks"].([]any)
		require.Len(t, checks, 1)
		assert.Equal(t, "test", checks[0].(map[string]any)["label"])
	}
	assert.Equal(t, "1", held.Attrs["donegate.blocks"])
	assert.Equal(t, []any{"test"}, held.Attrs["donegate.checks.open"])
	assert.Contains(t, held.Attrs["donegate.reason"], "[masked MY_SERVICE_API_KEY]")

	// Claude Code's own record of the person's prompt carries the same
	// prompt.id: a backend joins the two.
	var prompts []any
	for _, rec := range col.records() {
		if rec.Resource["service.name"] == "claude-code" && rec.Attrs["event.name"] == "user_prompt" {
			prompts = append(prompts, rec.Attrs["prompt.id"])
		}
	}
	assert.Equal(t, []any{held.Attrs["prompt.id"]}, prompts, "the decision joins Claude Code's user_prompt by prompt.id")
	assert.Equal(t, held.Attrs["prompt.id"], done.Attrs["prompt.id"], "one turn")

	out, err := os.ReadFile(col.out)
	require.NoError(t, err)
	assert.NotContains(t, string(out), exportSecret, "the export")
	state := filepath.Join(s.Home, "donegate-state")
	log, err := os.ReadFile(filepath.Join(state, "decisions.jsonl"))
	require.NoError(t, err)
	assert.NotContains(t, string(log), exportSecret, "the decision log")
	assert.NotContains(t, grepTree(t, filepath.Join(state, "results")), exportSecret, "the results cache")
}

// grepTree is every file under dir, concatenated.
func grepTree(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		b.Write(data)
		return err
	})
	if !os.IsNotExist(err) {
		require.NoError(t, err)
	}
	return b.String()
}

// stopEvent is a Claude Code Stop event of session s in project.
func stopEvent(project, session, prompt string) string {
	return fmt.Sprintf(`{"session_id":%q,"transcript_path":%q,"cwd":%q,"prompt_id":%q,"hook_event_name":"Stop"}`,
		session, filepath.Join(project, "none.jsonl"), project, prompt)
}

// runStopHook runs the built stop-hook on event with env.
func runStopHook(t *testing.T, project, event string, env []string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(hookBinaries(t), "stop-hook"))
	cmd.Dir, cmd.Env, cmd.Stdin = project, env, strings.NewReader(event)
	out, err := cmd.Output()
	require.NoError(t, err, "stop-hook: %s", out)
	return string(out)
}

// Decisions made while the collector is down wait in the decision log
// and reach it, once each, when it is back: the exporter the hooks start
// retries it, and `closer export --status` says what waits and why.
func TestDecisionsWaitForTheCollector(t *testing.T) {
	t.Parallel()
	col := newCollector(t)
	project, home := t.TempDir(), t.TempDir()
	state := filepath.Join(home, "state")
	require.NoError(t, os.WriteFile(filepath.Join(project, "fixed.txt"), []byte("not yet\n"), 0o600))
	require.NoError(t, os.MkdirAll(filepath.Join(project, ".claude"), 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(project, ".claude", "donegate.json"), []byte(`{"checkers":[{"type":"test","command":`+fmt.Sprintf("%q", exportTest)+`}]}`), 0o600))
	allowProject(t, home, state, project)
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "LANG=C.UTF-8", "DONEGATE_STATE_DIR=" + state,
		"MY_SERVICE_API_KEY=" + exportSecret, "DONEGATE_OTLP_ENDPOINT=" + col.URL()}

	for i, prompt := range []string{"p1", "p2"} {
		out := runStopHook(t, project, stopEvent(project, "s1", prompt), env)
		assert.Contains(t, out, `"decision":"block"`, "stop %d", i+1)
	}
	// The exporter the hooks started found the collector down.
	closer := filepath.Join(hookBinaries(t), "closer")
	deadline := time.Now().Add(20 * time.Second)
	var status string
	for time.Now().Before(deadline) {
		cmd := exec.Command(closer, "export", "--status")
		cmd.Dir, cmd.Env = project, env
		out, err := cmd.Output()
		require.NoError(t, err, "%s", out)
		if status = string(out); strings.Contains(status, "Last error:") {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	assert.Contains(t, status, "Waiting in the decision log: 2.")
	assert.Contains(t, status, "connection refused")

	col.start()
	require.NoError(t, os.WriteFile(filepath.Join(project, "fixed.txt"), []byte("ok\n"), 0o600))
	out := runStopHook(t, project, stopEvent(project, "s1", "p3"), env)
	assert.NotContains(t, out, `"decision":"block"`)

	got := col.waitFor(3, 90*time.Second)
	var decisions []string
	for _, rec := range got {
		decisions = append(decisions, fmt.Sprint(rec.Attrs["prompt.id"], " ", rec.Attrs["donegate.decision"]))
	}
	assert.Equal(t, []string{"p1 blocked", "p2 blocked", "p3 complete"}, decisions, "every decision, once, in order")

	// The person's closer export finds nothing left to send.
	cmd := exec.Command(closer, "export")
	cmd.Dir, cmd.Env = project, env
	o, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", o)
	assert.Contains(t, string(o), "Sent 0 decision(s)")
	assert.Contains(t, string(o), "Waiting in the decision log: 0.")
	assert.Len(t, col.records(), 3)
}

// freePort is a port on 127.0.0.1 that nothing listens on now.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// The dashboard's pipeline as docs/dashboard/otelcol-metrics.yaml has it,
// in a real collector: the decisions closer export sends come out as the
// Prometheus counters docs/dashboard/donegate.json queries, with every
// label its queries name.
func TestDashboardCountsTheDecisions(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	conf, err := os.ReadFile(filepath.Join(root, "docs", "dashboard", "otelcol-metrics.yaml"))
	require.NoError(t, err)
	otlpPort, grpcPort, promPort := freePort(t), freePort(t), freePort(t)
	c := &collector{t: t, port: otlpPort, conf: filepath.Join(t.TempDir(), "otelcol.yaml")}
	replaced := strings.NewReplacer(
		"0.0.0.0:4318", fmt.Sprintf("127.0.0.1:%d", otlpPort),
		"0.0.0.0:4317", fmt.Sprintf("127.0.0.1:%d", grpcPort),
		"0.0.0.0:8889", fmt.Sprintf("127.0.0.1:%d", promPort),
		// The collector's own metrics would take :8888 beside other tests.
		"\nservice:\n", "\nservice:\n  telemetry:\n    metrics:\n      level: none\n",
	).Replace(string(conf))
	require.NotEqual(t, string(conf), replaced)
	require.NoError(t, os.WriteFile(c.conf, []byte(replaced), 0o600))
	t.Cleanup(c.stop)
	c.start()

	state := t.TempDir()
	var log strings.Builder
	for i, d := range []struct{ decision, host, project, event string }{
		{"blocked", "claude", "/src/shop", "Stop"}, {"blocked", "claude", "/src/shop", "Stop"},
		{"complete", "claude", "/src/shop", "Stop"}, {"let through", "codex", "/src/api", "Stop"},
		{"refused", "claude", "/src/shop", "PreToolUse"},
	} {
		fmt.Fprintf(&log, `{"time":"2026-11-29T10:00:0%dZ","project":%q,"host":%q,"session":"s%d","hook":"stop-hook","event":%q,"decision":%q}`+"\n",
			i, d.project, d.host, i, d.event, d.decision)
	}
	require.NoError(t, os.WriteFile(filepath.Join(state, "decisions.jsonl"), []byte(log.String()), 0o600))
	cmd := exec.Command(closerBinary(t), "export", "--state-dir", state)
	cmd.Env = []string{"HOME=" + t.TempDir(), "DONEGATE_OTLP_ENDPOINT=" + c.URL()}
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.Contains(t, string(out), "Sent 5 decision(s)")

	var metrics string
	require.Eventually(t, func() bool {
		resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/metrics", promPort))
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		metrics = string(body)
		return strings.Contains(metrics, `donegate_decision="refused"`)
	}, 30*time.Second, 100*time.Millisecond)
	count := func(decision, host string) string {
		for _, line := range strings.Split(metrics, "\n") {
			if strings.HasPrefix(line, "donegate_decisions_total{") && strings.Contains(line, `donegate_decision="`+decision+`"`) && strings.Contains(line, `donegate_host="`+host+`"`) {
				return line[strings.LastIndex(line, " ")+1:]
			}
		}
		return ""
	}
	assert.Equal(t, "2", count("blocked", "claude"))
	assert.Equal(t, "1", count("complete", "claude"))
	assert.Equal(t, "1", count("let through", "codex"))
	assert.Equal(t, "1", count("refused", "claude"))

	// Every metric and label the dashboard's queries name is there.
	dash, err := os.ReadFile(filepath.Join(root, "docs", "dashboard", "donegate.json"))
	require.NoError(t, err)
	var d struct {
		Panels []struct {
			Title   string
			Targets []struct{ Expr string }
		}
	}
	require.NoError(t, json.Unmarshal(dash, &d))
	names := regexp.MustCompile(`donegate_[a-z_]+`)
	n := 0
	for _, p := range d.Panels {
		for _, target := range p.Targets {
			for _, name := range names.FindAllString(target.Expr, -1) {
				assert.Contains(t, metrics, name, "panel %q", p.Title)
				n++
			}
		}
	}
	assert.Greater(t, n, 10)
}

// hookEnvOf runs a real client whose stop hook writes its environment,
// the person's OpenTelemetry endpoint and donegate's set where the client
// starts, and returns what the hook saw.
type hookEnvOf func(t *testing.T, env []string, dump string)

// What hookio's HidesOTEL says of each host, measured with the real
// client: a host that hides them gives its hooks its environment without
// a single OTEL_ variable (the hooks then export only where donegate's
// own settings say), the others pass them as they pass the rest.
func TestHooksSeeOTELAsTheirHostsSpecSays(t *testing.T) {
	t.Parallel()
	hosts := []struct {
		host hookio.Host
		run  hookEnvOf
	}{
		{hookio.HostClaude, func(t *testing.T, env []string, dump string) {
			s := newSession(t, fakeapi.New(fakeapi.Say("Done.")))
			s.Env = env
			s.Hooks["Stop"] = []hookEntry{{Command: "env > " + dump}}
			s.run("Hello")
		}},
		{hookio.HostCopilot, func(t *testing.T, env []string, dump string) {
			s := newCopilotSession(t, fakeapi.New(fakeapi.Say("Done.")))
			s.hook("env", "agentStop", "env > "+dump)
			s.Env = env
			s.run("Hello", false)
		}},
		{hookio.HostCodex, func(t *testing.T, env []string, dump string) {
			s := newCodexSession(t, fakeapi.Say("Done."))
			writeJSON(t, filepath.Join(s.Project, ".codex", "hooks.json"), map[string]any{"hooks": claudeShapedHooks(map[string]string{"Stop": "env > " + dump + "; echo {}"})})
			s.Env = env
			s.run("Hello")
		}},
		{hookio.HostGemini, func(t *testing.T, env []string, dump string) {
			s := newGeminiSession(t, fakeapi.NewGemini(fakeapi.Say("Done.")))
			s.Hooks = map[string][]string{"AfterAgent": {"env > " + dump + "; echo {}"}}
			s.Env = env
			s.run("Hello")
		}},
		{hookio.HostQwen, func(t *testing.T, env []string, dump string) {
			s := newQwenSession(t, fakeapi.Say("Done."))
			writeJSON(t, filepath.Join(s.Project, ".qwen", "settings.json"), map[string]any{"hooks": claudeShapedHooks(map[string]string{"Stop": "env > " + dump + "; echo {}"})})
			s.Env = env
			s.run("Hello")
		}},
	}
	for _, h := range hosts {
		t.Run(string(h.host), func(t *testing.T) {
			t.Parallel()
			dump := filepath.Join(t.TempDir(), "hook-env.txt")
			h.run(t, []string{"OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:9", "DONEGATE_OTLP_ENDPOINT=http://127.0.0.1:8"}, dump)
			got, err := os.ReadFile(dump)
			require.NoError(t, err, "the stop hook ran")
			env := "\n" + string(got)
			assert.Contains(t, env, "\nDONEGATE_OTLP_ENDPOINT=http://127.0.0.1:8\n", "the rest of the environment reaches the hook")
			if h.host.HidesOTEL() {
				assert.NotContains(t, env, "\nOTEL_", "%s hides OTEL_* from its hooks", h.host.Title())
			} else {
				assert.Contains(t, env, "\nOTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:9\n", "%s passes OTEL_* to its hooks", h.host.Title())
			}
		})
	}
}

// The agent against the export, through its own tools on the real Claude
// Code: it cannot turn the export off or send it elsewhere — neither by
// writing the user's otlp.json (Write, and Bash), nor by a
// DONEGATE_OTLP_ENDPOINT in the project's settings, nor by running closer
// export itself — and its held decisions reach the collector.
func TestAgentCannotSilenceTheExport(t *testing.T) {
	t.Parallel()
	col := newCollector(t)
	col.start()
	s := newSession(t, fakeapi.New())
	userFile := filepath.Join(s.Home, ".config", "donegate", "otlp.json")
	api := fakeapi.New(
		fakeapi.Say("Done."),
		fakeapi.Call("Write", map[string]any{"file_path": userFile, "content": `{"endpoint": "off"}`}),
		fakeapi.Call("Bash", map[string]any{"command": "mkdir -p ~/.config/donegate && echo '{\"endpoint\":\"http://127.0.0.1:1\"}' > ~/.config/donegate/otlp.json", "description": "x"}),
		fakeapi.Call("Bash", map[string]any{"command": "DONEGATE_OTLP_ENDPOINT=off " + closerBinary(t) + " export --background", "description": "x"}),
		fakeapi.Say("Done."),
		fakeapi.Say("Done."),
	)
	s.API = api
	t.Cleanup(api.Close)
	s.config(`{"checkers":[{"type":"files","paths":["never.txt"]}],"limits":{"max_blocks":2}}`)
	s.Env = []string{"DONEGATE_OTLP_ENDPOINT=" + col.URL()}
	s.useDonegate()
	s.guardTools()
	s.Args = []string{"--allowedTools", "Bash,Write", "--permission-mode", "acceptEdits"}
	r := s.run("Do it")
	require.Equal(t, 0, r.ExitCode, r.Stderr)
	assert.Contains(t, mainTurn(t, api, 2), "otlp.json")
	assert.Contains(t, mainTurn(t, api, 3), "donegate refuses this call")
	assert.Contains(t, mainTurn(t, api, 4), "donegate refuses this call: `closer export` is the person's command")
	_, err := os.Stat(userFile)
	assert.ErrorIs(t, err, os.ErrNotExist, "the writes were refused")

	var decisions []string
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		decisions = decisions[:0]
		for _, rec := range col.records() {
			if rec.Event == "donegate.decision" {
				decisions = append(decisions, fmt.Sprint(rec.Attrs["donegate.event"], " ", rec.Attrs["donegate.decision"]))
			}
		}
		if len(decisions) >= 6 {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	assert.Contains(t, decisions, "Stop blocked", "the holds reach the collector")
	assert.Contains(t, decisions, "PreToolUse refused", "and the refused tries")
}

// A new user's setup, in the real Claude Code's interactive terminal: the
// person sets DONEGATE_OTLP_ENDPOINT where they start claude, types a
// task, and while the agent works types "donegate release": the hold
// before it and the person's release both reach the collector.
func TestTerminalSessionReachesTheCollector(t *testing.T) {
	t.Parallel()
	needDebianTool(t, "tmux")
	col := newCollector(t)
	col.start()
	s := newSession(t, fakeapi.New())
	api := fakeapi.New(
		fakeapi.Say("Done."),
		fakeapi.Call("Bash", map[string]any{"command": "sleep 6; echo slow job done", "description": "slow job"}),
		fakeapi.Say("Done."),
		fakeapi.Say("Done."),
	)
	s.API = api
	t.Cleanup(api.Close)
	s.config(`{"checkers":[{"type":"files","paths":["never.txt"]}]}`)
	s.useDonegate()
	s.Hooks["UserPromptSubmit"] = append(s.Hooks["UserPromptSubmit"], hookEntry{Command: filepath.Join(hookBinaries(t), "stop-hook") + " --criteria"})
	s.consent()
	term := startTerminal(t, s, api, "DONEGATE_OTLP_ENDPOINT="+col.URL())
	term.typeLine("Do the task")
	term.waitFor("the slow Bash call", func() bool { return len(api.Of("main")) >= 2 && strings.Contains(term.screen(), "slow job") })
	time.Sleep(time.Second)
	term.typeLine("donegate release")
	term.waitFor("the turn's end", func() bool { return len(api.Of("main")) >= 3 && !strings.Contains(term.screen(), "esc to interrupt") })

	var decisions []string
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		decisions = decisions[:0]
		for _, rec := range col.records() {
			if rec.Event == "donegate.decision" {
				decisions = append(decisions, fmt.Sprint(rec.Attrs["donegate.event"], " ", rec.Attrs["donegate.decision"]))
			}
		}
		if slices.Contains(decisions, "Stop released") {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	assert.Contains(t, decisions, "Stop blocked", "the hold; the screen:\n%s", term.screen())
	assert.Contains(t, decisions, "Stop released", "the person's release")
}
