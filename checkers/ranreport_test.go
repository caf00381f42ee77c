package checkers

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestReadLibtest: cargo test's output, as it comes, read into the tests
// each binary ran and how they ended.
func TestReadLibtest(t *testing.T) {
	out := "   Compiling calc v0.1.0 (/p)\n" +
		"    Finished `test` profile [unoptimized + debuginfo] target(s) in 0.34s\n" +
		"     Running unittests src/lib.rs (target/debug/deps/calc-c6626fb655a8d231)\n\n" +
		"running 5 tests\n" +
		"test tests::it_adds ... ok\n" +
		"test tests::slow ... ignored\n" +
		"test tests::flaky ... ignored, needs a network\n" +
		"test tests::panics - should panic ... ok\n" +
		"test tests::broken ... FAILED\n" +
		"test tests::long has been running for over 60 seconds\n" +
		"test bench_sum ... bench:         12 ns/iter (+/- 1)\n\n" +
		"test result: FAILED. 2 passed; 1 failed; 2 ignored\n" +
		"     Running tests\\it.rs (target\\debug\\deps\\it-b462ec70d69dbcd3.exe)\n" +
		"test integ ... ok\n" +
		"\x1b[1m\x1b[32m   Doc-tests\x1b[0m calc\n" +
		"test src/lib.rs - doc (line 3) ... \x1b[32mok\x1b[0m\n" +
		"test src/lib.rs - Calc::new (line 12) ... FAILED\n"
	got := readLibtest([]byte(out))
	assert.Equal(t, map[string]map[string]string{
		"calc unittests src/lib.rs": {"tests::it_adds": "ok", "tests::slow": "ignored", "tests::flaky": "ignored", "tests::panics": "ok", "tests::broken": "FAILED"},
		"it tests\\it.rs":           {"integ": "ok"},
		"doc-tests calc":            {"src/lib.rs - doc": "ok", "src/lib.rs - Calc::new": "FAILED"},
	}, got.Ran)
	assert.Empty(t, readLibtest([]byte("test before any binary ... ok\n")).Ran, "a test line before cargo named a binary is no report")
}

// TestRanWeaknesses: a test that ran at an earlier stop must pass now
// in its binary, or under its name where no test of that name ran before.
func TestRanWeaknesses(t *testing.T) {
	const lib = "calc unittests src/lib.rs"
	earlier := ranReport{Ran: map[string]map[string]string{
		lib:                {"tests::it_adds": "FAILED", "tests::it_works": "ok", "tests::helper": "ok"},
		"it tests/it.rs":   {"integ": "ok"},
		"other tests/o.rs": {"helper": "ok"},
	}}
	for _, tt := range []struct {
		name string
		now  map[string]map[string]string
		want []weakness
	}{
		{"all pass", map[string]map[string]string{lib: {"tests::it_adds": "ok", "tests::it_works": "ok", "tests::helper": "ok"}, "it tests/it.rs": {"integ": "ok"}, "other tests/o.rs": {"helper": "ok"}}, nil},
		{"ignored now", map[string]map[string]string{lib: {"tests::it_adds": "ignored", "tests::it_works": "ok", "tests::helper": "ok"}, "it tests/it.rs": {"integ": "ok"}, "other tests/o.rs": {"helper": "ok"}},
			[]weakness{{File: "src/lib.rs", Test: "tests::it_adds", What: "is ignored now; it ran at an earlier stop of this session (it failed then)"}}},
		{"a binary gone", map[string]map[string]string{lib: {"tests::it_adds": "ok", "tests::it_works": "ok", "tests::helper": "ok"}, "other tests/o.rs": {"helper": "ok"}},
			[]weakness{{File: "tests/it.rs", Test: "integ", What: "no longer runs: it ran at an earlier stop of this session (it passed then), and `cargo test` reports no result for it now"}}},
		{"moved to another module", map[string]map[string]string{lib: {"adding::it_adds": "ok", "tests::it_works": "ok", "tests::helper": "ok"}, "it tests/it.rs": {"integ": "ok"}, "other tests/o.rs": {"helper": "ok"}}, nil},
		{"a name that ran elsewhere before is no move", map[string]map[string]string{lib: {"tests::it_adds": "ok", "tests::it_works": "ok"}, "it tests/it.rs": {"integ": "ok"}, "other tests/o.rs": {"helper": "ok"}},
			[]weakness{{File: "src/lib.rs", Test: "tests::helper", What: "no longer runs: it ran at an earlier stop of this session (it passed then), and `cargo test` reports no result for it now"}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, ranWeaknesses(libtestRunner, earlier, ranReport{Ran: tt.now}))
		})
	}
	assert.Empty(t, ranWeaknesses(libtestRunner, ranReport{}, ranReport{Ran: map[string]map[string]string{lib: {"x": "ignored"}}}), "the first stop judges nothing")
}

