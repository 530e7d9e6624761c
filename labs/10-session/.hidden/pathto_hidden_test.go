package session_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coursekit/course/labs/10-session"
)

// Hidden tests of exercise 10.1, PathTo: other inputs for the same rules.

// pathToHiddenChain returns entries p0 <- p1 <- ... <- p(n-1) named with
// prefix, alternating user and assistant messages, in root-first order.
func pathToHiddenChain(prefix, root string, n int) []session.SessionEntry {
	out := make([]session.SessionEntry, n)
	parent := root
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("%s%d", prefix, i)
		if i%2 == 0 {
			out[i] = user(id, parent, "question "+id)
		} else {
			out[i] = assistantText(id, parent, "answer "+id)
		}
		parent = id
	}
	return out
}

// pathToHiddenShuffle returns entries in a fixed scrambled order: odd
// positions reversed, then even positions.
func pathToHiddenShuffle(entries []session.SessionEntry) []session.SessionEntry {
	var out []session.SessionEntry
	for i := len(entries) - 1; i >= 0; i-- {
		if i%2 == 1 {
			out = append(out, entries[i])
		}
	}
	for i := 0; i < len(entries); i++ {
		if i%2 == 0 {
			out = append(out, entries[i])
		}
	}
	return out
}

// Rule 10.1.6, 10.1.3: a 40-entry branch in a scrambled forest with three roots and a broken side branch comes back root first.
func TestLab10_1_HiddenLongBranchInScrambledForest(t *testing.T) {
	t.Parallel()
	trunk := pathToHiddenChain("n", "", 40)
	side := pathToHiddenChain("s", "n19", 10)            // branches off the middle of trunk
	other := pathToHiddenChain("o", "", 5)               // a second root
	broken := pathToHiddenChain("b", "gone", 3)          // its first parent does not exist
	lone := []session.SessionEntry{metadata("lone", "")} // a third root
	all := append(append(append(append(append([]session.SessionEntry{}, trunk...), side...), other...), broken...), lone...)
	entries := pathToHiddenShuffle(all)

	got, err := session.PathTo(entries, "n39")
	require.NoError(t, err, "PathTo(scrambled forest, %q) error = %v, want no error: the chain n39 -> ... -> n0 is healthy; the broken branch b0..b2 and the extra roots are not on it", "n39", err)
	assert.Equal(t, ids(trunk), ids(got), "PathTo(scrambled forest, %q) returned ids %v, want n0..n39 root first", "n39", ids(got))
	assert.Equal(t, trunk, got, "PathTo(scrambled forest, %q) returned entries that differ from the input entries", "n39")

	got, err = session.PathTo(entries, "s9")
	require.NoError(t, err, "PathTo(scrambled forest, %q) error = %v, want no error", "s9", err)
	want := append(ids(trunk[:20]), ids(side)...)
	assert.Equal(t, want, ids(got), "PathTo(scrambled forest, %q) returned ids %v, want n0..n19 then s0..s9: a side branch shares the main branch up to where it forks", "s9", ids(got))

	got, err = session.PathTo(entries, "lone")
	require.NoError(t, err, "PathTo(scrambled forest, %q) error = %v, want no error: a single root is a branch of one", "lone", err)
	assert.Equal(t, []string{"lone"}, ids(got), "PathTo(scrambled forest, %q) returned ids %v", "lone", ids(got))
}

