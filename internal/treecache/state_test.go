package treecache_test

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/internal/testsupport/fifotest"
	"github.com/donegate/donegate/internal/testsupport/linktest"
	"github.com/donegate/donegate/internal/treecache"
)

// gitc runs git in dir with an identity and the file protocol allowed (for
// local submodules), whatever the user's global config says.
func gitc(t testing.TB, dir string, args ...string) {
	t.Helper()
	run(t, dir, append([]string{"git", "-c", "user.email=a@b", "-c", "user.name=n",
		"-c", "protocol.file.allow=always", "-c", "init.defaultBranch=main"}, args...)...)
}

func needGit(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
}

// repo makes a git repository at dir with one commit of the given files.
func repo(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(dir, 0o755))
	gitc(t, dir, "init", "-q")
	for name, content := range files {
		write(t, dir, name, content)
	}
	gitc(t, dir, "add", "-A")
	gitc(t, dir, "commit", "-q", "--allow-empty", "-m", "init")
}

func chmod(t *testing.T, path string, mode os.FileMode) {
	t.Helper()
	require.NoError(t, os.Chmod(path, mode))
}

// TestStateSeesEveryKindOfChange makes, for each kind of change a
// command's result can depend on, a tree and then that change, and
// requires the state to differ. Each case was seen to fail on the code
// before issue 10 (defect 2), except "symlink retargeted", which that code
// already covered and which stays here as the record of the kind.
func TestStateSeesEveryKindOfChange(t *testing.T) {
	needGit(t)
	tests := []struct {
		name   string
		setup  func(t *testing.T, dir string) // dir is a committed repository
		change func(t *testing.T, dir string)
	}{
		{
			// The reported case: exit 126 "Permission denied", then chmod +x.
			name:   "chmod +x of an untracked file",
			setup:  func(t *testing.T, dir string) { write(t, dir, "check.sh", "exit 0\n") },
			change: func(t *testing.T, dir string) { chmod(t, filepath.Join(dir, "check.sh"), 0o755) },
		},
		{
			name:   "chmod -w of an untracked file (any permission bit)",
			setup:  func(t *testing.T, dir string) { write(t, dir, "data.txt", "x\n") },
			change: func(t *testing.T, dir string) { chmod(t, filepath.Join(dir, "data.txt"), 0o444) },
		},
		{
			name:   "chmod +x of an edited tracked file",
			setup:  func(t *testing.T, dir string) { write(t, dir, "tracked.sh", "exit 1\n") },
			change: func(t *testing.T, dir string) { chmod(t, filepath.Join(dir, "tracked.sh"), 0o755) },
		},
		{
			// git status hides mode changes when core.fileMode is false.
			name:   "chmod +x of a clean tracked file with core.fileMode=false",
			setup:  func(t *testing.T, dir string) { gitc(t, dir, "config", "core.fileMode", "false") },
			change: func(t *testing.T, dir string) { chmod(t, filepath.Join(dir, "tracked.sh"), 0o755) },
		},
		{
			name:   "symlink retargeted",
			setup:  func(t *testing.T, dir string) { linktest.Symlink(t, "a", filepath.Join(dir, "link")) },
			change: func(t *testing.T, dir string) { relink(t, "b", filepath.Join(dir, "link")) },
		},
		{
			name:  "symlink replaced by a file holding the old fingerprint's text",
			setup: func(t *testing.T, dir string) { linktest.Symlink(t, "x", filepath.Join(dir, "link")) },
			change: func(t *testing.T, dir string) {
				require.NoError(t, os.Remove(filepath.Join(dir, "link")))
				write(t, dir, "link", "link:x")
			},
		},
		{
			// Contents are not concatenated: a NUL byte must not let two
			// different pairs of files hash alike.
			name: "a NUL moved from one untracked file to the next",
			setup: func(t *testing.T, dir string) {
				write(t, dir, "u1", "a\x00b")
				write(t, dir, "u2", "c")
			},
			change: func(t *testing.T, dir string) {
				write(t, dir, "u1", "a")
				write(t, dir, "u2", "b\x00c")
			},
		},
		{
			name: "edit inside an untracked nested repository",
			setup: func(t *testing.T, dir string) {
				repo(t, filepath.Join(dir, "nested"), map[string]string{"n.go": "package n\n"})
			},
			change: func(t *testing.T, dir string) { write(t, dir, "nested/n.go", "package n // edited\n") },
		},
		{
			name: "second edit inside an untracked nested repository",
			setup: func(t *testing.T, dir string) {
				repo(t, filepath.Join(dir, "nested"), map[string]string{"n.go": "package n\n"})
			},
			change: func(t *testing.T, dir string) {
				write(t, dir, "nested/n.go", "package n // one\n")
				before := state(t, dir)
				write(t, dir, "nested/n.go", "package n // two\n")
				require.NotEqual(t, before, state(t, dir))
			},
		},
		{
			name: "commit inside an untracked nested repository",
			setup: func(t *testing.T, dir string) {
				repo(t, filepath.Join(dir, "nested"), map[string]string{"n.go": "package n\n"})
			},
			change: func(t *testing.T, dir string) {
				gitc(t, filepath.Join(dir, "nested"), "commit", "-q", "--allow-empty", "-m", "two")
			},
		},
		{
			name: "edit two nested repositories deep",
			setup: func(t *testing.T, dir string) {
				repo(t, filepath.Join(dir, "nested"), nil)
				repo(t, filepath.Join(dir, "nested", "inner"), map[string]string{"i.go": "package i\n"})
			},
			change: func(t *testing.T, dir string) { write(t, dir, "nested/inner/i.go", "package i // edited\n") },
		},
		{
			// The submodule is already dirty, so the outer status line
			// (" M sub") stays the same.
			name: "second edit inside a dirty submodule",
			setup: func(t *testing.T, dir string) {
				addSubmodule(t, dir)
				write(t, dir, "sub/s.go", "package s // one\n")
			},
			change: func(t *testing.T, dir string) { write(t, dir, "sub/s.go", "package s // two\n") },
		},
		{
			name: "new untracked file inside a dirty submodule",
			setup: func(t *testing.T, dir string) {
				addSubmodule(t, dir)
				write(t, dir, "sub/s.go", "package s // one\n")
			},
			change: func(t *testing.T, dir string) { write(t, dir, "sub/new.go", "package s\n") },
		},
		{
			name: "second commit inside a submodule",
			setup: func(t *testing.T, dir string) {
				addSubmodule(t, dir)
				gitc(t, filepath.Join(dir, "sub"), "commit", "-q", "--allow-empty", "-m", "one")
			},
			change: func(t *testing.T, dir string) {
				gitc(t, filepath.Join(dir, "sub"), "commit", "-q", "--allow-empty", "-m", "two")
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			repo(t, dir, map[string]string{"tracked.sh": "exit 0\n", "a.go": "package a\n"})
			tt.setup(t, dir)
			before := state(t, dir)
			require.Equal(t, before, state(t, dir), "the state of an unchanged tree is stable")
			tt.change(t, dir)
			assert.NotEqual(t, before, state(t, dir))
		})
	}
}

