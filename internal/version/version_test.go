package version

import (
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestStampedVersionWins(t *testing.T) {
	old := Version
	t.Cleanup(func() { Version = old })
	Version = "1.2.3"
	assert.Equal(t, "1.2.3", String())
}

func TestUnstampedFallsBackToBuildInfo(t *testing.T) {
	old := Version
	t.Cleanup(func() { Version = old })
	Version = ""
	bi, ok := debug.ReadBuildInfo()
	require.True(t, ok)
	assert.Equal(t, fromBuildInfo(bi), String())

	tests := []struct{ name, module, want string }{
		{"release tag", "v1.4.0", "v1.4.0"},
		{"pseudo-version", "v0.0.0-20261123155900-22142fa0b1c2+dirty", "v0.0.0-20261123155900-22142fa0b1c2+dirty"},
		{"devel", "(devel)", "devel"},
		{"empty", "", "devel"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bi := &debug.BuildInfo{Main: debug.Module{Path: "github.com/donegate/donegate", Version: tt.module}}
			assert.Equal(t, tt.want, fromBuildInfo(bi))
		})
	}
}
