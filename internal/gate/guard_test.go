package gate

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestCloserPersonsCommand: closer's person commands are found where a
// shell would run them, and not in another program's arguments.
func TestCloserPersonsCommand(t *testing.T) {
	for cmd, want := range map[string]string{
		"closer release":                                "release",
		"/usr/local/bin/closer allow --dir .":           "allow",
		"closer --json release":                         "release",
		"cd x && closer init --force":                   "init",
		"true; env -u CLAUDECODE closer allow --revoke": "allow",
		"env -i HOME=/h PATH=/bin closer release":       "release",
		"X=1 sudo closer release":                       "release",
		"echo $(closer release)":                        "release",
		"echo `closer allow`":                           "allow",
		"(closer release)":                              "release",
		"closer.exe release":                            "release",
		"closer check":                                  "",
		"closer explain --last":                         "",
		`git commit -m "closer release notes"`:          "",
		"grep -n 'closer allow' docs/closer.md":         "",
		"go test ./internal/closer -run Release":        "",
		"echo closer release":                           "",
		"closer log --json | grep release":              "",
	} {
		assert.Equal(t, want, closerPersonsCommand(cmd), cmd)
	}
}