func relink(t *testing.T, target, path string) {
	t.Helper()
	require.NoError(t, os.Remove(path))
	linktest.Symlink(t, target, path)
}

// addSubmodule adds, at dir/sub, a submodule cloned from a repository
// beside dir, and commits it.
func addSubmodule(t *testing.T, dir string) {
	t.Helper()
	src := filepath.Join(t.TempDir(), "src")
	repo(t, src, map[string]string{"s.go": "package s\n"})
	gitc(t, dir, "submodule", "add", "-q", src, "sub")
	gitc(t, dir, "commit", "-q", "-m", "add sub")
}

// A project dir whose name ends in a space was read as the sibling without
// it (the toplevel git printed was trimmed of all white space).
func TestStateOfADirEndingInASpace(t *testing.T) {
	needGit(t)
	base := t.TempDir()
	repo(t, filepath.Join(base, "p"), map[string]string{"a.go": "package a\n"})
	spaced := filepath.Join(base, "p ")
	repo(t, spaced, map[string]string{"a.go": "package a\n"})
	before := state(t, spaced)
	write(t, spaced, "a.go", "package a // edited\n")
	assert.NotEqual(t, before, state(t, spaced), "a change in %q", spaced)
	write(t, filepath.Join(base, "p"), "b.go", "package a\n")
	assert.Equal(t, state(t, spaced), state(t, spaced))
}

