package names_test

import (
	"slices"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/coursekit/course/grader/names"
)

func TestCompareOrdersNamesAsPeopleRead(t *testing.T) {
	got := []string{"Zoë", "bob10", "alice", "Émile", "bob2", "Bob", "zed", "Alice"}
	slices.SortFunc(got, names.Compare)
	assert.Equal(t, []string{"alice", "Alice", "Bob", "bob2", "bob10", "Émile", "zed", "Zoë"}, got,
		"slices.SortFunc(names, names.Compare): letters by the collation, case and accents after, numbers by value")
}

func TestCompareIsTotal(t *testing.T) {
	// U+00AD (a soft hyphen) is ignored by the collation: the bytes decide.
	a, b := "ann", "an\u00adn"
	assert.NotZero(t, names.Compare(a, b), "Compare(%q, %q): two different names are never the same", a, b)
	assert.Equal(t, -names.Compare(a, b), names.Compare(b, a), "Compare is antisymmetric")
	assert.Zero(t, names.Compare("zoë", "zoë"))
}

func TestCompareFromManyGoroutines(t *testing.T) {
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 200 {
				if names.Compare("alice", "Zoë") >= 0 {
					t.Error(`Compare("alice", "Zoë") >= 0, want alice first`)
					return
				}
			}
		}()
	}
	wg.Wait()
}
