package factlog_test

// Shared helpers of the chapter 4 tests: entry builders, the seed's example
// tree, and a fake WriteFunc that records every call and fails on request.
// Builders return fresh values on every call, so one test can never change
// another's data. Everything here uses only what package factlog exports.

import (
	"bytes"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	factlog "github.com/coursekit/course/labs/04-factlog"
)

// user, assistant and tool build one entry of each type.
func user(id, parent, text string) factlog.Entry {
	return factlog.Entry{Type: factlog.TypeUser, ID: id, ParentID: parent, Text: text}
}

func assistant(id, parent, text string) factlog.Entry {
	return factlog.Entry{Type: factlog.TypeAssistant, ID: id, ParentID: parent, Text: text}
}

func tool(id, parent, text string) factlog.Entry {
	return factlog.Entry{Type: factlog.TypeTool, ID: id, ParentID: parent, Text: text}
}

// seedTree is the chapter's example, in file order: a conversation that was
// rerun from entry "m2". The old branch (m3a) stays; the new one (m3b, m4b)
// grows beside it.
//
//	r    user       "start"              root
//	m1   assistant                        parent r
//	m2   user       the branch point      parent m1
//	m3a  assistant  the first answer      parent m2   (old branch, kept)
//	m3b  assistant  the rerun answer      parent m2   (new branch)
//	m4b  user                             parent m3b
func seedTree() []factlog.Entry {
	return []factlog.Entry{
		user("r", "", "start: list the files"),
		assistant("m1", "r", "README.md, go.mod"),
		user("m2", "m1", "now count the lines"),
		assistant("m3a", "m2", "about 40"),
		assistant("m3b", "m2", "wc says 42"),
		user("m4b", "m3b", "thanks"),
	}
}

// ids returns the ids of entries, in order.
func ids(entries []factlog.Entry) []string {
	out := make([]string, len(entries))
	for i, e := range entries {
		out[i] = e.ID
	}
	return out
}

// line returns the JSON line of e as the given EncodeEntry writes it,
// without the "\n".
func line(t *testing.T, e factlog.Entry) string {
	t.Helper()
	b, err := factlog.EncodeEntry(e)
	require.NoError(t, err, "test setup: EncodeEntry(%+v)", e)
	return string(b)
}

// lines returns the JSON line of every entry, without "\n".
func lines(t *testing.T, entries ...factlog.Entry) []string {
	t.Helper()
	out := make([]string, len(entries))
	for i, e := range entries {
		out[i] = line(t, e)
	}
	return out
}

// committed joins lines, each followed by "\n": every one is committed.
func committed(lines ...string) string {
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(l)
		b.WriteString("\n")
	}
	return b.String()
}

// describe formats an error for a failure message, with its type.
func describe(err error) string {
	if err == nil {
		return "<nil>"
	}
	return fmt.Sprintf("%v (%T)", err, err)
}

// short shortens a text for failure messages.
func short(s string) string {
	if len(s) > 140 {
		return fmt.Sprintf("%q…%q", s[:70], s[len(s)-50:])
	}
	return fmt.Sprintf("%q", s)
}

// errDiskFull is the error the fake storage fails with.
var errDiskFull = errors.New("no space left on device (fake)")

// failure makes one call of a fakeWriter write only Written bytes of what it
// was given, then return Err.
type failure struct {
	Written int
	Err     error
}

// fakeWriter is a log's storage in memory. Its write method is the
// WriteFunc a test hands to OpenSessionLog: it records a copy of every call
// and appends to the stored bytes, or, for a call with a failure, only a
// prefix of them and an error.
type fakeWriter struct {
	stored   bytes.Buffer
	calls    [][]byte
	failures map[int]failure // by call number, from 1
}

// newFakeWriter returns an empty storage whose calls all succeed.
func newFakeWriter() *fakeWriter {
	return &fakeWriter{failures: map[int]failure{}}
}

