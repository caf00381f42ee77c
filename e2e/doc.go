// Package e2e holds the end-to-end tests against the real Claude Code CLI,
// pinned by scripts/install-claude (npm), which drives the real hook
// binaries against a scripted Messages API on 127.0.0.1 (internal/fakeapi);
// copilot_test.go does the same with the real GitHub Copilot CLI
// (scripts/install-copilot, DONEGATE_COPILOT), in its BYOK mode against
// the same stand-in.
//
// They are behind the e2e build tag, as gh's acceptance tests and
// lefthook's integration tests are, so that `go test ./...` stays
// hermetic: no npm, no network, no two minutes of real-client runs. `make
// test` (what CI runs) passes -tags e2e, installs the CLI and sets
// DONEGATE_CLAUDE. To run some alone:
//
//	DONEGATE_CLAUDE=$(scripts/install-claude | tail -n 1) go test -tags e2e -count=1 -run TestName ./e2e/
package e2e
