package session_test

// A fake FileIO for the lab 10.5 tests, small bounded-wait helpers shared
// by the 10.3 and 10.5 tests, and the recovery of a panic on a goroutine a
// test starts.
//
// The fake keeps files in memory and records every AppendFile and ReadFile
// call. Each AppendFile call (numbered from 1) can get a fakeHook that makes
// it wait on a gate until the test opens it, and/or write only a prefix of
// its data and then fail with an injected error. Every AppendFile call
// signals its start on a channel (see appendStarted), so a test can order
// events with channels instead of sleeping. Everything is guarded by a mutex:
// the fake is safe under -race.
//
// Time appears here only as a safety net: every wait gives up after
// fakeTimeout, so a wrong implementation fails the test instead of hanging.
// No test uses time to order events.
//
// Every goroutine a test starts to call into session.go recovers a panic of
// that call and hands it back to the test's own goroutine (goCall, panics),
// which fails the test, naming the call: a panic in session.go fails the
// test that made the call, and the other tests still run. A goroutine hands
// something back only when it panicked, on a channel of its own or into
// room kept for it, so in a run without a panic the recovery adds no
// ordering between goroutines that the race detector could see, and hides
// no race of the store.
//
// Like every test file of the lab, this one is in the external package
// session_test: it sees the store only through what the package exports,
// and no name a student declares in session.go can clash with its names.

import (
	"fmt"
	"io/fs"
	"runtime/debug"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/coursekit/course/labs/10-session"
)

// fakeTimeout bounds every blocking wait of the tests. It is a safety net
// only: in a correct run every wait ends long before it.
const fakeTimeout = 5 * time.Second

// fakeGate is a one-shot barrier: AppendFile calls hooked to it wait until
// the test opens it. Opening twice is fine.
type fakeGate struct {
	ch   chan struct{}
	once sync.Once
}

// open lets every call waiting on g continue.
func (g *fakeGate) open() { g.once.Do(func() { close(g.ch) }) }

// fakeHook says what one AppendFile call does besides being recorded.
type fakeHook struct {
	// Gate, when set, makes the call wait until the gate is opened (after
	// it has signalled its start).
	Gate *fakeGate
	// Err, when set, makes the call fail with Err after writing a prefix of
	// its data: WriteN bytes, or half of the data when WriteHalf is set.
	Err       error
	WriteN    int
	WriteHalf bool
}

// fakeCall is one recorded FileIO call.
type fakeCall struct {
	Op   string // "AppendFile" or "ReadFile"
	Path string
	Data []byte // AppendFile only: a copy of the bytes handed in
}

// fakeFS is an in-memory FileIO that records its calls and fails on request.
type fakeFS struct {
	mu      sync.Mutex
	files   map[string][]byte
	calls   []fakeCall
	appends int                   // AppendFile calls so far
	hooks   map[int]fakeHook      // by AppendFile call number, from 1
	started map[int]chan struct{} // closed when AppendFile call n starts
	readErr error
	gates   []*fakeGate
}

var _ session.FileIO = (*fakeFS)(nil)

// newFakeFS returns an empty fake. When the test ends, every gate it made is
// opened, so no goroutine of the store under test stays blocked in it.
func newFakeFS(t *testing.T) *fakeFS {
	t.Helper()
	f := &fakeFS{
		files:   map[string][]byte{},
		hooks:   map[int]fakeHook{},
		started: map[int]chan struct{}{},
	}
	t.Cleanup(func() {
		f.mu.Lock()
		gates := append([]*fakeGate(nil), f.gates...)
		f.mu.Unlock()
		for _, g := range gates {
			g.open()
		}
	})
	return f
}

// newGate returns a closed barrier for hooks; the test opens it.
func (f *fakeFS) newGate() *fakeGate {
	g := &fakeGate{ch: make(chan struct{})}
	f.mu.Lock()
	f.gates = append(f.gates, g)
	f.mu.Unlock()
	return g
}

// onAppend sets what AppendFile call n (1-based) does.
func (f *fakeFS) onAppend(n int, h fakeHook) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.hooks[n] = h
}

// failRead makes every ReadFile call fail with err.
func (f *fakeFS) failRead(err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.readErr = err
}

// setFile sets the whole content of the file at path.
func (f *fakeFS) setFile(path, content string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.files[path] = []byte(content)
}

// file returns the content of the file at path and whether it exists.
func (f *fakeFS) file(path string) (string, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	b, ok := f.files[path]
	return string(b), ok
}