// failCall makes call n (from 1) fail after writing written bytes.
func (w *fakeWriter) failCall(n, written int, err error) {
	w.failures[n] = failure{Written: written, Err: err}
}

// write is the WriteFunc.
func (w *fakeWriter) write(p []byte) error {
	w.calls = append(w.calls, bytes.Clone(p))
	if f, ok := w.failures[len(w.calls)]; ok {
		w.stored.Write(p[:min(f.Written, len(p))])
		return f.Err
	}
	w.stored.Write(p)
	return nil
}

// callStrings returns what each call was given, as strings.
func (w *fakeWriter) callStrings() []string {
	out := make([]string, len(w.calls))
	for i, c := range w.calls {
		out[i] = string(c)
	}
	return out
}

// writes returns what each call from call from on (from 0) was given, as a
// list of quoted strings for a failure message (testify would print the
// [][]byte as numbers).
func (w *fakeWriter) writes(from int) string {
	return fmt.Sprintf("%q", w.callStrings()[min(from, len(w.calls)):])
}

// plural returns n and the noun, with an s unless n is 1: "1 byte", "3 bytes".
func plural(n int, noun string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, noun)
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// within runs f on a goroutine of its own and waits for it. If f panics,
// the panic is recovered there and handed back over the channel, and the
// test fails, naming the call, the panic and where in session.go it
// happened: the other tests still run. If f has not returned after a
// second, the function under test loops forever, for example around a
// cycle. Time is only a safety net here, never how a test orders events.
// A runaway f cannot be stopped, so the test binary stops with it.
func within(t *testing.T, what string, f func()) {
	t.Helper()
	done := make(chan *panicValue, 1)
	go func() {
		defer func() {
			if v := recover(); v != nil {
				done <- &panicValue{v, debug.Stack()}
			}
		}()
		f()
		done <- nil
	}()
	select {
	case p := <-done:
		if p != nil {
			t.Fatal(p.report(what))
		}
	case <-time.After(time.Second):
		panic(fmt.Sprintf("%s did not return within a second: it loops forever. Lab 4.2: a chain of parents "+
			"that comes back on itself must end in a *CycleError, so keep a set of the ids you have walked", what))
	}
}

// panicValue is a panic recovered from a call into session.go: its value
// and the stack of the goroutine it happened on.
type panicValue struct {
	value any
	stack []byte
}

// report says that the call what panicked, with what, and where in
// session.go.
func (p *panicValue) report(what string) string {
	return fmt.Sprintf("%s panicked: %v\n\t(%s)\nChapter 4 expects an error value, not a panic: a function of the "+
		"fact log that meets something wrong returns an error (a *BrokenChainError, a *CycleError, ...) and its "+
		"caller decides; a panic would stop the agent with it. Check what may be missing (a nil map, an index out "+
		"of range, an id not in the map) before you use it. The other tests go on.", what, p.value, inSessionGo(p.stack))
}

// inSessionGo names the frames of stack in session.go, innermost first:
// "in your session.go: PathTo at session.go:42".
func inSessionGo(stack []byte) string {
	var where []string
	lines := strings.Split(string(stack), "\n")
	for i := 1; i < len(lines); i++ {
		file := strings.TrimSpace(lines[i])
		at := strings.LastIndex(file, "/session.go:")
		if at < 0 || !strings.HasPrefix(lines[i], "\t") {
			continue
		}
		fn := lines[i-1]
		if paren := strings.LastIndex(fn, "("); paren > 0 {
			fn = fn[:paren] // the arguments
		}
		fn = fn[strings.LastIndex(fn, "/")+1:] // the package's path
		_, fn, _ = strings.Cut(fn, ".")        // the package's name
		loc, _, _ := strings.Cut(file[at+1:], " ")
		where = append(where, fmt.Sprintf("%s at %s", fn, loc))
	}
	if len(where) == 0 {
		return "the stack does not pass through session.go"
	}
	return "in your session.go: " + strings.Join(where, ", called from ")
}
