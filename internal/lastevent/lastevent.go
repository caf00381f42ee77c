// Package lastevent keeps the last hook event of each session, so that
// `closer explain --last` can replay what really happened at a stop and
// `closer release` can tell which turn to release: Claude Code's --debug
// log holds a hook's output and timing, not its input (2.1.331), and
// nothing else keeps the event.
//
// The event is kept in the session's record (package state), in the slot
// Slot, with the time the hook kept it: the hook reads and writes that
// record at every stop anyway, under its lock, so keeping the event there
// costs the stop no file of its own. A file of its own per session (the
// state dir's last-event/, written until 2026-11-28, still read) cost a
// blocking stop a second file and a thread woken to write it
// (docs/performance.md). An event is at most MaxBytes: larger events
// keep only the fields explain needs.
// It must not be kept for a tool call the hook does not gate: that path
// stays as cheap as it is.
package lastevent

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/donegate/donegate/hookio"
	"github.com/donegate/donegate/internal/filelock"
	"github.com/donegate/donegate/internal/jsonw"
	"github.com/donegate/donegate/internal/regular"
	"github.com/donegate/donegate/internal/state"
)

// Slot is the session record's slot of its last event.
const Slot = "last_event"

// LegacyDir is the subdirectory of the state dir that held each
// session's last event in a file of its own, until 2026-11-28: read when
// a session's record keeps none, written no more.
const LegacyDir = "last-event"

// MaxBytes bounds a kept event: a Stop event is a few KiB, but its
// last_assistant_message and a tool call's tool_input are the agent's and
// unbounded.
const MaxBytes = 64 << 10

// Found is what the hook found beside the event, kept with it.
type Found struct {
	// Project is the hook's project dir.
	Project string
	// FinalOutput: the event's final message was the agent's structured
	// answer (see hookio.Event.SchemaTold).
	FinalOutput bool
}

// Keep records raw, an event as a hook read it (valid JSON), as the last
// event of the session s, which the caller holds under its lock (within
// state.Store.Update), kept at now with what the hook found.
func Keep(s *state.Session, raw []byte, now time.Time, found Found) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) > MaxBytes {
		raw = shrink(raw)
	}
	return s.Put(Slot, kept{at: now, event: raw, found: found})
}

// kept is the slot's record: {"at": time, "project": dir, "final_output":
// true, "event": the event}.
type kept struct {
	at    time.Time
	event []byte
	found Found
}

// AppendRecord writes k as the slot's JSON; the record's writer (package
// state) makes the event compact.
func (k kept) AppendRecord(b []byte) []byte {
	o := jsonw.NewObject(b, true)
	if err := o.Time("at", k.at); err != nil {
		// A year outside 0-9999, which a hook's clock does not give: a
		// record of no time, which Latest ranks last.
		o.Raw("at", []byte("null"))
	}
	o.StringOmitEmpty("project", k.found.Project)
	o.BoolOmitEmpty("final_output", k.found.FinalOutput)
	o.Raw("event", k.event)
	return o.End()
}

// shrink keeps what it can of an event over MaxBytes: first the fields
// that tell its host (hookio.DetectionKey) and its cwd, then every other
// field, smallest first, within MaxBytes/2, and the start of the agent's
// last message, within MaxBytes/4. So the record is told as the event's
// host was, and keeps the session, transcript and turn that explain
// needs, whichever host sent it; the agent's own long text is cut.
func shrink(raw []byte) []byte {
	type field struct {
		key   string
		value json.RawMessage
	}
	var first, rest []field
	seen := map[string]bool{}
	messages := map[string]string{}
	root := gjson.ParseBytes(raw)
	if !root.IsObject() {
		return []byte("{}")
	}
	root.ForEach(func(key, v gjson.Result) bool {
		// The first of duplicate keys counts, as it does for the hooks'
		// reads (gjson's Get).
		if seen[key.Str] {
			return true
		}
		seen[key.Str] = true
		switch {
		case key.Str == "last_assistant_message" || key.Str == "prompt_response":
			// The agent's last message: Gemini CLI's prompt_response,
			// everyone else's last_assistant_message.
			if v.Type == gjson.String && v.Str != "" {
				messages[key.Str] = v.Str
			}
		case hookio.DetectionKey(key.Str) || key.Str == "cwd":
			first = append(first, field{key.Str, json.RawMessage(v.Raw)})
		default:
			rest = append(rest, field{key.Str, json.RawMessage(v.Raw)})
		}
		return true
	})
	slices.SortStableFunc(rest, func(a, b field) int { return len(a.value) - len(b.value) })
	out := map[string]json.RawMessage{}
	size := 0
	for _, f := range append(first, rest...) {
		if size+len(f.key)+len(f.value) < MaxBytes/2 {
			out[f.key] = f.value
			size += len(f.key) + len(f.value)
		}
	}
	for k, msg := range messages {
		if len(msg) > MaxBytes/4 {
			msg = strings.ToValidUTF8(msg[:MaxBytes/4], "") + " [cut by donegate]"
		}
		out[k], _ = json.Marshal(msg)
	}
	b, err := json.Marshal(out)
	if err != nil {
		// A value gjson took for JSON that encoding/json does not: the
		// host's fields alone, which DetectHost and Parse read.
		return []byte("{}")
	}
	return b
}

// Record is one kept event.
type Record struct {
	// Path is the file it was read from: the session's record, or a
	// file of LegacyDir.
	Path string
	// At is when the hook kept it (a legacy file's modification time).
	At  time.Time
	Raw []byte
	// Found is what the hook found beside it; its Project is "" where a
	// record of an older version keeps none (see InProject).
	Found
}

