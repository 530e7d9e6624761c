package session_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coursekit/course/labs/10-session"
)

// jsonlPath is the session file the 10.5 tests use in the fake.
const jsonlPath = "/sessions/s1.jsonl"

// jsonlLine returns the committed line of e: its JSON and "\n".
func jsonlLine(t *testing.T, e session.SessionEntry) string {
	t.Helper()
	b, err := json.Marshal(e)
	require.NoError(t, err, "json.Marshal(%q)", e.ID)
	return string(b) + "\n"
}

// jsonlFileOf returns the file text of committed entries.
func jsonlFileOf(t *testing.T, entries ...session.SessionEntry) string {
	t.Helper()
	var b strings.Builder
	for _, e := range entries {
		b.WriteString(jsonlLine(t, e))
	}
	return b.String()
}

// jsonlOpen opens a store over fio, bounded in time.
func jsonlOpen(t *testing.T, fio session.FileIO, path, what string) (*session.JSONLSessionStore, error) {
	t.Helper()
	type result struct {
		s   *session.JSONLSessionStore
		err error
	}
	ch := goCall(fmt.Sprintf("OpenJSONLSessionStore(%q)", path), func() result {
		s, err := session.OpenJSONLSessionStore(fio, path)
		return result{s, err}
	})
	select {
	case o := <-ch:
		r := o.value(t, what)
		return r.s, r.err
	case <-time.After(fakeTimeout):
		t.Fatalf("%s: OpenJSONLSessionStore(%q) did not return", what, path)
		return nil, nil
	}
}

// jsonlMustOpen opens a store over fio and requires success.
func jsonlMustOpen(t *testing.T, fio session.FileIO, path, what string) *session.JSONLSessionStore {
	t.Helper()
	s, err := jsonlOpen(t, fio, path, what)
	require.NoError(t, err, "%s: OpenJSONLSessionStore(%q) = %s", what, path, fakeDescribe(err))
	require.NotNil(t, s, "%s: OpenJSONLSessionStore returned a nil store and no error", what)
	return s
}

// jsonlDecodeLine checks that data is exactly one JSON line plus "\n" and
// returns it decoded into an any. It uses only encoding/json, never your
// ParseSessionEntry or RecoverJSONL, so a bug in 10.2 or 10.4 cannot fail
// a 10.5 test: compare the result with jsonlWire(entry).
func jsonlDecodeLine(t *testing.T, data []byte, what string) any {
	t.Helper()
	require.True(t, bytes.HasSuffix(data, []byte("\n")),
		"%s: AppendFile got %q; want one JSON line ending in \"\\n\" (the newline commits it)", what, data)
	require.Equal(t, 1, bytes.Count(data, []byte("\n")),
		"%s: AppendFile got %q; want exactly one line per AppendFile call", what, data)
	var v any
	require.NoError(t, json.Unmarshal(data, &v), "%s: AppendFile data %q is not JSON", what, data)
	return v
}

// jsonlWire returns what a line holding e decodes to: e encoded with the
// given MarshalJSON and decoded into an any. The field order of a line does
// not matter; its content does.
func jsonlWire(t *testing.T, e session.SessionEntry) any {
	t.Helper()
	line, err := json.Marshal(e)
	require.NoError(t, err, "test setup: encoding entry %q", e.ID)
	var v any
	require.NoError(t, json.Unmarshal(line, &v))
	return v
}

// jsonlLineID returns the "id" of a decoded line, or "" if it has none.
func jsonlLineID(v any) string {
	obj, _ := v.(map[string]any)
	id, _ := obj["id"].(string)
	return id
}

// jsonlAppendedIDs returns the entry IDs of the recorded AppendFile calls.
func jsonlAppendedIDs(t *testing.T, f *fakeFS) []string {
	t.Helper()
	var out []string
	for i, c := range f.appendCalls() {
		out = append(out, jsonlLineID(jsonlDecodeLine(t, c.Data, fmt.Sprintf("AppendFile call #%d", i+1))))
	}
	return out
}

// jsonlRequireTainted requires err to carry both ErrTainted and the original
// write error ioErr.
func jsonlRequireTainted(t *testing.T, err, ioErr error, what string) {
	t.Helper()
	require.Error(t, err, "%s succeeded; want the tainted error — lab 10.5: after a failed write the writer "+
		"stops for good", what)
	assert.True(t, errors.Is(err, session.ErrTainted) && errors.Is(err, ioErr),
		"%s = %s; want the original write error (errors.Is(err, ioErr)) and ErrTainted — lab 10.5: a writer whose "+
			"write may have left half a line must stop for good", what, fakeDescribe(err))
	var te *session.TaintedError
	if assert.True(t, errors.As(err, &te), "%s = %s; want a *TaintedError", what, fakeDescribe(err)) {
		assert.True(t, te.Err == ioErr, "%s: TaintedError.Err = %s; want the very error value AppendFile returned "+
			"(%s), not a copy or a wrapper of it — lab 10.5: the taint keeps the write's own error", what,
			fakeDescribe(te.Err), fakeDescribe(ioErr))
	}
}

