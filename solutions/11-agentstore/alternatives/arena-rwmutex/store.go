// Package agentstore is chapter 11's lab: the session store a teaching agent
// uses while it runs. One JSONL file, a header line, then entries that are
// appended and never rewritten; a current leaf; branches; compaction that
// adds a summary instead of deleting history; and an atomic reset.
//
// This alternative keeps the tree as an arena: entries live in a slice in
// file order, each with the position of its parent, and an id → position
// map finds them. Walking a branch is walking integers. Readers share a
// sync.RWMutex; every write path holds it exclusively.
package agentstore

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"sync"
)

// notImplemented is the error of a function you have not written yet.
func notImplemented(exercise, name string) error {
	return fmt.Errorf("Lab %s: %s: %w", exercise, name, ErrNotImplemented)
}

// noNode marks "no position": a root's parent, or an empty session's leaf.
const noNode = -1

// node is one entry of the arena and where its parent is.
type node struct {
	entry  Entry
	parent int
}

// ---- 11.1 -----------------------------------------------------------------

// Store is one session file, open for an agent. Every method is safe for use
// by several goroutines at once.
type Store struct {
	mu   sync.RWMutex
	opts Options

	header Header
	nodes  []node         // every entry, in file order
	byID   map[string]int // id → position in nodes
	leaf   int            // position of the leaf, or noNode

	tailLine int   // the line of an unterminated tail found by Open, 0 if none
	broken   error // the error of the first failed write, nil if none
}

// Open opens the session file opts.Path. A missing or empty file becomes a
// new session: its header line is written to TempPath(opts.Path) and renamed
// over the path. An existing file is only read: its first committed line is
// the header, every later committed line an entry, indexed by id; the leaf
// is the last entry. A last line without "\n" was never committed: it is
// left out, and the store refuses to write after it. Any committed line it
// cannot accept is a *LineError naming the path and the line.
func Open(opts Options) (*Store, error) {
	data, err := opts.FS.ReadFile(opts.Path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	s := &Store{opts: opts}
	s.clear()
	if len(data) == 0 {
		h := s.freshHeader()
		if err := s.installHeader(h); err != nil {
			return nil, err
		}
		s.header = h
		return s, nil
	}
	if err := s.load(data); err != nil {
		return nil, err
	}
	return s, nil
}

// clear empties the tree.
func (s *Store) clear() {
	s.nodes = nil
	s.byID = map[string]int{}
	s.leaf = noNode
	s.tailLine = 0
	s.broken = nil
}

// freshHeader makes the header of a new session.
func (s *Store) freshHeader() Header {
	return Header{
		Version:   CurrentVersion,
		ID:        s.opts.NewSessionID(),
		Timestamp: s.opts.Now().UTC().Format(TimeFormat),
		Cwd:       s.opts.Cwd,
	}
}

// installHeader puts a file holding only h at the path: written beside it,
// then renamed over it in one step. On failure the temporary file is removed.
func (s *Store) installHeader(h Header) error {
	tmp := TempPath(s.opts.Path)
	if err := s.opts.FS.WriteFile(tmp, EncodeHeader(h)); err != nil {
		_ = s.opts.FS.Remove(tmp)
		return err
	}
	if err := s.opts.FS.Rename(tmp, s.opts.Path); err != nil {
		_ = s.opts.FS.Remove(tmp)
		return err
	}
	return nil
}

// isBlank reports whether a line holds only spaces, tabs and "\r".
func isBlank(line []byte) bool {
	return len(bytes.Trim(line, " \t\r")) == 0
}

// load fills the store from the text of an existing file.
func (s *Store) load(data []byte) error {
	fail := func(n int, err error) error {
		return &LineError{Path: s.opts.Path, Line: n, Err: err}
	}
	haveHeader := false
	n := 0
	for rest := data; len(rest) > 0; {
		n++
		line, after, committed := bytes.Cut(rest, []byte("\n"))
		if !committed {
			s.tailLine = n
			break
		}
		rest = after
		if isBlank(line) {
			continue
		}
		if !haveHeader {
			h, err := DecodeHeader(line)
			if err != nil {
				return fail(n, err)
			}
			if h.Version > CurrentVersion {
				return fail(n, &VersionError{Version: h.Version})
			}
			s.header, haveHeader = h, true
			continue
		}
		if s.header.Version < CurrentVersion {
			up, err := s.migrateLine(line)
			if err != nil {
				return fail(n, err)
			}
			line = up
		}
		e, err := DecodeEntry(line)
		if err != nil {
			return fail(n, err)
		}
		if err := s.link(e); err != nil {
			return fail(n, err)
		}
	}
	if !haveHeader {
		// Text, but no committed header line: blank lines only, or a header
		// that was never finished. Either way it is not a session, and the
		// header it lacks belongs at line 1.
		return fail(1, ErrNoHeader) // the sentinel itself, as the handout names it
	}
	return nil
}

// migrateLine reads a line of a version-1 or version-2 file as version 3,
// in memory. Version 1 had no ids: the entries are numbered in file order,
// "v1-1", "v1-2", ..., each the child of the one before it.
func (s *Store) migrateLine(line []byte) ([]byte, error) {
	id, parent := fmt.Sprintf("v1-%d", len(s.nodes)+1), s.leafID()
	return UpgradeLine(line, s.header.Version, id, parent, func(k int) string {
		if k >= 1 && k <= len(s.nodes) {
			return s.nodes[k-1].entry.ID
		}
		return ""
	})
}

// link checks e against the entries before it and adds it as the leaf.
func (s *Store) link(e Entry) error {
	if _, taken := s.byID[e.ID]; taken {
		return &DuplicateIDError{ID: e.ID}
	}
	parent := noNode
	if e.ParentID != "" {
		p, ok := s.byID[e.ParentID]
		if !ok {
			return &MissingParentError{ChildID: e.ID, ParentID: e.ParentID}
		}
		parent = p
	}
	if e.Type == TypeCompaction && !s.isAncestor(parent, e.FirstKeptEntryID) {
		return &KeptEntryError{CompactionID: e.ID, FirstKeptEntryID: e.FirstKeptEntryID}
	}
	s.nodes = append(s.nodes, node{entry: e, parent: parent})
	s.leaf = len(s.nodes) - 1
	s.byID[e.ID] = s.leaf
	return nil
}

// isAncestor reports whether id is at position from or above it.
func (s *Store) isAncestor(from int, id string) bool {
	for at := from; at != noNode; at = s.nodes[at].parent {
		if s.nodes[at].entry.ID == id {
			return true
		}
	}
	return false
}

// Header returns the session's header.
func (s *Store) Header() Header {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.header
}

// Leaf returns the id of the current leaf: the entry the next append will
// follow, or "" when the session has no entry yet.
func (s *Store) Leaf() string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.leafID()
}

