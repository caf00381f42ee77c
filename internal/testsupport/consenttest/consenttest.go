// Package consenttest gives tests the person's consent for a project, as
// `closer allow` gives it: every test that runs a hook on a project whose
// commands must run allows the project first, with Allow, after writing
// its config and files and before the hook runs. It is for tests only.
package consenttest

import (
	"testing"
	"time"

	"github.com/donegate/donegate/config"
	"github.com/donegate/donegate/internal/gate"
)

// Allow records consent for the project in dir, under stateDir, for the
// config found there as the hooks find it (.claude/donegate.json, then
// .donegate.json, then the embedded default) and the commands detected
// from its files. configPath, when given, is the config the hook is run
// with instead (--config or DONEGATE_CONFIG).
func Allow(t testing.TB, stateDir, dir string, configPath ...string) {
	t.Helper()
	l := config.Lookup{ProjectDir: dir}
	if len(configPath) > 0 {
		l.Flag = configPath[0]
	}
	if _, err := gate.Allow(stateDir, dir, l, "test", time.Now()); err != nil {
		t.Fatalf("allowing %s: %v", dir, err)
	}
}
