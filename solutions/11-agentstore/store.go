// Package agentstore is chapter 11's lab: the session store a teaching agent
// uses while it runs. One JSONL file, a header line, then entries that are
// appended and never rewritten; a current leaf; branches; compaction that
// adds a summary instead of deleting history; and an atomic reset.
//
// This is the reference solution: a drop-in replacement for the stub
// store.go of a lab 11 workspace.
package agentstore

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"sync"
)

// ---- 11.1 -----------------------------------------------------------------

// Store is one session file, open for an agent. Every method is safe for use
// by several goroutines at once.
type Store struct {
	mu   sync.Mutex
	opts Options

	header  Header
	entries []Entry        // in file order
	byID    map[string]int // id -> index in entries
	leaf    string         // "" before the first entry

	tailLine int   // line of an unterminated tail found at open; 0 if none
	tainted  error // the first failed write; every later write is refused
}

// migrated reports whether the file is of an older version, read by
// migrating its lines in memory: such a store never writes.
func (s *Store) migrated() bool { return s.header.Version < CurrentVersion }

// Open opens the session file opts.Path. A missing or empty file becomes a
// new session: its header line is written to TempPath(opts.Path) and renamed
// over the path. An existing file is only read: its first committed line is
// the header, every later committed line an entry, indexed by id; the leaf
// is the last entry. A last line without "\n" was never committed: it is
// left out, and the store refuses to write after it. Any committed line it
// cannot accept is a *LineError naming the path and the line. Files of pi's
// versions 1 and 2 open by migrating their lines in memory; the file is
// never rewritten, and the store does not write to it.
func Open(opts Options) (*Store, error) {
	s := &Store{opts: opts, byID: map[string]int{}}
	data, err := opts.FS.ReadFile(opts.Path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("open session %s: %w", opts.Path, err)
	}
	if len(data) == 0 {
		h := s.newHeader()
		if err := s.install(EncodeHeader(h)); err != nil {
			return nil, fmt.Errorf("create session %s: %w", opts.Path, err)
		}
		s.header = h
		return s, nil
	}
	if err := s.load(data); err != nil {
		return nil, err
	}
	return s, nil
}

// newHeader makes the header of a new session.
func (s *Store) newHeader() Header {
	return Header{
		Version:   CurrentVersion,
		ID:        s.opts.NewSessionID(),
		Timestamp: s.now(),
		Cwd:       s.opts.Cwd,
	}
}

func (s *Store) now() string {
	return s.opts.Now().UTC().Format(TimeFormat)
}

// install makes data the whole session file in one step: it is written
// beside the path and renamed over it, so that the path holds the old file
// or the new one and never a part of either. On failure the temporary file
// is removed and the path is as it was.
func (s *Store) install(data []byte) error {
	tmp := TempPath(s.opts.Path)
	if err := s.opts.FS.WriteFile(tmp, data); err != nil {
		_ = s.opts.FS.Remove(tmp)
		return err
	}
	if err := s.opts.FS.Rename(tmp, s.opts.Path); err != nil {
		_ = s.opts.FS.Remove(tmp)
		return err
	}
	return nil
}

// load rebuilds the header, the index and the leaf from the file's text.
// The lines of an older version are upgraded in memory first, as pi's
// migration would: a version-1 entry gets the id of its line and the entry
// line before it as its parent.
func (s *Store) load(text []byte) error {
	lineErr := func(line int, err error) error {
		return &LineError{Path: s.opts.Path, Line: line, Err: err}
	}
	haveHeader := false
	for n := 1; len(text) > 0; n++ {
		end := bytes.IndexByte(text, '\n')
		if end < 0 {
			// No newline: this line was never committed. Leave it out.
			s.tailLine = n
			break
		}
		line := text[:end]
		text = text[end+1:]
		if len(bytes.Trim(line, " \t\r")) == 0 {
			continue
		}
		if !haveHeader {
			h, err := DecodeHeader(line)
			if err != nil {
				return lineErr(n, err)
			}
			if h.Version > CurrentVersion {
				return lineErr(n, &VersionError{Version: h.Version})
			}
			s.header, haveHeader = h, true
			continue
		}
		if s.migrated() {
			var err error
			if line, err = s.upgrade(line, n); err != nil {
				return lineErr(n, err)
			}
		}
		e, err := DecodeEntry(line)
		if err != nil {
			return lineErr(n, err)
		}
		if _, dup := s.byID[e.ID]; dup {
			return lineErr(n, &DuplicateIDError{ID: e.ID})
		}
		if _, ok := s.byID[e.ParentID]; !e.IsRoot() && !ok {
			return lineErr(n, &MissingParentError{ChildID: e.ID, ParentID: e.ParentID})
		}
		if e.Type == TypeCompaction && !s.isAncestor(e.FirstKeptEntryID, e.ParentID) {
			return lineErr(n, &KeptEntryError{CompactionID: e.ID, FirstKeptEntryID: e.FirstKeptEntryID})
		}
		s.add(e)
		s.leaf = e.ID // the last entry line is the leaf
	}
	if !haveHeader {
		return lineErr(1, ErrNoHeader)
	}
	return nil
}

