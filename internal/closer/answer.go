package closer

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/go-playground/validator/v10"
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
// into v: the whole text, else a block fenced with ```, else the first
// object in the prose that decodes and validates. The error is the one of
// the first candidate that looked like an answer.
func findAnswer(text string, v any) error {
	var firstErr error
	try := func(candidate string) bool {
		candidate = strings.TrimSpace(candidate)
		if !strings.HasPrefix(candidate, "{") {
			return false
		}
		// A candidate that failed must leave nothing behind in v:
		// encoding/json keeps fields a later candidate leaves out.
		reflect.ValueOf(v).Elem().SetZero()
		err := decodeAnswer([]byte(candidate), v)
		if err == nil {
			return true
		}
		if firstErr == nil {
			firstErr = err
		}
		return false
	}
	if try(text) {
		return nil
	}
	for _, block := range fencedBlocks(text) {
		if try(block) {
			return nil
		}
	}
	for i := 0; i < len(text); i++ {
		if text[i] != '{' {
			continue
		}
		var raw json.RawMessage
		if json.NewDecoder(strings.NewReader(text[i:])).Decode(&raw) != nil {
			continue
		}
		if try(string(raw)) {
			return nil
		}
		i += len(raw) - 1
	}
	if firstErr != nil {
		return firstErr
	}
	if strings.TrimSpace(text) == "" {
		return errors.New("the answer is empty")
	}
	return fmt.Errorf("no JSON object in the answer %q", preview(text))
}

// fencedBlocks returns the contents of the ``` fences in text.
func fencedBlocks(text string) []string {
	var out []string
	for {
		i := strings.Index(text, "```")
		if i < 0 {
			return out
		}
		rest := text[i+3:]
		// Skip the info string (```json).
		nl := strings.IndexByte(rest, '\n')
		if nl < 0 {
			return out
		}
		body := rest[nl+1:]
		j := strings.Index(body, "```")
		if j < 0 {
			return out
		}
		out = append(out, body[:j])
		text = body[j+3:]
	}
}

// preview is the start of s, for messages.
func preview(s string) string {
	s = oneLine(s)
	if len(s) > 120 {
		return s[:120] + "..."
	}
	return s
}
