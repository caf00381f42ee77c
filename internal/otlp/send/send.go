// Package send exports the decision log to an OpenTelemetry collector:
// each decision as an OTLP log record (record.go), sent over OTLP/HTTP
// or gRPC with the OpenTelemetry Go exporters. It runs in `closer
// export`, started by the hooks (otlp.Kick) or by the person.
//
// The decision log is the spool: a cursor in the state dir (Status)
// names the file and offset of the first decision not yet sent, and
// moves only once the collector has answered a batch. Decisions made
// while the collector is away wait in the log, bounded as the log is
// (two files of decisionlog.MaxBytes); what rotates out before it is
// sent is lost, oldest first, and said (Status.Dropped). A batch is sent
// again only if the process ends between the collector's answer and the
// cursor's write.
package send

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlplog/otlploggrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlplog/otlploghttp"
	"go.opentelemetry.io/otel/log"
	sdklog "go.opentelemetry.io/otel/sdk/log"
	"go.opentelemetry.io/otel/sdk/resource"

	"github.com/donegate/donegate/internal/decisionlog"
	"github.com/donegate/donegate/internal/filelock"
	"github.com/donegate/donegate/internal/otlp"
	"github.com/donegate/donegate/internal/regular"
	"github.com/donegate/donegate/internal/safewrite"
	"github.com/donegate/donegate/internal/version"
)

// StatusFileName keeps the cursor and the last outcome in the state dir.
const StatusFileName = "export.json"

// batchSize bounds the decisions sent in one request.
const batchSize = 256

// Status is what the exporter keeps between runs: where it is in the log
// and how its last tries went.
type Status struct {
	// File is the fingerprint (see fingerprint) of the log file that
	// Offset is in; "" before the first send.
	File   string `json:"file,omitempty"`
	Offset int64  `json:"offset"`
	// Sent counts the decisions sent, ever; LastSent is when the last
	// batch was.
	Sent     int64     `json:"sent"`
	LastSent time.Time `json:"lastSent,omitzero"`
	// LastError is the last try's error, "" once a send succeeds.
	LastError   string    `json:"lastError,omitempty"`
	LastErrorAt time.Time `json:"lastErrorAt,omitzero"`
	// Dropped says when decisions rotated out of the log before they
	// were sent.
	Dropped time.Time `json:"dropped,omitzero"`
	// Endpoint is where the last batch went.
	Endpoint string `json:"endpoint,omitempty"`
}

// ReadStatus reads the status in stateDir; none is the zero Status.
func ReadStatus(stateDir string) (Status, error) {
	var s Status
	f, err := regular.Open(filepath.Join(stateDir, StatusFileName))
	if errors.Is(err, fs.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return s, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, 64<<10))
	if err != nil {
		return s, err
	}
	if err := json.Unmarshal(data, &s); err != nil {
		return Status{}, fmt.Errorf("%s: %w", StatusFileName, err)
	}
	return s, nil
}

func writeStatus(stateDir string, s Status) error {
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	return safewrite.Replace(stateDir, filepath.Join(stateDir, StatusFileName), append(data, '\n'), 0o600)
}

// SendLockFileName is held while decisions are sent: two exporters (the
// hooks' and the person's closer export) never send the same ones.
const SendLockFileName = "export.send.lock"

// sendLockWait bounds the wait for another exporter's send: one request
// and its timeout (OTEL_EXPORTER_OTLP_TIMEOUT, 10 s by default).
const sendLockWait = 30 * time.Second

func lockSend(stateDir string) (func(), error) {
	f, err := regular.OpenFile(filepath.Join(stateDir, SendLockFileName), os.O_RDWR|os.O_CREATE|regular.NoFollow, 0o600)
	if err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	if err := filelock.Lock(f, sendLockWait); err != nil {
		f.Close()
		return nil, fmt.Errorf("export: another exporter is sending: %w", err)
	}
	return func() { f.Close() }, nil
}

// fingerprintBytes bounds what of a log file's first line names it.
const fingerprintBytes = 4 << 10

