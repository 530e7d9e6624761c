// Package session is chapter 10's lab: an append-only, branchable,
// fail-closed session history for an AI agent, kept as JSONL on disk.
//
// This file is an alternative solution ("worker"), written from the handout
// alone. It differs from the reference on purpose, to show that the tests
// hold behaviour and not one implementation's shape:
//
//   - ParseSessionEntry is declarative: each kind of object is a shape, a
//     list of fields (name, required or not, decoder), and the kinds of
//     entries, messages and blocks are tagged unions that pick a shape by
//     "type" or "role". The JSON-value check is an iterative depth-first walk
//     with an explicit stack; it copies while it checks, and the trail of
//     containers it is inside of is the set of ancestors for finding cycles.
//   - Both stores run one worker goroutine that owns the committed entries and
//     takes append and read requests from a channel, in the order they were
//     sent. The worker starts on the first request and exits as soon as it
//     has nothing left to do, so a store that is dropped leaves no goroutine
//     behind (unless its FileIO never returns).
//   - PathTo walks up once, collecting positions, and fills a result of the
//     right size from the back; RecoverJSONL scans the text with
//     strings.IndexByte instead of splitting it.
//   - RepairUnterminatedTail (optional 10.7) runs the steps after the backup
//     from a table, each undone the same way.
package session

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
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
	chain, err := ancestry(entries, leafID)
	if err != nil {
		return nil, err
	}
	// chain runs from the leaf up; the result, sized once, is filled from
	// the back so that it reads root first.
	out := make([]SessionEntry, len(chain))
	for k, i := range chain {
		out[len(chain)-1-k] = entries[i].Clone()
	}
	return out, nil
}

// ancestry returns the positions in entries of leafID and of each of its
// ancestors, leaf first, ending at a root. It is the check shared by PathTo
// and MessagesOnPath: ids are unique over all entries; the leaf exists; on
// the chain (and only there) every parent exists and no entry comes twice.
// The work is linear in len(entries).
func ancestry(entries []SessionEntry, leafID string) ([]int, error) {
	position := make(map[string]int, len(entries))
	for i, e := range entries {
		if _, taken := position[e.ID]; taken {
			return nil, &DuplicateIDError{ID: e.ID}
		}
		position[e.ID] = i
	}
	i, ok := position[leafID]
	if !ok {
		return nil, &UnknownEntryError{ID: leafID}
	}
	onChain := make([]bool, len(entries))
	var chain []int
	for {
		if onChain[i] {
			// The walk meets this entry a second time: the chain closes here.
			return nil, &CycleError{ID: entries[i].ID}
		}
		onChain[i] = true
		chain = append(chain, i)
		parent := entries[i].ParentID
		if parent == "" {
			return chain, nil
		}
		next, ok := position[parent]
		if !ok {
			return nil, &MissingParentError{ChildID: entries[i].ID, ParentID: parent}
		}
		i = next
	}
}

// ---- 10.2 -----------------------------------------------------------------

// ParseSessionEntry checks an untrusted value, such as json.Unmarshal gives
// for an `any`, layer by layer, and returns it as a new SessionEntry that
// shares nothing with v. Any problem is a *FieldError whose Path says where
// it is, for example "entry.message.content[1].arguments.opts[2]".
//
// The format is written down below as data (entryKinds and the shapes it
// refers to); this function only applies it. On every object, keys the
// shape does not list are reported first (sorted, so the report does not
// depend on map order), then the listed fields in the order they are
// declared. Besides what the handout lists, a nil map[string]any or []any
// is refused wherever a JSON value is expected: encoding/json never makes
// one, and it would be written as null and read back as something else.
func ParseSessionEntry(v any) (SessionEntry, error) {
	return entryKinds.decode(v, entryRoot)
}

// The session format, as data. Each shape lists every field one kind of
// object may have; each union picks a shape by the string in its tag field.
// Reading the declarations from entryKinds down gives the handout's table.

// entryBase holds the fields every entry has besides its "type".
var entryBase = shape[SessionEntry]{
	required("id", nonEmpty(func(e *SessionEntry, s string) { e.ID = s })),
	required("parentId", parentRef),
	required("timestamp", finite(func(e *SessionEntry, f float64) { e.Timestamp = f })),
}

// entryKinds is a whole session entry: "type" picks message or metadata.
var entryKinds = union[SessionEntry]{tag: "type", kinds: []variant[SessionEntry]{
	kind(string(EntryMessage), slices.Concat(entryBase, shape[SessionEntry]{
		required("message", member(messageRoles, func(e *SessionEntry, m AgentMessage) { e.Message = m })),
	}), func(e *SessionEntry) SessionEntry { e.Type = EntryMessage; return *e }),
	kind(string(EntryMetadata), slices.Concat(entryBase, shape[SessionEntry]{
		required("key", nonEmpty(func(e *SessionEntry, s string) { e.Key = s })),
		required("value", jsonValue(nullAllowed, func(e *SessionEntry, v any) { e.Value = v })),
	}), func(e *SessionEntry) SessionEntry { e.Type = EntryMetadata; return *e }),
}}

