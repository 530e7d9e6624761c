package session

import (
	"encoding/json"
	"strings"
	"testing"
)

// Fuzz targets for a solution of lab 10. `course selfcheck` and the root
// tests run them on their seed corpus (testdata/fuzz); to fuzz for longer,
// see docs/selfcheck.md.
//
// They are in package session, beside a solution (never a student's file),
// and use nothing of the lab's tests, which are in package session_test:
// this module must not import the labs module.

// fuzzSeedEntries are the chapter's example, the seeds of both targets.
func fuzzSeedEntries() []SessionEntry {
	return []SessionEntry{
		{Type: EntryMessage, ID: "a", Timestamp: 1, Message: &UserMessage{
			Content: []TextContent{{Text: "list files"}}, Timestamp: 1}},
		{Type: EntryMessage, ID: "b", ParentID: "a", Timestamp: 2, Message: &AssistantMessage{
			Content: []AssistantContent{TextContent{Text: "let me look"},
				ToolCall{ID: "c1", Name: "ls", Arguments: map[string]any{"path": ".", "opts": []any{true, 2.5, nil}}}},
			Model: "m", Usage: &Usage{Input: 3, Output: 5, TotalTokens: 8}, StopReason: StopReasonToolUse, Timestamp: 2}},
		{Type: EntryMessage, ID: "r", ParentID: "b", Timestamp: 3, Message: &ToolResultMessage{
			ToolCallID: "c1", ToolName: "ls", Content: []TextContent{{Text: "README.md"}},
			Details: map[string]any{"count": 1.0}, Timestamp: 3}},
		{Type: EntryMessage, ID: "d", ParentID: "a", Timestamp: -4.5, Message: &AssistantMessage{
			Content: []AssistantContent{TextContent{Text: "nothing to list"}}, Timestamp: 4}},
		{Type: EntryMetadata, ID: "m", ParentID: "d", Timestamp: 5, Key: "title", Value: map[string]any{"text": "demo"}},
	}
}

// FuzzParseSessionEntry: whatever JSON comes in, parsing never panics, and an
// accepted entry survives a round trip: encoded and parsed again, it is equal.
func FuzzParseSessionEntry(f *testing.F) {
	for _, e := range fuzzSeedEntries() {
		line, err := json.Marshal(e)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(line)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var v any
		if json.Unmarshal(data, &v) != nil {
			return
		}
		e, err := ParseSessionEntry(v)
		if err != nil {
			return
		}
		line, err := json.Marshal(e)
		if err != nil {
			t.Fatalf("ParseSessionEntry accepted %s, but the entry does not encode: %v", data, err)
		}
		var again any
		if err := json.Unmarshal(line, &again); err != nil {
			t.Fatalf("the entry encoded as %s, which is not JSON: %v", line, err)
		}
		e2, err := ParseSessionEntry(again)
		if err != nil {
			t.Fatalf("ParseSessionEntry accepted %s but rejects its own encoding %s: %v", data, line, err)
		}
		if !jsonEqual(t, e, e2) {
			t.Fatalf("round trip changed the entry:\n in:  %s\n out: %s", data, line)
		}
	})
}

// FuzzRecoverJSONL: recovery never panics; when it succeeds, writing its
// entries back as lines and recovering again gives the same entries and no
// warning; and its warning says exactly whether the text ends mid-record:
// after the last newline there is something but spaces, tabs and "\r".
func FuzzRecoverJSONL(f *testing.F) {
	var sb strings.Builder
	for _, e := range fuzzSeedEntries() {
		line, _ := json.Marshal(e)
		sb.Write(line)
		sb.WriteByte('\n')
	}
	f.Add(sb.String())
	f.Add(sb.String() + `{"type":"metadata","id":"t"`)
	f.Add("\n\r\n" + sb.String())
	f.Fuzz(func(t *testing.T, text string) {
		rec, err := RecoverJSONL(text)
		if err != nil {
			return
		}
		lines := strings.Split(text, "\n")
		blank := strings.Trim(lines[len(lines)-1], " \t\r") == ""
		switch {
		case blank && len(rec.Warnings) != 0:
			t.Fatalf("RecoverJSONL(%q) warns %v although the text ends in a newline and blanks at most", text, rec.Warnings)
		case !blank && (len(rec.Warnings) != 1 || rec.Warnings[0] != Warning{Code: WarnUnterminatedTail, Line: len(lines)}):
			t.Fatalf("RecoverJSONL(%q) warnings = %v, want one unterminated_tail at line %d", text, rec.Warnings, len(lines))
		}
		var out strings.Builder
		for _, e := range rec.Entries {
			line, err := json.Marshal(e)
			if err != nil {
				t.Fatalf("recovered entry %q does not encode: %v", e.ID, err)
			}
			out.Write(line)
			out.WriteByte('\n')
		}
		again, err := RecoverJSONL(out.String())
		if err != nil || len(again.Warnings) != 0 || len(again.Entries) != len(rec.Entries) {
			t.Fatalf("recovering the re-encoded entries of %q: %d entries, warnings %v, error %v; want %d entries", text, len(again.Entries), again.Warnings, err, len(rec.Entries))
		}
		for i := range rec.Entries {
			if !jsonEqual(t, rec.Entries[i], again.Entries[i]) {
				t.Fatalf("entry %d changed when written and recovered again", i)
			}
		}
	})
}

// jsonEqual compares two entries by their encodings, which is exact for
// JSON values (maps encode with sorted keys).
func jsonEqual(t *testing.T, a, b SessionEntry) bool {
	t.Helper()
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && string(x) == string(y)
}
