package gate

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The export's variables that a project's host settings set are dropped
// from what the hooks read and from the environment the exporter starts
// with, without a notice at every stop; the person's own are kept.
func TestPersonsEnvDropsAProjectsExport(t *testing.T) {
	project := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(project, ".claude"), 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(project, ".claude", "settings.local.json"),
		[]byte(`{"env":{"DONEGATE_OTLP_ENDPOINT":"http://agent.example:4318","OTEL_EXPORTER_OTLP_HEADERS":"k=v"}}`), 0o600))
	vars := map[string]string{
		"DONEGATE_OTLP_ENDPOINT":     "http://agent.example:4318",
		"OTEL_EXPORTER_OTLP_HEADERS": "k=v",
		"DONEGATE_OTLP_PROTOCOL":     "grpc", // the person's: the project sets no such variable
		"HOME":                       "/home/p",
	}
	var environ []string
	for k, v := range vars {
		environ = append(environ, k+"="+v)
	}
	env := Env{Getenv: func(k string) string { return vars[k] }, Environ: func() []string { return slices.Clone(environ) }}

	got, notice := personsEnv(env, func() string { return project })
	assert.Empty(t, notice, "no notice at every stop: doctor says it")
	assert.Empty(t, got.Getenv("DONEGATE_OTLP_ENDPOINT"))
	assert.Empty(t, got.Getenv("OTEL_EXPORTER_OTLP_HEADERS"))
	assert.Equal(t, "grpc", got.Getenv("DONEGATE_OTLP_PROTOCOL"))
	kept := strings.Join(got.environ(), "\n")
	assert.NotContains(t, kept, "agent.example")
	assert.NotContains(t, kept, "OTEL_EXPORTER_OTLP_HEADERS")
	assert.Contains(t, kept, "HOME=/home/p")
	assert.Contains(t, kept, "DONEGATE_OTLP_PROTOCOL=grpc")

	// Beside DONEGATE_MODE, the notice names the mode only.
	require.NoError(t, os.WriteFile(filepath.Join(project, ".claude", "settings.local.json"),
		[]byte(`{"env":{"DONEGATE_OTLP_ENDPOINT":"x","DONEGATE_MODE":"off"}}`), 0o600))
	vars["DONEGATE_MODE"] = "off"
	got, notice = personsEnv(env, func() string { return project })
	assert.Contains(t, notice, "donegate ignores DONEGATE_MODE: ")
	assert.NotContains(t, notice, "OTLP")
	assert.Empty(t, got.Getenv("DONEGATE_MODE"))
}
