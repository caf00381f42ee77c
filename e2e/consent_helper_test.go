//go:build e2e && !windows

package e2e

import (
	"os"
	"strings"
	"testing"
	"time"
)

// allowProject gives the person's consent for the project in dir, as
// the person does before a client runs there: `closer allow` with the
// session's HOME, whose user config files (~/.npmrc, ~/.bazelrc) are
// part of what is allowed, as the hooks then read them with the same
// HOME. The scenarios are about holding the agent in a project its
// person set up. A config that does not load cannot be allowed (closer
// allow refuses it), and the scenario then sees the hooks' answer to a
// broken config, as before consent.
func allowProject(t *testing.T, home, stateDir, dir string) {
	t.Helper()
	r := runClient(t, time.Minute, dir, []string{"HOME=" + home, "DONEGATE_STATE_DIR=" + stateDir, "PATH=" + os.Getenv("PATH")},
		closerBinary(t), "allow", "--dir", dir)
	switch {
	case r.ExitCode == 0:
	case strings.Contains(r.Stderr, "config"):
		t.Logf("not allowed: %s", r.Stderr)
	default:
		t.Fatalf("closer allow --dir %s: exit %d\nstdout: %s\nstderr: %s", dir, r.ExitCode, r.Stdout, r.Stderr)
	}
}
