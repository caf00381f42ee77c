# donegate — the README says what each target is for.
# Tools the targets need are installed, pinned, into .tools/ (git-ignored).

GO              ?= go
BIN             := bin
TOOLS           := $(CURDIR)/.tools
STATICCHECK_VER := v0.8.2
STATICCHECK     := $(TOOLS)/bin/staticcheck-$(STATICCHECK_VER)
# v2.16.0: the newest GoReleaser whose dependencies the module proxy serves
# (v2.17.0 and later need go.digitalxero.dev/go-msix, which it refuses).
GORELEASER_VER  := v2.16.0
GORELEASER      := $(TOOLS)/bin/goreleaser-$(GORELEASER_VER)
# The version make plugin stamps; release archives get GoReleaser's.
VERSION         ?= $(shell scripts/version)
# -timeout: the e2e package, every real client's scenarios two at a
# time, takes 3-5 minutes under -race on a 2-core machine, more when it is
# loaded: go test's default of 10 minutes would end it short of a failure
# of its own.
GOTEST_FLAGS    ?= -race -count=1 -timeout 30m
# The build tags of the tests that need more than Go: e2e runs the real
# Claude Code CLI (npm). `go test ./...` alone leaves them out; unit and
# lint take them in.
TEST_TAGS       := e2e
# The real clients the e2e tests drive besides Claude Code, each installed
# pinned into .tools/ by scripts/install-<name> (npm), and the variable
# that hands the tests its path. Each host adds its own lines.
E2E_CLIENTS     :=
E2E_ENV         :=
E2E_CLIENTS     += codex qwen agent-sdk
E2E_ENV         += DONEGATE_CODEX=$$(scripts/install-codex | tail -n 1)
E2E_ENV         += DONEGATE_QWEN=$$(scripts/install-qwen | tail -n 1)
E2E_ENV         += DONEGATE_AGENT_SDK=$$(scripts/install-agent-sdk | tail -n 1)
E2E_CLIENTS     += gemini
E2E_ENV         += DONEGATE_GEMINI=$$(scripts/install-gemini | tail -n 1)
E2E_CLIENTS     += opencode
E2E_ENV         += DONEGATE_OPENCODE=$$(scripts/install-opencode | tail -n 1)
E2E_CLIENTS     += kilo
E2E_ENV         += DONEGATE_KILO=$$(scripts/install-kilo | tail -n 1)
E2E_CLIENTS     += pi
E2E_ENV         += DONEGATE_PI=$$(scripts/install-pi | tail -n 1)
E2E_CLIENTS     += droid
E2E_ENV         += DONEGATE_DROID=$$(scripts/install-droid | tail -n 1)
E2E_CLIENTS     += cline
E2E_ENV         += DONEGATE_CLINE=$$(scripts/install-cline | tail -n 1)
# Amp's agent needs Amp's service: e2e/amp_test.go runs its plugin runtime.
E2E_CLIENTS     += amp
E2E_ENV         += DONEGATE_AMP=$$(scripts/install-amp | tail -n 1)
# Not clients: the package managers testdata/script/pnpm_workspace.txtar
# and yarn_workspace.txtar drive.
E2E_CLIENTS     += pnpm yarn
E2E_ENV         += DONEGATE_PNPM=$$(scripts/install-pnpm | tail -n 1)
E2E_ENV         += DONEGATE_YARN=$$(scripts/install-yarn | tail -n 1)
# Not clients: the build systems testdata/script/turbo_workspace.txtar and
# nx_workspace.txtar ask what a change affects, and Yarn 1, which
# yarn_classic_workspace.txtar drives.
E2E_CLIENTS     += turbo nx yarn-classic
E2E_ENV         += DONEGATE_YARN_CLASSIC=$$(scripts/install-yarn-classic | tail -n 1)
E2E_ENV         += DONEGATE_TURBO=$$(scripts/install-turbo | tail -n 1)
E2E_ENV         += DONEGATE_NX=$$(scripts/install-nx | tail -n 1)
# Not clients: the test runners whose reports tests_ran_jest.txtar and
# tests_ran_vitest.txtar read.
E2E_CLIENTS     += jest vitest
E2E_ENV         += DONEGATE_JEST=$$(scripts/install-jest | tail -n 1)
E2E_ENV         += DONEGATE_VITEST=$$(scripts/install-vitest | tail -n 1)
# Not a client: the OpenTelemetry Collector the export's decisions are
# sent to (e2e/export_test.go), built from the Go module proxy.
E2E_CLIENTS     += otelcol
E2E_ENV         += DONEGATE_OTELCOL=$$(scripts/install-otelcol | tail -n 1)
# Not clients: bubblewrap and socat, which Claude Code's sandbox runs the
# agent's Bash under (e2e/sandbox_test.go), tmux, the interactive CLI's
# terminal (e2e/terminal_test.go), Bazel and pytest, which
# testdata/script/bazel_workspace.txtar and tests_ran_pytest.txtar drive:
# scripts/install-debian-tools.
E2E_CLIENTS     += debian-tools
# Not a client: Wine 8 and its prefix (scripts/install-wine), which the
# Windows binaries' end-to-end tests (e2e/windows_test.go) and the
# windows target run under.
E2E_CLIENTS     += wine
E2E_ENV         += DONEGATE_WINE=$$(scripts/install-wine 2>/dev/null | tail -n 1)
# Every package with tests but the root one, whose tests drive the Linux
# build: scripts/ (bash), the txtar scenarios (sh commands), FIFOs. The
# Windows binaries' end-to-end tests are e2e/windows_test.go (in unit).
WINDOWS_TEST_PKGS := ./checkers ./config ./hookio ./internal/agentshell ./internal/cli ./internal/closer ./internal/consent \
                     ./internal/decisionlog ./internal/docgen ./internal/testsupport/fakeapi ./internal/feedback \
                     ./internal/filelock ./internal/gate ./internal/jsondepth ./internal/jsonw ./internal/judge \
                     ./internal/lastevent ./internal/limit ./internal/otlp ./internal/otlp/send ./internal/paths ./internal/proc ./internal/redact \
                     ./internal/regular ./internal/safewrite ./internal/sqlitefile ./internal/state \
                     ./internal/treecache ./internal/version ./schema ./transcript

