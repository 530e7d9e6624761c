package session_test

import (
	"encoding/json"
	"errors"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coursekit/course/labs/10-session"
)

// Public tests of exercise 10.2, ParseSessionEntry. Run them with
//
//	go test -run Lab10_2
//
// The inputs are what json.Unmarshal gives for an `any`: map[string]any,
// []any, string, float64, bool and nil. Most cases start from one of the
// valid lines below and break exactly ONE thing, so whatever order your
// parser checks fields in, the FieldError must name the same path.

// Valid session file lines. Each one decodes to the value of the fixture
// named next to it (see fixtures_test.go).
const (
	// user("a", "", "list files")
	parseUserLine = `{"type":"message","id":"a","parentId":null,"timestamp":1,"message":{"role":"user","content":[{"type":"text","text":"list files"}],"timestamp":1}}`
	// assistantToolCall("b", "a", "c1")
	parseAssistantLine = `{"type":"message","id":"b","parentId":"a","timestamp":2,"message":{"role":"assistant","content":[{"type":"text","text":"let me look"},{"type":"toolCall","id":"c1","name":"ls","arguments":{"path":".","opts":{"all":true,"depth":2,"skip":[".git","node_modules"]}}}],"model":"m","usage":{"input":3,"output":5,"totalTokens":8},"stopReason":"toolUse","timestamp":2}}`
	// toolResult("r", "b", "c1")
	parseToolResultLine = `{"type":"message","id":"r","parentId":"b","timestamp":3,"message":{"role":"toolResult","toolCallId":"c1","toolName":"ls","content":[{"type":"text","text":"README.md"}],"details":{"count":1,"names":["README.md"]},"isError":false,"timestamp":3}}`
	// metadata("m", "d")
	parseMetadataLine = `{"type":"metadata","id":"m","parentId":"d","timestamp":4,"key":"title","value":{"text":"demo","tags":["x"]}}`
)

// parseLine decodes one JSON line the way a session file reader does: into
// an `any`. It returns the top-level object so a test can break one field.
func parseLine(line string) map[string]any {
	var v any
	if err := json.Unmarshal([]byte(line), &v); err != nil {
		panic("bad test line: " + err.Error())
	}
	return v.(map[string]any)
}

// parseMessageOf returns the "message" object of a decoded message line.
func parseMessageOf(entry map[string]any) map[string]any {
	return entry["message"].(map[string]any)
}

// parseBlockOf returns content block i of a decoded message line.
func parseBlockOf(entry map[string]any, i int) map[string]any {
	return parseMessageOf(entry)["content"].([]any)[i].(map[string]any)
}

// parseArgsOf returns the tool call arguments of parseAssistantLine.
func parseArgsOf(entry map[string]any) map[string]any {
	return parseBlockOf(entry, 1)["arguments"].(map[string]any)
}

// parseEdit decodes line, lets edit change one thing, and returns the result.
func parseEdit(line string, edit func(entry map[string]any)) func() any {
	return func() any {
		entry := parseLine(line)
		edit(entry)
		return entry
	}
}

// parseBadCase is one invalid input and the path its FieldError must name.
type parseBadCase struct {
	name  string
	input func() any
	path  string
}

// parseRunBad checks that every case is rejected with a *FieldError at the
// expected path. why is the chapter's reason, shown when a case fails.
func parseRunBad(t *testing.T, cases []parseBadCase, why string) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := session.ParseSessionEntry(tc.input())
			var fe *session.FieldError
			require.ErrorAs(t, err, &fe, "ParseSessionEntry(%s) returned (%+v, %v), want a *FieldError with Path %q (lab 10.2: %s)", tc.name, got, err, tc.path, why)
			assert.Equal(t, tc.path, fe.Path, "ParseSessionEntry(%s) returned FieldError{Path: %q, Problem: %q}, want Path %q (lab 10.2: %s)", tc.name, fe.Path, fe.Problem, tc.path, why)
		})
	}
}

// parseMustParse parses v and fails the test with a readable message if it
// is rejected.
func parseMustParse(t *testing.T, what string, v any) session.SessionEntry {
	t.Helper()
	got, err := session.ParseSessionEntry(v)
	require.NoError(t, err, "ParseSessionEntry(%s) error = %v, want no error: this is a valid session entry", what, err)
	return got
}

// parseToolCallOf returns block 1 of a parsed assistant entry as a ToolCall,
// failing the test (instead of panicking) if it is something else.
func parseToolCallOf(t *testing.T, e session.SessionEntry) session.ToolCall {
	t.Helper()
	msg, ok := e.Message.(*session.AssistantMessage)
	require.True(t, ok, "parsed entry %q: Message is %T, want *AssistantMessage", e.ID, e.Message)
	require.Len(t, msg.Content, 2, "parsed entry %q: want 2 content blocks (text, tool call)", e.ID)
	call, ok := msg.Content[1].(session.ToolCall)
	require.True(t, ok, "parsed entry %q: block 1 is %T, want ToolCall", e.ID, msg.Content[1])
	return call
}

