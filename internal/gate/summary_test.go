package gate

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/donegate/donegate/hookio"
)

// The hooks' --help names every host, from the host table: a host added
// there is in the help without another edit.
func TestHelpNamesEveryHost(t *testing.T) {
	for _, h := range hookio.Hosts {
		for name, summary := range map[string]string{"stop-hook": stopSummary(), "posttooluse-hook": toolSummary()} {
			assert.Contains(t, strings.Join(strings.Fields(summary), " "), h.Title()+": ", "%s's --help", name)
		}
	}
	for _, line := range strings.Split(stopSummary()+"\n"+toolSummary(), "\n") {
		assert.LessOrEqual(t, len(line), 76, line)
	}
}
