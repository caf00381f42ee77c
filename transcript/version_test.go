package transcript_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/transcript"
)

func TestClientVersion(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "t.jsonl")
	require.NoError(t, os.WriteFile(p, []byte(`{"type":"user","version":"2.1.300"}
{"type":"assistant","version":"2.1.331","message":{}}
{"type":"api-request-blob"}
`), 0o644))
	assert.Equal(t, "2.1.331", transcript.ClientVersion(p), "the latest line that names one")
	assert.Equal(t, "", transcript.ClientVersion(filepath.Join(dir, "none.jsonl")))
	assert.Equal(t, "", transcript.ClientVersion(dir), "not a regular file")
}
