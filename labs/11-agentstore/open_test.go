package agentstore_test

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	agentstore "github.com/coursekit/course/labs/11-agentstore"
)

// threeEntries is a small existing session: a user message, a reply, and a
// second question.
func threeEntries() string {
	return headerLine("s0", T1, "/old/cwd") +
		msgLine("a", "", user("list the files")) +
		msgLine("b", "a", assistant("README.md and go.mod")) +
		msgLine("c", "b", user("read README.md"))
}

// Rule 11.1.1: a missing file becomes a new session, whose header line is
// written beside the path and renamed over it.
func TestLab11_1_MissingFileGetsHeaderByRename(t *testing.T) {
	fx := newFixture()
	s := mustOpen(t, fx.opts(), "missing file")

	want := headerLine("s1", T0, sessCwd)
	assert.Equal(t, want, fx.fs.file(sessPath),
		"after Open of a missing file, the file must hold exactly one header line: version 3, the id from "+
			"NewSessionID, Now() in UTC formatted with TimeFormat, and Options.Cwd")
	assert.Equal(t, agentstore.Header{Version: 3, ID: "s1", Timestamp: T0, Cwd: sessCwd}, headerOf(t, s),
		"Header() of a new session")
	assert.Equal(t, "", leafOf(t, s), "a new session has no entry, so no leaf")

	ops := fx.fs.opsSince(0)
	var sawRename bool
	for _, o := range writesTo(ops, sessPath) {
		if o.Op == "Rename" && o.Path == agentstore.TempPath(sessPath) {
			sawRename = true
			continue
		}
		t.Errorf("Open of a missing file called %s; the header must be written to TempPath(path) and renamed "+
			"over the path, so that the path never holds half a header (calls: %s)", o, opNames(ops))
	}
	assert.True(t, sawRename, "Open of a missing file must Rename(TempPath(path), path); calls: %s", opNames(ops))
	assert.Equal(t, []string{sessPath}, fx.fs.paths(), "no temporary file is left behind")
}

// Rule 11.1.1: an existing but empty file is a new session too.
func TestLab11_1_EmptyFileIsNewSession(t *testing.T) {
	fx := newFixture()
	fx.fs.setFile(sessPath, "")
	s := mustOpen(t, fx.opts(), "empty file")
	assert.Equal(t, headerLine("s1", T0, sessCwd), fx.fs.file(sessPath),
		"an empty file has no header yet: Open writes one, as for a missing file")
	assert.Equal(t, "s1", headerOf(t, s).ID)
	for _, o := range writesTo(fx.fs.opsSince(0), sessPath) {
		assert.Equal(t, "Rename", o.Op, "Open of an empty file called %s: the header goes in by rename only", o)
	}
}

// Rule 11.1.1: a failed header write or rename fails Open, leaves the path
// as it was and removes the temporary file.
func TestLab11_1_FailedHeaderWriteLeavesNothing(t *testing.T) {
	diskFull := errors.New("no space left on device")
	for _, op := range []string{"WriteFile", "Rename"} {
		t.Run(op, func(t *testing.T) {
			fx := newFixture()
			fx.fs.fail(op, fsFailure{Err: diskFull, Written: -1})
			_, err := open(t, fx.opts())
			assert.True(t, errors.Is(err, diskFull),
				"Open of a missing file when %s fails = %s; want that error (errors.Is)", op, describe(err))
			assert.Equal(t, missing, fx.fs.file(sessPath), "after a failed %s the path holds nothing", op)
			assert.Equal(t, missing, fx.fs.file(agentstore.TempPath(sessPath)),
				"after a failed %s, Open must Remove the temporary file it wrote; files left: %v", op, fx.fs.paths())
		})
	}
}

