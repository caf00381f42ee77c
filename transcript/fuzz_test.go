package transcript

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/donegate/donegate/internal/jsondepth"
)

// referencePlan is the slow, obvious reader: the whole file, forwards,
// every line parsed, the last valid TodoWrite of an assistant line wins.
// It shares only the JSON library's reading of a line with the real one.
// Like the real reader it expects the tool name written as plain
// "TodoWrite" (Claude Code never escapes ASCII letters).
func referencePlan(data []byte) ([]Item, bool) {
	var items []Item
	found := false
	for _, line := range bytes.Split(data, []byte("\n")) {
		if len(line) > MaxLineBytes || !jsondepth.Within(line, MaxLineDepth) || !bytes.Contains(line, []byte(`"TodoWrite"`)) || !gjson.ValidBytes(line) {
			continue
		}
		root := gjson.ParseBytes(line)
		if root.Get("type").Str != "assistant" {
			continue
		}
		for _, block := range root.Get("message.content").Array() {
			todos := block.Get("input.todos")
			if block.Get("type").Str != "tool_use" || block.Get("name").Str != "TodoWrite" || !todos.IsArray() {
				continue
			}
			items, found = nil, true
			for _, t := range todos.Array() {
				items = append(items, Item{Title: t.Get("content").String(), Status: t.Get("status").String()})
			}
		}
	}
	return items, found
}

// FuzzLatestTodoWrite: for any bytes, the backward block reader finds the
// plan the reference reader finds, with reads small enough that lines
// straddle several of them: bs%64 sets the block size, bs/64 how many
// times the first read doubles before it reaches a block.
func FuzzLatestTodoWrite(f *testing.F) {
	for _, p := range []string{
		"../testdata/claude/projects/-home-user-project/11111111-1111-4111-8111-111111111111.jsonl",
		"../testdata/claude/projects/-home-user-project/22222222-2222-4222-8222-222222222222.jsonl",
	} {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data, uint8(7))
	}
	todo := `{"type":"assistant","message":{"content":[{"type":"tool_use","name":"TodoWrite","input":{"todos":[{"content":"a","status":"pending"}]}}]}}`
	f.Add([]byte(todo+"\n"+todo[:40]), uint8(3))
	f.Add([]byte("\n\n"+todo+"\r\n"), uint8(1))
	f.Add([]byte(`{"type":"api-request-blob","message":{"content":[{"type":"tool_use","name":"TodoWrite","input":{"todos":[]}}]}}`), uint8(16))
	f.Add([]byte(todo+"\n"+todo+"\n"+todo[:90]), uint8(3<<6|40))

	oldBlock, oldStep := blockSize, firstStep
	f.Cleanup(func() { blockSize, firstStep = oldBlock, oldStep })
	f.Fuzz(func(t *testing.T, data []byte, bs uint8) {
		blockSize = 1 + int(bs)%64
		firstStep = max(1, blockSize>>(bs/64))
		// From memory, not a file: a call costs microseconds, not a
		// millisecond of system calls, which matters most when the
		// fuzzer minimizes the inputs it keeps. The file handling around
		// the reader is LatestTodoWrite's, covered by its unit tests.
		got, gotFound, err := latestTodoWrite(bytes.NewReader(data), int64(len(data)), ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		want, wantFound := referencePlan(data)
		if gotFound != wantFound || !reflect.DeepEqual(got, want) {
			t.Fatalf("block size %d, first step %d:\n got %v %v\nwant %v %v", blockSize, firstStep, gotFound, got, wantFound, want)
		}
	})
}

// FuzzReadTasks: a task file of any content reads without panicking, and
// a file that is not a valid task is an open item, never a done one.
func FuzzReadTasks(f *testing.F) {
	f.Add([]byte(`{"id":"1","subject":"Write tests","status":"completed"}`))
	f.Add([]byte(`{"id":"1","subject":"x","status":"deleted"}`))
	f.Add([]byte(`{"subject":`))
	f.Add([]byte(`[1]`))
	f.Add([]byte(`{"subject":"x","status":"deleted","x":` + strings.Repeat("[", MaxLineDepth) + strings.Repeat("]", MaxLineDepth) + `}`))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(dir, "1.json")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		items, found, err := ReadTasks(dir)
		if err != nil {
			t.Fatal(err)
		}
		// A file nested past MaxLineDepth is never parsed, deleted or not.
		valid := jsondepth.Within(data, MaxLineDepth) && gjson.ValidBytes(data) && gjson.ParseBytes(data).IsObject()
		if !valid && (!found || items[0].Done()) {
			t.Fatalf("an invalid task file must be an open item: %v %v", found, items)
		}
		if valid && gjson.GetBytes(data, "status").Str == "deleted" && found {
			t.Fatalf("a deleted task counts: %v", items)
		}
	})
}

// codexPlan is CodexPlan on the first size bytes of r, read whole: the
// plan and the goal calls of every line.
func codexPlan(r io.ReaderAt, size int64) ([]Item, bool, error) {
	items, planFound, err := codexSteps0(r, size, markBuf(size))
	if err != nil {
		return nil, false, err
	}
	goal, err := codexGoalIn(r, size, markBuf(size))
	if err != nil {
		return nil, false, err
	}
	if goal.state != "" {
		items = append(items, goal.item())
	}
	return items, planFound || goal.state != "", nil
}

