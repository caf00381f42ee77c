package gate

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"

	"github.com/donegate/donegate/hookio"
	"github.com/donegate/donegate/internal/state"
	"github.com/donegate/donegate/transcript"
)

// geminiTurnSlot keeps, per session, the Gemini turn donegate last held:
// its prompt (hashed), the id of its prompt's record, and the reasons it
// answered in it (hashed), which Gemini writes as user records.
const geminiTurnSlot = "gemini.turn"

// geminiTurnRecord is what geminiTurnSlot holds.
type geminiTurnRecord struct {
	Prompt  string   `json:"prompt"`
	Turn    string   `json:"turn"`
	Reasons []string `json:"reasons,omitempty"`
}

// maxGeminiReasons bounds the reasons kept of one turn.
const maxGeminiReasons = 16

// geminiTurn is the PromptID of a Gemini CLI stop, which names no turn:
// the chat record of the turn's prompt (see transcript.GeminiTurn).
// Counted per session, a turn cut short after a block (the CLI killed
// mid-continuation) left its count to the next prompt of the session, the
// same prompt resumed included, which then got less than its max_blocks
// (measured with 0.61.0: e2e TestGeminiResumedPromptIsANewTurn).
//
// The turn donegate last held goes on where the chat cannot tell it
// (issue 29): when its prompt's record has scrolled out of the window
// searched (a long turn: its count had started over, 5 holds with
// max_blocks 3), and when the prompt is a reason donegate gave, whose
// records Gemini writes as the person's (every deny's record looked like
// a new prompt: 20 holds of 20). Without either, the count is the
// session's, as for a host that sends no turn id.
func (r *run) geminiTurn() string {
	ev := r.event
	var kept geminiTurnRecord
	if s, err := r.session(); err == nil {
		s.Get(geminiTurnSlot, &kept)
	}
	same := kept.Turn != "" && kept.Prompt == textHash(ev.Prompt)
	if same && slices.Contains(kept.Reasons, textHash(ev.Prompt)) {
		return kept.Turn
	}
	id, err := transcript.GeminiTurn(ev.TranscriptPath, ev.Prompt)
	if err != nil {
		fmt.Fprintf(r.stderr, "%s: cannot tell the Gemini turn, counting blocks per session: %v\n", r.name, err)
	}
	if id == "" && same {
		return kept.Turn
	}
	return id
}

// keepGeminiTurn records, in the session s, the Gemini turn a block holds
// and the reason it gives (see geminiTurn); other hosts keep nothing.
func (r *run) keepGeminiTurn(s *state.Session, reason string) {
	ev := r.event
	if ev.Host != hookio.HostGemini || !ev.IsStop() || ev.PromptID == "" {
		return
	}
	var kept geminiTurnRecord
	s.Get(geminiTurnSlot, &kept)
	if kept.Turn != ev.PromptID {
		kept = geminiTurnRecord{Prompt: textHash(ev.Prompt), Turn: ev.PromptID}
	}
	// The reason as Gemini gets it, cleaned as the answer cleans it.
	if h := textHash(hookio.CleanText(reason)); !slices.Contains(kept.Reasons, h) {
		kept.Reasons = append(kept.Reasons, h)
		if n := len(kept.Reasons); n > maxGeminiReasons {
			kept.Reasons = kept.Reasons[n-maxGeminiReasons:]
		}
	}
	_ = s.Put(geminiTurnSlot, kept)
}

// textHash names a text without keeping it: prompts and reasons are the
// person's and the project's words.
func textHash(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:16])
}