// InProject reports whether the record's session is one of the project
// in dir or of a project dir that holds it: its project, else its event's
// cwd. dir and the record's project are compared as given: resolve
// both alike.
func (r Record) InProject(dir string, resolve func(string) string) bool {
	p := r.Found.Project
	if p == "" {
		p = gjson.GetBytes(r.Raw, "cwd").Str
	}
	if p == "" {
		return false
	}
	p, dir = resolve(p), resolve(dir)
	return dir == p || strings.HasPrefix(dir, strings.TrimSuffix(p, string(filepath.Separator))+string(filepath.Separator))
}

// ErrNone is wrapped by Load's and Latest's error when there is no record.
var ErrNone = errors.New("no event recorded")

// Load reads the last event kept of sessionID in stateDir.
func Load(stateDir, sessionID string) (Record, error) {
	name := state.FileName(sessionID)
	rec, err := read(filepath.Join(stateDir, name))
	if errors.Is(err, ErrNone) {
		if legacy, lerr := readLegacy(filepath.Join(stateDir, LegacyDir, name)); !errors.Is(lerr, ErrNone) {
			return legacy, lerr
		}
	}
	return rec, err
}

// Latest reads the event kept last of any session in stateDir: of every
// session's record, by the time each was kept (a record is written again
// after, for its counts), and of an older version's files, by theirs. A
// record that keeps no event (a session seen only at its start) or
// cannot be read is passed over; the error of the newest such file is
// returned when no event is found at all.
func Latest(stateDir string) (Record, error) { return LatestWhere(stateDir, nil) }

// LatestWhere is Latest among the records match accepts (nil: all).
func LatestWhere(stateDir string, match func(Record) bool) (Record, error) {
	type candidate struct {
		path string
		mod  time.Time
		read func(string) (Record, error)
	}
	var cands []candidate
	entries, err := os.ReadDir(stateDir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return Record{}, err
	}
	for _, e := range entries {
		if !e.Type().IsRegular() || !state.IsFileName(e.Name()) {
			continue
		}
		if info, err := e.Info(); err == nil {
			cands = append(cands, candidate{filepath.Join(stateDir, e.Name()), info.ModTime(), read})
		}
	}
	legacy := filepath.Join(stateDir, LegacyDir)
	if entries, err := os.ReadDir(legacy); err == nil {
		for _, e := range entries {
			if !e.Type().IsRegular() || !strings.HasSuffix(e.Name(), ".json") {
				continue
			}
			if info, err := e.Info(); err == nil {
				cands = append(cands, candidate{filepath.Join(legacy, e.Name()), info.ModTime(), readLegacy})
			}
		}
	}
	slices.SortFunc(cands, func(a, b candidate) int { return b.mod.Compare(a.mod) })
	var best Record
	var firstErr error
	found := false
	for _, c := range cands {
		rec, err := c.read(c.path)
		switch {
		case err == nil && match != nil && !match(rec):
		case err == nil:
			if !found || rec.At.After(best.At) {
				best, found = rec, true
			}
		case firstErr == nil && !errors.Is(err, ErrNone):
			firstErr = err
		}
	}
	switch {
	case found:
		return best, nil
	case firstErr != nil:
		return Record{}, firstErr
	}
	return Record{}, fmt.Errorf("%s: %w", stateDir, ErrNone)
}

// read reads the event kept in the session record at path.
func read(path string) (Record, error) {
	sess, err := state.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Record{}, fmt.Errorf("%s: %w", path, ErrNone)
	}
	if err != nil {
		return Record{}, err
	}
	data, ok := sess.Checkers[Slot]
	if !ok {
		return Record{}, fmt.Errorf("%s: %w", path, ErrNone)
	}
	slot := gjson.ParseBytes(data)
	ev := slot.Get("event")
	if !ev.IsObject() {
		return Record{}, fmt.Errorf("%s: the last event kept is not an event", path)
	}
	rec := Record{Path: path, Raw: []byte(ev.Raw), Found: Found{Project: slot.Get("project").Str, FinalOutput: slot.Get("final_output").Bool()}}
	if at := slot.Get("at"); at.Type == gjson.String {
		rec.At, _ = time.Parse(time.RFC3339Nano, at.Str)
	}
	return rec, nil
}

// lockWait bounds the wait for a hook of a version before 2026-11-28
// writing a legacy record: each held the lock for one write.
var lockWait = 2 * time.Second

// readLegacy reads a record of LegacyDir: the event alone, its time the
// file's.
func readLegacy(path string) (Record, error) {
	f, err := regular.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Record{}, fmt.Errorf("%s: %w", path, ErrNone)
	}
	if err != nil {
		return Record{}, err
	}
	defer f.Close()
	// The writer's lock: a record is read whole, never while a hook
	// rewrites it.
	if err := filelock.Lock(f, lockWait); err != nil {
		return Record{}, fmt.Errorf("%s: %w", path, err)
	}
	st, err := f.Stat()
	if err != nil {
		return Record{}, err
	}
	raw, err := io.ReadAll(io.LimitReader(f, MaxBytes+1))
	if err != nil {
		return Record{}, fmt.Errorf("%s: %w", path, err)
	}
	if len(raw) > MaxBytes {
		return Record{}, fmt.Errorf("%s: over %d bytes: not written by donegate", path, MaxBytes)
	}
	if !json.Valid(raw) {
		return Record{}, fmt.Errorf("%s: not a whole event (a hook stopped while writing it?)", path)
	}
	return Record{Path: path, At: st.ModTime(), Raw: raw}, nil
}
