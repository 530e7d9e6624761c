package lab

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLoadParsesTheEmbeddedTestsOncePerProcess: loading the labs again
// gives the same tests without parsing them again, and each load its own
// lists, which a caller may change without changing the next load's.
func TestLoadParsesTheEmbeddedTestsOncePerProcess(t *testing.T) {
	first, err := Load()
	require.NoError(t, err)
	l, err := first.Lookup("10")
	require.NoError(t, err)
	want := slices.Clone(l.public)
	require.NotEmpty(t, want)
	l.public[0] = "TestChangedByACaller"

	second, err := Load()
	require.NoError(t, err)
	l2, err := second.Lookup("10")
	require.NoError(t, err)
	assert.Equal(t, want, l2.public, "the second Load's public tests of lab 10")
	allocs := testing.AllocsPerRun(3, func() {
		if _, err := Load(); err != nil {
			t.Fatal(err)
		}
	})
	assert.Less(t, allocs, 5000.0, "Load parsed the embedded test files again (a parse of them allocates about 150,000 times)")
}
