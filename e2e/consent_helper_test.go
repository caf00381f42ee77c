//go:build e2e && !windows

package e2e

import (
	"errors"
	"testing"
	"time"

	"github.com/donegate/donegate/config"
	"github.com/donegate/donegate/internal/gate"
)

// allowProject gives the person's consent for the project in dir, as
// closer allow does, before a client runs there: the scenarios are about
// holding the agent in a project its person set up. A config that does
// not load cannot be allowed (closer allow refuses it), and the scenario
// then sees the hooks' answer to a broken config, as before consent.
func allowProject(t *testing.T, stateDir, dir string) {
	t.Helper()
	_, err := gate.Allow(stateDir, dir, config.Lookup{ProjectDir: dir}, "e2e", time.Now())
	var ce *config.Error
	switch {
	case errors.As(err, &ce):
		t.Logf("not allowed: %v", err)
	case err != nil:
		t.Fatalf("allowing %s: %v", dir, err)
	}
}
