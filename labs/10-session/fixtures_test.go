package session_test

import (
	"testing"

	"github.com/coursekit/course/labs/10-session"
)

// Shared fixtures for the lab 10 tests: small builders for entries and the
// chapter's own example tree. Builders return fresh values on every call, so
// one test can never change another's data.

// user returns a root-or-child message entry holding a user text message.
func user(id, parent, text string) session.SessionEntry {
	return session.SessionEntry{
		Type: session.EntryMessage, ID: id, ParentID: parent, Timestamp: 1,
		Message: &session.UserMessage{Content: []session.TextContent{{Text: text}}, Timestamp: 1},
	}
}

// assistantText returns a message entry holding an assistant text reply.
func assistantText(id, parent, text string) session.SessionEntry {
	return session.SessionEntry{
		Type: session.EntryMessage, ID: id, ParentID: parent, Timestamp: 2,
		Message: &session.AssistantMessage{
			Content:    []session.AssistantContent{session.TextContent{Text: text}},
			Model:      "m",
			StopReason: session.StopReasonStop,
			Timestamp:  2,
		},
	}
}

// assistantToolCall returns a message entry whose assistant message calls
// the tool "ls" with call id callID and arguments {"path": ".", "opts": {...}}.
func assistantToolCall(id, parent, callID string) session.SessionEntry {
	return session.SessionEntry{
		Type: session.EntryMessage, ID: id, ParentID: parent, Timestamp: 2,
		Message: &session.AssistantMessage{
			Content: []session.AssistantContent{
				session.TextContent{Text: "let me look"},
				session.ToolCall{ID: callID, Name: "ls", Arguments: map[string]any{
					"path": ".",
					"opts": map[string]any{"all": true, "depth": 2.0, "skip": []any{".git", "node_modules"}},
				}},
			},
			Model:      "m",
			Usage:      &session.Usage{Input: 3, Output: 5, TotalTokens: 8},
			StopReason: session.StopReasonToolUse,
			Timestamp:  2,
		},
	}
}

// toolResult returns a message entry holding the result of call callID.
func toolResult(id, parent, callID string) session.SessionEntry {
	return session.SessionEntry{
		Type: session.EntryMessage, ID: id, ParentID: parent, Timestamp: 3,
		Message: &session.ToolResultMessage{
			ToolCallID: callID,
			ToolName:   "ls",
			Content:    []session.TextContent{{Text: "README.md"}},
			Details:    map[string]any{"count": 1.0, "names": []any{"README.md"}},
			IsError:    false,
			Timestamp:  3,
		},
	}
}

// metadata returns a metadata entry with key "title" and an object value.
func metadata(id, parent string) session.SessionEntry {
	return session.SessionEntry{
		Type: session.EntryMetadata, ID: id, ParentID: parent, Timestamp: 4,
		Key: "title", Value: map[string]any{"text": "demo", "tags": []any{"x"}},
	}
}

// chapterTree is the chapter's example, in file order:
//
//	a  user
//	b  assistant with tool call c1   parent a
//	r  tool result for c1            parent b
//	d  assistant text                parent a
//	m  metadata                      parent d
//
// Leaf r is the branch a, b, r; leaf m is a, d, m (messages a, d).
func chapterTree() []session.SessionEntry {
	return []session.SessionEntry{
		user("a", "", "list files"),
		assistantToolCall("b", "a", "c1"),
		toolResult("r", "b", "c1"),
		assistantText("d", "a", "nothing to list"),
		metadata("m", "d"),
	}
}

// workedExample is the worked example of the published chapter, in file
// order: a question, an answer that reads a file with a tool, the tool's
// result, the final answer, a second answer to the same question (a retry,
// so a sibling branch), and the working directory kept as metadata.
//
//	u-1       user
//	a-read    assistant, tool call call-1: read {path: README.md}   parent u-1
//	r-read    tool result for call-1                                parent a-read
//	a-final   assistant text                                        parent r-read
//	a-alt     assistant text (the retry)                            parent u-1
//	meta-cwd  metadata "cwd"                                        parent a-final
//
// PathTo(meta-cwd) is u-1, a-read, r-read, a-final, meta-cwd; the messages
// on that path are the first four: the tool round trip whole, the metadata
// and the sibling a-alt left out.
func workedExample() []session.SessionEntry {
	return []session.SessionEntry{
		{Type: session.EntryMessage, ID: "u-1", Timestamp: 1000, Message: &session.UserMessage{
			Content: []session.TextContent{{Text: "What is this project?"}}, Timestamp: 1000}},
		{Type: session.EntryMessage, ID: "a-read", ParentID: "u-1", Timestamp: 1001, Message: &session.AssistantMessage{
			Content: []session.AssistantContent{
				session.TextContent{Text: "Let me read the README."},
				session.ToolCall{ID: "call-1", Name: "read", Arguments: map[string]any{"path": "README.md"}},
			},
			Model: "m", Usage: &session.Usage{Input: 40, Output: 12, TotalTokens: 52},
			StopReason: session.StopReasonToolUse, Timestamp: 1001}},
		{Type: session.EntryMessage, ID: "r-read", ParentID: "a-read", Timestamp: 1002, Message: &session.ToolResultMessage{
			ToolCallID: "call-1", ToolName: "read",
			Content: []session.TextContent{{Text: "# demo\nA tiny coding agent."}},
			Details: map[string]any{"bytes": 27.0}, Timestamp: 1002}},
		{Type: session.EntryMessage, ID: "a-final", ParentID: "r-read", Timestamp: 1003, Message: &session.AssistantMessage{
			Content:    []session.AssistantContent{session.TextContent{Text: "It is a tiny coding agent."}},
			Model:      "m",
			StopReason: session.StopReasonStop, Timestamp: 1003}},
		{Type: session.EntryMessage, ID: "a-alt", ParentID: "u-1", Timestamp: 1004, Message: &session.AssistantMessage{
			Content:    []session.AssistantContent{session.TextContent{Text: "Which project do you mean?"}},
			Model:      "m",
			StopReason: session.StopReasonStop, Timestamp: 1004}},
		{Type: session.EntryMetadata, ID: "meta-cwd", ParentID: "a-final", Timestamp: 1005,
			Key: "cwd", Value: "/home/me/demo"},
	}
}

// entryByID returns the entry with the given id, failing the test if there
// is none.
func entryByID(t *testing.T, entries []session.SessionEntry, id string) session.SessionEntry {
	t.Helper()
	for _, e := range entries {
		if e.ID == id {
			return e
		}
	}
	t.Fatalf("test setup: no entry %q", id)
	return session.SessionEntry{}
}

// ids returns the IDs of entries, in order.
func ids(entries []session.SessionEntry) []string {
	out := make([]string, len(entries))
	for i, e := range entries {
		out[i] = e.ID
	}
	return out
}