// messageRoles is a complete agent message: "role" picks its kind.
var messageRoles = union[AgentMessage]{tag: "role", kinds: []variant[AgentMessage]{
	kind(string(RoleUser), shape[UserMessage]{
		required("content", listOf(textBlocks, func(m *UserMessage, c []TextContent) { m.Content = c })),
		required("timestamp", finite(func(m *UserMessage, f float64) { m.Timestamp = f })),
	}, func(m *UserMessage) AgentMessage { return m }),
	kind(string(RoleAssistant), shape[AssistantMessage]{
		required("content", listOf(assistantBlocks, func(m *AssistantMessage, c []AssistantContent) { m.Content = c })),
		optional("model", nonEmpty(func(m *AssistantMessage, s string) { m.Model = s })),
		optional("usage", object(usageShape, func(m *AssistantMessage, u *Usage) { m.Usage = u })),
		optional("stopReason", oneOf(stopReasons, func(m *AssistantMessage, s string) { m.StopReason = StopReason(s) })),
		optional("errorMessage", nonEmpty(func(m *AssistantMessage, s string) { m.ErrorMessage = s })),
		required("timestamp", finite(func(m *AssistantMessage, f float64) { m.Timestamp = f })),
	}, func(m *AssistantMessage) AgentMessage { return m }),
	kind(string(RoleToolResult), shape[ToolResultMessage]{
		required("toolCallId", nonEmpty(func(m *ToolResultMessage, s string) { m.ToolCallID = s })),
		required("toolName", nonEmpty(func(m *ToolResultMessage, s string) { m.ToolName = s })),
		required("content", listOf(textBlocks, func(m *ToolResultMessage, c []TextContent) { m.Content = c })),
		optional("details", jsonValue(nullRefused, func(m *ToolResultMessage, v any) { m.Details = v })),
		required("isError", boolean(func(m *ToolResultMessage, b bool) { m.IsError = b })),
		required("timestamp", finite(func(m *ToolResultMessage, f float64) { m.Timestamp = f })),
	}, func(m *ToolResultMessage) AgentMessage { return m }),
}}

// stopReasons are the values an assistant's "stopReason" may have.
var stopReasons = []string{
	string(StopReasonStop), string(StopReasonLength), string(StopReasonToolUse),
	string(StopReasonError), string(StopReasonAborted),
}

// usageShape is the token usage of an assistant message.
var usageShape = shape[Usage]{
	required("input", tokenCount(func(u *Usage, n int) { u.Input = n })),
	required("output", tokenCount(func(u *Usage, n int) { u.Output = n })),
	required("totalTokens", tokenCount(func(u *Usage, n int) { u.TotalTokens = n })),
}

// textShape is a text block, less its "type".
var textShape = shape[TextContent]{
	required("text", anyString(func(t *TextContent, s string) { t.Text = s })),
}

// toolCallShape is a tool call block, less its "type".
var toolCallShape = shape[ToolCall]{
	required("id", nonEmpty(func(c *ToolCall, s string) { c.ID = s })),
	required("name", nonEmpty(func(c *ToolCall, s string) { c.Name = s })),
	required("arguments", jsonObject(func(c *ToolCall, m map[string]any) { c.Arguments = m })),
}

// textBlocks is the content of user and tool result messages: text only.
var textBlocks = union[TextContent]{tag: "type", kinds: []variant[TextContent]{
	kind("text", textShape, func(t *TextContent) TextContent { return *t }),
}}

// assistantBlocks is the content of assistant messages: text and tool calls.
var assistantBlocks = union[AssistantContent]{tag: "type", kinds: []variant[AssistantContent]{
	kind("text", textShape, func(t *TextContent) AssistantContent { return *t }),
	kind("toolCall", toolCallShape, func(c *ToolCall) AssistantContent { return *c }),
}}

// parentRef decodes "parentId": null for a root, or the id of the parent.
func parentRef(v any, at fieldPath, e *SessionEntry) error {
	switch p := v.(type) {
	case nil:
		e.ParentID = ""
		return nil
	case string:
		if p != "" {
			e.ParentID = p
			return nil
		}
	}
	return at.fail("must be null (a root) or a non-empty id, got %s", describe(v))
}

// ---- the schema machinery ----

// fieldPath is where a value sits in the entry being parsed, as
// FieldError.Path shows it: entry.message.content[1].arguments["max-depth"].
// It is kept as the written path of the enclosing object or list plus the
// last step, which is written out only when it is needed (to go one level
// deeper, or to report a problem): checking a valid entry builds one string
// per object or list, not one per field.
type fieldPath struct {
	outer string
	last  segment
}

// entryRoot is the path of the value handed to ParseSessionEntry.
var entryRoot = fieldPath{outer: "entry"}

// String writes p out.
func (p fieldPath) String() string { return p.last.after(p.outer) }

