// Package e2e holds the end-to-end tests against the real Claude Code CLI,
// pinned by scripts/install-claude (npm), which drives the real hook
// binaries against a scripted Messages API on 127.0.0.1 (internal/testsupport/fakeapi);
// copilot_test.go does the same with the real GitHub Copilot CLI
// (scripts/install-copilot, DONEGATE_COPILOT), in its BYOK mode against
// the same stand-in.
//
// They are behind the e2e build tag, as gh's acceptance tests and
// lefthook's integration tests are, so that `go test ./...` stays
// hermetic: no npm, no network, no two minutes of real-client runs. `make
// test` (what CI runs) passes -tags e2e, installs the CLI and sets
// DONEGATE_CLAUDE.
//
// Each test runs beside the others (t.Parallel, at most GOMAXPROCS at a
// time; TestEveryTestRunsInParallel keeps it so): a scenario mostly waits
// on a real client, whose start is a second or more of Node.js, and run
// one after another they took 421 s on the 2-core CI machine kind, side by
// side 192 s. The Windows ones (windows_test.go) are the exception: run
// side by side, Wine programs started from a stopped wineserver hung until
// their two-minute bound (two runs in five, measured), so they run alone,
// before the others start. To run some alone:
//
//	DONEGATE_CLAUDE=$(scripts/install-claude | tail -n 1) go test -tags e2e -count=1 -run TestName ./e2e/
package e2e
