package session_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coursekit/course/labs/10-session"
)

// Public tests of exercise 10.1, PathTo. Run them with
//
//	go test -run Lab10_1
//
// Every input below has exactly one problem (or none), so the order in which
// your PathTo checks things does not change which error it must return.

// pathToEntry returns the entry with the given id from entries, failing the
// test if there is none. Tests use it to compare a result entry with the
// input entry it was copied from.
func pathToEntry(t *testing.T, entries []session.SessionEntry, id string) session.SessionEntry {
	t.Helper()
	for _, e := range entries {
		if e.ID == id {
			return e
		}
	}
	require.Failf(t, "test setup", "no entry with id %q in the test input", id)
	return session.SessionEntry{}
}

// pathToUserText returns the text of the first block of a user message entry.
func pathToUserText(t *testing.T, e session.SessionEntry) string {
	t.Helper()
	msg, ok := e.Message.(*session.UserMessage)
	require.True(t, ok, "entry %q: Message is %T, want *UserMessage", e.ID, e.Message)
	require.NotEmpty(t, msg.Content, "entry %q: user message has no content blocks", e.ID)
	return msg.Content[0].Text
}

// pathToToolCall returns the tool call block of an entry built with
// assistantToolCall (its second content block).
func pathToToolCall(t *testing.T, e session.SessionEntry) session.ToolCall {
	t.Helper()
	msg, ok := e.Message.(*session.AssistantMessage)
	require.True(t, ok, "entry %q: Message is %T, want *AssistantMessage", e.ID, e.Message)
	require.Len(t, msg.Content, 2, "entry %q: want the two blocks of assistantToolCall", e.ID)
	call, ok := msg.Content[1].(session.ToolCall)
	require.True(t, ok, "entry %q: block 1 is %T, want ToolCall", e.ID, msg.Content[1])
	return call
}

// Rule 10.1.6: the chapter's tree gives each branch root first, every entry whole.
func TestLab10_1_ReturnsBranchRootFirst(t *testing.T) {
	t.Parallel()
	cases := []struct {
		leaf string
		want []string
	}{
		{leaf: "r", want: []string{"a", "b", "r"}},
		{leaf: "m", want: []string{"a", "d", "m"}},
		{leaf: "d", want: []string{"a", "d"}},
		{leaf: "a", want: []string{"a"}},
	}
	for _, tc := range cases {
		t.Run("leaf "+tc.leaf, func(t *testing.T) {
			t.Parallel()
			entries := chapterTree()
			got, err := session.PathTo(entries, tc.leaf)
			require.NoError(t, err, "PathTo(chapterTree(), %q) returned an error; the chapter's tree is healthy, so the branch must come back", tc.leaf)
			assert.Equal(t, tc.want, ids(got), "PathTo(chapterTree(), %q) returned ids %v, want %v: the branch from its root down to the leaf, root first, and nothing from the other branch (lab 10.1)", tc.leaf, ids(got), tc.want)
			for _, e := range got {
				assert.Equal(t, pathToEntry(t, chapterTree(), e.ID), e, "PathTo(chapterTree(), %q): entry %q differs from the input entry; the result must hold complete copies (message, tool call, metadata value and all)", tc.leaf, e.ID)
			}
		})
	}
}

// Rule 10.1.6: root-first order comes from following parentId, not from the order of the slice.
func TestLab10_1_LongChainRootFirst(t *testing.T) {
	t.Parallel()
	// The chain n0 <- n1 <- ... <- n7, stored in a scrambled order.
	order := []int{5, 2, 7, 0, 3, 6, 1, 4}
	names := []string{"n0", "n1", "n2", "n3", "n4", "n5", "n6", "n7"}
	var entries []session.SessionEntry
	for _, i := range order {
		parent := ""
		if i > 0 {
			parent = names[i-1]
		}
		entries = append(entries, user(names[i], parent, "step "+names[i]))
	}
	got, err := session.PathTo(entries, "n7")
	require.NoError(t, err, "PathTo(scrambled chain n0..n7, %q) returned an error; every parent exists and there is no cycle", "n7")
	assert.Equal(t, names, ids(got), "PathTo(scrambled chain, %q) returned ids %v, want %v: root first, found by following parentId from the leaf, whatever order the slice has", "n7", ids(got), names)

	got, err = session.PathTo(entries, "n3")
	require.NoError(t, err, "PathTo(scrambled chain n0..n7, %q) returned an error", "n3")
	assert.Equal(t, names[:4], ids(got), "PathTo(scrambled chain, %q) returned ids %v, want %v: a leaf in the middle gives only its own ancestors, not its descendants", "n3", ids(got), names[:4])
}

