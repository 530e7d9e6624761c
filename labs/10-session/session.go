// Package session is chapter 10's lab: an append-only, branchable,
// fail-closed session history for an AI agent, kept as JSONL on disk.
//
// This is the one file you edit. Every function below has its final
// signature; replace each body, exercise by exercise, until
// `go test -run Lab10_<n>` passes. The handout (README.md) explains each one.
package session

import "fmt"

// notImplemented is the error of a function you have not written yet.
func notImplemented(exercise, name string) error {
	return fmt.Errorf("Lab %s: %s: %w", exercise, name, ErrNotImplemented)
}

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
	return nil, notImplemented("10.1", "PathTo")
}

// ---- 10.2 -----------------------------------------------------------------

// ParseSessionEntry checks an untrusted value, such as json.Unmarshal gives
// for an `any`, layer by layer, and returns it as a new SessionEntry that
// shares nothing with v. Any problem is a *FieldError whose Path says where
// it is, for example "entry.message.content[1].arguments.opts[2]".
func ParseSessionEntry(v any) (SessionEntry, error) {
	return SessionEntry{}, notImplemented("10.2", "ParseSessionEntry")
}

// ---- 10.3 -----------------------------------------------------------------

// InMemorySessionStore keeps committed entries in memory. Appends complete in
// call order, one at a time. It is safe for use by several goroutines.
type InMemorySessionStore struct {
	// Add the fields you need.
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
	return Resolved(notImplemented("10.3", "InMemorySessionStore.Append"))
}

// Entries returns a deep copy of the committed entries in commit order,
// after every Append called before it has completed.
func (s *InMemorySessionStore) Entries() ([]SessionEntry, error) {
	return nil, notImplemented("10.3", "InMemorySessionStore.Entries")
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
	return Recovery{}, notImplemented("10.4", "RecoverJSONL")
}

// ---- 10.5 -----------------------------------------------------------------

// JSONLSessionStore appends entries to one JSONL file through a FileIO, in
// call order, and stops for good after a failed write. It assumes it is the
// only writer of the file.
type JSONLSessionStore struct {
	// Add the fields you need.
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
	return nil, notImplemented("10.5", "OpenJSONLSessionStore")
}

// Append validates entry, snapshots it and encodes it as one line now; a
// problem there rejects only this call, at once, whatever state the store is
// in. In its turn the line is appended, unless the file needs repair, the
// store is tainted, the ID is taken or the parent is missing. A failed write
// taints the store: this call returns the write error, and every later turn
// (appends and reads) returns a *TaintedError carrying it, without touching
// the file.
func (s *JSONLSessionStore) Append(entry SessionEntry) *Pending {
	return Resolved(notImplemented("10.5", "JSONLSessionStore.Append"))
}

// Entries returns a deep copy of the committed entries, after every Append
// called before it has completed, or the *TaintedError of a failed write.
func (s *JSONLSessionStore) Entries() ([]SessionEntry, error) {
	return nil, notImplemented("10.5", "JSONLSessionStore.Entries")
}

// Warnings returns a copy of the warnings RecoverJSONL gave when the store
// was opened: for a file that needs repair, the unterminated tail and its
// line, which is why every Append is refused. It is empty for a healthy or
// missing file and never changes.
func (s *JSONLSessionStore) Warnings() []Warning {
	return nil // Lab 10.5: not implemented
}

// ---- 10.6 -----------------------------------------------------------------

// MessagesOnPath returns the complete messages of the branch that ends at
// leafID, root first, with the same checks as PathTo. Metadata entries are
// skipped; every message is a deep copy with all its fields (tool calls,
// tool results, details) intact.
func MessagesOnPath(entries []SessionEntry, leafID string) ([]AgentMessage, error) {
	return nil, notImplemented("10.6", "MessagesOnPath")
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
	return RepairResult{}, notImplemented("10.7", "RepairUnterminatedTail")
}
