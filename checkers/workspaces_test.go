package checkers_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/checkers"
	"github.com/donegate/donegate/hookio"
)

// A workspace's test check keys its packages' results on the run's shared
// look at the tree, the one git-clean read before it, and looks again only
// after each package's run (which may write files), a look the rest of
// the run shares: three git statuses for git-clean and two packages. It
// once took statuses of its own, besides the shared ones: five. A fake
// npm stands for the packages' tests.
func TestWorkspaceTestSharesTheLookAtTheTree(t *testing.T) {
	needSh(t)
	dir := gitRepo(t, map[string]string{
		"package.json":            `{"private":true,"workspaces":["packages/*"],"scripts":{"test":"npm test --workspaces"}}`,
		"packages/a/package.json": `{"name":"a","scripts":{"test":"true"}}`,
		"packages/b/package.json": `{"name":"b","scripts":{"test":"true"}}`,
	})
	bin := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(bin, "npm"), []byte("#!/bin/sh\nexit 0\n"), 0o755))
	log := gitLog(t)
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))

	chain := checkers.Composite{Members: []checkers.Member{
		{Label: "git-clean", Checker: typedChecker(t, "git-clean", &checkers.GitCleanOptions{})},
		{Label: "test", Checker: checkers.Test{Cache: true}},
	}}
	c := &checkers.Context{Event: &hookio.Event{SessionID: "s"}, ProjectDir: dir, CacheDir: t.TempDir(), Budget: time.Minute}
	r, err := chain.Check(context.Background(), c)
	require.NoError(t, err)
	require.True(t, r.Complete, r.Feedback)
	require.Contains(t, r.Feedback, "passed, package by package: ran a, b")
	var status []string
	for _, call := range gitCalls(t, log) {
		if strings.Contains(call, " status ") {
			status = append(status, call)
		}
	}
	// Three, or two where the tree stood still long enough for the last
	// look to be answered from its snapshot without git (a loaded
	// machine); never more.
	assert.LessOrEqual(t, len(status), 3, status)
	assert.GreaterOrEqual(t, len(status), 2, status)
}
