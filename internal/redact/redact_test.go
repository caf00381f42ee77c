package redact_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/donegate/donegate/internal/redact"
)

func TestMask(t *testing.T) {
	m := redact.New([]string{
		"ANTHROPIC_API_KEY=sk-ant-api03-abcdefghijklmnopqrstuvwxyz012345",
		"MY_SERVICE_TOKEN=tok_1234567890",
		"DB_PASSWORD=hunter2hunter2",
		"SHORT_KEY=abc",                       // too short to mask: would mask words
		"PATH=/usr/bin:/bin",                  // not a secret's name
		"GOFLAGS=-mod=mod",                    // not a secret's name
		"LONG_SECRET=tok_1234567890-and-more", // holds another secret's value: masked whole
	})
	tests := []struct{ in, want string }{
		{"", ""},
		{"ok  calc 0.01s", "ok  calc 0.01s"},
		{"key: sk-ant-api03-abcdefghijklmnopqrstuvwxyz012345 rejected", "key: [masked ANTHROPIC_API_KEY] rejected"},
		{"token=tok_1234567890", "token=[masked MY_SERVICE_TOKEN]"},
		{"got tok_1234567890-and-more", "got [masked LONG_SECRET]"},
		{"password hunter2hunter2\nagain hunter2hunter2", "password [masked DB_PASSWORD]\nagain [masked DB_PASSWORD]"},
		{"abc and /usr/bin:/bin stay", "abc and /usr/bin:/bin stay"},
		{"a GitHub token ghp_" + strings.Repeat("a", 36) + " printed", "a GitHub token [masked token] printed"},
		{"AWS AKIAABCDEFGHIJKLMNOP id", "AWS [masked token] id"},
		{"openai sk-proj-" + strings.Repeat("Z", 40), "openai [masked token]"},
		{"-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----\nafter", "[masked token]\nafter"},
		{"sk-short and task-list", "sk-short and task-list"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, m.Mask(tt.in), tt.in)
	}
}

func TestSecretName(t *testing.T) {
	for name, want := range map[string]bool{
		"ANTHROPIC_API_KEY": true, "OPENAI_API_KEY": true, "GEMINI_API_KEY": true, "GITHUB_TOKEN": true,
		"GH_TOKEN": true, "AWS_SECRET_ACCESS_KEY": true, "CLIENT_SECRET": true, "PGPASSWORD": true, "db_passwd": true,
		"PATH": false, "HOME": false, "KEYBOARD": false, "TOKENIZERS_PARALLELISM": false, "SSH_AUTH_SOCK": false,
	} {
		assert.Equal(t, want, redact.SecretName(name), name)
	}
}
