package checkers_test

import (
	"context"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/checkers"
	"github.com/donegate/donegate/hookio"
)

// TestLongTestLogKeepsItsEnd: a test command that prints 45 long lines and
// then its FAIL line gives feedback over the 8,000-character bound. What
// reaches the model (the feedback cleaned by hookio.CleanText) must still
// say what failed, at its start, and name the failing test, at its end:
// cut at the bound keeping the head, it lost the FAIL line.
func TestLongTestLogKeepsItsEnd(t *testing.T) {
	needSh(t)
	tests := []struct {
		name    string
		command string
		last    string
	}{
		{
			name:    "45 lines of 300 characters, then FAIL",
			command: `i=0; while [ $i -lt 45 ]; do i=$((i+1)); printf 'checkout_test.go:%d: %0290d\n' $i 0; done; echo 'FAIL: TestCheckout'; exit 1`,
			last:    "FAIL: TestCheckout",
		},
		{
			name:    "coloured lines of multi-byte runes, then FAIL",
			command: `i=0; while [ $i -lt 45 ]; do i=$((i+1)); printf '\033[31mé%.0s\033[0m' $(seq 1 250); echo; done; printf '\033[1mFAIL: TestCheckout (0.01s)\033[0m\n'; exit 3`,
			last:    "FAIL: TestCheckout (0.01s)",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &checkers.Context{Event: &hookio.Event{SessionID: "s"}, ProjectDir: t.TempDir()}
			r, err := checkers.Test{Command: tt.command}.Check(context.Background(), c)
			require.NoError(t, err)
			require.False(t, r.Complete)
			require.Greater(t, utf8.RuneCountInString(r.Feedback), hookio.MaxFeedbackRunes, "the case must need a cut")

			got := hookio.CleanText(r.Feedback)
			assert.LessOrEqual(t, utf8.RuneCountInString(got), hookio.MaxFeedbackRunes)
			assert.True(t, strings.HasPrefix(got, "The test command `"+tt.command+"` failed with exit code "), got[:100])
			assert.True(t, strings.HasSuffix(got, "\n"+tt.last), "the end of the log is kept: %q", got[len(got)-100:])
			assert.Contains(t, got, " characters not shown here]\n", "the cut is said where it is")
		})
	}
}
