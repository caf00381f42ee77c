package main

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"sync/atomic"
)

// The export's rows (issue 48): a blocking stop, whose decision goes to
// the collector, and an ungated tool call, which makes none, each with an
// export set, timed against the same case without: the collector up (a
// stand-in that answers every OTLP/HTTP request at once), down (a port
// that refuses), and taking connections and never answering.

// upRequests counts the requests the collector that is up took: none
// would mean the rows measured no export.
var upRequests atomic.Int64

// exportCollectors starts the three collectors and returns their
// endpoints by name, and what stops them.
func exportCollectors() (map[string]string, func(), error) {
	up := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		upRequests.Add(1)
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/x-protobuf")
		w.WriteHeader(http.StatusOK) // an empty ExportLogsServiceResponse
	})}
	upL, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, nil, err
	}
	go func() { _ = up.Serve(upL) }()

	down, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, nil, err
	}
	downAddr := down.Addr().String()
	down.Close()

	// Taken and held: the exporter's request waits for its timeout.
	hang, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, nil, err
	}
	var held []net.Conn
	go func() {
		for {
			c, err := hang.Accept()
			if err != nil {
				return
			}
			held = append(held, c)
		}
	}()
	stop := func() {
		up.Close()
		hang.Close()
		for _, c := range held {
			c.Close()
		}
	}
	return map[string]string{
		"up":   "http://" + upL.Addr().String(),
		"down": "http://" + downAddr,
		"hang": "http://" + hang.Addr().String(),
	}, stop, nil
}

// exportCase is c with the export set to endpoint, in its own state dir.
func exportCase(c *bcase, work, state, endpoint string) *bcase {
	e := *c
	e.name = c.name + "-export-" + state
	e.env = append([]string{"DONEGATE_OTLP_ENDPOINT=" + endpoint}, c.env...)
	e.argv = append([]string(nil), c.argv...)
	for i, a := range e.argv {
		if a == "--state-dir" && i+1 < len(e.argv) {
			e.argv[i+1] = filepath.Join(work, "state-"+e.name)
		}
	}
	e.times = nil
	return &e
}

// exportRows compares each export case with its case without.
func exportRows(by map[string]*bcase, ratio func(a, b string) float64) []row {
	rows := []row{{"export set, collector up: requests it took (the exporters the hooks started sent)", fmt.Sprint(upRequests.Load()), "> 0", upRequests.Load() > 0}}
	for _, base := range []struct{ name, what string }{{"small", "blocking stop (its decision exported)"}, {"bash", "ungated tool call (no decision)"}} {
		for _, state := range []string{"up", "down", "hang"} {
			name := base.name + "-export-" + state
			r := ratio(name, base.name)
			what := map[string]string{"up": "collector up", "down": "collector down", "hang": "collector taking connections, never answering"}[state]
			rows = append(rows, row{fmt.Sprintf("export set, %s: %s", what, base.what),
				fmt.Sprintf("%s = %.3f× the same without", ms(median(by[name].times)), r), "≤ 1.05× the same without", r <= 1.05})
		}
	}
	return rows
}
