// Package sessionview reads a JSONL history file, the kind every lab of the
// course keeps, for display, and draws it as a tree, for `course tree`.
//
// A line is an entry of the tree when it is a JSON object with an "id" (a
// non-empty string) and a "parentId" (null for a root, or an id). Of each
// entry the view keeps what a picture needs: its "type", and where the line
// has them a message's role, text and tool calls ("message": {"role",
// "content", ...}) or else a short text from the first of its fields
// "text", "summary", "content", "name", "title", "key", "modelId" and
// "thinkingLevel" that is a string.
// An object without a "parentId" (a file's header line) is kept apart, as
// no part of the tree. Nothing else about a line is checked: this is no
// lab's validator, and the course tool cannot use the student's package
// (another module, and code under test), so it has its own reader.
//
// It follows the commit rule the labs share: a line counts only once it ends
// in "\n"; blank lines (only spaces, tabs, "\r") are skipped but keep their
// 1-based line number; the first committed line that is not a JSON object,
// or whose id or parentId is malformed, stops reading, and what came before
// it is kept; a last line without "\n" is an unterminated tail and is not
// parsed, unless it is blank. A byte order mark is not stripped.
package sessionview

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Entry is what the view keeps of one committed line.
type Entry struct {
	Line     int    // 1-based physical line
	Type     string // the line's "type", or ""
	ID       string
	ParentID string   // "" for a root (parentId null)
	Role     string   // a message's role, or ""
	Text     string   // a message's text blocks, or the line's first text field, on one line
	Tools    []string // a message's tool calls, by name
	Tool     string   // a tool result message's toolName
	IsError  bool     // a message's isError
}

// Header is a committed line that is a JSON object without a parentId:
// shown, but no part of the tree.
type Header struct {
	Line int
	Type string // "" when it has none
	ID   string // "" when it has none
}

// Tail is an unterminated last line: written, never committed.
type Tail struct {
	Line  int // 1-based
	Bytes int
}

// LineError is a committed line that is not an entry.
type LineError struct {
	Line int
	Err  error
}

func (e *LineError) Error() string { return "line " + strconv.Itoa(e.Line) + ": " + e.Err.Error() }

func (e *LineError) Unwrap() error { return e.Err }

// Session is a history file as far as it could be read.
type Session struct {
	// Entries are the committed entries in file order, up to the first bad
	// line.
	Entries []Entry
	// Headers are the committed objects without a parentId, in file order.
	Headers []Header
	// Tail is the unterminated last line, or nil. It is not set when a bad
	// line stopped reading before it.
	Tail *Tail
	// Bad is the first committed line that is not an entry, or nil.
	Bad *LineError
}

// Read reads the text of a history file. It never fails: a bad line ends
// the entries and is reported in Bad.
func Read(data []byte) *Session {
	s := &Session{}
	for line := 1; len(data) > 0; line++ {
		end := bytes.IndexByte(data, '\n')
		if end < 0 {
			if len(bytes.Trim(data, " \t\r")) > 0 { // a blank last line is no tail
				s.Tail = &Tail{Line: line, Bytes: len(data)}
			}
			break
		}
		text := data[:end]
		data = data[end+1:]
		if len(bytes.Trim(text, " \t\r")) == 0 {
			continue
		}
		e, header, err := parseLine(text)
		switch {
		case err != nil:
			s.Bad = &LineError{Line: line, Err: err}
			return s
		case header != nil:
			header.Line = line
			s.Headers = append(s.Headers, *header)
		default:
			e.Line = line
			s.Entries = append(s.Entries, e)
		}
	}
	return s
}

// textFields are the fields whose string value stands for a line that is
// not a message, in the order they are looked for: a fact's text, a
// compaction's summary, a session's name, a metadata key, a model or
// thinking level change (as pi writes them).
var textFields = []string{"text", "summary", "content", "name", "title", "key", "modelId", "thinkingLevel"}

