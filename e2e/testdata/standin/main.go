// Command standin stands in for a hook binary in the plugin's bin/ in the
// wrapper's tests: an ELF (the wrapper runs no other file) that prints
// "plugin", the name it was run by and its arguments in brackets on one
// line, then copies its stdin.
package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
)

func main() {
	fmt.Print("plugin ", filepath.Base(os.Args[0]))
	for _, arg := range os.Args[1:] {
		fmt.Printf(" [%s]", arg)
	}
	fmt.Println()
	if _, err := io.Copy(os.Stdout, os.Stdin); err != nil {
		fmt.Fprintln(os.Stderr, "standin:", err)
		os.Exit(1)
	}
}