// Rule 10.5.1, 10.5.6: a missing file opens as an empty store; appends go
// through FileIO.AppendFile to the store's path.
func TestLab10_5_OpenMissingFileIsEmptyStore(t *testing.T) {
	f := newFakeFS(t)
	s := jsonlMustOpen(t, f, jsonlPath, "missing file")
	got, err := fakeEntries(t, s, "Entries of a new store")
	require.NoError(t, err, "Entries() of a store opened on a missing file")
	assert.Empty(t, got, "a missing file is an empty session")

	p := fakeAppend(t, s, user("a", "", "hi"), "Append(a)")
	require.NoError(t, fakeWaitPending(t, p, "Append(a)"), "the first append to a new session file must succeed")
	calls := f.appendCalls()
	require.Len(t, calls, 1, "one committed append = one FileIO.AppendFile call")
	assert.Equal(t, jsonlPath, calls[0].Path, "AppendFile must write to the path the store was opened with")
	assert.Equal(t, jsonlWire(t, user("a", "", "hi")), jsonlDecodeLine(t, calls[0].Data, "a's line"), "the line written for a")
	content, _ := f.file(jsonlPath)
	assert.Equal(t, string(calls[0].Data), content, "the new file holds a's line and nothing else")
	assert.GreaterOrEqual(t, f.readCount(), 1, "OpenJSONLSessionStore must read the file through FileIO.ReadFile")
}

// Rule 10.5.1, 10.5.6: a read error other than "not found" is returned, not
// mistaken for an empty session.
func TestLab10_5_OpenReadErrorIsReturned(t *testing.T) {
	f := newFakeFS(t)
	readErr := errors.New("permission denied")
	f.failRead(readErr)
	_, err := jsonlOpen(t, f, jsonlPath, "unreadable file")
	assert.True(t, errors.Is(err, readErr),
		"OpenJSONLSessionStore over a file whose ReadFile fails = %s; want that read error (errors.Is) — only a "+
			"missing file (fs.ErrNotExist) is an empty session", fakeDescribe(err))
	assert.Equal(t, 0, f.appendCount(), "a failed open writes nothing")
	assert.GreaterOrEqual(t, f.readCount(), 1, "OpenJSONLSessionStore must read the file through FileIO.ReadFile")
}

// Rule 10.5.6: opening a file with a committed bad line fails with its line number.
func TestLab10_5_OpenCommittedBadLineFails(t *testing.T) {
	f := newFakeFS(t)
	text := jsonlFileOf(t, user("a", "", "hi")) + "\n" + "{\"type\":\"message\",\"id\":\"b\"\n" +
		jsonlLine(t, assistantText("c", "a", "yo"))
	f.setFile(jsonlPath, text)
	_, err := jsonlOpen(t, f, jsonlPath, "file with a bad line 3")
	var le *session.LineError
	require.True(t, errors.As(err, &le),
		"OpenJSONLSessionStore over %q = %s; want a *LineError — lab 10.5: a committed bad line fails the open",
		text, fakeDescribe(err))
	assert.Equal(t, 3, le.Line, "LineError.Line: a, a blank line, then the bad line 3")
	after, _ := f.file(jsonlPath)
	assert.Equal(t, text, after, "opening must never rewrite the file")
	assert.Equal(t, 0, f.appendCount(), "opening must never append")
}

// Rule 10.5.6, 10.5.3: entries loaded at open are readable and count for the
// duplicate and parent checks; those refusals do not call AppendFile and do
// not taint the writer.
func TestLab10_5_ChecksAgainstEntriesLoadedAtOpen(t *testing.T) {
	f := newFakeFS(t)
	f.setFile(jsonlPath, jsonlFileOf(t, chapterTree()...))
	s := jsonlMustOpen(t, f, jsonlPath, "chapter file")
	got, err := fakeEntries(t, s, "Entries after open")
	require.NoError(t, err)
	assert.Equal(t, chapterTree(), got, "Entries() of a store opened on the chapter's file")

	err = fakeWaitPending(t, fakeAppend(t, s, user("a", "", "again"), "Append(a again)"), "Append(a again)")
	var de *session.DuplicateIDError
	require.True(t, errors.As(err, &de),
		"Append(a) where a was loaded at open = %s; want *DuplicateIDError", fakeDescribe(err))
	assert.Equal(t, "a", de.ID)

	err = fakeWaitPending(t, fakeAppend(t, s, user("x", "zz", "orphan"), "Append(x, parent zz)"), "Append(x)")
	var mp *session.MissingParentError
	require.True(t, errors.As(err, &mp), "Append(x with parent zz) = %s; want *MissingParentError", fakeDescribe(err))
	assert.Equal(t, "x", mp.ChildID)
	assert.Equal(t, "zz", mp.ParentID)
	assert.Equal(t, 0, f.appendCount(), "a duplicate or an orphan is refused before touching the file")

	child := assistantText("e", "r", "a child of r, which was loaded at open")
	err = fakeWaitPending(t, fakeAppend(t, s, child, "Append(e, parent r)"), "Append(e)")
	require.NoError(t, err, "Append(e with parent r) after two refused appends = %s; want nil — the parent r was "+
		"loaded at open, and a refused append does not taint the writer", fakeDescribe(err))
	calls := f.appendCalls()
	require.Len(t, calls, 1, "only e reaches AppendFile")
	assert.Equal(t, jsonlWire(t, child), jsonlDecodeLine(t, calls[0].Data, "e's line"))
	content, _ := f.file(jsonlPath)
	assert.Equal(t, jsonlFileOf(t, chapterTree()...)+string(calls[0].Data), content,
		"e's line is appended after the old lines, which stay as they were")
}