// Rule 10.2.1: only a map[string]any is a JSON object; anything else is rejected at its path.
func TestLab10_2_RejectsNonObjects(t *testing.T) {
	t.Parallel()
	wire := parseLine(parseUserLine)
	cases := []parseBadCase{
		{name: "nil", input: func() any { return nil }, path: "entry"},
		{name: `a string`, input: func() any { return parseUserLine }, path: "entry"},
		{name: "the raw bytes of a line", input: func() any { return []byte(parseUserLine) }, path: "entry"},
		{name: "a number", input: func() any { return 42.0 }, path: "entry"},
		{name: "a list holding a valid entry", input: func() any { return []any{parseLine(parseUserLine)} }, path: "entry"},
		{name: "a map[string]string", input: func() any { return map[string]string{"type": "metadata", "id": "m", "key": "k"} }, path: "entry"},
		{name: "a SessionEntry struct", input: func() any { return user("a", "", "hi") }, path: "entry"},
		{name: "a *map[string]any pointing at a valid entry", input: func() any { return &wire }, path: "entry"},
		{name: "message is null", input: parseEdit(parseUserLine, func(e map[string]any) { e["message"] = nil }), path: "entry.message"},
		{name: "message is a string", input: parseEdit(parseUserLine, func(e map[string]any) { e["message"] = "list files" }), path: "entry.message"},
		{name: "message is a list", input: parseEdit(parseUserLine, func(e map[string]any) { e["message"] = []any{} }), path: "entry.message"},
		{name: "message is a *UserMessage struct", input: parseEdit(parseUserLine, func(e map[string]any) {
			e["message"] = &session.UserMessage{Content: []session.TextContent{{Text: "hi"}}, Timestamp: 1}
		}), path: "entry.message"},
		{name: "content block is a string", input: parseEdit(parseUserLine, func(e map[string]any) {
			parseMessageOf(e)["content"] = []any{"list files"}
		}), path: "entry.message.content[0]"},
		{name: "second assistant block is a ToolCall struct", input: parseEdit(parseAssistantLine, func(e map[string]any) {
			parseMessageOf(e)["content"].([]any)[1] = session.ToolCall{ID: "c1", Name: "ls", Arguments: map[string]any{}}
		}), path: "entry.message.content[1]"},
		{name: "usage is a *Usage struct", input: parseEdit(parseAssistantLine, func(e map[string]any) {
			parseMessageOf(e)["usage"] = &session.Usage{Input: 3, Output: 5, TotalTokens: 8}
		}), path: "entry.message.usage"},
		{name: "tool arguments are null", input: parseEdit(parseAssistantLine, func(e map[string]any) {
			parseBlockOf(e, 1)["arguments"] = nil
		}), path: "entry.message.content[1].arguments"},
		{name: "tool arguments are a list", input: parseEdit(parseAssistantLine, func(e map[string]any) {
			parseBlockOf(e, 1)["arguments"] = []any{"."}
		}), path: "entry.message.content[1].arguments"},
		{name: "tool arguments are a map[string]string", input: parseEdit(parseAssistantLine, func(e map[string]any) {
			parseBlockOf(e, 1)["arguments"] = map[string]string{"path": "."}
		}), path: "entry.message.content[1].arguments"},
	}
	parseRunBad(t, cases, "only map[string]any is a JSON object; a struct, a pointer or another map type is not what json.Unmarshal gives and must not be trusted")
}

// Rule 10.2.2: every required field, at every layer, is checked; a missing one is reported at its path.
func TestLab10_2_RejectsMissingRequiredFields(t *testing.T) {
	t.Parallel()
	del := func(line string, at func(map[string]any) map[string]any, key string) func() any {
		return parseEdit(line, func(e map[string]any) { delete(at(e), key) })
	}
	top := func(e map[string]any) map[string]any { return e }
	msg := parseMessageOf
	block := func(i int) func(map[string]any) map[string]any {
		return func(e map[string]any) map[string]any { return parseBlockOf(e, i) }
	}
	cases := []parseBadCase{
		{name: "user entry without type", input: del(parseUserLine, top, "type"), path: "entry.type"},
		{name: "user entry without id", input: del(parseUserLine, top, "id"), path: "entry.id"},
		{name: "user entry without parentId (null is required for a root)", input: del(parseUserLine, top, "parentId"), path: "entry.parentId"},
		{name: "user entry without timestamp", input: del(parseUserLine, top, "timestamp"), path: "entry.timestamp"},
		{name: "message entry without message", input: del(parseUserLine, top, "message"), path: "entry.message"},
		{name: "metadata entry without key", input: del(parseMetadataLine, top, "key"), path: "entry.key"},
		{name: "metadata entry without value", input: del(parseMetadataLine, top, "value"), path: "entry.value"},
		{name: "metadata entry without id", input: del(parseMetadataLine, top, "id"), path: "entry.id"},
		{name: "user message without role", input: del(parseUserLine, msg, "role"), path: "entry.message.role"},
		{name: "user message without content", input: del(parseUserLine, msg, "content"), path: "entry.message.content"},
		{name: "user message without timestamp", input: del(parseUserLine, msg, "timestamp"), path: "entry.message.timestamp"},
		{name: "text block without type", input: del(parseUserLine, block(0), "type"), path: "entry.message.content[0].type"},
		{name: "text block without text", input: del(parseUserLine, block(0), "text"), path: "entry.message.content[0].text"},
		{name: "assistant message without content", input: del(parseAssistantLine, msg, "content"), path: "entry.message.content"},
		{name: "assistant message without timestamp", input: del(parseAssistantLine, msg, "timestamp"), path: "entry.message.timestamp"},
		{name: "tool call block without id", input: del(parseAssistantLine, block(1), "id"), path: "entry.message.content[1].id"},
		{name: "tool call block without name", input: del(parseAssistantLine, block(1), "name"), path: "entry.message.content[1].name"},
		{name: "tool call block without arguments", input: del(parseAssistantLine, block(1), "arguments"), path: "entry.message.content[1].arguments"},
		{name: "usage without totalTokens", input: parseEdit(parseAssistantLine, func(e map[string]any) {
			delete(parseMessageOf(e)["usage"].(map[string]any), "totalTokens")
		}), path: "entry.message.usage.totalTokens"},
		{name: "tool result without toolCallId", input: del(parseToolResultLine, msg, "toolCallId"), path: "entry.message.toolCallId"},
		{name: "tool result without toolName", input: del(parseToolResultLine, msg, "toolName"), path: "entry.message.toolName"},
		{name: "tool result without content", input: del(parseToolResultLine, msg, "content"), path: "entry.message.content"},
		{name: "tool result without isError", input: del(parseToolResultLine, msg, "isError"), path: "entry.message.isError"},
		{name: "tool result without timestamp", input: del(parseToolResultLine, msg, "timestamp"), path: "entry.message.timestamp"},
	}
	parseRunBad(t, cases, "a missing field is not a zero value; the parser checks each required field and names the one that is absent")
}