// Rule 11.1.2, 11.1.4: an existing file is only read; Header, Leaf and
// Entry come from its lines.
func TestLab11_1_ExistingFileIsOnlyRead(t *testing.T) {
	fx := newFixture()
	fx.fs.setFile(sessPath, threeEntries())
	s := mustOpen(t, fx.opts(), "three-entry file")

	requireOnlyReads(t, fx.fs.opsSince(0), "Open of an existing file")
	assert.Equal(t, threeEntries(), fx.fs.file(sessPath), "Open must never change an existing file")
	assert.Equal(t, agentstore.Header{Version: 3, ID: "s0", Timestamp: T1, Cwd: "/old/cwd"}, headerOf(t, s),
		"Header() is the file's first line, not a new header (and not Options.Cwd)")
	assert.Equal(t, "c", leafOf(t, s), "the leaf is the entry of the last line")
	assert.Empty(t, fx.sessions.handedOut(), "an existing session keeps its id: NewSessionID must not be called")

	for _, want := range []agentstore.Entry{
		{Type: "message", ID: "a", Timestamp: T1, Message: user("list the files")},
		{Type: "message", ID: "b", ParentID: "a", Timestamp: T1, Message: assistant("README.md and go.mod")},
		{Type: "message", ID: "c", ParentID: "b", Timestamp: T1, Message: user("read README.md")},
	} {
		got, ok := entryOf(t, s, want.ID)
		require.True(t, ok, "Entry(%q) found nothing after Open: the index must be rebuilt from the file's lines", want.ID)
		assert.Equal(t, want, got, "Entry(%q)", want.ID)
	}
	_, ok := entryOf(t, s, "zz")
	assert.False(t, ok, "Entry of an id no line has")
}

// Rule 11.1.2: a read error is returned; only a missing file is a new session.
func TestLab11_1_ReadErrorIsReturned(t *testing.T) {
	fx := newFixture()
	denied := &fs.PathError{Op: "open", Path: sessPath, Err: fs.ErrPermission}
	fx.fs.readError = denied
	_, err := open(t, fx.opts())
	assert.True(t, errors.Is(err, fs.ErrPermission),
		"Open over a file that cannot be read = %s; want the read error — only fs.ErrNotExist means "+
			"\"no session yet\"; any other error must not become a new, empty session", describe(err))
	requireOnlyReads(t, fx.fs.opsSince(0), "a failed Open")
}

// Rule 11.1.3: a committed line the store cannot accept fails Open with a
// *LineError naming the path and the physical line.
func TestLab11_1_BadLinesNameTheirLine(t *testing.T) {
	for _, tc := range []struct {
		name string
		text string
		line int
		is   error
		as   any
	}{
		{"not JSON on line 3, after a blank line", headerLine("s0", T1, "/") + "\n" + `{"type":"message","id":` + "\n", 3, nil, nil},
		{"no header", msgLine("a", "", user("hi")), 1, agentstore.ErrNoHeader, nil},
		{"version 4", `{"type":"session","version":4,"id":"s0","timestamp":"` + T1 + `","cwd":"/"}` + "\n", 1, nil, new(*agentstore.VersionError)},
		{"entry without id", headerLine("s0", T1, "/") + msgLine("a", "", user("hi")) +
			`{"type":"message","parentId":"a","timestamp":"` + T1 + `","message":{"role":"user","content":"x"}}` + "\n", 3, nil, new(*agentstore.FieldError)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fx := newFixture()
			fx.fs.setFile(sessPath, tc.text)
			_, err := open(t, fx.opts())
			var le *agentstore.LineError
			require.True(t, errors.As(err, &le), "Open over %q = %s; want a *LineError", tc.text, describe(err))
			assert.Equal(t, tc.line, le.Line, "LineError.Line for %q: physical, 1-based, blank lines counted", tc.text)
			assert.Equal(t, sessPath, le.Path, "LineError.Path: the error must say which file")
			if tc.is != nil {
				assert.True(t, errors.Is(err, tc.is), "Open over %q = %s; want errors.Is(err, %v)", tc.text, describe(err), tc.is)
			}
			if tc.as != nil {
				assert.True(t, errors.As(err, tc.as), "Open over %q = %s; want it to wrap a %T", tc.text, describe(err), tc.as)
			}
			requireOnlyReads(t, fx.fs.opsSince(0), "a failed Open")
		})
	}
}

// Rule 11.1.4: ids are unique and parents come first; the index is built
// in one pass over the lines.
func TestLab11_1_IndexRejectsDuplicatesAndOrphans(t *testing.T) {
	t.Run("duplicate", func(t *testing.T) {
		fx := newFixture()
		fx.fs.setFile(sessPath, threeEntries()+msgLine("b", "c", assistant("again")))
		_, err := open(t, fx.opts())
		var de *agentstore.DuplicateIDError
		require.True(t, errors.As(err, &de), "Open over a file where line 5 repeats id \"b\" = %s; want a *DuplicateIDError", describe(err))
		assert.Equal(t, "b", de.ID)
		var le *agentstore.LineError
		require.True(t, errors.As(err, &le), "the *DuplicateIDError must come inside a *LineError")
		assert.Equal(t, 5, le.Line, "the line of the second \"b\"")
	})
	t.Run("parent on a later line", func(t *testing.T) {
		fx := newFixture()
		text := headerLine("s0", T1, "/") + msgLine("a", "", user("hi")) + msgLine("b", "c", assistant("early")) +
			msgLine("c", "a", user("late"))
		fx.fs.setFile(sessPath, text)
		_, err := open(t, fx.opts())
		var mp *agentstore.MissingParentError
		require.True(t, errors.As(err, &mp), "Open over a file whose line 3 names a parent that only line 4 holds = %s; "+
			"want a *MissingParentError: an append-only file always has the parent first", describe(err))
		assert.Equal(t, agentstore.MissingParentError{ChildID: "b", ParentID: "c"}, *mp)
		var le *agentstore.LineError
		require.True(t, errors.As(err, &le))
		assert.Equal(t, 3, le.Line)
	})
}

