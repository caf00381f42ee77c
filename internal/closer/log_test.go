package closer

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/internal/decisionlog"
)

// --follow prints what the hooks append while it waits, and ends when
// interrupted.
func TestLogFollows(t *testing.T) {
	state := t.TempDir()
	e := decisionlog.Entry{Time: time.Now().UTC(), Project: "/p", Host: "claude", Session: "first", Hook: "stop-hook", Event: "Stop", Decision: "complete", Why: "complete"}
	require.NoError(t, decisionlog.Append(state, e))
	env := testEnv(map[string]string{"DONEGATE_STATE_DIR": state, "HOME": t.TempDir()}, false)
	sleeps := 0
	env.Sleep = func(ctx context.Context, d time.Duration) error {
		sleeps++
		switch sleeps {
		case 1:
			e.Session = "second"
			return decisionlog.Append(state, e)
		case 2:
			return context.Canceled // the person's ^C
		}
		t.Fatal("slept on after the interrupt")
		return nil
	}
	var out, errOut bytes.Buffer
	code := Main(context.Background(), []string{"log", "--follow", "--json"}, &out, &errOut, env)
	require.Equal(t, ExitComplete, code, errOut.String())
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	require.Len(t, lines, 2)
	assert.Contains(t, lines[0], `"session":"first"`)
	assert.Contains(t, lines[1], `"session":"second"`)
}

// TestLogSaysWhenItHasNothing: an empty log, or one no entry of which the
// filters keep, says so rather than print nothing at all; --json prints
// no line. The table's HOST column holds the longest host name, and
// closer's own entries name their command as the event.
func TestLogSaysWhenItHasNothing(t *testing.T) {
	state := t.TempDir()
	env := testEnv(map[string]string{"DONEGATE_STATE_DIR": state, "HOME": t.TempDir()}, false)
	run := func(args ...string) string {
		var out, errOut bytes.Buffer
		code := Main(context.Background(), append([]string{"log"}, args...), &out, &errOut, env)
		require.Equal(t, ExitComplete, code, errOut.String())
		return out.String()
	}
	assert.Equal(t, "No decision is recorded in "+state+" yet: the hooks record each stop and gated tool call they answer.\n", run())
	assert.Empty(t, run("--json"))

	require.NoError(t, decisionlog.Append(state, decisionlog.Entry{Time: time.Now().UTC(), Project: "/p", Host: "opencode", Session: "s1", Hook: "stop-hook", Event: "Stop", Decision: "complete", Why: "complete"}))
	require.NoError(t, decisionlog.Append(state, decisionlog.Entry{Time: time.Now().UTC(), Project: "/p", Host: "claude", Hook: "closer release", Decision: "refused", Why: "the agent's try"}))
	assert.Equal(t, "No recorded decision matches --session, --since or --project (the log is in "+state+").\n", run("--session", "nobody"))
	lines := strings.Split(strings.TrimSpace(run()), "\n")
	require.Len(t, lines, 3)
	host := strings.Index(lines[0], "HOST")
	session := strings.Index(lines[0], "SESSION")
	assert.Equal(t, "opencode", strings.TrimSpace(lines[1][host:session]), "the host's whole name in its column")
	assert.Contains(t, lines[2], "closer release")
}

// TestLogSummary: --summary counts the decisions per project and host —
// sessions, holds, let-gos, releases, refusals, the checks most often
// open, the time in checks and the share reused — busiest first, within
// the filters; --json prints the same as one object.
func TestLogSummary(t *testing.T) {
	state := t.TempDir()
	env := testEnv(map[string]string{"DONEGATE_STATE_DIR": state, "HOME": t.TempDir()}, false)
	now := time.Now().UTC()
	held := func(session string, open ...string) decisionlog.Entry {
		e := decisionlog.Entry{Time: now, Project: "/work/shop", Host: "claude", Session: session, Hook: "stop-hook", Event: "Stop", Decision: "blocked", Blocks: 1, MaxBlocks: 5}
		for _, label := range []string{"plan", "test", "lint"} {
			e.Checks = append(e.Checks, decisionlog.Check{Label: label, Complete: !slices.Contains(open, label), TookMS: 1500})
		}
		return e
	}
	for _, e := range []decisionlog.Entry{
		held("s1", "test"),
		held("s1", "test", "lint"),
		{Time: now, Project: "/work/shop", Host: "claude", Session: "s1", Hook: "stop-hook", Event: "Stop", Decision: "complete",
			Checks: []decisionlog.Check{{Label: "test", Complete: true, Reused: true}}},
		held("s2", "plan"),
		{Time: now, Project: "/work/shop", Host: "claude", Session: "s2", Hook: "stop-hook", Event: "Stop", Decision: "let through"},
		{Time: now, Project: "/work/shop", Host: "claude", Session: "s3", Hook: "stop-hook", Event: "Stop", Decision: "released"},
		{Time: now, Project: "/work/shop", Host: "claude", Hook: "closer release", Decision: "refused"},
		{Time: now, Project: "/work/api", Host: "codex", Session: "c1", Hook: "stop-hook", Event: "Stop", Decision: "complete"},
		{Time: now.Add(-48 * time.Hour), Project: "/work/old", Host: "qwen", Session: "q1", Hook: "stop-hook", Event: "Stop", Decision: "complete"},
	} {
		require.NoError(t, decisionlog.Append(state, e))
	}
	run := func(args ...string) string {
		var out, errOut bytes.Buffer
		code := Main(context.Background(), append([]string{"log", "--summary"}, args...), &out, &errOut, env)
		require.Equal(t, ExitComplete, code, errOut.String())
		return out.String()
	}
	lines := strings.Split(strings.TrimSpace(run("--since", "24h")), "\n")
	require.Len(t, lines, 3, "a header, shop and api; old is before --since")
	assert.Regexp(t, `^PROJECT +HOST +SESSIONS +DECISIONS +HELD +COMPLETE +LET GO +RELEASED +REFUSED +CHECK TIME +REUSED +MOST OPEN$`, lines[0])
	assert.Regexp(t, `^shop +claude +3 +7 +3 +1 +1 +1 +1 +14s +10% +test \(2\), lint \(1\), plan \(1\)$`, lines[1])
	assert.Regexp(t, `^api +codex +1 +1 +0 +1 +0 +0 +0 +0s +- +$`, lines[2]+" ")

	var got struct {
		Summary []struct {
			Project   string `json:"project"`
			Held      int    `json:"held"`
			OpenItems []struct {
				Label string `json:"label"`
				Count int    `json:"count"`
			} `json:"openItems"`
		} `json:"summary"`
	}
	require.NoError(t, json.Unmarshal([]byte(run("--json", "--project", "/work/shop")), &got))
	require.Len(t, got.Summary, 1)
	assert.Equal(t, 3, got.Summary[0].Held)
	assert.Equal(t, "test", got.Summary[0].OpenItems[0].Label)
	assert.Equal(t, 2, got.Summary[0].OpenItems[0].Count)

	assert.Contains(t, run("--session", "nobody"), "No decision to summarize")
	var out, errOut bytes.Buffer
	assert.Equal(t, ExitUsage, Main(context.Background(), []string{"log", "--summary", "--follow"}, &out, &errOut, env))
}

