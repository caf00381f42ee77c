package checkers

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/donegate/donegate/config"
	"github.com/donegate/donegate/transcript"
)

// defaultKeyword is what a keyword checker without keyword or promise
// looks for.
const defaultKeyword = "TASK_COMPLETE"

// KeywordOptions are the keyword checker's options.
type KeywordOptions struct {
	// Keyword is a text the agent's last message must contain; white
	// space is normalised on both sides (runs of it count as one space)
	// and case counts. Not with promise. Left out: "TASK_COMPLETE".
	Keyword *string `json:"keyword,omitempty"`
	// Promise, when set, is the text the agent's last message must hold
	// in its first <promise>...</promise> tag, white space normalised on
	// both sides, as in the ralph-loop plugin; the keyword then does not
	// count. Write the text only: "DONE", not "<promise>DONE</promise>".
	Promise *string `json:"promise,omitempty"`
}

// CheckOptions refuses an empty keyword or promise, a promise that holds
// the tags themselves (it could never match) and both at once.
func (o *KeywordOptions) CheckOptions() []config.Problem {
	var ps []config.Problem
	if o.Keyword != nil && normalizeSpace(*o.Keyword) == "" {
		ps = append(ps, config.Problem{Path: "keyword", Message: fmt.Sprintf("must not be empty or only white space; leave it out for %q", defaultKeyword)})
	}
	if o.Promise != nil {
		switch p := normalizeSpace(*o.Promise); {
		case p == "":
			ps = append(ps, config.Problem{Path: "promise", Message: "must not be empty or only white space"})
		case strings.Contains(p, promiseOpen) || strings.Contains(p, promiseClose):
			ps = append(ps, config.Problem{Path: "promise", Message: fmt.Sprintf("is the text between the tags: write %q, not %q", "DONE", "<promise>DONE</promise>")})
		}
	}
	if o.Keyword != nil && o.Promise != nil {
		ps = append(ps, config.Problem{Path: "keyword", Message: "not used with promise: with a promise only <promise>PROMISE</promise> counts; leave keyword out"})
	}
	return ps
}

// The keyword checker type. It reads what the agent
// said last, which a stop's event carries: a command-line check has no
// message, and at a gated tool the agent hands in structured output
// instead (see output). The main agent is told the keyword up front
// (stop-hook --criteria); a subagent is not, so it runs at the main
// agent's stop unless its "on" says more.
var _ = declare("keyword", func() *Type {
	return register(Type{
		Name:      "keyword",
		Summary:   "the agent's last message contains `keyword` (default `TASK_COMPLETE`), or, with `promise`, its first `<promise>...</promise>` holds `promise`; white space normalised on both sides",
		DefaultOn: []StopReason{ReasonStop},
		Patterns:  []string{"keyword-missing"},
		Example:   `{"type": "keyword", "keyword": "DONE"}`,
	}, func(o *KeywordOptions) (Checker, error) {
		return newKeyword(o), nil
	}, func(o *KeywordOptions) string {
		k := newKeyword(o)
		if k.Promise != "" {
			return fmt.Sprintf("your final message holds `<promise>%s</promise>`, written only once the task is truly done", k.Promise)
		}
		return fmt.Sprintf("your final message says `%s`, once the task is truly done", k.Keyword)
	})
})

// Keyword is complete when the agent's last message contains Keyword or,
// when Promise is set, holds Promise in its first <promise> tag. Both are
// white-space normalised.
type Keyword struct {
	Keyword string
	Promise string
}

func newKeyword(o *KeywordOptions) Keyword {
	if o.Promise != nil {
		return Keyword{Promise: normalizeSpace(*o.Promise)}
	}
	k := defaultKeyword
	if o.Keyword != nil {
		k = *o.Keyword
	}
	return Keyword{Keyword: normalizeSpace(k)}
}

const (
	promiseOpen  = "<promise>"
	promiseClose = "</promise>"
	// excerptRunes bounds how much of the last message the feedback quotes.
	excerptRunes = 200
)