// upgrade makes the entry line on line n of an older file a version-3 line.
// A version-1 file has no ids: each entry takes the id of its line, the
// same on every Open, and the entry line before it is its parent.
func (s *Store) upgrade(line []byte, n int) ([]byte, error) {
	id, parent := fmt.Sprintf("line-%d", n), ""
	if len(s.entries) > 0 {
		parent = s.entries[len(s.entries)-1].ID
	}
	keptID := func(k int) string { // the k-th entry line; the header is 0
		if k < 1 || k > len(s.entries) {
			return ""
		}
		return s.entries[k-1].ID
	}
	return UpgradeLine(line, s.header.Version, id, parent, keptID)
}

// isAncestor reports whether id is from or one of from's ancestors.
func (s *Store) isAncestor(id, from string) bool {
	for at := from; at != ""; {
		if at == id {
			return true
		}
		i, ok := s.byID[at]
		if !ok {
			return false
		}
		at = s.entries[i].ParentID
	}
	return false
}

// add indexes a committed entry.
func (s *Store) add(e Entry) {
	s.byID[e.ID] = len(s.entries)
	s.entries = append(s.entries, e)
}

// Header returns the session's header.
func (s *Store) Header() Header {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.header
}

// Leaf returns the id of the current leaf: the entry the next append will
// follow, or "" when the session has no entry yet.
func (s *Store) Leaf() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.leaf
}

// Entry returns a copy of the entry with id, and whether there is one.
func (s *Store) Entry(id string) (Entry, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	i, ok := s.byID[id]
	if !ok {
		return Entry{}, false
	}
	return s.entries[i].Clone(), true
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
		return "", fmt.Errorf("append message: %w", err)
	}
	if r := m.Role(); r == RoleCompactionSummary || r == RoleBranchSummary {
		return "", fmt.Errorf("append message: %w %q: a summary is an entry of its own (compaction, branch_summary), never a message", ErrReservedRole, r)
	}
	e := Entry{Type: TypeMessage, Message: m}
	if err := s.appendEntry(&e); err != nil {
		return "", err
	}
	return e.ID, nil
}

// writable reports why the store may not write, if it may not.
func (s *Store) writable() error {
	if s.tailLine > 0 {
		return &NeedsRepairError{Path: s.opts.Path, Line: s.tailLine}
	}
	if s.tainted != nil {
		return &TaintedError{Err: s.tainted}
	}
	if s.migrated() {
		return &MigratedError{Path: s.opts.Path, Version: s.header.Version}
	}
	return nil
}

// newID asks for ids until one is neither empty nor taken.
func (s *Store) newID() (string, error) {
	var id string
	for i := 0; i < MaxIDAttempts; i++ {
		id = s.opts.NewEntryID()
		if _, taken := s.byID[id]; id != "" && !taken {
			return id, nil
		}
	}
	return "", fmt.Errorf("%w: NewEntryID gave %d empty or taken ids (the last %q)", ErrNoFreeID, MaxIDAttempts, id)
}

// appendEntry gives e its id, parent and time, appends its line, and only
// then commits it: indexes it and moves the leaf. The caller holds s.mu.
func (s *Store) appendEntry(e *Entry) error {
	if err := s.writable(); err != nil {
		return err
	}
	id, err := s.newID()
	if err != nil {
		return err
	}
	e.ID, e.ParentID, e.Timestamp = id, s.leaf, s.now()
	line, err := EncodeEntry(*e)
	if err != nil {
		return err
	}
	if err := s.opts.FS.AppendFile(s.opts.Path, line); err != nil {
		// Any prefix of the line may be in the file now; another append
		// would glue onto it. Stop writing for good.
		s.tainted = err
		return fmt.Errorf("append entry %q to %s: %w", e.ID, s.opts.Path, err)
	}
	s.add(*e)
	s.leaf = e.ID
	return nil
}

// ---- 11.3 -----------------------------------------------------------------

// PathToLeaf returns the entries from the root of the current branch to the
// leaf, root first, as copies. It is empty when there is no leaf.
func (s *Store) PathToLeaf() []Entry {
	s.mu.Lock()
	defer s.mu.Unlock()
	path := s.path()
	out := make([]Entry, len(path))
	for i, at := range path {
		out[i] = s.entries[at].Clone()
	}
	return out
}

// path returns the indexes of the entries from the root to the leaf.
func (s *Store) path() []int {
	var out []int
	for at := s.leaf; at != ""; {
		i := s.byID[at]
		out = append(out, i)
		at = s.entries[i].ParentID
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}

// BuildContext returns what the model sees for the current branch, as
// copies: the messages of the message entries from the root to the leaf,
// and those pi makes of its branch_summary and custom_message entries.
// When a compaction is on the branch, the latest one stands for everything
// before the entry it keeps from: its CompactionSummaryMessage comes first,
// then the messages from its FirstKeptEntryID up to it, then the messages
// after it.
func (s *Store) BuildContext() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buildContext()
}

