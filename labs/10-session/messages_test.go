package session_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coursekit/course/labs/10-session"
)

// Public tests of exercise 10.6, MessagesOnPath. Run them with
//
//	go test -run Lab10_6
//
// MessagesOnPath is what the next chapter hands to the model: the complete
// messages of one branch. Nothing may be lost on the way (a tool call
// without its arguments cannot be answered) and nothing may be shared with
// the stored entries.

// messagesOf returns the messages of the given entries in order, skipping
// metadata: what MessagesOnPath should return for a branch made of them.
func messagesOf(entries ...session.SessionEntry) []session.AgentMessage {
	out := []session.AgentMessage{}
	for _, e := range entries {
		if e.Type == session.EntryMessage {
			out = append(out, e.Message)
		}
	}
	return out
}

// messagesRoles lists the roles of msgs, for readable failure messages.
func messagesRoles(msgs []session.AgentMessage) []session.Role {
	out := make([]session.Role, len(msgs))
	for i, m := range msgs {
		if m != nil {
			out[i] = m.Role()
		}
	}
	return out
}

// Rule 10.6.4, 10.6.1: the chapter's example: leaf r gives a, b, r; leaf m gives a, d (metadata m is not a message).
func TestLab10_6_ChapterExample(t *testing.T) {
	t.Parallel()
	tree := chapterTree()
	a, b, r, d := tree[0], tree[1], tree[2], tree[3]
	cases := []struct {
		leaf  string
		want  []session.AgentMessage
		names string
	}{
		{leaf: "r", want: messagesOf(a, b, r), names: "a, b, r"},
		{leaf: "m", want: messagesOf(a, d), names: "a, d"},
		{leaf: "d", want: messagesOf(a, d), names: "a, d"},
	}
	for _, tc := range cases {
		t.Run("leaf "+tc.leaf, func(t *testing.T) {
			t.Parallel()
			got, err := session.MessagesOnPath(chapterTree(), tc.leaf)
			require.NoError(t, err, "MessagesOnPath(chapterTree(), %q) error = %v, want no error", tc.leaf, err)
			assert.Equal(t, tc.want, got, "MessagesOnPath(chapterTree(), %q) returned messages with roles %v, want the messages of %s, root first (lab 10.6: only the chosen branch, metadata skipped)", tc.leaf, messagesRoles(got), tc.names)
		})
	}
}

// Rule 10.6.4, 10.6.2: the published chapter's worked example: the messages on the path to meta-cwd are u-1, a-read, r-read and a-final, the tool round trip whole; a later retry under u-1 changes nothing.
func TestLab10_6_WorkedExample(t *testing.T) {
	t.Parallel()
	ex := workedExample()
	want := messagesOf(ex[0], ex[1], ex[2], ex[3])
	got, err := session.MessagesOnPath(workedExample(), "meta-cwd")
	require.NoError(t, err, "MessagesOnPath(workedExample(), %q) error = %v, want no error", "meta-cwd", err)
	require.Equal(t, want, got, "MessagesOnPath(workedExample(), %q) returned roles %v, want the four messages of u-1, a-read, r-read, a-final: the metadata entry meta-cwd is on the path but is not a message, and the sibling answer a-alt is on another branch (lab 10.6)", "meta-cwd", messagesRoles(got))

	call, ok := got[1].(*session.AssistantMessage).Content[1].(session.ToolCall)
	require.True(t, ok, "a-read's second block is %T, want the ToolCall", got[1].(*session.AssistantMessage).Content[1])
	res := got[2].(*session.ToolResultMessage)
	assert.Equal(t, "call-1", call.ID, "the tool call keeps its id")
	assert.Equal(t, "read", call.Name, "the tool call keeps its name")
	assert.Equal(t, map[string]any{"path": "README.md"}, call.Arguments, "the tool call keeps its arguments")
	assert.Equal(t, call.ID, res.ToolCallID, "the tool result still answers the call it belongs to: the round trip is whole")

	later := append(workedExample(), assistantText("a-retry", "u-1", "a third answer"))
	again, err := session.MessagesOnPath(later, "meta-cwd")
	require.NoError(t, err, "MessagesOnPath(workedExample() + a new child of u-1, %q) error = %v", "meta-cwd", err)
	assert.Equal(t, want, again, "MessagesOnPath(%q) changed after a new child of u-1 was appended: appending a branch never changes another (lab 10.6)", "meta-cwd")
}