// settled returns p with its last step written out, so that the paths of
// its members, made with key and index, share that string.
func (p fieldPath) settled() fieldPath { return fieldPath{outer: p.String()} }

// key returns the path of member k of the object at p.
func (p fieldPath) key(k string) fieldPath {
	return fieldPath{outer: p.String(), last: segment{at: segKey, key: k}}
}

// index returns the path of item i of the list at p.
func (p fieldPath) index(i int) fieldPath {
	return fieldPath{outer: p.String(), last: segment{at: segIndex, index: i}}
}

// fail returns a *FieldError at p.
func (p fieldPath) fail(format string, args ...any) error {
	return &FieldError{Path: p.String(), Problem: fmt.Sprintf(format, args...)}
}

// segment is one step of a path: a member of an object, an item of a list,
// or (the zero segment) no step at all.
type segment struct {
	at    segmentKind
	key   string
	index int
}

// segmentKind says what a segment is.
type segmentKind uint8

const (
	segNone  segmentKind = iota // no step: the path ends at the enclosing value
	segKey                      // .key for an identifier, else ["key"] (strconv.Quote)
	segIndex                    // [index]
)

// after returns the path p followed by s.
func (s segment) after(p string) string {
	switch s.at {
	case segKey:
		if isIdentifier(s.key) {
			return p + "." + s.key
		}
		return p + "[" + strconv.Quote(s.key) + "]"
	case segIndex:
		return p + "[" + strconv.Itoa(s.index) + "]"
	default:
		return p
	}
}

// isIdentifier reports whether k matches [A-Za-z_$][A-Za-z0-9_$]*.
func isIdentifier(k string) bool {
	if k == "" {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		letter := c == '_' || c == '$' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
		digit := '0' <= c && c <= '9'
		if !letter && !(digit && i > 0) {
			return false
		}
	}
	return true
}

// describe names the kind of an untrusted value for a problem message.
func describe(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case string:
		const most = 40 // bytes of a string shown in a problem message
		if len(x) > most {
			cut := most
			for cut > 0 && !utf8.RuneStart(x[cut]) {
				cut--
			}
			return strconv.Quote(x[:cut]) + "…"
		}
		return strconv.Quote(x)
	case float64:
		return "the number " + strconv.FormatFloat(x, 'g', -1, 64)
	case []any:
		return "a list"
	case map[string]any:
		return "an object"
	default:
		return fmt.Sprintf("a Go %T", v)
	}
}

// decoder checks one untrusted value found at a path and, when it is valid,
// stores it (a copy where it is mutable) in the value being built.
type decoder[T any] func(v any, at fieldPath, into *T) error

// field is one member of an object shape.
type field[T any] struct {
	name     string
	required bool
	decode   decoder[T]
}

// required declares a field that must be present.
func required[T any](name string, d decoder[T]) field[T] {
	return field[T]{name: name, required: true, decode: d}
}

// optional declares a field that may be left out; left out, the value being
// built keeps its zero value.
func optional[T any](name string, d decoder[T]) field[T] {
	return field[T]{name: name, decode: d}
}

// shape is the complete list of fields one kind of object may have, in the
// order they are checked. Any other key is an unknown field.
type shape[T any] []field[T]

// lists reports whether name is one of the fields of s.
func (s shape[T]) lists(name string) bool {
	for _, f := range s {
		if f.name == name {
			return true
		}
	}
	return false
}