// buildContext is BuildContext with the lock held.
func (s *Store) buildContext() []Message {
	compaction, kept := s.context()
	var out []Message
	if compaction != nil {
		out = append(out, CompactionSummaryMessage(*compaction))
	}
	for _, e := range kept {
		m, _ := messageOf(*e)
		out = append(out, m)
	}
	return out
}

// messageOf returns the message an entry gives the context, a copy, and
// whether it gives one: a message entry its message, a branch_summary with
// a summary and a custom_message the messages pi makes of them.
func messageOf(e Entry) (Message, bool) {
	switch {
	case e.Type == TypeMessage:
		return bytes.Clone(e.Message), true
	case e.Type == TypeBranchSummary && e.Summary != "":
		return BranchSummaryMessage(e), true
	case e.Type == TypeCustomMessage:
		return CustomMessage(e), true
	}
	return nil, false
}

// context returns the latest compaction on the current branch (nil if
// none) and the entries that give the context's messages, in order,
// without copying.
func (s *Store) context() (*Entry, []*Entry) {
	path := s.path()
	start := 0
	var compaction *Entry
	for i := len(path) - 1; i >= 0; i-- {
		if e := &s.entries[path[i]]; e.Type == TypeCompaction {
			compaction = e
			// Keep from FirstKeptEntryID (an ancestor: checked when it was
			// read or written); skip the compaction itself.
			for j := 0; j < i; j++ {
				if s.entries[path[j]].ID == e.FirstKeptEntryID {
					start = j
					break
				}
			}
			break
		}
	}
	var kept []*Entry
	for _, at := range path[start:] {
		if _, ok := messageOf(s.entries[at]); ok {
			kept = append(kept, &s.entries[at])
		}
	}
	return compaction, kept
}

// ---- 11.4 -----------------------------------------------------------------

// SwitchLeaf makes the entry id the current leaf, so that the next append
// starts a new branch under it. It writes nothing: every branch stays in
// the file. An unknown id is an *UnknownEntryError and the leaf stays.
func (s *Store) SwitchLeaf(id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.byID[id]; !ok {
		return &UnknownEntryError{ID: id}
	}
	s.leaf = id
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
		return "", fmt.Errorf("compact: keepRecent %d: %w (keep at least 1 message)", keepRecent, ErrInvalidArgument)
	}
	compaction, kept := s.context()
	current := make([]Message, 0, len(kept)+1)
	previous := ""
	if compaction != nil {
		current = append(current, CompactionSummaryMessage(*compaction))
		previous = compaction.Summary
	}
	for _, e := range kept {
		m, _ := messageOf(*e)
		current = append(current, m)
	}
	tokensBefore := EstimateTokens(current)
	if tokensBefore <= maxApproxTokens || len(kept) <= keepRecent {
		return "", nil
	}
	if err := s.writable(); err != nil {
		return "", err
	}
	cut := len(kept) - keepRecent
	summarized := make([]Message, cut)
	for i, e := range kept[:cut] {
		summarized[i], _ = messageOf(*e)
	}
	summary, err := s.opts.Summarize(previous, summarized)
	if err != nil {
		return "", fmt.Errorf("compact: summarize %d messages: %w", cut, err)
	}
	e := Entry{
		Type:             TypeCompaction,
		Summary:          summary,
		FirstKeptEntryID: kept[cut].ID,
		TokensBefore:     tokensBefore,
	}
	if err := s.appendEntry(&e); err != nil {
		return "", err
	}
	return e.ID, nil
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
	old, err := s.opts.FS.ReadFile(s.opts.Path)
	if err != nil {
		return fmt.Errorf("reset %s: read the old session: %w", s.opts.Path, err)
	}
	archive := ArchivePath(s.opts.Path, s.header.ID)
	if err := s.opts.FS.WriteFile(archive, old); err != nil {
		return fmt.Errorf("reset %s: keep the old session at %s: %w", s.opts.Path, archive, err)
	}
	h := s.newHeader()
	if err := s.install(EncodeHeader(h)); err != nil {
		return fmt.Errorf("reset %s: %w (the old session is still in place)", s.opts.Path, err)
	}
	s.header = h
	s.entries = nil
	s.byID = map[string]int{}
	s.leaf = ""
	s.tailLine = 0
	s.tainted = nil
	return nil
}

// ---- 11.7 -----------------------------------------------------------------

// SessionContext returns what pi's buildSessionContext gives for the current
// leaf, as copies: BuildContext's messages, the thinking level of the last
// thinking_level_change on the path (ThinkingLevelOff without one), and the
// model of the last model_change or assistant message on the path (nil
// without one).
func (s *Store) SessionContext() SessionContext {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := SessionContext{Messages: s.buildContext(), ThinkingLevel: ThinkingLevelOff}
	for _, at := range s.path() { // the whole path: what a compaction stands for too
		switch e := s.entries[at]; {
		case e.Type == TypeThinkingLevelChange:
			out.ThinkingLevel = e.ThinkingLevel
		case e.Type == TypeModelChange:
			out.Model = &Model{Provider: e.Provider, ModelID: e.ModelID}
		case e.Type == TypeMessage && e.Message.Role() == "assistant":
			m := e.Message.Model()
			out.Model = &m
		}
	}
	return out
}