// Rule 11.1.4: the leaf is the entry of the last line, not the deepest
// entry and not the last message; Entry knows entries of every type.
func TestLab11_1_LeafIsTheLastLine(t *testing.T) {
	fx := newFixture()
	text := headerLine("s0", T1, "/") +
		msgLine("a", "", user("hi")) +
		msgLine("b", "a", assistant("one")) +
		msgLine("c", "b", user("two")) +
		compactionLine("k", "c", "they said hi", "b", 99) +
		msgLine("d", "a", assistant("another answer to hi")) +
		otherLine("label", "l", "d")
	fx.fs.setFile(sessPath, text)
	s := mustOpen(t, fx.opts(), "file whose last line is a label on a short branch")
	assert.Equal(t, "l", leafOf(t, s), "Leaf() after Open of a file whose lines are a, b, c, the compaction k, d (a "+
		"second answer to a) and the label l: the leaf is the entry of the last line, whatever its type, and whichever "+
		"branch is deeper")

	k, ok := entryOf(t, s, "k")
	require.True(t, ok, "Entry(\"k\") after Open found nothing; want the compaction of line 5: a compaction line is an "+
		"entry like any other, indexed by its id")
	assert.Equal(t, agentstore.Entry{Type: "compaction", ID: "k", ParentID: "c", Timestamp: T1,
		Summary: "they said hi", FirstKeptEntryID: "b", TokensBefore: 99}, k, "Entry(\"k\"): the compaction as DecodeEntry reads it")
	l, ok := entryOf(t, s, "l")
	require.True(t, ok, "Entry(\"l\") after Open found nothing; want the label of line 7: a line of a type the store "+
		"does not interpret is still an entry of the tree, indexed like the others")
	assert.Equal(t, agentstore.Entry{Type: "label", ID: "l", ParentID: "d", Timestamp: T1}, l, "Entry(\"l\"): its base fields")
}

// Rule 11.1.5: a last line without "\n" was never committed, whatever it
// holds: half an entry, a whole one, or white space only.
func TestLab11_1_UnterminatedTailIsNotAFact(t *testing.T) {
	whole := msgLine("d", "c", assistant("it says hello"))
	for _, tc := range []struct{ name, tail string }{
		{"half an entry", whole[:len(whole)/2]},
		{"a whole entry without its newline", strings.TrimSuffix(whole, "\n")},
		{"white space only", " \t "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fx := newFixture()
			text := threeEntries() + tc.tail
			fx.fs.setFile(sessPath, text)
			s := mustOpen(t, fx.opts(), "file of three entries ending in "+tc.name+" without \"\\n\"")
			assert.Equal(t, "c", leafOf(t, s), "Leaf() after Open of a file of three entries (a, b, c) whose line 5 is %s "+
				"without \"\\n\": the leaf is c, the last committed entry. A line counts only once its \"\\n\" is written: "+
				"this one is not a fact, whatever it holds", tc.name)
			_, ok := entryOf(t, s, "d")
			assert.False(t, ok, "Entry(\"d\") found the entry of the unterminated line 5; want nothing: an unterminated "+
				"line is not decoded and not indexed")
			for _, id := range []string{"a", "b", "c"} {
				_, ok = entryOf(t, s, id)
				assert.True(t, ok, "Entry(%q) found nothing; want the entry of its committed line: a tail after them "+
					"does not make Open drop them", id)
			}
			requireOnlyReads(t, fx.fs.opsSince(0), "Open of a file with a tail (nothing is repaired automatically)")
			assert.Equal(t, text, fx.fs.file(sessPath), "Open changed the file; it only reads a file with a tail")
		})
	}
}