// decode checks obj against s and fills into. tag names a key that the
// union around s has already read, or is "".
func (s shape[T]) decode(obj map[string]any, at fieldPath, tag string, into *T) error {
	at = at.settled()
	var unknown []string
	for k := range obj {
		if k != tag && !s.lists(k) {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		return at.key(slices.Min(unknown)).fail("unknown field: the format has no such field here")
	}
	for _, f := range s {
		v, present := obj[f.name]
		if !present {
			if f.required {
				return at.key(f.name).fail("missing: this field is required")
			}
			continue
		}
		if err := f.decode(v, at.key(f.name), into); err != nil {
			return err
		}
	}
	return nil
}

// variant is one kind of a union: its tag value and how to decode the rest.
type variant[R any] struct {
	name   string
	decode func(obj map[string]any, at fieldPath, tag string) (R, error)
}

// kind declares the variant name of a union whose objects have shape s;
// finish turns the filled-in T into the union's result type R.
func kind[T, R any](name string, s shape[T], finish func(*T) R) variant[R] {
	return variant[R]{name: name, decode: func(obj map[string]any, at fieldPath, tag string) (R, error) {
		var t T
		if err := s.decode(obj, at, tag, &t); err != nil {
			var zero R
			return zero, err
		}
		return finish(&t), nil
	}}
}

// union is a tagged union of object shapes: the string in field tag says
// which variant the object is.
type union[R any] struct {
	tag   string
	kinds []variant[R]
}

// decode checks that v is an object, reads its tag and decodes it as the
// variant the tag names.
func (u union[R]) decode(v any, at fieldPath) (R, error) {
	var zero R
	obj, err := plainObject(v, at)
	if err != nil {
		return zero, err
	}
	raw, present := obj[u.tag]
	if !present {
		return zero, at.key(u.tag).fail("missing: this field is required")
	}
	if name, ok := raw.(string); ok {
		for _, k := range u.kinds {
			if k.name == name {
				return k.decode(obj, at, u.tag)
			}
		}
	}
	names := make([]string, len(u.kinds))
	for i, k := range u.kinds {
		names[i] = strconv.Quote(k.name)
	}
	return zero, at.key(u.tag).fail("must be one of %s here, got %s", strings.Join(names, ", "), describe(raw))
}

// plainObject returns v as a JSON object: a non-nil map[string]any, the only
// object encoding/json makes. Structs, pointers and other map types are not.
func plainObject(v any, at fieldPath) (map[string]any, error) {
	obj, ok := v.(map[string]any)
	if !ok || obj == nil {
		return nil, at.fail("must be a JSON object (map[string]any), got %s", describe(v))
	}
	return obj, nil
}

// member decodes a field holding one object of union u.
func member[T, R any](u union[R], set func(*T, R)) decoder[T] {
	return func(v any, at fieldPath, into *T) error {
		r, err := u.decode(v, at)
		if err != nil {
			return err
		}
		set(into, r)
		return nil
	}
}

// listOf decodes a field holding a list ([]any) of objects of union u. The
// result is a new, non-nil slice, empty for an empty list.
func listOf[T, R any](u union[R], set func(*T, []R)) decoder[T] {
	return func(v any, at fieldPath, into *T) error {
		items, ok := v.([]any)
		if !ok || items == nil {
			return at.fail("must be a list ([]any), got %s", describe(v))
		}
		out := make([]R, len(items))
		at = at.settled()
		for i, item := range items {
			r, err := u.decode(item, at.index(i))
			if err != nil {
				return err
			}
			out[i] = r
		}
		set(into, out)
		return nil
	}
}

// object decodes a field holding one object of shape s, stored by pointer.
func object[T, U any](s shape[U], set func(*T, *U)) decoder[T] {
	return func(v any, at fieldPath, into *T) error {
		obj, err := plainObject(v, at)
		if err != nil {
			return err
		}
		u := new(U)
		if err := s.decode(obj, at, "", u); err != nil {
			return err
		}
		set(into, u)
		return nil
	}
}

// anyString accepts every string, the empty one included.
func anyString[T any](set func(*T, string)) decoder[T] {
	return func(v any, at fieldPath, into *T) error {
		s, ok := v.(string)
		if !ok {
			return at.fail("must be a string, got %s", describe(v))
		}
		set(into, s)
		return nil
	}
}

// nonEmpty accepts a string that is not "".
func nonEmpty[T any](set func(*T, string)) decoder[T] {
	return func(v any, at fieldPath, into *T) error {
		s, ok := v.(string)
		if !ok || s == "" {
			return at.fail("must be a non-empty string, got %s", describe(v))
		}
		set(into, s)
		return nil
	}
}

// oneOf accepts one of the strings in allowed.
func oneOf[T any](allowed []string, set func(*T, string)) decoder[T] {
	return func(v any, at fieldPath, into *T) error {
		s, ok := v.(string)
		if !ok || !slices.Contains(allowed, s) {
			return at.fail("must be one of %q, got %s", allowed, describe(v))
		}
		set(into, s)
		return nil
	}
}

// boolean accepts true or false.
func boolean[T any](set func(*T, bool)) decoder[T] {
	return func(v any, at fieldPath, into *T) error {
		b, ok := v.(bool)
		if !ok {
			return at.fail("must be true or false, got %s", describe(v))
		}
		set(into, b)
		return nil
	}
}

// finite accepts a float64 that is neither NaN nor infinite.
func finite[T any](set func(*T, float64)) decoder[T] {
	return func(v any, at fieldPath, into *T) error {
		f, ok := v.(float64)
		if !ok || math.IsNaN(f) || math.IsInf(f, 0) {
			return at.fail("must be a finite number (float64), got %s", describe(v))
		}
		set(into, f)
		return nil
	}
}

// maxCount is the largest token count accepted: 2^53, the last integer a
// float64 holds exactly (capped by int on a 32-bit platform).
const maxCount = min(1<<53, math.MaxInt)

// tokenCount accepts a whole number from 0 to maxCount.
func tokenCount[T any](set func(*T, int)) decoder[T] {
	return func(v any, at fieldPath, into *T) error {
		f, ok := v.(float64)
		if !ok || !(f >= 0 && f <= maxCount) || f != math.Trunc(f) {
			return at.fail("must be a whole number from 0 to 2^53, got %s", describe(v))
		}
		set(into, int(f))
		return nil
	}
}

// Whether a JSON value field may hold null.
const (
	nullAllowed = true
	nullRefused = false
)

// jsonValue accepts any JSON value (null only when nullable) and stores a
// deep copy of it (see copyJSON).
func jsonValue[T any](nullable bool, set func(*T, any)) decoder[T] {
	return func(v any, at fieldPath, into *T) error {
		if v == nil && !nullable {
			return at.fail("must not be null: leave the field out instead")
		}
		c, err := copyJSON(v, at)
		if err != nil {
			return err
		}
		set(into, c)
		return nil
	}
}

// jsonObject accepts a JSON object of JSON values and stores a deep copy.
func jsonObject[T any](set func(*T, map[string]any)) decoder[T] {
	return func(v any, at fieldPath, into *T) error {
		obj, err := plainObject(v, at)
		if err != nil {
			return err
		}
		c, err := copyJSON(obj, at)
		if err != nil {
			return err
		}
		set(into, c.(map[string]any))
		return nil
	}
}

// ---- the JSON value check ----

// copyJSON checks that v is a JSON value (null, bool, string, finite
// float64, non-nil []any or map[string]any of JSON values) that does not
// contain itself, and returns a deep copy of it made in the same walk. The
// first problem is a *FieldError at its path below at.
//
// The walk is depth first, with an explicit stack instead of recursion:
// list items in order, object members by sorted key, so the same value
// always gets the same report. The containers on the way from v down to the
// current value (the trail) are exactly its ancestors: meeting one of them
// again is a cycle, while the same container under two siblings is not, as
// it has left the trail before it is met the second time. Scanning the
// trail costs O(depth) per container, which is small for real entries;
// limits against hostile, deeply nested input are outside this lab.
func copyJSON(v any, at fieldPath) (any, error) {
	var w jsonWalk
	w.at = at
	w.stack = append(w.stackSpace[:0], step{value: v})
	w.trail = w.trailSpace[:0]
	if err := w.run(); err != nil {
		return nil, err
	}
	return w.root, nil
}

// jsonWalk is the state of copyJSON. Small values fit in its own space, so
// walking them allocates nothing but the copy.
type jsonWalk struct {
	at    fieldPath // where the checked value sits
	root  any       // the copy of the checked value
	stack []step    // work still to do, next on top
	trail []frame   // the containers we are inside, outermost first

	stackSpace [8]step
	trailSpace [4]frame
}

// step is one unit of work of a jsonWalk: a value to check and to copy
// into the new container intoObj or intoList at seg (or into root when it
// has neither), or, when leave is set, the moment all the children of the
// innermost container are done.
type step struct {
	value    any
	seg      segment
	intoObj  map[string]any
	intoList []any
	leave    bool
}

// put stores c, the copy of s's value, where it belongs.
func (w *jsonWalk) put(s step, c any) {
	switch {
	case s.intoObj != nil:
		s.intoObj[s.seg.key] = c
	case s.intoList != nil:
		s.intoList[s.seg.index] = c
	default:
		w.root = c
	}
}

// frame is a container on the trail: where it was found, and its identity
// when it has one (see ContainerIdentity).
type frame struct {
	seg   segment
	id    ContainerID
	known bool
}

// run does every step on the stack.
func (w *jsonWalk) run() error {
	for len(w.stack) > 0 {
		s := w.stack[len(w.stack)-1]
		w.stack = w.stack[:len(w.stack)-1]
		if s.leave {
			w.trail = w.trail[:len(w.trail)-1]
			continue
		}
		switch x := s.value.(type) {
		case nil, bool, string:
			w.put(s, x)
		case float64:
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return w.here(s.seg).fail("must be a finite number, got %v", x)
			}
			w.put(s, x)
		case []any:
			if x == nil {
				return w.here(s.seg).fail("a nil []any is not a JSON value: it would be written as null")
			}
			if err := w.enter(x, s.seg); err != nil {
				return err
			}
			c := make([]any, len(x))
			w.put(s, c)
			for i := len(x) - 1; i >= 0; i-- {
				w.stack = append(w.stack, step{value: x[i], seg: segment{at: segIndex, index: i}, intoList: c})
			}
		case map[string]any:
			if x == nil {
				return w.here(s.seg).fail("a nil map[string]any is not a JSON value: it would be written as null")
			}
			if err := w.enter(x, s.seg); err != nil {
				return err
			}
			c := make(map[string]any, len(x))
			w.put(s, c)
			// Push the members in reverse key order: the smallest key is
			// on top, checked first.
			first := len(w.stack)
			for k, item := range x {
				w.stack = append(w.stack, step{value: item, seg: segment{at: segKey, key: k}, intoObj: c})
			}
			slices.SortFunc(w.stack[first:], func(a, b step) int { return strings.Compare(b.seg.key, a.seg.key) })
		default:
			return w.here(s.seg).fail("is not a JSON value: %s (only null, bool, string, finite float64, []any and map[string]any)", describe(x))
		}
	}
	return nil
}