// Rule 10.6.1: metadata entries anywhere on the branch are skipped, the messages keep their root-first order.
func TestLab10_6_SkipsMetadata(t *testing.T) {
	t.Parallel()
	entries := []session.SessionEntry{
		metadata("cfg", ""),
		user("a", "cfg", "hello"),
		metadata("title", "a"),
		assistantText("b", "title", "hi there"),
		metadata("leaf", "b"),
	}
	want := messagesOf(user("a", "cfg", "hello"), assistantText("b", "title", "hi there"))

	got, err := session.MessagesOnPath(entries, "leaf")
	require.NoError(t, err, "MessagesOnPath(cfg <- a <- title <- b <- leaf, %q) error = %v, want no error", "leaf", err)
	assert.Equal(t, want, got, "MessagesOnPath(cfg(meta) <- a <- title(meta) <- b <- leaf(meta), %q) returned roles %v, want [user assistant]: the messages of a and b, with the three metadata entries skipped", "leaf", messagesRoles(got))

	got, err = session.MessagesOnPath(entries, "cfg")
	require.NoError(t, err, "MessagesOnPath(entries, %q) error = %v, want no error: a branch of one metadata entry is valid", "cfg", err)
	assert.Empty(t, got, "MessagesOnPath(entries, %q) returned %d messages, want none: the branch holds one metadata entry and no message", "cfg", len(got))
}

// Rule 10.6.2: whole messages come back: tool call id/name/arguments, tool result id/isError/details, usage, model.
func TestLab10_6_KeepsWholeMessages(t *testing.T) {
	t.Parallel()
	failed := session.SessionEntry{
		Type: session.EntryMessage, ID: "f", ParentID: "r", Timestamp: 5,
		Message: &session.ToolResultMessage{
			ToolCallID: "c2", ToolName: "cat",
			Content: []session.TextContent{{Text: "permission denied"}},
			Details: map[string]any{"exit": 1.0, "stderr": []any{"denied"}},
			IsError: true, Timestamp: 5,
		},
	}
	crashed := session.SessionEntry{
		Type: session.EntryMessage, ID: "g", ParentID: "f", Timestamp: 6,
		Message: &session.AssistantMessage{
			Content: []session.AssistantContent{session.TextContent{Text: "partial"}},
			Model:   "m2", Usage: &session.Usage{Input: 10, Output: 1, TotalTokens: 11},
			StopReason: session.StopReasonError, ErrorMessage: "connection reset", Timestamp: 6,
		},
	}
	entries := append(chapterTree(), failed, crashed)

	got, err := session.MessagesOnPath(entries, "g")
	require.NoError(t, err, "MessagesOnPath(entries, %q) error = %v, want no error", "g", err)
	require.Len(t, got, 5, "MessagesOnPath(entries, %q) returned roles %v, want the 5 messages of a, b, r, f, g", "g", messagesRoles(got))

	asst, ok := got[1].(*session.AssistantMessage)
	require.True(t, ok, "MessagesOnPath(entries, %q)[1] is %T, want *AssistantMessage (entry b)", "g", got[1])
	require.Len(t, asst.Content, 2, "message b has %d content blocks, want 2 (text and tool call): do not flatten messages to text", len(asst.Content))
	call, ok := asst.Content[1].(session.ToolCall)
	require.True(t, ok, "message b block 1 is %T, want ToolCall: the tool call must survive, not become text", asst.Content[1])
	assert.Equal(t, "c1", call.ID, "tool call ID = %q, want %q: the tool result answers this id", call.ID, "c1")
	assert.Equal(t, "ls", call.Name, "tool call Name = %q, want %q", call.Name, "ls")
	assert.Equal(t, map[string]any{"path": ".", "opts": map[string]any{"all": true, "depth": 2.0, "skip": []any{".git", "node_modules"}}}, call.Arguments,
		"tool call Arguments lost something: the model needs the whole call to continue the tool round trip")
	assert.Equal(t, &session.Usage{Input: 3, Output: 5, TotalTokens: 8}, asst.Usage, "message b lost its Usage")

	res, ok := got[3].(*session.ToolResultMessage)
	require.True(t, ok, "MessagesOnPath(entries, %q)[3] is %T, want *ToolResultMessage (entry f)", "g", got[3])
	assert.Equal(t, "c2", res.ToolCallID, "tool result ToolCallID = %q, want %q", res.ToolCallID, "c2")
	assert.True(t, res.IsError, "tool result IsError = false, want true: a failed tool call must stay marked as failed")
	assert.Equal(t, map[string]any{"exit": 1.0, "stderr": []any{"denied"}}, res.Details, "tool result lost its Details")

	want := messagesOf(entries[0], entries[1], entries[2], failed, crashed)
	assert.Equal(t, want, got, "MessagesOnPath(entries, %q) does not equal the input messages: every field (model, stop reason, error message, timestamps, ...) must be kept (lab 10.6: no lossy text projection)", "g")
}