// Rule 10.5.5: a file with an unterminated tail opens read-only: the
// committed prefix is readable, every Append is refused with
// *NeedsRepairError, AppendFile is never called and the file is unchanged.
func TestLab10_5_UnterminatedTailNeedsRepair(t *testing.T) {
	f := newFakeFS(t)
	text := jsonlFileOf(t, user("a", "", "hi"), assistantText("b", "a", "yo")) + `{"type":"message","id":"c","pare`
	f.setFile(jsonlPath, text)
	s := jsonlMustOpen(t, f, jsonlPath, "file with unterminated tail")
	got, err := fakeEntries(t, s, "Entries")
	require.NoError(t, err, "Entries() of a file with an unterminated tail: the committed prefix is readable")
	assert.Equal(t, []session.SessionEntry{user("a", "", "hi"), assistantText("b", "a", "yo")}, got)

	for _, e := range []session.SessionEntry{assistantText("c", "b", "next"), user("r2", "", "new root")} {
		err := fakeWaitPending(t, fakeAppend(t, s, e, "Append("+e.ID+")"), "Append("+e.ID+")")
		var nr *session.NeedsRepairError
		require.True(t, errors.As(err, &nr),
			"Append(%q) on a file whose line 3 is an unterminated tail = %s; want *NeedsRepairError — lab 10.5: "+
				"appending after half a line would glue the two into one committed bad line", e.ID, fakeDescribe(err))
		assert.True(t, errors.Is(err, session.ErrNeedsRepair), "errors.Is(err, ErrNeedsRepair)")
		assert.Equal(t, jsonlPath, nr.Path, "NeedsRepairError.Path")
		assert.Equal(t, 3, nr.Line, "NeedsRepairError.Line: the tail is line 3")
	}
	assert.Equal(t, 0, f.appendCount(), "a store that needs repair must never call AppendFile")
	after, _ := f.file(jsonlPath)
	assert.Equal(t, text, after, "nothing is truncated or rewritten automatically")
}

// Rule 10.5.2, 10.5.3: a committed append writes exactly one JSON line plus
// "\n", which decodes back to the entry.
func TestLab10_5_AppendWritesExactlyOneLine(t *testing.T) {
	f := newFakeFS(t)
	s := jsonlMustOpen(t, f, jsonlPath, "missing file")
	entries := []session.SessionEntry{user("a", "", "list files"), assistantToolCall("b", "a", "c1"), toolResult("r", "b", "c1"), metadata("m", "r")}
	memRequireCommitted(t, memAppendAll(t, s, entries, "four appends"), entries, "four appends")

	calls := f.appendCalls()
	require.Len(t, calls, len(entries), "one AppendFile call per committed append")
	for i, c := range calls {
		assert.Equal(t, jsonlPath, c.Path)
		got := jsonlDecodeLine(t, c.Data, "append of "+entries[i].ID)
		assert.Equal(t, jsonlWire(t, entries[i]), got, "AppendFile call #%d: the line, decoded, must hold exactly the entry's fields", i+1)
	}
	content, _ := f.file(jsonlPath)
	lines := strings.SplitAfter(content, "\n")
	require.Len(t, lines, len(entries)+1, "the file must be the %d lines appended, each ending in \"\\n\"; it is %q", len(entries), content)
	for i, e := range entries {
		assert.Equal(t, jsonlWire(t, e), jsonlDecodeLine(t, []byte(lines[i]), "file line "+e.ID), "line %d of the file", i+1)
	}
}

// Rule 10.5.2: an invalid entry is rejected at call time — at once, even
// while an earlier write is still running — without calling AppendFile; the
// writer stays ready.
func TestLab10_5_InvalidEntryRejectsOnlyThatCall(t *testing.T) {
	f := newFakeFS(t)
	gate := f.newGate()
	f.onAppend(1, fakeHook{Gate: gate})
	s := jsonlMustOpen(t, f, jsonlPath, "missing file")

	pA := fakeAppend(t, s, user("a", "", "hi"), "Append(a)")
	f.waitAppendStarted(t, 1, "Append(a)")

	bad := assistantToolCall("bad", "a", "c1")
	bad.Message.(*session.AssistantMessage).Content[1].(session.ToolCall).Arguments["n"] = math.Inf(-1)
	pBad := fakeAppend(t, s, bad, "Append(invalid)")
	require.True(t, fakeIsDone(pBad),
		"Append(entry with -Inf tool argument) while an earlier write is still running returned a Pending that is "+
			"not completed — lab 10.5: validation happens at call time, so an invalid entry is rejected at once")
	err := fakeWaitPending(t, pBad, "invalid append")
	var fe *session.FieldError
	require.True(t, errors.As(err, &fe), "Append(entry with -Inf argument) = %s; want *FieldError", fakeDescribe(err))
	assert.Equal(t, "entry.message.content[1].arguments.n", fe.Path)

	pB := fakeAppend(t, s, assistantText("b", "a", "yo"), "Append(b)")
	gate.open()
	require.NoError(t, fakeWaitPending(t, pA, "Append(a)"), "Append(a)")
	err = fakeWaitPending(t, pB, "Append(b)")
	require.NoError(t, err, "Append(b) after a rejected invalid entry = %s; want nil — a validation failure "+
		"rejects only that call, the writer stays ready", fakeDescribe(err))
	assert.Equal(t, []string{"a", "b"}, jsonlAppendedIDs(t, f), "the invalid entry never reaches AppendFile")
}

