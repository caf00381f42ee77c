package closer

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestParseStatus(t *testing.T) {
	for _, tt := range []struct {
		name string
		in   string
		want Changes
	}{
		{"clean", "", Changes{Staged: []string{}, Unstaged: []string{}, Untracked: []string{}}},
		{"staged, unstaged, both, untracked",
			"M  staged.go\x00 M unstaged.go\x00MM both.go\x00A  new.go\x00 D gone.go\x00?? new dir/file.txt\x00",
			Changes{Staged: []string{"staged.go", "both.go", "new.go"}, Unstaged: []string{"unstaged.go", "both.go", "gone.go"}, Untracked: []string{"new dir/file.txt"}}},
		{"rename carries the old path in the next field",
			"R  new.go\x00old.go\x00 M other.go\x00",
			Changes{Staged: []string{"new.go"}, Unstaged: []string{"other.go"}, Untracked: []string{}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := parseStatus(tt.in)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.in != "", got.Any())
		})
	}
}
