// Package session is chapter 10's lab: an append-only, branchable,
// fail-closed session history for an AI agent, kept as JSONL on disk.
//
// This is the reference solution: a drop-in replacement for the stub
// session.go of a lab 10 workspace.
package session

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// ---- 10.1 -----------------------------------------------------------------

// PathTo returns the branch that ends at leafID, root first.
//
// Every ID in entries must be unique (a *DuplicateIDError otherwise, even if
// the two entries are off the branch) and leafID must exist
// (*UnknownEntryError). Only the chain from leafID up to its root is checked
// for a missing parent (*MissingParentError) and a cycle (*CycleError).
// The result is a new slice of deep copies: nothing in it is shared with
// entries.
func PathTo(entries []SessionEntry, leafID string) ([]SessionEntry, error) {
	chain, err := branch(entries, leafID)
	if err != nil {
		return nil, err
	}
	out := make([]SessionEntry, len(chain))
	for i, at := range chain {
		out[i] = entries[at].Clone()
	}
	return out, nil
}

// branch returns the indexes in entries of the branch that ends at leafID,
// root first. It does the checks PathTo documents and copies nothing.
func branch(entries []SessionEntry, leafID string) ([]int, error) {
	byID := make(map[string]int, len(entries))
	for i, e := range entries {
		if _, dup := byID[e.ID]; dup {
			return nil, &DuplicateIDError{ID: e.ID}
		}
		byID[e.ID] = i
	}
	at, ok := byID[leafID]
	if !ok {
		return nil, &UnknownEntryError{ID: leafID}
	}
	// Walk up from the leaf. seen holds the chain so far, so meeting an id
	// again means the chain has closed on itself.
	seen := make(map[string]bool)
	var reversed []int
	for {
		e := entries[at]
		if seen[e.ID] {
			return nil, &CycleError{ID: e.ID}
		}
		seen[e.ID] = true
		reversed = append(reversed, at)
		if e.IsRoot() {
			break
		}
		parent, ok := byID[e.ParentID]
		if !ok {
			return nil, &MissingParentError{ChildID: e.ID, ParentID: e.ParentID}
		}
		at = parent
	}
	for i, j := 0, len(reversed)-1; i < j; i, j = i+1, j-1 {
		reversed[i], reversed[j] = reversed[j], reversed[i]
	}
	return reversed, nil
}

// ---- 10.2 -----------------------------------------------------------------

// ParseSessionEntry checks an untrusted value, such as json.Unmarshal gives
// for an `any`, layer by layer, and returns it as a new SessionEntry that
// shares nothing with v. Any problem is a *FieldError whose Path says where
// it is, for example "entry.message.content[1].arguments.opts[2]".
func ParseSessionEntry(v any) (SessionEntry, error) {
	const path = "entry"
	obj, err := objectAt(v, path)
	if err != nil {
		return SessionEntry{}, err
	}
	kind, err := stringAt(obj, "type", path)
	if err != nil {
		return SessionEntry{}, err
	}
	var e SessionEntry
	switch EntryType(kind) {
	case EntryMessage:
		err = onlyFields(obj, path, "type", "id", "parentId", "timestamp", "message")
	case EntryMetadata:
		err = onlyFields(obj, path, "type", "id", "parentId", "timestamp", "key", "value")
	default:
		err = fieldErr(childPath(path, "type"), "must be \"message\" or \"metadata\", got %q", kind)
	}
	if err != nil {
		return SessionEntry{}, err
	}
	e.Type = EntryType(kind)
	if e.ID, err = nonEmptyStringAt(obj, "id", path); err != nil {
		return SessionEntry{}, err
	}
	if e.ParentID, err = parentIDAt(obj, path); err != nil {
		return SessionEntry{}, err
	}
	if e.Timestamp, err = numberAt(obj, "timestamp", path); err != nil {
		return SessionEntry{}, err
	}
	if e.Type == EntryMetadata {
		if e.Key, err = nonEmptyStringAt(obj, "key", path); err != nil {
			return SessionEntry{}, err
		}
		raw, err := requiredAt(obj, "value", path)
		if err != nil {
			return SessionEntry{}, err
		}
		if e.Value, err = jsonValueAt(raw, childPath(path, "value"), map[ContainerID]bool{}); err != nil {
			return SessionEntry{}, err
		}
		return e, nil
	}
	raw, err := requiredAt(obj, "message", path)
	if err != nil {
		return SessionEntry{}, err
	}
	if e.Message, err = parseMessage(raw, childPath(path, "message")); err != nil {
		return SessionEntry{}, err
	}
	return e, nil
}