.PHONY: all build test debian-status lint unit windows generate demo demo-claude claude copilot $(E2E_CLIENTS) tools clean fuzz bench \
        plugin plugin-validate release-snapshot release-check

all: build

# Static binaries, whatever the packages linked in use: a hook that loads
# the C library pays for it at every call (about 3 ms on the CI machine).
# -buildvcs=auto overrides a -buildvcs=false in GOFLAGS, so that --version
# names the commit (a pseudo-version, +dirty for uncommitted changes).
#
# Linked in a scratch dir, then copied into bin/ and renamed into place
# (a hook running the old binary keeps it): a binary as the Go linker
# writes it, through a shared mapping, starts slower until its pages leave
# the page cache, a copy as an install writes it does not (the ungated
# tool call 3.2 against 2.2 ms, docs/performance.md).
build:
	@tmp=$$(mktemp -d) && trap 'rm -rf "$$tmp"' EXIT && \
	CGO_ENABLED=0 $(GO) build -buildvcs=auto -o "$$tmp/" ./cmd/... && \
	mkdir -p $(BIN) && for f in "$$tmp"/*; do \
		n=$${f##*/} && cp "$$f" "$(BIN)/.$$n.new" && mv -f "$(BIN)/.$$n.new" "$(BIN)/$$n" || exit 1; \
	done

## test: everything CI runs: formatting, vet, staticcheck, tidy go.mod, unit
## and end-to-end tests with the race detector, the Windows build and its
## tests under Wine, the plugin validated by the real CLI. Where Debian's
## packages cannot be had (not Debian, no root), the tests under Wine, and
## the sandbox's and the terminal's, are skipped and a line says so at the
## start and the end; DONEGATE_REQUIRE_DEBIAN=1 (.ci/run) makes that a
## failure.
test: debian-status lint unit windows plugin-validate
	@scripts/install-wine --status
	@scripts/install-debian-tools --status

# debian-status: where Debian's packages cannot be had (Wine, bubblewrap,
# socat, tmux), a line for each saying what is skipped (make test prints
# them at its start and its end).
debian-status:
	@scripts/install-wine --status
	@scripts/install-debian-tools --status

# ./e2e/ first: go test starts the packages in the order given, and the
# e2e package, the longest, started after the root package and checkers
# made unit 338 s instead of 301 s (docs/development.md).
unit: claude copilot $(E2E_CLIENTS)
	DONEGATE_CLAUDE=$$(scripts/install-claude | tail -n 1) \
	DONEGATE_COPILOT=$$(scripts/install-copilot | tail -n 1) \
	$(E2E_ENV) \
	$(GO) test $(GOTEST_FLAGS) -tags $(TEST_TAGS) ./e2e/ ./...

# A package's tests under Wine take 1-70 s: one that hangs fails at this
# bound with every goroutine's stack (what it waited for), not at go
# test's default of 10 minutes.
WINE_TEST_TIMEOUT ?= 6m