// enter puts the container c, found at seg, on the trail, unless it is
// already there (a cycle), and schedules taking it off once the children
// pushed after this call are done.
func (w *jsonWalk) enter(c any, seg segment) error {
	id, known := ContainerIdentity(c)
	if known {
		for _, f := range w.trail {
			if f.known && f.id == id {
				return w.here(seg).fail("cycle: this value contains itself (it is one of its own ancestors)")
			}
		}
	}
	w.trail = append(w.trail, frame{seg: seg, id: id, known: known})
	w.stack = append(w.stack, step{leave: true})
	return nil
}

// here returns the path of the value found at seg inside the innermost
// container of the trail. It is written out only to report a problem.
func (w *jsonWalk) here(seg segment) fieldPath {
	p := w.at.String()
	for _, f := range w.trail {
		p = f.seg.after(p)
	}
	return fieldPath{outer: seg.after(p)}
}

// ---- 10.3 and 10.5: one worker per store ----------------------------------

// request is one call to a store waiting for its turn in the store's worker:
// an append (result is set) or a read (reply is set).
type request struct {
	entry  SessionEntry   // append: the snapshot taken at call time
	line   []byte         // append to a file: entry encoded at call time
	result *Pending       // append: resolved in its turn
	reply  chan<- readout // read: receives what is committed in its turn
}

