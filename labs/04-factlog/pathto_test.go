package factlog_test

// Public tests of exercise 4.2, PathTo. Run them with
//
//	go test -run Lab4_2
//
// Every input below has exactly one problem (or none).

import (
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
		require.NoError(t, err, "PathTo(the chapter's tree, %q): want the path %v and no error: every entry from %q "+
			"up to the root r is there, and the chain has no loop", c.leaf, c.want, c.leaf)
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
		require.ErrorAs(t, err, &unknown, "PathTo(%d entries, \"m9\") error = %s; want an *UnknownIDError: "+
			"no entry has id m9", len(entries), describe(err))
		assert.Equal(t, "m9", unknown.ID, "PathTo(%d entries, \"m9\"): UnknownIDError.ID names the id asked for", len(entries))
		assert.Nil(t, path, "PathTo(%d entries, \"m9\") failed, so it returns no path", len(entries))
	}

	path, err := pathTo(t, seedTree(), "M3A")
	var unknown *factlog.UnknownIDError
	require.ErrorAs(t, err, &unknown, "PathTo(the chapter's tree, \"M3A\") error = %s, path %v; want an "+
		"*UnknownIDError: ids are compared exactly, and no entry has id M3A (m3a is another id)", describe(err), ids(path))
	assert.Equal(t, "M3A", unknown.ID, "PathTo(the chapter's tree, \"M3A\"): UnknownIDError.ID names the id asked for")
	assert.Nil(t, path, "PathTo(the chapter's tree, \"M3A\") failed, so it returns no path")
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
	require.ErrorAs(t, err, &broken, "PathTo(entries, \"d\") error = %s; want a *BrokenChainError: d's parent "+
		"c has parent x, which is not there", describe(err))
	assert.Equal(t, factlog.BrokenChainError{ChildID: "c", ParentID: "x"}, *broken,
		"PathTo(entries, \"d\") error = %v, want an error naming child \"c\" and parent \"x\": where the chain breaks, "+
			"so a person can find the line (rule 4.2.3)", err)
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
		require.ErrorAs(t, err, &cycle, "PathTo(x→y→x and s→s, %q) error = %s; want a *CycleError: the chain "+
			"never reaches a root", c.leaf, describe(err))
		assert.Equal(t, c.closes, cycle.ID, "PathTo(x→y→x and s→s, %q): CycleError.ID is the id the walk meets a "+
			"second time, where the chain closes", c.leaf)
		assert.Nil(t, path, "PathTo(x→y→x and s→s, %q) failed, so it returns no path", c.leaf)
	}
}

// Rule 4.2.4: when the leaf is not on the loop (a tail of entries leads into
// it), the *CycleError names the id where the loop closes, the first id the
// walk meets a second time: not the leaf, and not wherever a limit on the
// walk's length happens to stop it.
func TestLab4_2_CycleAboveTheLeafNamedWhereItCloses(t *testing.T) {
	entries := []factlog.Entry{
		user("c", "a", "c follows a: the loop closes here"),
		user("leaf", "a", "leaf follows a"),
		assistant("a", "b", "a follows b"),
		user("u", "v", "u follows v"),
		user("r", "", "a healthy root elsewhere"),
		assistant("b", "c", "b follows c"),
		assistant("v", "a", "v follows a"),
		tool("t", "s", "t follows s"),
		tool("s", "s", "s follows itself"),
	}
	const tree = "leaf → a, u → v → a, a → b → c → a, t → s → s"
	for _, c := range []struct{ leaf, walk, closes string }{
		{"leaf", "leaf, a, b, c, then a again", "a"},
		{"u", "u, v, a, b, c, then a again", "a"},
		{"t", "t, s, then s again", "s"},
	} {
		path, err := pathTo(t, entries, c.leaf)
		var cycle *factlog.CycleError
		require.ErrorAs(t, err, &cycle, "PathTo(%s, %q) error = %s; want a *CycleError: the walk from %s goes %s "+
			"and never reaches a root", tree, c.leaf, describe(err), c.leaf, c.walk)
		assert.Equal(t, c.closes, cycle.ID, "PathTo(%s, %q): CycleError.ID = %q; want %q. The walk goes %s: %q is "+
			"the first id it meets a second time, where the loop closes. The leaf is not on the loop, so neither the "+
			"leaf nor the entry where a limit on the walk's length stops is the id to name: keep a set of the ids "+
			"you have passed and name the one you find in it", tree, c.leaf, cycle.ID, c.closes, c.walk, c.closes)
		assert.Nil(t, path, "PathTo(%s, %q) failed, so it returns no path", tree, c.leaf)
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
	assert.Equal(t, []string{"r", "a", "b"}, ids(path), "PathTo(entries, \"b\"): the chain b → a → r, root first")

	path, err = pathTo(t, entries, "c")
	require.NoError(t, err, "PathTo(entries, \"c\"): several roots are fine")
	assert.Equal(t, []string{"r2", "c"}, ids(path), "PathTo(entries, \"c\"): the chain c → r2, root first")
}