// Rule 10.1.1: a duplicate id is an error even when it sits on another branch and both copies are equal.
func TestLab10_1_DuplicateIDOffPath(t *testing.T) {
	t.Parallel()
	// The branch a, b, r is healthy; "d" appears twice on the other branch.
	entries := append(chapterTree(), assistantText("d", "a", "nothing to list"))
	_, err := session.PathTo(entries, "r")
	var dup *session.DuplicateIDError
	require.ErrorAs(t, err, &dup, "PathTo(chapterTree() + a second %q, %q) error = %v, want a *DuplicateIDError: ids must be unique over ALL entries, also off the chosen branch (lab 10.1)", "d", "r", err)
	assert.Equal(t, "d", dup.ID, "PathTo(...) returned DuplicateIDError{ID: %q}, want ID %q: name the id that appears twice so a person can find both lines", dup.ID, "d")
}

// Rule 10.1.1: two different entries with the same id are a duplicate too, not "the later one wins".
func TestLab10_1_DuplicateIDDifferentValues(t *testing.T) {
	t.Parallel()
	entries := []session.SessionEntry{
		user("a", "", "hello"),
		assistantText("b", "a", "first answer"),
		user("b", "a", "a different entry that reuses id b"),
		user("c", "b", "the leaf"),
	}
	_, err := session.PathTo(entries, "c")
	var dup *session.DuplicateIDError
	require.ErrorAs(t, err, &dup, "PathTo(entries with two different entries %q, %q) error = %v, want a *DuplicateIDError: building a map by id would silently keep one of them and hide the other (lab 10.1)", "b", "c", err)
	assert.Equal(t, "b", dup.ID, "PathTo(...) returned DuplicateIDError{ID: %q}, want ID %q", dup.ID, "b")
}

// Rule 10.1.2: a leaf id that no entry has is an error naming that id.
func TestLab10_1_UnknownLeaf(t *testing.T) {
	t.Parallel()
	_, err := session.PathTo(chapterTree(), "zzz")
	var unknown *session.UnknownEntryError
	require.ErrorAs(t, err, &unknown, "PathTo(chapterTree(), %q) error = %v, want an *UnknownEntryError: there is no entry %q, so there is no branch to return (lab 10.1)", "zzz", err, "zzz")
	assert.Equal(t, "zzz", unknown.ID, "PathTo(chapterTree(), %q) returned UnknownEntryError{ID: %q}, want the leaf id %q", "zzz", unknown.ID, "zzz")

	_, err = session.PathTo(nil, "a")
	require.ErrorAs(t, err, &unknown, "PathTo(nil, %q) error = %v, want an *UnknownEntryError: an empty history has no entry %q", "a", err, "a")
	assert.Equal(t, "a", unknown.ID, "PathTo(nil, %q) returned UnknownEntryError{ID: %q}, want %q", "a", unknown.ID, "a")
}

// Rule 10.1.2: the empty leaf id names no entry: it is an unknown leaf, not an empty branch.
func TestLab10_1_EmptyLeafIsUnknown(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		entries []session.SessionEntry
	}{
		{"the chapter's tree", chapterTree()},
		{"an empty history", nil},
	} {
		got, err := session.PathTo(tc.entries, "")
		var unknown *session.UnknownEntryError
		require.ErrorAs(t, err, &unknown, "PathTo(%s, \"\") = (%v, %v), want an *UnknownEntryError with ID \"\": no entry has the empty id, so there is no branch to return; an empty branch with no error would look like an empty conversation (lab 10.1)", tc.name, ids(got), err)
		assert.Equal(t, "", unknown.ID, "PathTo(%s, \"\") returned UnknownEntryError{ID: %q}, want the leaf id as given, \"\"", tc.name, unknown.ID)
		assert.Empty(t, got, "PathTo(%s, \"\") returned ids %v with its error; want no branch", tc.name, ids(got))
	}
}

