package checkers

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/hookio"
	"github.com/donegate/donegate/internal/state"
	"github.com/donegate/donegate/internal/treecache"
)

// A baseline is recorded at the first call of a prompt in a tree and kept
// through later calls and through a saved record; a new prompt starts
// where the previous one's latest call left HEAD; only the latest
// maxBaselines stay.
func TestBaseline(t *testing.T) {
	type call struct{ prompt, tree, head, start string }
	tests := []struct {
		name  string
		calls []call
		want  []string
	}{
		{
			name:  "first call records HEAD, later calls read it",
			calls: []call{{"p1", "/r", "aaa", ""}, {"p1", "/r", "bbb", ""}},
			want:  []string{"aaa", "aaa"},
		},
		{
			name:  "the session's start when known",
			calls: []call{{"p1", "/r", "bbb", "aaa"}, {"p1", "/r", "ccc", "zzz"}},
			want:  []string{"aaa", "aaa"},
		},
		{
			name: "a new prompt starts at the previous prompt's last HEAD, per tree",
			calls: []call{{"p1", "/r", "aaa", ""}, {"p1", "/r", "bbb", ""}, {"p2", "/r", "ccc", "zzz"},
				{"p1", "/other", "ddd", ""}, {"p1", "/r", "eee", ""}, {"p3", "/r", "fff", ""}},
			want: []string{"aaa", "aaa", "bbb", "ddd", "aaa", "ccc"},
		},
		{
			name:  "no commit yet is a baseline too",
			calls: []call{{"p1", "/r", "", ""}, {"p1", "/r", "aaa", ""}},
			want:  []string{"", ""},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := state.Store{Dir: t.TempDir()}
			for i, c := range tt.calls {
				var got string
				start := func() (string, bool) { return c.start, c.start != "" }
				require.NoError(t, s.Update("sess", func(sess *state.Session) error {
					var bs baselines
					sess.Get(gitCommitsTypeName, &bs)
					got = bs.at(c.prompt, c.tree, c.head, start)
					return sess.Put(gitCommitsTypeName, bs)
				}))
				assert.Equal(t, tt.want[i], got, "call %d", i)
			}
		})
	}
	t.Run("only the latest are kept", func(t *testing.T) {
		var bs baselines
		for i := range maxBaselines + 2 {
			bs.at(string(rune('a'+i)), "/r"+string(rune('a'+i)), "h", nil)
		}
		require.Len(t, bs, maxBaselines)
		assert.Equal(t, "c", bs[0].Prompt)
		assert.Equal(t, "new", bs.at("a", "/ra", "new", nil), "the oldest was dropped and is recorded again")
	})
}

// TestUpgradeMidSession: a session record written before 2026-11-24, when
// the record had fields for git-commits' baselines and the phase, is read
// by the types as their own: a hook upgraded in the middle of a session
// counts commits from the baseline recorded before and keeps the phase
// reached.
func TestUpgradeMidSession(t *testing.T) {
	dir := t.TempDir()
	old := `{"counters":{"stop":{"blocks":1}},"baselines":[{"prompt":"p1","tree":"/r","commit":"aaa","last":"bbb"}],"phase":{"reached":"review","transcript":"/t.jsonl","offset":10}}` + "\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, state.FileName("s")), []byte(old), 0o600))
	c := &Context{Event: &hookio.Event{SessionID: "s", PromptID: "p1"}, StateDir: dir, Reason: ReasonManual}

	base, err := c.baseline(context.Background(), &treecache.Status{Dir: "/r", Head: "ccc"})
	require.NoError(t, err)
	assert.Equal(t, "aaa", base, "the baseline recorded before the upgrade")

	reached, err := c.phase(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "review", Phases[reached], "the phase reached before the upgrade")

	sess, err := state.Store{Dir: dir}.Peek("s")
	require.NoError(t, err)
	assert.Equal(t, 1, sess.Counters["stop"].Blocks)
	var bs baselines
	require.True(t, sess.Get(gitCommitsTypeName, &bs))
	assert.Equal(t, baselines{{Prompt: "p1", Tree: "/r", Commit: "aaa", Last: "ccc"}}, bs)
}
