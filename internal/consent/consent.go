// Package consent keeps the person's word that donegate may run a
// project's commands: a record per project, in donegate's state dir and
// never in the project, written by `closer allow` and `closer init` (run by
// the person) and read by the hooks, which never write one.
//
// A record holds what was allowed by content, not by name: the config
// file in force then (its path, its digest and its bytes, so that the
// allowed config keeps holding when the file is edited or removed), and
// each command detected from the project's files with the digest of what
// defines it (see checkers.ProjectCommand). Nothing a repository holds can
// grant consent: the record is keyed by a hash of the project's resolved
// path, and its directory and files are the user's own (0700 and 0600).
//
// The package must not decide what runs: the gate compares a record with
// what the project holds now.
package consent

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/donegate/donegate/internal/regular"
	"github.com/donegate/donegate/internal/safewrite"
)

// Dir is the directory of the records, under the state dir.
const Dir = "consent"

// version is the record format written.
const version = 1

// maxRecordBytes bounds a record read: a config is at most 1 MiB, and
// JSON may escape it to a few times that.
const maxRecordBytes = 8 << 20

// Record is the person's consent for one project.
type Record struct {
	Version int `json:"version"`
	// Project is the project dir, resolved (see Resolve).
	Project string `json:"project"`
	// AllowedAt is when it was given, and By what gave it ("closer
	// allow", "closer init").
	AllowedAt time.Time `json:"allowed_at"`
	By        string    `json:"by"`
	// Config is the config file in force when consent was given; nil when
	// it was the embedded default (no file).
	Config *Config `json:"config,omitempty"`
	// Commands are the commands detected from the project's files that
	// the allowed config runs, each with what defines it.
	Commands []Command `json:"commands,omitempty"`
	// Revoked marks the record closer allow --revoke leaves: the person
	// took consent back (at AllowedAt, by By), and nothing is allowed.
	// It tells their revoke from a record that went missing, which
	// allows nothing either but holds a session that had consent (see
	// ErrRevoked).
	Revoked bool `json:"revoked,omitempty"`
}

// Config is an allowed config file.
type Config struct {
	Path   string `json:"path"`
	Digest string `json:"digest"`
	// Content is the file's bytes, to keep holding the agent with the
	// allowed config when the file changes.
	Content string `json:"content"`
}

// Command is an allowed command detected from the project's files.
type Command struct {
	// Checker is the checker type that runs it ("test", "lint").
	Checker string `json:"checker"`
	Command string `json:"command"`
	// From is the file it was detected from ("Makefile").
	From string `json:"from"`
	// Definition is the digest of what defines it ("" when the command is
	// donegate's own and no file changes what it runs).
	Definition string `json:"definition,omitempty"`
}

// Digest is the digest a record keeps of data: "sha256:" and its hex.
func Digest(data []byte) string {
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// Resolve is the identity of a path, a project dir or a config file:
// absolute, cleaned, its symbolic links resolved where it exists, so that
// one project reached by two paths has one record.
func Resolve(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		abs = filepath.Clean(dir)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		return real
	}
	return abs
}

// Path is the file of project's record under stateDir.
func Path(stateDir, project string) string {
	return resolvedPath(stateDir, Resolve(project))
}

// resolvedPath is Path for a project already resolved.
func resolvedPath(stateDir, resolved string) string {
	sum := sha256.Sum256([]byte(resolved))
	return filepath.Join(stateDir, Dir, hex.EncodeToString(sum[:16])+".json")
}

// ErrNone is wrapped by Load's error when the project has no record.
var ErrNone = errors.New("no consent recorded")

// ErrRevoked is wrapped by Load's error when the person revoked the
// project's consent; it wraps ErrNone, since nothing is allowed.
var ErrRevoked = fmt.Errorf("consent revoked by the person: %w", ErrNone)

// noRecordError is the error for a project without a record, which most
// stops of a project meet: its text is made when asked for, with no fmt.
type noRecordError struct{ project string }

func (e noRecordError) Error() string { return "consent for " + e.project + ": " + ErrNone.Error() }
func (e noRecordError) Unwrap() error { return ErrNone }