## windows: the Windows build, vetted and statically checked for
## windows/amd64, built for windows/arm64, and WINDOWS_TEST_PKGS' tests run
## for windows/amd64 under Wine (scripts/install-wine: the go test -exec
## wrapper and the overlay its comment explains). The Windows binaries'
## end-to-end tests are in unit (e2e/windows_test.go).
windows: wine $(STATICCHECK)
	GOOS=windows GOARCH=amd64 $(GO) vet -tags $(TEST_TAGS) ./...
	GOOS=windows GOARCH=amd64 $(STATICCHECK) -tags $(TEST_TAGS) ./...
	GOOS=windows GOARCH=arm64 CGO_ENABLED=0 $(GO) build ./...
	@out=$$(scripts/install-wine 2>/dev/null); rc=$$?; \
	  if [ $$rc = 3 ]; then scripts/install-wine --status; exit $$?; fi; \
	  [ $$rc = 0 ] || { scripts/install-wine >/dev/null; exit 1; }; \
	  exec=$$(echo "$$out" | tail -n 1); \
	  echo "GOOS=windows go test -exec $$exec $(WINDOWS_TEST_PKGS)"; \
	  GOOS=windows GOARCH=amd64 $(GO) test -count=1 -timeout $(WINE_TEST_TIMEOUT) -overlay "$$(dirname "$$exec")/overlay.json" -exec "$$exec" $(WINDOWS_TEST_PKGS)

## generate: rewrite the generated files: schema/donegate.schema.json and
## the checker reference in docs/checkers.md, from the checker registry;
## docs/flags.md, from the binaries' flag sets. Offline, a second or two;
## the tests of schema and internal/docgen (part of unit) fail when a
## checked-in file is stale.
generate:
	$(GO) generate ./...

## claude: install the pinned Claude Code CLI (npm) for the end-to-end tests.
claude:
	@scripts/install-claude >/dev/null

## copilot: install the pinned GitHub Copilot CLI (npm) for the end-to-end tests.
copilot:
	@scripts/install-copilot >/dev/null

## codex, qwen, agent-sdk, opencode, kilo, pi, droid, cline, amp, pnpm, yarn, debian-tools, wine: install
## the pinned Codex CLI, Qwen Code, Claude Agent SDK, OpenCode, Kilo CLI, pi (with Node 22), Factory Droid, Cline CLI, Amp's CLI, pnpm,
## Yarn (berry and 1), Turborepo, Nx, Jest and Vitest (npm), bubblewrap, socat, tmux, Bazel and pytest (Debian), and
## Wine 8 with its test prefix, and the OpenTelemetry Collector (Go), for
## the end-to-end tests.
codex qwen agent-sdk opencode kilo pi droid cline amp pnpm yarn turbo nx yarn-classic jest vitest otelcol:
	@scripts/install-$@ >/dev/null

# Exit 3: the packages cannot be had here, which skips the tests that
# need them (see test) unless DONEGATE_REQUIRE_DEBIAN is set.
debian-tools:
	@scripts/install-debian-tools >/dev/null || { rc=$$?; [ $$rc = 3 ] && [ -z "$$DONEGATE_REQUIRE_DEBIAN" ]; }

# Exit 3: Wine cannot be had here, which skips the tests under it (see
# test) unless DONEGATE_REQUIRE_DEBIAN is set.
wine:
	@scripts/install-wine >/dev/null || { rc=$$?; [ $$rc = 3 ] && [ -z "$$DONEGATE_REQUIRE_DEBIAN" ]; }

## gemini: install the pinned Gemini CLI (npm) for the end-to-end tests.
gemini:
	@scripts/install-gemini >/dev/null

lint: $(STATICCHECK)
	@unformatted=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './.tools/*')); \
	  if [ -n "$$unformatted" ]; then echo "gofmt needed on:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet -tags $(TEST_TAGS) ./...
	@# Untagged too: go test ./... alone must build, so a test that needs
	@# the real CLI and lacks the e2e tag fails here, not on a user's machine.
	$(GO) vet ./...
	$(STATICCHECK) -tags $(TEST_TAGS) ./...
	$(GO) mod tidy -diff

$(STATICCHECK):
	@mkdir -p $(TOOLS)/bin
	GOBIN=$(TOOLS)/bin $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VER)
	mv $(TOOLS)/bin/staticcheck $@

tools: $(STATICCHECK) claude copilot $(E2E_CLIENTS)