// Rule 10.1.5: a cycle far up a long chain is named by the id where the walk first comes back.
func TestLab10_1_HiddenCycleFarUpTheChain(t *testing.T) {
	t.Parallel()
	// l5 -> l4 -> ... -> l0 -> c0 -> c1 -> c2 -> c3 -> c0
	entries := []session.SessionEntry{
		user("c0", "c3", "c0"), user("c1", "c0", "c1"), user("c2", "c1", "c2"), user("c3", "c2", "c3"),
	}
	entries = append(entries, pathToHiddenChain("l", "c0", 6)...)
	entries = pathToHiddenShuffle(entries)
	_, err := session.PathTo(entries, "l5")
	var cycle *session.CycleError
	require.ErrorAs(t, err, &cycle, "PathTo(entries, %q) error = %v, want a *CycleError: the chain from l5 runs into the loop c0 -> c3 -> c2 -> c1 -> c0", "l5", err)
	assert.Equal(t, "c0", cycle.ID, "PathTo(entries, %q) returned CycleError{ID: %q}, want %q: the first id the walk meets a second time", "l5", cycle.ID, "c0")

	_, err = session.PathTo([]session.SessionEntry{user("x", "y", "x"), user("y", "x", "y")}, "y")
	require.ErrorAs(t, err, &cycle, "PathTo(x <-> y, %q) error = %v, want a *CycleError", "y", err)
	assert.Equal(t, "y", cycle.ID, "PathTo(x <-> y, %q) returned CycleError{ID: %q}, want %q: starting at y, the walk comes back to y", "y", cycle.ID, "y")
}

// Rule 10.1.1, 10.1.4: duplicates of the leaf or of a root are errors; a missing parent far up names that entry, not the leaf.
func TestLab10_1_HiddenDuplicatesAndFarMissingParent(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		entries []session.SessionEntry
		leaf    string
		dup     string
	}{
		{name: "the leaf appears twice, equal copies", entries: []session.SessionEntry{user("a", "", "hi"), assistantText("b", "a", "x"), assistantText("b", "a", "x")}, leaf: "b", dup: "b"},
		{name: "two roots with one id", entries: []session.SessionEntry{user("root", "", "one"), metadata("root", ""), user("c", "root", "leaf")}, leaf: "c", dup: "root"},
		{name: "duplicate far off in a second tree", entries: append(pathToHiddenChain("n", "", 6), append(pathToHiddenChain("o", "", 4), user("o2", "o1", "again"))...), leaf: "n5", dup: "o2"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := session.PathTo(tc.entries, tc.leaf)
			var dup *session.DuplicateIDError
			require.ErrorAs(t, err, &dup, "PathTo(%s, %q) error = %v, want a *DuplicateIDError naming %q: ids are unique over all entries", tc.name, tc.leaf, err, tc.dup)
			assert.Equal(t, tc.dup, dup.ID, "PathTo(%s, %q) returned DuplicateIDError{ID: %q}, want %q", tc.name, tc.leaf, dup.ID, tc.dup)
		})
	}
	t.Run("missing parent twenty steps up", func(t *testing.T) {
		t.Parallel()
		entries := pathToHiddenShuffle(pathToHiddenChain("n", "vanished", 20))
		_, err := session.PathTo(entries, "n19")
		var missing *session.MissingParentError
		require.ErrorAs(t, err, &missing, "PathTo(chain n0..n19 whose root n0 has parent %q, %q) error = %v, want a *MissingParentError", "vanished", "n19", err)
		assert.Equal(t, "n0", missing.ChildID, "MissingParentError.ChildID = %q, want %q: the entry whose parent is missing, found by walking up from the leaf", missing.ChildID, "n0")
		assert.Equal(t, "vanished", missing.ParentID, "MissingParentError.ParentID = %q, want %q", missing.ParentID, "vanished")
	})
}