// Rule 10.6.3: the messages returned share nothing with the entries, in both directions.
func TestLab10_6_SharesNothingWithInput(t *testing.T) {
	t.Parallel()
	t.Run("change the result", func(t *testing.T) {
		t.Parallel()
		entries := chapterTree()
		got, err := session.MessagesOnPath(entries, "r")
		require.NoError(t, err, "MessagesOnPath(chapterTree(), %q) error = %v", "r", err)
		fresh := chapterTree()
		require.Equal(t, messagesOf(fresh[0], fresh[1], fresh[2]), got, "MessagesOnPath(chapterTree(), %q) returned roles %v, want the messages of a, b, r", "r", messagesRoles(got))

		got[0].(*session.UserMessage).Content[0].Text = "changed"
		asst := got[1].(*session.AssistantMessage)
		asst.Content[0] = session.TextContent{Text: "changed"}
		asst.Content[1].(session.ToolCall).Arguments["path"] = "/etc"
		asst.Content[1].(session.ToolCall).Arguments["opts"].(map[string]any)["skip"].([]any)[0] = "changed"
		asst.Usage.TotalTokens = 1000
		got[2].(*session.ToolResultMessage).Details.(map[string]any)["count"] = 99.0
		got[2].(*session.ToolResultMessage).Details.(map[string]any)["names"].([]any)[0] = "changed"

		assert.Equal(t, chapterTree(), entries, "changing the messages MessagesOnPath returned (text, tool arguments, usage, details) changed the input entries: return deep copies (lab 10.6)")
	})
	t.Run("change the input", func(t *testing.T) {
		t.Parallel()
		entries := chapterTree()
		got, err := session.MessagesOnPath(entries, "r")
		require.NoError(t, err, "MessagesOnPath(chapterTree(), %q) error = %v", "r", err)

		entries[0].Message.(*session.UserMessage).Content[0].Text = "changed"
		entries[1].Message.(*session.AssistantMessage).Content[1].(session.ToolCall).Arguments["opts"].(map[string]any)["all"] = false
		entries[1].Message.(*session.AssistantMessage).Usage.Input = 1000
		entries[2].Message.(*session.ToolResultMessage).Details.(map[string]any)["names"].([]any)[0] = "changed"

		fresh := chapterTree()
		assert.Equal(t, messagesOf(fresh[0], fresh[1], fresh[2]), got, "the messages MessagesOnPath returned changed when the input entries were changed afterwards: return deep copies (lab 10.6)")
	})
}

// Rule 10.6.1: MessagesOnPath makes the same checks as PathTo and returns the same typed errors.
func TestLab10_6_SameErrorsAsPathTo(t *testing.T) {
	t.Parallel()
	t.Run("duplicate id off the branch", func(t *testing.T) {
		t.Parallel()
		_, err := session.MessagesOnPath(append(chapterTree(), user("d", "", "again")), "r")
		var dup *session.DuplicateIDError
		require.ErrorAs(t, err, &dup, "MessagesOnPath(chapterTree() + a second %q, %q) error = %v, want a *DuplicateIDError as PathTo gives", "d", "r", err)
		assert.Equal(t, "d", dup.ID, "DuplicateIDError.ID = %q, want %q", dup.ID, "d")
	})
	t.Run("unknown leaf", func(t *testing.T) {
		t.Parallel()
		_, err := session.MessagesOnPath(chapterTree(), "nope")
		var unknown *session.UnknownEntryError
		require.ErrorAs(t, err, &unknown, "MessagesOnPath(chapterTree(), %q) error = %v, want an *UnknownEntryError", "nope", err)
		assert.Equal(t, "nope", unknown.ID, "UnknownEntryError.ID = %q, want %q", unknown.ID, "nope")
	})
	t.Run("missing parent", func(t *testing.T) {
		t.Parallel()
		_, err := session.MessagesOnPath(append(chapterTree(), toolResult("x", "lost", "c1")), "x")
		var missing *session.MissingParentError
		require.ErrorAs(t, err, &missing, "MessagesOnPath(entries, %q) error = %v, want a *MissingParentError naming child %q and parent %q", "x", err, "x", "lost")
		assert.Equal(t, "x", missing.ChildID, "MissingParentError.ChildID = %q, want %q", missing.ChildID, "x")
		assert.Equal(t, "lost", missing.ParentID, "MissingParentError.ParentID = %q, want %q", missing.ParentID, "lost")
	})
	t.Run("cycle", func(t *testing.T) {
		t.Parallel()
		entries := append(chapterTree(), user("p", "q", "p"), assistantText("q", "p", "q"))
		_, err := session.MessagesOnPath(entries, "q")
		var cycle *session.CycleError
		require.ErrorAs(t, err, &cycle, "MessagesOnPath(entries with p <-> q, %q) error = %v, want a *CycleError naming %q", "q", err, "q")
		assert.Equal(t, "q", cycle.ID, "CycleError.ID = %q, want %q, where the cycle closes", cycle.ID, "q")
	})
}
