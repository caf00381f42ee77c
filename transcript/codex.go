package transcript

import (
	"bytes"
	"errors"
	"fmt"
	"io"
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
// would cost every hook, not only those that meet one: linking
// github.com/klauspost/compress/zstd made a hook's start-up 0.27 ms
// slower (medians of 600 interleaved runs, twice, 2026-11-24: 1.67 →
// 1.94 ms and 1.34 → 1.61 ms; the binary 0.7 MB larger, as it links
// crypto/rand and math/big), and a compressed file cannot be read from
// its end: every stop would decompress the whole rollout.
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
// without TodoWrite is): I/O-bound, see docs/performance.md.
//
// A path that is not a regular file is an error wrapping
// regular.ErrNotRegular; a zstd-compressed rollout one wrapping
// ErrCompressed.
func CodexPlan(path string) (items []Item, found bool, err error) {
	f, err := open(path)
	if err != nil || f == nil { // f is nil for a file that does not exist
		return nil, false, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, false, fmt.Errorf("rollout %s: %w", path, err)
	}
	if err := notCompressed(f, path); err != nil {
		return nil, false, err
	}
	items, found, err = codexPlan(f, st.Size())
	if errors.Is(err, ErrChanged) {
		// Codex only appends; read a file that shrank once more as it is.
		if st, err = f.Stat(); err == nil {
			items, found, err = codexPlan(f, st.Size())
		}
	}
	if err != nil {
		return nil, false, fmt.Errorf("rollout %s: %w", path, err)
	}
	return items, found, nil
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

// item returns the goal as a plan item.
func (g codexGoal) item() Item {
	title := "the goal set with create_goal"
	if g.title != "" {
		title = "goal: " + g.title
	}
	return Item{Title: title, Status: g.state}
}

// codexPlan is CodexPlan on the first size bytes of r.
func codexPlan(r io.ReaderAt, size int64) (items []Item, found bool, err error) {
	var goal codexGoal
	planFound := false
	marks := [][]byte{updatePlanMark, createGoalMark, updateGoalMark}
	err = eachMarkedLineBackward(r, size, marks, nil, func(line []byte) bool {
		name, args, ok := codexCall(line)
		if !ok {
			return true
		}
		switch name {
		case "update_plan":
			if !planFound {
				items, planFound = codexSteps(args)
			}
		case "create_goal":
			objective := gjson.GetBytes(args, "objective")
			if objective.Type != gjson.String || strings.TrimSpace(objective.Str) == "" {
				return true // refused: an objective is required
			}
			if goal.state == "" {
				goal.state = GoalActive
			}
			if goal.title == "" {
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
		return !(planFound && goal.known())
	})
	if err != nil {
		return nil, false, err
	}
	if goal.state != "" {
		items = append(items, goal.item())
	}
	return items, planFound || goal.state != "", nil
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
