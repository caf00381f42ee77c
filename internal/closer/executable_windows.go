package closer

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/donegate/donegate/internal/cli"
)

// Windows has no execute bit: a file runs when its extension is one of
// PATHEXT's, as CreateProcess, cmd.exe and exec.LookPath decide. That
// is also why a hook installed as stop-hook.exe runs as "stop-hook".

// pathExts is PATHEXT's extensions, lower case, or Windows' default
// (exec.LookPath's too) when it is not set.
func pathExts() []string {
	var exts []string
	for _, e := range filepath.SplitList(os.Getenv("PATHEXT")) {
		if e = strings.ToLower(strings.TrimSpace(e)); strings.HasPrefix(e, ".") {
			exts = append(exts, e)
		}
	}
	if len(exts) == 0 {
		exts = []string{".com", ".exe", ".bat", ".cmd"}
	}
	return exts
}

func runnableExt(path string) bool {
	return slices.Contains(pathExts(), strings.ToLower(filepath.Ext(path)))
}

// isExecutable reports whether path is a regular file Windows runs.
func isExecutable(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular() && runnableExt(path)
}

// executableIn is the executable file that runs as prog in dir: prog
// itself when it names its extension, else prog with the first of
// PATHEXT's extensions that exists, as cmd.exe's search finds it.
func executableIn(dir, prog string) (string, bool) {
	path := filepath.Join(dir, prog)
	if runnableExt(prog) {
		return path, isExecutable(path)
	}
	for _, ext := range pathExts() {
		if isExecutable(path + ext) {
			return path + ext, true
		}
	}
	return path, false
}

// programName is the name a program at path runs by: the file's name
// without its PATHEXT extension (C:\bin\stop-hook.exe is stop-hook).
func programName(path string) string {
	base := filepath.Base(path)
	if runnableExt(base) {
		return strings.TrimSuffix(base, filepath.Ext(base))
	}
	return base
}

// makeRunnable is the fix for a file at path that is not executable:
// a release's binaries are .exe files.
func makeRunnable(path string) string {
	return "name it " + path + ".exe (Windows runs a file by its extension, one of PATHEXT's)"
}

// absoluteCommand is path as a hook command (init --absolute): with /
// for \ and unquoted, which every shell a host runs hooks with on
// Windows runs as it is (Git Bash, where \ is an escape; cmd.exe;
// PowerShell, where a quoted path is a string, not a command). A path
// with any other character (a space, a quote, %, &, a comma, each read
// its own way by one of them) is quoted for Git Bash, Claude Code's, and
// portable is false.
func absoluteCommand(path string) (command string, portable bool) {
	p := filepath.ToSlash(path)
	for _, c := range p {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("/._-:", c)) {
			return cli.ShellQuote(p), false
		}
	}
	return p, true
}
