package hookio

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestHasOutputSchema(t *testing.T) {
	assert.True(t, hasOutputSchema([]string{"exec", "--json", "--output-schema", "/tmp/s.json", "Do it"}))
	assert.True(t, hasOutputSchema([]string{"exec", "--output-schema=/tmp/s.json", "Do it"}))
	assert.False(t, hasOutputSchema([]string{"exec", "--json", "Do it"}))
	assert.False(t, hasOutputSchema([]string{"exec", "--", "--output-schema", "x"}), "after -- it is the prompt")
	// Not under Codex (go test is the parent): it cannot be told, and a
	// JSON message is then no structured answer.
	assert.False(t, codexWithSchema())
}
