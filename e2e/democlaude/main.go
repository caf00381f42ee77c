// Command democlaude shows donegate holding a real Claude Code session, in
// the terminal, with no API key: the pinned CLI talks to a scripted
// stand-in of the Messages API on 127.0.0.1, and donegate's hooks (built
// into -bin) decide at every stop. Run it with `make demo-claude`.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/donegate/donegate/internal/proc"
	"github.com/donegate/donegate/internal/testsupport/fakeapi"
)

func main() {
	bin := flag.String("bin", "bin", "directory holding stop-hook and posttooluse-hook")
	claude := flag.String("claude", "", "the claude executable (default: scripts/install-claude's)")
	flag.Parse()
	if err := run(*bin, *claude); err != nil {
		fmt.Fprintln(os.Stderr, "democlaude:", err)
		os.Exit(1)
	}
}

func run(bin, claude string) error {
	bin, err := filepath.Abs(bin)
	if err != nil {
		return err
	}
	if claude == "" {
		out, err := exec.Command("scripts/install-claude").Output()
		if err != nil {
			return fmt.Errorf("scripts/install-claude: %w", err)
		}
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		claude = lines[len(lines)-1]
	}
	home, err := os.MkdirTemp("", "donegate-demo-home-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(home)
	project := filepath.Join(home, "project")
	if err := os.MkdirAll(project, 0o755); err != nil {
		return err
	}

	// The scripted model: it plans two tasks, finishes one, and claims to
	// be done; donegate holds it; it finishes the other; it may stop.
	tools := func(names string) fakeapi.Turn {
		return fakeapi.Call("ToolSearch", map[string]any{"query": "select:" + names, "max_results": 5})
	}
	api := fakeapi.New(
		tools("TaskCreate,TaskUpdate"),
		fakeapi.Call("TaskCreate", map[string]any{"subject": "Write tests", "description": "Tests for the feature"}),
		fakeapi.Call("TaskCreate", map[string]any{"subject": "Implement feature", "description": "The feature itself"}),
		fakeapi.Call("TaskUpdate", map[string]any{"taskId": "1", "status": "completed"}),
		fakeapi.Say("All done! (It is not: one task is still open.)"),
		fakeapi.Call("TaskUpdate", map[string]any{"taskId": "2", "status": "completed"}),
		fakeapi.Say("Both tasks are complete now."),
	)
	defer api.Close()

	hook := func(name string) []any {
		return []any{map[string]any{"hooks": []any{map[string]any{"type": "command", "command": filepath.Join(bin, name), "timeout": 60}}}}
	}
	settings, _ := json.Marshal(map[string]any{"hooks": map[string]any{"Stop": hook("stop-hook"), "SubagentStop": hook("stop-hook")}})
	settingsFile := filepath.Join(home, "settings.json")
	if err := os.WriteFile(settingsFile, settings, 0o644); err != nil {
		return err
	}

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, claude, "-p", "Build the feature", "--settings", settingsFile,
		"--output-format", "stream-json", "--verbose")
	cmd.Dir = project
	proc.OwnGroup(cmd)
	cmd.Env = []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + home, "LANG=C.UTF-8",
		"ANTHROPIC_BASE_URL=" + api.URL(), "ANTHROPIC_API_KEY=sk-ant-demo",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "CLAUDE_CODE_ENABLE_TODO_TOOLS=1",
		"DONEGATE_STATE_DIR=" + filepath.Join(home, "state"),
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	cmd.Stderr = os.Stderr
	fmt.Printf("$ claude -p \"Build the feature\"   (Claude Code %s, scripted model on %s, donegate hooks from %s)\n\n", version(claude), api.URL(), bin)
	if err := cmd.Start(); err != nil {
		return err
	}
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		show(sc.Bytes())
	}
	if err := cmd.Wait(); err != nil {
		return fmt.Errorf("claude: %w", err)
	}
	if api.Exhausted() {
		return fmt.Errorf("the session went on past the script")
	}
	return nil
}

func version(claude string) string {
	out, _ := exec.Command(claude, "--version").Output()
	return strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(string(out)), "(Claude Code)"))
}

// show prints one stream-json event as a person would want to read it.
func show(line []byte) {
	var ev struct {
		Type    string `json:"type"`
		Result  string `json:"result"`
		Turns   int    `json:"num_turns"`
		Message struct {
			Content json.RawMessage `json:"content"`
		} `json:"message"`
	}
	if json.Unmarshal(line, &ev) != nil {
		return
	}
	var blocks []struct {
		Type    string          `json:"type"`
		Text    string          `json:"text"`
		Name    string          `json:"name"`
		Input   json.RawMessage `json:"input"`
		Content json.RawMessage `json:"content"`
	}
	var text string
	if json.Unmarshal(ev.Message.Content, &text) != nil {
		_ = json.Unmarshal(ev.Message.Content, &blocks)
	}
	switch ev.Type {
	case "assistant":
		for _, b := range blocks {
			switch b.Type {
			case "text":
				fmt.Printf("  agent   │ %s\n", b.Text)
			case "tool_use":
				fmt.Printf("  agent   │ calls %s %s\n", b.Name, b.Input)
			}
		}
	case "user":
		if strings.HasPrefix(text, "Stop hook feedback:") {
			fmt.Printf("\n  donegate│ %s\n\n", strings.ReplaceAll(text, "\n", "\n          │ "))
		}
		for _, b := range blocks {
			if b.Type == "text" && strings.HasPrefix(b.Text, "Stop hook feedback:") {
				fmt.Printf("\n  donegate│ %s\n\n", strings.ReplaceAll(b.Text, "\n", "\n          │ "))
			}
		}
	case "result":
		fmt.Printf("\n  result  │ %q after %d turns: the agent was let go once its plan was done.\n", ev.Result, ev.Turns)
	}
}
