package closer

import (
	"encoding/json"
	"path/filepath"
	"time"

	"github.com/donegate/donegate/hookio"
)

// Qwen Code's setup: Claude Code's hook shape in .qwen/settings.json, its
// timeout unit, and its todo tool switch.
var qwenSetup = hostSetup{
	// Qwen Code reads Claude Code's hook shape. Its command hooks'
	// timeouts were milliseconds until QwenLM/qwen-code#11615 (by
	// release dates, up to 0.23.1) and are seconds since (0.24.4,
	// measured), where a value of 1000 or more is still read as
	// milliseconds: 600000 is 600 s to both, where
	// 600 was 0.6 s to the older ones. Its PostToolUse of
	// run_shell_command tells a passing run, which stands for the
	// check's (see gate's recordAgentRun).
	host: hookio.HostQwen, marker: ".qwen", binary: "qwen",
	project: filepath.Join(".qwen", "settings.json"),
	regs:    hostRegs(hookio.HostQwen),
	timeout: hookTimeout * 1000, unit: time.Second, millisFrom: 1000,
	userFile: func(r *runCtx) string { return homeFile(r, ".qwen", "settings.json") },
	doctor:   (*runCtx).doctorQwen,
	notes: func(*runCtx, initOptions) []string {
		return []string{"Qwen Code asks you to approve a project's hooks the first time they run; its todo_write tool is off unless `\"tools\": {\"todoWrite\": {\"enabled\": true}}` is in its settings.json"}
	},
}

// doctorQwen says when Qwen Code's todo tool is off: the most specific
// settings file that sets tools.todoWrite.enabled decides.
func (r *runCtx) doctorQwen(rep *DoctorReport, s hostSetup, _ []registration) {
	var on *bool
	for _, f := range r.hostFiles(s) {
		data, _, err := readSettings(f.path)
		if err != nil || data == nil {
			continue
		}
		var st struct {
			DisableAllHooks *bool `json:"disableAllHooks"`
			Tools           struct {
				TodoWrite struct {
					Enabled *bool `json:"enabled"`
				} `json:"todoWrite"`
			} `json:"tools"`
		}
		if json.Unmarshal(data, &st) != nil {
			continue
		}
		if st.DisableAllHooks != nil && *st.DisableAllHooks {
			rep.add("qwen", statusFail, `remove "disableAllHooks": true`, `%s sets "disableAllHooks": true: Qwen Code runs no hooks, donegate's included`, f.path)
		}
		if st.Tools.TodoWrite.Enabled != nil {
			on = st.Tools.TodoWrite.Enabled
		}
	}
	if on == nil || !*on {
		rep.add("qwen", statusWarn, `add "tools": {"todoWrite": {"enabled": true}} to .qwen/settings.json`,
			"Qwen Code's todo tool is off (tools.todoWrite.enabled): the model keeps no todos, so the plan checker has no plan to check")
		return
	}
	rep.add("qwen", statusOK, "", "Qwen Code's todo tool (todo_write) is on")
}
