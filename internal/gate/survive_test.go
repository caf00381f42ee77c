package gate

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestSurviveAPanic: a panic of the hook's own goroutine ends it with
// exit 1 and the panic on stderr, never the runtime's exit 2 (a block,
// to Claude Code); a hook that does not panic keeps its code.
func TestSurviveAPanic(t *testing.T) {
	var stderr bytes.Buffer
	hook := func(fail bool) (code int) {
		defer survive(&code, &stderr)
		if fail {
			var p *Options
			_ = p.ConfigPath // nil dereference
		}
		return ExitOK
	}
	assert.Equal(t, ExitOK, hook(false))
	assert.Empty(t, stderr.String())
	assert.Equal(t, ExitError, hook(true))
	assert.Contains(t, stderr.String(), "donegate: internal error, nothing decided (a bug; please report it with these lines): runtime error: invalid memory address or nil pointer dereference")
	assert.Contains(t, stderr.String(), "goroutine ")
}
