package closer

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"time"

	"github.com/donegate/donegate/hookio"
	"github.com/donegate/donegate/internal/consent"
	"github.com/donegate/donegate/internal/decisionlog"
)

// A session that ran without the gate leaves no decision: the hooks were
// not registered, the host skipped them (Codex exec runs no untrusted
// hook), or they were turned off. closer log --ungated sets the sessions
// the hosts keep records of (hookio.RecordedSessions) beside the decision
// log: a session in a project donegate gates (one with a decision on
// record, or --project) of which donegate answered no stop is listed, and
// the exit status is 1, so that a CI job or a fleet's check can fail on
// it.

// maxUngatedScan bounds the session records read, the most recent first.
const maxUngatedScan = 2000

// ungatedSession is one line of closer log --ungated.
type ungatedSession struct {
	Host    string    `json:"host"`
	Session string    `json:"session"`
	Project string    `json:"project"`
	Last    time.Time `json:"lastActive"`
	Record  string    `json:"record"`
	// Active says its record was written in the last minutes: it may not
	// have stopped yet.
	Active bool `json:"active,omitempty"`
}

// recentlyActive is how recent a record's last write is for its session
// to count as maybe still going.
const recentlyActive = 2 * time.Minute

func (r *runCtx) logUngated(o logOptions, since time.Time) (verdict, error) {
	if o.follow || o.summary {
		return incomplete, errorf(ErrUsage, "--ungated goes with neither --follow nor --summary")
	}
	answered := map[string]bool{}
	gated := map[string]bool{} // projects, resolved
	for _, f := range decisionlog.Files(r.stateDirOr(o.stateDir)) {
		if _, err := decisionlog.Read(f, 0, func(e decisionlog.Entry) {
			answered[e.Session] = true
			if e.Project != "" {
				gated[consent.Resolve(e.Project)] = true
			}
		}); err != nil {
			return incomplete, errorf(ErrEnv, "decision log: %w", err)
		}
	}
	if o.project != "" {
		abs, err := filepath.Abs(o.project)
		if err != nil {
			return incomplete, errorf(ErrUsage, "--project: %w", err)
		}
		gated = map[string]bool{consent.Resolve(abs): true}
	}
	now := r.env.Now()
	var found []ungatedSession
	for _, h := range hookio.HostsKeepingSessions() {
		for _, s := range h.RecordedSessions(r.env.Getenv, since, maxUngatedScan) {
			if answered[s.ID] || !gated[consent.Resolve(s.Cwd)] || (o.session != "" && s.ID != o.session) {
				continue
			}
			found = append(found, ungatedSession{Host: string(h), Session: s.ID, Project: s.Cwd, Last: s.Last, Record: s.Path, Active: now.Sub(s.Last) < recentlyActive})
		}
	}
	if r.opts.json {
		enc := json.NewEncoder(r.stdout)
		for _, s := range found {
			if err := enc.Encode(s); err != nil {
				return incomplete, errorf(ErrEnv, "%w", err)
			}
		}
	} else if len(found) == 0 {
		fmt.Fprintln(r.stdout, "Every session the hosts recorded in the projects donegate gates has a decision of donegate's (hosts read: "+sessionHosts()+").")
	} else {
		fmt.Fprintf(r.stdout, "%-19s  %-16s  %-8s  %-8s  %s\n", "LAST ACTIVE", "PROJECT", "HOST", "SESSION", "WHAT")
		for _, s := range found {
			what := "donegate answered none of its stops: it ran without the gate"
			if s.Active {
				what = "no stop answered yet: active in the last " + recentlyActive.String() + ", it may not have stopped yet"
			}
			fmt.Fprintf(r.stdout, "%-19s  %-16s  %-8s  %-8s  %s\n", s.Last.Local().Format("2006-01-02 15:04:05"), clip(filepath.Base(s.Project), 16), s.Host, clip(s.Session, 8), what)
		}
	}
	if len(found) > 0 {
		return incomplete, nil
	}
	return complete, nil
}

// sessionHosts names the hosts whose session records are read.
func sessionHosts() string {
	var names []string
	for _, h := range hookio.HostsKeepingSessions() {
		names = append(names, h.Title())
	}
	return andList(names)
}