// Rule 10.2.2: a field with the wrong type or an invalid value is reported at its own path.
func TestLab10_2_RejectsWrongTypesAndValues(t *testing.T) {
	t.Parallel()
	set := func(line string, at func(map[string]any) map[string]any, key string, v any) func() any {
		return parseEdit(line, func(e map[string]any) { at(e)[key] = v })
	}
	top := func(e map[string]any) map[string]any { return e }
	msg := parseMessageOf
	block := func(i int) func(map[string]any) map[string]any {
		return func(e map[string]any) map[string]any { return parseBlockOf(e, i) }
	}
	usage := func(e map[string]any) map[string]any { return parseMessageOf(e)["usage"].(map[string]any) }
	toolCallBlock := map[string]any{"type": "toolCall", "id": "c9", "name": "ls", "arguments": map[string]any{}}
	cases := []parseBadCase{
		{name: `type "note"`, input: set(parseUserLine, top, "type", "note"), path: "entry.type"},
		{name: "type is a number", input: set(parseUserLine, top, "type", 1.0), path: "entry.type"},
		{name: `id ""`, input: set(parseUserLine, top, "id", ""), path: "entry.id"},
		{name: "id is a number", input: set(parseUserLine, top, "id", 7.0), path: "entry.id"},
		{name: `parentId "" (a root has parentId null)`, input: set(parseUserLine, top, "parentId", ""), path: "entry.parentId"},
		{name: "parentId is a number", input: set(parseUserLine, top, "parentId", 1.0), path: "entry.parentId"},
		{name: `timestamp "1"`, input: set(parseUserLine, top, "timestamp", "1"), path: "entry.timestamp"},
		{name: "timestamp NaN", input: set(parseUserLine, top, "timestamp", math.NaN()), path: "entry.timestamp"},
		{name: "timestamp +Inf", input: set(parseUserLine, top, "timestamp", math.Inf(1)), path: "entry.timestamp"},
		{name: "timestamp is a Go int", input: set(parseUserLine, top, "timestamp", 1), path: "entry.timestamp"},
		{name: `metadata key ""`, input: set(parseMetadataLine, top, "key", ""), path: "entry.key"},
		{name: "metadata key is a number", input: set(parseMetadataLine, top, "key", 3.0), path: "entry.key"},
		{name: `role "system"`, input: set(parseUserLine, msg, "role", "system"), path: "entry.message.role"},
		{name: "message timestamp null", input: set(parseUserLine, msg, "timestamp", nil), path: "entry.message.timestamp"},
		{name: "content is a string", input: set(parseUserLine, msg, "content", "list files"), path: "entry.message.content"},
		{name: "content is null", input: set(parseUserLine, msg, "content", nil), path: "entry.message.content"},
		{name: "content is a []map[string]any (not []any)", input: set(parseUserLine, msg, "content", []map[string]any{{"type": "text", "text": "hi"}}), path: "entry.message.content"},
		{name: "text is a number", input: set(parseUserLine, block(0), "text", 5.0), path: "entry.message.content[0].text"},
		{name: `user block type "image"`, input: set(parseUserLine, block(0), "type", "image"), path: "entry.message.content[0].type"},
		{name: "user content holds a toolCall block", input: set(parseUserLine, msg, "content", []any{toolCallBlock}), path: "entry.message.content[0].type"},
		{name: "tool result content holds a toolCall block", input: set(parseToolResultLine, msg, "content", []any{toolCallBlock}), path: "entry.message.content[0].type"},
		{name: `assistant block type "image"`, input: set(parseAssistantLine, block(0), "type", "image"), path: "entry.message.content[0].type"},
		{name: `tool call id ""`, input: set(parseAssistantLine, block(1), "id", ""), path: "entry.message.content[1].id"},
		{name: "tool call name is a number", input: set(parseAssistantLine, block(1), "name", 7.0), path: "entry.message.content[1].name"},
		{name: `model ""`, input: set(parseAssistantLine, msg, "model", ""), path: "entry.message.model"},
		{name: `stopReason "done"`, input: set(parseAssistantLine, msg, "stopReason", "done"), path: "entry.message.stopReason"},
		{name: `errorMessage ""`, input: set(parseAssistantLine, msg, "errorMessage", ""), path: "entry.message.errorMessage"},
		{name: "usage is a string", input: set(parseAssistantLine, msg, "usage", "3/5/8"), path: "entry.message.usage"},
		{name: "usage input -1", input: set(parseAssistantLine, usage, "input", -1.0), path: "entry.message.usage.input"},
		{name: "usage output 1.5", input: set(parseAssistantLine, usage, "output", 1.5), path: "entry.message.usage.output"},
		{name: `usage totalTokens "8"`, input: set(parseAssistantLine, usage, "totalTokens", "8"), path: "entry.message.usage.totalTokens"},
		{name: `toolCallId ""`, input: set(parseToolResultLine, msg, "toolCallId", ""), path: "entry.message.toolCallId"},
		{name: "toolName null", input: set(parseToolResultLine, msg, "toolName", nil), path: "entry.message.toolName"},
		{name: `isError "false"`, input: set(parseToolResultLine, msg, "isError", "false"), path: "entry.message.isError"},
		{name: "details null (leave details out instead)", input: set(parseToolResultLine, msg, "details", nil), path: "entry.message.details"},
	}
	parseRunBad(t, cases, "narrow layer by layer: check each field's type and allowed values where it is, and name that field")
}

