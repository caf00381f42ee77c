package closer

import (
	"fmt"
	"os"
	"strings"

	"github.com/donegate/donegate/internal/regular"
)

// reportToCI tells the CI that runs closer check --ci what it found, in
// its own terms. GitHub Actions ($GITHUB_ACTIONS=true): an ::error::
// workflow command per open check, which the run's page shows as an
// annotation, and a table of every check appended to the job's summary
// ($GITHUB_STEP_SUMMARY, a file the runner gives each step). Elsewhere
// the checklist and the exit status are the report.
func (r *runCtx) reportToCI(rep CheckReport) error {
	if r.env.Getenv("GITHUB_ACTIONS") != "true" {
		return nil
	}
	for _, it := range rep.Checklist {
		if !it.Done() {
			fmt.Fprintf(r.stdout, "::error title=%s::%s\n", ghProperty("donegate: "+it.ID+". "+it.Description), ghMessage(firstLine(it.Evidence)))
		}
	}
	path := r.env.Getenv("GITHUB_STEP_SUMMARY")
	if path == "" {
		return nil
	}
	var b strings.Builder
	b.WriteString("### donegate\n\n| | check | evidence |\n|---|---|---|\n")
	for _, it := range rep.Checklist {
		mark := "✅"
		if !it.Done() {
			mark = "❌"
		}
		fmt.Fprintf(&b, "| %s | %s | %s |\n", mark, cell(it.ID+". "+it.Description), cell(firstLine(it.Evidence)))
	}
	if rep.AllComplete {
		b.WriteString("\nComplete: every check passes.\n")
	} else {
		fmt.Fprintf(&b, "\nIncomplete: %d of %d checks open.\n", len(rep.PendingActions), len(rep.Checklist))
	}
	// The runner's file: appended to, never through a link or a FIFO.
	f, err := regular.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return errorf(ErrEnv, "$GITHUB_STEP_SUMMARY: %w", err)
	}
	_, werr := f.WriteString(b.String())
	if err := f.Close(); werr == nil {
		werr = err
	}
	if werr != nil {
		return errorf(ErrEnv, "$GITHUB_STEP_SUMMARY: %w", werr)
	}
	return nil
}

// ghMessage escapes s as a workflow command's message.
func ghMessage(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// ghProperty escapes s as a workflow command's property value.
func ghProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}

// cell makes s one Markdown table cell.
func cell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ", "\r", " ").Replace(s)
}
