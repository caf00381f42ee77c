//go:build ignore

// gen writes the generated pages of the manual: `go generate
// ./internal/docgen`, offline.
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/donegate/donegate/internal/docgen"
)

func main() {
	const module = "../.."
	pages, err := docgen.Pages(module)
	if err != nil {
		fmt.Fprintln(os.Stderr, "docgen:", err)
		os.Exit(1)
	}
	for path, b := range pages {
		if err := os.WriteFile(filepath.Join(module, path), b, 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "docgen:", err)
			os.Exit(1)
		}
	}
}
