package transcript

import (
	"bytes"

	"github.com/tidwall/gjson"

	"github.com/donegate/donegate/internal/regular"
)

// versionTail bounds how much of a transcript's end ClientVersion reads:
// every line Claude Code writes carries its version, so the last lines do.
const versionTail = 64 << 10

// ClientVersion returns the version of the Claude Code that writes the
// transcript at path ("2.1.331"), from its latest line that names one
// among the last 64 KiB; "" when none does or the file cannot be read.
func ClientVersion(path string) string {
	if path == "" {
		return ""
	}
	f, err := regular.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return ""
	}
	var version string
	read := 0
	_ = eachLineBackward(f, info.Size(), func(line []byte) bool {
		read += len(line) + 1
		if bytes.Contains(line, []byte(`"version"`)) {
			if v := gjson.GetBytes(line, "version"); v.Type == gjson.String {
				version = v.Str
			}
		}
		return version == "" && read < versionTail
	})
	return version
}
