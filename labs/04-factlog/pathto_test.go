package factlog_test

// Public tests of exercise 4.2, PathTo. Run them with
//
//	go test -run Lab4_2
//
// Every input below has exactly one problem (or none).

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	factlog "github.com/coursekit/course/labs/04-factlog"
)

// pathTo calls PathTo, failing the test instead of hanging if it loops.
func pathTo(t *testing.T, entries []factlog.Entry, leaf string) (path []factlog.Entry, err error) {
	t.Helper()
	within(t, "PathTo(entries, "+leaf+")", func() { path, err = factlog.PathTo(entries, leaf) })
	return path, err
}

// Rule 4.2.1: the active path is root first, only this branch, in a new slice.
func TestLab4_2_RootToLeaf(t *testing.T) {
	cases := []struct {
		leaf string
		want []string
	}{
		{"m4b", []string{"r", "m1", "m2", "m3b", "m4b"}},
		{"m3a", []string{"r", "m1", "m2", "m3a"}},
		{"m2", []string{"r", "m1", "m2"}},
		{"r", []string{"r"}},
	}
	for _, c := range cases {
		entries := seedTree()
		path, err := pathTo(t, entries, c.leaf)
		require.NoError(t, err, "PathTo(the chapter's tree, %q)", c.leaf)
		assert.Equal(t, c.want, ids(path), "PathTo(the chapter's tree, %q): follow parentId from the leaf up to the "+
			"root, then give the path root first; the other branch is not part of it", c.leaf)
		for _, e := range path {
			for _, in := range seedTree() {
				if in.ID == e.ID {
					assert.Equal(t, in, e, "PathTo(%q): entry %q must come back whole", c.leaf, e.ID)
				}
			}
		}
		if len(path) > 0 {
			path[0].Text = "changed by the caller"
			assert.Equal(t, seedTree(), entries, "PathTo(entries, %q) returned a slice that shares its array with "+
				"entries: changing the path changed the history. Build a new slice", c.leaf)
		}
	}
}

// Rule 4.2.2: an unknown leaf is an *UnknownIDError naming it.
func TestLab4_2_UnknownIDNamed(t *testing.T) {
	for _, entries := range [][]factlog.Entry{seedTree(), nil} {
		path, err := pathTo(t, entries, "m9")
		var unknown *factlog.UnknownIDError
		require.True(t, errors.As(err, &unknown), "PathTo(%d entries, \"m9\") error = %s; want an *UnknownIDError: "+
			"no entry has id m9", len(entries), describe(err))
		assert.Equal(t, "m9", unknown.ID, "PathTo(%d entries, \"m9\"): UnknownIDError.ID names the id asked for", len(entries))
		assert.Contains(t, err.Error(), `"m9"`, "the message names the id")
		assert.Nil(t, path, "PathTo failed, so it returns no path")
	}
}

// Rule 4.2.3: a parent that is not there is a *BrokenChainError naming the
// child and the missing parent.
func TestLab4_2_BrokenChainNamesBothIDs(t *testing.T) {
	entries := []factlog.Entry{
		user("r", "", "start"),
		assistant("a", "r", "ok"),
		user("c", "x", "the entry x was never written"),
		assistant("d", "c", "ok"),
	}
	path, err := pathTo(t, entries, "d")
	var broken *factlog.BrokenChainError
	require.True(t, errors.As(err, &broken), "PathTo(entries, \"d\") error = %s; want a *BrokenChainError: d's parent "+
		"c has parent x, which is not there", describe(err))
	assert.Equal(t, factlog.BrokenChainError{ChildID: "c", ParentID: "x"}, *broken,
		"PathTo(entries, \"d\") error = %v, want an error naming child \"c\" and parent \"x\": where the chain breaks, "+
			"so a person can find the line", err)
	assert.Contains(t, err.Error(), `"c"`, "the message names the child")
	assert.Contains(t, err.Error(), `"x"`, "the message names the missing parent")
	assert.Nil(t, path, "PathTo failed, so it returns no path, not the part it walked")
}

// Rule 4.2.4: a chain that comes back on itself is a *CycleError naming the
// id where it closes, and PathTo returns.
func TestLab4_2_CycleIsAnError(t *testing.T) {
	entries := []factlog.Entry{
		user("x", "y", "x follows y"),
		assistant("y", "x", "y follows x"),
		user("s", "s", "s follows itself"),
	}
	for _, c := range []struct{ leaf, closes string }{{"x", "x"}, {"y", "y"}, {"s", "s"}} {
		path, err := pathTo(t, entries, c.leaf)
		var cycle *factlog.CycleError
		require.True(t, errors.As(err, &cycle), "PathTo(x→y→x and s→s, %q) error = %s; want a *CycleError: the chain "+
			"never reaches a root", c.leaf, describe(err))
		assert.Equal(t, c.closes, cycle.ID, "PathTo(x→y→x and s→s, %q): CycleError.ID is the id the walk meets a "+
			"second time, where the chain closes", c.leaf)
		assert.Nil(t, path, "PathTo failed, so it returns no path")
	}
}

// Rule 4.2.5: only the chain from the leaf to its root is checked: other
// roots, and damage on other branches, are not this path's business.
func TestLab4_2_OnlyTheChainIsChecked(t *testing.T) {
	entries := []factlog.Entry{
		user("r", "", "first session"),
		user("z", "gone", "its parent was never written"),
		assistant("a", "r", "ok"),
		user("p", "q", "p and q are a cycle"),
		user("q", "p", "q and p are a cycle"),
		user("r2", "", "a second root"),
		assistant("b", "a", "ok"),
		assistant("c", "r2", "ok"),
	}
	path, err := pathTo(t, entries, "b")
	require.NoError(t, err, "PathTo(entries, \"b\"): b → a → r is whole; z's missing parent, the p/q cycle and a "+
		"second root are elsewhere. Checking the whole tree is another job")
	assert.Equal(t, []string{"r", "a", "b"}, ids(path), "PathTo(entries, \"b\")")

	path, err = pathTo(t, entries, "c")
	require.NoError(t, err, "PathTo(entries, \"c\"): several roots are fine")
	assert.Equal(t, []string{"r2", "c"}, ids(path), "PathTo(entries, \"c\")")
}
