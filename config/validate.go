package config

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"

	"github.com/go-playground/validator/v10"
)

// validatorOnce builds the shared Validate (it caches struct metadata) on
// first use, not at start-up: a hook that answers an ungated tool event
// never loads a config and must not pay for building it.
var validatorOnce = sync.OnceValue(func() *validator.Validate {
	v := validator.New(validator.WithRequiredStructEnabled())
	// Report fields by their JSON names, so paths match the file.
	v.RegisterTagNameFunc(func(f reflect.StructField) string {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			return ""
		}
		return name
	})
	v.RegisterStructValidation(checkerRules, Checker{})
	return v
})

// checkerRules holds the per-type rules that tags cannot say.
func checkerRules(sl validator.StructLevel) {
	c := sl.Current().Interface().(Checker)
	switch c.Type {
	case TypeFiles:
		if len(c.Paths) == 0 {
			sl.ReportError(c.Paths, "paths", "Paths", "nonempty", "")
		}
	case TypeComposite:
		if len(c.Checkers) == 0 {
			sl.ReportError(c.Checkers, "checkers", "Checkers", "nonempty", "")
		}
	}
}

func validate(c *Config) []Problem {
	err := validatorOnce().Struct(c)
	if err == nil {
		return nil
	}
	var verrs validator.ValidationErrors
	if !errors.As(err, &verrs) {
		return []Problem{{Message: err.Error()}}
	}
	ps := make([]Problem, 0, len(verrs))
	for _, fe := range verrs {
		// Namespace is "Config.checkers[1].command"; drop the type name.
		_, path, _ := strings.Cut(fe.Namespace(), ".")
		ps = append(ps, Problem{Path: path, Message: explain(fe)})
	}
	return ps
}

func explain(fe validator.FieldError) string {
	switch fe.Tag() {
	case "required", "required_if":
		return "required"
	case "nonempty":
		return "must not be empty"
	case "oneof":
		return fmt.Sprintf("must be one of %s, got %q", strings.Join(strings.Fields(fe.Param()), ", "), fmt.Sprint(fe.Value()))
	case "gte":
		return "must be at least " + fe.Param()
	case "gt":
		return "must be greater than " + fe.Param()
	}
	return fmt.Sprintf("fails rule %q", fe.Tag())
}