// Rule 10.5.2: the line is fixed at call time: changing the entry while the
// write is queued changes nothing written or stored.
func TestLab10_5_SnapshotAtCallTime(t *testing.T) {
	f := newFakeFS(t)
	gate := f.newGate()
	f.onAppend(1, fakeHook{Gate: gate})
	s := jsonlMustOpen(t, f, jsonlPath, "missing file")

	pA := fakeAppend(t, s, user("a", "", "hi"), "Append(a)")
	f.waitAppendStarted(t, 1, "Append(a)")
	b := assistantToolCall("b", "a", "c1")
	pB := fakeAppend(t, s, b, "Append(b)")
	// b is queued behind a's blocked write; the caller changes it now.
	msg := b.Message.(*session.AssistantMessage)
	msg.Content[0] = session.TextContent{Text: "changed while queued"}
	msg.Content[1].(session.ToolCall).Arguments["path"] = "/etc"
	msg.Content[1].(session.ToolCall).Arguments["opts"].(map[string]any)["depth"] = 99.0
	msg.Usage.Output = 12345
	gate.open()

	require.NoError(t, fakeWaitPending(t, pA, "Append(a)"))
	require.NoError(t, fakeWaitPending(t, pB, "Append(b)"))
	calls := f.appendCalls()
	require.Len(t, calls, 2)
	assert.Equal(t, jsonlWire(t, assistantToolCall("b", "a", "c1")), jsonlDecodeLine(t, calls[1].Data, "b's line"),
		"b was changed by the caller after Append returned, while its write was queued, and the written line shows "+
			"the change — lab 10.5: validate, snapshot and serialize at call time, not when the write runs")
	got, err := fakeEntries(t, s, "Entries")
	require.NoError(t, err)
	assert.Equal(t, []session.SessionEntry{user("a", "", "hi"), assistantToolCall("b", "a", "c1")}, got,
		"Entries() must hold b as it was at call time")
}

// Rule 10.5.8, 10.5.3: writes run one at a time in call order: while call 1
// blocks, call 2 has not started; a child queued behind its parent is
// committed.
func TestLab10_5_FIFOWithBlockingFake(t *testing.T) {
	f := newFakeFS(t)
	gate1, gate2 := f.newGate(), f.newGate()
	f.onAppend(1, fakeHook{Gate: gate1})
	f.onAppend(2, fakeHook{Gate: gate2})
	s := jsonlMustOpen(t, f, jsonlPath, "missing file")

	entries := []session.SessionEntry{user("a", "", "hi"), assistantToolCall("b", "a", "c1"), toolResult("r", "b", "c1"), user("z", "", "root 2")}
	ps := memAppendAll(t, s, entries, "four appends, no waits")
	f.waitAppendStarted(t, 1, "first append")
	assert.Equal(t, 1, f.appendCount(),
		"while AppendFile call #1 (entry a) is blocked, AppendFile was called %d times — lab 10.5: appends run "+
			"one at a time, the next starts only after the previous one completed", f.appendCount())
	for i := 1; i < len(ps); i++ {
		assert.False(t, fakeIsDone(ps[i]), "Append(%q) completed while the write of a (queued before it) is still blocked",
			entries[i].ID)
	}

	gate1.open()
	require.NoError(t, fakeWaitPending(t, ps[0], "Append(a)"))
	f.waitAppendStarted(t, 2, "second append")
	assert.Equal(t, 2, f.appendCount(), "while AppendFile call #2 is blocked, only two calls may have started")
	gate2.open()
	memRequireCommitted(t, ps, entries, "FIFO appends")
	assert.Equal(t, []string{"a", "b", "r", "z"}, jsonlAppendedIDs(t, f), "AppendFile calls happen in Append call order")
}

// Rule 10.5.8: Entries waits for every Append called before it and returns
// deep copies.
func TestLab10_5_EntriesWaitsAndReturnsCopies(t *testing.T) {
	f := newFakeFS(t)
	gate := f.newGate()
	f.onAppend(1, fakeHook{Gate: gate})
	s := jsonlMustOpen(t, f, jsonlPath, "missing file")

	entries := []session.SessionEntry{user("a", "", "hi"), assistantToolCall("b", "a", "c1"), toolResult("r", "b", "c1")}
	ps := memAppendAll(t, s, entries, "three appends")
	f.waitAppendStarted(t, 1, "first append")

	type result struct {
		es  []session.SessionEntry
		err error
	}
	read := goCall("Entries()", func() result {
		// Release the blocked write, then read at once: Entries is called
		// after the three Append calls, so it must wait for all three,
		// however far the writes have got.
		gate.open()
		es, err := s.Entries()
		return result{es, err}
	})
	var r result
	select {
	case o := <-read:
		r = o.value(t, "Entries() called after three appends, the first one blocked in AppendFile")
	case <-time.After(fakeTimeout):
		t.Fatal("Entries() did not return after the blocked write was released")
	}
	require.NoError(t, r.err)
	assert.Equal(t, entries, r.es,
		"Entries() called after three Append calls (the first one blocked in AppendFile) must wait for all three")
	memRequireCommitted(t, ps, entries, "three appends")

	r.es[0].ID = "changed"
	r.es[1].Message.(*session.AssistantMessage).Content[1].(session.ToolCall).Arguments["path"] = "/etc"
	r.es[2].Message.(*session.ToolResultMessage).Details.(map[string]any)["names"].([]any)[0] = "changed"
	again, err := fakeEntries(t, s, "Entries again")
	require.NoError(t, err)
	assert.Equal(t, entries, again, "changing one Entries() result changed the store — every read returns a deep copy")

	// Thirty more appends, none waited for, then Entries at once.
	more := append([]session.SessionEntry(nil), entries...)
	var ps2 []*session.Pending
	parent := "r"
	for i := 0; i < 30; i++ {
		e := user(fmt.Sprintf("n%02d", i), parent, "more")
		parent = e.ID
		more = append(more, e)
		ps2 = append(ps2, s.Append(e)) // direct: nothing blocks in the fake now
	}
	got, err := fakeEntries(t, s, "Entries right after 30 more appends")
	require.NoError(t, err)
	assert.Equal(t, more, got, "Entries() called right after 30 Append calls (none waited for) must include all of them")
	memRequireCommitted(t, ps2, more[3:], "thirty more appends")
}