// Rule 11.1.2, 11.1.4: a session file written by pi (version 3) opens: its
// header, and every entry of every type in the index.
func TestLab11_1_OpensPiSessionFile(t *testing.T) {
	fx := newFixture()
	fx.fs.setFile(sessPath, piSession)
	s := mustOpen(t, fx.opts(), "testdata/pi/tokenizer.jsonl")
	assert.Equal(t, agentstore.Header{Version: 3, ID: "019cebab-8995-795a-8c23-654cc9f96c79",
		Timestamp: "2026-03-14T09:26:53.589Z", Cwd: "/home/ada/src/tokenizer"}, headerOf(t, s),
		"Header() of pi's file: its first line")
	said := piContexts(t, "tokenizer")
	assert.Equal(t, *said.OpenLeaf, leafOf(t, s), "Leaf() of pi's file: pi opens it on the last line's entry, %s", *said.OpenLeaf)
	for _, id := range piIDs {
		_, ok := entryOf(t, s, id)
		assert.True(t, ok, "Entry(%q) of pi's file found nothing; want the entry of its line: every line of every type "+
			"is in the index", id)
	}
	requireOnlyReads(t, fx.fs.opsSince(0), "Open of pi's file")
}

// Rule 11.1.6: only a 0-byte file is empty. A file with no committed header
// line (blank lines only, or a header that was never finished) is not a new
// session: Open refuses it at line 1 and writes nothing.
func TestLab11_1_NoCommittedHeaderIsNoSession(t *testing.T) {
	whole := headerLine("s0", T1, "/old/cwd")
	for _, tc := range []struct{ name, text string }{
		{"one blank line", "\n"},
		{"blank lines of spaces, tabs and \\r", " \t\r\n\n\r\n"},
		{"a whole header without its newline", strings.TrimSuffix(whole, "\n")},
		{"half a header", whole[:25]},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fx := newFixture()
			fx.fs.setFile(sessPath, tc.text)
			s, err := open(t, fx.opts())
			var le *agentstore.LineError
			require.True(t, errors.As(err, &le), "Open over a file holding %q = (%v, %s); want a *LineError wrapping "+
				"ErrNoHeader. Only a file of 0 bytes is empty: this one has bytes but no committed header line, so it "+
				"is not a session, and not a new one either (a new header renamed over it would throw its bytes away)",
				tc.text, s, describe(err))
			assert.True(t, errors.Is(err, agentstore.ErrNoHeader), "Open over %q = %s; want errors.Is(err, ErrNoHeader)",
				tc.text, describe(err))
			assert.Equal(t, 1, le.Line, "LineError.Line for %q: a file with no committed header line is refused at "+
				"line 1, where its header belongs", tc.text)
			assert.Equal(t, sessPath, le.Path, "LineError.Path")
			requireOnlyReads(t, fx.fs.opsSince(0), "Open of a file without a committed header")
			assert.Equal(t, tc.text, fx.fs.file(sessPath), "Open changed a file it refused")
			assert.Empty(t, fx.sessions.handedOut(), "Open over %q asked NewSessionID for an id: it is not a new session", tc.text)
		})
	}
}

// Rule 11.1.3: a header newer than version 3 is refused: a newer pi may
// have changed what a line means. The *VersionError is the *LineError's Err
// itself, naming the version the header has. (How versions 1 and 2 open is
// exercise 11.7's.)
func TestLab11_1_NewerVersionsAreRefused(t *testing.T) {
	for _, v := range []int{4, 5, 99} {
		text := fmt.Sprintf(`{"type":"session","version":%d,"id":"s0","timestamp":"%s","cwd":"/"}`, v, T1) + "\n" + msgLine("a", "", user("hi"))
		fx := newFixture()
		fx.fs.setFile(sessPath, text)
		_, err := open(t, fx.opts())
		var le *agentstore.LineError
		require.True(t, errors.As(err, &le), "Open over a header of version %d = %s; want a *LineError: this store "+
			"reads no version newer than %d", v, describe(err), agentstore.CurrentVersion)
		assert.Equal(t, 1, le.Line, "LineError.Line: the header's line")
		ve, ok := le.Err.(*agentstore.VersionError)
		require.True(t, ok, "Open over a header of version %d: LineError.Err = %s; want the *VersionError itself: "+
			"&LineError{Path, Line, Err: &VersionError{Version}}", v, describe(le.Err))
		assert.Equal(t, v, ve.Version, "VersionError.Version: the version the header has")
		requireOnlyReads(t, fx.fs.opsSince(0), "Open over a header of a newer version")
	}
}