// readout answers a read request: a view of the committed entries, or the
// error that stops the store.
type readout struct {
	entries []SessionEntry
	err     error
}

// worker serves the requests of one store, one at a time, in the order they
// were sent on requests. While it runs, its goroutine alone touches the
// fields below the mutex; it starts with the first request after being idle
// and exits once nothing is queued, being written or on its way, handing the
// fields over to the next run through mu.
//
// A file write runs in a short-lived goroutine of its own, so that the
// worker keeps taking requests while the disk is slow: Append never waits
// for I/O and the queue needs no fixed bound. Writes still run one at a
// time: the next request is served only when the write before it is done.
type worker struct {
	requests chan request

	mu      sync.Mutex
	running bool // a worker goroutine is alive
	senders int  // requests submitted but not yet received by it

	committed []SessionEntry // in commit order; never changed once committed
	ids       map[string]struct{}
	file      FileIO // nil for an in-memory store
	path      string
	refusal   error // set at open: every append fails with it (needs repair)
	taint     error // the first failed write; every later call fails with it
}

// newWorker returns the worker of a store holding the committed entries,
// which it takes ownership of. file is nil for an in-memory store.
func newWorker(file FileIO, path string, committed []SessionEntry) *worker {
	w := &worker{
		requests:  make(chan request),
		committed: committed,
		ids:       make(map[string]struct{}, len(committed)),
		file:      file,
		path:      path,
	}
	for _, e := range committed {
		w.ids[e.ID] = struct{}{}
	}
	return w
}

// submit queues r behind every request submitted before it, starting the
// worker goroutine if none is running. It returns as soon as the worker has
// taken r, which it does between any two requests it serves.
func (w *worker) submit(r request) {
	w.mu.Lock()
	w.senders++
	if !w.running {
		w.running = true
		go w.run()
	}
	w.mu.Unlock()
	w.requests <- r
}

// append submits an append of a validated snapshot and its encoded line.
func (w *worker) append(snapshot SessionEntry, line []byte) *Pending {
	p := NewPending()
	w.submit(request{entry: snapshot, line: line, result: p})
	return p
}

// read waits for its turn and returns a deep copy of the committed entries.
// The worker hands out a view of its slice, capped at the current length:
// committed entries are never changed and later appends write past the cap,
// so the copy is made here, without holding up the worker.
func (w *worker) read() ([]SessionEntry, error) {
	reply := make(chan readout, 1)
	w.submit(request{reply: reply})
	out := <-reply
	if out.err != nil {
		return nil, out.err
	}
	copies := make([]SessionEntry, len(out.entries))
	for i, e := range out.entries {
		copies[i] = e.Clone()
	}
	return copies, nil
}

// run is the worker goroutine.
func (w *worker) run() {
	var (
		queue   []request    // received, waiting for their turn
		writing <-chan error // the result of the write in flight, or nil
		current request      // the append being written
	)
	for {
		for writing == nil && len(queue) > 0 {
			r := queue[0]
			queue[0] = request{}
			queue = queue[1:]
			if writing = w.serve(r); writing != nil {
				current = r
			}
		}
		if writing == nil && w.retire() {
			return
		}
		select {
		case r := <-w.requests:
			w.mu.Lock()
			w.senders--
			w.mu.Unlock()
			queue = append(queue, r)
		case err := <-writing:
			w.finish(current, err)
			writing, current = nil, request{}
		}
	}
}

// retire ends this run of the worker if no request is on its way; the
// caller has nothing queued or in flight. A request submitted after retire
// starts a new run.
func (w *worker) retire() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.senders > 0 {
		return false
	}
	w.running = false
	return true
}

