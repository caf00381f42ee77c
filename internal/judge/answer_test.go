package judge

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/go-playground/validator/v10"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// referenceValidate checks a with validator/v10, the reference of the
// answer's rules, in the words Validate uses.
func referenceValidate(t *testing.T, a *Answer) string {
	t.Helper()
	v := validator.New(validator.WithRequiredStructEnabled())
	v.RegisterTagNameFunc(func(f reflect.StructField) string {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			return ""
		}
		return name
	})
	err := v.Struct(a)
	if err == nil {
		return ""
	}
	var ve validator.ValidationErrors
	require.True(t, errors.As(err, &ve), "%v", err)
	parts := make([]string, len(ve))
	for i, fe := range ve {
		_, field, _ := strings.Cut(fe.Namespace(), ".")
		switch fe.Tag() {
		case "required":
			parts[i] = field + " is required"
		case "min":
			parts[i] = fmt.Sprintf("%s needs at least %s item(s)", field, fe.Param())
		default:
			t.Fatalf("Validate does not know the rule %s of %s: teach it", fe.Tag(), field)
		}
	}
	return strings.Join(parts, "; ")
}

// TestRulesMatchValidator: for each way to break the answer's rules, alone
// and together, Validate says what validator/v10 says, in its order. The
// hooks cannot link validator; closer judge and the judge checker both
// use Validate, so its rules are the tags'.
func TestRulesMatchValidator(t *testing.T) {
	for _, tt := range []struct {
		name, json, want string
	}{
		{"valid", `{"checklist":[{"id":"1","description":"d","completed":false,"evidence":"e"}],"allComplete":false,"summary":"s","pendingActions":[]}`, ""},
		{"valid without evidence or actions", `{"checklist":[{"id":"1","description":"d","completed":true}],"allComplete":true,"summary":"s"}`, ""},
		{"no checklist", `{"allComplete":true,"summary":"s"}`, "checklist is required"},
		{"null checklist", `{"checklist":null,"allComplete":true,"summary":"s"}`, "checklist is required"},
		{"empty checklist", `{"checklist":[],"allComplete":true,"summary":"s"}`, "checklist needs at least 1 item(s)"},
		{"item without id or completed", `{"checklist":[{"description":"d"}],"allComplete":true,"summary":"s"}`, "checklist[0].id is required; checklist[0].completed is required"},
		{"empty item, second", `{"checklist":[{"id":"1","description":"d","completed":true},{}],"summary":"s"}`,
			"checklist[1].id is required; checklist[1].description is required; checklist[1].completed is required"},
		{"no summary", `{"checklist":[{"id":"1","description":"d","completed":true}],"allComplete":true}`, "summary is required"},
		{"everything wrong", `{"checklist":[{"id":"","completed":null}]}`,
			"checklist[0].id is required; checklist[0].description is required; checklist[0].completed is required; summary is required"},
		{"nothing", `{}`, "checklist is required; summary is required"},
		{"reason is not the judge's", `{"checklist":[{"id":"1","description":"d","completed":true}],"summary":"s","reason":""}`, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var a Answer
			require.NoError(t, json.Unmarshal([]byte(tt.json), &a))
			want := referenceValidate(t, &a)
			assert.Equal(t, tt.want, want, "the table's expectation is validator's")
			got := ""
			if err := a.Validate(); err != nil {
				got = err.Error()
			}
			assert.Equal(t, want, got)
		})
	}
}

func TestDecodeAnswer(t *testing.T) {
	for _, tt := range []struct {
		name, text, wantErr string
	}{
		{"structured", `{"checklist":[{"id":"1","description":"d","completed":true,"evidence":"e"}],"allComplete":true,"summary":"s","pendingActions":[]}`, ""},
		{"fenced in prose", "Verdict:\n```json\n{\"checklist\":[{\"id\":\"1\",\"description\":\"d\",\"completed\":true}],\"summary\":\"ok\"}\n```", ""},
		{"the valid of two", `{"checklist":[]} then {"checklist":[{"id":"1","description":"d","completed":true}],"summary":"ok"}`, ""},
		{"malformed", `{"checklist":[{"description":"d"}],"summary":"s"}`, "answer is malformed: checklist[0].id is required; checklist[0].completed is required"},
		{"wrong type", `{"checklist":"all of it"}`, "not the expected JSON: json: cannot unmarshal string"},
		{"after a stray brace of prose", `Use {braces, then: {"checklist":[{"id":"1","description":"d","completed":true}],"summary":"ok"}`, ""},
		{"braces in its strings", `Verdict: {"checklist":[{"id":"1","description":"a } and a {","completed":true}],"summary":"ok \" }"} end`, ""},
		{"after more objects than are tried", strings.Repeat(`{} `, maxCandidates) + `{"checklist":[{"id":"1","description":"d","completed":true}],"summary":"ok"}`,
			"answer is malformed: checklist is required; summary is required"},
		{"prose", "Looks good to me!", `no JSON object in the answer "Looks good to me!"`},
		{"empty", " \n", "the answer is empty"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var a Answer
			err := FindJSON(tt.text, &a, decodeAnswer)
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, "1", a.Checklist[0].ID)
		})
	}
}

func TestRecompute(t *testing.T) {
	yes, no := true, false
	for _, tt := range []struct {
		name        string
		a           Answer
		wantAll     bool
		wantReason  string
		wantPending []string
	}{
		{"all done", Answer{Checklist: []Item{{ID: "1", Description: "a", Completed: &yes}}, AllComplete: true}, true, "", []string{}},
		{"an open item, said so", Answer{Checklist: []Item{{ID: "1", Description: "a", Completed: &no}}, PendingActions: []string{"do a"}}, false, "", []string{"do a"}},
		{"all complete with open items", Answer{Checklist: []Item{{ID: "1", Description: "a", Completed: &yes}, {ID: "2", Description: "b", Completed: &no}, {ID: "3", Description: "c", Completed: &no}}, AllComplete: true},
			false, "the judge said all complete, but item(s) 2, 3 are not", []string{"b", "c"}},
		{"not all complete though every item is", Answer{Checklist: []Item{{ID: "1", Description: "a", Completed: &yes}}}, true, "", []string{}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a := tt.a
			a.Recompute()
			assert.Equal(t, tt.wantAll, a.AllComplete)
			assert.Equal(t, tt.wantReason, a.Reason)
			assert.Equal(t, tt.wantPending, a.PendingActions)
		})
	}
}