// A FIFO, a socket or a device among the files git lists is fingerprinted
// by its kind and mode, never opened: open(2) of a FIFO blocks until a
// writer comes, and the hook would hang until its host killed it. git
// lists no untracked FIFO, but does list a tracked file that became one.
func TestStateNeverOpensSpecialFiles(t *testing.T) {
	needGit(t)
	dir := t.TempDir()
	repo(t, dir, map[string]string{"a.go": "package a\n", "fifo": "was a file\n", "sock": "was a file\n"})
	require.NoError(t, os.Remove(filepath.Join(dir, "fifo")))
	fifotest.Make(t, filepath.Join(dir, "fifo"))
	require.NoError(t, os.Remove(filepath.Join(dir, "sock")))
	l, err := net.Listen("unix", filepath.Join(dir, "sock"))
	require.NoError(t, err)
	t.Cleanup(func() { l.Close() })
	// A link to a device counts by its target; it is not followed.
	linktest.Symlink(t, "/dev/zero", filepath.Join(dir, "zero"))

	type answer struct {
		s   string
		err error
	}
	got := make(chan answer, 1)
	go func() {
		s, err := treecache.State(context.Background(), dir)
		got <- answer{s, err}
	}()
	var before string
	select {
	case a := <-got:
		require.NoError(t, a.err)
		before = a.s
	case <-time.After(time.Minute): // a blocked open never ends
		t.Fatal("State hung on a FIFO")
	}
	chmod(t, filepath.Join(dir, "fifo"), 0o600)
	assert.NotEqual(t, before, state(t, dir), "a FIFO's mode counts")
}

// TestStateHonoursTheDeadline: fingerprinting runs under the hook's
// budget. Before issue 10 (defect 6) an expired context made git fail, the
// tree was then taken for a non-git one and walked, and a short deadline
// did not stop the hashing of the files git listed.
func TestStateHonoursTheDeadline(t *testing.T) {
	needGit(t)
	dir := t.TempDir()
	repo(t, dir, map[string]string{"a.go": "package a\n"})
	// 300 untracked files of 1 MiB each, sparse so they cost nothing to
	// make, which all must be read and hashed: a few hundred ms of work.
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "big"), 0o755))
	for i := range 300 {
		f, err := os.Create(filepath.Join(dir, "big", fmt.Sprintf("f%03d", i)))
		require.NoError(t, err)
		require.NoError(t, f.Truncate(1<<20))
		require.NoError(t, f.Close())
	}

	t.Run("deadline already passed", func(t *testing.T) {
		ctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
		defer cancel()
		_, err := treecache.State(ctx, dir)
		require.ErrorIs(t, err, context.DeadlineExceeded)
	})
	t.Run("the context ends while files are hashed", func(t *testing.T) {
		// Ended once hashing has begun, State hashes no more than the
		// file at hand: far from the 300 MiB the whole tree holds, even
		// when a loaded machine is slow to end it.
		const tree = 300 << 20
		before := treecache.Hashed()
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		go func() {
			for treecache.Hashed() == before && ctx.Err() == nil {
				time.Sleep(time.Millisecond)
			}
			cancel()
		}()
		_, err := treecache.State(ctx, dir)
		require.ErrorIs(t, err, context.Canceled)
		read := treecache.Hashed() - before
		assert.Positive(t, read, "hashing began")
		assert.Less(t, read, int64(tree/2), "State went on hashing after its context ended")
	})
	t.Run("outside git too", func(t *testing.T) {
		plain := t.TempDir()
		write(t, plain, "a.txt", "1")
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, err := treecache.State(ctx, plain)
		require.ErrorIs(t, err, context.Canceled)
	})
}

// sparse makes an untracked file of size bytes that costs nothing to write.
func sparse(t testing.TB, path string, size int64) {
	t.Helper()
	f, err := os.Create(path)
	require.NoError(t, err)
	require.NoError(t, f.Truncate(size))
	require.NoError(t, f.Close())
}

