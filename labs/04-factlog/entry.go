// Given code: one entry of the fact log and its one-line JSON form. Do not
// edit this file; the grader replaces it with its own copy.

package factlog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
)

// EntryType says what an Entry records.
type EntryType string

// The kinds of entry this chapter knows. Any other type is refused.
const (
	TypeUser      EntryType = "user"      // what the person typed
	TypeAssistant EntryType = "assistant" // what the model answered
	TypeTool      EntryType = "tool"      // what a tool returned
)

// Entry is one committed fact: something that happened, with an identity
// (ID) and the entry it follows (ParentID). ParentID "" makes it a root:
// "parentId": null on the wire. It holds only strings, so copying an Entry
// copies all of it.
//
// On disk it is one line of JSON, every field present:
//
//	{"type":"user","id":"u1","parentId":null,"text":"list the files"}
//	{"type":"assistant","id":"a1","parentId":"u1","text":"README.md, go.mod"}
type Entry struct {
	Type     EntryType
	ID       string
	ParentID string
	Text     string
}

// IsRoot reports whether e starts a history (it has no parent).
func (e Entry) IsRoot() bool { return e.ParentID == "" }

// UnterminatedTailError reports the last line of a text that does not end
// in "\n": a write that never finished, not a fact. Line is its 1-based line
// number, Bytes its length. It matches ErrUnterminatedTail with errors.Is.
type UnterminatedTailError struct {
	Line  int
	Bytes int
}

func (e *UnterminatedTailError) Error() string {
	return fmt.Sprintf("line %d: %d bytes without a final newline: an unfinished write, not a fact", e.Line, e.Bytes)
}

func (e *UnterminatedTailError) Is(target error) bool { return target == ErrUnterminatedTail }

// Recovery is what Recover found in the text of a log.
type Recovery struct {
	// Entries are the committed entries, in file order.
	Entries []Entry
	// Tail is the warning about a last line without "\n", which was
	// dropped; nil when the text ends in "\n" (or is empty).
	Tail *UnterminatedTailError
}

// wireEntry is the JSON form of an Entry. ParentID is a pointer so that a
// root is written as null.
type wireEntry struct {
	Type     EntryType `json:"type"`
	ID       string    `json:"id"`
	ParentID *string   `json:"parentId"`
	Text     string    `json:"text"`
}

// EncodeEntry checks e and returns its JSON object, without a newline:
// adding the commit mark is the caller's job. A problem is a *FieldError.
func EncodeEntry(e Entry) ([]byte, error) {
	if err := checkEntry(e); err != nil {
		return nil, err
	}
	w := wireEntry{Type: e.Type, ID: e.ID, Text: e.Text}
	if e.ParentID != "" {
		p := e.ParentID
		w.ParentID = &p
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(w); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// DecodeEntry reads one line, without its "\n", as an Entry. The line must be
// one JSON object with exactly the fields "type", "id", "parentId" and
// "text", as EncodeEntry writes them; JSON whitespace around it (a "\r" left
// by CRLF line ends included) is fine. A line that is not JSON returns the
// json package's error; any other problem is a *FieldError.
func DecodeEntry(line []byte) (Entry, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(line, &fields); err != nil {
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) {
			return Entry{}, &FieldError{Field: "entry", Problem: "not a JSON object"}
		}
		return Entry{}, err
	}
	if fields == nil {
		return Entry{}, &FieldError{Field: "entry", Problem: "null, not a JSON object"}
	}
	var unknown []string
	for k := range fields {
		switch k {
		case "type", "id", "parentId", "text":
		default:
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return Entry{}, &FieldError{Field: unknown[0], Problem: "unknown field"}
	}
	var e Entry
	var typ string
	if err := decodeString(fields, "type", &typ); err != nil {
		return Entry{}, err
	}
	e.Type = EntryType(typ)
	if err := decodeString(fields, "id", &e.ID); err != nil {
		return Entry{}, err
	}
	if err := decodeString(fields, "text", &e.Text); err != nil {
		return Entry{}, err
	}
	raw, ok := fields["parentId"]
	if !ok {
		return Entry{}, &FieldError{Field: "parentId", Problem: "missing (a root has \"parentId\": null)"}
	}
	if strings.TrimSpace(string(raw)) != "null" {
		if err := json.Unmarshal(raw, &e.ParentID); err != nil {
			return Entry{}, &FieldError{Field: "parentId", Problem: "not null and not a string"}
		}
		if e.ParentID == "" {
			return Entry{}, &FieldError{Field: "parentId", Problem: "empty (a root has \"parentId\": null)"}
		}
	}
	if err := checkEntry(e); err != nil {
		return Entry{}, err
	}
	return e, nil
}

// decodeString reads the required string field name of fields into dst.
func decodeString(fields map[string]json.RawMessage, name string, dst *string) error {
	raw, ok := fields[name]
	if !ok {
		return &FieldError{Field: name, Problem: "missing"}
	}
	if strings.TrimSpace(string(raw)) == "null" {
		return &FieldError{Field: name, Problem: "null, not a string"}
	}
	if err := json.Unmarshal(raw, dst); err != nil {
		return &FieldError{Field: name, Problem: "not a string"}
	}
	return nil
}

// checkEntry checks what every entry must be, however it was made.
func checkEntry(e Entry) error {
	switch e.Type {
	case TypeUser, TypeAssistant, TypeTool:
	default:
		return &FieldError{Field: "type", Problem: fmt.Sprintf("%q is not user, assistant or tool", string(e.Type))}
	}
	if e.ID == "" {
		return &FieldError{Field: "id", Problem: "empty"}
	}
	return nil
}