// parseLine reads one committed line: an entry, or a header when it has no
// parentId.
func parseLine(line []byte) (Entry, *Header, error) {
	if t := bytes.TrimLeft(line, " \t\r"); len(t) == 0 || t[0] != '{' {
		if !json.Valid(line) {
			var v any
			return Entry{}, nil, json.Unmarshal(line, &v) // encoding/json's own syntax error
		}
		return Entry{}, nil, errors.New("not a JSON object")
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(line, &fields); err != nil {
		return Entry{}, nil, err
	}
	e := Entry{Type: stringField(fields, "type")}
	rawID, hasID := fields["id"]
	rawParent, hasParent := fields["parentId"]
	if !hasParent {
		return Entry{}, &Header{Type: e.Type, ID: stringField(fields, "id")}, nil
	}
	switch {
	case !hasID:
		return e, nil, errors.New("a parentId but no id")
	case json.Unmarshal(rawID, &e.ID) != nil:
		return e, nil, fmt.Errorf("id %s is not a string", rawID)
	case e.ID == "":
		return e, nil, errors.New("empty id")
	}
	if p := strings.TrimSpace(string(rawParent)); p != "null" {
		if err := json.Unmarshal(rawParent, &e.ParentID); err != nil || e.ParentID == "" {
			return e, nil, fmt.Errorf("parentId %s is neither null nor an id", p)
		}
	}
	if raw, ok := fields["message"]; ok && readMessage(raw, &e) {
		return e, nil, nil
	}
	for _, f := range textFields {
		if t := stringField(fields, f); t != "" {
			e.Text = oneLine(t)
			break
		}
	}
	return e, nil, nil
}

// readMessage fills in e from a message object with a role (an agent
// message as pi and the labs write it), and reports whether raw was one.
func readMessage(raw json.RawMessage, e *Entry) bool {
	var m struct {
		Role     string          `json:"role"`
		Content  json.RawMessage `json:"content"`
		ToolName string          `json:"toolName"`
		IsError  bool            `json:"isError"`
	}
	if json.Unmarshal(raw, &m) != nil || m.Role == "" {
		return false
	}
	e.Role, e.IsError = m.Role, m.IsError
	var text string
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
		Name string `json:"name"`
	}
	switch {
	case json.Unmarshal(m.Content, &text) == nil:
		e.Text = oneLine(text)
	case json.Unmarshal(m.Content, &blocks) == nil:
		var texts []string
		for _, b := range blocks {
			switch b.Type {
			case "text":
				texts = append(texts, b.Text)
			case "toolCall":
				e.Tools = append(e.Tools, b.Name)
			}
		}
		e.Text = oneLine(strings.Join(texts, " "))
	}
	e.Tool = m.ToolName
	return true
}

// stringField returns the string value of field f, or "".
func stringField(fields map[string]json.RawMessage, f string) string {
	var s string
	if raw, ok := fields[f]; ok && json.Unmarshal(raw, &s) == nil {
		return s
	}
	return ""
}

// oneLine puts s on one line, every run of white space one space, without
// a slice of its words: for a text of one-letter words that slice alone
// would take eight times the text's size.
func oneLine(s string) string {
	var b strings.Builder
	for f := range strings.FieldsSeq(s) {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(f)
	}
	return b.String()
}

// Tree is how the entries hang together, by position in Session.Entries.
type Tree struct {
	// Roots are the entries with parentId null, in file order.
	Roots []int
	// Orphans are the entries whose parent is not in the file, in file order.
	Orphans []int
	// Cycles are the entries that neither a root nor an orphan leads to:
	// their parent chain goes round in a circle.
	Cycles []int
	// Children are each entry's children, in file order.
	Children [][]int
	// FirstOf maps an id to the position of its first entry; a later entry
	// with the same id is a duplicate, and children hang under the first.
	FirstOf map[string]int
}

// Tree works out the tree of the entries.
func (s *Session) Tree() *Tree {
	t := &Tree{Children: make([][]int, len(s.Entries)), FirstOf: make(map[string]int, len(s.Entries))}
	for i, e := range s.Entries {
		if _, dup := t.FirstOf[e.ID]; !dup {
			t.FirstOf[e.ID] = i
		}
	}
	for i, e := range s.Entries {
		if e.ParentID == "" {
			t.Roots = append(t.Roots, i)
			continue
		}
		p, ok := t.FirstOf[e.ParentID]
		if !ok {
			t.Orphans = append(t.Orphans, i)
			continue
		}
		t.Children[p] = append(t.Children[p], i)
	}
	reached := make([]bool, len(s.Entries))
	stack := append(append([]int(nil), t.Roots...), t.Orphans...)
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if reached[n] {
			continue
		}
		reached[n] = true
		stack = append(stack, t.Children[n]...)
	}
	for i, r := range reached {
		if !r {
			t.Cycles = append(t.Cycles, i)
		}
	}
	return t
}

// Branch returns the positions of leafID's entry and its ancestors, leaf
// first, as far as they go: up to a root, a missing parent, or the point
// where the chain comes round again. ok is false when no entry has leafID.
func (s *Session) Branch(leafID string) (path []int, ok bool) {
	return s.Tree().branch(s, leafID)
}

// branch is Branch on the tree t of s.
func (t *Tree) branch(s *Session, leafID string) (path []int, ok bool) {
	n, ok := t.FirstOf[leafID]
	if !ok {
		return nil, false
	}
	seen := make([]bool, len(s.Entries))
	for !seen[n] {
		seen[n] = true
		path = append(path, n)
		p, found := t.FirstOf[s.Entries[n].ParentID]
		if s.Entries[n].ParentID == "" || !found {
			break
		}
		n = p
	}
	return path, true
}
