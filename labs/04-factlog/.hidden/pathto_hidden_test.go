package factlog_test

import (
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
	require.NoError(t, err, "PathTo(a chain of %d stored leaf first, its leaf): want the whole chain and no error: every parent is there", n)
	require.Len(t, path, n)
	for i, e := range path {
		if e.ID != fmt.Sprintf("n%d", i+1) {
			t.Fatalf("PathTo: entry %d of the path is %q, want n%d: root first", i, e.ID, i+1)
		}
	}
	assert.Equal(t, before, entries, "PathTo changed its input: reading a path never reorders or edits the history")

	path, err = pathTo(t, entries, "n3")
	require.NoError(t, err, "PathTo(the same chain, \"n3\"): n3 → n2 → n1 is whole")
	assert.Equal(t, []string{"n1", "n2", "n3"}, ids(path))
}

// Rule 4.2.4: tails of two and three entries lead into a loop of five, at
// different points; each cycle is named where the walk meets an id a second
// time, whatever the length of the tail or of the log.
func TestLab4_2_HiddenCycleAboveTheLeaf(t *testing.T) {
	entries := []factlog.Entry{
		user("p3", "p4", "loop"),
		user("k2", "k1", "tail of two"),
		user("root", "", "a healthy root elsewhere"),
		user("p0", "p1", "loop"),
		user("q1", "p0", "tail of three"),
		user("p4", "p0", "loop"),
		assistant("m1", "root", "a healthy child"),
		user("k1", "p2", "tail of two"),
		user("p1", "p2", "loop"),
		user("q3", "q2", "tail of three"),
		user("p2", "p3", "loop"),
		user("q2", "q1", "tail of three"),
	}
	for _, c := range []struct{ leaf, walk, closes string }{
		{"k2", "k2, k1, p2, p3, p4, p0, p1, then p2 again", "p2"},
		{"q3", "q3, q2, q1, p0, p1, p2, p3, p4, then p0 again", "p0"},
		{"p4", "p4, p0, p1, p2, p3, then p4 again", "p4"},
	} {
		path, err := pathTo(t, entries, c.leaf)
		var cycle *factlog.CycleError
		require.ErrorAs(t, err, &cycle, "PathTo(entries, %q) error = %s; want a *CycleError: the walk goes %s",
			c.leaf, describe(err), c.walk)
		assert.Equal(t, c.closes, cycle.ID, "PathTo(entries, %q): the walk goes %s: the chain closes at %q",
			c.leaf, c.walk, c.closes)
		assert.Nil(t, path, "PathTo(entries, %q) failed: no path", c.leaf)
	}
	path, err := pathTo(t, entries, "m1")
	require.NoError(t, err, "PathTo(entries, \"m1\"): m1 → root is whole; the loop is elsewhere")
	assert.Equal(t, []string{"root", "m1"}, ids(path))
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
	require.ErrorAs(t, err, &broken, "PathTo(k50 → … → k1 → lost) error = %s; want a *BrokenChainError", describe(err))
	assert.Equal(t, factlog.BrokenChainError{ChildID: "k1", ParentID: "lost"}, *broken,
		"the chain breaks between k1 and its missing parent lost")
	assert.Nil(t, path)
}

// Rule 4.2.2: ids are compared exactly; the empty id is unknown too.
func TestLab4_2_HiddenUnknownIDsExactly(t *testing.T) {
	for _, id := range []string{"", "M4B", "m4b ", "m"} {
		path, err := pathTo(t, seedTree(), id)
		var unknown *factlog.UnknownIDError
		require.ErrorAs(t, err, &unknown, "PathTo(the chapter's tree, %q) error = %s; want an *UnknownIDError",
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
		require.NoError(t, err, "PathTo(three branches under m2 and a broken entry elsewhere, %q): want the path and no error: the broken entry is on another branch", leaf)
		assert.Equal(t, want, ids(path), "PathTo(%q)", leaf)
	}
}
