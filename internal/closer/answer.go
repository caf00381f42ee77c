package closer

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/go-playground/validator/v10"

	"github.com/donegate/donegate/internal/judge"
)

// validate checks the answers of models against their struct tags. One
// value: it caches struct metadata. Only closer links validator; the hooks
// must not (see startup_test.go).
var validate = newValidator()

func newValidator() *validator.Validate {
	v := validator.New(validator.WithRequiredStructEnabled())
	// Name fields as the answer does (checklist[0].id), not as Go does.
	v.RegisterTagNameFunc(func(f reflect.StructField) string {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			return ""
		}
		return name
	})
	return v
}

// decodeAnswer decodes a model's JSON answer into v and validates it.
func decodeAnswer(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("not the expected JSON: %w", err)
	}
	if err := validate.Struct(v); err != nil {
		return fmt.Errorf("answer is malformed: %s", describeValidation(err))
	}
	return nil
}

// describeValidation turns validator's errors into "checklist[0].id is
// required; status must be one of complete waiting working".
func describeValidation(err error) string {
	var ve validator.ValidationErrors
	if !errors.As(err, &ve) {
		return err.Error()
	}
	parts := make([]string, len(ve))
	for i, fe := range ve {
		field := jsonPath(fe.Namespace())
		switch fe.Tag() {
		case "required":
			parts[i] = field + " is required"
		case "oneof":
			parts[i] = fmt.Sprintf("%s must be one of %s, not %q", field, fe.Param(), fmt.Sprint(fe.Value()))
		case "min":
			parts[i] = fmt.Sprintf("%s needs at least %s item(s)", field, fe.Param())
		default:
			parts[i] = fmt.Sprintf("%s fails %s=%s", field, fe.Tag(), fe.Param())
		}
	}
	return strings.Join(parts, "; ")
}

// jsonPath drops the Go type from validator's namespace
// (JudgeAnswer.checklist[0].id).
func jsonPath(ns string) string {
	if i := strings.IndexByte(ns, '.'); i >= 0 {
		ns = ns[i+1:]
	}
	return ns
}

// findAnswer finds the JSON object in a model's text answer and decodes it
// into v, checked with validator (see judge.FindJSON).
func findAnswer(text string, v any) error {
	return judge.FindJSON(text, v, decodeAnswer)
}

// preview is the start of s, for messages.
func preview(s string) string { return judge.Preview(s) }