// Rule 10.1.6: tool result details, usage and a list metadata value are deep copies too.
func TestLab10_1_HiddenDeepCopyOfDetailsAndUsage(t *testing.T) {
	t.Parallel()
	build := func() []session.SessionEntry {
		list := metadata("m", "r")
		list.Value = []any{map[string]any{"k": []any{"v"}}}
		return []session.SessionEntry{user("a", "", "q"), assistantToolCall("b", "a", "c1"), toolResult("r", "b", "c1"), list}
	}
	entries := build()
	got, err := session.PathTo(entries, "m")
	require.NoError(t, err, "PathTo(a <- b <- r <- m, %q) error = %v", "m", err)
	require.Equal(t, build(), got, "PathTo(a <- b <- r <- m, %q) returned ids %v, not equal to the four input entries", "m", ids(got))

	got[1].Message.(*session.AssistantMessage).Usage.Output = 500
	got[2].Message.(*session.ToolResultMessage).Details.(map[string]any)["names"].([]any)[0] = "changed"
	got[2].Message.(*session.ToolResultMessage).Content[0].Text = "changed"
	got[3].Value.([]any)[0].(map[string]any)["k"].([]any)[0] = "changed"
	assert.Equal(t, build(), entries, "changing usage, tool result details/content or a list metadata value in PathTo's result changed the input: every level must be copied (lab 10.1)")

	got, err = session.PathTo(entries, "m")
	require.NoError(t, err, "PathTo(a <- b <- r <- m, %q) error = %v", "m", err)
	entries[1].Message.(*session.AssistantMessage).Usage.Input = 500
	entries[2].Message.(*session.ToolResultMessage).Details.(map[string]any)["count"] = 7.0
	entries[3].Value.([]any)[0].(map[string]any)["k"] = "changed"
	assert.Equal(t, build(), got, "changing usage, details or the metadata value in the input changed PathTo's earlier result: copy deeply (lab 10.1)")
}

// Rule 10.1.2: in a forest with several roots, broken side branches and a cycle, the empty leaf id is still unknown.
func TestLab10_1_HiddenEmptyLeafInForest(t *testing.T) {
	t.Parallel()
	entries := append(pathToHiddenChain("n", "", 5), pathToHiddenChain("o", "", 3)...)
	entries = append(entries, user("orphan", "gone", "broken"), user("cx", "cy", "x"), user("cy", "cx", "y"), metadata("lone", ""))
	got, err := session.PathTo(pathToHiddenShuffle(entries), "")
	var unknown *session.UnknownEntryError
	require.ErrorAs(t, err, &unknown, "PathTo(forest of three roots, \"\") = (%v, %v), want an *UnknownEntryError: the empty id names no entry, however many roots there are", ids(got), err)
	assert.Equal(t, "", unknown.ID, "UnknownEntryError.ID = %q, want \"\"", unknown.ID)
	assert.Empty(t, got, "PathTo(forest, \"\") returned ids %v with its error", ids(got))

	_, err = session.PathTo([]session.SessionEntry{metadata("m", "")}, "")
	require.ErrorAs(t, err, &unknown, "PathTo(one metadata root, \"\") error = %v, want an *UnknownEntryError", err)
}

// Rule 10.1.3, 10.1.6: every leaf of the worked example gives its own branch, also after more retries are appended under u-1 and a-read.
func TestLab10_1_HiddenWorkedExampleBranches(t *testing.T) {
	t.Parallel()
	entries := append(workedExample(),
		assistantText("a-retry", "u-1", "third answer"),
		toolResult("r-again", "a-read", "call-1"),
		metadata("meta-title", "a-retry"),
	)
	for leaf, want := range map[string][]string{
		"r-read":     {"u-1", "a-read", "r-read"},
		"a-final":    {"u-1", "a-read", "r-read", "a-final"},
		"meta-cwd":   {"u-1", "a-read", "r-read", "a-final", "meta-cwd"},
		"r-again":    {"u-1", "a-read", "r-again"},
		"meta-title": {"u-1", "a-retry", "meta-title"},
		"u-1":        {"u-1"},
	} {
		got, err := session.PathTo(pathToHiddenShuffle(entries), leaf)
		require.NoError(t, err, "PathTo(worked example with retries, %q) error = %v", leaf, err)
		assert.Equal(t, want, ids(got), "PathTo(worked example with retries, %q) returned ids %v, want %v: only the chosen branch, root first", leaf, ids(got), want)
	}
}
