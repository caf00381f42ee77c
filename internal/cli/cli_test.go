package cli_test

import (
	"flag"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/donegate/donegate/internal/cli"
)

func TestPrintFlags(t *testing.T) {
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	fs.String("config", "", "config `file` (default: found)")
	fs.Bool("version", false, "print the version\nand exit")
	fs.Duration("timeout", 0, "how long to wait")
	fs.Duration("probe-interval", 30*time.Second, "between probes")
	fs.String("dir", ".", "the project `dir`")
	fs.Int("max", 5, "at most")
	var b strings.Builder
	cli.PrintFlags(&b, fs)
	assert.Equal(t, "  --config FILE\n    \tconfig file (default: found)\n"+
		"  --dir DIR\n    \tthe project dir (default \".\")\n"+
		"  --max INT\n    \tat most (default 5)\n"+
		"  --probe-interval DURATION\n    \tbetween probes (default 30s)\n"+
		"  --timeout DURATION\n    \thow long to wait\n"+
		"  --version\n    \tprint the version\n    \tand exit\n", b.String())
}

func TestFlagError(t *testing.T) {
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.String("config", "", "")
	fs.Int("n", 0, "")
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--bogus"}, "unknown flag --bogus"},
		{[]string{"-bogus"}, "unknown flag --bogus"},
		{[]string{"--config"}, "flag --config needs a value"},
		{[]string{"--n", "many"}, `invalid value "many" for flag --n: parse error`},
		{[]string{"---x"}, "bad flag syntax: ---x"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			err := fs.Parse(tt.args)
			if assert.Error(t, err) {
				assert.Equal(t, tt.want, cli.FlagError(err))
			}
		})
	}
}
