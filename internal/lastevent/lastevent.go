// Package lastevent keeps the last hook event of each session in the
// hooks' state dir, so that `closer explain --last` can replay what really
// happened at a stop: Claude Code's --debug log holds a hook's output and
// timing, not its input (2.1.331), and nothing else keeps the event.
//
// A record is the event as the hook read it, at most MaxBytes (larger
// events keep only the fields explain needs), in a file of mode 0600
// rewritten in place under the file's lock, which readers take too, so a
// reader sees a whole event or the one before. In place, not a new file
// renamed over the old: a new inode per stop cost a blocking stop about
// an eighth of its time on ext4 (docs/performance.md). It must not be
// written for a tool call the hook does not gate: that path stays as
// cheap as it is.
package lastevent

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/donegate/donegate/internal/filelock"
	"github.com/donegate/donegate/internal/regular"
)

// Dir is the subdirectory of the state dir that holds the records.
const Dir = "last-event"

// MaxBytes bounds a record: a Stop event is a few KiB, but its
// last_assistant_message and a tool call's tool_input are the agent's and
// unbounded.
const MaxBytes = 64 << 10

// fileName is a session's record: a hash, as the block counts' file, so
// that no session id names a path.
func fileName(sessionID string) string {
	sum := sha256.Sum256([]byte(sessionID))
	return hex.EncodeToString(sum[:16]) + ".json"
}

// lockWait bounds the wait for another hook writing or a reader reading
// the same record: each holds the lock for one read or write.
var lockWait = 2 * time.Second

// Save records raw as the last event of sessionID in stateDir.
func Save(stateDir, sessionID string, raw []byte) error {
	if len(raw) > MaxBytes {
		raw = shrink(raw)
	}
	dir := filepath.Join(stateDir, Dir)
	path := filepath.Join(dir, fileName(sessionID))
	f, err := openRecord(path)
	if errors.Is(err, fs.ErrNotExist) {
		// The dir is made only when it is missing: a stat per call is a
		// cost every stop would pay for the first one's sake.
		if err = os.MkdirAll(dir, 0o700); err == nil {
			f, err = openRecord(path)
		}
	}
	if err != nil {
		return fmt.Errorf("last event: %w", err)
	}
	defer f.Close()
	if err := filelock.Lock(f, lockWait); err != nil {
		return fmt.Errorf("last event: %s: %w", path, err)
	}
	// No fsync: a record lost in a crash costs only the explanation of
	// that stop. Written, then cut to its length: a hook killed in
	// between leaves a record that is not JSON, which read refuses.
	if _, err := f.WriteAt(raw, 0); err != nil {
		return fmt.Errorf("last event: %w", err)
	}
	if err := f.Truncate(int64(len(raw))); err != nil {
		return fmt.Errorf("last event: %w", err)
	}
	return nil
}

// openRecord opens or creates the record at path for writing. Never
// through a link, nor a FIFO or anything else that is not a regular file:
// what the agent may have planted at the name is removed (the dir is
// donegate's), not written through, and the record made anew.
func openRecord(path string) (*os.File, error) {
	f, err := regular.OpenFile(path, os.O_CREATE|os.O_RDWR|regular.NoFollow, 0o600)
	if err == nil || errors.Is(err, fs.ErrNotExist) {
		return f, err
	}
	if st, lerr := os.Lstat(path); lerr == nil && !st.Mode().IsRegular() {
		if rerr := os.Remove(path); rerr != nil {
			return nil, err
		}
		return regular.OpenFile(path, os.O_CREATE|os.O_RDWR|regular.NoFollow, 0o600)
	}
	return nil, err
}

// kept are the fields a shrunk record keeps: what explain needs to find
// the session's files and the hook's answer; the agent's own long text
// is cut.
// The fields of the other hosts' events are kept too, so that the host
// is told from a shrunk record as from the event (hookio.DetectHost).
var kept = []string{"session_id", "transcript_path", "cwd", "hook_event_name", "stop_hook_active",
	"prompt_id", "agent_id", "agent_type", "agent_transcript_path", "tool_name", "tool_use_id", "permission_mode",
	// Codex CLI, Qwen Code
	"turn_id", "model", "context_usage", "context_limit",
	// Gemini CLI: a turn is its prompt's
	"prompt",
	// Copilot CLI
	"sessionId", "transcriptPath", "stopReason", "agentName", "agentId", "agentType", "parentAgentId", "toolName",
	// Cursor
	"conversation_id", "generation_id", "cursor_version", "workspace_roots", "loop_count", "status"}

// shrink keeps the fields of kept and the start of the last assistant
// message, within MaxBytes.
func shrink(raw []byte) []byte {
	var ev map[string]json.RawMessage
	if json.Unmarshal(raw, &ev) != nil {
		return []byte("{}")
	}
	out := map[string]json.RawMessage{}
	size := 0
	for _, k := range kept {
		if v, ok := ev[k]; ok && size+len(v) < MaxBytes/2 {
			out[k] = v
			size += len(v)
		}
	}
	// The agent's last message: Gemini CLI's prompt_response, everyone
	// else's last_assistant_message; at most one of them is there.
	for _, k := range []string{"last_assistant_message", "prompt_response"} {
		var msg string
		if json.Unmarshal(ev[k], &msg) == nil && msg != "" {
			if len(msg) > MaxBytes/4 {
				msg = strings.ToValidUTF8(msg[:MaxBytes/4], "") + " [cut by donegate]"
			}
			out[k], _ = json.Marshal(msg)
		}
	}
	b, _ := json.Marshal(out)
	return b
}

// Record is one stored event.
type Record struct {
	Path    string
	ModTime time.Time
	Raw     []byte
}

// ErrNone is wrapped by Load's and Latest's error when there is no record.
var ErrNone = errors.New("no event recorded")

// Load reads the record of sessionID.
func Load(stateDir, sessionID string) (Record, error) {
	return read(filepath.Join(stateDir, Dir, fileName(sessionID)))
}

// Latest reads the most recently written record of any session.
func Latest(stateDir string) (Record, error) {
	dir := filepath.Join(stateDir, Dir)
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return Record{}, fmt.Errorf("%s: %w", dir, ErrNone)
	}
	if err != nil {
		return Record{}, err
	}
	var best string
	var bestTime time.Time
	for _, e := range entries {
		if !e.Type().IsRegular() || !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		info, err := e.Info()
		if err == nil && info.ModTime().After(bestTime) {
			best, bestTime = e.Name(), info.ModTime()
		}
	}
	if best == "" {
		return Record{}, fmt.Errorf("%s: %w", dir, ErrNone)
	}
	return read(filepath.Join(dir, best))
}

func read(path string) (Record, error) {
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
	return Record{Path: path, ModTime: st.ModTime(), Raw: raw}, nil
}