// Rule 10.2.2: valid entries of every kind parse to the typed values, optional fields included or left out.
func TestLab10_2_AcceptsValidEntries(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		input func() any
		want  session.SessionEntry
	}{
		{name: "the user line", input: func() any { return parseLine(parseUserLine) }, want: user("a", "", "list files")},
		{name: "the assistant line with a tool call", input: func() any { return parseLine(parseAssistantLine) }, want: assistantToolCall("b", "a", "c1")},
		{name: "the tool result line", input: func() any { return parseLine(parseToolResultLine) }, want: toolResult("r", "b", "c1")},
		{name: "the metadata line", input: func() any { return parseLine(parseMetadataLine) }, want: metadata("m", "d")},
		{
			name: "assistant without model, usage, stopReason, errorMessage; empty text",
			input: func() any {
				return parseLine(`{"type":"message","id":"x","parentId":"a","timestamp":5,"message":{"role":"assistant","content":[{"type":"text","text":""}],"timestamp":6}}`)
			},
			want: session.SessionEntry{Type: session.EntryMessage, ID: "x", ParentID: "a", Timestamp: 5,
				Message: &session.AssistantMessage{Content: []session.AssistantContent{session.TextContent{Text: ""}}, Timestamp: 6}},
		},
		{
			name: "assistant that failed: errorMessage, stopReason error, zero usage, empty content",
			input: func() any {
				return parseLine(`{"type":"message","id":"x","parentId":null,"timestamp":5,"message":{"role":"assistant","content":[],"model":"m2","usage":{"input":0,"output":0,"totalTokens":0},"stopReason":"error","errorMessage":"rate limited","timestamp":6}}`)
			},
			want: session.SessionEntry{Type: session.EntryMessage, ID: "x", Timestamp: 5,
				Message: &session.AssistantMessage{Content: []session.AssistantContent{}, Model: "m2", Usage: &session.Usage{}, StopReason: session.StopReasonError, ErrorMessage: "rate limited", Timestamp: 6}},
		},
		{
			name: "tool result without details, isError true",
			input: func() any {
				return parseLine(`{"type":"message","id":"r2","parentId":"b","timestamp":3,"message":{"role":"toolResult","toolCallId":"c1","toolName":"ls","content":[{"type":"text","text":"no such dir"}],"isError":true,"timestamp":3}}`)
			},
			want: session.SessionEntry{Type: session.EntryMessage, ID: "r2", ParentID: "b", Timestamp: 3,
				Message: &session.ToolResultMessage{ToolCallID: "c1", ToolName: "ls", Content: []session.TextContent{{Text: "no such dir"}}, IsError: true, Timestamp: 3}},
		},
		{
			name: "tool result whose details are a string",
			input: func() any {
				return parseLine(`{"type":"message","id":"r3","parentId":"b","timestamp":3,"message":{"role":"toolResult","toolCallId":"c1","toolName":"ls","content":[],"details":"plain","isError":false,"timestamp":3}}`)
			},
			want: session.SessionEntry{Type: session.EntryMessage, ID: "r3", ParentID: "b", Timestamp: 3,
				Message: &session.ToolResultMessage{ToolCallID: "c1", ToolName: "ls", Content: []session.TextContent{}, Details: "plain", Timestamp: 3}},
		},
		{
			name: "metadata whose value is null",
			input: func() any {
				return parseLine(`{"type":"metadata","id":"m2","parentId":null,"timestamp":4,"key":"title","value":null}`)
			},
			want: session.SessionEntry{Type: session.EntryMetadata, ID: "m2", Timestamp: 4, Key: "title", Value: nil},
		},
		{
			name: "metadata whose value is a list",
			input: func() any {
				return parseLine(`{"type":"metadata","id":"m3","parentId":"a","timestamp":4,"key":"tags","value":[1,"two",false,null,[],{}]}`)
			},
			want: session.SessionEntry{Type: session.EntryMetadata, ID: "m3", ParentID: "a", Timestamp: 4, Key: "tags",
				Value: []any{1.0, "two", false, nil, []any{}, map[string]any{}}},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := parseMustParse(t, tc.name, tc.input())
			assert.Equal(t, tc.want, got, "ParseSessionEntry(%s) returned a different entry than expected: every field must be carried over; an absent optional field stays the zero value, and an empty content list is an empty (non-nil) slice", tc.name)
		})
	}
}

// maxTokens is the largest usage count the lab accepts: 2^53, the largest
// of the whole numbers that a float64 (and a JavaScript number) all hold exactly.
const maxTokens = 1 << 53

// Rule 10.2.7: numbers at the edge of what is valid are accepted: usage counts up to and including 2^53, negative and fractional timestamps.
func TestLab10_2_AcceptsEdgeNumbers(t *testing.T) {
	t.Parallel()
	e := parseLine(parseAssistantLine)
	e["timestamp"] = -1.5
	parseMessageOf(e)["timestamp"] = 0.25
	parseMessageOf(e)["usage"] = map[string]any{"input": float64(maxTokens), "output": 0.0, "totalTokens": float64(maxTokens)}
	got, err := session.ParseSessionEntry(e)
	require.NoError(t, err, "ParseSessionEntry(assistant entry with timestamp -1.5, message timestamp 0.25, usage {input: 2^53, output: 0, totalTokens: 2^53}) error = %v, want no error: any finite timestamp is valid, negative and fractional ones too, and a usage count may be any whole number from 0 to 2^53 inclusive (lab 10.2)", err)
	want := assistantToolCall("b", "a", "c1")
	want.Timestamp = -1.5
	msg := want.Message.(*session.AssistantMessage)
	msg.Timestamp = 0.25
	msg.Usage = &session.Usage{Input: maxTokens, Output: 0, TotalTokens: maxTokens}
	assert.Equal(t, want, got, "ParseSessionEntry read the edge numbers wrong: the timestamps are kept as they are, and 2^53 tokens is the int 9007199254740992")

	meta := parseLine(parseMetadataLine)
	meta["timestamp"] = -86400000.75
	got, err = session.ParseSessionEntry(meta)
	require.NoError(t, err, "ParseSessionEntry(metadata entry with timestamp -86400000.75) error = %v, want no error: a timestamp before 1970, with a fraction, is still a finite number (lab 10.2)", err)
	assert.Equal(t, -86400000.75, got.Timestamp, "the metadata entry's timestamp")

	// The next float64 after 2^53 is 2^53 + 2: over the bound.
	over := parseLine(parseAssistantLine)
	parseMessageOf(over)["usage"].(map[string]any)["input"] = float64(maxTokens + 2)
	_, err = session.ParseSessionEntry(over)
	var fe *session.FieldError
	require.ErrorAs(t, err, &fe, "ParseSessionEntry(usage input 2^53 + 2) error = %v, want a *FieldError: counts above 2^53 are rejected (lab 10.2)", err)
	assert.Equal(t, "entry.message.usage.input", fe.Path, "FieldError.Path of the usage count above 2^53")
}