// Rule 10.5.4: a failed write that left half a line taints the writer (the
// chapter's "break it on purpose" must fail here): this append gets the write
// error, later appends get it too (with ErrTainted) without calling
// AppendFile, and Entries returns it.
func TestLab10_5_FailedWriteTaintsWriter(t *testing.T) {
	f := newFakeFS(t)
	ioErr := errors.New("disk full")
	f.onAppend(2, fakeHook{Err: ioErr, WriteHalf: true})
	s := jsonlMustOpen(t, f, jsonlPath, "missing file")

	require.NoError(t, fakeWaitPending(t, fakeAppend(t, s, user("a", "", "hi"), "Append(a)"), "Append(a)"))
	err := fakeWaitPending(t, fakeAppend(t, s, assistantText("b", "a", "yo"), "Append(b)"), "Append(b)")
	assert.True(t, errors.Is(err, ioErr),
		"Append(b), whose AppendFile wrote half the line and failed, = %s; want the write error (errors.Is(err, ioErr))",
		fakeDescribe(err))
	require.Equal(t, 2, f.appendCount())

	for _, e := range []session.SessionEntry{user("c", "", "new root"), assistantText("d", "a", "child of a")} {
		err := fakeWaitPending(t, fakeAppend(t, s, e, "Append("+e.ID+")"), "Append("+e.ID+")")
		jsonlRequireTainted(t, err, ioErr, "after AppendFile failed on append \"b\", Append(\""+e.ID+"\")")
		var te *session.TaintedError
		assert.True(t, errors.As(err, &te), "want a *TaintedError, got %s", fakeDescribe(err))
		assert.Equal(t, 2, f.appendCount(),
			"after the failed write, Append(%q) called AppendFile again — lab 10.5 (\"break it on purpose\"): a tainted "+
				"writer must not touch the file, its write would glue onto the half line", e.ID)
	}
	_, err = fakeEntries(t, s, "Entries after failure")
	jsonlRequireTainted(t, err, ioErr, "Entries() after the failed write")

	calls := f.appendCalls()
	require.Len(t, calls, 2)
	content, _ := f.file(jsonlPath)
	assert.Equal(t, string(calls[0].Data)+string(calls[1].Data[:len(calls[1].Data)/2]), content,
		"the file ends in the half line the failed write left, and nothing after it")
}

// Rule 10.5.4, 10.5.8: appends already queued behind the failing write fail
// with the tainted error and never reach AppendFile.
func TestLab10_5_QueuedAppendsBehindFailureFail(t *testing.T) {
	f := newFakeFS(t)
	ioErr := errors.New("i/o error")
	gate := f.newGate()
	f.onAppend(1, fakeHook{Gate: gate, Err: ioErr, WriteHalf: true})
	s := jsonlMustOpen(t, f, jsonlPath, "missing file")

	entries := []session.SessionEntry{user("a", "", "hi"), assistantText("b", "a", "yo"), user("c", "", "another root")}
	ps := memAppendAll(t, s, entries, "three appends")
	f.waitAppendStarted(t, 1, "Append(a)")
	gate.open() // call 1 now writes half of a's line and fails

	err := fakeWaitPending(t, ps[0], "Append(a)")
	assert.True(t, errors.Is(err, ioErr), "Append(a) whose write failed = %s; want errors.Is(err, ioErr)", fakeDescribe(err))
	for i := 1; i < 3; i++ {
		err := fakeWaitPending(t, ps[i], "Append("+entries[i].ID+")")
		jsonlRequireTainted(t, err, ioErr, "Append(\""+entries[i].ID+"\"), queued behind the failed write of a,")
	}
	assert.Equal(t, 1, f.appendCount(),
		"appends queued behind the failed write called AppendFile — lab 10.5: in its turn a tainted writer fails "+
			"with the original error without touching the file")
	_, err = fakeEntries(t, s, "Entries")
	jsonlRequireTainted(t, err, ioErr, "Entries() after the failed write")
}

