//go:build !linux

package treecache

import (
	"context"
	"time"
)

// canWalk: a snapshot needs the change time, which statOf reads on Linux
// only; elsewhere every look asks git.
const canWalk = false

func (w *treeWatch) walk(ctx context.Context, skip, hot []string, start time.Time) (string, error) {
	return "", errNoSnapshot
}
