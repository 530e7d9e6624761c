// Package session is chapter 10's lab: an append-only, branchable,
// fail-closed session history for an AI agent, kept as JSONL on disk.
//
// This file is an alternative solution ("rawjson"). Its shape differs from
// the reference on purpose:
//
//   - The field rules of 10.2 are written once, against a small node
//     interface, and run over two inputs: a Go value (ParseSessionEntry) and
//     the raw bytes of a committed line (RecoverJSONL), which are decoded
//     one object layer at a time into map[string]json.RawMessage, never into
//     an `any` first.
//   - Both stores share one engine: a mutex-protected queue of turns
//     (closures) that a goroutine drains only while there is work, and a
//     sync.Cond on which a reader waits for its own turn.
//   - PathTo and MessagesOnPath share a walk that returns positions, so each
//     copies only what it returns.
//   - RepairUnterminatedTail (optional 10.7) splits the bytes at the last
//     newline first and recovers only the committed part.
package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"slices"
	"strconv"
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
	chain, err := branch(entries, leafID)
	if err != nil {
		return nil, err
	}
	out := make([]SessionEntry, len(chain))
	for k, i := range chain {
		out[k] = entries[i].Clone()
	}
	return out, nil
}

// branch returns the positions in entries of the chain that ends at leafID,
// root first. It indexes every ID once, so a duplicate anywhere is found,
// then walks parentId links up from the leaf, marking each position it
// stands on: reaching a marked position again closes a cycle. Nothing off
// the chain is checked. The work is linear in len(entries).
func branch(entries []SessionEntry, leafID string) ([]int, error) {
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
		onChain[i] = true
		chain = append(chain, i)
		e := entries[i]
		if e.IsRoot() {
			break
		}
		parent, ok := position[e.ParentID]
		switch {
		case !ok:
			return nil, &MissingParentError{ChildID: e.ID, ParentID: e.ParentID}
		case onChain[parent]:
			return nil, &CycleError{ID: e.ParentID}
		}
		i = parent
	}
	slices.Reverse(chain)
	return chain, nil
}

// ---- 10.2 -----------------------------------------------------------------

// ParseSessionEntry checks an untrusted value, such as json.Unmarshal gives
// for an `any`, layer by layer, and returns it as a new SessionEntry that
// shares nothing with v. Any problem is a *FieldError whose Path says where
// it is, for example "entry.message.content[1].arguments.opts[2]".
func ParseSessionEntry(v any) (SessionEntry, error) {
	return parseEntry(goNode{v}, entryPath)
}

// A node is one untrusted JSON value that no rule has looked at yet. The
// rules below (parseEntry, parseMessage, jsonValue, ...) are written once,
// against this interface, and run over two implementations:
//
//	goNode   a Go value, as json.Unmarshal gives for an `any` or EntryValue builds
//	rawNode  the bytes of one value of a committed line, decoded only when a rule asks
//
// Each accessor reports ok=false when the node is not of its kind, so a
// rule never converts first and checks afterwards.
type node interface {
	// kind reports which JSON kind the node is, or kindForeign for a Go
	// value that no JSON text decodes to.
	kind() kind
	// describe names what the node is, for error messages.
	describe() string
	boolean() (bool, bool)
	// number reports the value and whether it is a finite float64.
	number() (float64, bool)
	text() (string, bool)
	object() (object, bool)
	list() (list, bool)
	// identity reports which container the node is, when it can contain
	// itself (see ContainerIdentity). Decoded bytes never can.
	identity() (ContainerID, bool)
}

// An object is the fields of a JSON object node.
type object interface {
	field(key string) (node, bool)
	has(key string) bool
	len() int
	// keys lists the keys in no particular order.
	keys() []string
}

// A list is the items of a JSON list node.
type list interface {
	len() int
	item(i int) node
}

// kind is the JSON kind of a node.
type kind int

// The kinds of node.
const (
	kindForeign kind = iota // not a JSON value at all
	kindNull
	kindBool
	kindNumber
	kindString
	kindList
	kindObject
)

// kindNames describes each kind but numbers, which describe their value.
var kindNames = [...]string{
	kindForeign: "a value that is not JSON",
	kindNull:    "null",
	kindBool:    "a boolean",
	kindString:  "a string",
	kindList:    "a list",
	kindObject:  "an object",
}

// goNode is a node over a Go value. Only what encoding/json produces for an
// `any` is JSON here: nil, bool, float64 (a number, which must still be
// finite), string, []any and map[string]any. Everything else (int, structs,
// pointers, map[string]string, []string, funcs, ...) is kindForeign.
type goNode struct{ v any }