func parseMessage(v any, path string) (AgentMessage, error) {
	obj, err := objectAt(v, path)
	if err != nil {
		return nil, err
	}
	role, err := stringAt(obj, "role", path)
	if err != nil {
		return nil, err
	}
	switch Role(role) {
	case RoleUser:
		return parseUser(obj, path)
	case RoleAssistant:
		return parseAssistant(obj, path)
	case RoleToolResult:
		return parseToolResult(obj, path)
	default:
		return nil, fieldErr(childPath(path, "role"), "must be \"user\", \"assistant\" or \"toolResult\", got %q", role)
	}
}

func parseUser(obj map[string]any, path string) (AgentMessage, error) {
	if err := onlyFields(obj, path, "role", "content", "timestamp"); err != nil {
		return nil, err
	}
	m := &UserMessage{}
	var err error
	if m.Content, err = textBlocksAt(obj, path); err != nil {
		return nil, err
	}
	if m.Timestamp, err = numberAt(obj, "timestamp", path); err != nil {
		return nil, err
	}
	return m, nil
}

func parseAssistant(obj map[string]any, path string) (AgentMessage, error) {
	err := onlyFields(obj, path, "role", "content", "timestamp", "model", "usage", "stopReason", "errorMessage")
	if err != nil {
		return nil, err
	}
	m := &AssistantMessage{}
	items, err := listAt(obj, "content", path)
	if err != nil {
		return nil, err
	}
	m.Content = make([]AssistantContent, len(items))
	for i, item := range items {
		if m.Content[i], err = assistantBlock(item, indexPath(childPath(path, "content"), i)); err != nil {
			return nil, err
		}
	}
	if m.Timestamp, err = numberAt(obj, "timestamp", path); err != nil {
		return nil, err
	}
	if _, ok := obj["model"]; ok {
		if m.Model, err = nonEmptyStringAt(obj, "model", path); err != nil {
			return nil, err
		}
	}
	if raw, ok := obj["usage"]; ok {
		if m.Usage, err = parseUsage(raw, childPath(path, "usage")); err != nil {
			return nil, err
		}
	}
	if _, ok := obj["stopReason"]; ok {
		reason, err := stringAt(obj, "stopReason", path)
		if err != nil {
			return nil, err
		}
		switch r := StopReason(reason); r {
		case StopReasonStop, StopReasonLength, StopReasonToolUse, StopReasonError, StopReasonAborted:
			m.StopReason = r
		default:
			return nil, fieldErr(childPath(path, "stopReason"), "must be one of stop, length, toolUse, error, aborted; got %q", reason)
		}
	}
	if _, ok := obj["errorMessage"]; ok {
		if m.ErrorMessage, err = nonEmptyStringAt(obj, "errorMessage", path); err != nil {
			return nil, err
		}
	}
	return m, nil
}

