package transcript

import (
	"bytes"
	"io"

	"github.com/tidwall/gjson"

	"github.com/donegate/donegate/internal/regular"
)

// versionTail is how much of a transcript's end ClientVersion reads:
// every line Claude Code writes carries its version, so the last lines do.
const versionTail = 64 << 10

// ClientVersion returns the version of the Claude Code that writes the
// transcript at path ("2.1.331"), from its latest line that names one;
// "" when none does or the file cannot be read.
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
	from := max(info.Size()-versionTail, 0)
	buf := make([]byte, info.Size()-from)
	if _, err := f.ReadAt(buf, from); err != nil && err != io.EOF {
		return ""
	}
	for len(buf) > 0 {
		i := bytes.LastIndexByte(bytes.TrimRight(buf, "\n"), '\n')
		line := buf[i+1:]
		if bytes.Contains(line, []byte(`"version"`)) {
			if v := gjson.GetBytes(line, "version"); v.Type == gjson.String && v.Str != "" {
				return v.Str
			}
		}
		if i < 0 {
			break
		}
		buf = buf[:i]
	}
	return ""
}
