package gate

import (
	"path/filepath"
	"strings"

	"github.com/donegate/donegate/internal/proc"
)

// codexWithoutSchema reports whether the Codex that runs the hook was
// started without --output-schema, as far as can be told: Codex 0.169.0
// says it nowhere a hook can read (the rollout, every hook event: the
// same with and without it, measured 2026-11-27), but the hook's parent
// is the codex binary, whose arguments name it. A final message that is
// a JSON object is then a message, not a structured answer. false when it
// cannot be told (no /proc, or no codex among the hook's nearest
// ancestors): the message is taken for an answer, as before.
func codexWithoutSchema() bool {
	for _, args := range proc.Ancestors(3) {
		if len(args) == 0 {
			continue
		}
		prog := filepath.Base(args[0])
		if len(args) > 1 && (prog == "node" || prog == "bun") {
			prog, args = filepath.Base(args[1]), args[1:]
		}
		if prog != "codex" && prog != "codex.js" {
			continue
		}
		return !hasOutputSchema(args[1:])
	}
	return false
}

// hasOutputSchema reports whether Codex arguments ask for an output
// schema (--output-schema FILE or --output-schema=FILE).
func hasOutputSchema(args []string) bool {
	for _, a := range args {
		if a == "--" {
			break
		}
		if a == "--output-schema" || strings.HasPrefix(a, "--output-schema=") {
			return true
		}
	}
	return false
}
