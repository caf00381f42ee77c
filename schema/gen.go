//go:build ignore

// gen writes donegate.schema.json: `go generate ./schema`, offline.
package main

import (
	"fmt"
	"os"

	"github.com/donegate/donegate/schema"
)

func main() {
	b, err := schema.Generate("..")
	if err != nil {
		fmt.Fprintln(os.Stderr, "schema:", err)
		os.Exit(1)
	}
	if err := os.WriteFile(schema.FileName, b, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "schema:", err)
		os.Exit(1)
	}
}
