package closer

import (
	"fmt"

	"github.com/donegate/donegate/internal/agentshell"
	"github.com/donegate/donegate/internal/decisionlog"
	"github.com/donegate/donegate/internal/gate"
)

// personOnly refuses the person's command what ("release", "allow",
// "allow --revoke", "init") where closer runs inside an agent's shell (see
// package agentshell): an agent must not open its own gate. The refusal
// goes on the decision log as the agent's try, under the session's host,
// and the error says what the person can do instead.
func (r *runCtx) personOnly(what string) error {
	look := r.env.AgentShell
	if look == nil {
		look = agentshell.Look
	}
	found, ok := look(r.env.Getenv)
	if !ok {
		return nil
	}
	err := decisionlog.Append(r.stateDir(), decisionlog.Entry{
		Time: r.env.Now().UTC(), Project: r.dir, Host: string(found.Host), Hook: "closer " + what,
		Decision: "refused", Why: "the agent's try: closer " + what + " ran inside " + found.String(),
	})
	if err != nil {
		fmt.Fprintf(r.stderr, "%s: %v\n", r.name, err)
	}
	instead := "run closer " + what + " in a terminal of your own, outside the agent"
	if what == "release" && found.Host.PromptMidTurn() {
		instead = "type \"" + gate.ReleasePhrase + "\" as a message in the session (it reaches donegate even while the agent works), or " + instead
	}
	return errorf(ErrEnv, "refused: this runs inside %s, and an agent may not %s its own gate. If you are the person: %s", found, gateVerb(what), instead)
}

// gateVerb is what a person's command does to the gate, as the refusal
// says it.
func gateVerb(what string) string {
	switch what {
	case "release":
		return "release"
	case "init":
		return "set up or allow"
	case "allow --revoke":
		return "revoke the consent of"
	case "export":
		return "send (and mark sent) the decisions of"
	}
	return "allow what runs at"
}
