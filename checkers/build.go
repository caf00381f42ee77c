package checkers

import (
	"fmt"

	"github.com/donegate/donegate/config"
)

// FromConfig builds the configured chain: an implicit composite of mode all.
func FromConfig(c *config.Config) (Checker, error) {
	return newComposite(false, false, c.Checkers)
}

// New builds one checker from its config.
func New(spec config.Checker) (Checker, error) {
	switch spec.Type {
	case config.TypePlan:
		return Plan{}, nil
	case config.TypeFiles:
		return Files{Paths: spec.Paths}, nil
	case config.TypeTest:
		return Test{Command: spec.Command, Timeout: spec.Timeout.D(), Cache: spec.CacheEnabled()}, nil
	case config.TypeComposite:
		return newComposite(spec.Mode == "any", spec.Parallel, spec.Checkers)
	}
	// config validation makes this unreachable; keep it an error, not a panic.
	return nil, fmt.Errorf("unknown checker type %q", spec.Type)
}

func newComposite(any, parallel bool, specs []config.Checker) (Composite, error) {
	m := Composite{Any: any, Parallel: parallel, Members: make([]Member, len(specs))}
	for i, s := range specs {
		ch, err := New(s)
		if err != nil {
			return Composite{}, err
		}
		m.Members[i] = Member{Label: s.Label(), Checker: ch}
	}
	return m, nil
}