// appendCalls returns a copy of the recorded AppendFile calls, in call order.
func (f *fakeFS) appendCalls() []fakeCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []fakeCall
	for _, c := range f.calls {
		if c.Op == "AppendFile" {
			c.Data = append([]byte(nil), c.Data...)
			out = append(out, c)
		}
	}
	return out
}

// appendCount returns how many times AppendFile has been called.
func (f *fakeFS) appendCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.appends
}

// readCount returns how many times ReadFile has been called.
func (f *fakeFS) readCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, c := range f.calls {
		if c.Op == "ReadFile" {
			n++
		}
	}
	return n
}

// startedLocked returns the channel closed when AppendFile call n starts.
func (f *fakeFS) startedLocked(n int) chan struct{} {
	ch, ok := f.started[n]
	if !ok {
		ch = make(chan struct{})
		f.started[n] = ch
	}
	return ch
}

// appendStarted returns a channel that is closed when AppendFile call n
// (1-based) has started.
func (f *fakeFS) appendStarted(n int) <-chan struct{} {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.startedLocked(n)
}

// waitAppendStarted waits until AppendFile call n has started, or fails the
// test after fakeTimeout.
func (f *fakeFS) waitAppendStarted(t *testing.T, n int, what string) {
	t.Helper()
	select {
	case <-f.appendStarted(n):
	case <-time.After(fakeTimeout):
		t.Fatalf("%s: AppendFile call #%d never started (AppendFile calls so far: %d) — "+
			"lab 10.5: each committed append calls FileIO.AppendFile exactly once, in its turn",
			what, n, f.appendCount())
	}
}

// AppendFile records the call, signals its start, waits on its gate if it
// has one, then appends data (or a prefix of it and fails).
func (f *fakeFS) AppendFile(path string, data []byte) error {
	f.mu.Lock()
	f.appends++
	n := f.appends
	f.calls = append(f.calls, fakeCall{Op: "AppendFile", Path: path, Data: append([]byte(nil), data...)})
	h := f.hooks[n]
	close(f.startedLocked(n))
	f.mu.Unlock()

	if h.Gate != nil {
		<-h.Gate.ch
	}

	f.mu.Lock()
	defer f.mu.Unlock()
	if h.Err != nil {
		k := h.WriteN
		if h.WriteHalf {
			k = len(data) / 2
		}
		if k > len(data) {
			k = len(data)
		}
		if k < 0 {
			k = 0
		}
		f.files[path] = append(f.files[path], data[:k]...)
		return h.Err
	}
	f.files[path] = append(f.files[path], data...)
	return nil
}

// ReadFile records the call and returns a copy of the file, the injected
// read error, or an error matching fs.ErrNotExist for a missing file.
func (f *fakeFS) ReadFile(path string) ([]byte, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, fakeCall{Op: "ReadFile", Path: path})
	if f.readErr != nil {
		return nil, f.readErr
	}
	b, ok := f.files[path]
	if !ok {
		return nil, &fs.PathError{Op: "open", Path: path, Err: fs.ErrNotExist}
	}
	return append([]byte(nil), b...), nil
}

// ---- bounded waits shared by the 10.3 and 10.5 tests ----------------------

// fakeStore is what both session stores offer.
type fakeStore interface {
	Append(session.SessionEntry) *session.Pending
	Entries() ([]session.SessionEntry, error)
}

// fakeAppend calls s.Append(e) and requires that it returns at once with a
// Pending: Append never waits for the write itself.
func fakeAppend(t *testing.T, s fakeStore, e session.SessionEntry, what string) *session.Pending {
	t.Helper()
	ch := goCall(fmt.Sprintf("Append(%q)", e.ID), func() *session.Pending { return s.Append(e) })
	select {
	case o := <-ch:
		p := o.value(t, what)
		require.NotNil(t, p, "%s: Append(%q) returned a nil *Pending; want a Pending to wait on", what, e.ID)
		return p
	case <-time.After(fakeTimeout):
		t.Fatalf("%s: Append(%q) did not return — lab 10.3/10.5: Append must return at once "+
			"with a Pending, without waiting for earlier appends or for the write", what, e.ID)
		return nil
	}
}

// fakeWaitPending waits until p completes and returns its error, or fails
// the test after fakeTimeout.
func fakeWaitPending(t *testing.T, p *session.Pending, what string) error {
	t.Helper()
	require.NotNil(t, p, "%s: got a nil *Pending", what)
	select {
	case <-p.Done():
		return p.Wait()
	case <-time.After(fakeTimeout):
		t.Fatalf("%s: the Pending never completed — every append must complete in its turn "+
			"(committed, or rejected with an error)", what)
		return nil
	}
}

