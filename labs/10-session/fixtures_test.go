package session

// Shared fixtures for the lab 10 tests: small builders for entries and the
// chapter's own example tree. Builders return fresh values on every call, so
// one test can never change another's data.

// user returns a root-or-child message entry holding a user text message.
func user(id, parent, text string) SessionEntry {
	return SessionEntry{
		Type: EntryMessage, ID: id, ParentID: parent, Timestamp: 1,
		Message: &UserMessage{Content: []TextContent{{Text: text}}, Timestamp: 1},
	}
}

// assistantText returns a message entry holding an assistant text reply.
func assistantText(id, parent, text string) SessionEntry {
	return SessionEntry{
		Type: EntryMessage, ID: id, ParentID: parent, Timestamp: 2,
		Message: &AssistantMessage{
			Content:    []AssistantContent{TextContent{Text: text}},
			Model:      "m",
			StopReason: StopReasonStop,
			Timestamp:  2,
		},
	}
}

// assistantToolCall returns a message entry whose assistant message calls
// the tool "ls" with call id callID and arguments {"path": ".", "opts": {...}}.
func assistantToolCall(id, parent, callID string) SessionEntry {
	return SessionEntry{
		Type: EntryMessage, ID: id, ParentID: parent, Timestamp: 2,
		Message: &AssistantMessage{
			Content: []AssistantContent{
				TextContent{Text: "let me look"},
				ToolCall{ID: callID, Name: "ls", Arguments: map[string]any{
					"path": ".",
					"opts": map[string]any{"all": true, "depth": 2.0, "skip": []any{".git", "node_modules"}},
				}},
			},
			Model:      "m",
			Usage:      &Usage{Input: 3, Output: 5, TotalTokens: 8},
			StopReason: StopReasonToolUse,
			Timestamp:  2,
		},
	}
}

// toolResult returns a message entry holding the result of call callID.
func toolResult(id, parent, callID string) SessionEntry {
	return SessionEntry{
		Type: EntryMessage, ID: id, ParentID: parent, Timestamp: 3,
		Message: &ToolResultMessage{
			ToolCallID: callID,
			ToolName:   "ls",
			Content:    []TextContent{{Text: "README.md"}},
			Details:    map[string]any{"count": 1.0, "names": []any{"README.md"}},
			IsError:    false,
			Timestamp:  3,
		},
	}
}

// metadata returns a metadata entry with key "title" and an object value.
func metadata(id, parent string) SessionEntry {
	return SessionEntry{
		Type: EntryMetadata, ID: id, ParentID: parent, Timestamp: 4,
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
func chapterTree() []SessionEntry {
	return []SessionEntry{
		user("a", "", "list files"),
		assistantToolCall("b", "a", "c1"),
		toolResult("r", "b", "c1"),
		assistantText("d", "a", "nothing to list"),
		metadata("m", "d"),
	}
}

// ids returns the IDs of entries, in order.
func ids(entries []SessionEntry) []string {
	out := make([]string, len(entries))
	for i, e := range entries {
		out[i] = e.ID
	}
	return out
}