// Rule 11.1.3, 11.1.6: every *LineError holds its cause itself: ErrNoHeader
// is the Err of a file without a header, and the Err of a line that
// DecodeEntry refuses is exactly what DecodeEntry returned, not a wrapper of
// either (errors.Is and errors.As see through wrappers; a reader of
// LineError.Err does not).
func TestLab11_1_LineErrorHoldsItsCause(t *testing.T) {
	for _, text := range []string{"\n \t\n", `{"type":"session","version":3`} {
		fx := newFixture()
		fx.fs.setFile(sessPath, text)
		_, err := open(t, fx.opts())
		var le *agentstore.LineError
		require.True(t, errors.As(err, &le), "Open over %q = %s; want a *LineError", text, describe(err))
		assert.True(t, le.Err == agentstore.ErrNoHeader, "Open over %q (no committed header line): LineError.Err = %s; "+
			"want ErrNoHeader itself (&LineError{Path: path, Line: 1, Err: ErrNoHeader}), not a wrapper of it",
			text, describe(le.Err))
	}

	entry := strings.TrimSuffix(msgLine("a", "", user("hi")), "\n")
	fx := newFixture()
	fx.fs.setFile(sessPath, entry+"\n")
	_, err := open(t, fx.opts())
	var first *agentstore.LineError
	require.True(t, errors.As(err, &first), "Open over a file whose first line is an entry = %s; want a *LineError", describe(err))
	_, wantHeader := agentstore.DecodeHeader([]byte(entry))
	assert.Equal(t, wantHeader, first.Err, "Open over a file whose first line is an entry: LineError.Err = %s; want "+
		"exactly what DecodeHeader(line 1) returns, %s", describe(first.Err), describe(wantHeader))

	bad := `{"type":"message","id":"b","parentId":"a","timestamp":"` + T1 + `","message":{"content":"no role"}}`
	fx = newFixture()
	fx.fs.setFile(sessPath, headerLine("s0", T1, "/")+msgLine("a", "", user("hi"))+bad+"\n")
	_, err = open(t, fx.opts())
	var le *agentstore.LineError
	require.True(t, errors.As(err, &le), "Open over a file whose line 3 has a message without a role = %s; want a *LineError", describe(err))
	_, want := agentstore.DecodeEntry([]byte(bad))
	require.Error(t, want, "test setup: DecodeEntry refuses line 3")
	assert.Equal(t, want, le.Err, "Open: LineError.Err = %s; want exactly what DecodeEntry(line 3) returns, %s",
		describe(le.Err), describe(want))
}

// Rule 11.1.3: a committed line may be of any length: a message of 200 KiB
// (a long tool result) opens like any other; bufio.Scanner's default 64 KiB
// limit is not the file's.
func TestLab11_1_LongLinesOpen(t *testing.T) {
	long := agentstore.Message(fmt.Sprintf(`{"role":"toolResult","content":%q}`, strings.Repeat("日志 ", 40_000)))
	fx := newFixture()
	fx.fs.setFile(sessPath, headerLine("s0", T1, "/")+msgLine("a", "", user("cat big.log"))+msgLine("b", "a", long)+
		msgLine("c", "b", assistant("it is long")))
	s, err := open(t, fx.opts())
	require.NoError(t, err, "Open over a file with a line of %d bytes = %s; want no error: a line is as long as its "+
		"entry", len(long), describe(err))
	e, ok := entryOf(t, s, "b")
	require.True(t, ok, "Entry(\"b\"), the long line")
	assert.Equal(t, string(long), string(e.Message), "Entry(\"b\").Message: the whole long message")
	assert.Equal(t, "c", leafOf(t, s), "the leaf is the entry after the long line")
}

// Rule 11.1.3: blank means only spaces, tabs and "\r": a line of any other
// white space (a no-break space, an ideographic space, a form feed) is a
// committed line that is not an entry, so Open refuses it at its line.
func TestLab11_1_OnlySpacesTabsAndCRAreBlank(t *testing.T) {
	for _, ws := range []string{"\u00a0", "\u3000", "\f", "\v"} {
		fx := newFixture()
		fx.fs.setFile(sessPath, headerLine("s0", T1, "/")+msgLine("a", "", user("hi"))+" "+ws+"\n"+msgLine("b", "a", assistant("ok")))
		_, err := open(t, fx.opts())
		var le *agentstore.LineError
		require.True(t, errors.As(err, &le), "Open over a file whose line 3 is %q = %s; want a *LineError: white "+
			"space to unicode.IsSpace, but a blank line is only spaces, tabs and \\r (strings.TrimSpace would skip it)",
			" "+ws, describe(err))
		assert.Equal(t, 3, le.Line, "LineError.Line of the line %q", " "+ws)
	}
}