func (n goNode) kind() kind {
	switch n.v.(type) {
	case nil:
		return kindNull
	case bool:
		return kindBool
	case float64:
		return kindNumber
	case string:
		return kindString
	case []any:
		return kindList
	case map[string]any:
		return kindObject
	}
	return kindForeign
}

func (n goNode) describe() string {
	switch k := n.kind(); k {
	case kindNumber:
		return fmt.Sprintf("the number %v", n.v)
	case kindForeign:
		return fmt.Sprintf("a Go %T", n.v)
	default:
		return kindNames[k]
	}
}

func (n goNode) boolean() (bool, bool) {
	b, ok := n.v.(bool)
	return b, ok
}

func (n goNode) number() (float64, bool) {
	x, ok := n.v.(float64)
	return x, ok && !math.IsNaN(x) && !math.IsInf(x, 0)
}

func (n goNode) text() (string, bool) {
	s, ok := n.v.(string)
	return s, ok
}

func (n goNode) object() (object, bool) {
	if m, ok := n.v.(map[string]any); ok {
		return goObject(m), true
	}
	return nil, false
}

func (n goNode) list() (list, bool) {
	if l, ok := n.v.([]any); ok {
		return goList(l), true
	}
	return nil, false
}

func (n goNode) identity() (ContainerID, bool) { return ContainerIdentity(n.v) }

// goObject is the object of a goNode.
type goObject map[string]any

func (o goObject) field(key string) (node, bool) {
	v, ok := o[key]
	return goNode{v}, ok
}

func (o goObject) has(key string) bool {
	_, ok := o[key]
	return ok
}

func (o goObject) len() int { return len(o) }

func (o goObject) keys() []string {
	out := make([]string, 0, len(o))
	for k := range o {
		out = append(out, k)
	}
	return out
}

// goList is the list of a goNode.
type goList []any

func (l goList) len() int        { return len(l) }
func (l goList) item(i int) node { return goNode{l[i]} }

// rawNode is a node over the text of one JSON value, without surrounding
// whitespace, that encoding/json has already found to be valid: decodeLine
// lets json.Unmarshal check the syntax of the whole line before any rule
// runs. Its kind is read from its first byte; an object or a list is
// decoded one layer deep, into map[string]json.RawMessage or
// []json.RawMessage, only when a rule opens it.
type rawNode json.RawMessage

func (n rawNode) kind() kind {
	if len(n) == 0 {
		return kindForeign
	}
	switch c := n[0]; {
	case c == 'n':
		return kindNull
	case c == 't' || c == 'f':
		return kindBool
	case c == '"':
		return kindString
	case c == '[':
		return kindList
	case c == '{':
		return kindObject
	case c == '-' || '0' <= c && c <= '9':
		return kindNumber
	}
	return kindForeign
}

func (n rawNode) describe() string {
	if k := n.kind(); k != kindNumber {
		return kindNames[k]
	}
	return "the number " + string(n)
}

func (n rawNode) boolean() (bool, bool) {
	if n.kind() != kindBool {
		return false, false
	}
	return n[0] == 't', true
}

// number parses the literal as json.Unmarshal does for an `any`; a literal
// out of float64's range (1e400) is not a finite number.
func (n rawNode) number() (float64, bool) {
	if n.kind() != kindNumber {
		return 0, false
	}
	x, err := strconv.ParseFloat(string(n), 64)
	return x, err == nil
}

// text unquotes a string literal. Most strings have no escapes and are valid
// UTF-8: their bytes between the quotes are the string. The others go
// through encoding/json, which also turns invalid UTF-8 into U+FFFD exactly
// as it does for an `any`.
func (n rawNode) text() (string, bool) {
	if n.kind() != kindString {
		return "", false
	}
	inner := n[1 : len(n)-1]
	if bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
		return string(inner), true
	}
	var s string
	if err := json.Unmarshal(n, &s); err != nil {
		return "", false
	}
	return s, true
}

