package closer

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/donegate/donegate/hookio"
	"github.com/donegate/donegate/internal/gate"
	"github.com/donegate/donegate/internal/otlp"
	"github.com/donegate/donegate/internal/otlp/send"
)

var exportCommand = command{
	name:     "export",
	noConfig: true,
	summary: `Send the hooks' decisions to an OpenTelemetry collector, each as an OTLP
log record (docs/export.md): to the endpoint of DONEGATE_OTLP_ENDPOINT,
else of the user's otlp.json, else of OpenTelemetry's
OTEL_EXPORTER_OTLP_ENDPOINT. Once an endpoint is set the hooks start
this in the background after each decision; run it yourself to send
what is left now (at the end of a CI job, say): it exits 1 when the
collector did not take them. They wait in the decision log meanwhile.
--status says where they go, how many wait, and the last error.`,
	bind: func(fs *flag.FlagSet, _ *options) runFunc {
		var o exportOptions
		fs.BoolVar(&o.status, "status", false, "say where decisions go, how many wait, and how the last send went; send nothing")
		fs.BoolVar(&o.background, "background", false, "the hooks' form: keep sending while decisions come, retrying a collector that fails, then end")
		stateDirFlag(fs, &o.stateDir)
		return func(ctx context.Context, r *runCtx) (verdict, error) { return runExport(ctx, r, o) }
	},
}

// exportOptions are closer export's flags.
type exportOptions struct {
	status, background bool
	stateDir           string
}

// exportReport is closer export's outcome, and --status's.
type exportReport struct {
	Endpoint string `json:"endpoint,omitempty"`
	From     string `json:"from,omitempty"`
	Protocol string `json:"protocol,omitempty"`
	// Sent: by this run; Pending: left in the log after it.
	Sent    int         `json:"sent"`
	Pending int         `json:"pending"`
	Status  send.Status `json:"status"`
}

func runExport(ctx context.Context, r *runCtx, o exportOptions) (verdict, error) {
	if r.opts.configPath != "" {
		return incomplete, errorf(ErrUsage, "--config: export reads no config")
	}
	stateDir := r.stateDirOr(o.stateDir)
	settings, on, err := otlp.Resolve(r.env.Getenv)
	if o.background {
		// The hooks' form: what goes wrong is kept in the status, for
		// closer export --status and doctor.
		if err != nil || !on {
			return incomplete, err
		}
		exp, err := send.NewExporter(ctx, settings)
		if err != nil {
			return incomplete, err
		}
		defer exp.Shutdown(context.Background())
		s := &send.Sender{StateDir: stateDir, Settings: settings, Exporter: exp}
		if err := s.RunBackground(ctx, send.DefaultBackground); err != nil && !errors.Is(err, send.ErrRunning) {
			return incomplete, err
		}
		return complete, nil
	}
	if err != nil {
		return incomplete, errorf(ErrConfig, "%w", err)
	}
	rep := exportReport{Endpoint: settings.Endpoint, From: settings.From, Protocol: settings.Protocol}
	var sendErr error
	if !o.status {
		if !on {
			return incomplete, errorf(ErrConfig, "no export is set: set DONEGATE_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_ENDPOINT to the collector's URL (http://host:4318), or write %s (docs/export.md)", otlp.UserFile(r.env.Getenv))
		}
		if err := r.personOnly("export"); err != nil {
			return incomplete, err
		}
		exp, err := send.NewExporter(ctx, settings)
		if err != nil {
			return incomplete, errorf(ErrConfig, "%w", err)
		}
		s := &send.Sender{StateDir: stateDir, Settings: settings, Exporter: exp}
		rep.Sent, sendErr = s.Send(ctx)
		shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = exp.Shutdown(shutdownCtx)
	}
	if rep.Pending, err = send.Pending(stateDir); err != nil {
		return incomplete, errorf(ErrEnv, "%w", err)
	}
	if rep.Status, err = send.ReadStatus(stateDir); err != nil {
		return incomplete, errorf(ErrEnv, "%w", err)
	}
	if sendErr != nil && sendErr.Error() != rep.Status.LastError {
		// Not the collector's answer (kept below): the lock, the log.
		fmt.Fprintf(r.stderr, "%s: %v\n", r.name, sendErr)
	}
	v := verdict(rep.Pending == 0 || o.status)
	if r.opts.json {
		return v, writeJSON(r.stdout, rep)
	}
	p := r.printer()
	switch {
	case !on:
		p.line("Export: off (no DONEGATE_OTLP_ENDPOINT, no " + otlp.UserFile(r.env.Getenv) + ", no OTEL_EXPORTER_OTLP_ENDPOINT): the decisions stay in the decision log.")
		return v, p.err
	case o.status:
		p.line(fmt.Sprintf("Export: to %s (%s, from %s).", rep.Endpoint, rep.Protocol, rep.From))
	default:
		p.line(fmt.Sprintf("Sent %d decision(s) to %s.", rep.Sent, rep.Endpoint))
	}
	p.line(fmt.Sprintf("Waiting in the decision log: %d.", rep.Pending))
	st := rep.Status
	if !st.LastSent.IsZero() {
		p.line(fmt.Sprintf("Last sent: %s (%d in all).", st.LastSent.Local().Format(time.DateTime), st.Sent))
	}
	if st.LastError != "" {
		p.line(fmt.Sprintf("Last error: %s: %s", st.LastErrorAt.Local().Format(time.DateTime), st.LastError))
	}
	if !st.Dropped.IsZero() {
		p.line(fmt.Sprintf("Lost: decisions rotated out of the log before they were sent (found %s).", st.Dropped.Local().Format(time.DateTime)))
	}
	return v, p.err
}