// Load reads project's record. A project nobody allowed gives an error
// wrapping ErrNone; a record that cannot be read or does not belong to
// project is an error too, and allows nothing.
func Load(stateDir, project string) (*Record, error) {
	return LoadResolved(stateDir, Resolve(project))
}

// LoadResolved is Load for a project that Resolve gave: each resolving
// walks the path's directories.
func LoadResolved(stateDir, project string) (*Record, error) {
	p := resolvedPath(stateDir, project)
	f, err := regular.OpenFile(p, os.O_RDONLY|regular.NoFollow, 0)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return nil, noRecordError{project}
	}
	if err != nil {
		return nil, fmt.Errorf("consent record %s: %w", p, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxRecordBytes+1))
	if err != nil {
		return nil, fmt.Errorf("consent record %s: %w", p, err)
	}
	if len(data) > maxRecordBytes {
		return nil, fmt.Errorf("consent record %s: larger than %d bytes", p, maxRecordBytes)
	}
	var r Record
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&r); err != nil {
		return nil, fmt.Errorf("consent record %s: %w", p, err)
	}
	switch {
	case r.Version != version:
		return nil, fmt.Errorf("consent record %s: format %d, this donegate reads %d: run closer allow again", p, r.Version, version)
	case r.Project != project:
		// Two paths with one hash, or a record copied by hand.
		return nil, fmt.Errorf("consent record %s is for %s, not %s", p, r.Project, project)
	case r.Config != nil && Digest([]byte(r.Config.Content)) != r.Config.Digest:
		return nil, fmt.Errorf("consent record %s: the allowed config's content does not match its digest", p)
	case r.Revoked:
		return nil, fmt.Errorf("consent for %s: %w", project, ErrRevoked)
	}
	return &r, nil
}

// Save writes r as its project's record, replacing any: a new file,
// 0600, renamed into place, so that a reader sees the old record or the
// new one whole. The directory is made 0700.
func Save(stateDir string, r Record) error {
	r.Version = version
	r.Project = Resolve(r.Project)
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("consent record: %w", err)
	}
	dest := Path(stateDir, r.Project)
	dir := filepath.Dir(dest)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("consent: %w", err)
	}
	if st, err := os.Lstat(dir); err != nil || !st.IsDir() {
		return fmt.Errorf("consent: %s is not a directory", dir)
	}
	tmp, err := os.CreateTemp(dir, ".consent-*")
	if err != nil {
		return fmt.Errorf("consent: %w", err)
	}
	_, err = tmp.Write(append(data, '\n'))
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		// rename(2) replaces a link at dest, never what it points to.
		err = safewrite.Rename(tmp.Name(), dest)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("consent record %s: %w", dest, err)
	}
	return nil
}

// Revoke takes project's consent back: its record is replaced by one
// that says so (Revoked, at now, by by), so that a hook tells the
// person's revoke from a record that went missing. It reports whether
// there was consent to take back; with none (no record, or one revoked
// already) nothing is written. A record that cannot be read is replaced.
func Revoke(stateDir, project string, by string, now time.Time) (bool, error) {
	_, err := Load(stateDir, project)
	if errors.Is(err, ErrNone) {
		return false, nil
	}
	r := Record{Project: project, AllowedAt: now.UTC(), By: by, Revoked: true}
	if err := Save(stateDir, r); err != nil {
		return false, err
	}
	return true, nil
}

// Allows reports whether r lists cmd, detected from the same file and
// defined by the same content.
func (r *Record) Allows(cmd Command) bool {
	if r == nil {
		return false
	}
	for _, c := range r.Commands {
		if c == cmd {
			return true
		}
	}
	return false
}

// AllowedCommand returns the allowed command of checker detected from
// the same file, whatever its definition now: to tell the person what
// changed.
func (r *Record) AllowedCommand(checker, command, from string) (Command, bool) {
	if r == nil {
		return Command{}, false
	}
	for _, c := range r.Commands {
		if c.Checker == checker && c.Command == command && c.From == from {
			return c, true
		}
	}
	return Command{}, false
}
