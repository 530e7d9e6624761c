// Package sessionview reads a lab 10 session file for display and draws it
// as a tree, for `course tree`.
//
// It follows the commit rules of the reference RecoverJSONL (exercise 10.4):
// a line counts only once it ends in "\n"; blank lines (only spaces, tabs,
// "\r") are skipped but keep their 1-based line number; the first committed
// line that is not an entry stops reading, and what came before it is kept;
// a last line without "\n" is an unterminated tail and is not parsed, unless
// it is blank. A byte order mark is not stripped.
//
// Of each line it keeps only what a picture needs (type, id, parent, role, a
// line of text, tool names, metadata key), decoded with encoding/json into a
// small struct. It is not the lab's validator: it checks what drawing needs
// (an object, a known type, an id, a parentId that is null or an id, a role,
// a key) and ignores the rest. The course tool cannot use the student's
// package (another module, and code under test), so this is its own reader.
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
	Type     string // "message" or "metadata"
	ID       string
	ParentID string   // "" for a root (parentId null)
	Role     string   // message: "user", "assistant" or "toolResult"
	Text     string   // message: its text blocks, joined on one line
	Tools    []string // assistant: its tool calls' names; toolResult: the tool's name
	IsError  bool     // toolResult: isError
	Key      string   // metadata
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

// Session is a session file as far as it could be read.
type Session struct {
	// Entries are the committed entries in file order, up to the first bad
	// line.
	Entries []Entry
	// Tail is the unterminated last line, or nil. It is not set when a bad
	// line stopped reading before it.
	Tail *Tail
	// Bad is the first committed line that is not an entry, or nil.
	Bad *LineError
}

// Read reads the text of a session file. It never fails: a bad line ends
// the entries and is reported in Bad.
func Read(data []byte) *Session {
	s := &Session{}
	for line := 1; len(data) > 0; line++ {
		end := bytes.IndexByte(data, '\n')
		if end < 0 {
			if len(bytes.Trim(data, " \t\r")) > 0 { // a blank last line is no tail (lab 10.4.5)
				s.Tail = &Tail{Line: line, Bytes: len(data)}
			}
			break
		}
		text := data[:end]
		data = data[end+1:]
		if len(bytes.Trim(text, " \t\r")) == 0 {
			continue
		}
		e, err := parseLine(text)
		if err != nil {
			s.Bad = &LineError{Line: line, Err: err}
			break
		}
		e.Line = line
		s.Entries = append(s.Entries, e)
	}
	return s
}

type wireEntry struct {
	Type     string          `json:"type"`
	ID       *string         `json:"id"`
	ParentID json.RawMessage `json:"parentId"`
	Message  json.RawMessage `json:"message"`
	Key      string          `json:"key"`
}

type wireMessage struct {
	Role     string      `json:"role"`
	Content  []wireBlock `json:"content"`
	ToolName string      `json:"toolName"`
	IsError  bool        `json:"isError"`
}

type wireBlock struct {
	Type string `json:"type"`
	Text string `json:"text"`
	Name string `json:"name"`
}

func parseLine(line []byte) (Entry, error) {
	if t := bytes.TrimLeft(line, " \t\r"); len(t) == 0 || t[0] != '{' {
		if !json.Valid(line) {
			var v any
			return Entry{}, json.Unmarshal(line, &v) // encoding/json's own syntax error
		}
		return Entry{}, errors.New("not a JSON object")
	}
	var w wireEntry
	if err := json.Unmarshal(line, &w); err != nil {
		return Entry{}, err
	}
	e := Entry{Type: w.Type}
	switch {
	case w.ID == nil:
		return e, errors.New("no id")
	case *w.ID == "":
		return e, errors.New("empty id")
	}
	e.ID = *w.ID
	switch p := strings.TrimSpace(string(w.ParentID)); {
	case p == "":
		return e, errors.New("no parentId")
	case p == "null":
	default:
		if err := json.Unmarshal(w.ParentID, &e.ParentID); err != nil || e.ParentID == "" {
			return e, fmt.Errorf("parentId %s is neither null nor an id", p)
		}
	}
	switch w.Type {
	case "metadata":
		if w.Key == "" {
			return e, errors.New("metadata without a key")
		}
		e.Key = w.Key
	case "message":
		var m wireMessage
		if len(w.Message) == 0 || string(w.Message) == "null" {
			return e, errors.New("message entry without a message")
		}
		if err := json.Unmarshal(w.Message, &m); err != nil {
			return e, fmt.Errorf("message: %w", err)
		}
		switch m.Role {
		case "user", "assistant", "toolResult":
		default:
			return e, fmt.Errorf("message role %q is not user, assistant or toolResult", m.Role)
		}
		e.Role, e.IsError = m.Role, m.IsError
		var texts []string
		for _, b := range m.Content {
			switch b.Type {
			case "text":
				texts = append(texts, b.Text)
			case "toolCall":
				e.Tools = append(e.Tools, b.Name)
			}
		}
		e.Text = strings.Join(strings.Fields(strings.Join(texts, " ")), " ")
		if m.Role == "toolResult" && m.ToolName != "" {
			e.Tools = []string{m.ToolName}
		}
	default:
		return e, fmt.Errorf("type %q is not message or metadata", w.Type)
	}
	return e, nil
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
	t := s.Tree()
	n, ok := t.FirstOf[leafID]
	if !ok {
		return nil, false
	}
	seen := map[int]bool{}
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
