// Command closer runs donegate's checks outside a hook: for CI and outer
// loops. This first version prints its usage; its commands are built on the
// same checkers package as the hooks.
package main

import (
	"fmt"
	"io"
	"os"
)

const usage = `Usage: closer <command> [flags]

closer runs donegate's task-completion checks outside a Claude Code hook.
Its commands (checklist reports, an LLM judge, the git-based completion
check and an iteration runner) are not built yet; use stop-hook and
posttooluse-hook as Claude Code hooks meanwhile.
`

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 1 && (args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
		fmt.Fprint(stdout, usage)
		return 0
	}
	fmt.Fprint(stderr, usage)
	return 2
}