func (s *Store) leafID() string {
	if s.leaf == noNode {
		return ""
	}
	return s.nodes[s.leaf].entry.ID
}

// Entry returns a copy of the entry with id, and whether there is one.
func (s *Store) Entry(id string) (Entry, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	at, ok := s.byID[id]
	if !ok {
		return Entry{}, false
	}
	return s.nodes[at].entry.Clone(), true
}

// ---- 11.2 -----------------------------------------------------------------

// AppendMessage appends message as a new entry whose parent is the current
// leaf, moves the leaf to it and returns its id. The message is checked and
// copied now (ParseMessage; the roles RoleCompactionSummary and
// RoleBranchSummary, which only a built context holds, are refused). The
// entry is one new line at the end of the file: nothing is ever rewritten.
// A store opened with an unterminated tail refuses with a
// *NeedsRepairError; after a failed write it refuses every write with a
// *TaintedError.
func (s *Store) AppendMessage(message Message) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, err := ParseMessage(message)
	if err != nil {
		return "", err
	}
	if r := m.Role(); r == RoleCompactionSummary || r == RoleBranchSummary {
		return "", fmt.Errorf("%w: a %q message exists only in a built context", ErrReservedRole, r)
	}
	if err := s.writable(); err != nil {
		return "", err
	}
	return s.commit(Entry{Type: TypeMessage, Message: m})
}

// writable says why the store may not write now, or nil.
func (s *Store) writable() error {
	if s.tailLine > 0 {
		return &NeedsRepairError{Path: s.opts.Path, Line: s.tailLine}
	}
	if s.broken != nil {
		return &TaintedError{Err: s.broken}
	}
	if v := s.header.Version; v < CurrentVersion {
		return &MigratedError{Path: s.opts.Path, Version: v}
	}
	return nil
}

// freeID asks NewEntryID for an id that is neither empty nor taken.
func (s *Store) freeID() (string, error) {
	for i := 0; i < MaxIDAttempts; i++ {
		id := s.opts.NewEntryID()
		if _, taken := s.byID[id]; id != "" && !taken {
			return id, nil
		}
	}
	return "", fmt.Errorf("%w: %d ids asked for, all empty or taken", ErrNoFreeID, MaxIDAttempts)
}

