package checkers_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/checkers"
	"github.com/donegate/donegate/config"
	"github.com/donegate/donegate/hookio"
)

func TestIterations(t *testing.T) {
	tests := []struct {
		min, continued int
		complete       bool
		feedback       string
	}{
		{min: 3, continued: 0, feedback: "Keep going: this task requires at least 3 rounds of work before you may stop, and 3 are left. " +
			"Go over what you have done against the task, find what is missing, wrong or could be better, and improve it; then finish again.\n\n" +
			"You have been sent back 0 times so far in this prompt."},
		{min: 3, continued: 2, feedback: "Keep going: this task requires at least 3 rounds of work before you may stop, and 1 is left. " +
			"Go over what you have done against the task, find what is missing, wrong or could be better, and improve it; then finish again.\n\n" +
			"You have been sent back 2 times so far in this prompt."},
		{min: 1, continued: 0, feedback: "Keep going: this task requires at least 1 round of work before you may stop, and 1 is left. " +
			"Go over what you have done against the task, find what is missing, wrong or could be better, and improve it; then finish again.\n\n" +
			"You have been sent back 0 times so far in this prompt."},
		{min: 3, continued: 3, complete: true},
		{min: 3, continued: 4, complete: true},
	}
	for _, tt := range tests {
		asked := 0
		c := &checkers.Context{
			Event:     &hookio.Event{HookEventName: hookio.EventStop, SessionID: "s"},
			Reason:    checkers.ReasonStop,
			Continued: func() (int, error) { asked++; return tt.continued, nil },
		}
		r, err := build(t, `{"type":"iterations","min":`+strconv.Itoa(tt.min)+`}`).Check(context.Background(), c)
		require.NoError(t, err)
		assert.Equal(t, 1, asked)
		assert.Equal(t, tt.complete, r.Complete, "min %d, continued %d", tt.min, tt.continued)
		if tt.complete {
			continue
		}
		assert.Equal(t, tt.feedback, r.Feedback)
		assert.Equal(t, "iterations-left", r.Pattern)
		assert.Equal(t, map[string]any{"Min": tt.min, "Done": tt.continued, "Left": tt.min - tt.continued}, r.Params)
	}
}

// TestIterationsWithoutACount: a check from the command line has no
// count, and a count that cannot be read is an error, never a pass.
func TestIterationsWithoutACount(t *testing.T) {
	ch := build(t, `{"type":"iterations","min":1}`)
	_, err := ch.Check(context.Background(), &checkers.Context{Reason: checkers.ReasonManual})
	assert.ErrorContains(t, err, "iterations: there is no count of continuations to read")
	_, err = ch.Check(context.Background(), &checkers.Context{Reason: checkers.ReasonStop, Continued: func() (int, error) {
		return 0, errors.New("state file x is a symbolic link")
	}})
	assert.EqualError(t, err, "iterations: state file x is a symbolic link")
}

func TestIterationsConfig(t *testing.T) {
	tests := []struct {
		name, cfg string
		want      []string
	}{
		{"min 0", `{"checkers":[{"type":"iterations","min":0}]}`, []string{"checkers[0].min: must be at least 1"}},
		{"no min", `{"checkers":[{"type":"iterations"}]}`, []string{"checkers[0].min: must be at least 1"}},
		{"not a number", `{"checkers":[{"type":"iterations","min":"3"}]}`, []string{`checkers[0].min: expected a whole number, got the string "3"`}},
		{
			"beyond the default max_blocks", `{"checkers":[{"type":"iterations","min":6}]}`,
			[]string{"checkers[0].min: 6 continuations can never be reached: limits.max_blocks (5) lets the agent stop after 5; raise limits.max_blocks to at least 6, or lower min"},
		},
		{
			"in a composite, beyond max_blocks", `{"checkers":[{"type":"plan"},{"type":"composite","checkers":[{"type":"keyword"},{"type":"iterations","min":3}]}],"limits":{"max_blocks":2}}`,
			[]string{"checkers[1].checkers[1].min: 3 continuations can never be reached: limits.max_blocks (2) lets the agent stop after 2; raise limits.max_blocks to at least 3, or lower min"},
		},
		{"a broken max_blocks is told once", `{"checkers":[{"type":"iterations","min":3}],"limits":{"max_blocks":0}}`, []string{"limits.max_blocks: must be at least 1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, configProblems(t, tt.cfg))
		})
	}
	// At the limit is reachable: the stop after max_blocks continuations
	// still runs the chain.
	for _, cfg := range []string{
		`{"checkers":[{"type":"iterations","min":5}]}`,
		`{"checkers":[{"type":"iterations","min":8}],"limits":{"max_blocks":8}}`,
	} {
		_, err := config.Parse(strings.NewReader(cfg), "t.json")
		assert.NoError(t, err, cfg)
	}
}
