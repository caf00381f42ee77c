package checkers

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/donegate/donegate/transcript"
)

func ptr[T any](v T) *T { return &v }

// TestMergePhase: two hooks of a session read the transcript outside the
// lock, from the offset stored when each began; merged under it, the
// record keeps the furthest phase and the further offset, whatever order
// they finish in.
func TestMergePhase(t *testing.T) {
	rec := func(reached, path string, off int64) phaseRecord {
		return phaseRecord{Reached: reached, Transcript: path, Position: transcript.Position{Offset: off, Ino: 1}}
	}
	other := func(p phaseRecord) phaseRecord { p.Ino = 2; return p }
	tests := []struct {
		name      string
		stored    *phaseRecord
		read      phaseRecord
		restarted bool
		want      phaseRecord
	}{
		{"first record", nil, rec("review", "t", 100), false, rec("review", "t", 100)},
		{"further on", ptr(rec("processing", "t", 100)), rec("review", "t", 200), false, rec("review", "t", 200)},
		{"a slower hook finishing last keeps both maxima", ptr(rec("review", "t", 300)), rec("processing", "t", 200), false, rec("review", "t", 300)},
		{"no marker read: the phase stays", ptr(rec("review", "t", 100)), rec("", "t", 150), false, rec("review", "t", 150)},
		{"a cut transcript's offset is the one read", ptr(rec("review", "t", 900)), rec("preparation", "t", 50), true, rec("review", "t", 50)},
		{"another file at the same path: its position, though nearer the start", ptr(rec("review", "t", 900)), other(rec("", "t", 40)), false, other(rec("review", "t", 40))},
		{"another transcript (a resumed session)", ptr(rec("review", "t", 900)), rec("", "u", 40), false, rec("review", "u", 40)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, *mergePhase(tt.stored, tt.read, tt.restarted))
		})
	}
}