## plugin: the Claude Code plugin in dist/plugin/: .claude-plugin/plugin.json
## (VERSION stamped), hooks/hooks.json, README.md and bin/ with the hooks'
## wrapper and this machine's binaries; `claude --plugin-dir dist/plugin`
## loads it. The release archives hold the same layout as plugin/. Beside
## it the Codex CLI plugin (dist/codex-plugin/) and the Gemini CLI
## extension (dist/gemini-extension/), each with the binaries in its bin/.
plugin:
	@scripts/build-plugin dist/plugin $(VERSION)
	@scripts/build-plugin --host codex dist/codex-plugin $(VERSION)
	@scripts/build-plugin --host gemini dist/gemini-extension $(VERSION)
	@echo "dist/plugin, dist/codex-plugin, dist/gemini-extension: donegate $(VERSION) for $$($(GO) env GOOS)/$$($(GO) env GOARCH)"

## plugin-validate: `claude plugin validate --strict` (the pinned CLI) on
## dist/plugin and on the marketplace file, .claude-plugin/marketplace.json;
## the CLI's report is printed when it fails.
plugin-validate: plugin claude
	@claude=$$(scripts/install-claude | tail -n 1); \
	  for target in dist/plugin .; do \
	    if out=$$("$$claude" plugin validate --strict "$$target" 2>&1); then \
	      echo "claude plugin validate --strict $$target: ok"; \
	    else echo "$$out"; exit 1; fi; \
	  done

## release-snapshot: the release archives and checksums in dist/release/,
## built by GoReleaser for every target from this commit, nothing published,
## then checked by scripts/check-release.
release-snapshot: $(GORELEASER)
	DONEGATE_VERSION=$(VERSION) $(GORELEASER) release --snapshot --clean --skip=publish,sign,sbom,docker,ko
	scripts/check-release dist/release

## release-check: goreleaser check (CI runs it with release-snapshot).
release-check: $(GORELEASER)
	$(GORELEASER) check

$(GORELEASER):
	@mkdir -p $(TOOLS)/bin
	GOBIN=$(TOOLS)/bin $(GO) install github.com/goreleaser/goreleaser/v2@$(GORELEASER_VER)
	mv $(TOOLS)/bin/goreleaser $@

## demo: build the hooks and replay the recorded events in testdata/ through
## them on the embedded default config, printing each decision.
demo: build
	@scripts/demo $(BIN)

## bench: Go benchmarks, then the process-level comparison of the hooks with
## a floor program (interleaved runs, medians, ratios, peak RSS); writes two
## 256 MiB transcripts to a temporary dir.
BENCH_RUNS ?= 30
bench: build turbo nx
	CGO_ENABLED=0 $(GO) build -o $(BIN)/ ./bench/floor
	DONEGATE_BENCH_LARGE=1 DONEGATE_TURBO=$$(scripts/install-turbo | tail -n 1) DONEGATE_NX=$$(scripts/install-nx | tail -n 1) \
	  $(GO) test -run '^$$' -bench . -benchmem ./...
	$(GO) run ./bench/hookbench -bin $(BIN) -runs $(BENCH_RUNS)

## fuzz: run every fuzz target for FUZZTIME each (default 30s).
##
## The fuzzer runs on a pinned Go 1.27 toolchain (fetched once through the
## module proxy): Go 1.26's coordinator can fail a run that found nothing
## with a bare "context deadline exceeded" when -fuzztime runs out
## (go.dev/issue/75804, fixed in 1.27.0). Each new input the fuzzer keeps is
## minimized for at most FUZZMINIMIZE calls: by time, a few inputs of some
## kilobytes use up a short run (minimizing bytes tries every pair of cuts).
FUZZTIME       ?= 30s
FUZZMINIMIZE   ?= 1000x
FUZZ_TOOLCHAIN ?= go1.27.4
FUZZ_TARGETS := hookio:FuzzEvent hookio:FuzzCleanText transcript:FuzzLatestTodoWrite \
                transcript:FuzzCodexPlan transcript:FuzzGeminiPlan transcript:FuzzQwenPlan \
                transcript:FuzzReadTasks config:FuzzParse \
                config:FuzzDecodeMatchesEncodingJSON config:FuzzRulesMatchValidator \
                config:FuzzAcceptedPatternsNeverFailTheFilesChecker \
                internal/sqlitefile:FuzzFile internal/jsonw:FuzzString
fuzz:
	@GOTOOLCHAIN=$(FUZZ_TOOLCHAIN) GO=$(GO) FUZZTIME=$(FUZZTIME) FUZZMINIMIZE=$(FUZZMINIMIZE) \
	  scripts/fuzz $(FUZZ_TARGETS)

## demo-claude: a real Claude Code session (the pinned CLI, a scripted model
## on 127.0.0.1, no API key) held by donegate until its plan is done.
demo-claude: build claude
	@$(GO) run ./e2e/democlaude -bin $(BIN)

clean:
	rm -rf $(BIN) dist