// TestLogUngated: a session a host recorded in a project donegate gates,
// of which donegate answered no stop, is listed and fails the run; one
// with a decision, one in another project, a subagent's transcript and
// one older than --since are not.
func TestLogUngated(t *testing.T) {
	state, home, project, other := t.TempDir(), t.TempDir(), t.TempDir(), t.TempDir()
	codexHome := filepath.Join(home, "codex")
	env := testEnv(map[string]string{"DONEGATE_STATE_DIR": state, "HOME": home, "CODEX_HOME": codexHome}, false)
	write := func(path, body string, at time.Time) {
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(body), 0o644))
		require.NoError(t, os.Chtimes(path, at, at))
	}
	hourAgo := time.Now().Add(-time.Hour)
	quote := func(s string) string { b, _ := json.Marshal(s); return string(b) } // a Windows path's backslashes
	claude := func(id, cwd string, at time.Time) {
		write(filepath.Join(home, ".claude", "projects", "-x", id+".jsonl"),
			`{"type":"user","cwd":`+quote(cwd)+`,"sessionId":"`+id+`","message":{"role":"user","content":"hi"}}`+"\n", at)
	}
	claude("gated-1", project, hourAgo)
	claude("ungated-1", project, hourAgo)
	claude("agent-abc", project, hourAgo)
	claude("elsewhere", other, hourAgo)
	claude("long-ago", project, time.Now().Add(-30*24*time.Hour))
	write(filepath.Join(codexHome, "sessions", "2026", "11", "29", "rollout-2026-11-29T07-00-00-c0d3.jsonl"),
		`{"type":"session_meta","payload":{"id":"c0d3","cwd":`+quote(project)+`}}`+"\n"+`{"type":"response_item","payload":{"id":"x"}}`+"\n", hourAgo)
	require.NoError(t, decisionlog.Append(state, decisionlog.Entry{Time: hourAgo, Project: project, Host: "claude", Session: "gated-1", Hook: "stop-hook", Event: "Stop", Decision: "complete"}))

	run := func(args ...string) (int, string) {
		var out, errOut bytes.Buffer
		code := Main(context.Background(), append([]string{"log", "--ungated"}, args...), &out, &errOut, env)
		return code, out.String() + errOut.String()
	}
	code, out := run("--since", "168h")
	assert.Equal(t, ExitIncomplete, code, out)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Len(t, lines, 3, out)
	assert.Contains(t, out, "ungated")
	assert.Contains(t, out, "c0d3")
	assert.Contains(t, out, "donegate answered none of its stops")
	for _, not := range []string{"gated-1 ", "agent-abc", "elsewhere", "long-ago"} {
		assert.NotContains(t, out, not)
	}
	code, out = run("--json", "--since", "168h")
	assert.Equal(t, ExitIncomplete, code, out)
	assert.Contains(t, out, `"session":"ungated-1"`)
	assert.Contains(t, out, `"host":"codex"`)

	code, out = run("--project", other, "--since", "168h")
	assert.Equal(t, ExitIncomplete, code, out)
	assert.Contains(t, out, "elsewhe")
	code, out = run("--session", "gated-1")
	assert.Equal(t, ExitComplete, code, out)
	assert.Contains(t, out, "Every session the hosts recorded")
}
