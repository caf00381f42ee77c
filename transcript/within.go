package transcript

import (
	"context"
	"io"
)

// A plan followed by a 20 GB sparse region (or any transcript that large)
// kept the plan checker reading long after the hook's budget had run
// out: 17.7 s with a 5 s budget (Claude Code, Gemini), 45.8 s (Codex).
// The readers take the caller's context and read through within, so a
// search ends no later than one block (blockSize) after the budget does.

// within is r failing with ctx's error once ctx has ended. It asks ctx
// for its error only, at each read: a context whose end nobody waits for
// need not watch for it (the hooks' budget starts its timer when something
// does, gate.budgetContext).
func within(ctx context.Context, r io.ReaderAt) io.ReaderAt {
	if ctx == nil || ctx == context.Background() || ctx == context.TODO() {
		return r // a context that never ends
	}
	return ctxReader{ctx, r}
}

type ctxReader struct {
	ctx context.Context
	r   io.ReaderAt
}

func (c ctxReader) ReadAt(p []byte, off int64) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.ReadAt(p, off)
}