// Rule 10.1.3, 10.1.6: the published chapter's worked example: the path to meta-cwd is its five ancestors and itself, root first, and a later retry under u-1 changes nothing.
func TestLab10_1_WorkedExample(t *testing.T) {
	t.Parallel()
	entries := workedExample()
	got, err := session.PathTo(entries, "meta-cwd")
	require.NoError(t, err, "PathTo(workedExample(), %q) error = %v, want no error: the worked example is a healthy tree", "meta-cwd", err)
	want := []string{"u-1", "a-read", "r-read", "a-final", "meta-cwd"}
	require.Equal(t, want, ids(got), "PathTo(workedExample(), %q) returned ids %v, want %v: root first, the metadata entry included (it is on the path), the sibling answer a-alt left out (lab 10.1)", "meta-cwd", ids(got), want)
	for _, e := range got {
		assert.Equal(t, entryByID(t, workedExample(), e.ID), e, "PathTo(workedExample(), %q): entry %q is not a complete copy of the input entry", "meta-cwd", e.ID)
	}

	got, err = session.PathTo(entries, "a-alt")
	require.NoError(t, err, "PathTo(workedExample(), %q) error = %v", "a-alt", err)
	assert.Equal(t, []string{"u-1", "a-alt"}, ids(got), "PathTo(workedExample(), %q) returned ids %v, want [u-1 a-alt]: the retry is a branch of its own", "a-alt", ids(got))

	// Going back to u-1 later means appending a new child; the old path stays as it was.
	later := append(workedExample(), assistantText("a-retry", "u-1", "a third answer"))
	again, err := session.PathTo(later, "meta-cwd")
	require.NoError(t, err, "PathTo(workedExample() + a new child of u-1, %q) error = %v", "meta-cwd", err)
	assert.Equal(t, want, ids(again), "PathTo(%q) changed after a new child of u-1 was appended: a new branch never changes an old one (lab 10.1)", "meta-cwd")
}

// Rule 10.1.4: a missing parent on the chain names both the child and the parent it points to.
func TestLab10_1_MissingParentNamesBothIDs(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		entries []session.SessionEntry
		leaf    string
		child   string
		parent  string
	}{
		{
			name:    "the leaf's own parent is missing",
			entries: []session.SessionEntry{user("a", "", "hi"), user("c", "x", "orphan")},
			leaf:    "c", child: "c", parent: "x",
		},
		{
			name: "a parent higher up the chain is missing",
			entries: []session.SessionEntry{
				user("b", "ghost", "points at a line that is gone"),
				assistantText("c", "b", "reply"),
				user("d", "c", "leaf"),
			},
			leaf: "d", child: "b", parent: "ghost",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := session.PathTo(tc.entries, tc.leaf)
			var missing *session.MissingParentError
			require.ErrorAs(t, err, &missing, "PathTo(entries, %q) error = %v, want a *MissingParentError naming child %q and parent %q (lab 10.1: report both ids so a person can find the line)", tc.leaf, err, tc.child, tc.parent)
			assert.Equal(t, tc.child, missing.ChildID, "PathTo(entries, %q): MissingParentError.ChildID = %q, want %q, the entry whose parentId points nowhere (not always the leaf)", tc.leaf, missing.ChildID, tc.child)
			assert.Equal(t, tc.parent, missing.ParentID, "PathTo(entries, %q): MissingParentError.ParentID = %q, want %q, the id that no entry has", tc.leaf, missing.ParentID, tc.parent)
		})
	}
}

// Rule 10.1.3: several roots are fine, and broken parents or cycles on another branch are not PathTo's business.
func TestLab10_1_OnlyTheChosenChainIsChecked(t *testing.T) {
	t.Parallel()
	entries := []session.SessionEntry{
		user("a", "", "first root"),
		assistantText("b", "a", "reply"),
		user("c", "b", "leaf of the healthy branch"),
		user("root2", "", "a second root is allowed"),
		assistantText("e", "root2", "reply on the second tree"),
		user("orphan", "gone", "broken parent on another branch"),
		user("x", "y", "cycle on another branch"),
		user("y", "x", "cycle on another branch"),
	}
	got, err := session.PathTo(entries, "c")
	require.NoError(t, err, "PathTo(entries, %q) error = %v, want no error: only the chain c -> b -> a is checked; a second root, the orphan whose parent %q is missing and the cycle x <-> y are on other branches (lab 10.1)", "c", err, "gone")
	assert.Equal(t, []string{"a", "b", "c"}, ids(got), "PathTo(entries, %q) returned ids %v, want [a b c]", "c", ids(got))

	got, err = session.PathTo(entries, "e")
	require.NoError(t, err, "PathTo(entries, %q) error = %v, want no error: %q is the leaf of the second root's tree, which is healthy", "e", err, "e")
	assert.Equal(t, []string{"root2", "e"}, ids(got), "PathTo(entries, %q) returned ids %v, want [root2 e]: a branch can start at any root", "e", ids(got))
}

