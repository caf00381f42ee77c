package transcript

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/donegate/donegate/internal/jsondepth"
)

// Codex CLI keeps no plan file: the plan exists only as the agent's
// update_plan calls in the session's rollout (a JSONL file of
// {timestamp, type, payload} lines), the latest call replacing every
// earlier one. A goal the agent set with create_goal and closed with
// update_goal lives there as calls too. A call is a "response_item" line
// whose payload is a function_call; its arguments are a JSON string:
//
//	{"timestamp":"...","type":"response_item","payload":{"type":"function_call","name":"update_plan","arguments":"{\"plan\":[{\"step\":\"...\",\"status\":\"in_progress\"}]}","call_id":"..."}}

// ErrCompressed is wrapped by the error about a zstd-compressed rollout,
// which donegate does not read. Codex writes the live session's rollout
// as plain JSONL; older ones may be compressed (.jsonl.zst). Reading them
// would cost every hook's start-up, not only those that meet one (a
// decoder's linking: docs/hosts.md, Codex, has the figures), and a
// compressed file cannot be read from its end: every stop would
// decompress the whole rollout.
var ErrCompressed = errors.New("rollout is zstd-compressed; donegate reads plain JSONL rollouts only")

// zstdMagic starts every zstd frame.
var zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}

var (
	updatePlanMark = []byte(`"update_plan"`)
	createGoalMark = []byte(`"create_goal"`)
	updateGoalMark = []byte(`"update_goal"`)
)

// Codex statuses of a goal, as an Item's Status. A goal is open from
// create_goal until update_goal marks it "complete": Codex's own status
// names are active, paused, blocked, usageLimited, budgetLimited and
// complete, and only complete means the objective was achieved. The agent
// may also call update_goal "blocked" (newer versions; 0.169's handler
// refuses it): work that is not done, so it stays open, as a Gemini
// "blocked" todo does.
const (
	GoalActive  = "active"
	GoalBlocked = "blocked"
)

// CodexPlan returns the agent's plan in the Codex rollout at path: the
// steps of its latest update_plan call, in order, then its goal as one
// item titled "goal: <objective>" when it set one with create_goal (open
// until update_goal marked it complete). found is false when the rollout
// has neither, or does not exist: no plan is a normal state (update_plan
// is opt-in since Codex 0.152, and goals are set only when asked for).
//
// A call whose arguments are not valid JSON, or whose plan is not an
// array (or goal has no objective), was refused by Codex and never became
// the plan: an earlier one counts instead. A goal set or closed by the
// person with /goal, not by the agent's tools, is not in the rollout as a
// call and is not read.
//
// Cost: the file is searched from its end for the three tool names, and
// only lines holding one are copied; the search stops once both the
// latest plan and the goal's state are known. A rollout with a plan but
// no goal call is searched to its start for one (as a Claude transcript
// without TodoWrite is): CodexPlanFrom, given what an earlier call
// learnt, searches only what was appended since.
//
// A path that is not a regular file is an error wrapping
// regular.ErrNotRegular; a zstd-compressed rollout one wrapping
// ErrCompressed.
func CodexPlan(ctx context.Context, path string) (items []Item, found bool, err error) {
	items, found, _, err = CodexPlanFrom(ctx, path, CodexGoalState{})
	return items, found, err
}

// CodexGoalState is what the goal calls of a rollout up to a position
// say: a Codex plan reader keeps it so that the next read searches only
// the lines appended since for goal calls, and a session without a goal
// does not cost every stop a search of its whole rollout. The zero value
// knows nothing: the rollout is searched whole.
type CodexGoalState struct {
	// Position is where the goal calls were read to, in which file (see
	// Position: a rollout replaced or cut is searched whole again).
	Position
	// State is the goal's status after the lines before Position: ""
	// (no goal call), GoalActive, GoalBlocked or "completed"; Title its
	// objective ("" for a completed goal).
	State string `json:"state,omitempty"`
	Title string `json:"title,omitempty"`
}

// CodexPlanFrom is CodexPlan given what an earlier call on the same
// rollout returned as next: the goal calls before from's position are
// not searched again when the file there is still the one read. next
// says what is known up to the last whole line of the file now.
func CodexPlanFrom(ctx context.Context, path string, from CodexGoalState) (items []Item, found bool, next CodexGoalState, err error) {
	f, err := open(path)
	if err != nil || f == nil { // f is nil for a file that does not exist
		return nil, false, from, err
	}
	defer f.Close()
	if err := notCompressed(f, path); err != nil {
		return nil, false, from, err
	}
	for try := 0; ; try++ {
		var st os.FileInfo
		if st, err = f.Stat(); err != nil {
			return nil, false, from, fmt.Errorf("rollout %s: %w", path, err)
		}
		items, found, next, err = codexPlanFrom(within(ctx, f), st, from)
		// Codex only appends; a file that shrank while read is read once
		// more as it is now.
		if !errors.Is(err, ErrChanged) || try > 0 {
			break
		}
	}
	if err != nil {
		return nil, false, from, fmt.Errorf("rollout %s: %w", path, err)
	}
	return items, found, next, nil
}

// notCompressed refuses a rollout that is zstd-compressed, by its name or
// its first bytes, with an error that says what is not read.
func notCompressed(r io.ReaderAt, path string) error {
	magic := make([]byte, len(zstdMagic))
	n, _ := r.ReadAt(magic, 0)
	if strings.HasSuffix(path, ".zst") || bytes.Equal(magic[:n], zstdMagic) {
		return fmt.Errorf("rollout %s: %w: the plan (update_plan) and goal in it are not read", path, ErrCompressed)
	}
	return nil
}

