// Command floor is the baseline for hook latency: the least a Go hook can
// do — read the event on stdin and print {}. `make bench` compares the
// real hooks with it.
package main

import (
	"io"
	"os"
)

func main() {
	_, _ = io.Copy(io.Discard, os.Stdin)
	_, _ = os.Stdout.WriteString("{}\n")
}
