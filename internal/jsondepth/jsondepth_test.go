package jsondepth_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/donegate/donegate/internal/jsondepth"
)

func TestWithin(t *testing.T) {
	tests := []struct {
		name  string
		data  string
		limit int
		want  bool
	}{
		{"scalar", `1`, 0, true},
		{"empty object at limit 1", `{}`, 1, true},
		{"empty object at limit 0", `{}`, 0, false},
		{"two levels", `{"a":[1,2]}`, 2, true},
		{"two levels, limit 1", `{"a":[1,2]}`, 1, false},
		{"siblings do not add up", `[[1],[2],[3]]`, 2, true},
		{"brackets in strings", `{"a":"[[[[{{{{"}`, 1, true},
		{"escaped quote keeps the string open", `{"a":"\"[[[["}`, 1, true},
		{"escaped backslash closes the string", `{"a":"\\","b":[[1]]}`, 2, false},
		{"unbalanced closers", `]]]]}}}}[`, 1, true},
		{"as many brackets as the limit", strings.Repeat("[", 3) + strings.Repeat("]", 3), 3, true},
		{"one level more than the limit", strings.Repeat("[", 4) + strings.Repeat("]", 4), 3, false},
		{"many brackets, shallow", "[" + strings.Repeat("[1],", 1000) + "[2]]", 2, true},
		{"six million deep", strings.Repeat("[", 6_000_000), 1000, false},
		{"deep but inside the limit", strings.Repeat("[", 1000) + strings.Repeat("]", 1000), 1000, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, jsondepth.Within([]byte(tt.data), tt.limit))
		})
	}
}
