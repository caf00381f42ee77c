package hookio

// Memo is a host reader's record in the session's state, kept from one
// hook of the session to the next: how far a plan was read (Codex), which
// turn was held (Gemini CLI). A record only saves time or keeps a count
// right where the host's own files cannot: one that cannot be read or
// written costs a whole read, never a wrong answer. The caller decides
// where it lives (one slot of the session's state file) and whether it
// may be written (closer explain writes nothing).
type Memo interface {
	// Recall decodes the record into v; false when there is none, or it
	// cannot be read.
	Recall(v any) bool
	// Update replaces the record with what next returns, given the
	// record as it is then (recall decodes it), under the session's
	// lock; next returning nil leaves it as it is.
	Update(next func(recall func(v any) bool) any) error
}