// Check implements Checker.
func (k Keyword) Check(ctx context.Context, c *Context) (Result, error) {
	msg, source, err := lastMessage(ctx, c)
	if err != nil {
		return Result{}, fmt.Errorf("keyword: %w", err)
	}
	said := normalizeSpace(msg)
	found, tagged := promiseText(msg)
	switch {
	case k.Promise != "" && tagged && found == k.Promise:
		return OK(fmt.Sprintf("Your last message holds <promise>%s</promise>.", k.Promise)), nil
	case k.Promise == "" && strings.Contains(said, k.Keyword):
		return OK(fmt.Sprintf("Your last message says %s.", k.Keyword)), nil
	}
	return c.Fail("keyword-missing", map[string]any{
		"Keyword": k.Keyword,
		"Promise": k.Promise,
		"Found":   found,
		"Tagged":  tagged && k.Promise != "",
		"Message": excerpt(said),
		"Source":  source,
	}), nil
}

// lastMessage returns what the agent said last and where it was read:
// the event's last_assistant_message, else, where the host's transcript
// has texts (hookio.Host.TranscriptHasTexts), the transcript (a
// subagent's own at its stop), read as transcript.LastText reads it. source is "" when there
// is nothing to read.
func lastMessage(ctx context.Context, c *Context) (msg, source string, err error) {
	ev := c.Event
	if ev == nil {
		return "", "", nil
	}
	if !ev.Host.TranscriptHasTexts() {
		if ev.LastAssistantMessage == "" {
			return "", "", nil
		}
		return ev.LastAssistantMessage, "last_assistant_message", nil
	}
	// A SubagentStop of a subagent run in the background was recorded
	// (2.1.330) carrying the main agent's last message, which is not in
	// the subagent's transcript: there, the message must be found in it,
	// or the subagent's own latest text is read instead.
	foreign := c.Reason == ReasonSubagentStop && ev.AgentTranscriptPath != "" && ev.LastAssistantMessage != "" &&
		!transcript.CaughtUp(ctx, ev.AgentTranscriptPath, ev.LastAssistantMessage, TranscriptWait)
	if ev.LastAssistantMessage != "" && !foreign {
		return ev.LastAssistantMessage, "last_assistant_message", nil
	}
	path, opt := ev.TranscriptPath, transcript.ReadOptions{SkipSidechain: true}
	if c.Reason == ReasonSubagentStop || ev.AgentTranscriptPath != "" {
		// Every line of a subagent's transcript is a sidechain line.
		path, opt = ev.AgentTranscriptPath, transcript.ReadOptions{}
	}
	if path == "" {
		return "", "", nil
	}
	text, found, err := transcript.LastText(ctx, path, opt, TranscriptWait)
	if err != nil || !found {
		return "", "", err
	}
	return text, "transcript", nil
}

// promiseText returns the text of the first <promise>...</promise> in
// msg, white space normalised, as the ralph-loop plugin's Stop hook reads
// it (perl: s/.*?<promise>(.*?)<\/promise>.*/$1/s, then the white space):
// the first opening tag, up to the first closing tag after it. tagged is
// false when msg has no such tag.
func promiseText(msg string) (text string, tagged bool) {
	_, rest, ok := strings.Cut(msg, promiseOpen)
	if !ok {
		return "", false
	}
	inner, _, ok := strings.Cut(rest, promiseClose)
	if !ok {
		return "", false
	}
	return normalizeSpace(inner), true
}

// normalizeSpace trims s and turns each run of white space in it into
// one space, so that a line break or a double space does not make a
// keyword or promise differ from the configured one.
func normalizeSpace(s string) string { return strings.Join(strings.Fields(s), " ") }

// excerpt returns the end of s, at most excerptRunes runes of it, marked
// with "..." when cut: the part of a last message the agent needs to see
// to know what was read.
func excerpt(s string) string {
	if utf8.RuneCountInString(s) <= excerptRunes {
		return s
	}
	r := []rune(s)
	return "..." + string(r[len(r)-excerptRunes:])
}
