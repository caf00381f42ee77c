package gate

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"github.com/donegate/donegate/hookio"
	"github.com/donegate/donegate/internal/turn"
)

// settleTurn names the turn of a Gemini CLI stop, whose event carries no
// turn id, so that the block count is kept per turn there too (see
// Event.PromptID). Measured with Gemini CLI 0.61.0: stop_hook_active goes
// back to false once a continued turn has run a tool, and the same
// prompt typed again has the same text, so neither tells a continuation
// from a new prompt; the chat record of the person's prompt does (see
// turn.GeminiPrompt). Where the chat file does not show it, the prompt's
// text stands in: a prompt typed again then carries its count on, so the
// agent is let go sooner, never held longer.
func (r *run) settleTurn() {
	ev := r.event
	if ev.Host != hookio.HostGemini || !ev.IsStop() || ev.PromptID != "" {
		return
	}
	id, err := turn.GeminiPrompt(ev.TranscriptPath, ev.Prompt)
	if err != nil {
		fmt.Fprintf(r.stderr, "%s: the turn of this stop: %v\n", r.name, err)
	}
	switch {
	case id != "":
		ev.PromptID = "chat:" + id
	case ev.Prompt != "":
		sum := sha256.Sum256([]byte(ev.Prompt))
		ev.PromptID = "prompt:" + hex.EncodeToString(sum[:8])
	}
}
