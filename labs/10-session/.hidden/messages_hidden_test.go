package session_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coursekit/course/labs/10-session"
)

// Hidden tests of exercise 10.6, MessagesOnPath: other inputs for the same rules.

// Rule 10.6.1: a long branch with metadata in between, in a forest with several roots and broken side branches.
func TestLab10_6_HiddenLongBranchAmongManyRoots(t *testing.T) {
	t.Parallel()
	var entries, onBranch []session.SessionEntry
	parent := ""
	for i := 0; i < 30; i++ {
		id := fmt.Sprintf("e%d", i)
		var e session.SessionEntry
		switch i % 3 {
		case 0:
			e = user(id, parent, "q"+id)
		case 1:
			e = assistantText(id, parent, "a"+id)
		default:
			e = metadata(id, parent)
		}
		onBranch = append(onBranch, e)
		parent = id
	}
	// Scramble: reverse order, with other trees mixed in.
	for i := len(onBranch) - 1; i >= 0; i-- {
		entries = append(entries, onBranch[i])
		if i%7 == 0 {
			entries = append(entries, user(fmt.Sprintf("root%d", i), "", "another root"))
			entries = append(entries, assistantText(fmt.Sprintf("orphan%d", i), fmt.Sprintf("gone%d", i), "broken side branch"))
		}
	}
	entries = append(entries, user("side", "e10", "fork"), user("cx", "cy", "x"), user("cy", "cx", "y"))

	got, err := session.MessagesOnPath(entries, "e29")
	require.NoError(t, err, "MessagesOnPath(forest, %q) error = %v, want no error: the branch e29 -> e0 is healthy; orphans, the cx <-> cy cycle and the other roots are elsewhere", "e29", err)
	assert.Equal(t, messagesOf(onBranch...), got, "MessagesOnPath(forest, %q) returned roles %v, want the 20 messages of e0..e29 root first with every third entry (metadata) skipped", "e29", messagesRoles(got))

	got, err = session.MessagesOnPath(entries, "side")
	require.NoError(t, err, "MessagesOnPath(forest, %q) error = %v, want no error", "side", err)
	want := append(messagesOf(onBranch[:11]...), user("side", "e10", "fork").Message)
	assert.Equal(t, want, got, "MessagesOnPath(forest, %q) returned roles %v, want the messages of e0..e10 then side", "side", messagesRoles(got))
}

// Rule 10.6.2: an assistant message with several tool calls and the matching results keep every block, in order.
func TestLab10_6_HiddenSeveralToolCallsKeptInOrder(t *testing.T) {
	t.Parallel()
	build := func() []session.SessionEntry {
		calls := session.SessionEntry{
			Type: session.EntryMessage, ID: "b", ParentID: "a", Timestamp: 2,
			Message: &session.AssistantMessage{
				Content: []session.AssistantContent{
					session.TextContent{Text: "three things"},
					session.ToolCall{ID: "c1", Name: "ls", Arguments: map[string]any{"path": "."}},
					session.ToolCall{ID: "c2", Name: "cat", Arguments: map[string]any{"paths": []any{"a", "b"}}},
					session.TextContent{Text: "and"},
					session.ToolCall{ID: "c3", Name: "noop", Arguments: map[string]any{}},
				},
				StopReason: session.StopReasonToolUse, Timestamp: 2,
			},
		}
		res := func(id, parent, callID string, isErr bool, details any) session.SessionEntry {
			return session.SessionEntry{Type: session.EntryMessage, ID: id, ParentID: parent, Timestamp: 3,
				Message: &session.ToolResultMessage{ToolCallID: callID, ToolName: "t" + callID, Content: []session.TextContent{{Text: "out " + callID}, {Text: ""}}, Details: details, IsError: isErr, Timestamp: 3}}
		}
		return []session.SessionEntry{
			user("a", "", "do three things"),
			calls,
			res("r1", "b", "c1", false, []any{"x", 1.0}),
			res("r2", "r1", "c2", true, "failed"),
			res("r3", "r2", "c3", false, nil),
		}
	}
	got, err := session.MessagesOnPath(build(), "r3")
	require.NoError(t, err, "MessagesOnPath(entries, %q) error = %v", "r3", err)
	assert.Equal(t, messagesOf(build()...), got, "MessagesOnPath(entries, %q) lost or reordered something: five blocks with three tool calls, then three results (one failed, details a list, a string and absent) must come back exactly", "r3")
}

