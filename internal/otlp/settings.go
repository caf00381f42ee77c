// Package otlp says where donegate's decisions are exported over OTLP
// and starts the exporter: the hooks call Kick after a decision is on the
// record, and `closer export` (package internal/otlp/send) sends the
// decision log's new lines to the collector. Nothing here imports the
// OpenTelemetry libraries: their start-up (about 5 ms of package
// initialisation) stays out of the hooks.
package otlp

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/donegate/donegate/internal/paths"
	"github.com/donegate/donegate/internal/regular"
)

// The protocols the exporter speaks (OTEL_EXPORTER_OTLP_PROTOCOL's names).
const (
	ProtocolHTTP = "http/protobuf"
	ProtocolGRPC = "grpc"
)

// Off, as DONEGATE_OTLP_ENDPOINT, turns the export off whatever else is
// set.
const Off = "off"

// Vars are the variables that say where decisions go: donegate's own
// first, then OpenTelemetry's standard ones. The hooks ignore those that
// a project's host settings set (they are the agent's to write, and would
// send the person's decisions where the repository says).
var Vars = []string{
	"DONEGATE_OTLP_ENDPOINT", "DONEGATE_OTLP_HEADERS", "DONEGATE_OTLP_PROTOCOL",
	"OTEL_EXPORTER_OTLP_LOGS_ENDPOINT", "OTEL_EXPORTER_OTLP_ENDPOINT",
	"OTEL_EXPORTER_OTLP_LOGS_HEADERS", "OTEL_EXPORTER_OTLP_HEADERS",
	"OTEL_EXPORTER_OTLP_LOGS_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL",
	"OTEL_SDK_DISABLED", "OTEL_LOGS_EXPORTER",
}

// Settings are where the decisions go.
type Settings struct {
	// Endpoint is the URL the logs are sent to: for http/protobuf the
	// full path (…/v1/logs), for grpc the collector's address.
	Endpoint string
	// Headers are sent with every request (an API key, a tenant).
	Headers map[string]string
	// Protocol is ProtocolHTTP or ProtocolGRPC.
	Protocol string
	// From says where the endpoint was set, for doctor and errors.
	From string
}

// UserFileName is the user's export settings file in their config dir
// (UserFile), for hosts that do not pass the environment to hooks:
//
//	{"endpoint": "https://collector.example:4318",
//	 "headers": {"authorization": "Bearer …"},
//	 "protocol": "http/protobuf"}
const UserFileName = "otlp.json"

// maxUserFile bounds the user's settings file.
const maxUserFile = 64 << 10

// UserFile is the user's export settings file: on Windows in
// %APPDATA%\donegate, else in $XDG_CONFIG_HOME/donegate or
// ~/.config/donegate.
func UserFile(getenv paths.Getenv) string {
	if runtime.GOOS == "windows" {
		if d := getenv("APPDATA"); d != "" {
			return filepath.Join(d, "donegate", UserFileName)
		}
	}
	if d := getenv("XDG_CONFIG_HOME"); filepath.IsAbs(d) {
		return filepath.Join(d, "donegate", UserFileName)
	}
	return filepath.Join(paths.Home(getenv), ".config", "donegate", UserFileName)
}

// userFile is the user settings file's content.
type userFile struct {
	Endpoint string            `json:"endpoint"`
	Headers  map[string]string `json:"headers"`
	Protocol string            `json:"protocol"`
}