// fingerprint names a log file by its first line (a decision, with its
// time to the nanosecond): the same file after a rotation renamed it,
// "" for a missing or empty file.
func fingerprint(path string) string {
	f, err := regular.OpenFile(path, os.O_RDONLY|regular.NoFollow, 0)
	if err != nil {
		return ""
	}
	defer f.Close()
	line, err := bufio.NewReaderSize(f, fingerprintBytes).ReadSlice('\n')
	if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
		return "" // no whole first line yet
	}
	sum := sha256.Sum256(line)
	return hex.EncodeToString(sum[:12])
}

// segment is a part of one log file still to send.
type segment struct {
	path, file string
	offset     int64
}

// pending are the segments after the cursor, oldest first, and whether
// decisions rotated out before they were sent.
func pending(stateDir string, st Status) (segs []segment, dropped bool) {
	files := decisionlog.Files(stateDir) // older, current
	older := segment{path: files[0], file: fingerprint(files[0])}
	current := segment{path: files[1], file: fingerprint(files[1])}
	switch {
	case st.File != "" && st.File == current.file:
		current.offset = st.Offset
		return []segment{current}, false
	case st.File != "" && st.File == older.file:
		older.offset = st.Offset
		return []segment{older, current}, false
	}
	return []segment{older, current}, st.File != ""
}

// Pending counts the decisions not yet sent, for closer export --status
// and doctor.
func Pending(stateDir string) (int, error) {
	st, err := ReadStatus(stateDir)
	if err != nil {
		return 0, err
	}
	segs, _ := pending(stateDir, st)
	n := 0
	for _, s := range segs {
		if s.file == "" {
			continue
		}
		if _, err := decisionlog.Read(s.path, s.offset, func(decisionlog.Entry) { n++ }); err != nil {
			return n, err
		}
	}
	return n, nil
}

// Exporter sends log records: the OpenTelemetry exporter, or a test's.
type Exporter interface {
	Export(ctx context.Context, records []sdklog.Record) error
	Shutdown(ctx context.Context) error
}

// NewExporter is the OpenTelemetry exporter for s. The SDK's own retries
// are off: Sender retries, keeping the decisions in the log meanwhile.
// The exporters read OTEL_EXPORTER_OTLP_TIMEOUT, _COMPRESSION and
// _CERTIFICATE (and their _LOGS_ forms) from the environment.
func NewExporter(ctx context.Context, s otlp.Settings) (Exporter, error) {
	switch s.Protocol {
	case otlp.ProtocolGRPC:
		opts := []otlploggrpc.Option{otlploggrpc.WithEndpointURL(s.Endpoint), otlploggrpc.WithRetry(otlploggrpc.RetryConfig{Enabled: false})}
		if len(s.Headers) > 0 {
			opts = append(opts, otlploggrpc.WithHeaders(s.Headers))
		}
		return otlploggrpc.New(ctx, opts...)
	default:
		opts := []otlploghttp.Option{otlploghttp.WithEndpointURL(s.Endpoint), otlploghttp.WithRetry(otlploghttp.RetryConfig{Enabled: false})}
		if len(s.Headers) > 0 {
			opts = append(opts, otlploghttp.WithHeaders(s.Headers))
		}
		return otlploghttp.New(ctx, opts...)
	}
}

// Sender sends what the decision log in StateDir holds after the cursor.
type Sender struct {
	StateDir string
	Settings otlp.Settings
	Exporter Exporter

	logger   log.Logger
	captured *capture
}

// capture is a log processor that keeps what is emitted, so that the
// records carry the SDK's resource and scope and are then handed to the
// exporter in a call whose error says whether they arrived.
type capture struct{ records []sdklog.Record }

func (c *capture) Enabled(context.Context, sdklog.EnabledParameters) bool { return true }
func (c *capture) OnEmit(_ context.Context, r *sdklog.Record) error {
	c.records = append(c.records, r.Clone())
	return nil
}
func (c *capture) Shutdown(context.Context) error   { return nil }
func (c *capture) ForceFlush(context.Context) error { return nil }

// Resource is the exported records' resource: the service, its version
// and the machine.
func Resource() *resource.Resource {
	attrs := []attribute.KeyValue{
		attribute.String("service.name", "donegate"),
		attribute.String("service.version", version.String()),
	}
	if h, err := os.Hostname(); err == nil {
		attrs = append(attrs, attribute.String("host.name", h))
	}
	return resource.NewSchemaless(attrs...)
}

