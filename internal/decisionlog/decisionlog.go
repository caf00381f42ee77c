// Package decisionlog keeps every decision the hooks make on the record:
// an append-only JSON-lines file in donegate's state dir, one object a
// decision (when, where, which host and session, each check with its
// time and whether its result was reused, the decision and why), read by
// `closer log`.
//
// The file is the user's (0600), never followed through a link, and
// bounded: past MaxBytes it is renamed to FileName+".1" (replacing the
// older one) and a new one begun, so the log holds between MaxBytes and
// twice that. A line is written with one write(2) to a file opened with
// O_APPEND, so that concurrent hooks never interleave within a line.
// Writing the record must never decide anything: an error is the
// caller's to report, and the hook answers as decided.
package decisionlog

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/donegate/donegate/internal/filelock"
	"github.com/donegate/donegate/internal/jsonw"
	"github.com/donegate/donegate/internal/redact"
	"github.com/donegate/donegate/internal/regular"
	"github.com/donegate/donegate/internal/safewrite"
)

// FileName is the log's file in the state dir.
const FileName = "decisions.jsonl"

// MaxBytes is the size past which the log is rotated.
const MaxBytes = 4 << 20

// maxField bounds a free-text field of an entry (the reason).
const maxField = 4 << 10

// Entry is one decision.
type Entry struct {
	Time    time.Time `json:"time"`
	Project string    `json:"project"`
	Host    string    `json:"host"`
	Session string    `json:"session"`
	Turn    string    `json:"turn,omitempty"`
	Hook    string    `json:"hook"`
	Event   string    `json:"event"`
	Tool    string    `json:"tool,omitempty"`
	Mode    string    `json:"mode,omitempty"`
	Checks  []Check   `json:"checks,omitempty"`
	// Decision is what decided the answer (held, let through, complete,
	// waiting, released, ...), Blocks and MaxBlocks the gate's count.
	Decision  string `json:"decision"`
	Blocks    int    `json:"blocks,omitempty"`
	MaxBlocks int    `json:"maxBlocks,omitempty"`
	// Why says why, in a line (the limit spent, the config error, what
	// was not run for want of consent); Reason is what the agent was told
	// when it was held, or the person's message.
	Why    string `json:"why,omitempty"`
	Reason string `json:"reason,omitempty"`
}

// Check is one top-level checker's part in a decision.
type Check struct {
	Label    string `json:"label"`
	Complete bool   `json:"complete"`
	NotRun   bool   `json:"notRun,omitempty"`
	Error    string `json:"error,omitempty"`
	TookMS   int64  `json:"tookMs"`
	// Reused is true when its result came from the result cache; Fresh
	// says why a command ran instead ("no result for this state of the
	// tree", "cache off", ...).
	Reused bool     `json:"reused,omitempty"`
	Fresh  []string `json:"fresh,omitempty"`
}

// entryFields and checkFields describe the log's lines: written as
// json.Marshal would, without it (see package jsonw;
// TestEntriesAsEncodingJSON holds the two equal).
var entryFields = jsonw.Record[Entry]{
	jsonw.TimeField("time", func(e *Entry) *time.Time { return &e.Time }, ""),
	jsonw.StringField("project", func(e *Entry) *string { return &e.Project }, jsonw.Always),
	jsonw.StringField("host", func(e *Entry) *string { return &e.Host }, jsonw.Always),
	jsonw.StringField("session", func(e *Entry) *string { return &e.Session }, jsonw.Always),
	jsonw.StringField("turn", func(e *Entry) *string { return &e.Turn }, jsonw.OmitEmpty),
	jsonw.StringField("hook", func(e *Entry) *string { return &e.Hook }, jsonw.Always),
	jsonw.StringField("event", func(e *Entry) *string { return &e.Event }, jsonw.Always),
	jsonw.StringField("tool", func(e *Entry) *string { return &e.Tool }, jsonw.OmitEmpty),
	jsonw.StringField("mode", func(e *Entry) *string { return &e.Mode }, jsonw.OmitEmpty),
	jsonw.SliceField("checks", func(e *Entry) *[]Check { return &e.Checks }, checkFields, jsonw.OmitEmpty),
	jsonw.StringField("decision", func(e *Entry) *string { return &e.Decision }, jsonw.Always),
	jsonw.IntField("blocks", func(e *Entry) *int { return &e.Blocks }, jsonw.OmitEmpty),
	jsonw.IntField("maxBlocks", func(e *Entry) *int { return &e.MaxBlocks }, jsonw.OmitEmpty),
	jsonw.StringField("why", func(e *Entry) *string { return &e.Why }, jsonw.OmitEmpty),
	jsonw.StringField("reason", func(e *Entry) *string { return &e.Reason }, jsonw.OmitEmpty),
}

