package hookio

import (
	"fmt"
	"strings"
)

// Host is the agent host whose hook sent an event: it decides how the
// event is read and how the answer is written. Everything past hookio
// sees one normalised Event whatever the host, and asks Host only for
// what lives in the host's own files (where the plan is kept, say).
type Host string

// The hosts donegate answers. The Claude Agent SDK runs Claude Code and
// sends its events unchanged: it is HostClaude.
const (
	HostClaude  Host = "claude"
	HostCodex   Host = "codex"
	HostQwen    Host = "qwen"
	HostGemini  Host = "gemini"
	HostCopilot Host = "copilot"
	HostCursor  Host = "cursor"
)

// Hosts lists every host, in the order docs and errors name them.
var Hosts = []Host{HostClaude, HostCodex, HostQwen, HostGemini, HostCopilot, HostCursor}

// ParseHost accepts a host's name as flags and closer take it.
func ParseHost(s string) (Host, error) {
	for _, h := range Hosts {
		if string(h) == s {
			return h, nil
		}
	}
	names := make([]string, len(Hosts))
	for i, h := range Hosts {
		names[i] = string(h)
	}
	return "", fmt.Errorf("unknown host %q (valid: %s)", s, strings.Join(names, ", "))
}