// Rule 10.5.4, 10.5.5: after a half-written line, a new store opened over the
// same file sees it as an unterminated tail and refuses to append.
func TestLab10_5_ReopenAfterFailureSeesUnterminatedTail(t *testing.T) {
	f := newFakeFS(t)
	ioErr := errors.New("connection reset")
	f.onAppend(2, fakeHook{Err: ioErr, WriteHalf: true})
	s := jsonlMustOpen(t, f, jsonlPath, "missing file")
	require.NoError(t, fakeWaitPending(t, fakeAppend(t, s, user("a", "", "hi"), "Append(a)"), "Append(a)"))
	err := fakeWaitPending(t, fakeAppend(t, s, assistantToolCall("b", "a", "c1"), "Append(b)"), "Append(b)")
	require.True(t, errors.Is(err, ioErr), "Append(b) with a failing write = %s; want errors.Is(err, ioErr)", fakeDescribe(err))
	// The old writer tries again; it must not write anything.
	_ = fakeWaitPending(t, fakeAppend(t, s, user("c", "", "root"), "Append(c)"), "Append(c)")

	s2 := jsonlMustOpen(t, f, jsonlPath,
		"reopening after the failed write (if this fails, the old writer glued a line onto the half line)")
	got, err := fakeEntries(t, s2, "Entries of the new store")
	require.NoError(t, err)
	assert.Equal(t, []session.SessionEntry{user("a", "", "hi")}, got, "the new store reads the committed prefix")
	err = fakeWaitPending(t, fakeAppend(t, s2, user("d", "", "root"), "Append(d) on the new store"), "Append(d)")
	var nr *session.NeedsRepairError
	require.True(t, errors.As(err, &nr),
		"Append on a new store over a file ending in half a line = %s; want *NeedsRepairError", fakeDescribe(err))
	assert.Equal(t, 2, nr.Line, "the half line is line 2")
	assert.Equal(t, 2, f.appendCount(), "neither the tainted store nor the needs-repair store may call AppendFile")
}

// Rule 10.5.1: the real file system through OSFileIO: append, reopen, read back.
func TestLab10_5_OSFileIORoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "session.jsonl")
	s := jsonlMustOpen(t, session.OSFileIO{}, path, "new file on disk")
	entries := []session.SessionEntry{user("a", "", "list files"), assistantToolCall("b", "a", "c1"), toolResult("r", "b", "c1")}
	memRequireCommitted(t, memAppendAll(t, s, entries, "three appends"), entries, "three appends on disk")

	raw, err := os.ReadFile(path)
	require.NoError(t, err, "the session file must exist after three appends")
	lines := strings.SplitAfter(string(raw), "\n")
	require.Len(t, lines, 4, "the file %q must hold three lines, each ending in \"\\n\"", raw)
	assert.Empty(t, lines[3], "nothing after the third line's \"\\n\"")
	for i, e := range entries {
		assert.Equal(t, jsonlWire(t, e), jsonlDecodeLine(t, []byte(lines[i]), "line "+e.ID), "line %d of the file", i+1)
	}

	s2 := jsonlMustOpen(t, session.OSFileIO{}, path, "reopen")
	got, err := fakeEntries(t, s2, "Entries after reopen")
	require.NoError(t, err)
	assert.Equal(t, entries, got, "reopening the file gives back the appended entries")

	require.NoError(t, fakeWaitPending(t, fakeAppend(t, s2, metadata("m", "r"), "Append(m)"), "Append(m)"))
	s3 := jsonlMustOpen(t, session.OSFileIO{}, path, "reopen again")
	got, err = fakeEntries(t, s3, "Entries after second reopen")
	require.NoError(t, err)
	assert.Equal(t, append(entries, metadata("m", "r")), got)
}

// Rule 10.5.5: a store that needs repair refuses every append with the
// *NeedsRepairError, whatever else is wrong with the entry: the file comes
// first.
func TestLab10_5_NeedsRepairComesFirst(t *testing.T) {
	f := newFakeFS(t)
	f.setFile(jsonlPath, jsonlFileOf(t, user("a", "", "hi"))+`{"type":"mes`)
	s := jsonlMustOpen(t, f, jsonlPath, "a file with an unterminated tail")
	for _, e := range []session.SessionEntry{user("a", "", "duplicate of a"), user("x", "gone", "orphan")} {
		err := fakeWaitPending(t, fakeAppend(t, s, e, "Append"), "Append")
		var nr *session.NeedsRepairError
		require.True(t, errors.As(err, &nr), "Append(%q) on a store opened with an unterminated tail = %s; want the *NeedsRepairError before any duplicate or parent check (lab 10.5)", e.ID, fakeDescribe(err))
	}
	assert.Empty(t, f.appendCalls(), "a store that needs repair must never call AppendFile")
}

// Rule 10.5.4: the append whose write failed returns that write error; only
// the appends after it get the *TaintedError. The two say different things:
// "this write failed" and "this writer has stopped".
func TestLab10_5_FailedAppendGetsTheWriteError(t *testing.T) {
	f := newFakeFS(t)
	ioErr := errors.New("disk full")
	f.onAppend(1, fakeHook{Err: ioErr, WriteHalf: true})
	s := jsonlMustOpen(t, f, jsonlPath, "missing file")
	err := fakeWaitPending(t, fakeAppend(t, s, user("a", "", "hi"), "Append(a)"), "Append(a)")
	assert.True(t, errors.Is(err, ioErr), "Append(a) whose write failed = %s; want the write error itself (errors.Is(err, ioErr))", fakeDescribe(err))
	assert.False(t, errors.Is(err, session.ErrTainted), "Append(a) whose write failed = %s; want the write error, not ErrTainted: the taint is for the appends after it (lab 10.5)", fakeDescribe(err))
}

