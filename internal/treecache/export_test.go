package treecache

import (
	"testing"
	"time"
)

// PretendLater makes fingerprints in t see the clock d ahead, so the files
// a test just wrote are past the racy margin.
func PretendLater(t testing.TB, d time.Duration) {
	old := now
	now = func() time.Time { return old().Add(d) }
	t.Cleanup(func() { now = old })
}

// BigFile is the size above which a file counts by its metadata.
const BigFile = bigFile

// MaxWalkFiles sets the bound of the walk outside git for t.
func MaxWalkFiles(t testing.TB, n int) {
	old := maxWalkFiles
	maxWalkFiles = n
	t.Cleanup(func() { maxWalkFiles = old })
}

// Hashed is how many bytes fingerprinting has hashed so far.
func Hashed() int64 { return hashed.Load() }

// SnapshotAnswers is how many looks a snapshot of the tree has answered.
func SnapshotAnswers() int64 { return snapshotAnswers.Load() }

// ErrNoRepo is findGit's error where there is no repository.
var ErrNoRepo = errNoRepo
