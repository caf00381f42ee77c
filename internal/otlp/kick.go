package otlp

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"

	"github.com/donegate/donegate/internal/filelock"
	"github.com/donegate/donegate/internal/paths"
	"github.com/donegate/donegate/internal/regular"
)

// LockFileName is the exporter's lock in the state dir: held by the one
// exporter that runs, so that the hooks start none beside it and no two
// send the same decisions.
const LockFileName = "export.lock"

// TryLock takes the exporter's lock in stateDir; release gives it back.
// ok is false while another exporter holds it.
func TryLock(stateDir string) (release func(), ok bool, err error) {
	f, err := regular.OpenFile(filepath.Join(stateDir, LockFileName), os.O_RDWR|os.O_CREATE|regular.NoFollow, 0o600)
	if err != nil {
		return nil, false, fmt.Errorf("export lock: %w", err)
	}
	got, err := filelock.TryLock(f)
	if err != nil || !got {
		f.Close()
		if err != nil {
			return nil, false, fmt.Errorf("export lock: %w", err)
		}
		return nil, false, nil
	}
	return func() { f.Close() }, true, nil
}

// ExportArgs are the arguments the hooks start closer with.
var ExportArgs = []string{"export", "--background"}

// Kick starts the exporter when the export is on and none runs: closer,
// from the hook's own dir, as `closer export --background`, detached and
// with the hook's environment (environ, less the variables the hooks
// ignore) and state dir. It waits for nothing: what the hook pays is a
// lock tried, and a process started when no exporter is running (one
// lingers a while after its last send, so a run of stops starts one).
// An error says why decisions are not being sent; they stay in the log.
func Kick(stateDir string, getenv paths.Getenv, environ func() []string) error {
	if _, on, err := Resolve(getenv); err != nil || !on {
		return err
	}
	release, free, err := TryLock(stateDir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil // no state dir: nothing was logged
		}
		return err
	}
	if !free {
		return nil // the running exporter sends it
	}
	release()
	closer, err := Closer()
	if err != nil {
		return err
	}
	env := append(environ(), "DONEGATE_STATE_DIR="+stateDir)
	return start(closer, append([]string{closer}, ExportArgs...), env)
}

// Closer is the closer beside the running hook.
func Closer() (string, error) {
	self, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("export: %w", err)
	}
	return CloserBeside(self)
}

// CloserBeside is the closer in the dir of the hook binary at hook, which
// the hook starts the exporter with; an error says it is missing.
func CloserBeside(hook string) (string, error) {
	name := "closer"
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	path := filepath.Join(filepath.Dir(hook), name)
	if st, err := os.Stat(path); err != nil || !st.Mode().IsRegular() {
		return "", fmt.Errorf("export: no %s beside %s to send the decisions with; they are kept in the decision log until `closer export` runs", name, hook)
	}
	return path, nil
}

// start starts argv detached: no stdio of the hook's (the host waits for
// those to close), a session of its own, not waited for.
func start(path string, argv, env []string) error {
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	defer null.Close()
	p, err := os.StartProcess(path, argv, &os.ProcAttr{Env: env, Files: []*os.File{null, null, null}, Sys: detached()})
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	return p.Release()
}
