// Package redact masks secrets in what donegate keeps: the decision log
// and the results cache hold what a check printed, and a failing test
// may print an API key from the hook's environment. What the agent is
// told is not masked: it runs with the same environment.
package redact

import (
	"os"
	"regexp"
	"sort"
	"strings"
	"sync"
)

// minSecret is the shortest value of a secret-looking variable that is
// masked: shorter ones ("1", "true", a port) would mask ordinary words.
const minSecret = 8

// SecretName reports whether an environment variable called name holds a
// secret: a name ending in _KEY, _TOKEN or _SECRET, or holding PASSWORD
// or PASSWD (the hosts' own keys among them: ANTHROPIC_API_KEY,
// OPENAI_API_KEY, GEMINI_API_KEY, GITHUB_TOKEN, GH_TOKEN).
func SecretName(name string) bool {
	n := strings.ToUpper(name)
	for _, suffix := range []string{"_KEY", "_TOKEN", "_SECRET"} {
		if strings.HasSuffix(n, suffix) {
			return true
		}
	}
	return strings.Contains(n, "PASSWORD") || strings.Contains(n, "PASSWD")
}

// Masker masks the values of an environment's secret-looking variables
// and the common shapes of tokens.
type Masker struct {
	// secrets are NAME and value pairs, the longest value first, so that
	// a value holding another is masked whole.
	secrets [][2]string
}

// New returns the masker of environ (NAME=VALUE entries, as os.Environ
// gives them).
func New(environ []string) *Masker {
	m := &Masker{}
	for _, kv := range environ {
		name, value, ok := strings.Cut(kv, "=")
		if ok && len(value) >= minSecret && SecretName(name) {
			m.secrets = append(m.secrets, [2]string{name, value})
		}
	}
	sort.SliceStable(m.secrets, func(i, j int) bool { return len(m.secrets[i][1]) > len(m.secrets[j][1]) })
	return m
}

// Process is the masker of the process's own environment, the hook's
// (which is the host's), as it is now: made once for each record
// written, some microseconds.
func Process() *Masker { return New(os.Environ()) }

// Mask returns s with each secret value replaced by [masked NAME] and
// each token of a known shape by [masked token].
func (m *Masker) Mask(s string) string {
	if s == "" {
		return s
	}
	for _, kv := range m.secrets {
		if strings.Contains(s, kv[1]) {
			s = strings.ReplaceAll(s, kv[1], "[masked "+kv[0]+"]")
		}
	}
	if tokenHint(s) {
		s = tokenShapes().ReplaceAllString(s, "[masked token]")
	}
	return s
}

// tokenHint reports whether s holds the start of any token shape, so
// that text with none (most of it) skips the expression.
func tokenHint(s string) bool {
	for _, h := range []string{"sk-", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "AKIA", "ASIA", "xox", "AIza", "PRIVATE KEY", "glpat-"} {
		if strings.Contains(s, h) {
			return true
		}
	}
	return false
}

// tokenShapes are the common shapes of API tokens: OpenAI's and
// Anthropic's keys (sk-...), GitHub's tokens, AWS access key ids, Slack
// tokens, Google API keys, GitLab tokens, and a PEM private key block.
var tokenShapes = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(strings.Join([]string{
		`\bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{20,}`,
		`\bgh[pousr]_[A-Za-z0-9]{30,}`,
		`\bgithub_pat_[A-Za-z0-9_]{22,}`,
		`\b(?:AKIA|ASIA)[0-9A-Z]{16}\b`,
		`\bxox[abprs]-[A-Za-z0-9-]{10,}`,
		`\bAIza[0-9A-Za-z_-]{35}`,
		`\bglpat-[A-Za-z0-9_-]{20,}`,
		`-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)`,
	}, "|"))
})