func parseToolResult(obj map[string]any, path string) (AgentMessage, error) {
	err := onlyFields(obj, path, "role", "toolCallId", "toolName", "content", "details", "isError", "timestamp")
	if err != nil {
		return nil, err
	}
	m := &ToolResultMessage{}
	if m.ToolCallID, err = nonEmptyStringAt(obj, "toolCallId", path); err != nil {
		return nil, err
	}
	if m.ToolName, err = nonEmptyStringAt(obj, "toolName", path); err != nil {
		return nil, err
	}
	if m.Content, err = textBlocksAt(obj, path); err != nil {
		return nil, err
	}
	raw, err := requiredAt(obj, "isError", path)
	if err != nil {
		return nil, err
	}
	isError, ok := raw.(bool)
	if !ok {
		return nil, fieldErr(childPath(path, "isError"), "must be true or false, got %s", describe(raw))
	}
	m.IsError = isError
	if m.Timestamp, err = numberAt(obj, "timestamp", path); err != nil {
		return nil, err
	}
	if raw, ok := obj["details"]; ok {
		if raw == nil {
			return nil, fieldErr(childPath(path, "details"), "must not be null; leave the field out when there are no details")
		}
		if m.Details, err = jsonValueAt(raw, childPath(path, "details"), map[ContainerID]bool{}); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// textBlocksAt reads obj.content as a list of text blocks (user and tool
// result messages hold nothing else).
func textBlocksAt(obj map[string]any, path string) ([]TextContent, error) {
	items, err := listAt(obj, "content", path)
	if err != nil {
		return nil, err
	}
	out := make([]TextContent, len(items))
	for i, item := range items {
		blockPath := indexPath(childPath(path, "content"), i)
		block, err := objectAt(item, blockPath)
		if err != nil {
			return nil, err
		}
		kind, err := stringAt(block, "type", blockPath)
		if err != nil {
			return nil, err
		}
		if kind != "text" {
			return nil, fieldErr(childPath(blockPath, "type"), "must be \"text\" here, got %q", kind)
		}
		if out[i], err = textBlock(block, blockPath); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func textBlock(block map[string]any, path string) (TextContent, error) {
	if err := onlyFields(block, path, "type", "text"); err != nil {
		return TextContent{}, err
	}
	text, err := stringAt(block, "text", path)
	return TextContent{Text: text}, err
}

func assistantBlock(v any, path string) (AssistantContent, error) {
	block, err := objectAt(v, path)
	if err != nil {
		return nil, err
	}
	kind, err := stringAt(block, "type", path)
	if err != nil {
		return nil, err
	}
	switch kind {
	case "text":
		return textBlock(block, path)
	case "toolCall":
		if err := onlyFields(block, path, "type", "id", "name", "arguments"); err != nil {
			return nil, err
		}
		var call ToolCall
		if call.ID, err = nonEmptyStringAt(block, "id", path); err != nil {
			return nil, err
		}
		if call.Name, err = nonEmptyStringAt(block, "name", path); err != nil {
			return nil, err
		}
		raw, err := requiredAt(block, "arguments", path)
		if err != nil {
			return nil, err
		}
		argsPath := childPath(path, "arguments")
		if _, err := objectAt(raw, argsPath); err != nil {
			return nil, err
		}
		args, err := jsonValueAt(raw, argsPath, map[ContainerID]bool{})
		if err != nil {
			return nil, err
		}
		call.Arguments = args.(map[string]any)
		return call, nil
	default:
		return nil, fieldErr(childPath(path, "type"), "must be \"text\" or \"toolCall\", got %q", kind)
	}
}

func parseUsage(v any, path string) (*Usage, error) {
	obj, err := objectAt(v, path)
	if err != nil {
		return nil, err
	}
	if err := onlyFields(obj, path, "input", "output", "totalTokens"); err != nil {
		return nil, err
	}
	u := &Usage{}
	for _, f := range []struct {
		key string
		dst *int
	}{{"input", &u.Input}, {"output", &u.Output}, {"totalTokens", &u.TotalTokens}} {
		n, err := numberAt(obj, f.key, path)
		if err != nil {
			return nil, err
		}
		if n < 0 || n != math.Trunc(n) || n > 1<<53 {
			return nil, fieldErr(childPath(path, f.key), "must be a whole number of tokens >= 0, got %v", n)
		}
		*f.dst = int(n)
	}
	return u, nil
}

// jsonValueAt checks that v is a JSON value (see value.go) and returns a deep
// copy of it. ancestors holds the containers v is inside of, on this path
// only: the same map under two sibling fields is fine, but meeting one of
// its own ancestors again means v contains itself.
func jsonValueAt(v any, path string, ancestors map[ContainerID]bool) (any, error) {
	switch x := v.(type) {
	case nil, bool, string:
		return x, nil
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, fieldErr(path, "must be a finite number, got %v", x)
		}
		return x, nil
	case []any:
		if id, ok := ContainerIdentity(x); ok {
			if ancestors[id] {
				return nil, fieldErr(path, "is a cycle: this list contains itself")
			}
			ancestors[id] = true
			defer delete(ancestors, id)
		}
		out := make([]any, len(x))
		for i, item := range x {
			c, err := jsonValueAt(item, indexPath(path, i), ancestors)
			if err != nil {
				return nil, err
			}
			out[i] = c
		}
		return out, nil
	case map[string]any:
		if id, ok := ContainerIdentity(x); ok {
			if ancestors[id] {
				return nil, fieldErr(path, "is a cycle: this object contains itself")
			}
			ancestors[id] = true
			defer delete(ancestors, id)
		}
		out := make(map[string]any, len(x))
		for _, k := range sortedKeys(x) {
			c, err := jsonValueAt(x[k], childPath(path, k), ancestors)
			if err != nil {
				return nil, err
			}
			out[k] = c
		}
		return out, nil
	default:
		return nil, fieldErr(path, "must be a JSON value (null, bool, string, float64, []any or map[string]any), got %s", describe(v))
	}
}

// objectAt accepts only a plain JSON object: a map[string]any. Structs,
// pointers and other map types may look like objects but are not what
// encoding/json produces, and may not survive a round trip.
func objectAt(v any, path string) (map[string]any, error) {
	obj, ok := v.(map[string]any)
	if !ok || obj == nil {
		return nil, fieldErr(path, "must be a JSON object (map[string]any), got %s", describe(v))
	}
	return obj, nil
}

// onlyFields rejects a field that is not one of known: the first in sorted
// order, so the error is the same every time. Sorting is done only when there
// is something to report; most objects are fine.
func onlyFields(obj map[string]any, path string, known ...string) error {
	isKnown := func(k string) bool {
		for _, want := range known {
			if k == want {
				return true
			}
		}
		return false
	}
	for k := range obj {
		if isKnown(k) {
			continue
		}
		for _, k := range sortedKeys(obj) {
			if !isKnown(k) {
				return fieldErr(childPath(path, k), "is not a known field here (known: %s)", strings.Join(known, ", "))
			}
		}
	}
	return nil
}

func requiredAt(obj map[string]any, key, path string) (any, error) {
	v, ok := obj[key]
	if !ok {
		return nil, fieldErr(childPath(path, key), "is missing")
	}
	return v, nil
}

func stringAt(obj map[string]any, key, path string) (string, error) {
	v, err := requiredAt(obj, key, path)
	if err != nil {
		return "", err
	}
	s, ok := v.(string)
	if !ok {
		return "", fieldErr(childPath(path, key), "must be a string, got %s", describe(v))
	}
	return s, nil
}

func nonEmptyStringAt(obj map[string]any, key, path string) (string, error) {
	s, err := stringAt(obj, key, path)
	if err == nil && s == "" {
		err = fieldErr(childPath(path, key), "must not be empty")
	}
	return s, err
}

func numberAt(obj map[string]any, key, path string) (float64, error) {
	v, err := requiredAt(obj, key, path)
	if err != nil {
		return 0, err
	}
	n, ok := v.(float64)
	if !ok {
		return 0, fieldErr(childPath(path, key), "must be a number (float64), got %s", describe(v))
	}
	if math.IsNaN(n) || math.IsInf(n, 0) {
		return 0, fieldErr(childPath(path, key), "must be a finite number, got %v", n)
	}
	return n, nil
}

func listAt(obj map[string]any, key, path string) ([]any, error) {
	v, err := requiredAt(obj, key, path)
	if err != nil {
		return nil, err
	}
	list, ok := v.([]any)
	if !ok || list == nil {
		return nil, fieldErr(childPath(path, key), "must be a list ([]any), got %s", describe(v))
	}
	return list, nil
}

// parentIDAt reads parentId: null for a root, otherwise a non-empty id.
func parentIDAt(obj map[string]any, path string) (string, error) {
	v, err := requiredAt(obj, "parentId", path)
	if err != nil {
		return "", err
	}
	if v == nil {
		return "", nil
	}
	s, ok := v.(string)
	if !ok || s == "" {
		return "", fieldErr(childPath(path, "parentId"), "must be null (a root) or a non-empty id, got %s", describe(v))
	}
	return s, nil
}

func fieldErr(path, format string, args ...any) error {
	return &FieldError{Path: path, Problem: fmt.Sprintf(format, args...)}
}

// childPath appends an object key: .key for an identifier, ["key"] otherwise,
// so that every path can be read back without ambiguity.
func childPath(path, key string) string {
	if isIdentifier(key) {
		return path + "." + key
	}
	return path + "[" + strconv.Quote(key) + "]"
}

func indexPath(path string, i int) string {
	return path + "[" + strconv.Itoa(i) + "]"
}

func isIdentifier(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		letter := r == '_' || r == '$' || ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z')
		if !letter && (i == 0 || r < '0' || r > '9') {
			return false
		}
	}
	return true
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// describe names the Go type of a value that was not what a field needs.
func describe(v any) string {
	if v == nil {
		return "null"
	}
	return fmt.Sprintf("%T", v)
}

// ---- 10.3 -----------------------------------------------------------------

// fifo runs jobs one at a time, in the order they were queued: each job
// waits for the one queued before it, like a chain of promises.
type fifo struct {
	mu   sync.Mutex
	tail chan struct{} // closed once the last queued job has finished
}

func (q *fifo) enqueue(job func()) {
	q.mu.Lock()
	prev := q.tail
	done := make(chan struct{})
	q.tail = done
	q.mu.Unlock()
	go func() {
		defer close(done)
		if prev != nil {
			<-prev
		}
		job()
	}()
}

// committed is what a store has committed. Only jobs of the store's fifo
// touch it, one at a time, so it needs no lock of its own.
type committed struct {
	entries []SessionEntry
	ids     map[string]bool
}

// check judges e against what is committed now: its id must be new and its
// parent, if any, must be here already.
func (c *committed) check(e SessionEntry) error {
	if c.ids[e.ID] {
		return &DuplicateIDError{ID: e.ID}
	}
	if !e.IsRoot() && !c.ids[e.ParentID] {
		return &MissingParentError{ChildID: e.ID, ParentID: e.ParentID}
	}
	return nil
}

func (c *committed) add(e SessionEntry) {
	if c.ids == nil {
		c.ids = make(map[string]bool)
	}
	c.ids[e.ID] = true
	c.entries = append(c.entries, e)
}

func (c *committed) snapshot() []SessionEntry {
	out := make([]SessionEntry, len(c.entries))
	for i, e := range c.entries {
		out[i] = e.Clone()
	}
	return out
}

// InMemorySessionStore keeps committed entries in memory. Appends complete in
// call order, one at a time. It is safe for use by several goroutines.
type InMemorySessionStore struct {
	queue fifo
	state committed
}

// NewInMemorySessionStore returns an empty store.
func NewInMemorySessionStore() *InMemorySessionStore {
	return &InMemorySessionStore{}
}

// Append validates entry and takes a deep snapshot of it now, then returns
// at once. In its turn (after every earlier Append) the entry is committed,
// unless its ID is already stored (*DuplicateIDError) or its parent is not
// (*MissingParentError); a rejected append rejects only itself.
func (s *InMemorySessionStore) Append(entry SessionEntry) *Pending {
	snapshot, err := ParseSessionEntry(EntryValue(entry))
	if err != nil {
		return Resolved(err)
	}
	p := NewPending()
	s.queue.enqueue(func() {
		err := s.state.check(snapshot)
		if err == nil {
			s.state.add(snapshot)
		}
		p.Resolve(err)
	})
	return p
}

// Entries returns a deep copy of the committed entries in commit order,
// after every Append called before it has completed.
func (s *InMemorySessionStore) Entries() ([]SessionEntry, error) {
	var out []SessionEntry
	p := NewPending()
	s.queue.enqueue(func() {
		out = s.state.snapshot()
		p.Resolve(nil)
	})
	return out, p.Wait()
}

// ---- 10.4 -----------------------------------------------------------------

// RecoverJSONL reads the text of a session file. A line counts only once it
// ends in "\n": a last line without one is not parsed and is reported as a
// WarnUnterminatedTail warning, unless it is blank. Blank lines (nothing but
// spaces, tabs and "\r") are skipped but counted. The
// first committed line that is not a valid entry stops recovery with a
// *LineError naming its 1-based line, and no entries at all. It writes
// nothing.
func RecoverJSONL(text string) (Recovery, error) {
	rec, _, err := recoverLines(text)
	return rec, err
}

// recoverLines is RecoverJSONL that also returns the 1-based line of each
// entry: opening a store replays the entries and must name a bad one's line.
func recoverLines(text string) (Recovery, []int, error) {
	var rec Recovery
	var at []int
	lines := strings.Split(text, "\n")
	// The last piece is whatever follows the last "\n": empty when the text
	// ends in a newline, otherwise a line that was never committed.
	committedLines, tail := lines[:len(lines)-1], lines[len(lines)-1]
	for i, line := range committedLines {
		if strings.Trim(line, " \t\r") == "" {
			continue
		}
		var raw any
		if err := json.Unmarshal([]byte(line), &raw); err != nil {
			return Recovery{}, nil, &LineError{Line: i + 1, Err: err}
		}
		e, err := ParseSessionEntry(raw)
		if err != nil {
			return Recovery{}, nil, &LineError{Line: i + 1, Err: err}
		}
		rec.Entries = append(rec.Entries, e)
		at = append(at, i+1)
	}
	// A tail of spaces, tabs and "\r" is a blank line like any other: there
	// is no record in it to lose.
	if strings.Trim(tail, " \t\r") != "" {
		rec.Warnings = append(rec.Warnings, Warning{Code: WarnUnterminatedTail, Line: len(lines)})
	}
	return rec, at, nil
}

// ---- 10.5 -----------------------------------------------------------------

// JSONLSessionStore appends entries to one JSONL file through a FileIO, in
// call order, and stops for good after a failed write. It assumes it is the
// only writer of the file.
type JSONLSessionStore struct {
	io       FileIO
	path     string
	warnings []Warning         // what recovery reported at open; never changes
	repair   *NeedsRepairError // set at open when the file ends in an unterminated line

	queue   fifo
	state   committed
	tainted error // the first failed write; touched only by queued jobs
}

// OpenJSONLSessionStore reads the file at path with RecoverJSONL and returns
// a store over it. A missing file is an empty store (the first Append
// creates it). A committed bad line is an error naming its line, and so is
// a committed entry whose id was already used or whose parent is not on an
// earlier line: the entries are replayed in file order, as the store's own
// appends would have committed them. An unterminated tail leaves the
// committed entries readable (Entries, and Warnings says why) but every
// Append fails with a *NeedsRepairError.
func OpenJSONLSessionStore(fileIO FileIO, path string) (*JSONLSessionStore, error) {
	s := &JSONLSessionStore{io: fileIO, path: path}
	data, err := fileIO.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return nil, fmt.Errorf("open session %s: %w", path, err)
	}
	rec, lines, err := recoverLines(string(data))
	if err != nil {
		return nil, fmt.Errorf("open session %s: %w", path, err)
	}
	// Replay the tree: each entry is judged as its append was, against the
	// lines before it, so a duplicate or an orphan is named by its line.
	for i, e := range rec.Entries {
		if err := s.state.check(e); err != nil {
			return nil, fmt.Errorf("open session %s: %w", path, &LineError{Line: lines[i], Err: err})
		}
		s.state.add(e)
	}
	s.warnings = rec.Warnings
	for _, w := range rec.Warnings {
		if w.Code == WarnUnterminatedTail {
			s.repair = &NeedsRepairError{Path: path, Line: w.Line}
		}
	}
	return s, nil
}

// Append validates entry, snapshots it and encodes it as one line now; a
// problem there rejects only this call, at once, whatever state the store is
// in. In its turn the line is appended, unless the file needs repair, the
// store is tainted, the ID is taken or the parent is missing. A failed write
// taints the store: this call returns the write error, and every later turn
// (appends and reads) returns a *TaintedError carrying it, without touching
// the file.
func (s *JSONLSessionStore) Append(entry SessionEntry) *Pending {
	snapshot, err := ParseSessionEntry(EntryValue(entry))
	if err != nil {
		return Resolved(err)
	}
	line, err := json.Marshal(snapshot)
	if err != nil {
		return Resolved(fmt.Errorf("encode entry %q: %w", snapshot.ID, err))
	}
	line = append(line, '\n')
	p := NewPending()
	s.queue.enqueue(func() { p.Resolve(s.write(snapshot, line)) })
	return p
}

// write runs in the append's turn.
func (s *JSONLSessionStore) write(e SessionEntry, line []byte) error {
	if s.repair != nil {
		return s.repair
	}
	if s.tainted != nil {
		return &TaintedError{Err: s.tainted}
	}
	if err := s.state.check(e); err != nil {
		return err
	}
	if err := s.io.AppendFile(s.path, line); err != nil {
		// Any prefix of the line may be on disk now; appending more could
		// turn that half line into a committed bad one. Stop for good.
		s.tainted = err
		return fmt.Errorf("append entry %q to %s: %w", e.ID, s.path, err)
	}
	s.state.add(e)
	return nil
}

// Entries returns a deep copy of the committed entries, after every Append
// called before it has completed, or the *TaintedError of a failed write.
func (s *JSONLSessionStore) Entries() ([]SessionEntry, error) {
	var out []SessionEntry
	p := NewPending()
	s.queue.enqueue(func() {
		if s.tainted != nil {
			p.Resolve(&TaintedError{Err: s.tainted})
			return
		}
		out = s.state.snapshot()
		p.Resolve(nil)
	})
	return out, p.Wait()
}

// Warnings returns a copy of the warnings RecoverJSONL gave when the store
// was opened: for a file that needs repair, the unterminated tail and its
// line, which is why every Append is refused. It is empty for a healthy or
// missing file and never changes.
func (s *JSONLSessionStore) Warnings() []Warning {
	return slices.Clone(s.warnings)
}

// ---- 10.6 -----------------------------------------------------------------

// MessagesOnPath returns the complete messages of the branch that ends at
// leafID, root first, with the same checks as PathTo. Metadata entries are
// skipped; every message is a deep copy with all its fields (tool calls,
// tool results, details) intact.
func MessagesOnPath(entries []SessionEntry, leafID string) ([]AgentMessage, error) {
	chain, err := branch(entries, leafID)
	if err != nil {
		return nil, err
	}
	var out []AgentMessage
	for _, at := range chain {
		if e := entries[at]; e.Type == EntryMessage && e.Message != nil {
			out = append(out, e.Message.CloneMessage())
		}
	}
	return out, nil
}

// ---- 10.7 (optional) ------------------------------------------------------

// RepairUnterminatedTail cuts the unterminated tail off the session file at
// path, explicitly: nothing else in the lab calls it, and
// OpenJSONLSessionStore never repairs. It reads the file once and checks it
// with RecoverJSONL: a committed bad line is refused (the error carries the
// *LineError; a repair does not fix corruption), and a file without a tail
// is left alone (no backup; the result's Repaired() is false).
//
// Otherwise, in this order: the original bytes go to a new backup file
// path+".bak-<n>" (n = 1, 2, ...: the first that does not exist; an existing
// backup is never overwritten); the committed text, every byte up to and
// including the last "\n", is written to a temporary file; the temporary
// file is renamed over path. If writing the temporary file or renaming it
// fails, the original is unchanged, the temporary file is removed, and the
// error is a *RepairError naming the backup. Files are written with
// RepairFileMode.
func RepairUnterminatedTail(fsys RepairFS, path string) (RepairResult, error) {
	data, err := fsys.ReadFile(path)
	if err != nil {
		return RepairResult{}, fmt.Errorf("repair %s: %w", path, err)
	}
	rec, err := RecoverJSONL(string(data))
	if err != nil {
		return RepairResult{}, fmt.Errorf("repair %s: refused, the file is corrupt, not just cut short: %w", path, err)
	}
	res := RepairResult{Entries: len(rec.Entries)}
	for _, w := range rec.Warnings {
		if w.Code == WarnUnterminatedTail {
			res.TailLine = w.Line
		}
	}
	if res.TailLine == 0 {
		return res, nil // nothing to cut: touch nothing
	}
	// Bytes are cut, never re-encoded: everything up to the last "\n" stays.
	keep := data[:strings.LastIndexByte(string(data), '\n')+1]
	res.RemovedBytes = len(data) - len(keep)

	if res.BackupPath, err = writeBackup(fsys, path, data); err != nil {
		return RepairResult{}, fmt.Errorf("repair %s: back up: %w", path, err)
	}
	tmp := path + ".repair-tmp"
	if err := fsys.WriteFile(tmp, keep, RepairFileMode); err != nil {
		_ = fsys.Remove(tmp)
		return RepairResult{}, &RepairError{Path: path, Backup: res.BackupPath, Err: err}
	}
	if err := fsys.Rename(tmp, path); err != nil {
		_ = fsys.Remove(tmp)
		return RepairResult{}, &RepairError{Path: path, Backup: res.BackupPath, Err: err}
	}
	return res, nil
}

// maxBackups bounds the search for a free backup name, so that a file system
// that says every name exists cannot keep the repair looping.
const maxBackups = 10000

// writeBackup writes data to the first path+".bak-<n>" that does not exist
// and returns that name. WriteNewFile refuses an existing file, so an older
// backup is never overwritten, not even by a race.
func writeBackup(fsys RepairFS, path string, data []byte) (string, error) {
	for n := 1; n <= maxBackups; n++ {
		name := path + ".bak-" + strconv.Itoa(n)
		err := fsys.WriteNewFile(name, data, RepairFileMode)
		if err == nil {
			return name, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return "", err
		}
	}
	return "", fmt.Errorf("%s.bak-1 to .bak-%d all exist", path, maxBackups)
}