// Rule 10.2.2: every fixture survives EntryValue and a real JSON line, and comes back as the right message type.
func TestLab10_2_RoundTripsEveryFixture(t *testing.T) {
	t.Parallel()
	fixtures := append(chapterTree(),
		session.SessionEntry{Type: session.EntryMessage, ID: "e", ParentID: "d", Timestamp: 7,
			Message: &session.AssistantMessage{Content: []session.AssistantContent{}, Model: "m", StopReason: session.StopReasonAborted, ErrorMessage: "user pressed ctrl-c", Timestamp: 7}},
		session.SessionEntry{Type: session.EntryMessage, ID: "f", ParentID: "e", Timestamp: 8,
			Message: &session.ToolResultMessage{ToolCallID: "c2", ToolName: "cat", Content: []session.TextContent{}, IsError: true, Timestamp: 8}},
		session.SessionEntry{Type: session.EntryMetadata, ID: "g", ParentID: "f", Timestamp: 9, Key: "note", Value: nil},
		session.SessionEntry{Type: session.EntryMetadata, ID: "h", ParentID: "g", Timestamp: 10, Key: "n", Value: 0.5},
	)
	for _, e := range fixtures {
		e := e
		t.Run(e.ID, func(t *testing.T) {
			t.Parallel()
			got := parseMustParse(t, "EntryValue(fixture "+e.ID+")", session.EntryValue(e))
			assert.Equal(t, e, got, "ParseSessionEntry(EntryValue(fixture %q)) did not give back the fixture: a valid entry must round-trip with every field kept", e.ID)
			if e.Message != nil {
				assert.IsType(t, e.Message, got.Message, "ParseSessionEntry(EntryValue(fixture %q)).Message is %T, want %T (dispatch on role)", e.ID, got.Message, e.Message)
			}

			line, err := json.Marshal(e)
			require.NoError(t, err, "json.Marshal(fixture %q)", e.ID)
			var decoded any
			require.NoError(t, json.Unmarshal(line, &decoded), "json.Unmarshal(%s)", line)
			got = parseMustParse(t, string(line), decoded)
			assert.Equal(t, e, got, "ParseSessionEntry(json line %s) did not give back fixture %q: what goes to disk must come back equal", line, e.ID)
		})
	}
}

// Rule 10.2.3: values that JSON cannot hold are rejected at their exact nested path.
func TestLab10_2_RejectsValuesThatAreNotJSON(t *testing.T) {
	t.Parallel()
	value := func(v any) func() any {
		return parseEdit(parseMetadataLine, func(e map[string]any) { e["value"] = v })
	}
	opts := func(bad any) func() any {
		return parseEdit(parseAssistantLine, func(e map[string]any) {
			parseArgsOf(e)["opts"] = []any{"-l", "-a", bad}
		})
	}
	details := func(v any) func() any {
		return parseEdit(parseToolResultLine, func(e map[string]any) { parseMessageOf(e)["details"] = v })
	}
	cases := []parseBadCase{
		{name: "metadata value NaN", input: value(math.NaN()), path: "entry.value"},
		{name: "metadata value with +Inf in a list", input: value(map[string]any{"tags": []any{"x", math.Inf(1)}}), path: "entry.value.tags[1]"},
		{name: "metadata value with -Inf", input: value(map[string]any{"low": math.Inf(-1)}), path: "entry.value.low"},
		{name: "metadata value with a Go int", input: value(map[string]any{"count": 1}), path: "entry.value.count"},
		{name: "metadata value with an int64", input: value(map[string]any{"count": int64(1)}), path: "entry.value.count"},
		{name: "metadata value with a float32", input: value(map[string]any{"ratio": float32(0.5)}), path: "entry.value.ratio"},
		{name: "metadata value with a func", input: value(map[string]any{"fn": func() {}}), path: "entry.value.fn"},
		{name: "metadata value with a chan", input: value(map[string]any{"ch": make(chan int)}), path: "entry.value.ch"},
		{name: "metadata value with a complex number", input: value(map[string]any{"c": complex(1, 2)}), path: "entry.value.c"},
		{name: "metadata value with a struct", input: value(map[string]any{"s": struct{ A string }{"x"}}), path: "entry.value.s"},
		{name: "metadata value with a *map[string]any", input: value(map[string]any{"p": &map[string]any{}}), path: "entry.value.p"},
		{name: "metadata value with a map[int]any", input: value(map[string]any{"m": map[int]any{1: "one"}}), path: "entry.value.m"},
		{name: "metadata value with a map[string]string", input: value(map[string]any{"m": map[string]string{"k": "v"}}), path: "entry.value.m"},
		{name: "metadata value with a []string", input: value(map[string]any{"list": []string{"a"}}), path: "entry.value.list"},
		{name: "metadata value deep inside lists and objects", input: value(map[string]any{"a": []any{map[string]any{"b": []any{math.NaN()}}}}), path: "entry.value.a[0].b[0]"},
		{name: "tool arguments opts[2] is a func", input: opts(func() {}), path: "entry.message.content[1].arguments.opts[2]"},
		{name: "tool arguments opts[2] is NaN", input: opts(math.NaN()), path: "entry.message.content[1].arguments.opts[2]"},
		{name: "tool arguments with a Go int", input: parseEdit(parseAssistantLine, func(e map[string]any) { parseArgsOf(e)["limit"] = 10 }), path: "entry.message.content[1].arguments.limit"},
		{name: "tool arguments with a []string deep inside", input: parseEdit(parseAssistantLine, func(e map[string]any) {
			parseArgsOf(e)["opts"].(map[string]any)["skip"] = []string{".git"}
		}), path: "entry.message.content[1].arguments.opts.skip"},
		{name: "details with a Go int", input: details(map[string]any{"count": 1}), path: "entry.message.details.count"},
		{name: "details is a struct", input: details(struct{ Count int }{1}), path: "entry.message.details"},
		{name: "details with +Inf in a list", input: details(map[string]any{"names": []any{"a", math.Inf(1)}}), path: "entry.message.details.names[1]"},
	}
	parseRunBad(t, cases, "arguments, details and metadata values must be JSON-safe all the way down: null, bool, string, finite float64, []any, map[string]any; the path says where the bad value sits")
}