// isExportVar reports whether name is one of the export's variables.
func isExportVar(name string) bool { return slices.Contains(otlp.Vars, name) }

// doctorExport says where the decisions go and how the last send went.
func (r *runCtx) doctorExport(rep *DoctorReport) {
	if file, names := gate.ProjectSetsVars(r.dir); file != "" {
		if names = slices.DeleteFunc(names, func(n string) bool { return !isExportVar(n) }); len(names) > 0 {
			rep.add("export", statusWarn, "set it where you start the host, in your user settings, or in "+otlp.UserFile(r.env.Getenv), "%s sets %s in the hooks' environment: the hooks ignore it (the agent can write the project's settings, and would choose where your decisions go)", r.display(file), strings.Join(names, ", "))
		}
	}
	settings, on, err := otlp.Resolve(r.env.Getenv)
	switch {
	case err != nil:
		rep.add("export", statusFail, "fix it, or unset it (docs/export.md)", "%v: no decision is sent", err)
		return
	case !on:
		rep.add("export", statusOK, "", "off: the decisions stay in the decision log (closer log); DONEGATE_OTLP_ENDPOINT or %s sends them to an OpenTelemetry collector (docs/export.md)", otlp.UserFile(r.env.Getenv))
		return
	}
	stateDir := r.stateDir()
	pending, _ := send.Pending(stateDir)
	st, _ := send.ReadStatus(stateDir)
	rep.add("export", statusOK, "", "to %s (%s, from %s): %d sent, %d waiting", settings.Endpoint, settings.Protocol, settings.From, st.Sent, pending)
	if strings.HasPrefix(settings.From, "OTEL_") {
		var hiding []string
		for _, h := range hookio.Hosts {
			if h.HidesOTEL() {
				hiding = append(hiding, h.Title())
			}
		}
		if len(hiding) > 0 {
			rep.add("export", statusWarn, "set DONEGATE_OTLP_ENDPOINT where you start the host, or write "+otlp.UserFile(r.env.Getenv), "the endpoint comes from %s here, which %s removes from its hooks' environment: there the hooks send nothing", settings.From, strings.Join(hiding, " and "))
		}
	}
	if st.LastError != "" {
		rep.add("export", statusWarn, "closer export sends what waits now, and says why it cannot", "the last send failed (%s): %s", st.LastErrorAt.Local().Format(time.DateTime), st.LastError)
	}
	if !st.Dropped.IsZero() {
		rep.add("export", statusWarn, "", "decisions rotated out of the decision log before they were sent (found %s)", st.Dropped.Local().Format(time.DateTime))
	}
}

// doctorExporterBeside says, where the export is on, that the hook binary
// at hook has no closer beside it to start the exporter with.
func (r *runCtx) doctorExporterBeside(rep *DoctorReport, hook string) {
	if _, on, err := otlp.Resolve(r.env.Getenv); err != nil || !on {
		return
	}
	if _, err := otlp.CloserBeside(hook); err != nil {
		rep.add("export", statusWarn, "install closer in the same dir: "+installCommand(runtime.GOOS), "%v", strings.TrimPrefix(err.Error(), "export: "))
	}
}
