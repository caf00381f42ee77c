//go:build !windows

// The end-to-end tests of the Linux binaries (sh, FIFOs, process groups);
// the Windows binaries have their own, under Wine (e2e/windows_test.go).

package donegate_test

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEveryPackageTestedOnWindows: the Makefile's WINDOWS_TEST_PKGS, the
// packages whose tests make test runs under Wine, are every package with
// tests but this one (whose tests drive the Linux build), so that a new
// package is tested on Windows too.
func TestEveryPackageTestedOnWindows(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", "{{if or .TestGoFiles .XTestGoFiles}}{{.ImportPath}}{{end}}", "./...").Output()
	require.NoError(t, err)
	const module = "github.com/donegate/donegate"
	var want []string
	for _, p := range strings.Fields(string(out)) {
		if p != module {
			want = append(want, "."+strings.TrimPrefix(p, module))
		}
	}
	makefile, err := os.ReadFile("Makefile")
	require.NoError(t, err)
	m := regexp.MustCompile(`(?m)^WINDOWS_TEST_PKGS := ((?:.*\\\n)*.*)$`).FindSubmatch(makefile)
	require.NotNil(t, m, "WINDOWS_TEST_PKGS in the Makefile")
	listed := strings.Fields(strings.ReplaceAll(string(m[1]), "\\", " "))
	assert.ElementsMatch(t, want, listed)
}