// Rule 10.2.3: a value that contains itself is a cycle, reported where the ancestor is met again.
func TestLab10_2_ReportsCycleAtItsPath(t *testing.T) {
	t.Parallel()
	cases := []parseBadCase{
		{name: "metadata value m with m[\"self\"] = m", input: func() any {
			m := map[string]any{"ok": true}
			m["self"] = m
			e := parseLine(parseMetadataLine)
			e["value"] = m
			return e
		}, path: "entry.value.self"},
		{name: "metadata value list l with l[1] = l", input: func() any {
			l := make([]any, 2)
			l[0] = "x"
			l[1] = l
			e := parseLine(parseMetadataLine)
			e["value"] = l
			return e
		}, path: "entry.value[1]"},
		{name: "metadata value m whose list holds m", input: func() any {
			m := map[string]any{}
			m["items"] = []any{"x", m}
			e := parseLine(parseMetadataLine)
			e["value"] = m
			return e
		}, path: "entry.value.items[1]"},
		{name: "tool arguments that contain themselves", input: func() any {
			e := parseLine(parseAssistantLine)
			args := parseArgsOf(e)
			args["again"] = args
			return e
		}, path: "entry.message.content[1].arguments.again"},
		{name: "details d with d.inner.back = d", input: func() any {
			d := map[string]any{}
			d["inner"] = map[string]any{"back": d}
			e := parseLine(parseToolResultLine)
			parseMessageOf(e)["details"] = d
			return e
		}, path: "entry.message.details.inner.back"},
	}
	parseRunBad(t, cases, "keep the containers you are inside of (ContainerIdentity); meeting one again means the value contains itself, which json.Marshal cannot write")
	for _, tc := range cases {
		_, err := session.ParseSessionEntry(tc.input())
		var fe *session.FieldError
		if errors.As(err, &fe) {
			assert.Contains(t, fe.Problem, "cycle", "ParseSessionEntry(%s): FieldError.Problem = %q, want it to say %q so a person knows the value contains itself", tc.name, fe.Problem, "cycle")
		}
	}
}

// Rule 10.2.3: the same object under two sibling fields is not a cycle and must be accepted.
func TestLab10_2_AcceptsSameObjectUnderSiblings(t *testing.T) {
	t.Parallel()
	shared := func() map[string]any { return map[string]any{"k": "v", "list": []any{1.0}} }

	s := shared()
	e := parseLine(parseMetadataLine)
	e["value"] = map[string]any{"a": s, "b": s, "both": []any{s, s}, "deep": map[string]any{"again": s}}
	got, err := session.ParseSessionEntry(e)
	require.NoError(t, err, `ParseSessionEntry(metadata value {"a": s, "b": s, "both": [s, s], "deep": {"again": s}}, one map s used four times) error = %v, want no error: s is never inside itself, so this is not a cycle (lab 10.2: remove a container from the ancestor set when you leave it; do not keep a global "seen" set)`, err)
	assert.Equal(t, map[string]any{"a": shared(), "b": shared(), "both": []any{shared(), shared()}, "deep": map[string]any{"again": shared()}}, got.Value,
		"ParseSessionEntry kept the wrong value: a map used under several siblings is fine (lab 10.2: track ancestors on the current path only, not every container seen so far)")

	l := []any{"x", "y"}
	e = parseLine(parseAssistantLine)
	parseArgsOf(e)["include"] = l
	parseArgsOf(e)["exclude"] = l
	got, err = session.ParseSessionEntry(e)
	require.NoError(t, err, "ParseSessionEntry(tool arguments with one list under include and exclude) error = %v, want no error: the same list under two keys is not a cycle (lab 10.2: ancestors on the current path only)", err)
	call := parseToolCallOf(t, got)
	assert.Equal(t, []any{"x", "y"}, call.Arguments["include"], "arguments.include lost its value")
	assert.Equal(t, []any{"x", "y"}, call.Arguments["exclude"], "arguments.exclude lost its value: the same list under two keys is not a cycle")
}

// Rule 10.2.3: a key that is not a plain identifier is written ["quoted"] in the path.
func TestLab10_2_QuotesOddKeysInPath(t *testing.T) {
	t.Parallel()
	value := func(key string) func() any {
		return parseEdit(parseMetadataLine, func(e map[string]any) {
			e["value"] = map[string]any{"ok": 1.0, key: math.NaN()}
		})
	}
	cases := []parseBadCase{
		{name: `value key "my key"`, input: value("my key"), path: `entry.value["my key"]`},
		{name: `value key "1st"`, input: value("1st"), path: `entry.value["1st"]`},
		{name: `value key "a.b"`, input: value("a.b"), path: `entry.value["a.b"]`},
		{name: `value key ""`, input: value(""), path: `entry.value[""]`},
		{name: `value key "$ok_1"`, input: value("$ok_1"), path: `entry.value.$ok_1`},
		{name: `tool argument key "max-depth"`, input: parseEdit(parseAssistantLine, func(e map[string]any) {
			parseArgsOf(e)["max-depth"] = math.Inf(1)
		}), path: `entry.message.content[1].arguments["max-depth"]`},
	}
	parseRunBad(t, cases, `a key that matches [A-Za-z_$][A-Za-z0-9_$]* is written .key; any other key is written ["key"] with strconv.Quote, so the path can be read back without doubt`)
}