// Rule 10.6.3: details that are lists of maps and arguments with nested lists are copied, both directions.
func TestLab10_6_HiddenNestedListsNotShared(t *testing.T) {
	t.Parallel()
	build := func() []session.SessionEntry {
		r := toolResult("r", "b", "c1")
		r.Message.(*session.ToolResultMessage).Details = []any{map[string]any{"name": "README.md", "lines": []any{1.0, 2.0}}}
		return []session.SessionEntry{user("a", "", "q"), assistantToolCall("b", "a", "c1"), r}
	}
	entries := build()
	got, err := session.MessagesOnPath(entries, "r")
	require.NoError(t, err, "MessagesOnPath(a <- b <- r, %q) error = %v", "r", err)
	require.Equal(t, messagesOf(build()...), got, "MessagesOnPath(a <- b <- r, %q) returned roles %v, want the messages of a, b, r", "r", messagesRoles(got))

	got[2].(*session.ToolResultMessage).Details.([]any)[0].(map[string]any)["lines"].([]any)[0] = 99.0
	got[2].(*session.ToolResultMessage).Content[0] = session.TextContent{Text: "changed"}
	got[1].(*session.AssistantMessage).Content[1].(session.ToolCall).Arguments["opts"].(map[string]any)["skip"].([]any)[1] = "changed"
	assert.Equal(t, build(), entries, "changing nested lists in the returned messages changed the input entries: copy every level (lab 10.6)")

	entries = build()
	got, err = session.MessagesOnPath(entries, "r")
	require.NoError(t, err, "MessagesOnPath(a <- b <- r, %q) error = %v", "r", err)
	entries[2].Message.(*session.ToolResultMessage).Details.([]any)[0].(map[string]any)["name"] = "changed"
	entries[2].Message.(*session.ToolResultMessage).Details.([]any)[0].(map[string]any)["lines"].([]any)[1] = 99.0
	entries[1].Message.(*session.AssistantMessage).Content[0] = session.TextContent{Text: "changed"}
	assert.Equal(t, messagesOf(build()...), got, "changing the input entries changed messages MessagesOnPath had already returned: copy every level (lab 10.6)")
}

// Rule 10.6.1: on a long chain, a missing parent far up and a cycle through metadata give PathTo's errors.
func TestLab10_6_HiddenErrorsOnLongChain(t *testing.T) {
	t.Parallel()
	t.Run("missing parent far up", func(t *testing.T) {
		t.Parallel()
		entries := []session.SessionEntry{metadata("m0", "lost")}
		parent := "m0"
		for i := 1; i < 12; i++ {
			id := fmt.Sprintf("u%d", i)
			entries = append(entries, user(id, parent, "x"))
			parent = id
		}
		_, err := session.MessagesOnPath(entries, "u11")
		var missing *session.MissingParentError
		require.ErrorAs(t, err, &missing, "MessagesOnPath(u11 -> ... -> u1 -> m0 -> lost, %q) error = %v, want a *MissingParentError", "u11", err)
		assert.Equal(t, "m0", missing.ChildID, "MissingParentError.ChildID = %q, want %q: a metadata entry is still part of the chain", missing.ChildID, "m0")
		assert.Equal(t, "lost", missing.ParentID, "MissingParentError.ParentID = %q, want %q", missing.ParentID, "lost")
	})
	t.Run("cycle through metadata", func(t *testing.T) {
		t.Parallel()
		entries := []session.SessionEntry{metadata("k1", "k2"), metadata("k2", "k1"), user("u", "k1", "leaf")}
		_, err := session.MessagesOnPath(entries, "u")
		var cycle *session.CycleError
		require.ErrorAs(t, err, &cycle, "MessagesOnPath(u -> k1 <-> k2, %q) error = %v, want a *CycleError: skipping metadata must not skip the checks", "u", err)
		assert.Equal(t, "k1", cycle.ID, "CycleError.ID = %q, want %q", cycle.ID, "k1")
	})
	t.Run("duplicate metadata id", func(t *testing.T) {
		t.Parallel()
		_, err := session.MessagesOnPath(append(chapterTree(), metadata("m", "a")), "r")
		var dup *session.DuplicateIDError
		require.ErrorAs(t, err, &dup, "MessagesOnPath(chapterTree() + a second metadata %q, %q) error = %v, want a *DuplicateIDError", "m", "r", err)
		assert.Equal(t, "m", dup.ID, "DuplicateIDError.ID = %q, want %q", dup.ID, "m")
	})
}

// Rule 10.6.4, 10.6.1: the worked example's other leaves, in a scrambled
// file with more retries: each gives only its own branch's messages.
func TestLab10_6_HiddenWorkedExampleOtherLeaves(t *testing.T) {
	t.Parallel()
	build := func() []session.SessionEntry {
		return append(workedExample(),
			metadata("meta-model", "a-alt"),
			assistantText("a-retry", "u-1", "third answer"),
			user("u-2", "a-final", "and the tests?"),
		)
	}
	byID := map[string]session.SessionEntry{}
	for _, e := range build() {
		byID[e.ID] = e
	}
	msgs := func(ids ...string) []session.AgentMessage {
		var es []session.SessionEntry
		for _, id := range ids {
			es = append(es, byID[id])
		}
		return messagesOf(es...)
	}
	entries := build()
	entries[0], entries[len(entries)-1] = entries[len(entries)-1], entries[0] // a child before its root in the file
	for leaf, want := range map[string][]session.AgentMessage{
		"meta-model": msgs("u-1", "a-alt"),
		"a-retry":    msgs("u-1", "a-retry"),
		"r-read":     msgs("u-1", "a-read", "r-read"),
		"u-2":        msgs("u-1", "a-read", "r-read", "a-final", "u-2"),
	} {
		got, err := session.MessagesOnPath(entries, leaf)
		require.NoError(t, err, "MessagesOnPath(worked example with retries, %q) error = %v", leaf, err)
		assert.Equal(t, want, got, "MessagesOnPath(worked example with retries, %q) returned roles %v: only that branch's messages, root first, metadata left out", leaf, messagesRoles(got))
	}
}
