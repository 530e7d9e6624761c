package factlog_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	factlog "github.com/coursekit/course/labs/04-factlog"
)

// Rule 4.2.1: a long chain stored leaf first comes back root first, and the
// input is left as it was.
func TestLab4_2_HiddenLongChainAnyOrder(t *testing.T) {
	const n = 5000
	var entries []factlog.Entry
	for i := n; i >= 1; i-- { // children before parents
		parent := ""
		if i > 1 {
			parent = fmt.Sprintf("n%d", i-1)
		}
		entries = append(entries, assistant(fmt.Sprintf("n%d", i), parent, "x"))
	}
	before := append([]factlog.Entry(nil), entries...)
	path, err := pathTo(t, entries, fmt.Sprintf("n%d", n))
	require.NoError(t, err, "PathTo(a chain of %d stored leaf first, its leaf)", n)
	require.Len(t, path, n)
	for i, e := range path {
		if e.ID != fmt.Sprintf("n%d", i+1) {
			t.Fatalf("PathTo: entry %d of the path is %q, want n%d: root first", i, e.ID, i+1)
		}
	}
	assert.Equal(t, before, entries, "PathTo changed its input: reading a path never reorders or edits the history")

	path, err = pathTo(t, entries, "n3")
	require.NoError(t, err)
	assert.Equal(t, []string{"n1", "n2", "n3"}, ids(path))
}

// Rule 4.2.4: a cycle above the leaf is named where it closes.
func TestLab4_2_HiddenCycleAboveTheLeaf(t *testing.T) {
	entries := []factlog.Entry{
		user("c", "a", "c"),
		user("a", "b", "a"),
		user("leaf", "a", "leaf"),
		user("b", "c", "b"),
		user("root", "", "a healthy root elsewhere"),
	}
	path, err := pathTo(t, entries, "leaf")
	var cycle *factlog.CycleError
	require.True(t, errors.As(err, &cycle), "PathTo(leaf → a → b → c → a, \"leaf\") error = %s; want a *CycleError", describe(err))
	assert.Equal(t, "a", cycle.ID, "the walk meets a a second time: there the chain closes")
	assert.Contains(t, err.Error(), `"a"`)
	assert.Nil(t, path)
}

// Rule 4.2.3: a broken chain far above the leaf names the entry whose parent is missing.
func TestLab4_2_HiddenBrokenChainFarUp(t *testing.T) {
	var entries []factlog.Entry
	parent := "lost"
	for i := 1; i <= 50; i++ {
		id := fmt.Sprintf("k%d", i)
		entries = append(entries, user(id, parent, id))
		parent = id
	}
	entries = append(entries, user("lost-sibling", "", "a root with a similar name"))
	path, err := pathTo(t, entries, "k50")
	var broken *factlog.BrokenChainError
	require.True(t, errors.As(err, &broken), "PathTo(k50 → … → k1 → lost) error = %s; want a *BrokenChainError", describe(err))
	assert.Equal(t, factlog.BrokenChainError{ChildID: "k1", ParentID: "lost"}, *broken,
		"the chain breaks between k1 and its missing parent lost")
	assert.Nil(t, path)
}

// Rule 4.2.2: ids are compared exactly; the empty id is unknown too.
func TestLab4_2_HiddenUnknownIDsExactly(t *testing.T) {
	for _, id := range []string{"", "M4B", "m4b ", "m"} {
		path, err := pathTo(t, seedTree(), id)
		var unknown *factlog.UnknownIDError
		require.True(t, errors.As(err, &unknown), "PathTo(the chapter's tree, %q) error = %s; want an *UnknownIDError",
			id, describe(err))
		assert.Equal(t, id, unknown.ID)
		assert.Nil(t, path)
	}
}

// Rule 4.2.5, 4.2.1: a new branch beside an old one changes neither path.
func TestLab4_2_HiddenBranchesSideBySide(t *testing.T) {
	entries := append(seedTree(), assistant("m3c", "m2", "a third try"), user("x", "nowhere", "broken, elsewhere"))
	for leaf, want := range map[string][]string{
		"m3a": {"r", "m1", "m2", "m3a"},
		"m4b": {"r", "m1", "m2", "m3b", "m4b"},
		"m3c": {"r", "m1", "m2", "m3c"},
	} {
		path, err := pathTo(t, entries, leaf)
		require.NoError(t, err, "PathTo(three branches under m2 and a broken entry elsewhere, %q)", leaf)
		assert.Equal(t, want, ids(path), "PathTo(%q)", leaf)
	}
}
