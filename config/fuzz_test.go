package config_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"github.com/donegate/donegate/config"
)

// FuzzParse: any bytes give a valid config or a *config.Error naming the
// source; a valid config survives a round trip through JSON unchanged.
func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"checkers":[{"type":"plan"}]}`))
	f.Add([]byte(`{"dialect":"sdk","checkers":[{"type":"test","command":"go test ./...","timeout":"5m","cache":false},{"type":"composite","mode":"any","parallel":true,"checkers":[{"type":"files","paths":["a","b*"]}]}],"limits":{"max_blocks":5,"deadline":"30m","budget":"540s"},"on_error":"block","gate_tools":["StructuredOutput"]}`))
	f.Add([]byte(`{"checkers":[{"type":"tests"}],"limits":{"budget":"5 minutes"}}`))
	f.Add([]byte(`{"limits":{"max_blocks":1.5}}`))
	f.Add([]byte(`{"checkers":[{"type":"composite","checkers":[{"type":"keyword","promise":" DONE "},{"type":"iterations","min":2}]},{"type":"keyword","keyword":""},{"type":"phase","target":"review"}],"limits":{"max_blocks":2}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := config.Parse(bytes.NewReader(data), "fuzz.json")
		if err != nil {
			var ce *config.Error
			if !errors.As(err, &ce) || ce.Source != "fuzz.json" || len(ce.Problems) == 0 {
				t.Fatalf("error is not a *config.Error with problems: %v", err)
			}
			return
		}
		out, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		again, err := config.Parse(bytes.NewReader(out), "fuzz.json")
		if err != nil {
			t.Fatalf("a valid config re-encoded does not parse: %v\n%s", err, out)
		}
		if !reflect.DeepEqual(c, again) {
			t.Fatalf("round trip changed the config:\n%+v\n%+v", c, again)
		}
	})
}
