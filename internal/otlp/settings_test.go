package otlp

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestResolve(t *testing.T) {
	home := t.TempDir()
	userFile := filepath.Join(home, ".config", "donegate", UserFileName)
	tests := []struct {
		name string
		env  map[string]string
		file string // the user's otlp.json, "" for none
		want Settings
		on   bool
		err  string
	}{
		{name: "nothing set", on: false},
		{name: "the standard base endpoint gets the logs path",
			env:  map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318"},
			want: Settings{Endpoint: "http://c:4318/v1/logs", Protocol: ProtocolHTTP, From: "OTEL_EXPORTER_OTLP_ENDPOINT"}, on: true},
		{name: "a base endpoint with a path and a slash",
			env:  map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "https://c/otlp/"},
			want: Settings{Endpoint: "https://c/otlp/v1/logs", Protocol: ProtocolHTTP, From: "OTEL_EXPORTER_OTLP_ENDPOINT"}, on: true},
		{name: "the logs endpoint is used as it is, over the base one",
			env:  map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_EXPORTER_OTLP_LOGS_ENDPOINT": "http://l:4318/custom"},
			want: Settings{Endpoint: "http://l:4318/custom", Protocol: ProtocolHTTP, From: "OTEL_EXPORTER_OTLP_LOGS_ENDPOINT"}, on: true},
		{name: "grpc takes the address as it is",
			env:  map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4317", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"},
			want: Settings{Endpoint: "http://c:4317", Protocol: ProtocolGRPC, From: "OTEL_EXPORTER_OTLP_ENDPOINT"}, on: true},
		{name: "the logs protocol over the general one",
			env:  map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc", "OTEL_EXPORTER_OTLP_LOGS_PROTOCOL": "http/protobuf"},
			want: Settings{Endpoint: "http://c:4318/v1/logs", Protocol: ProtocolHTTP, From: "OTEL_EXPORTER_OTLP_ENDPOINT"}, on: true},
		{name: "headers, URL-encoded",
			env:  map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_EXPORTER_OTLP_HEADERS": "api-key=a%20b, tenant=t1"},
			want: Settings{Endpoint: "http://c:4318/v1/logs", Protocol: ProtocolHTTP, From: "OTEL_EXPORTER_OTLP_ENDPOINT", Headers: map[string]string{"api-key": "a b", "tenant": "t1"}}, on: true},
		{name: "the SDK switched off",
			env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_SDK_DISABLED": "true"}},
		{name: "a logs exporter other than otlp",
			env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_LOGS_EXPORTER": "console"}},
		{name: "otlp among the logs exporters",
			env:  map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_LOGS_EXPORTER": "console, otlp"},
			want: Settings{Endpoint: "http://c:4318/v1/logs", Protocol: ProtocolHTTP, From: "OTEL_EXPORTER_OTLP_ENDPOINT"}, on: true},
		{name: "donegate's own over the user's file and the standard ones",
			env:  map[string]string{"DONEGATE_OTLP_ENDPOINT": "http://d:4318", "DONEGATE_OTLP_HEADERS": "k=v", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_SDK_DISABLED": "true"},
			file: `{"endpoint":"http://u:4318"}`,
			want: Settings{Endpoint: "http://d:4318/v1/logs", Protocol: ProtocolHTTP, From: "DONEGATE_OTLP_ENDPOINT", Headers: map[string]string{"k": "v"}}, on: true},
		{name: "donegate's off turns every other off",
			env: map[string]string{"DONEGATE_OTLP_ENDPOINT": "off", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318"}, file: `{"endpoint":"http://u:4318"}`},
		{name: "the user's file over the standard ones",
			env:  map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318"},
			file: `{"endpoint":"https://u:4318","headers":{"authorization":"Bearer x"},"protocol":"grpc"}`,
			want: Settings{Endpoint: "https://u:4318", Protocol: ProtocolGRPC, From: userFile, Headers: map[string]string{"authorization": "Bearer x"}}, on: true},
		{name: "the user's file off", file: `{"endpoint":"off"}`, env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318"}},
		{name: "a user's file that does not parse", file: `{"endpoint":`, err: UserFileName},
		{name: "a user's file without an endpoint", file: `{"headers":{}}`, err: `no "endpoint"`},
		{name: "a protocol donegate does not send",
			env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/json"}, err: `protocol "http/json"`},
		{name: "no URL", env: map[string]string{"DONEGATE_OTLP_ENDPOINT": "c:4318"}, err: "no http:// or https:// URL"},
		{name: "a header that is no pair", env: map[string]string{"DONEGATE_OTLP_ENDPOINT": "http://d", "DONEGATE_OTLP_HEADERS": "novalue"}, err: "DONEGATE_OTLP_HEADERS"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.NoError(t, os.RemoveAll(filepath.Dir(userFile)))
			if tt.file != "" {
				require.NoError(t, os.MkdirAll(filepath.Dir(userFile), 0o700))
				require.NoError(t, os.WriteFile(userFile, []byte(tt.file), 0o600))
			}
			getenv := func(k string) string {
				if k == "HOME" {
					return home
				}
				return tt.env[k]
			}
			got, on, err := Resolve(getenv)
			if tt.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.err)
				assert.False(t, on)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.on, on)
			if on {
				assert.Equal(t, tt.want, got)
			}
		})
	}
}

// Kick starts nothing while the export is off, nor while an exporter
// holds the lock.
func TestKickStartsNoSecondExporter(t *testing.T) {
	state := t.TempDir()
	calls := 0
	environ := func() []string { calls++; return nil }
	require.NoError(t, Kick(state, func(string) string { return "" }, environ))
	assert.Zero(t, calls, "export off: nothing started")

	release, ok, err := TryLock(state)
	require.NoError(t, err)
	require.True(t, ok)
	defer release()
	on := func(k string) string {
		if k == "DONEGATE_OTLP_ENDPOINT" {
			return "http://127.0.0.1:1"
		}
		return ""
	}
	require.NoError(t, Kick(state, on, environ))
	assert.Zero(t, calls, "an exporter runs: nothing started")
	_, ok, err = TryLock(state)
	require.NoError(t, err)
	assert.False(t, ok, "the lock is one exporter's")
}