// TestReadNodeTest: node --test's output in its two default reporters,
// read into the tests that ran, by suite and name; suites are not tests;
// output without node's summary is no report.
func TestReadNodeTest(t *testing.T) {
	want := map[string]map[string]string{nodeTestGroup: {
		"adds": "ok", "subs": "FAILED", "skipped": "ignored", "math > mul": "ok", "math > todo one": "ignored",
	}}
	for _, tt := range []struct{ name, out string }{
		{"TAP, node 22", "TAP version 13\n# Subtest: adds\nok 1 - adds\n  ---\n  duration_ms: 1.2\n  type: 'test'\n  ...\n" +
			"# Subtest: subs\nnot ok 2 - subs\n  ---\n  type: 'test'\n  error: |-\n    ok 9 - not a result\n  ...\n" +
			"# Subtest: skipped\nok 3 - skipped # SKIP\n  ---\n  type: 'test'\n  ...\n" +
			"# Subtest: math\n    # Subtest: mul\n    ok 1 - mul\n      ---\n      type: 'test'\n      ...\n" +
			"    # Subtest: todo one\n    ok 2 - todo one # TODO\n      ---\n      type: 'test'\n      ...\n    1..2\n" +
			"ok 4 - math\n  ---\n  duration_ms: 1.6\n  type: 'suite'\n  ...\n1..4\n# tests 5\n# suites 1\n# pass 2\n# fail 1\n"},
		{"TAP, node 20: no type for a test", "TAP version 13\n# Subtest: adds\nok 1 - adds\n  ---\n  duration_ms: 1.2\n  ...\n" +
			"# Subtest: subs\nnot ok 2 - subs\n  ---\n  duration_ms: 3\n  ...\n# Subtest: skipped\nok 3 - skipped # SKIP\n" +
			"# Subtest: math\n    # Subtest: mul\n    ok 1 - mul\n    # Subtest: todo one\n    ok 2 - todo one # TODO\n    1..2\n" +
			"ok 4 - math\n  ---\n  type: 'suite'\n  ...\n# tests 5\n# pass 2\n"},
		{"spec, node 24", "✔ adds (2.04ms)\n✖ subs (1.66ms)\n﹣ skipped (0.3ms) # SKIP\n▶ math\n  ✔ mul (0.56ms)\n  ✔ todo one (0.24ms) # TODO\n✔ math (4.08ms)\n" +
			"ℹ tests 5\nℹ suites 1\nℹ pass 2\nℹ fail 1\n\n✖ failing tests:\n\ntest at test/a.test.js:3:1\n✖ subs (1.66ms)\n  AssertionError\n✔ not a test\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := readNodeTest([]byte(tt.out))
			assert.True(t, ok)
			assert.Equal(t, want, got.Ran)
		})
	}
	_, ok := readNodeTest([]byte("> build\n✔ built in 2s\nPASS src/a.test.js\n"))
	assert.False(t, ok, "without node's summary there is no report")
	got := ranWeaknesses(nodeTestRunner, ranReport{Ran: want}, ranReport{Ran: map[string]map[string]string{nodeTestGroup: {"adds": "ok", "subs": "ignored", "calc > mul": "ok"}}})
	assert.Equal(t, []weakness{
		{Test: "subs", What: "is ignored now; it ran at an earlier stop of this session (it failed then)"},
	}, got, "a skipped test and a todo one ran at no earlier stop; mul moved to another suite")
}
