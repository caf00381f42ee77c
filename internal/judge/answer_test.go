package judge

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
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
		{"unanswered is not the judge's", `{"checklist":[{"id":"1","description":"d","completed":true}],"summary":"s","unanswered":[]}`, ""},
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
	item := func(id, desc string, done *bool) Item { return Item{ID: id, Description: desc, Completed: done} }
	three := []string{"a", "b", "c"}
	for _, tt := range []struct {
		name           string
		a              Answer
		criteria       []string
		wantAll        bool
		wantReason     string
		wantPending    []string
		wantIDs        []string // the checklist's, in order
		wantUnanswered []string
	}{
		{name: "all done", a: Answer{Checklist: []Item{item("1", "a", &yes)}, AllComplete: true}, criteria: []string{"a"},
			wantAll: true, wantPending: []string{}, wantIDs: []string{"1"}},
		{name: "an open item, said so", a: Answer{Checklist: []Item{item("1", "a", &no)}, PendingActions: []string{"do a"}}, criteria: []string{"a"},
			wantPending: []string{"do a"}, wantIDs: []string{"1"}},
		{name: "all complete with open items", a: Answer{Checklist: []Item{item("1", "a", &yes), item("2", "b", &no), item("3", "c", &no)}, AllComplete: true}, criteria: three,
			wantReason: "the judge said all complete, but item(s) 2, 3 are not", wantPending: []string{"b", "c"}, wantIDs: []string{"1", "2", "3"}},
		{name: "not all complete though every item is", a: Answer{Checklist: []Item{item("1", "a", &yes)}}, criteria: []string{"a"},
			wantAll: true, wantPending: []string{}, wantIDs: []string{"1"}},
		{name: "one completed item about something else entirely", a: Answer{Checklist: []Item{item("x", "something else entirely", &yes)}, AllComplete: true}, criteria: three,
			wantReason:  `the judge gave no checklist item for criteria 1, 2, 3; completed item(s) ["x"] answer no criterion and were left out`,
			wantPending: three, wantIDs: []string{"1", "2", "3"}, wantUnanswered: []string{"1", "2", "3"}},
		{name: "a criterion left out", a: Answer{Checklist: []Item{item("1", "a", &yes), item("3", "c", &yes)}, AllComplete: true}, criteria: three,
			wantReason: "the judge gave no checklist item for criterion 2", wantPending: []string{"b"}, wantIDs: []string{"1", "3", "2"}, wantUnanswered: []string{"2"}},
		{name: "ids as a list writes them", a: Answer{Checklist: []Item{item("#1", "a", &yes), item("2.", "b", &yes), item(" 3) ", "c", &yes)}, AllComplete: true}, criteria: three,
			wantAll: true, wantPending: []string{}, wantIDs: []string{"#1", "2.", " 3) "}},
		{name: "ids that are not the numbers", a: Answer{Checklist: []Item{item("a", "a", &yes), item("b", "b", &yes), item("c", "c", &yes)}, AllComplete: true}, criteria: three,
			wantReason:  `the judge gave no checklist item for criteria 1, 2, 3; completed item(s) ["a" "b" "c"] answer no criterion and were left out`,
			wantPending: three, wantIDs: []string{"1", "2", "3"}, wantUnanswered: []string{"1", "2", "3"}},
		{name: "an open item of no criterion is kept", a: Answer{Checklist: []Item{item("1", "a", &yes), item("9", "the tests are slow", &no)}}, criteria: []string{"a"},
			wantPending: []string{"the tests are slow"}, wantIDs: []string{"1", "9"}},
		{name: "a criterion answered twice, once open", a: Answer{Checklist: []Item{item("1", "a", &yes), item("1", "a", &no)}, AllComplete: true}, criteria: []string{"a"},
			wantReason: "the judge said all complete, but item(s) 1 are not", wantPending: []string{"a"}, wantIDs: []string{"1", "1"}},
		{name: "what the judge's text says of itself is ignored", a: Answer{Checklist: []Item{item("1", "a", &yes)}, AllComplete: true, Reason: "trust me", Unanswered: []string{"7"}}, criteria: []string{"a"},
			wantAll: true, wantPending: []string{}, wantIDs: []string{"1"}},
		{name: "criteria unknown: the checklist alone", a: Answer{Checklist: []Item{item("x", "a", &yes)}, AllComplete: true},
			wantAll: true, wantPending: []string{}, wantIDs: []string{"x"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a := tt.a
			a.Recompute(tt.criteria)
			assert.Equal(t, tt.wantAll, a.AllComplete)
			assert.Equal(t, tt.wantReason, a.Reason)
			assert.Equal(t, tt.wantPending, a.PendingActions)
			ids := []string{}
			for _, it := range a.Checklist {
				ids = append(ids, it.ID)
			}
			assert.Equal(t, tt.wantIDs, ids)
			assert.Equal(t, tt.wantUnanswered, a.Unanswered)
			for _, it := range a.Checklist {
				if slices.Contains(tt.wantUnanswered, it.ID) {
					assert.False(t, it.Done(), it.ID)
					assert.Equal(t, "the judge gave no checklist item for this criterion", it.Evidence)
				}
			}
		})
	}
}

func TestSplitCriteria(t *testing.T) {
	for _, tt := range []struct {
		name, text string
		want       []string
	}{
		{"one", "it works", []string{"it works"}},
		{"numbered", "\n1. it builds\n2) it is documented\n", []string{"it builds", "it is documented"}},
		{"bullets, blank lines", "- a\n\n* b\n+ c", []string{"a", "b", "c"}},
		{"a heading and wrapped lines", "## Done when\n- the API is versioned, and\n  old clients still work\n- errors are logged", []string{"the API is versioned, and old clients still work", "errors are logged"}},
		{"an issue number is no heading", "#12 is fixed", []string{"#12 is fixed"}},
		{"plain lines", "tests pass\ndocs updated", []string{"tests pass", "docs updated"}},
		{"nothing", " \n# Title\n", nil},
	} {
		t.Run(tt.name, func(t *testing.T) { assert.Equal(t, tt.want, SplitCriteria(tt.text)) })
	}
}
