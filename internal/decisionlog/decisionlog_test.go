package decisionlog_test

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/internal/decisionlog"
	"github.com/donegate/donegate/internal/testsupport/linktest"

	"github.com/donegate/donegate/internal/testsupport/testutil"
)

func entry(i int) decisionlog.Entry {
	return decisionlog.Entry{Time: time.Unix(int64(i), 0).UTC(), Project: "/p", Host: "claude", Session: "s", Hook: "stop-hook", Event: "Stop", Decision: "blocked",
		Checks: []decisionlog.Check{{Label: "test", TookMS: 12, Fresh: []string{"test go test ./...: no result for this state of the working tree"}}}}
}

func readAll(t *testing.T, dir string) []decisionlog.Entry {
	t.Helper()
	var out []decisionlog.Entry
	for _, f := range decisionlog.Files(dir) {
		_, err := decisionlog.Read(f, 0, func(e decisionlog.Entry) { out = append(out, e) })
		require.NoError(t, err)
	}
	return out
}

func TestAppendAndRead(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	for i := range 3 {
		require.NoError(t, decisionlog.Append(dir, entry(i)))
	}
	got := readAll(t, dir)
	require.Len(t, got, 3)
	assert.Equal(t, entry(2), got[2])
	st, err := os.Stat(filepath.Join(dir, decisionlog.FileName))
	require.NoError(t, err)
	if runtime.GOOS != "windows" { // no Unix modes there: the profile dir's ACL keeps it the user's
		assert.Equal(t, os.FileMode(0o600), st.Mode().Perm(), "the log is the user's alone")
	}

	// Reading on from an offset gives what was appended since.
	off, err := decisionlog.Read(filepath.Join(dir, decisionlog.FileName), 0, func(decisionlog.Entry) {})
	require.NoError(t, err)
	require.NoError(t, decisionlog.Append(dir, entry(3)))
	var later []decisionlog.Entry
	_, err = decisionlog.Read(filepath.Join(dir, decisionlog.FileName), off, func(e decisionlog.Entry) { later = append(later, e) })
	require.NoError(t, err)
	assert.Equal(t, []decisionlog.Entry{entry(3)}, later)
}

// Hooks of one session append at once: every line whole, none lost.
func TestConcurrentAppends(t *testing.T) {
	dir := t.TempDir()
	var wg sync.WaitGroup
	for i := range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			assert.NoError(t, decisionlog.Append(dir, entry(i)))
		}()
	}
	wg.Wait()
	assert.Len(t, readAll(t, dir), 50)
}

// Past MaxBytes the log is rotated: it stays bounded, and the newest
// entries are kept.
func TestRotation(t *testing.T) {
	dir := t.TempDir()
	big := entry(0)
	big.Reason = strings.Repeat("x", 3000)
	n := 2*decisionlog.MaxBytes/3000 + 10
	for i := range n {
		big.Time = time.Unix(int64(i), 0).UTC()
		require.NoError(t, decisionlog.Append(dir, big))
	}
	var total int64
	for _, f := range decisionlog.Files(dir) {
		if st, err := os.Stat(f); err == nil {
			total += st.Size()
		}
	}
	assert.LessOrEqual(t, total, int64(2*decisionlog.MaxBytes))
	got := readAll(t, dir)
	assert.Equal(t, time.Unix(int64(n-1), 0).UTC(), got[len(got)-1].Time)
	// A reason is bounded too.
	assert.Contains(t, got[0].Reason, "xxx")
}

// The log is never written through a link at its place.
func TestAppendRefusesALink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(t.TempDir(), "victim")
	require.NoError(t, os.WriteFile(target, []byte("keep"), 0o600))
	linktest.Symlink(t, target, filepath.Join(dir, decisionlog.FileName))
	require.Error(t, decisionlog.Append(dir, entry(0)))
	data, err := os.ReadFile(target)
	require.NoError(t, err)
	assert.Equal(t, "keep", string(data))
}

// BenchmarkAppend is what the log costs a stop (target: 0.1 ms).
func BenchmarkAppend(b *testing.B) {
	dir := b.TempDir()
	e := entry(0)
	e.Reason = "The test command `go test ./...` failed with exit code 1. Fix the failures and run it again."
	for b.Loop() {
		if err := decisionlog.Append(dir, e); err != nil {
			b.Fatal(err)
		}
	}
}

// TestEntriesAsEncodingJSON: Append writes each entry as json.Marshal
// does (it writes by hand: see package jsonw), every field set or not,
// and refuses what json.Marshal refuses.
func TestEntriesAsEncodingJSON(t *testing.T) {
	// A field added to these must be in their descriptions, and set below.
	require.NoError(t, decisionlog.EntryFields.CheckTags())
	require.NoError(t, decisionlog.CheckFields.CheckTags())
	rng := rand.New(rand.NewPCG(5, 6))
	texts := []string{"", "x", "held: <plan> & \"tests\"\n\t", "\u2028 \xff \x01", "日本"}
	text := func() string { return texts[rng.IntN(len(texts))] }
	num := func() int { return []int{0, 1, -2, 1 << 40}[rng.IntN(4)] }
	yes := func() bool { return rng.IntN(2) == 0 }
	dir := t.TempDir()
	path := filepath.Join(dir, decisionlog.FileName)
	for i := range 500 {
		e := decisionlog.Entry{Time: time.Unix(int64(rng.IntN(1<<31)), int64(rng.IntN(1e9))).In(time.FixedZone("", 3600*(rng.IntN(5)-2))),
			Project: text(), Host: text(), Session: text(), Turn: text(), Hook: text(), Event: text(), Tool: text(), Mode: text(),
			Decision: text(), Blocks: num(), MaxBlocks: num(), Why: text(), Reason: text()}
		for range rng.IntN(3) {
			c := decisionlog.Check{Label: text(), Complete: yes(), NotRun: yes(), Error: text(), TookMS: int64(num()), Reused: yes()}
			for range rng.IntN(3) {
				c.Fresh = append(c.Fresh, text())
			}
			if yes() && c.Fresh == nil {
				c.Fresh = []string{}
			}
			e.Checks = append(e.Checks, c)
		}
		if i%50 == 0 {
			e.Checks = []decisionlog.Check{}
		}
		if i > 0 {
			require.NoError(t, os.Remove(path))
		}
		require.NoError(t, decisionlog.Append(dir, e))
		got, err := os.ReadFile(path)
		require.NoError(t, err)
		want, err := json.Marshal(e)
		require.NoError(t, err)
		require.Equal(t, testutil.SameFFFD(string(want)+"\n"), testutil.SameFFFD(string(got)))
		var ref decisionlog.Entry
		require.NoError(t, json.Unmarshal(got, &ref))
		var read []decisionlog.Entry
		_, err = decisionlog.Read(path, 0, func(e decisionlog.Entry) { read = append(read, e) })
		require.NoError(t, err)
		require.Len(t, read, 1)
		assert.True(t, ref.Time.Equal(read[0].Time))
		ref.Time, read[0].Time = time.Time{}, time.Time{}
		assert.Equal(t, ref, read[0], "read back as json.Unmarshal reads it")
	}
	_, err := json.Marshal(decisionlog.Entry{Time: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)})
	require.Error(t, err)
	assert.Error(t, decisionlog.Append(dir, decisionlog.Entry{Time: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)}))
}
