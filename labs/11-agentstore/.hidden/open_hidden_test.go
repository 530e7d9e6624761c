package agentstore_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	agentstore "github.com/coursekit/course/labs/11-agentstore"
)

// Rule 11.1.1: the new header takes its id, time and cwd from Options.
func TestLab11_1_HiddenNewHeaderComesFromOptions(t *testing.T) {
	fx := newFixture()
	fx.clock.set("2024-02-29T23:30:00.007Z")
	fx.sessions.then("019f94e7-a627-75fa-8509-c8d85654e609")
	opts := fx.opts()
	opts.Cwd = `C:\Users\ana\项目`
	s := mustOpen(t, opts, "missing file")
	assert.Equal(t, headerLine("019f94e7-a627-75fa-8509-c8d85654e609", "2024-02-29T23:30:00.007Z", `C:\Users\ana\项目`),
		fx.fs.file(sessPath))
	assert.Equal(t, agentstore.Header{Version: 3, ID: "019f94e7-a627-75fa-8509-c8d85654e609",
		Timestamp: "2024-02-29T23:30:00.007Z", Cwd: `C:\Users\ana\项目`}, headerOf(t, s))
}

// Rule 11.1.1: a rename that fails outright leaves an empty file empty and
// removes the temporary file.
func TestLab11_1_HiddenFailedRenameOverEmptyFile(t *testing.T) {
	fx := newFixture()
	fx.fs.setFile(sessPath, "")
	busy := errors.New("the file is in use by another process")
	fx.fs.fail("Rename", fsFailure{Err: busy})
	_, err := open(t, fx.opts())
	assert.True(t, errors.Is(err, busy), "Open when the rename fails = %s", describe(err))
	assert.Equal(t, "", fx.fs.file(sessPath), "the empty file is left as it was")
	assert.Equal(t, []string{sessPath}, fx.fs.paths(), "the temporary file is removed")
}

// Rule 11.1.3: CRLF line ends and whitespace-only lines; line numbers stay
// physical; a session line after the first is an error.
func TestLab11_1_HiddenLineNumbersWithCRLFAndBlanks(t *testing.T) {
	crlf := func(line string) string { return line[:len(line)-1] + "\r\n" }
	good := crlf(headerLine("s0", T1, "/")) + " \t\r\n" + crlf(msgLine("a", "", user("hi"))) + "\n"
	fx := newFixture()
	fx.fs.setFile(sessPath, good)
	s := mustOpen(t, fx.opts(), "CRLF file with blank lines")
	assert.Equal(t, "a", leafOf(t, s))

	for _, tc := range []struct {
		name string
		text string
		line int
		is   error
		as   any
	}{
		{"a second header on line 5", good + crlf(headerLine("s1", T1, "/")), 5, nil, new(*agentstore.FieldError)},
		{"a version-5 header after a blank line", "\n" + `{"type":"session","version":5,"id":"s0","timestamp":"` + T1 + `","cwd":"/"}` + "\n", 2, nil, new(*agentstore.VersionError)},
		{"a header without a type", `{"version":3,"id":"s0","timestamp":"` + T1 + `","cwd":"/"}` + "\n", 1, agentstore.ErrNoHeader, nil},
		{"a bad timestamp on line 6", good + "\n" + `{"type":"message","id":"b","parentId":"a","timestamp":1,"message":{"role":"user"}}` + "\n", 6, nil, new(*agentstore.FieldError)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fx := newFixture()
			fx.fs.setFile(sessPath, tc.text)
			_, err := open(t, fx.opts())
			var le *agentstore.LineError
			require.True(t, errors.As(err, &le), "Open over %q = %s; want a *LineError", tc.text, describe(err))
			assert.Equal(t, tc.line, le.Line)
			assert.Equal(t, sessPath, le.Path)
			if tc.is != nil {
				assert.True(t, errors.Is(err, tc.is), "errors.Is(%s, %v)", describe(err), tc.is)
			}
			if tc.as != nil {
				assert.True(t, errors.As(err, tc.as), "Open over %q = %s; want a %T inside", tc.text, describe(err), tc.as)
			}
			if v := new(*agentstore.VersionError); tc.as != nil && errors.As(err, v) {
				assert.Equal(t, 5, (*v).Version, "VersionError.Version: the header's")
			}
		})
	}
}

// Rule 11.1.4: an entry that names itself as parent, and a duplicate of a
// different type, are refused at their lines.
func TestLab11_1_HiddenSelfParentAndDuplicateOfOtherType(t *testing.T) {
	fx := newFixture()
	fx.fs.setFile(sessPath, headerLine("s0", T1, "/")+msgLine("a", "", user("hi"))+msgLine("x", "x", user("me")))
	_, err := open(t, fx.opts())
	var mp *agentstore.MissingParentError
	require.True(t, errors.As(err, &mp), "an entry whose parent is itself = %s; want *MissingParentError", describe(err))
	assert.Equal(t, agentstore.MissingParentError{ChildID: "x", ParentID: "x"}, *mp)
	var le *agentstore.LineError
	require.True(t, errors.As(err, &le))
	assert.Equal(t, 3, le.Line)

	fx = newFixture()
	fx.fs.setFile(sessPath, headerLine("s0", T1, "/")+msgLine("a", "", user("hi"))+"\n"+otherLine("label", "a", "a"))
	_, err = open(t, fx.opts())
	var de *agentstore.DuplicateIDError
	require.True(t, errors.As(err, &de), "a label reusing a message's id = %s; want *DuplicateIDError", describe(err))
	assert.Equal(t, "a", de.ID)
	require.True(t, errors.As(err, &le))
	assert.Equal(t, 4, le.Line)
}