// Rule 10.5.7: opening replays the tree in file order: an id used twice, or
// a parent that is not on an earlier line, fails the open with that line's
// number and the typed error of the append that would have been refused.
func TestLab10_5_OpenReplaysTheTree(t *testing.T) {
	a, b := user("a", "", "hi"), assistantText("b", "a", "yo")
	cases := []struct {
		name, text string
		line       int
		dup        string // the id used twice, or
		child, of  string // the child whose parent is not on an earlier line
	}{
		{name: "an id used twice", text: jsonlFileOf(t, a, b, user("a", "", "again")), line: 3, dup: "a"},
		{name: "a child before its parent", text: jsonlFileOf(t, b, a), line: 1, child: "b", of: "a"},
		{name: "a parent that is nowhere, after blank lines", text: "\n" + jsonlFileOf(t, a) + "\n" +
			jsonlFileOf(t, assistantText("c", "zz", "orphan")), line: 4, child: "c", of: "zz"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeFS(t)
			f.setFile(jsonlPath, tc.text)
			_, err := jsonlOpen(t, f, jsonlPath, tc.name)
			var le *session.LineError
			require.True(t, errors.As(err, &le), "OpenJSONLSessionStore over a file with %s = %s; want an error "+
				"carrying a *LineError — lab 10.5: opening replays the committed entries in file order, as the "+
				"appends that wrote them were judged, and a file that is not a tree cannot be trusted", tc.name,
				fakeDescribe(err))
			assert.Equal(t, tc.line, le.Line, "LineError.Line: the line of the entry that breaks the tree")
			if tc.dup != "" {
				var de *session.DuplicateIDError
				require.True(t, errors.As(err, &de), "open error = %s; want the *DuplicateIDError inside the *LineError",
					fakeDescribe(err))
				assert.Equal(t, tc.dup, de.ID, "DuplicateIDError.ID")
			} else {
				var mp *session.MissingParentError
				require.True(t, errors.As(err, &mp), "open error = %s; want the *MissingParentError inside the "+
					"*LineError: the parent must be on an earlier line", fakeDescribe(err))
				assert.Equal(t, tc.child, mp.ChildID, "MissingParentError.ChildID")
				assert.Equal(t, tc.of, mp.ParentID, "MissingParentError.ParentID")
			}
			after, _ := f.file(jsonlPath)
			assert.Equal(t, tc.text, after, "opening must never rewrite the file")
			assert.Equal(t, 0, f.appendCount(), "opening must never append")
		})
	}
}

// Rule 10.5.5: a store that needs repair says why when it is read: Warnings
// holds the unterminated tail and its line, the same every time; a healthy
// or missing file has none.
func TestLab10_5_WarningsSayWhyAppendsAreRefused(t *testing.T) {
	f := newFakeFS(t)
	f.setFile(jsonlPath, jsonlFileOf(t, user("a", "", "hi"))+"\n"+`{"type":"message","id":"b","pa`)
	s := jsonlMustOpen(t, f, jsonlPath, "a file whose line 3 is cut short")
	want := []session.Warning{{Code: session.WarnUnterminatedTail, Line: 3}}
	assert.Equal(t, want, s.Warnings(), "Warnings() of a store opened on a file whose line 3 has no \"\\n\": a reader "+
		"must learn why the store refuses appends without trying one (lab 10.5)")
	got, err := fakeEntries(t, s, "Entries")
	require.NoError(t, err, "Entries() of a store that needs repair: the committed prefix is readable")
	assert.Equal(t, []session.SessionEntry{user("a", "", "hi")}, got)

	ws := s.Warnings()
	if len(ws) > 0 {
		ws[0].Line = 99
	}
	err = fakeWaitPending(t, fakeAppend(t, s, assistantText("b", "a", "yo"), "Append(b)"), "Append(b)")
	var nr *session.NeedsRepairError
	require.True(t, errors.As(err, &nr), "Append(b) = %s; want *NeedsRepairError", fakeDescribe(err))
	assert.Equal(t, want, s.Warnings(), "Warnings() changed after the caller changed an earlier result or an append "+
		"was refused: return a copy of what recovery said at open")

	for name, text := range map[string]string{"a healthy file": jsonlFileOf(t, user("a", "", "hi")), "an empty file": ""} {
		f := newFakeFS(t)
		f.setFile(jsonlPath, text)
		s := jsonlMustOpen(t, f, jsonlPath, name)
		assert.Empty(t, s.Warnings(), "Warnings() of a store opened on %s", name)
	}
	assert.Empty(t, jsonlMustOpen(t, newFakeFS(t), jsonlPath, "a missing file").Warnings(), "Warnings() of a store opened on a missing file")
}

// Rule 10.5.2: an invalid entry is rejected at call time with its
// *FieldError whatever state the writer is in: ready, tainted or needing
// repair. Validation needs no file and no turn, so it never waits for one.
func TestLab10_5_InvalidEntryAfterTheWriterStopped(t *testing.T) {
	bad := assistantToolCall("bad", "a", "c1")
	bad.Message.(*session.AssistantMessage).Content[1].(session.ToolCall).Arguments["n"] = math.NaN()

	f := newFakeFS(t)
	ioErr := errors.New("disk full")
	f.onAppend(1, fakeHook{Err: ioErr, WriteHalf: true})
	s := jsonlMustOpen(t, f, jsonlPath, "missing file")
	err := fakeWaitPending(t, fakeAppend(t, s, user("a", "", "hi"), "Append(a)"), "Append(a)")
	require.True(t, errors.Is(err, ioErr), "Append(a) whose write failed = %s; want the write error", fakeDescribe(err))

	repair := newFakeFS(t)
	repair.setFile(jsonlPath, jsonlFileOf(t, user("a", "", "hi"))+`{"ty`)
	for name, store := range map[string]*session.JSONLSessionStore{
		"a tainted store":           s,
		"a store that needs repair": jsonlMustOpen(t, repair, jsonlPath, "a file with a tail"),
	} {
		p := fakeAppend(t, store, bad, "Append(entry with a NaN argument)")
		require.True(t, fakeIsDone(p), "Append(invalid entry) on %s returned a Pending that is not completed: "+
			"validation happens at call time and needs no turn (lab 10.5)", name)
		err := fakeWaitPending(t, p, "invalid append on "+name)
		var fe *session.FieldError
		require.True(t, errors.As(err, &fe), "Append(entry with a NaN tool argument) on %s = %s; want its *FieldError: "+
			"the handout's one rule is that an invalid entry is rejected at call time, before the state of the "+
			"writer matters (lab 10.5)", name, fakeDescribe(err))
		assert.Equal(t, "entry.message.content[1].arguments.n", fe.Path)
		assert.False(t, errors.Is(err, session.ErrTainted) || errors.Is(err, session.ErrNeedsRepair),
			"Append(invalid entry) on %s = %s; want only the *FieldError", name, fakeDescribe(err))
	}
	assert.Equal(t, 1, f.appendCount(), "only the failed write of a reached AppendFile")
	assert.Equal(t, 0, repair.appendCount(), "a store that needs repair never calls AppendFile")
	_, err = fakeEntries(t, s, "Entries of the tainted store")
	jsonlRequireTainted(t, err, ioErr, "Entries() after the failed write and a rejected invalid entry")
}