// fakeIsDone reports whether p has completed, without waiting.
func fakeIsDone(p *session.Pending) bool {
	select {
	case <-p.Done():
		return true
	default:
		return false
	}
}

// fakeEntries calls s.Entries() and returns its result, or fails the test
// if it does not return within fakeTimeout.
func fakeEntries(t *testing.T, s fakeStore, what string) ([]session.SessionEntry, error) {
	t.Helper()
	type result struct {
		entries []session.SessionEntry
		err     error
	}
	ch := goCall("Entries()", func() result {
		es, err := s.Entries()
		return result{es, err}
	})
	select {
	case o := <-ch:
		r := o.value(t, what)
		return r.entries, r.err
	case <-time.After(fakeTimeout):
		t.Fatalf("%s: Entries() did not return — it waits for the appends called before it, "+
			"and those must complete", what)
		return nil, nil
	}
}

// fakeDescribe formats an error for a failure message, with its type.
func fakeDescribe(err error) string {
	if err == nil {
		return "<nil>"
	}
	return fmt.Sprintf("%v (%T)", err, err)
}

// ---- a panic on a goroutine a test starts ------------------------------------

// panicked is a panic recovered on a goroutine that a test started to call
// into session.go: the call, the panic's value and the goroutine's stack.
// It is formatted on the test's goroutine, never on the one that panicked.
type panicked struct {
	what  string
	value any
	stack []byte
}

// String says what was called, that it panicked with what and where in
// session.go, and that the chapter expects an error value.
func (p *panicked) String() string {
	return fmt.Sprintf("%s panicked: %v\n\t(%s)\nChapter 10 expects an error value, not a panic: what meets a bad "+
		"entry, a bad line, a failed write or a missing parent returns an error (an append through its Pending) and "+
		"its caller decides; a panic would stop the agent with it. Check what may be missing (a nil map or pointer, "+
		"an index out of range, a type assertion without ok) before you use it. The other tests go on.",
		p.what, p.value, inSessionGo(p.stack))
}

// inSessionGo names the frames of stack in session.go, innermost first:
// "in your session.go: (*JSONLSessionStore).Append at session.go:42".
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

// outcome is how a call made by goCall ended: its value, or its panic.
type outcome[T any] struct {
	v     T
	panic *panicked
}

// value returns o's value, or fails the test, naming the call, if it
// panicked. Only the test's goroutine calls it.
func (o outcome[T]) value(t *testing.T, what string) T {
	t.Helper()
	if o.panic != nil {
		t.Fatalf("%s: %s", what, o.panic)
	}
	return o.v
}

// goCall calls f, the call what into session.go, on a goroutine of its own
// and returns the channel on which that goroutine hands back how f ended:
// its value, or the panic it raised, recovered there. The test's goroutine
// reports it (outcome.value): the other goroutine may not fail the test.
func goCall[T any](what string, f func() T) <-chan outcome[T] {
	ch := make(chan outcome[T], 1)
	go func() {
		defer func() {
			if v := recover(); v != nil {
				ch <- outcome[T]{panic: &panicked{what: what, value: v, stack: debug.Stack()}}
			}
		}()
		ch <- outcome[T]{v: f()}
	}()
	return ch
}

// panics is where the goroutines a concurrency test starts hand back a
// panic, for the test's goroutine to report once they have ended (or when
// it gives up waiting for them). It has room for one panic of each
// goroutine, and a goroutine sends into it only when it panicked.
type panics chan *panicked

// newPanics makes room for a panic of each of n goroutines.
func newPanics(n int) panics { return make(panics, n) }

// catch recovers a panic of the goroutine it is deferred in and hands it
// back, naming the call what. Defer it after wg.Done, so that it runs
// first: the panic is handed back before the goroutine counts as done.
func (p panics) catch(what string) {
	if v := recover(); v != nil {
		select {
		case p <- &panicked{what: what, value: v, stack: debug.Stack()}:
		default: // more goroutines than room: the first panics are reported
		}
	}
}

// report fails the test for every panic handed back so far, and stops it
// if there was one: what the goroutines left behind is not worth checking.
func (p panics) report(t *testing.T) {
	t.Helper()
	if p.any(t) {
		t.FailNow()
	}
}

// any fails the test for every panic handed back so far and says whether
// there was one.
func (p panics) any(t *testing.T) bool {
	t.Helper()
	found := false
	for {
		select {
		case x := <-p:
			t.Error(x)
			found = true
		default:
			return found
		}
	}
}
