package safewrite

import (
	"os"
	"time"
)

// renameBudget bounds how long Rename retries a rename that Windows
// refuses while another process has the destination open.
const renameBudget = 2 * time.Second

// Rename renames from to to, replacing to, as os.Rename does — and on
// Windows, where a rename over a file another process holds open fails
// with "Access is denied" (measured under Wine 8 with the reader's file
// opened by os.Open, and with FILE_SHARE_DELETE too; an antivirus or an
// indexer may hold it a moment), it tries again for up to 2 s, waiting a
// little longer each time, before it gives up with the last error. A
// reader closes its file in milliseconds: a state or cache file replaced
// while a hook reads it is replaced once the reader is done. Elsewhere a
// rename over an open file always works, and the first error is the
// answer.
func Rename(from, to string) error {
	return retry(func() error { return os.Rename(from, to) }, transient, renameBudget)
}

// retry calls op until it succeeds, fails with an error that transient
// does not accept, or budget has passed; the waits between calls double
// from 1 ms up to 100 ms.
func retry(op func() error, transient func(error) bool, budget time.Duration) error {
	deadline := time.Now().Add(budget)
	wait := time.Millisecond
	for {
		err := op()
		if err == nil || !transient(err) || time.Now().Add(wait).After(deadline) {
			return err
		}
		time.Sleep(wait)
		wait = min(2*wait, 100*time.Millisecond)
	}
}