// codexGoal is what the latest goal call says, read backwards: state is
// "" until a goal call is found; title is the objective once the
// create_goal that set it is found.
type codexGoal struct {
	state, title string
}

// known reports whether nothing further back can change the goal.
func (g codexGoal) known() bool {
	return g.state == "completed" || (g.state != "" && g.title != "")
}

// after returns the goal as g, read from later lines, leaves earlier,
// read from the lines before them: g's state when it has one, named by
// earlier's objective when g's own lines did not name it.
func (g codexGoal) after(earlier codexGoal) codexGoal {
	if g.state == "" {
		return earlier
	}
	if g.title == "" && g.state != "completed" {
		g.title = earlier.title
	}
	return g
}

// item returns the goal as a plan item.
func (g codexGoal) item() Item {
	title := "the goal set with create_goal"
	if g.title != "" {
		title = "goal: " + g.title
	}
	return Item{Title: title, Status: g.state}
}

// codexPlanFrom is CodexPlanFrom on the open rollout f, whose status is
// st: the plan is searched for in the whole file, the goal calls only
// after from's position when it resumes there.
func codexPlanFrom(f io.ReaderAt, st os.FileInfo, from CodexGoalState) (items []Item, found bool, next CodexGoalState, err error) {
	size := st.Size()
	start := from.Offset
	if _, ok := from.resume(f, st); !ok {
		start, from = 0, CodexGoalState{}
	}
	// The goal calls are read to the end of the last whole line: a line
	// being written is read again next time, whole.
	buf := markBuf(size)
	end, err := lineStart(io.NewSectionReader(f, start, size-start), size-start, buf)
	if err != nil {
		return nil, false, from, err
	}
	end += start
	items, planFound, err := codexSteps0(f, size, buf)
	if err != nil {
		return nil, false, from, err
	}
	goal, err := codexGoalIn(io.NewSectionReader(f, start, end-start), end-start, buf)
	if err != nil {
		return nil, false, from, err
	}
	goal = goal.after(codexGoal{state: from.State, title: from.Title})
	next = CodexGoalState{State: goal.state, Title: goal.title}
	next.Dev, next.Ino = fileID(st)
	next.Size, next.Offset = size, end
	tail := make([]byte, min(end, TailBytes))
	if err := readFull(f, tail, end-int64(len(tail))); err != nil {
		return nil, false, from, err
	}
	h := tailHash(tail)
	next.Tail = string(h[:])
	if goal.state != "" {
		items = append(items, goal.item())
	}
	return items, planFound || goal.state != "", next, nil
}

// codexSteps0 returns the steps of the latest valid update_plan call in
// the first size bytes of r, read through buf (see eachMarkedLineIn).
func codexSteps0(r io.ReaderAt, size int64, buf []byte) (items []Item, found bool, err error) {
	err = eachMarkedLineIn(r, size, [][]byte{updatePlanMark}, nil, buf, func(line []byte) bool {
		if name, args, ok := codexCall(line); ok && name == "update_plan" {
			items, found = codexSteps(args)
		}
		return !found
	})
	return items, found, err
}

// codexGoalIn returns what the goal calls in the first size bytes of r
// say, the latest deciding, read through buf (see eachMarkedLineIn).
func codexGoalIn(r io.ReaderAt, size int64, buf []byte) (goal codexGoal, err error) {
	err = eachMarkedLineIn(r, size, [][]byte{createGoalMark, updateGoalMark}, nil, buf, func(line []byte) bool {
		name, args, ok := codexCall(line)
		if !ok {
			return true
		}
		switch name {
		case "create_goal":
			objective := gjson.GetBytes(args, "objective")
			if objective.Type != gjson.String || strings.TrimSpace(objective.Str) == "" {
				return true // refused: an objective is required
			}
			if goal.state == "" {
				goal.state = GoalActive
			}
			// The latest objective names an open goal; a closed one
			// needs no name.
			if goal.title == "" && goal.state != "completed" {
				goal.title = objective.Str
			}
		case "update_goal":
			if goal.state != "" {
				return true // a later call decided
			}
			switch gjson.GetBytes(args, "status").Str {
			case "complete":
				goal.state = "completed"
			case "blocked":
				goal.state = GoalBlocked
			}
			// Any other status is refused by the tool: the goal stays as
			// an earlier call left it.
		}
		return !goal.known()
	})
	return goal, err
}

// codexCall returns the name and arguments of the function call on line,
// when line is a whole response_item line holding one, and its arguments
// (a JSON string) hold a JSON object nested no deeper than MaxLineDepth.
func codexCall(line []byte) (name string, args []byte, ok bool) {
	if !gjson.ValidBytes(line) {
		return "", nil, false
	}
	r := gjson.GetManyBytes(line, "type", "payload.type", "payload.name", "payload.arguments")
	if r[0].Str != "response_item" || r[1].Str != "function_call" || r[3].Type != gjson.String {
		return "", nil, false
	}
	args = []byte(r[3].Str)
	if !jsondepth.Within(args, MaxLineDepth) || !gjson.ValidBytes(args) || !gjson.ParseBytes(args).IsObject() {
		return "", nil, false
	}
	return r[2].Str, args, true
}

// codexSteps returns the steps of an update_plan call's arguments; ok is
// false when its plan is not an array, which Codex refuses.
func codexSteps(args []byte) (items []Item, ok bool) {
	plan := gjson.GetBytes(args, "plan")
	if !plan.IsArray() {
		return nil, false
	}
	plan.ForEach(func(_, step gjson.Result) bool {
		items = append(items, Item{Title: step.Get("step").String(), Status: step.Get("status").String()})
		return true
	})
	return items, true
}