// Rule 11.1.4, 11.1.5: the leaf is a compaction when it is the last line;
// a whitespace tail is still a tail, not a blank line.
func TestLab11_1_HiddenLeafOnCompactionBeforeWhitespaceTail(t *testing.T) {
	fx := newFixture()
	text := headerLine("s0", T1, "/") + msgLine("a", "", user("hi")) + msgLine("b", "a", assistant("hello")) +
		compactionLine("k", "b", "greetings", "b", 12) + "  "
	fx.fs.setFile(sessPath, text)
	s := mustOpen(t, fx.opts(), "file ending in a compaction and a whitespace-only tail")
	assert.Equal(t, "k", leafOf(t, s))
	e, ok := entryOf(t, s, "k")
	require.True(t, ok)
	assert.Equal(t, "compaction", e.Type)
	requireOnlyReads(t, fx.fs.opsSince(0), "Open")
}

// Rule 11.1.2: a "not found" error wrapped by the file system is still a
// missing file.
func TestLab11_1_HiddenWrappedNotExistIsNewSession(t *testing.T) {
	fx := newFixture()
	fx.fs.readError = &wrappedNotExist{}
	s := mustOpen(t, fx.opts(), "file system that wraps fs.ErrNotExist")
	assert.Equal(t, "s1", headerOf(t, s).ID)
}

type wrappedNotExist struct{}

func (*wrappedNotExist) Error() string { return "object storage: key not found" }
func (*wrappedNotExist) Unwrap() error { return fsErrNotExist }

// Rule 11.1.6: spaces without a newline, CRLF blank lines, and a half header
// after blank lines are no session either; each is refused at line 1.
func TestLab11_1_HiddenNoHeaderOnlyBlanksOrATail(t *testing.T) {
	header := headerLine("s7", T1, "/")
	for _, text := range []string{
		"   ",
		"\r\n\r\n",
		"\n\n" + header[:40],
		"\t\n" + header[:len(header)-1],
	} {
		fx := newFixture()
		fx.fs.setFile(sessPath, text)
		_, err := open(t, fx.opts())
		var le *agentstore.LineError
		require.True(t, errors.As(err, &le), "Open over %q = %s; want a *LineError", text, describe(err))
		assert.True(t, errors.Is(err, agentstore.ErrNoHeader), "Open over %q = %s", text, describe(err))
		assert.Equal(t, agentstore.LineError{Path: sessPath, Line: 1, Err: le.Err}, *le, "Open over %q", text)
		requireOnlyReads(t, fx.fs.opsSince(0), "Open")
		assert.Equal(t, text, fx.fs.file(sessPath))
		assert.Empty(t, fx.sessions.handedOut())
	}
}

// Rule 11.1.3: a version-4 header after blank lines and with CRLF is a
// *VersionError on its own line, inside the *LineError itself.
func TestLab11_1_HiddenNewerVersionAfterBlanks(t *testing.T) {
	fx := newFixture()
	fx.fs.setFile(sessPath, "\r\n\t\n"+`{"type":"session","version":4,"id":"s9","timestamp":"`+T1+`","cwd":"/"}`+"\r\n"+msgLine("a", "", user("hi")))
	_, err := open(t, fx.opts())
	var le *agentstore.LineError
	require.True(t, errors.As(err, &le), "Open over a version-4 header = %s", describe(err))
	assert.Equal(t, 3, le.Line)
	assert.Equal(t, &agentstore.VersionError{Version: 4}, le.Err, "LineError.Err is the *VersionError itself")
}

// Rule 11.1.3: a line of a megabyte between two others, and a no-break
// space line after them.
func TestLab11_1_HiddenMegabyteLineThenANoBreakSpace(t *testing.T) {
	big := agentstore.Message(`{"role":"toolResult","content":"` + strings.Repeat("x", 1<<20) + `"}`)
	text := headerLine("s0", T1, "/") + msgLine("a", "", user("hi")) + msgLine("b", "a", big) + msgLine("c", "b", user("ok"))
	fx := newFixture()
	fx.fs.setFile(sessPath, text)
	s, err := open(t, fx.opts())
	require.NoError(t, err, "Open over a file with a 1 MiB line = %s", describe(err))
	e, ok := entryOf(t, s, "b")
	require.True(t, ok)
	assert.Len(t, e.Message, len(big))

	fx = newFixture()
	fx.fs.setFile(sessPath, text+"\u00a0\n")
	_, err = open(t, fx.opts())
	var le *agentstore.LineError
	require.True(t, errors.As(err, &le), "Open over a file whose line 5 is a no-break space = %s", describe(err))
	assert.Equal(t, 5, le.Line)
}

// Rule 11.1.6: a half header after blank lines: ErrNoHeader itself, line 1.
func TestLab11_1_HiddenNoHeaderIsTheSentinelItself(t *testing.T) {
	fx := newFixture()
	fx.fs.setFile(sessPath, "\n\n"+`{"type":"session","ver`)
	_, err := open(t, fx.opts())
	var le *agentstore.LineError
	require.True(t, errors.As(err, &le), "Open over blank lines and half a header = %s", describe(err))
	assert.Equal(t, agentstore.LineError{Path: sessPath, Line: 1, Err: agentstore.ErrNoHeader}, *le)
	assert.True(t, le.Err == agentstore.ErrNoHeader)
}