// serve handles r in its turn. It returns the channel of a write it started,
// or nil when r is complete.
func (w *worker) serve(r request) <-chan error {
	if r.reply != nil {
		if w.taint != nil {
			r.reply <- readout{err: &TaintedError{Err: w.taint}}
		} else {
			n := len(w.committed)
			r.reply <- readout{entries: w.committed[:n:n]}
		}
		return nil
	}
	if err := w.admit(r.entry); err != nil {
		r.result.Resolve(err)
		return nil
	}
	if w.file == nil {
		w.commit(r.entry)
		r.result.Resolve(nil)
		return nil
	}
	done := make(chan error, 1)
	go func(file FileIO, path string, line []byte) {
		done <- file.AppendFile(path, line)
	}(w.file, w.path, r.line)
	return done
}

// admit decides, in an append's turn, whether e may be committed: not by a
// store that needs repair or is tainted, not with an id already committed,
// and not under a parent that is not committed.
func (w *worker) admit(e SessionEntry) error {
	switch {
	case w.refusal != nil:
		return w.refusal
	case w.taint != nil:
		return &TaintedError{Err: w.taint}
	}
	if _, taken := w.ids[e.ID]; taken {
		return &DuplicateIDError{ID: e.ID}
	}
	if e.ParentID != "" {
		if _, ok := w.ids[e.ParentID]; !ok {
			return &MissingParentError{ChildID: e.ID, ParentID: e.ParentID}
		}
	}
	return nil
}

// finish completes the append r whose write returned err. A failed write
// may have left part of the line in the file, so it taints the store.
func (w *worker) finish(r request, err error) {
	if err != nil {
		w.taint = err
		r.result.Resolve(err)
		return
	}
	w.commit(r.entry)
	r.result.Resolve(nil)
}

// commit adds e to the committed entries.
func (w *worker) commit(e SessionEntry) {
	w.committed = append(w.committed, e)
	w.ids[e.ID] = struct{}{}
}

// ---- 10.3 -----------------------------------------------------------------

// InMemorySessionStore keeps committed entries in memory. Appends complete in
// call order, one at a time. It is safe for use by several goroutines.
//
// Use NewInMemorySessionStore; the zero value is not usable. A store keeps a
// goroutine only while requests are pending, so dropping one leaks nothing.
type InMemorySessionStore struct {
	w *worker
}

// NewInMemorySessionStore returns an empty store.
func NewInMemorySessionStore() *InMemorySessionStore {
	return &InMemorySessionStore{w: newWorker(nil, "", nil)}
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
	return s.w.append(snapshot, nil)
}

// Entries returns a deep copy of the committed entries in commit order,
// after every Append called before it has completed.
func (s *InMemorySessionStore) Entries() ([]SessionEntry, error) {
	return s.w.read()
}

// ---- 10.4 -----------------------------------------------------------------

// RecoverJSONL reads the text of a session file. A line counts only once it
// ends in "\n": a last line without one is not parsed and is reported as a
// WarnUnterminatedTail warning, unless it is blank. Blank lines (nothing but
// spaces, tabs and "\r") are skipped but counted. The
// first committed line that is not a valid entry stops recovery with a
// *LineError naming its 1-based line. It writes nothing.
//
// A blank line is empty or holds only spaces, tabs and "\r" (so CRLF files
// read like LF files); a last segment without "\n" that is only such
// whitespace is a blank line, not a tail; a byte order mark is not
// stripped, so it makes its line bad.
func RecoverJSONL(text string) (Recovery, error) {
	rec, _, err := scanLines(text)
	return rec, err
}

// scanLines is RecoverJSONL that also returns the line of every entry: a
// store replays them at open and names the line of the first that does not
// fit the tree.
func scanLines(text string) (Recovery, []int, error) {
	var rec Recovery
	var at []int
	if n := strings.Count(text, "\n"); n > 0 { // at most one entry per committed line
		rec.Entries = make([]SessionEntry, 0, n)
		at = make([]int, 0, n)
	}
	line := 0
	for rest := text; rest != ""; {
		line++
		end := strings.IndexByte(rest, '\n')
		if end < 0 {
			if strings.Trim(rest, " \t\r") != "" {
				rec.Warnings = append(rec.Warnings, Warning{Code: WarnUnterminatedTail, Line: line})
			}
			break
		}
		record := rest[:end]
		rest = rest[end+1:]
		if strings.Trim(record, " \t\r") == "" {
			continue
		}
		var v any
		if err := json.Unmarshal([]byte(record), &v); err != nil {
			return Recovery{}, nil, &LineError{Line: line, Err: err}
		}
		e, err := ParseSessionEntry(v)
		if err != nil {
			return Recovery{}, nil, &LineError{Line: line, Err: err}
		}
		rec.Entries = append(rec.Entries, e)
		at = append(at, line)
	}
	return rec, at, nil
}

// ---- 10.5 -----------------------------------------------------------------