var checkFields = jsonw.Record[Check]{
	jsonw.StringField("label", func(c *Check) *string { return &c.Label }, jsonw.Always),
	jsonw.BoolField("complete", func(c *Check) *bool { return &c.Complete }, jsonw.Always),
	jsonw.BoolField("notRun", func(c *Check) *bool { return &c.NotRun }, jsonw.OmitEmpty),
	jsonw.StringField("error", func(c *Check) *string { return &c.Error }, jsonw.OmitEmpty),
	jsonw.IntField("tookMs", func(c *Check) *int64 { return &c.TookMS }, jsonw.Always),
	jsonw.BoolField("reused", func(c *Check) *bool { return &c.Reused }, jsonw.OmitEmpty),
	jsonw.StringsField("fresh", func(c *Check) *[]string { return &c.Fresh }, jsonw.OmitEmpty),
}

// Append adds e to the log in stateDir, rotating it when it is full.
// What a check printed may hold a secret of the hook's environment: the
// texts are masked (internal/redact) before they are kept.
func Append(stateDir string, e Entry) error {
	mask := redact.Process()
	e.Why, e.Reason = cut(mask.Mask(e.Why)), cut(mask.Mask(e.Reason))
	if len(e.Checks) > 0 {
		checks := make([]Check, len(e.Checks))
		for i, c := range e.Checks {
			c.Error = mask.Mask(c.Error)
			if len(c.Fresh) > 0 {
				fresh := make([]string, len(c.Fresh))
				for j, f := range c.Fresh {
					fresh[j] = mask.Mask(f)
				}
				c.Fresh = fresh
			}
			checks[i] = c
		}
		e.Checks = checks
	}
	// Sized once for the line (the fixed fields, and room for the texts
	// that vary): grown from nothing, the buffer passed through a size
	// class per doubling, each new to a hook's process (a span and its
	// pages faulted in), about 20 µs of a stop.
	line, err := entryFields.Append(make([]byte, 0, 1024+len(e.Project)+len(e.Why)+len(e.Reason)), &e)
	if err != nil {
		return fmt.Errorf("decision log: %w", err)
	}
	line = append(line, '\n')
	path := filepath.Join(stateDir, FileName)
	f, err := open(path)
	if errors.Is(err, fs.ErrNotExist) {
		if err = os.MkdirAll(stateDir, 0o700); err == nil {
			f, err = open(path)
		}
	}
	if err != nil {
		return fmt.Errorf("decision log: %w", err)
	}
	if st, err := f.Stat(); err == nil && st.Size()+int64(len(line)) > MaxBytes {
		f.Close()
		// Two hooks may rotate at once: the loser's rename finds the new
		// file, or none, and a line lands in either; none is lost.
		_ = safewrite.Rename(path, path+".1")
		if f, err = open(path); err != nil {
			return fmt.Errorf("decision log: %w", err)
		}
	}
	// One writer at a time on Windows: an append is one write at the end
	// on Linux and macOS (O_APPEND), but under Wine concurrent appends
	// lost lines (2 of 50), and nothing in Windows' docs promises more
	// than FILE_APPEND_DATA's end of file. A lock not had within lockWait
	// is done without. Elsewhere no hook waits for another's append.
	if runtime.GOOS == "windows" {
		_ = filelock.Lock(f, lockWait) // the lock goes with f's close
	}
	_, err = f.Write(line)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("decision log: %w", err)
	}
	return nil
}

// lockWait bounds the wait for another hook's append.
const lockWait = time.Second

func open(path string) (*os.File, error) {
	return regular.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE|regular.NoFollow, 0o600)
}

func cut(s string) string {
	if len(s) <= maxField {
		return s
	}
	return string(bytes.ToValidUTF8([]byte(s[:maxField]), nil)) + " [cut]"
}

// Files are the log's files in stateDir, oldest first.
func Files(stateDir string) []string {
	p := filepath.Join(stateDir, FileName)
	return []string{p + ".1", p}
}

// Read calls f with every entry of the file at path from offset on, in
// order, and returns the offset after the last whole line read. A line
// that does not decode (cut by a crash) is skipped; a missing file is
// no entries.
func Read(path string, offset int64, f func(Entry)) (int64, error) {
	file, err := regular.OpenFile(path, os.O_RDONLY|regular.NoFollow, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return offset, err
	}
	defer file.Close()
	if st, err := file.Stat(); err == nil && st.Size() < offset {
		offset = 0 // rotated since: the new file from its start
	}
	if _, err := file.Seek(offset, io.SeekStart); err != nil {
		return offset, err
	}
	r := bufio.NewReaderSize(file, 64<<10)
	for {
		line, err := r.ReadBytes('\n')
		if len(line) > 0 && line[len(line)-1] == '\n' {
			offset += int64(len(line))
			var e Entry
			if entryFields.Decode(line, &e) == nil {
				f(e)
			}
		}
		if err == io.EOF {
			return offset, nil
		}
		if err != nil {
			return offset, err
		}
	}
}