func (s *Sender) init() {
	if s.logger != nil {
		return
	}
	s.captured = &capture{}
	p := sdklog.NewLoggerProvider(sdklog.WithResource(Resource()), sdklog.WithProcessor(s.captured))
	s.logger = p.Logger("github.com/donegate/donegate", log.WithInstrumentationVersion(version.String()))
}

// Send sends every decision after the cursor, a batch at a time, moving
// the cursor after each batch the collector took. It returns how many it
// sent; on an error the cursor stays at the first decision not sent.
func (s *Sender) Send(ctx context.Context) (int, error) {
	s.init()
	unlock, err := lockSend(s.StateDir)
	if err != nil {
		return 0, err
	}
	defer unlock()
	st, err := ReadStatus(s.StateDir)
	if err != nil {
		return 0, err
	}
	segs, dropped := pending(s.StateDir, st)
	s.captured.records = s.captured.records[:0] // none left from a send that found no file
	if dropped {
		// Said to the collector too, ahead of what follows the gap.
		st.Dropped = time.Now().UTC()
		s.logger.Emit(ctx, droppedRecord(st.Dropped))
	}
	sent := 0
	for _, seg := range segs {
		if seg.file == "" {
			continue
		}
		n, err := s.sendSegment(ctx, seg, &st)
		sent += n
		if err != nil {
			st.LastError, st.LastErrorAt = err.Error(), time.Now().UTC()
			if werr := writeStatus(s.StateDir, st); werr != nil {
				err = errors.Join(err, werr)
			}
			return sent, err
		}
	}
	if sent > 0 || dropped {
		st.LastError, st.LastErrorAt = "", time.Time{}
		if err := writeStatus(s.StateDir, st); err != nil {
			return sent, fmt.Errorf("export: keeping the cursor: %w", err)
		}
	}
	return sent, nil
}

// sendSegment sends seg in batches, moving st's cursor (and writing it)
// after each.
func (s *Sender) sendSegment(ctx context.Context, seg segment, st *Status) (int, error) {
	f, err := regular.OpenFile(seg.path, os.O_RDONLY|regular.NoFollow, 0)
	if err != nil {
		return 0, fmt.Errorf("export: %w", err)
	}
	defer f.Close()
	if _, err := f.Seek(seg.offset, io.SeekStart); err != nil {
		return 0, fmt.Errorf("export: %w", err)
	}
	r := bufio.NewReaderSize(f, 64<<10)
	sent := 0
	// flush sends what was emitted and moves the cursor to end (past
	// lines that do not decode too).
	flush := func(end int64) error {
		if len(s.captured.records) > 0 {
			n := 0 // decisions, not the record of a loss
			for _, r := range s.captured.records {
				if r.EventName() == EventName {
					n++
				}
			}
			if err := s.Exporter.Export(ctx, s.captured.records); err != nil {
				s.captured.records = s.captured.records[:0]
				return fmt.Errorf("export to %s: %w", s.Settings.Endpoint, err)
			}
			s.captured.records = s.captured.records[:0]
			sent += n
			st.Sent += int64(n)
			st.LastSent = time.Now().UTC()
			st.Endpoint = s.Settings.Endpoint
		}
		if st.File == seg.file && st.Offset == end {
			return nil
		}
		st.File, st.Offset = seg.file, end
		st.LastError, st.LastErrorAt = "", time.Time{}
		if err := writeStatus(s.StateDir, *st); err != nil {
			return fmt.Errorf("export: keeping the cursor: %w", err)
		}
		return nil
	}
	end := seg.offset
	for {
		line, err := r.ReadBytes('\n')
		if len(line) > 0 && line[len(line)-1] == '\n' {
			end += int64(len(line))
			var e decisionlog.Entry
			if json.Unmarshal(line, &e) == nil {
				s.logger.Emit(ctx, record(e))
			}
			if len(s.captured.records) >= batchSize {
				if ferr := flush(end); ferr != nil {
					return sent, ferr
				}
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return sent, fmt.Errorf("export: %w", err)
		}
	}
	return sent, flush(end)
}
