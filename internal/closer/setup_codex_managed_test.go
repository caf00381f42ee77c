package closer

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// managedInit runs init --host codex --managed with the requirements file
// at req.
func managedInit(t *testing.T, dir, req string, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := Main(context.Background(), append([]string{"init", "--dir", dir, "--host", "codex", "--managed"}, args...), &out, &errOut, testEnv(map[string]string{
		"HOME": t.TempDir(), "PATH": "", "DONEGATE_CODEX_REQUIREMENTS": req,
	}, false))
	return code, out.String(), errOut.String()
}

// TestInitCodexManaged: --managed appends donegate's hooks to Codex's
// managed requirements as inline hook tables, keeping what the file held
// byte for byte; a second run changes nothing; no project hook file is
// written (Codex would run both).
func TestInitCodexManaged(t *testing.T) {
	const admin = "# the admin's policy\nallowed_approval_policies = [\"never\", \"on-request\"]\n\n[features]\nweb_search = false"
	dir := projectWith(t, map[string]string{"go.mod": "module x\n"})
	req := filepath.Join(t.TempDir(), "codex", "requirements.toml")
	require.NoError(t, os.MkdirAll(filepath.Dir(req), 0o755))
	require.NoError(t, os.WriteFile(req, []byte(admin), 0o644))

	code, out, errOut := managedInit(t, dir, req)
	require.Equal(t, ExitComplete, code, errOut)
	data := string(mustRead(t, req))
	assert.True(t, len(data) > len(admin) && data[:len(admin)] == admin, "the admin's text stays as it was:\n%s", data)
	assert.Contains(t, data, codexManagedComment)
	for _, want := range []string{
		"[[hooks.Stop]]\n\n[[hooks.Stop.hooks]]\ntype = \"command\"\ncommand = \"stop-hook\"\ntimeout = 600\n",
		"[[hooks.SubagentStop]]\n",
		"[[hooks.SessionStart.hooks]]\ntype = \"command\"\ncommand = \"stop-hook --criteria\"\n",
		"[[hooks.UserPromptSubmit]]\n",
	} {
		assert.Contains(t, data, want)
	}
	assert.NoFileExists(t, filepath.Join(dir, ".codex", "hooks.json"), "no project hook file beside the managed one")
	assert.FileExists(t, filepath.Join(dir, ".donegate.json"))
	assert.Contains(t, out, "Updated "+req)
	assert.Contains(t, out, "Codex runs the hooks of its managed requirements without review")
	assert.NotContains(t, out, "open /hooks in Codex", "managed hooks need no review")

	before := string(mustRead(t, req))
	code, out, errOut = managedInit(t, dir, req)
	require.Equal(t, ExitComplete, code, errOut)
	assert.Equal(t, before, string(mustRead(t, req)), "a second run changes nothing")
	assert.Contains(t, out, "the donegate hooks are registered already")

	// Doctor reads them back as trusted by policy.
	s := newDoctorSetup(t)
	s.vars["DONEGATE_CODEX_REQUIREMENTS"] = req
	require.NoError(t, os.MkdirAll(filepath.Join(s.proj, ".codex"), 0o755))
	_, dout, _ := s.run(t)
	assert.Contains(t, dout, "✓ codex: stop-hook at Stop in "+filepath.ToSlash(req)+" runs without review: Codex trusts its managed requirements")
	assert.NotContains(t, dout, "is not trusted")
}

// A requirements file whose hooks are written as inline arrays cannot
// take another table: init says what to add by hand and writes nothing;
// --managed goes with --host codex alone.
func TestInitCodexManagedRefusals(t *testing.T) {
	dir := projectWith(t, map[string]string{"go.mod": "module x\n"})
	req := filepath.Join(t.TempDir(), "requirements.toml")
	const inline = "hooks = { Stop = [] }\n"
	require.NoError(t, os.WriteFile(req, []byte(inline), 0o644))
	before := snapshot(t, dir)
	code, _, errOut := managedInit(t, dir, req)
	assert.Equal(t, ExitUsage, code)
	assert.Contains(t, errOut, "donegate's hooks cannot be appended to it as TOML tables")
	assert.Contains(t, errOut, "[[hooks.Stop]]", "what to add by hand")
	assert.Equal(t, inline, string(mustRead(t, req)))
	assert.Equal(t, before, snapshot(t, dir))

	for _, args := range [][]string{{"init", "--dir", dir, "--managed"}, {"init", "--dir", dir, "--host", "codex,qwen", "--managed"}, {"init", "--dir", dir, "--host", "codex", "--managed", "--user"}} {
		code, _, errOut := run(t, args...)
		assert.Equal(t, ExitUsage, code, "%v", args)
		assert.Contains(t, errOut, "--managed writes a host's managed hooks (codex): give it with one --host")
	}
}

// TestDoctorCodexManagedHooksOnly: with allow_managed_hooks_only in the
// requirements, a project's donegate hooks are ignored by Codex: doctor
// fails them.
func TestDoctorCodexManagedHooksOnly(t *testing.T) {
	s := newDoctorSetup(t)
	req := filepath.Join(t.TempDir(), "requirements.toml")
	require.NoError(t, os.WriteFile(req, []byte("allow_managed_hooks_only = true\n"), 0o644))
	s.vars["DONEGATE_CODEX_REQUIREMENTS"] = req
	s.write(t, filepath.Join(s.proj, ".codex", "hooks.json"), codexHooks)
	code, out, _ := s.run(t)
	assert.Equal(t, ExitIncomplete, code)
	assert.Contains(t, out, "is ignored: "+filepath.ToSlash(req)+" sets allow_managed_hooks_only = true")
}

// tomlString writes any command as a TOML string that reads back as it.
func TestTOMLString(t *testing.T) {
	for _, s := range []string{"stop-hook", `/opt/my "x"\dir/stop-hook --criteria`, "a\tb\nc\x01\x7fd", "é <&> \u2028 😀", ""} {
		var doc struct{ V string }
		require.NoError(t, decodeTOML([]byte("v = "+tomlString(s)+"\n"), &doc), "%q", s)
		assert.Equal(t, s, doc.V)
	}
}