// referenceCodexPlan is the slow, obvious reader of a Codex rollout: the
// whole file, forwards, every line parsed; the last valid update_plan is
// the plan, the last goal call decides the goal's state, and the last
// create_goal names an open goal.
func referenceCodexPlan(data []byte) ([]Item, bool) {
	var plan []Item
	planFound := false
	state, title := "", ""
	for _, line := range bytes.Split(data, []byte("\n")) {
		if len(line) > MaxLineBytes || !jsondepth.Within(line, MaxLineDepth) {
			continue
		}
		name, args, ok := codexCall(line)
		if !ok {
			continue
		}
		switch name {
		case "update_plan":
			if steps, ok := codexSteps(args); ok {
				plan, planFound = steps, true
			}
		case "create_goal":
			if o := gjson.GetBytes(args, "objective"); o.Type == gjson.String && strings.TrimSpace(o.Str) != "" {
				state, title = GoalActive, o.Str
			}
		case "update_goal":
			switch gjson.GetBytes(args, "status").Str {
			case "complete":
				state = "completed"
			case "blocked":
				state = GoalBlocked
			}
		}
	}
	if state != "" {
		if state == "completed" {
			title = ""
		}
		plan = append(plan, codexGoal{state: state, title: title}.item())
	}
	return plan, planFound || state != ""
}

// FuzzCodexPlan: for any bytes, the backward reader of a Codex rollout
// finds the plan and goal the forward reference finds, with reads small
// enough that lines straddle several of them (bs as in
// FuzzLatestTodoWrite).
func FuzzCodexPlan(f *testing.F) {
	for _, p := range []string{"testdata/codex/open.jsonl", "testdata/codex/done.jsonl", "testdata/codex/goal-open.jsonl", "testdata/codex/goal-done.jsonl"} {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data, uint8(7))
	}
	call := `{"type":"response_item","payload":{"type":"function_call","name":"update_plan","arguments":"{\"plan\":[{\"step\":\"a\",\"status\":\"pending\"}]}"}}`
	goal := `{"type":"response_item","payload":{"type":"function_call","name":"create_goal","arguments":"{\"objective\":\"g\"}"}}`
	done := `{"type":"response_item","payload":{"type":"function_call","name":"update_goal","arguments":"{\"status\":\"complete\"}"}}`
	f.Add([]byte(goal+"\n"+call+"\n"+done+"\n"+goal[:50]), uint8(3))
	f.Add([]byte(done+"\n"+goal+"\r\n"+call), uint8(1<<6|9))
	f.Add([]byte(`{"type":"response_item","payload":{"type":"function_call","name":"update_plan","arguments":"{\"plan\":"}}`), uint8(16))

	oldBlock, oldStep := blockSize, firstStep
	f.Cleanup(func() { blockSize, firstStep = oldBlock, oldStep })
	f.Fuzz(func(t *testing.T, data []byte, bs uint8) {
		blockSize = 1 + int(bs)%64
		firstStep = max(1, blockSize>>(bs/64))
		got, gotFound, err := codexPlan(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		want, wantFound := referenceCodexPlan(data)
		if gotFound != wantFound || !reflect.DeepEqual(got, want) {
			t.Fatalf("block size %d, first step %d:\n got %v %v\nwant %v %v", blockSize, firstStep, gotFound, got, wantFound, want)
		}
	})
}

// FuzzGeminiPlan: for any bytes, the backward reader of a Gemini chat
// file reads the same plan whatever the size of its reads (lines that
// straddle many reads, markers cut between two), and never fails on a
// file held in memory.
func FuzzGeminiPlan(f *testing.F) {
	for _, p := range []string{"testdata/gemini/open.jsonl", "testdata/gemini/done.jsonl", "testdata/gemini/blocked.jsonl", "testdata/gemini/rewound.jsonl"} {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data, uint8(7))
	}
	todo := `{"id":"a","type":"gemini","toolCalls":[{"name":"write_todos","status":"success","args":{"todos":[{"description":"x","status":"pending"}]}}]}`
	f.Add([]byte(todo+"\n"+`{"$rewindTo":"a"}`+"\n"+todo[:40]), uint8(3))
	f.Add([]byte(`{"$set":{"messages":[`+todo+`]}}`+"\n"+`{"$rewindTo":"zz"}`), uint8(1<<6|5))

	oldBlock, oldStep := blockSize, firstStep
	f.Cleanup(func() { blockSize, firstStep = oldBlock, oldStep })
	f.Fuzz(func(t *testing.T, data []byte, bs uint8) {
		blockSize, firstStep = oldBlock, oldStep
		want, wantFound, err := geminiPlan(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		blockSize = 1 + int(bs)%64
		firstStep = max(1, blockSize>>(bs/64))
		got, gotFound, err := geminiPlan(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		if gotFound != wantFound || !reflect.DeepEqual(got, want) {
			t.Fatalf("block size %d, first step %d:\n got %v %v\nwant %v %v", blockSize, firstStep, gotFound, got, wantFound, want)
		}
	})
}

// FuzzQwenPlan: a Qwen todo file of any content reads without panicking;
// one that is not a JSON todo list is an error, never a plan, let alone
// a done one.
func FuzzQwenPlan(f *testing.F) {
	for _, p := range []string{"testdata/qwen/todos/open.json", "testdata/qwen/todos/done.json"} {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"todos":[`))
	f.Add([]byte(`{"todos":{}}`))
	f.Add([]byte(`[{"todos":[]}]`))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(dir, "s.json")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		items, found, err := QwenPlan(path)
		valid := len(data) <= maxTodoFileBytes && jsondepth.Within(data, MaxLineDepth) && gjson.ValidBytes(data) && gjson.GetBytes(data, "todos").IsArray()
		if valid != (err == nil) || found != valid {
			t.Fatalf("valid %v, found %v, err %v", valid, found, err)
		}
		if !valid && len(items) > 0 {
			t.Fatalf("items from an invalid file: %v", items)
		}
	})
}
