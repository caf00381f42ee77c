package checkers

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/donegate/donegate/internal/treecache"
)

// A repository that already has a build graph knows better than
// donegate what a change affects, and where results exist already: its
// local cache, and a team's remote cache. Where the root test script runs
// the workspace's tests through Turborepo (`turbo run test`, `turbo
// test`; a turbo.json beside it) or Nx (`nx run-many -t test`; an
// nx.json), and the hooks saw the session begin at a commit, the test
// check asks that tool for what changed since that commit and the
// packages that depend on it:
//
//   - Turborepo: `npm test -- '--filter=...[START]'`, the project's own
//     script with turbo's filter of the packages changed since START
//     (committed, written or untracked) and their dependents;
//   - Nx: `npm exec --no -- nx affected -t test --base=START`, with the
//     root script's other flags, the installed nx (never fetched).
//
// Both read their own caches, so a package whose inputs a teammate's CI
// already tested is not run again where the remote cache is set up. A
// root script that filters already (--filter, --affected, --projects,
// --exclude), or holds quotes, runs as written, as does a session whose
// start was not seen (the tool's cache then serves the whole run).
// Consent for `npm test` covers these commands: the same tool, on the
// same config; turbo.json and nx.json are part of what consent is given
// for (see testDefinition).

// graphEnv is what the build system tool is run with at a stop, and
// what removes what it made: its local cache is the agent's to write (in
// the project: .turbo/cache, .nx/cache), so the stop reads none of it —
// a forged entry would replay a pass of a tree that fails — while the
// team's remote cache, which the agent cannot write, still serves.
// Turborepo: TURBO_CACHE=local:w,remote:rw (the local cache written, not
// read). Nx, which has no such switch: its cache dir a new empty one, gone
// after the run (NX_CACHE_DIRECTORY); where none can be made, no cache at
// all (NX_SKIP_NX_CACHE).
func graphEnv(tool string) (env []string, cleanup func()) {
	switch tool {
	case "Turborepo":
		return []string{"TURBO_CACHE=local:w,remote:rw"}, func() {}
	case "Nx":
		dir, err := os.MkdirTemp("", "donegate-nx-cache-")
		if err != nil {
			return []string{"NX_SKIP_NX_CACHE=true"}, func() {}
		}
		return []string{"NX_CACHE_DIRECTORY=" + dir}, func() { _ = os.RemoveAll(dir) }
	}
	return nil, func() {}
}

// graphCommand returns the command that tests what changed in the
// workspace at dir since the commit base through its build graph, and
// the tool's name; ok is false where the root test script runs none.
func graphCommand(dir, base string) (command, tool string, ok bool) {
	if base == "" || base == treecache.NoCommit || strings.ContainsAny(base, " '\"\\$`") {
		return "", "", false
	}
	data, err := readManifest(dir, "package.json")
	if err != nil || data == nil || !gjson.ValidBytes(data) {
		return "", "", false
	}
	script := gjson.GetBytes(data, "scripts.test").Str
	if strings.ContainsAny(script, "'\"\\$`;&|<>()") {
		return "", "", false
	}
	words := strings.Fields(script)
	narrows := func(prefixes ...string) bool {
		return slices.ContainsFunc(words, func(w string) bool {
			for _, p := range prefixes {
				if w == p || strings.HasPrefix(w, p+"=") {
					return true
				}
			}
			return false
		})
	}
	switch {
	case len(words) >= 2 && words[0] == "turbo" && (words[1] == "test" || len(words) >= 3 && words[1] == "run" && words[2] == "test"):
		if ok, _ := file("turbo.json").present(dir); !ok || narrows("--filter", "-F", "--affected", "--since", "--scope") {
			return "", "", false
		}
		return fmt.Sprintf("npm test -- '--filter=...[%s]'", base), "Turborepo", true
	case len(words) >= 2 && words[0] == "nx" && words[1] == "run-many" && nxTargetsTest(words[2:]):
		if ok, _ := file("nx.json").present(dir); !ok || narrows("--projects", "-p", "--exclude", "--base", "--head", "--files") {
			return "", "", false
		}
		rest := slices.DeleteFunc(slices.Clone(words[2:]), func(w string) bool { return w == "--all" })
		return fmt.Sprintf("npm exec --no -- nx affected %s --base=%s", strings.Join(rest, " "), base), "Nx", true
	}
	return "", "", false
}

// nxTargetsTest reports whether nx run-many's flags name the test
// target, and it alone: -t test, --target test, --targets=test.
func nxTargetsTest(flags []string) bool {
	for i, f := range flags {
		name, value, has := strings.Cut(f, "=")
		switch name {
		case "-t", "--target", "--targets":
			if !has && i+1 < len(flags) {
				value = flags[i+1]
			}
			return value == "test"
		}
	}
	return false
}