// Files up to BigFile count by their content, larger ones by their
// metadata: a large file is never read (issue 10, defect 6: an 8 GB file
// took 22.8 s to hash at every stop).
func TestStateOfLargeFiles(t *testing.T) {
	needGit(t)
	treecache.PretendLater(t, time.Hour)
	tests := []struct {
		name    string
		size    int64
		change  func(t *testing.T, path string)
		changes bool
	}{
		{"small, touched", treecache.BigFile, touch, false},
		{"small, same size rewritten", treecache.BigFile, rewrite, true},
		{"large, nothing", treecache.BigFile + 1, func(*testing.T, string) {}, false},
		// The price of not reading: a touch counts as a change.
		{"large, touched", treecache.BigFile + 1, touch, true},
		{"large, same size rewritten, old mtime put back", treecache.BigFile + 1, func(t *testing.T, path string) {
			st, err := os.Stat(path)
			require.NoError(t, err)
			rewrite(t, path)
			require.NoError(t, os.Chtimes(path, st.ModTime(), st.ModTime()))
		}, true},
		{"large, chmod", treecache.BigFile + 1, func(t *testing.T, path string) { chmod(t, path, 0o755) }, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			repo(t, dir, nil)
			path := filepath.Join(dir, "data.bin")
			sparse(t, path, tt.size)
			before := state(t, dir)
			tt.change(t, path)
			if tt.changes {
				assert.NotEqual(t, before, state(t, dir))
			} else {
				assert.Equal(t, before, state(t, dir))
			}
		})
	}
}

// touch moves a file's modification time without changing its content.
func touch(t *testing.T, path string) {
	t.Helper()
	later := time.Now().Add(time.Minute)
	require.NoError(t, os.Chtimes(path, later, later))
}

// rewrite changes a byte in the middle of a file, keeping its size, after
// a pause the file system's clock can see.
func rewrite(t *testing.T, path string) {
	t.Helper()
	time.Sleep(20 * time.Millisecond)
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteAt([]byte{1}, 1000)
	require.NoError(t, err)
	require.NoError(t, f.Close())
}

// A huge untracked file costs one stat: 64 GiB (sparse) takes minutes
// to read.
func TestStateDoesNotReadAHugeFile(t *testing.T) {
	needGit(t)
	treecache.PretendLater(t, time.Hour)
	dir := t.TempDir()
	repo(t, dir, nil)
	sparse(t, filepath.Join(dir, "huge.bin"), 64<<30)
	before := treecache.Hashed()
	_, err := treecache.State(context.Background(), dir)
	require.NoError(t, err)
	// The code before issue 10 read it all: 194 s here.
	assert.Less(t, treecache.Hashed()-before, int64(treecache.BigFile), "the huge file was read")
}

// A large file counts by its metadata, which a write in the same tick of
// the file system's clock could leave as it is: until it has been still
// for a moment, the tree is not fingerprinted.
func TestStateRefusesAnUnsettledLargeFile(t *testing.T) {
	needGit(t)
	dir := t.TempDir()
	repo(t, dir, nil)
	sparse(t, filepath.Join(dir, "data.bin"), treecache.BigFile+1)
	_, err := treecache.State(context.Background(), dir)
	require.ErrorIs(t, err, treecache.ErrUnsettled)
	treecache.PretendLater(t, 3*time.Second)
	_, err = treecache.State(context.Background(), dir)
	require.NoError(t, err)
}

func TestStateBoundsNestedRepositories(t *testing.T) {
	needGit(t)
	dir := t.TempDir()
	repo(t, dir, nil)
	nested := dir
	for i := range 5 {
		nested = filepath.Join(nested, fmt.Sprintf("n%d", i))
		repo(t, nested, nil)
		if i == 3 {
			state(t, dir) // four deep is fine
		}
	}
	_, err := treecache.State(context.Background(), dir)
	require.ErrorIs(t, err, treecache.ErrTooLarge)
}

// A core.fsmonitor hook in the repository's own config (which an agent
// can write) is never run by donegate's git: it would run at every stop,
// outside the host's sandbox.
func TestRepositoryFsmonitorDoesNotRun(t *testing.T) {
	needGit(t)
	dir := filepath.Join(t.TempDir(), "r")
	repo(t, dir, map[string]string{"a.txt": "a\n"})
	marker := filepath.Join(t.TempDir(), "ran")
	hook := filepath.Join(t.TempDir(), "fsmonitor.sh")
	require.NoError(t, os.WriteFile(hook, []byte("#!/bin/sh\ntouch "+marker+"\nexit 1\n"), 0o755))
	gitc(t, dir, "config", "core.fsmonitor", hook)
	write(t, dir, "a.txt", "b\n")
	_, err := treecache.ReadStatus(context.Background(), dir)
	require.NoError(t, err)
	_, err = treecache.Git(context.Background(), dir, "diff", "--stat")
	require.NoError(t, err)
	assert.NoFileExists(t, marker)
	// The hook does run for a git that is not donegate's.
	gitc(t, dir, "status")
	assert.FileExists(t, marker, "the test's own hook must work, or it proves nothing")
}