// Rule 10.2.4: a field the format does not have is rejected, at every level, with its path.
func TestLab10_2_RejectsUnknownFields(t *testing.T) {
	t.Parallel()
	add := func(line string, at func(map[string]any) map[string]any, key string, v any) func() any {
		return parseEdit(line, func(e map[string]any) { at(e)[key] = v })
	}
	top := func(e map[string]any) map[string]any { return e }
	msg := parseMessageOf
	block := func(i int) func(map[string]any) map[string]any {
		return func(e map[string]any) map[string]any { return parseBlockOf(e, i) }
	}
	usage := func(e map[string]any) map[string]any { return parseMessageOf(e)["usage"].(map[string]any) }
	cases := []parseBadCase{
		{name: "entry with extra", input: add(parseUserLine, top, "extra", true), path: "entry.extra"},
		{name: `entry with "my field"`, input: add(parseUserLine, top, "my field", 1.0), path: `entry["my field"]`},
		{name: "message entry with a metadata key", input: add(parseUserLine, top, "key", "title"), path: "entry.key"},
		{name: "metadata entry with a message", input: add(parseMetadataLine, top, "message", parseMessageOf(parseLine(parseUserLine))), path: "entry.message"},
		{name: "metadata entry with extra", input: add(parseMetadataLine, top, "extra", nil), path: "entry.extra"},
		{name: "user message with model (an assistant field)", input: add(parseUserLine, msg, "model", "m"), path: "entry.message.model"},
		{name: "user message with isError", input: add(parseUserLine, msg, "isError", false), path: "entry.message.isError"},
		{name: "assistant message with toolCallId", input: add(parseAssistantLine, msg, "toolCallId", "c1"), path: "entry.message.toolCallId"},
		{name: "assistant message with extra", input: add(parseAssistantLine, msg, "extra", "x"), path: "entry.message.extra"},
		{name: "tool result with model", input: add(parseToolResultLine, msg, "model", "m"), path: "entry.message.model"},
		{name: "text block with lang", input: add(parseUserLine, block(0), "lang", "en"), path: "entry.message.content[0].lang"},
		{name: "tool result text block with extra", input: add(parseToolResultLine, block(0), "extra", 1.0), path: "entry.message.content[0].extra"},
		{name: "tool call block with text", input: add(parseAssistantLine, block(1), "text", "x"), path: "entry.message.content[1].text"},
		{name: "usage with cached", input: add(parseAssistantLine, usage, "cached", 0.0), path: "entry.message.usage.cached"},
	}
	parseRunBad(t, cases, "an unknown field is rejected, never dropped: silently dropping it would lose data on the next write, and a typo like parentID must not pass")
}

// Rule 10.2.5: the result is new: changing the input afterwards changes nothing in it, and the other way round.
func TestLab10_2_ResultSharesNothingWithInput(t *testing.T) {
	t.Parallel()
	t.Run("change the input after parsing", func(t *testing.T) {
		t.Parallel()
		asst, res, meta := parseLine(parseAssistantLine), parseLine(parseToolResultLine), parseLine(parseMetadataLine)
		gotAsst := parseMustParse(t, "the assistant line", asst)
		gotRes := parseMustParse(t, "the tool result line", res)
		gotMeta := parseMustParse(t, "the metadata line", meta)

		parseBlockOf(asst, 0)["text"] = "changed"
		parseArgsOf(asst)["path"] = "/etc"
		parseArgsOf(asst)["opts"].(map[string]any)["all"] = false
		parseArgsOf(asst)["opts"].(map[string]any)["skip"].([]any)[0] = "changed"
		parseMessageOf(asst)["content"].([]any)[0] = map[string]any{"type": "text", "text": "replaced"}
		parseMessageOf(res)["details"].(map[string]any)["count"] = 99.0
		parseMessageOf(res)["details"].(map[string]any)["names"].([]any)[0] = "changed"
		meta["value"].(map[string]any)["text"] = "changed"
		meta["value"].(map[string]any)["tags"].([]any)[0] = "changed"

		assert.Equal(t, assistantToolCall("b", "a", "c1"), gotAsst, "the parsed assistant entry changed when the input map was changed afterwards: copy the tool arguments (nested maps and lists) instead of keeping the caller's maps (lab 10.2)")
		assert.Equal(t, toolResult("r", "b", "c1"), gotRes, "the parsed tool result changed when the input's details were changed afterwards: deep-copy details (lab 10.2)")
		assert.Equal(t, metadata("m", "d"), gotMeta, "the parsed metadata entry changed when the input's value was changed afterwards: deep-copy the value (lab 10.2)")
	})
	t.Run("change the result after parsing", func(t *testing.T) {
		t.Parallel()
		asst, meta := parseLine(parseAssistantLine), parseLine(parseMetadataLine)
		gotAsst := parseMustParse(t, "the assistant line", asst)
		gotMeta := parseMustParse(t, "the metadata line", meta)

		require.Equal(t, assistantToolCall("b", "a", "c1"), gotAsst, "ParseSessionEntry(the assistant line) returned the wrong entry")
		require.Equal(t, metadata("m", "d"), gotMeta, "ParseSessionEntry(the metadata line) returned the wrong entry")
		call := parseToolCallOf(t, gotAsst)
		call.Arguments["opts"].(map[string]any)["skip"].([]any)[1] = "changed"
		gotMeta.Value.(map[string]any)["tags"].([]any)[0] = "changed"

		assert.Equal(t, parseLine(parseAssistantLine), asst, "changing the parsed tool arguments changed the caller's input map: the result must be new (lab 10.2)")
		assert.Equal(t, parseLine(parseMetadataLine), meta, "changing the parsed metadata value changed the caller's input map: the result must be new (lab 10.2)")
	})
}

