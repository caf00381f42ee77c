package gate

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/donegate/donegate/checkers"
	"github.com/donegate/donegate/config"
)

// agentRunBudget bounds what recording an agent's run may cost the tool
// call it follows: the look at the tree, which a matching command needs.
const agentRunBudget = 5 * time.Second

// recordAgentRun remembers the agent's own passing run of a checker's
// command through its shell tool (see checkers.RecordAgentRun), when the
// event is one and it ran in the project dir; the stop then reuses it
// while the tree is unchanged. It never holds anything: the tool call
// already happened.
func (r *run) recordAgentRun(ctx context.Context, c *config.Config) {
	command, ok := r.event.ShellRunPassed()
	if !ok || r.readOnly() || filepath.Clean(r.event.Cwd) != filepath.Clean(r.projectDir()) {
		return
	}
	specs := checkers.At(c.Checkers, checkers.ReasonStop)
	chain, err := checkers.Chain(specs)
	if err != nil {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, agentRunBudget)
	defer cancel()
	cc := r.checkerContext(c, checkers.ReasonStop)
	recorded, err := checkers.RecordAgentRun(ctx, cc, chain, checkers.AgentRunOf{Command: command, At: r.env.Now()})
	switch {
	case err != nil:
		fmt.Fprintf(r.stderr, "%s: the agent's run of `%s` is not remembered: %v\n", r.name, command, err)
	case len(recorded) > 0:
		fmt.Fprintf(r.stderr, "%s: the agent's passing run of `%s` stands for %s while the working tree is unchanged\n", r.name, command, strings.Join(recorded, ", "))
	}
}