func (n rawNode) object() (object, bool) {
	if n.kind() != kindObject {
		return nil, false
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(n, &m); err != nil {
		return nil, false
	}
	return rawObject(m), true
}

func (n rawNode) list() (list, bool) {
	if n.kind() != kindList {
		return nil, false
	}
	var l []json.RawMessage
	if err := json.Unmarshal(n, &l); err != nil {
		return nil, false
	}
	return rawList(l), true
}

func (rawNode) identity() (ContainerID, bool) { return ContainerID{}, false }

// decodeValue decodes the whole value into an `any`. Success is proof of a
// JSON value: encoding/json gives only nil, bool, string, finite float64,
// []any and map[string]any, all new and without cycles. The one way valid
// JSON text can fail is a number out of float64's range (1e400); then
// jsonValue walks the value layer by layer to name that number's path.
func (n rawNode) decodeValue() (any, bool) {
	var v any
	return v, json.Unmarshal(n, &v) == nil
}

// rawObject is one decoded layer of a rawNode object.
type rawObject map[string]json.RawMessage

func (o rawObject) field(key string) (node, bool) {
	v, ok := o[key]
	return rawNode(v), ok
}

func (o rawObject) has(key string) bool {
	_, ok := o[key]
	return ok
}

func (o rawObject) len() int { return len(o) }

func (o rawObject) keys() []string {
	out := make([]string, 0, len(o))
	for k := range o {
		out = append(out, k)
	}
	return out
}

// rawList is one decoded layer of a rawNode list.
type rawList []json.RawMessage

func (l rawList) len() int        { return len(l) }
func (l rawList) item(i int) node { return rawNode(l[i]) }

// fieldPath is where a node sits: one step (a key or an index) and a link
// to the path of its container. It is a small value that rules pass down;
// it is turned into text ("entry.message.content[1]") only when an error
// needs it.
type fieldPath struct {
	up    *fieldPath // nil for the root
	key   string     // the object key, or the root's name
	index int        // the list index, or -1 for an object key
}

// entryPath is the root of every path: the entry itself.
var entryPath = fieldPath{key: "entry", index: -1}

// field returns the path of the value under key in the object at p.
func (p *fieldPath) field(key string) fieldPath {
	return fieldPath{up: p, key: key, index: -1}
}

// item returns the path of item i of the list at p.
func (p *fieldPath) item(i int) fieldPath {
	return fieldPath{up: p, index: i}
}

// String writes the path as the handout does: .key for an identifier key,
// ["key"] (strconv.Quote) for any other key, [i] for a list item.
func (p fieldPath) String() string { return string(p.appendTo(nil)) }

func (p fieldPath) appendTo(b []byte) []byte {
	switch {
	case p.up == nil:
		return append(b, p.key...)
	case p.index >= 0:
		b = append(p.up.appendTo(b), '[')
		return append(strconv.AppendInt(b, int64(p.index), 10), ']')
	case isIdentifier(p.key):
		return append(append(p.up.appendTo(b), '.'), p.key...)
	default:
		b = append(p.up.appendTo(b), '[')
		return append(strconv.AppendQuote(b, p.key), ']')
	}
}

// fail returns a *FieldError at p.
func (p fieldPath) fail(format string, args ...any) error {
	return &FieldError{Path: p.String(), Problem: fmt.Sprintf(format, args...)}
}

// isIdentifier reports whether key is an ASCII letter, '_' or '$' followed
// by ASCII letters, digits, '_' or '$'.
func isIdentifier(key string) bool {
	for i := 0; i < len(key); i++ {
		c := key[i]
		letter := c == '_' || c == '$' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
		digit := '0' <= c && c <= '9'
		if !letter && !(digit && i > 0) {
			return false
		}
	}
	return key != ""
}

// fields reads one object layer, field by field, in the order a rule asks.
// The first problem sticks: every later read returns the zero value without
// looking, and err reports that first problem. So a rule reads like the
// handout's table and checks err once, at the end.
type fields struct {
	at  fieldPath
	obj object
	err error
}

// openObject starts reading n, which must be an object.
func openObject(n node, at fieldPath) *fields {
	f := &fields{at: at}
	obj, ok := n.object()
	if !ok {
		f.err = at.fail("want an object, got %s", n.describe())
	}
	f.obj = obj
	return f
}

// need reads the required field key with rule.
func need[T any](f *fields, key string, rule func(node, fieldPath) (T, error)) T {
	return read(f, key, true, rule)
}

// optional reads the field key with rule if it is there; an absent field
// is the zero value. A field that is there, even null, must pass rule.
func optional[T any](f *fields, key string, rule func(node, fieldPath) (T, error)) T {
	return read(f, key, false, rule)
}

// read is need or optional: it reads one field of f with rule, unless an
// earlier read failed, and makes a failure stick.
func read[T any](f *fields, key string, required bool, rule func(node, fieldPath) (T, error)) T {
	var zero T
	if f.err != nil {
		return zero
	}
	at := f.at.field(key)
	n, ok := f.obj.field(key)
	if !ok {
		if required {
			f.err = at.fail("missing required field")
		}
		return zero
	}
	v, err := rule(n, at)
	if err != nil {
		f.err = err
		return zero
	}
	return v
}

// only rejects any field whose key is not in known. When there are several,
// it names the first in byte order, so the error does not depend on map
// order.
func (f *fields) only(known ...string) {
	if f.err != nil {
		return
	}
	// Most objects have no unknown field: counting the known ones that are
	// there proves it without listing the keys.
	present := 0
	for _, k := range known {
		if f.obj.has(k) {
			present++
		}
	}
	if present == f.obj.len() {
		return
	}
	var unknown []string
	for _, k := range f.obj.keys() {
		if !slices.Contains(known, k) {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		f.err = f.at.field(slices.Min(unknown)).fail("unknown field")
	}
}

// maxCount is the largest token count: 2^53, the handout's bound. Every
// whole number up to it is exact in a float64 (and a JavaScript number);
// int may be smaller on a 32-bit platform.
const maxCount = min(1<<53, math.MaxInt)

// The rules for one scalar field each.
var (
	entryType  = oneOf(string(EntryMessage), string(EntryMetadata))
	role       = oneOf(string(RoleUser), string(RoleAssistant), string(RoleToolResult))
	stopReason = oneOf(string(StopReasonStop), string(StopReasonLength), string(StopReasonToolUse),
		string(StopReasonError), string(StopReasonAborted))
	textType      = oneOf("text")
	assistantType = oneOf("text", "toolCall")
)

// anyString accepts any string, the empty one included.
func anyString(n node, at fieldPath) (string, error) {
	if s, ok := n.text(); ok {
		return s, nil
	}
	return "", at.fail("want a string, got %s", n.describe())
}

// nonEmpty accepts a string that is not "".
func nonEmpty(n node, at fieldPath) (string, error) {
	s, err := anyString(n, at)
	if err == nil && s == "" {
		err = at.fail("want a non-empty string, got \"\"")
	}
	return s, err
}

// oneOf returns the rule that accepts exactly the strings in choices.
func oneOf(choices ...string) func(node, fieldPath) (string, error) {
	return func(n node, at fieldPath) (string, error) {
		s, err := anyString(n, at)
		if err == nil && !slices.Contains(choices, s) {
			err = at.fail("want one of %q, got %q", choices, s)
		}
		return s, err
	}
}

// parentRef accepts null (a root, returned as "") or a non-empty id.
func parentRef(n node, at fieldPath) (string, error) {
	if n.kind() == kindNull {
		return "", nil
	}
	s, ok := n.text()
	switch {
	case !ok:
		return "", at.fail("want null or a non-empty id, got %s", n.describe())
	case s == "":
		return "", at.fail("want null or a non-empty id, got \"\" (a root has parentId null)")
	}
	return s, nil
}

// finite accepts a finite number: a float64 that is not NaN or ±Inf.
func finite(n node, at fieldPath) (float64, error) {
	if x, ok := n.number(); ok {
		return x, nil
	}
	if n.kind() == kindNumber {
		return 0, at.fail("want a finite number, got %s", n.describe())
	}
	return 0, at.fail("want a number, got %s", n.describe())
}

// count accepts a whole number from 0 to maxCount.
func count(n node, at fieldPath) (int, error) {
	x, err := finite(n, at)
	if err != nil {
		return 0, err
	}
	if x < 0 || x > maxCount || x != math.Trunc(x) {
		return 0, at.fail("want a whole number from 0 to %d, got %v", int64(maxCount), x)
	}
	return int(x), nil
}

// boolean accepts true or false.
func boolean(n node, at fieldPath) (bool, error) {
	if b, ok := n.boolean(); ok {
		return b, nil
	}
	return false, at.fail("want a boolean, got %s", n.describe())
}

// listOf returns the rule that accepts a list whose every item passes rule;
// the result is a new, non-nil slice.
func listOf[T any](rule func(node, fieldPath) (T, error)) func(node, fieldPath) ([]T, error) {
	return func(n node, at fieldPath) ([]T, error) {
		l, ok := n.list()
		if !ok {
			return nil, at.fail("want a list, got %s", n.describe())
		}
		out := make([]T, l.len())
		for i := range out {
			v, err := rule(l.item(i), at.item(i))
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		return out, nil
	}
}

// The rules for content lists.
var (
	textBlocks      = listOf(textBlock)
	assistantBlocks = listOf(assistantBlock)
)

// parseEntry is the rule for a whole entry: the base fields, then the
// fields of its type.
func parseEntry(n node, at fieldPath) (SessionEntry, error) {
	return entryFields(openObject(n, at))
}

// entryFields reads an entry from its object layer.
func entryFields(f *fields) (SessionEntry, error) {
	e := SessionEntry{
		Type:      EntryType(need(f, "type", entryType)),
		ID:        need(f, "id", nonEmpty),
		ParentID:  need(f, "parentId", parentRef),
		Timestamp: need(f, "timestamp", finite),
	}
	switch e.Type {
	case EntryMessage:
		e.Message = need(f, "message", parseMessage)
		f.only("type", "id", "parentId", "timestamp", "message")
	case EntryMetadata:
		e.Key = need(f, "key", nonEmpty)
		e.Value = need(f, "value", jsonValue)
		f.only("type", "id", "parentId", "timestamp", "key", "value")
	}
	if f.err != nil {
		return SessionEntry{}, f.err
	}
	return e, nil
}

// parseMessage is the rule for a complete message, dispatched on its role.
func parseMessage(n node, at fieldPath) (AgentMessage, error) {
	f := openObject(n, at)
	var msg AgentMessage
	switch Role(need(f, "role", role)) {
	case RoleUser:
		msg = &UserMessage{
			Content:   need(f, "content", textBlocks),
			Timestamp: need(f, "timestamp", finite),
		}
		f.only("role", "content", "timestamp")
	case RoleAssistant:
		msg = &AssistantMessage{
			Content:      need(f, "content", assistantBlocks),
			Model:        optional(f, "model", nonEmpty),
			Usage:        optional(f, "usage", parseUsage),
			StopReason:   StopReason(optional(f, "stopReason", stopReason)),
			ErrorMessage: optional(f, "errorMessage", nonEmpty),
			Timestamp:    need(f, "timestamp", finite),
		}
		f.only("role", "content", "model", "usage", "stopReason", "errorMessage", "timestamp")
	case RoleToolResult:
		msg = &ToolResultMessage{
			ToolCallID: need(f, "toolCallId", nonEmpty),
			ToolName:   need(f, "toolName", nonEmpty),
			Content:    need(f, "content", textBlocks),
			Details:    optional(f, "details", details),
			IsError:    need(f, "isError", boolean),
			Timestamp:  need(f, "timestamp", finite),
		}
		f.only("role", "toolCallId", "toolName", "content", "details", "isError", "timestamp")
	}
	if f.err != nil {
		return nil, f.err
	}
	return msg, nil
}

// textBlock is the rule for a block of user or tool result content: text only.
func textBlock(n node, at fieldPath) (TextContent, error) {
	f := openObject(n, at)
	need(f, "type", textType)
	block := TextContent{Text: need(f, "text", anyString)}
	f.only("type", "text")
	if f.err != nil {
		return TextContent{}, f.err
	}
	return block, nil
}

// assistantBlock is the rule for a block of assistant content: text or a
// tool call.
func assistantBlock(n node, at fieldPath) (AssistantContent, error) {
	f := openObject(n, at)
	var block AssistantContent
	switch need(f, "type", assistantType) {
	case "text":
		block = TextContent{Text: need(f, "text", anyString)}
		f.only("type", "text")
	case "toolCall":
		block = ToolCall{
			ID:        need(f, "id", nonEmpty),
			Name:      need(f, "name", nonEmpty),
			Arguments: need(f, "arguments", jsonObject),
		}
		f.only("type", "id", "name", "arguments")
	}
	if f.err != nil {
		return nil, f.err
	}
	return block, nil
}

// parseUsage is the rule for the token counts of an assistant message.
func parseUsage(n node, at fieldPath) (*Usage, error) {
	f := openObject(n, at)
	u := &Usage{
		Input:       need(f, "input", count),
		Output:      need(f, "output", count),
		TotalTokens: need(f, "totalTokens", count),
	}
	f.only("input", "output", "totalTokens")
	if f.err != nil {
		return nil, f.err
	}
	return u, nil
}

// details is the rule for tool result details: any JSON value but null,
// which would not survive a round trip (leave the field out instead).
func details(n node, at fieldPath) (any, error) {
	if n.kind() == kindNull {
		return nil, at.fail("want a JSON value other than null (leave details out instead)")
	}
	return jsonValue(n, at)
}

// jsonObject is the rule for tool call arguments: a JSON object of JSON
// values.
func jsonObject(n node, at fieldPath) (map[string]any, error) {
	if n.kind() != kindObject {
		return nil, at.fail("want a JSON object, got %s", n.describe())
	}
	v, err := jsonValue(n, at)
	if err != nil {
		return nil, err
	}
	return v.(map[string]any), nil
}

// jsonValue is the rule for metadata values, details and arguments: a JSON
// value all the way down, returned as a new copy.
func jsonValue(n node, at fieldPath) (any, error) {
	if d, ok := n.(oneShot); ok {
		if v, ok := d.decodeValue(); ok {
			return v, nil
		}
	}
	return copyJSON(n, at, nil)
}

// oneShot is a node that can decode a whole JSON value in one pass, when
// that pass alone proves the value is JSON. A node that cannot, or whose
// pass fails, is walked by copyJSON, which names the path of the problem.
type oneShot interface {
	decodeValue() (any, bool)
}

// copyJSON checks n and everything inside it and builds a new Go copy.
// inside holds the containers n is inside of, and only those: each call
// appends to its own view of the slice, so siblings (which reuse the same
// slot) never see each other, and meeting an entry of inside again is a
// cycle. The keys of an object are visited in sorted order, so the problem
// reported does not depend on map order. A nil []any or map[string]any
// comes back empty and non-nil, so the copy writes [] or {} to disk and
// reads back equal.
func copyJSON(n node, at fieldPath, inside []ContainerID) (any, error) {
	switch n.kind() {
	case kindNull:
		return nil, nil
	case kindBool:
		b, _ := n.boolean()
		return b, nil
	case kindString:
		s, _ := n.text()
		return s, nil
	case kindNumber:
		return finite(n, at)
	case kindList, kindObject:
		if id, ok := n.identity(); ok {
			if slices.Contains(inside, id) {
				return nil, at.fail("cycle: this value contains itself")
			}
			inside = append(inside, id)
		}
		if l, ok := n.list(); ok {
			out := make([]any, l.len())
			for i := range out {
				v, err := copyJSON(l.item(i), at.item(i), inside)
				if err != nil {
					return nil, err
				}
				out[i] = v
			}
			return out, nil
		}
		if obj, ok := n.object(); ok {
			keys := obj.keys()
			slices.Sort(keys)
			out := make(map[string]any, len(keys))
			for _, k := range keys {
				item, _ := obj.field(k)
				v, err := copyJSON(item, at.field(k), inside)
				if err != nil {
					return nil, err
				}
				out[k] = v
			}
			return out, nil
		}
	}
	return nil, at.fail("not a JSON value: %s", n.describe())
}

// ---- 10.3 -----------------------------------------------------------------

// turns runs the turns of one store (closures) one at a time, in the order
// they were queued. It keeps no goroutine while idle: the call that finds
// the queue idle starts one, which runs turns until the queue is empty and
// then ends. Finished turns are counted, and a caller that must see the
// effect of its own turn waits for the count on a sync.Cond. The zero value
// is ready to use.
//
// Everything a turn touches is owned by the sequence of turns: two turns
// never run at once, and each starts after the previous one finished (the
// mutex orders them even when two draining goroutines follow each other).
type turns struct {
	mu       sync.Mutex
	ran      sync.Cond // broadcast each time a turn has finished; L is &mu
	queue    []func()
	draining bool   // a goroutine is running the queue
	queued   uint64 // turns ever queued
	finished uint64 // turns ever finished
}

// add queues turn after every turn queued before it and returns at once
// with the turn's number, counting from 1.
func (t *turns) add(turn func()) uint64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.ran.L == nil {
		t.ran.L = &t.mu
	}
	t.queue = append(t.queue, turn)
	t.queued++
	if !t.draining {
		t.draining = true
		go t.drain()
	}
	return t.queued
}

// drain runs queued turns until none is left.
func (t *turns) drain() {
	t.mu.Lock()
	for len(t.queue) > 0 {
		turn := t.queue[0]
		t.queue[0] = nil
		t.queue = t.queue[1:]
		t.mu.Unlock()
		turn()
		t.mu.Lock()
		t.finished++
		t.ran.Broadcast()
	}
	t.queue = nil
	t.draining = false
	t.mu.Unlock()
}

// do queues turn and waits until it has run.
func (t *turns) do(turn func()) {
	n := t.add(turn)
	t.mu.Lock()
	for t.finished < n {
		t.ran.Wait()
	}
	t.mu.Unlock()
}

// sessionLog is what a store has committed, in commit order, with the set
// of committed IDs. Only turns touch it.
type sessionLog struct {
	entries []SessionEntry
	ids     map[string]bool
}

// admit checks e against what is committed now: a new ID, and a parent
// that is already there.
func (l *sessionLog) admit(e SessionEntry) error {
	if l.ids[e.ID] {
		return &DuplicateIDError{ID: e.ID}
	}
	if !e.IsRoot() && !l.ids[e.ParentID] {
		return &MissingParentError{ChildID: e.ID, ParentID: e.ParentID}
	}
	return nil
}

// commit adds e, which the log now owns.
func (l *sessionLog) commit(e SessionEntry) {
	if l.ids == nil {
		l.ids = make(map[string]bool)
	}
	l.ids[e.ID] = true
	l.entries = append(l.entries, e)
}

// copies returns a deep copy of every committed entry.
func (l *sessionLog) copies() []SessionEntry {
	out := make([]SessionEntry, len(l.entries))
	for i, e := range l.entries {
		out[i] = e.Clone()
	}
	return out
}

// InMemorySessionStore keeps committed entries in memory. Appends complete in
// call order, one at a time. It is safe for use by several goroutines.
//
// The zero value is an empty store.
type InMemorySessionStore struct {
	turns turns
	log   sessionLog // touched only by turns
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
	s.turns.add(func() {
		err := s.log.admit(snapshot)
		if err == nil {
			s.log.commit(snapshot)
		}
		p.Resolve(err)
	})
	return p
}

// Entries returns a deep copy of the committed entries in commit order,
// after every Append called before it has completed.
func (s *InMemorySessionStore) Entries() ([]SessionEntry, error) {
	var out []SessionEntry
	s.turns.do(func() { out = s.log.copies() })
	return out, nil
}

// ---- 10.4 -----------------------------------------------------------------

// RecoverJSONL reads the text of a session file. A line counts only once it
// ends in "\n": a last line without one is not parsed and is reported as a
// WarnUnterminatedTail warning, unless it is blank. Blank lines (nothing but
// spaces, tabs and "\r") are skipped but counted. The
// first committed line that is not a valid entry stops recovery with a
// *LineError naming its 1-based line. It writes nothing.
//
// Decisions (see the handout): "\r" is JSON whitespace, so CRLF lines
// recover like LF lines and a line of only spaces, tabs and "\r" is blank; a
// UTF-8 byte order mark is not stripped, so it makes its line bad; a last
// line of only that whitespace without "\n" is blank, not a tail.
func RecoverJSONL(text string) (Recovery, error) {
	rec, _, err := recoverLines([]byte(text))
	return rec, err
}

// recoverLines is RecoverJSONL over bytes the caller no longer uses. It also
// returns the line of each entry, which opening a store needs to name the
// line of a broken tree.
func recoverLines(data []byte) (Recovery, []int, error) {
	var (
		rec   Recovery
		lines []int
	)
	for line := 1; len(data) > 0; line++ {
		end := bytes.IndexByte(data, '\n')
		if end < 0 {
			if !isBlank(data) {
				rec.Warnings = append(rec.Warnings, Warning{Code: WarnUnterminatedTail, Line: line})
			}
			break
		}
		text := data[:end]
		data = data[end+1:]
		if isBlank(text) {
			continue
		}
		e, err := decodeLine(text)
		if err != nil {
			return Recovery{}, nil, &LineError{Line: line, Err: err}
		}
		rec.Entries = append(rec.Entries, e)
		lines = append(lines, line)
	}
	return rec, lines, nil
}

// jsonSpace is the whitespace JSON allows around a value.
const jsonSpace = " \t\r\n"

// isBlank reports whether a line holds only spaces, tabs and "\r".
func isBlank(line []byte) bool {
	return len(bytes.Trim(line, jsonSpace)) == 0
}

// decodeLine narrows one committed line into an entry. Its first layer is
// decoded into a map[string]json.RawMessage, and json.Unmarshal checks the
// syntax of the whole line before it decodes anything: a line that is not
// JSON fails with encoding/json's own *json.SyntaxError before any rule
// runs, and every rawNode below is valid JSON. A line that is JSON but not
// an object (null, a list, a string...) is handed to the entry rule as it
// is, which rejects it at "entry" like any other non-object.
func decodeLine(line []byte) (SessionEntry, error) {
	var top map[string]json.RawMessage
	err := json.Unmarshal(line, &top)
	var notObject *json.UnmarshalTypeError
	switch {
	case err == nil && top != nil:
		return entryFields(&fields{at: entryPath, obj: rawObject(top)})
	case err == nil || errors.As(err, &notObject):
		return parseEntry(rawNode(bytes.Trim(line, jsonSpace)), entryPath)
	default:
		return SessionEntry{}, err
	}
}

// ---- 10.5 -----------------------------------------------------------------

// JSONLSessionStore appends entries to one JSONL file through a FileIO, in
// call order, and stops for good after a failed write. It assumes it is the
// only writer of the file.
type JSONLSessionStore struct {
	fileIO FileIO
	path   string
	// repair is set at open when the file ends in an unterminated tail,
	// and warnings holds what recovery said; neither changes after.
	repair   *NeedsRepairError
	warnings []Warning

	turns  turns
	log    sessionLog // touched only by turns
	failed error      // the first failed write, which taints the store; touched only by turns
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
	s := &JSONLSessionStore{fileIO: fileIO, path: path}
	data, err := fileIO.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return s, nil
	case err != nil:
		return nil, fmt.Errorf("open session %s: %w", path, err)
	}
	rec, lines, err := recoverLines(data)
	if err != nil {
		return nil, fmt.Errorf("open session %s: %w", path, err)
	}
	// The same admission as an append's turn, line by line: the file must
	// be a tree this store could have written.
	for i, e := range rec.Entries {
		if err := s.log.admit(e); err != nil {
			return nil, fmt.Errorf("open session %s: %w", path, &LineError{Line: lines[i], Err: err})
		}
		s.log.commit(e)
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
	s.turns.add(func() { p.Resolve(s.write(snapshot, line)) })
	return p
}

// write is the turn of one append: refuse without I/O if the file needs
// repair, the writer is tainted, or the entry does not fit what is
// committed; otherwise append the line fixed at call time.
func (s *JSONLSessionStore) write(e SessionEntry, line []byte) error {
	switch {
	case s.repair != nil:
		return &NeedsRepairError{Path: s.repair.Path, Line: s.repair.Line}
	case s.failed != nil:
		return &TaintedError{Err: s.failed}
	}
	if err := s.log.admit(e); err != nil {
		return err
	}
	if err := s.fileIO.AppendFile(s.path, line); err != nil {
		s.failed = err
		return err
	}
	s.log.commit(e)
	return nil
}

// Entries returns a deep copy of the committed entries, after every Append
// called before it has completed, or the *TaintedError of a failed write.
func (s *JSONLSessionStore) Entries() ([]SessionEntry, error) {
	var (
		out []SessionEntry
		err error
	)
	s.turns.do(func() {
		if s.failed != nil {
			err = &TaintedError{Err: s.failed}
			return
		}
		out = s.log.copies()
	})
	return out, err
}

// Warnings returns a copy of what recovery reported when the store was
// opened: the unterminated tail of a file that needs repair, and so why
// every Append is refused. It is empty for a healthy or missing file.
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
	out := make([]AgentMessage, 0, len(chain))
	for _, i := range chain {
		if e := entries[i]; e.Type == EntryMessage && e.Message != nil {
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
//
// It works on bytes: the file splits at its last "\n" into the committed
// part and the tail, and only the committed part is recovered (the same
// lines RecoverJSONL would check, with the same line numbers).
func RepairUnterminatedTail(fsys RepairFS, path string) (RepairResult, error) {
	data, err := fsys.ReadFile(path)
	if err != nil {
		return RepairResult{}, fmt.Errorf("repair %s: %w", path, err)
	}
	committed, tail := data[:bytes.LastIndexByte(data, '\n')+1], data[bytes.LastIndexByte(data, '\n')+1:]
	rec, _, err := recoverLines(bytes.Clone(committed))
	if err != nil {
		return RepairResult{}, fmt.Errorf("repair %s: a committed line is bad, and cutting the tail would not fix it: %w", path, err)
	}
	res := RepairResult{Entries: len(rec.Entries)}
	if isBlank(tail) { // a blank last line is not a tail: nothing to cut
		return res, nil
	}
	res.TailLine = bytes.Count(committed, []byte{'\n'}) + 1
	res.RemovedBytes = len(tail)
	if res.BackupPath, err = newBackup(fsys, path, data); err != nil {
		return RepairResult{}, fmt.Errorf("repair %s: writing the backup failed, nothing changed: %w", path, err)
	}
	if err := replaceFile(fsys, path, committed); err != nil {
		return RepairResult{}, &RepairError{Path: path, Backup: res.BackupPath, Err: err}
	}
	return res, nil
}

// newBackup creates the first path+".bak-<n>" that does not exist yet,
// holding data, and returns its name.
func newBackup(fsys RepairFS, path string, data []byte) (string, error) {
	var err error
	for n := 1; n <= 1<<16; n++ {
		name := fmt.Sprintf("%s.bak-%d", path, n)
		if err = fsys.WriteNewFile(name, data, RepairFileMode); !errors.Is(err, fs.ErrExist) {
			return name, err
		}
	}
	return "", err
}

// replaceFile puts content in place of path: written to path+".new", then
// renamed over path. On failure the new file is removed and path is as it
// was.
func replaceFile(fsys RepairFS, path string, content []byte) (err error) {
	tmp := path + ".new"
	defer func() {
		if err != nil {
			_ = fsys.Remove(tmp)
		}
	}()
	if err = fsys.WriteFile(tmp, content, RepairFileMode); err != nil {
		return err
	}
	return fsys.Rename(tmp, path)
}
