// Package agentstore is chapter 11's lab: the session store a teaching agent
// uses while it runs. One JSONL file, a header line, then entries that are
// appended and never rewritten; a current leaf; branches; compaction that
// adds a summary instead of deleting history; and an atomic reset.
//
// This is the one file you edit. Every function below has its final
// signature; replace each body, exercise by exercise, until
// `go test -run Lab11_<n>` passes. The handout (README.md) explains each one.
package agentstore

import "fmt"

// notImplemented is the error of a function you have not written yet.
func notImplemented(exercise, name string) error {
	return fmt.Errorf("Lab %s: %s: %w", exercise, name, ErrNotImplemented)
}

// ---- 11.1 -----------------------------------------------------------------

// Store is one session file, open for an agent. Every method is safe for use
// by several goroutines at once.
type Store struct {
	// Add the fields you need.
}

// Open opens the session file opts.Path. A missing or empty file becomes a
// new session: its header line is written to TempPath(opts.Path) and renamed
// over the path. An existing file is only read: its first committed line is
// the header, every later committed line an entry, indexed by id; the leaf
// is the last entry. A last line without "\n" was never committed: it is
// left out, and the store refuses to write after it. Any committed line it
// cannot accept is a *LineError naming the path and the line. (Exercise
// 11.7 comes back to Open: files of pi's versions 1 and 2 open by migrating
// their lines in memory.)
func Open(opts Options) (*Store, error) {
	return nil, notImplemented("11.1", "Open")
}

// Header returns the session's header.
func (s *Store) Header() Header {
	return Header{}
}

// Leaf returns the id of the current leaf: the entry the next append will
// follow, or "" when the session has no entry yet.
func (s *Store) Leaf() string {
	return ""
}

// Entry returns a copy of the entry with id, and whether there is one.
func (s *Store) Entry(id string) (Entry, bool) {
	return Entry{}, false
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
	return "", notImplemented("11.2", "AppendMessage")
}

// ---- 11.3 -----------------------------------------------------------------

// PathToLeaf returns the entries from the root of the current branch to the
// leaf, root first, as copies. It is empty when there is no leaf.
func (s *Store) PathToLeaf() []Entry {
	return nil
}

// BuildContext returns what the model sees for the current branch, as
// copies: the messages of the message entries from the root to the leaf.
// When a compaction is on the branch (exercise 11.5), the latest one stands
// for everything before the entry it keeps from: its
// CompactionSummaryMessage comes first, then the messages from its
// FirstKeptEntryID up to it, then the messages after it. (Exercise 11.7
// adds pi's branch summaries and custom messages.)
func (s *Store) BuildContext() []Message {
	return nil
}

// ---- 11.4 -----------------------------------------------------------------

// SwitchLeaf makes the entry id the current leaf, so that the next append
// starts a new branch under it. It writes nothing: every branch stays in
// the file. An unknown id is an *UnknownEntryError and the leaf stays.
func (s *Store) SwitchLeaf(id string) error {
	return notImplemented("11.4", "SwitchLeaf")
}

// ---- 11.5 -----------------------------------------------------------------

// EstimateTokens is the store's token estimate: for each message, the bytes
// of its JSON divided by 4 and rounded up; the sum over the messages.
func EstimateTokens(messages []Message) int {
	return -1
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
	return "", notImplemented("11.5", "CompactIfNeeded")
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
	return notImplemented("11.6", "Reset")
}

// ---- 11.7 (optional) ------------------------------------------------------

// SessionContext returns what pi's buildSessionContext gives for the current
// leaf, as copies: BuildContext's messages, the thinking level of the last
// thinking_level_change on the path (ThinkingLevelOff without one), and the
// model of the last model_change or assistant message on the path (nil
// without one).
func (s *Store) SessionContext() SessionContext {
	return SessionContext{}
}