// commit gives e an id, a parent (the leaf) and a timestamp, appends its
// line and, once it is written, adds it to the tree as the new leaf. The
// caller holds the write lock and has checked writable.
func (s *Store) commit(e Entry) (string, error) {
	id, err := s.freeID()
	if err != nil {
		return "", err
	}
	e.ID = id
	e.ParentID = s.leafID()
	e.Timestamp = s.opts.Now().UTC().Format(TimeFormat)
	line, err := EncodeEntry(e)
	if err != nil {
		return "", err
	}
	if err := s.opts.FS.AppendFile(s.opts.Path, line); err != nil {
		s.broken = err
		return "", err
	}
	s.nodes = append(s.nodes, node{entry: e, parent: s.leaf})
	s.leaf = len(s.nodes) - 1
	s.byID[id] = s.leaf
	return id, nil
}

// ---- 11.3 -----------------------------------------------------------------

// PathToLeaf returns the entries from the root of the current branch to the
// leaf, root first, as copies. It is empty when there is no leaf.
func (s *Store) PathToLeaf() []Entry {
	s.mu.RLock()
	defer s.mu.RUnlock()
	branch := s.branch()
	out := make([]Entry, len(branch))
	for i, at := range branch {
		out[i] = s.nodes[at].entry.Clone()
	}
	return out
}

// branch returns the positions from the root to the leaf, root first.
func (s *Store) branch() []int {
	var up []int
	for at := s.leaf; at != noNode; at = s.nodes[at].parent {
		up = append(up, at)
	}
	for i, j := 0, len(up)-1; i < j; i, j = i+1, j-1 {
		up[i], up[j] = up[j], up[i]
	}
	return up
}

// view is what the model sees of the current branch: the latest compaction
// on it (noNode if none) and the positions of the entries whose messages
// follow its summary (or all of them, without a compaction).
type view struct {
	compaction int
	messages   []int
}

// currentView works out the view of the current branch.
func (s *Store) currentView() view {
	branch := s.branch()
	v := view{compaction: noNode}
	from := 0
	for i := len(branch) - 1; i >= 0; i-- {
		c := s.nodes[branch[i]].entry
		if c.Type != TypeCompaction {
			continue
		}
		v.compaction = branch[i]
		// Open and CompactIfNeeded make sure the kept entry is an ancestor.
		from = i
		for j := i - 1; j >= 0; j-- {
			if s.nodes[branch[j]].entry.ID == c.FirstKeptEntryID {
				from = j
				break
			}
		}
		break
	}
	for _, at := range branch[from:] {
		if said(s.nodes[at].entry) != nil {
			v.messages = append(v.messages, at)
		}
	}
	return v
}

// said is the message an entry puts into the context, or nil: a message
// entry's own, and pi's messages for a branch summary that says something
// and for an extension's custom message.
func said(e Entry) Message {
	switch e.Type {
	case TypeMessage:
		return e.Message
	case TypeBranchSummary:
		if e.Summary == "" {
			return nil
		}
		return BranchSummaryMessage(e)
	case TypeCustomMessage:
		return CustomMessage(e)
	}
	return nil
}

// context builds the messages of v, as copies.
func (s *Store) context(v view) []Message {
	out := make([]Message, 0, len(v.messages)+1)
	if v.compaction != noNode {
		out = append(out, CompactionSummaryMessage(s.nodes[v.compaction].entry))
	}
	for _, at := range v.messages {
		out = append(out, bytes.Clone(said(s.nodes[at].entry)))
	}
	return out
}

// BuildContext returns what the model sees for the current branch, as
// copies: the messages of the message entries from the root to the leaf.
// When a compaction is on the branch (exercise 11.5), the latest one stands
// for everything before the entry it keeps from: its
// CompactionSummaryMessage comes first, then the messages from its
// FirstKeptEntryID up to it, then the messages after it.
func (s *Store) BuildContext() []Message {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.context(s.currentView())
}

// ---- 11.4 -----------------------------------------------------------------

// SwitchLeaf makes the entry id the current leaf, so that the next append
// starts a new branch under it. It writes nothing: every branch stays in
// the file. An unknown id is an *UnknownEntryError and the leaf stays.
func (s *Store) SwitchLeaf(id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	at, ok := s.byID[id]
	if !ok {
		return &UnknownEntryError{ID: id}
	}
	s.leaf = at
	return nil
}