// Rule 10.2.6: json.Unmarshal into a Go struct accepts broken lines silently; only the parser catches them.
//
// This is the Go version of the chapter's warning about `JSON.parse(line) as
// SessionEntry`. Decoding straight into a struct looks type-safe, but
// encoding/json fills a missing field with its zero value, ignores fields the
// struct does not have, and turns null into a nil pointer, all without an
// error. A session file line with a missing id would become an entry with ID
// "" and nobody would notice until the tree falls apart. So a reader decodes
// each line into `any` and hands it to ParseSessionEntry, which checks
// every field and says which one is wrong.
func TestLab10_2_GoStructDecodingIsNotValidation(t *testing.T) {
	t.Parallel()
	// What a naive reader might decode into.
	type naiveEntry struct {
		Type      string  `json:"type"`
		ID        string  `json:"id"`
		ParentID  *string `json:"parentId"`
		Timestamp float64 `json:"timestamp"`
		Message   *struct {
			Role    string `json:"role"`
			Content []struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"content"`
			Timestamp float64 `json:"timestamp"`
		} `json:"message"`
	}
	const msg = `"message":{"role":"user","content":[{"type":"text","text":"hi"}],"timestamp":1}`
	cases := []struct {
		name string
		line string
		path string
	}{
		{name: "missing id", line: `{"type":"message","parentId":null,"timestamp":1,` + msg + `}`, path: "entry.id"},
		{name: "missing timestamp", line: `{"type":"message","id":"a","parentId":null,` + msg + `}`, path: "entry.timestamp"},
		{name: "unknown field", line: `{"type":"message","id":"a","parentId":null,"timestamp":1,"admin":true,` + msg + `}`, path: "entry.admin"},
		{name: "null message", line: `{"type":"message","id":"a","parentId":null,"timestamp":1,"message":null}`, path: "entry.message"},
		{name: "unknown field inside the message", line: `{"type":"message","id":"a","parentId":null,"timestamp":1,"message":{"role":"user","content":[],"timestamp":1,"secret":"x"}}`, path: "entry.message.secret"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var naive naiveEntry
			require.NoError(t, json.Unmarshal([]byte(tc.line), &naive), "json.Unmarshal into a struct: this test expects it to accept the broken line %s (that is the trap)", tc.line)

			var decoded any
			require.NoError(t, json.Unmarshal([]byte(tc.line), &decoded), "json.Unmarshal into any failed on %s", tc.line)
			got, err := session.ParseSessionEntry(decoded)
			var fe *session.FieldError
			require.ErrorAs(t, err, &fe, "line %s (%s): json.Unmarshal into a struct accepted it silently, and ParseSessionEntry returned (%+v, %v); want a *FieldError with Path %q (lab 10.2: the parser must not trust what encoding/json let through)", tc.line, tc.name, got, err, tc.path)
			assert.Equal(t, tc.path, fe.Path, "line %s (%s): FieldError.Path = %q (Problem %q), want %q", tc.line, tc.name, fe.Path, fe.Problem, tc.path)
		})
	}
	// The same shape without the fault is accepted: the parser is strict, not hostile.
	var decoded any
	require.NoError(t, json.Unmarshal([]byte(`{"type":"message","id":"a","parentId":null,"timestamp":1,`+msg+`}`), &decoded))
	got, err := session.ParseSessionEntry(decoded)
	require.NoError(t, err, "ParseSessionEntry(a valid user line) error = %v, want no error", err)
	assert.Equal(t, user("a", "", "hi"), got, "ParseSessionEntry(a valid user line) returned the wrong entry")
}

// Rule 10.2.2: an optional field of an assistant message is absent, never
// null: null is not a model name, a usage, a stop reason or an error message.
func TestLab10_2_OptionalFieldsAreAbsentNotNull(t *testing.T) {
	for _, k := range []string{"model", "usage", "stopReason", "errorMessage"} {
		t.Run(k, func(t *testing.T) {
			e := parseLine(parseAssistantLine)
			parseMessageOf(e)[k] = nil
			_, err := session.ParseSessionEntry(e)
			var fe *session.FieldError
			require.ErrorAs(t, err, &fe, "ParseSessionEntry(an assistant entry with %q: null) error = %v, want a *FieldError: an optional field is left out when it has no value, it is never null (lab 10.2)", k, err)
			assert.Equal(t, "entry.message."+k, fe.Path, "the FieldError must point at the null field")
		})
	}
}

// Rule 10.2.2: a tool result's toolName and a tool call's name are
// non-empty, like their ids: an empty name cannot be replayed.
func TestLab10_2_RejectsEmptyToolNames(t *testing.T) {
	e := parseLine(parseToolResultLine)
	parseMessageOf(e)["toolName"] = ""
	_, err := session.ParseSessionEntry(e)
	var fe *session.FieldError
	require.ErrorAs(t, err, &fe, `ParseSessionEntry(a tool result with "toolName": "") error = %v, want a *FieldError: toolName must not be empty (lab 10.2)`, err)
	assert.Equal(t, "entry.message.toolName", fe.Path)

	e = parseLine(parseAssistantLine)
	parseBlockOf(e, 1)["name"] = ""
	_, err = session.ParseSessionEntry(e)
	require.ErrorAs(t, err, &fe, `ParseSessionEntry(a tool call with "name": "") error = %v, want a *FieldError: a tool call's name must not be empty (lab 10.2)`, err)
	assert.Equal(t, "entry.message.content[1].name", fe.Path)
}