// JSONLSessionStore appends entries to one JSONL file through a FileIO, in
// call order, and stops for good after a failed write. It assumes it is the
// only writer of the file.
//
// Use OpenJSONLSessionStore; the zero value is not usable. Like the
// in-memory store it keeps a goroutine only while requests are pending (or
// while a FileIO call has not returned).
type JSONLSessionStore struct {
	w        *worker
	warnings []Warning // what recovery said at open; never changes
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
	if fileIO == nil {
		return nil, errors.New("open session: no FileIO given")
	}
	var (
		rec   Recovery
		lines []int
	)
	data, err := fileIO.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		// A new session: nothing committed yet.
	case err != nil:
		return nil, fmt.Errorf("open session %s: %w", path, err)
	default:
		if rec, lines, err = scanLines(string(data)); err != nil {
			return nil, fmt.Errorf("open session %s: %w", path, err)
		}
	}
	// Each loaded entry is admitted the way its append was, in file order,
	// before the worker starts: its goroutine owns the state only later.
	w := newWorker(fileIO, path, nil)
	for i, e := range rec.Entries {
		if err := w.admit(e); err != nil {
			return nil, fmt.Errorf("open session %s: %w", path, &LineError{Line: lines[i], Err: err})
		}
		w.commit(e)
	}
	for _, warning := range rec.Warnings {
		if warning.Code == WarnUnterminatedTail {
			w.refusal = &NeedsRepairError{Path: path, Line: warning.Line}
		}
	}
	return &JSONLSessionStore{w: w, warnings: rec.Warnings}, nil
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
	return s.w.append(snapshot, append(line, '\n'))
}

// Entries returns a deep copy of the committed entries, after every Append
// called before it has completed, or the *TaintedError of a failed write.
func (s *JSONLSessionStore) Entries() ([]SessionEntry, error) {
	return s.w.read()
}

// Warnings returns a copy of the warnings recovery gave at open: for a file
// that needs repair, the unterminated tail and its line, the reason every
// Append is refused. It is empty for a healthy or missing file.
func (s *JSONLSessionStore) Warnings() []Warning {
	return slices.Clone(s.warnings)
}

// ---- 10.6 -----------------------------------------------------------------

// MessagesOnPath returns the complete messages of the branch that ends at
// leafID, root first, with the same checks as PathTo. Metadata entries are
// skipped; every message is a deep copy with all its fields (tool calls,
// tool results, details) intact.
func MessagesOnPath(entries []SessionEntry, leafID string) ([]AgentMessage, error) {
	chain, err := ancestry(entries, leafID)
	if err != nil {
		return nil, err
	}
	out := make([]AgentMessage, 0, len(chain))
	for k := len(chain) - 1; k >= 0; k-- {
		e := entries[chain[k]]
		if e.Type == EntryMetadata || e.Message == nil {
			continue
		}
		out = append(out, e.Message.CloneMessage())
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
//
// The steps after the backup are a table, each undone the same way (remove
// the staged file), so that no step can forget its clean-up. The staged
// file is named after the backup, so two repairs never share one.
func RepairUnterminatedTail(fsys RepairFS, path string) (RepairResult, error) {
	if fsys == nil {
		return RepairResult{}, errors.New("repair: no RepairFS given")
	}
	data, err := fsys.ReadFile(path)
	if err != nil {
		return RepairResult{}, fmt.Errorf("repair %s: %w", path, err)
	}
	rec, err := RecoverJSONL(string(data))
	if err != nil {
		return RepairResult{}, fmt.Errorf("repair %s: refused: %w", path, err)
	}
	res := RepairResult{Entries: len(rec.Entries)}
	at := slices.IndexFunc(rec.Warnings, func(w Warning) bool { return w.Code == WarnUnterminatedTail })
	if at < 0 {
		return res, nil
	}
	cut := strings.LastIndexByte(string(data), '\n') + 1
	res.TailLine, res.RemovedBytes = rec.Warnings[at].Line, len(data)-cut

	backup, err := backUp(fsys, path, data)
	if err != nil {
		return RepairResult{}, fmt.Errorf("repair %s: no backup, nothing changed: %w", path, err)
	}
	staged := backup + ".staged"
	steps := []struct {
		what string
		run  func() error
	}{
		{"write " + staged, func() error { return fsys.WriteFile(staged, data[:cut], RepairFileMode) }},
		{"rename " + staged + " over " + path, func() error { return fsys.Rename(staged, path) }},
	}
	for _, step := range steps {
		if err := step.run(); err != nil {
			_ = fsys.Remove(staged) // best effort: the original is intact either way
			return RepairResult{}, &RepairError{Path: path, Backup: backup, Err: fmt.Errorf("%s: %w", step.what, err)}
		}
	}
	res.BackupPath = backup
	return res, nil
}

// backUp writes data to the first free path+".bak-<n>" and returns its name.
// WriteNewFile is exclusive, so "free" is decided by the file system itself.
func backUp(fsys RepairFS, path string, data []byte) (string, error) {
	const tries = 10000
	for n := range tries {
		name := path + ".bak-" + strconv.Itoa(n+1)
		switch err := fsys.WriteNewFile(name, data, RepairFileMode); {
		case err == nil:
			return name, nil
		case !errors.Is(err, fs.ErrExist):
			return "", err
		}
	}
	return "", fmt.Errorf("the first %d backup names of %s are taken", tries, path)
}