// Rule 10.1.5: a cycle on the chain is reported with the id at which the walk comes back.
func TestLab10_1_CycleNamesClosingID(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		entries []session.SessionEntry
		leaf    string
		want    string
	}{
		{
			name:    "two entries point at each other",
			entries: []session.SessionEntry{user("x", "y", "x"), user("y", "x", "y")},
			leaf:    "x", want: "x",
		},
		{
			name:    "an entry is its own parent",
			entries: []session.SessionEntry{user("root", "", "fine"), user("a", "a", "self loop")},
			leaf:    "a", want: "a",
		},
		{
			name:    "the leaf leads into a cycle it is not part of",
			entries: []session.SessionEntry{user("x", "y", "x"), user("y", "x", "y"), user("z", "x", "leaf")},
			leaf:    "z", want: "x",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := session.PathTo(tc.entries, tc.leaf)
			var cycle *session.CycleError
			require.ErrorAs(t, err, &cycle, "PathTo(entries, %q) error = %v, want a *CycleError: following parentId from %q never reaches a root (lab 10.1; without a seen set this walk loops forever)", tc.leaf, err, tc.leaf)
			assert.Equal(t, tc.want, cycle.ID, "PathTo(entries, %q) returned CycleError{ID: %q}, want %q: the id the walk meets a second time, where the cycle closes", tc.leaf, cycle.ID, tc.want)
		})
	}
}

// Rule 10.1.6: the result is a new slice of deep copies: changing it changes nothing in the input.
func TestLab10_1_ChangingResultLeavesInputAlone(t *testing.T) {
	t.Parallel()
	// The chain a <- b <- m is stored root first, so a lazy PathTo could
	// return entries itself (or a sub-slice of it): that must not happen.
	entries := []session.SessionEntry{user("a", "", "list files"), assistantToolCall("b", "a", "c1"), metadata("m", "b")}
	got, err := session.PathTo(entries, "m")
	require.NoError(t, err, "PathTo(a <- b <- m, %q) returned an error", "m")
	require.Equal(t, []session.SessionEntry{user("a", "", "list files"), assistantToolCall("b", "a", "c1"), metadata("m", "b")}, got,
		"PathTo(a <- b <- m, %q) returned ids %v, not equal to the three input entries", "m", ids(got))

	got[0].Message.(*session.UserMessage).Content[0].Text = "changed in the result"
	call := pathToToolCall(t, got[1])
	call.Arguments["path"] = "/etc"
	call.Arguments["opts"].(map[string]any)["all"] = false
	call.Arguments["opts"].(map[string]any)["skip"].([]any)[0] = "changed"
	got[2].Value.(map[string]any)["text"] = "changed"
	got[2].Value.(map[string]any)["tags"].([]any)[0] = "changed"
	got[0] = user("other", "", "replaced slice element")

	want := []session.SessionEntry{user("a", "", "list files"), assistantToolCall("b", "a", "c1"), metadata("m", "b")}
	assert.Equal(t, want[0], entries[0], "after changing PathTo's result (slice element, message text), entries[0] changed too: return a new slice holding entry.Clone() copies (lab 10.1)")
	assert.Equal(t, want[1], entries[1], "after changing the tool call arguments (nested map and list) in PathTo's result, the input entry changed too: arguments must be deep-copied (lab 10.1)")
	assert.Equal(t, want[2], entries[2], "after changing the metadata value in PathTo's result, the input entry changed too: the value must be deep-copied (lab 10.1)")
}

// Rule 10.1.6: changing the input after PathTo returned changes nothing in the result.
func TestLab10_1_ChangingInputLeavesResultAlone(t *testing.T) {
	t.Parallel()
	entries := []session.SessionEntry{user("a", "", "list files"), assistantToolCall("b", "a", "c1"), metadata("m", "b")}
	got, err := session.PathTo(entries, "m")
	require.NoError(t, err, "PathTo(a <- b <- m, %q) returned an error", "m")
	require.Len(t, got, 3, "PathTo(a <- b <- m, %q) returned ids %v", "m", ids(got))

	entries[0].Message.(*session.UserMessage).Content[0].Text = "changed in the input"
	call := pathToToolCall(t, entries[1])
	call.Arguments["opts"].(map[string]any)["depth"] = 99.0
	call.Arguments["opts"].(map[string]any)["skip"].([]any)[1] = "changed"
	entries[2].Value.(map[string]any)["text"] = "changed"
	entries[0] = user("other", "", "replaced slice element")

	assert.Equal(t, "list files", pathToUserText(t, got[0]), "PathTo's result changed when the caller changed the input's message text afterwards: the result must not share messages with the input (lab 10.1)")
	assert.Equal(t, "a", got[0].ID, "PathTo's result changed when the caller replaced entries[0]: return a new slice, not entries or a sub-slice of it (lab 10.1)")
	assert.Equal(t, assistantToolCall("b", "a", "c1"), got[1], "PathTo's result changed when the caller changed the tool arguments in the input: deep-copy them (lab 10.1)")
	assert.Equal(t, metadata("m", "b"), got[2], "PathTo's result changed when the caller changed the metadata value in the input: deep-copy it (lab 10.1)")
}
