package consent_test

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/internal/consent"
	"github.com/donegate/donegate/internal/testsupport/fifotest"
	"github.com/donegate/donegate/internal/testsupport/linktest"
)

func record(project string) consent.Record {
	cfg := `{"checkers":[{"type":"test","command":"go test ./..."}]}`
	return consent.Record{
		Project:   project,
		AllowedAt: time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC),
		By:        "closer allow",
		Config:    &consent.Config{Path: filepath.Join(project, ".claude", "donegate.json"), Digest: consent.Digest([]byte(cfg)), Content: cfg},
		Commands:  []consent.Command{{Checker: "test", Command: "make test", From: "Makefile", Definition: "sha256:ab"}},
	}
}

func TestSaveLoadRevoke(t *testing.T) {
	state, project := t.TempDir(), t.TempDir()
	_, err := consent.Load(state, project)
	require.ErrorIs(t, err, consent.ErrNone)

	require.NoError(t, consent.Save(state, record(project)))
	got, err := consent.Load(state, project)
	require.NoError(t, err)
	assert.Equal(t, consent.Resolve(project), got.Project)
	assert.True(t, got.Allows(consent.Command{Checker: "test", Command: "make test", From: "Makefile", Definition: "sha256:ab"}))
	assert.False(t, got.Allows(consent.Command{Checker: "test", Command: "make test", From: "Makefile", Definition: "sha256:cd"}), "another definition")
	_, ok := got.AllowedCommand("test", "make test", "Makefile")
	assert.True(t, ok)

	// The record is the user's alone (by its mode; on Windows, which has
	// none, by the profile dir's ACL).
	st, err := os.Stat(consent.Path(state, project))
	require.NoError(t, err)
	dst, err := os.Stat(filepath.Join(state, consent.Dir))
	require.NoError(t, err)
	if runtime.GOOS != "windows" {
		assert.Equal(t, os.FileMode(0o600), st.Mode().Perm())
		assert.Equal(t, os.FileMode(0o700), dst.Mode().Perm())
	}

	now := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	removed, err := consent.Revoke(state, project, "closer allow --revoke", now)
	require.NoError(t, err)
	assert.True(t, removed)
	// The revoke is kept, told apart from a record that went missing.
	_, err = consent.Load(state, project)
	require.ErrorIs(t, err, consent.ErrNone)
	require.ErrorIs(t, err, consent.ErrRevoked)
	removed, err = consent.Revoke(state, project, "closer allow --revoke", now)
	require.NoError(t, err)
	assert.False(t, removed, "revoked already")
	require.NoError(t, os.Remove(consent.Path(state, project)))
	_, err = consent.Load(state, project)
	require.ErrorIs(t, err, consent.ErrNone)
	require.NotErrorIs(t, err, consent.ErrRevoked)
	removed, err = consent.Revoke(state, project, "closer allow --revoke", now)
	require.NoError(t, err)
	assert.False(t, removed, "no record")
	_, err = os.Stat(consent.Path(state, project))
	require.ErrorIs(t, err, os.ErrNotExist, "nothing written for nothing revoked")
}

// One project reached through a link has one record.
func TestProjectThroughALink(t *testing.T) {
	state, project := t.TempDir(), t.TempDir()
	link := filepath.Join(t.TempDir(), "link")
	linktest.Symlink(t, project, link)
	require.NoError(t, consent.Save(state, record(link)))
	got, err := consent.Load(state, project)
	require.NoError(t, err)
	assert.Equal(t, consent.Resolve(project), got.Project)
}

// Nothing but the record donegate wrote grants consent: a link at its
// place, a record of another project copied there, a config whose bytes
// do not match their digest, a FIFO.
func TestLoadRefuses(t *testing.T) {
	cases := []struct {
		name  string
		plant func(t *testing.T, state, project, path string)
		want  string
	}{
		{"link", func(t *testing.T, state, project, path string) {
			other := filepath.Join(t.TempDir(), "r.json")
			require.NoError(t, consent.Save(t.TempDir(), record(project)))
			require.NoError(t, os.WriteFile(other, []byte("{}"), 0o600))
			linktest.Symlink(t, other, path)
		}, "symbolic link"},
		{"another project's record", func(t *testing.T, state, project, path string) {
			elsewhere := t.TempDir()
			require.NoError(t, consent.Save(state, record(elsewhere)))
			require.NoError(t, os.Rename(consent.Path(state, elsewhere), path))
		}, "is for"},
		{"tampered config", func(t *testing.T, state, project, path string) {
			rec := record(project)
			rec.Config.Content = `{"checkers":[{"type":"plan"}]}`
			require.NoError(t, consent.Save(state, rec))
		}, "does not match its digest"},
		{"fifo", func(t *testing.T, state, project, path string) {
			fifotest.Make(t, path)
		}, "not a regular file"},
		{"garbage", func(t *testing.T, state, project, path string) {
			require.NoError(t, os.WriteFile(path, []byte("{\"version\":"), 0o600))
		}, "consent record"},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			state, project := t.TempDir(), t.TempDir()
			path := consent.Path(state, project)
			require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o700))
			tt.plant(t, state, project, path)
			done := make(chan error, 1)
			go func() { _, err := consent.Load(state, project); done <- err }()
			select {
			case err := <-done:
				require.Error(t, err)
				assert.NotErrorIs(t, err, consent.ErrNone)
				assert.Contains(t, err.Error(), tt.want)
			case <-time.After(10 * time.Second):
				t.Fatal("Load blocked")
			}
		})
	}
}

// Saving over a link at the record's place replaces the link, and never
// writes what it points to.
func TestSaveReplacesALink(t *testing.T) {
	state, project := t.TempDir(), t.TempDir()
	target := filepath.Join(t.TempDir(), "victim")
	require.NoError(t, os.WriteFile(target, []byte("keep"), 0o600))
	path := consent.Path(state, project)
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o700))
	linktest.Symlink(t, target, path)
	require.NoError(t, consent.Save(state, record(project)))
	data, err := os.ReadFile(target)
	require.NoError(t, err)
	assert.Equal(t, "keep", string(data))
	_, err = consent.Load(state, project)
	require.NoError(t, err)
}