// ---- 11.5 -----------------------------------------------------------------

// EstimateTokens is the store's token estimate: for each message, the bytes
// of its JSON divided by 4 and rounded up; the sum over the messages.
func EstimateTokens(messages []Message) int {
	total := 0
	for _, m := range messages {
		total += (len(m) + 3) / 4
	}
	return total
}

// CompactIfNeeded appends a compaction entry when the current context is
// over budget. The budget is EstimateTokens(BuildContext()): at or under
// maxApproxTokens, or with no more than keepRecent messages in the context,
// nothing happens and the result is "". Otherwise the last keepRecent
// messages are kept, the ones before them are summarized with
// Options.Summarize, and a compaction entry (summary, firstKeptEntryId,
// tokensBefore) is appended under the leaf like any entry; the leaf moves to
// it and its id is returned. keepRecent must be at least 1.
func (s *Store) CompactIfNeeded(maxApproxTokens, keepRecent int) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if keepRecent < 1 {
		return "", fmt.Errorf("%w: keepRecent is %d, it must be at least 1", ErrInvalidArgument, keepRecent)
	}
	v := s.currentView()
	tokensBefore := EstimateTokens(s.context(v))
	if tokensBefore <= maxApproxTokens || len(v.messages) <= keepRecent {
		return "", nil
	}
	if err := s.writable(); err != nil {
		return "", err
	}
	cut := len(v.messages) - keepRecent
	older := make([]Message, cut)
	for i, at := range v.messages[:cut] {
		older[i] = bytes.Clone(said(s.nodes[at].entry))
	}
	previous := ""
	if v.compaction != noNode {
		previous = s.nodes[v.compaction].entry.Summary
	}
	summary, err := s.opts.Summarize(previous, older)
	if err != nil {
		return "", err
	}
	return s.commit(Entry{
		Type:             TypeCompaction,
		Summary:          summary,
		FirstKeptEntryID: s.nodes[v.messages[cut]].entry.ID,
		TokensBefore:     tokensBefore,
	})
}

// ---- 11.6 -----------------------------------------------------------------

// Reset starts a fresh session in the same file, atomically. The old file is
// first kept, byte for byte, at ArchivePath(path, old session id); then a
// new header (a new session id, Now, Options.Cwd) is written to
// TempPath(path) and renamed over the path, so a crash at any point leaves
// the old file or the new one there, never a part of either. After it the
// store is empty, its leaf "", and it may write again. A failed Reset
// changes nothing: the old file and the store stay as they were.
func (s *Store) Reset() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	fsys, path := s.opts.FS, s.opts.Path
	old, err := fsys.ReadFile(path)
	if err == nil {
		err = fsys.WriteFile(ArchivePath(path, s.header.ID), old)
	}
	if err != nil {
		_ = fsys.Remove(TempPath(path)) // a leftover of an earlier attempt
		return err
	}
	h := s.freshHeader()
	if err := s.installHeader(h); err != nil {
		return err
	}
	s.clear()
	s.header = h
	return nil
}

// ---- 11.7 (optional) ------------------------------------------------------

// SessionContext returns what pi's buildSessionContext gives for the current
// leaf, as copies: BuildContext's messages, the thinking level of the last
// thinking_level_change on the path (ThinkingLevelOff without one), and the
// model of the last model_change or assistant message on the path (nil
// without one).
func (s *Store) SessionContext() SessionContext {
	s.mu.RLock()
	defer s.mu.RUnlock()
	branch := s.branch()
	sc := SessionContext{Messages: s.context(s.currentView()), ThinkingLevel: ThinkingLevelOff}
	// The settings are the last ones said anywhere on the branch, before a
	// compaction too: walk it from the leaf up and stop at the first of each.
	level, model := false, false
	for i := len(branch) - 1; i >= 0 && !(level && model); i-- {
		e := s.nodes[branch[i]].entry
		switch {
		case !level && e.Type == TypeThinkingLevelChange:
			sc.ThinkingLevel, level = e.ThinkingLevel, true
		case !model && e.Type == TypeModelChange:
			sc.Model, model = &Model{Provider: e.Provider, ModelID: e.ModelID}, true
		case !model && e.Type == TypeMessage && e.Message.Role() == "assistant":
			m := e.Message.Model()
			sc.Model, model = &m, true
		}
	}
	return sc
}