// Resolve says where decisions go, from the first of: DONEGATE_OTLP_*,
// the user's settings file, OpenTelemetry's OTEL_EXPORTER_OTLP_* (unless
// OTEL_SDK_DISABLED is true or OTEL_LOGS_EXPORTER names no otlp). It
// returns ok false when the export is off, and an error for settings that
// say something it cannot do (then nothing is sent).
func Resolve(getenv paths.Getenv) (s Settings, ok bool, err error) {
	if e := getenv("DONEGATE_OTLP_ENDPOINT"); e != "" {
		if strings.EqualFold(e, Off) {
			return Settings{}, false, nil
		}
		s = Settings{Endpoint: e, Protocol: getenv("DONEGATE_OTLP_PROTOCOL"), From: "DONEGATE_OTLP_ENDPOINT"}
		if s.Headers, err = ParseHeaders(getenv("DONEGATE_OTLP_HEADERS")); err != nil {
			return Settings{}, false, fmt.Errorf("DONEGATE_OTLP_HEADERS: %w", err)
		}
		return s.finish(true)
	}
	path := UserFile(getenv)
	switch u, err := readUserFile(path); {
	case err == nil && strings.EqualFold(u.Endpoint, Off):
		return Settings{}, false, nil
	case err == nil:
		s = Settings{Endpoint: u.Endpoint, Headers: u.Headers, Protocol: u.Protocol, From: path}
		return s.finish(true)
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return Settings{}, false, err
	}
	if strings.EqualFold(getenv("OTEL_SDK_DISABLED"), "true") {
		return Settings{}, false, nil
	}
	if e := getenv("OTEL_LOGS_EXPORTER"); e != "" && !slices.Contains(strings.Split(strings.ReplaceAll(e, " ", ""), ","), "otlp") {
		return Settings{}, false, nil
	}
	s.Protocol = first(getenv("OTEL_EXPORTER_OTLP_LOGS_PROTOCOL"), getenv("OTEL_EXPORTER_OTLP_PROTOCOL"))
	headers := "OTEL_EXPORTER_OTLP_HEADERS"
	if getenv("OTEL_EXPORTER_OTLP_LOGS_HEADERS") != "" {
		headers = "OTEL_EXPORTER_OTLP_LOGS_HEADERS"
	}
	if s.Headers, err = ParseHeaders(getenv(headers)); err != nil {
		return Settings{}, false, fmt.Errorf("%s: %w", headers, err)
	}
	if e := getenv("OTEL_EXPORTER_OTLP_LOGS_ENDPOINT"); e != "" {
		s.Endpoint, s.From = e, "OTEL_EXPORTER_OTLP_LOGS_ENDPOINT"
		return s.finish(false)
	}
	if e := getenv("OTEL_EXPORTER_OTLP_ENDPOINT"); e != "" {
		s.Endpoint, s.From = e, "OTEL_EXPORTER_OTLP_ENDPOINT"
		return s.finish(true)
	}
	return Settings{}, false, nil
}

// finish checks s and, for http/protobuf where base is true (a base URL,
// as OTEL_EXPORTER_OTLP_ENDPOINT is), appends the logs path.
func (s Settings) finish(base bool) (Settings, bool, error) {
	switch s.Protocol {
	case "":
		s.Protocol = ProtocolHTTP
	case ProtocolHTTP, ProtocolGRPC:
	default:
		return Settings{}, false, fmt.Errorf("%s: protocol %q: donegate sends %s or %s", s.From, s.Protocol, ProtocolHTTP, ProtocolGRPC)
	}
	u, err := url.Parse(s.Endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return Settings{}, false, fmt.Errorf("%s: endpoint %q is no http:// or https:// URL", s.From, s.Endpoint)
	}
	if base && s.Protocol == ProtocolHTTP {
		u.Path = strings.TrimSuffix(u.Path, "/") + "/v1/logs"
		s.Endpoint = u.String()
	}
	return s, true, nil
}

// ParseHeaders reads OTEL_EXPORTER_OTLP_HEADERS' form: key=value pairs
// split by commas, each part URL-encoded.
func ParseHeaders(v string) (map[string]string, error) {
	if strings.TrimSpace(v) == "" {
		return nil, nil
	}
	h := map[string]string{}
	for _, pair := range strings.Split(v, ",") {
		k, val, ok := strings.Cut(pair, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			return nil, fmt.Errorf("%q is no key=value pair", pair)
		}
		key, err1 := url.PathUnescape(k)
		value, err2 := url.PathUnescape(strings.TrimSpace(val))
		if err := errors.Join(err1, err2); err != nil {
			return nil, fmt.Errorf("header %q: %w", k, err)
		}
		h[key] = value
	}
	return h, nil
}

func readUserFile(path string) (userFile, error) {
	var u userFile
	f, err := regular.Open(path)
	if err != nil {
		return u, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxUserFile+1))
	if err != nil {
		return u, fmt.Errorf("%s: %w", path, err)
	}
	if len(data) > maxUserFile {
		return u, fmt.Errorf("%s: over %d KiB", path, maxUserFile>>10)
	}
	if err := json.Unmarshal(data, &u); err != nil {
		return u, fmt.Errorf("%s: %w", path, err)
	}
	if u.Endpoint == "" {
		return u, fmt.Errorf("%s: no \"endpoint\"", path)
	}
	return u, nil
}

func first(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}