// Rule 10.5.4, 10.5.8: appends and reads called while the failing write is
// still in flight, from this goroutine and from others, see the taint in
// their turn: each fails with a *TaintedError holding the write's own error.
// The callers and the failing write touch the same state at the same time:
// run it with -race.
func TestLab10_5_CallersInFlightSeeTheTaintInTheirTurn(t *testing.T) {
	f := newFakeFS(t)
	ioErr := errors.New("no space left on device")
	gate := f.newGate()
	f.onAppend(2, fakeHook{Gate: gate, Err: ioErr, WriteHalf: true})
	s := jsonlMustOpen(t, f, jsonlPath, "missing file")
	require.NoError(t, fakeWaitPending(t, fakeAppend(t, s, user("a", "", "hi"), "Append(a)"), "Append(a)"))

	pB := fakeAppend(t, s, assistantText("b", "a", "yo"), "Append(b)")
	f.waitAppendStarted(t, 2, "Append(b)") // b's write is in flight now; it will fail
	pC := fakeAppend(t, s, assistantText("c", "a", "while b is written"), "Append(c)")
	assert.False(t, fakeIsDone(pC), "Append(c), called while b's write is in flight, completed before that write "+
		"returned: its turn comes after b's (lab 10.5)")
	// Readers, too, call Entries while the write is in flight (and again
	// until b's append has completed).
	type read struct {
		entries []session.SessionEntry
		err     error
	}
	const readers = 4
	reads := make([]<-chan outcome[[]read], readers)
	for r := range reads {
		reads[r] = goCall("Entries(), called while b's write was in flight,", func() []read {
			var rs []read
			for k := 0; k < 1000; k++ {
				es, err := s.Entries()
				rs = append(rs, read{es, err})
				if fakeIsDone(pB) {
					break
				}
			}
			return rs
		})
	}
	// Other goroutines keep appending until they see b's append complete:
	// their calls and the failing write touch the store at the same time.
	// (The entries are made beforehand: fmt keeps a pool of buffers, and
	// under -race taking one the failing write just gave back would order
	// the two goroutines and hide a race.)
	const others, most = 4, 1000
	other := make([]<-chan outcome[[]*session.Pending], others)
	for g := range other {
		entries := make([]session.SessionEntry, most)
		for k := range entries {
			entries[k] = user(fmt.Sprintf("g%d-%d", g, k), "", "from another goroutine")
		}
		other[g] = goCall("Append, called from another goroutine while b's write was in flight,", func() []*session.Pending {
			var ps []*session.Pending
			for _, e := range entries {
				ps = append(ps, s.Append(e))
				if fakeIsDone(pB) {
					break
				}
			}
			return ps
		})
	}
	gate.open() // b's write now writes half its line and fails

	err := fakeWaitPending(t, pB, "Append(b)")
	assert.True(t, errors.Is(err, ioErr) && !errors.Is(err, session.ErrTainted),
		"Append(b), whose write failed, = %s; want the write error itself", fakeDescribe(err))
	jsonlRequireTainted(t, fakeWaitPending(t, pC, "Append(c)"), ioErr, "Append(c), called while b's write was in flight,")
	for g := range other {
		var ps []*session.Pending
		select {
		case o := <-other[g]:
			ps = o.value(t, "another goroutine appending")
		case <-time.After(fakeTimeout):
			t.Fatal("the appends of another goroutine did not return")
		}
		for k, p := range ps {
			jsonlRequireTainted(t, fakeWaitPending(t, p, "Append from another goroutine"), ioErr,
				fmt.Sprintf("Append(%q), called from another goroutine after b's write had started,", fmt.Sprintf("g%d-%d", g, k)))
		}
	}
	for r := range reads {
		var rs []read
		select {
		case o := <-reads[r]:
			rs = o.value(t, "a reader")
		case <-time.After(fakeTimeout):
			t.Fatal("Entries() called while b's write was in flight did not return after the write failed")
		}
		for _, rd := range rs {
			jsonlRequireTainted(t, rd.err, ioErr, "Entries(), called while b's write was in flight,")
			assert.Empty(t, rd.entries, "Entries() returned entries along with the tainted error")
		}
	}
	assert.Equal(t, 2, f.appendCount(), "after b's write failed, nothing may call AppendFile again")
}
