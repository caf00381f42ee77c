package closer

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/donegate/donegate/internal/decisionlog"
	"github.com/donegate/donegate/internal/gate"
)

// logSummary is what closer log --summary tells of one project and host:
// how the decisions went, what held the agent most, and what the checks
// cost.
type logSummary struct {
	Project   string `json:"project"`
	Host      string `json:"host"`
	Sessions  int    `json:"sessions"`
	Decisions int    `json:"decisions"`
	// Held counts the holds; Complete the stops and calls let go with
	// nothing open; LetGo those let go with work open (a limit spent);
	// Observed those observe mode let go; Released those the person
	// released; Refused the agent's calls refused (guard) and its tries
	// at the person's commands.
	Held     int `json:"held"`
	Complete int `json:"complete"`
	LetGo    int `json:"letGo"`
	Observed int `json:"observed"`
	Released int `json:"released"`
	Refused  int `json:"refused"`
	// Checks counts the checks run or reused; Reused those reused;
	// CheckMS the time spent in checks (reused ones cost what reading
	// their result did).
	Checks  int   `json:"checks"`
	Reused  int   `json:"reused"`
	CheckMS int64 `json:"checkMs"`
	// OpenItems are the checks most often open when the agent was held,
	// most first.
	OpenItems []openItem `json:"openItems,omitempty"`
	sessions  map[string]bool
	open      map[string]int
}

type openItem struct {
	Label string `json:"label"`
	Count int    `json:"count"`
}

// maxOpenItems bounds a summary's OpenItems.
const maxOpenItems = 3

// add counts e into s.
func (s *logSummary) add(e decisionlog.Entry) {
	s.Decisions++
	if e.Session != "" && !s.sessions[e.Session] {
		s.sessions[e.Session] = true
		s.Sessions++
	}
	switch gate.Kind(e.Decision) {
	case gate.KindBlocked:
		s.Held++
		for _, c := range e.Checks {
			if !c.Complete {
				s.open[c.Label]++
			}
		}
	case gate.KindComplete:
		s.Complete++
	case gate.KindLetGo:
		s.LetGo++
	case gate.KindObserved:
		s.Observed++
	case gate.KindReleased:
		s.Released++
	case gate.KindRefused:
		s.Refused++
	}
	for _, c := range e.Checks {
		s.Checks++
		s.CheckMS += c.TookMS
		if c.Reused {
			s.Reused++
		}
	}
}

// summarize groups entries by project and host, the busiest first.
func summarize(entries []decisionlog.Entry) []*logSummary {
	by := map[[2]string]*logSummary{}
	var out []*logSummary
	for _, e := range entries {
		k := [2]string{e.Project, e.Host}
		s, ok := by[k]
		if !ok {
			s = &logSummary{Project: e.Project, Host: e.Host, sessions: map[string]bool{}, open: map[string]int{}}
			by[k] = s
			out = append(out, s)
		}
		s.add(e)
	}
	for _, s := range out {
		for label, n := range s.open {
			s.OpenItems = append(s.OpenItems, openItem{Label: label, Count: n})
		}
		sort.Slice(s.OpenItems, func(i, j int) bool {
			a, b := s.OpenItems[i], s.OpenItems[j]
			return a.Count > b.Count || a.Count == b.Count && a.Label < b.Label
		})
		s.OpenItems = s.OpenItems[:min(len(s.OpenItems), maxOpenItems)]
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Decisions > out[j].Decisions })
	return out
}

// printSummary prints the summaries as --json or the table asks.
func (r *runCtx) printSummary(sums []*logSummary) error {
	if r.opts.json {
		if sums == nil {
			sums = []*logSummary{}
		}
		return json.NewEncoder(r.stdout).Encode(map[string]any{"summary": sums})
	}
	fmt.Fprintf(r.stdout, "%-16s  %-8s  %8s  %9s  %5s  %8s  %6s  %8s  %7s  %10s  %6s  %s\n",
		"PROJECT", "HOST", "SESSIONS", "DECISIONS", "HELD", "COMPLETE", "LET GO", "RELEASED", "REFUSED", "CHECK TIME", "REUSED", "MOST OPEN")
	for _, s := range sums {
		var open []string
		for _, o := range s.OpenItems {
			open = append(open, fmt.Sprintf("%s (%d)", o.Label, o.Count))
		}
		reused := "-"
		if s.Checks > 0 {
			reused = fmt.Sprintf("%d%%", 100*s.Reused/s.Checks)
		}
		letGo := s.LetGo + s.Observed
		_, err := fmt.Fprintf(r.stdout, "%-16s  %-8s  %8d  %9d  %5d  %8d  %6d  %8d  %7d  %10s  %6s  %s\n",
			clip(filepath.Base(s.Project), 16), s.Host, s.Sessions, s.Decisions, s.Held, s.Complete, letGo, s.Released, s.Refused,
			(time.Duration(s.CheckMS) * time.Millisecond).Round(time.Second).String(), reused, strings.Join(open, ", "))
		if err != nil {
			return err
		}
	}
	return nil
}
