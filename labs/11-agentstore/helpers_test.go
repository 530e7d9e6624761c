package agentstore_test

// Fakes and helpers shared by the lab 11 tests.
//
// The tests never touch the real disk (but one, in reset_test.go) and never
// read the clock or a random source: the store gets a fake file system that
// records every call and fails the ones a test chooses, a clock that says
// what the test sets, and id generators that hand out the ids a test
// expects. Time appears here only as a safety net: every call into the
// store must return within callBound, and release the store's lock, so
// that a store that deadlocks fails its test, naming the call, instead of
// hanging it. A store that panics fails its test the same way, and the
// other tests still run. No test uses time to order events.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	agentstore "github.com/coursekit/course/labs/11-agentstore"
)

// The session file and working directory of the tests.
const (
	sessPath = "/work/.teaching-agent/session.jsonl"
	sessCwd  = "/work"
)

// callBound bounds every call into the store. A correct store answers in
// microseconds; one that never returns has deadlocked.
const callBound = 3 * time.Second

// probeBound bounds the check, after each call, that the store's lock is
// free again: Leaf, on a free lock, answers at once.
const probeBound = time.Second

// ---- the fake file system ----------------------------------------------------

// fsOp is one recorded FileSystem call.
type fsOp struct {
	Op   string // ReadFile, AppendFile, WriteFile, Rename or Remove
	Path string
	To   string // Rename only: the new path
	Data []byte // AppendFile and WriteFile: a copy of the bytes handed in
	Err  error  // what the call returned
}

func (o fsOp) String() string {
	s := o.Op + "(" + o.Path
	if o.Op == "Rename" {
		s += ", " + o.To
	}
	if o.Data != nil {
		s += fmt.Sprintf(", %q", o.Data)
	}
	s += ")"
	if o.Err != nil {
		s += " failed: " + o.Err.Error()
	}
	return s
}

// fsFailure makes one call fail. A write first writes Written bytes of its
// data (half of them when Written is -1).
type fsFailure struct {
	Err     error
	Written int
}

// errCrash is what every call returns once the fake has "crashed".
var errCrash = errors.New("fake crash: the process died here")

// fakeFS is an in-memory FileSystem that records every call, fails the calls
// a test chooses, and can "crash": from a chosen call on, every call fails.
// It is safe for concurrent use.
type fakeFS struct {
	mu        sync.Mutex
	files     map[string][]byte
	ops       []fsOp
	failNext  map[string][]fsFailure // by op name, or op name and path, consumed in call order
	crashAt   int                    // the call number that crashes (0: never)
	readError error                  // every ReadFile fails with it
	watch     string                 // a path whose content is recorded after every call
	watched   []string               // the content of watch after each call; "<missing>" if none
}

var _ agentstore.FileSystem = (*fakeFS)(nil)

func newFakeFS() *fakeFS {
	return &fakeFS{files: map[string][]byte{}, failNext: map[string][]fsFailure{}}
}

const missing = "<missing>"

// setFile sets the content of the file at path.
func (f *fakeFS) setFile(path, content string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.files[path] = []byte(content)
}

// file returns the content of the file at path, or missing.
func (f *fakeFS) file(path string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	b, ok := f.files[path]
	if !ok {
		return missing
	}
	return string(b)
}

// paths returns the paths of every file, sorted.
func (f *fakeFS) paths() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for p := range f.files {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// fail makes the next call of op (after any already queued) fail.
func (f *fakeFS) fail(op string, failure fsFailure) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.failNext[op] = append(f.failNext[op], failure)
}

// failOn makes the next call of op on path fail. For Rename, path is the
// old path.
func (f *fakeFS) failOn(op, path string, failure fsFailure) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.failNext[op+" "+path] = append(f.failNext[op+" "+path], failure)
}

// copyFiles returns a new fake holding the files of f, for looking at what
// a crash left behind with a file system that works.
func (f *fakeFS) copyFiles() *fakeFS {
	f.mu.Lock()
	defer f.mu.Unlock()
	g := newFakeFS()
	for p, b := range f.files {
		g.files[p] = bytes.Clone(b)
	}
	return g
}

// crashOnCall makes the n-th call from now (1: the next one) fail half way,
// and every call after it fail too, as if the process had died there.
func (f *fakeFS) crashOnCall(n int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.crashAt = len(f.ops) + n
}

// watchPath records the content of path after every later call.
func (f *fakeFS) watchPath(path string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.watch = path
	f.watched = nil
}

// watchedStates returns the content of the watched path after each call.
func (f *fakeFS) watchedStates() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.watched...)
}

// mark returns the number of calls so far, for opsSince.
func (f *fakeFS) mark() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.ops)
}

// opsSince returns a copy of the calls made after mark.
func (f *fakeFS) opsSince(mark int) []fsOp {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]fsOp(nil), f.ops[mark:]...)
}

// begin records a call and says how it must fail, if it must. The caller
// holds f.mu.
func (f *fakeFS) begin(op fsOp) (n int, failure *fsFailure) {
	f.ops = append(f.ops, op)
	n = len(f.ops)
	switch {
	case f.crashAt > 0 && n >= f.crashAt:
		return n, &fsFailure{Err: errCrash, Written: -1}
	}
	for _, key := range []string{op.Op + " " + op.Path, op.Op} {
		if len(f.failNext[key]) > 0 {
			fl := f.failNext[key][0]
			f.failNext[key] = f.failNext[key][1:]
			return n, &fl
		}
	}
	return n, nil
}

// end records what the call returned and the watched path's content.
func (f *fakeFS) end(n int, err error) error {
	f.ops[n-1].Err = err
	if f.watch != "" {
		state := missing
		if b, ok := f.files[f.watch]; ok {
			state = string(b)
		}
		f.watched = append(f.watched, state)
	}
	return err
}

// written returns how much of data a failing write leaves behind.
func (fl *fsFailure) written(data []byte) []byte {
	k := fl.Written
	if k < 0 {
		k = len(data) / 2
	}
	if k > len(data) {
		k = len(data)
	}
	return data[:k]
}

func (f *fakeFS) ReadFile(path string) ([]byte, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	n, fl := f.begin(fsOp{Op: "ReadFile", Path: path})
	if fl != nil {
		return nil, f.end(n, fl.Err)
	}
	if f.readError != nil {
		return nil, f.end(n, f.readError)
	}
	b, ok := f.files[path]
	if !ok {
		return nil, f.end(n, &fs.PathError{Op: "open", Path: path, Err: fs.ErrNotExist})
	}
	return bytes.Clone(b), f.end(n, nil)
}

func (f *fakeFS) AppendFile(path string, data []byte) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	n, fl := f.begin(fsOp{Op: "AppendFile", Path: path, Data: bytes.Clone(data)})
	if fl != nil {
		if w := fl.written(data); len(w) > 0 || f.files[path] != nil {
			f.files[path] = append(f.files[path], w...)
		}
		return f.end(n, fl.Err)
	}
	f.files[path] = append(f.files[path], data...)
	return f.end(n, nil)
}

func (f *fakeFS) WriteFile(path string, data []byte) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	n, fl := f.begin(fsOp{Op: "WriteFile", Path: path, Data: bytes.Clone(data)})
	if fl != nil {
		f.files[path] = bytes.Clone(fl.written(data)) // created or truncated, then cut short
		return f.end(n, fl.Err)
	}
	f.files[path] = bytes.Clone(data)
	return f.end(n, nil)
}

func (f *fakeFS) Rename(oldpath, newpath string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	n, fl := f.begin(fsOp{Op: "Rename", Path: oldpath, To: newpath})
	if fl != nil {
		return f.end(n, fl.Err) // a rename happens whole or not at all
	}
	b, ok := f.files[oldpath]
	if !ok {
		return f.end(n, &fs.PathError{Op: "rename", Path: oldpath, Err: fs.ErrNotExist})
	}
	f.files[newpath] = b
	delete(f.files, oldpath)
	return f.end(n, nil)
}

func (f *fakeFS) Remove(path string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	n, fl := f.begin(fsOp{Op: "Remove", Path: path})
	if fl != nil {
		return f.end(n, fl.Err)
	}
	if _, ok := f.files[path]; !ok {
		return f.end(n, &fs.PathError{Op: "remove", Path: path, Err: fs.ErrNotExist})
	}
	delete(f.files, path)
	return f.end(n, nil)
}

// writesTo returns the calls among ops that change path: a write, an
// append, a remove, or a rename from or onto it.
func writesTo(ops []fsOp, path string) []fsOp {
	var out []fsOp
	for _, o := range ops {
		if o.Op != "ReadFile" && (o.Path == path || o.To == path) {
			out = append(out, o)
		}
	}
	return out
}

// opNames returns "Op(path)" for each call, for failure messages.
func opNames(ops []fsOp) string {
	if len(ops) == 0 {
		return "no calls"
	}
	var parts []string
	for _, o := range ops {
		s := o.Op + "(" + o.Path
		if o.Op == "Rename" {
			s += " → " + o.To
		}
		parts = append(parts, s+")")
	}
	return strings.Join(parts, ", ")
}

// ---- clock, ids, summarizer ---------------------------------------------------

// fakeClock returns the time the test set, in a zone that is not UTC, so
// that a store that forgets .UTC() writes the wrong hour.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

// zonePlus8 is UTC+8, the zone the fake clock reports in.
var zonePlus8 = time.FixedZone("UTC+8", 8*60*60)

// set makes the clock say iso (an instant written in UTC, "...Z").
func (c *fakeClock) set(iso string) {
	t, err := time.Parse(time.RFC3339Nano, iso)
	if err != nil {
		panic(err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t.In(zonePlus8)
}

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// fakeIDs hands out ids: first the scripted ones, then prefix1, prefix2, ...
type fakeIDs struct {
	mu     sync.Mutex
	prefix string
	script []string
	n      int
	given  []string
}

func (g *fakeIDs) next() string {
	g.mu.Lock()
	defer g.mu.Unlock()
	var id string
	if len(g.script) > 0 {
		id, g.script = g.script[0], g.script[1:]
	} else {
		g.n++
		id = fmt.Sprintf("%s%d", g.prefix, g.n)
	}
	g.given = append(g.given, id)
	return id
}

// then makes the next ids the ones given, before the counter goes on.
func (g *fakeIDs) then(ids ...string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.script = append(g.script, ids...)
}

// handedOut returns every id given so far.
func (g *fakeIDs) handedOut() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]string(nil), g.given...)
}

// summaryCall is one call of the fake summarizer.
type summaryCall struct {
	Previous string
	Messages []string
}

// fakeSummarizer records its calls and answers "summary <n>", or fails.
type fakeSummarizer struct {
	mu       sync.Mutex
	calls    []summaryCall
	err      error
	scribble bool // overwrite the bytes it is given, as a careless summarizer might
}

func (s *fakeSummarizer) summarize(previous string, messages []agentstore.Message) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	call := summaryCall{Previous: previous}
	for _, m := range messages {
		call.Messages = append(call.Messages, string(m))
		if s.scribble {
			for i := range m {
				m[i] = 'X'
			}
		}
	}
	s.calls = append(s.calls, call)
	if s.err != nil {
		return "", s.err
	}
	return fmt.Sprintf("summary %d", len(s.calls)), nil
}

func (s *fakeSummarizer) recorded() []summaryCall {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]summaryCall(nil), s.calls...)
}

// ---- a fixture: the fakes wired into Options -----------------------------------

// T0 is the time the fixture's clock starts at.
const T0 = "2025-03-14T09:26:53.589Z"

type fixture struct {
	fs       *fakeFS
	clock    *fakeClock
	ids      *fakeIDs // entry ids: e1, e2, ...
	sessions *fakeIDs // session ids: s1, s2, ...
	sum      *fakeSummarizer
}

func newFixture() *fixture {
	fx := &fixture{
		fs:       newFakeFS(),
		clock:    &fakeClock{},
		ids:      &fakeIDs{prefix: "e"},
		sessions: &fakeIDs{prefix: "s"},
		sum:      &fakeSummarizer{},
	}
	fx.clock.set(T0)
	return fx
}

func (fx *fixture) opts() agentstore.Options {
	return agentstore.Options{
		FS:           fx.fs,
		Path:         sessPath,
		Cwd:          sessCwd,
		Now:          fx.clock.now,
		NewEntryID:   fx.ids.next,
		NewSessionID: fx.sessions.next,
		Summarize:    fx.sum.summarize,
	}
}

// ---- bounded calls into the store -----------------------------------------------

// outcome is how a call ended: its value, or the panic it raised.
type outcome[T any] struct {
	v      T
	panic  any
	stack  []byte
	panics bool
}

// run calls f in a goroutine of its own and waits for it at most bound:
// done is false when f has not returned by then (a runaway f cannot be
// stopped; it is left behind).
func run[T any](f func() T, bound time.Duration) (o outcome[T], done bool) {
	ch := make(chan outcome[T], 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				ch <- outcome[T]{panic: p, stack: debug.Stack(), panics: true}
			}
		}()
		ch <- outcome[T]{v: f()}
	}()
	timer := time.NewTimer(bound)
	defer timer.Stop()
	select {
	case o := <-ch:
		return o, true
	case <-timer.C:
		return o, false
	}
}

// panicked says what a panic in the store was and where in store.go.
func panicked(what string, p any, stack []byte) string {
	var where []string
	lines := strings.Split(string(stack), "\n")
	for i := 1; i < len(lines); i++ {
		file := strings.TrimSpace(lines[i])
		if at := strings.LastIndex(file, "/store.go:"); at >= 0 {
			fn := lines[i-1]
			if paren := strings.LastIndex(fn, "("); paren > 0 {
				fn = fn[:paren]
			}
			fn = fn[strings.LastIndex(fn, ".")+1:]
			if strings.HasPrefix(lines[i-1], "github.com/coursekit/course/labs/11-agentstore.(*Store).") {
				fn = "(*Store)." + fn
			}
			loc, _, _ := strings.Cut(file[at+1:], " ")
			where = append(where, fmt.Sprintf("%s at %s", fn, loc))
		}
	}
	at := "the stack does not pass through store.go"
	if len(where) > 0 {
		at = "in your store.go: " + strings.Join(where, ", called from ")
	}
	return fmt.Sprintf("%s panicked: %v\n\t(%s)\nA store must not panic: the agent that uses it would stop with it. Return an "+
		"error instead, or check what may be missing (a nil map, an index out of range, an entry not in the index) "+
		"before you use it. The other tests go on.", what, p, at)
}

// within runs f and returns its result. It fails the test, naming the
// call, if f panics or has not returned after callBound.
func within[T any](t *testing.T, what string, f func() T) T {
	t.Helper()
	o, done := run(f, callBound)
	switch {
	case !done:
		t.Fatalf("%s did not return within %v: the store is stuck in it. Every call into the store before it in "+
			"this test returned and released the store's lock, so this call waits for itself: a sync.Mutex is not "+
			"reentrant, and a method that calls another exported method (or takes the lock a second time) while it "+
			"holds it waits forever — lab 11.2.5: take the lock once, at the top of each exported method, and do the "+
			"work in unexported helpers that assume it is held", what, callBound)
	case o.panics:
		t.Fatal(panicked(what, o.panic, o.stack))
	}
	return o.v
}

// released checks, once the call what has returned, that it released the
// store's lock: Leaf must then answer at once. A call that kept the lock is
// named here, not blamed on the next call.
func released(t *testing.T, s *agentstore.Store, what string) {
	t.Helper()
	if s == nil {
		return
	}
	o, done := run(s.Leaf, probeBound)
	switch {
	case !done:
		t.Fatalf("%s returned, but kept the store's lock: Leaf, called right after it, did not return within %v. "+
			"Lab 11.2.5: every method releases the lock on every return path, an error too: begin each exported "+
			"method with s.mu.Lock() and defer s.mu.Unlock(), and an early return cannot keep it", what, probeBound)
	case o.panics:
		t.Fatal(panicked("Leaf, called after "+what+",", o.panic, o.stack))
	}
}

// outcomeOf names what a call returned, for released's message.
func outcomeOf(call string, err error) string {
	if err == nil {
		return call
	}
	return fmt.Sprintf("%s (which returned the error %q)", call, err)
}

// panics collects the panics of the goroutines that a concurrency test
// starts itself, so that a store that panics there fails that test,
// naming the call, instead of stopping every test. Its lock is taken only
// when a goroutine panicked: it adds no ordering the race detector would
// see.
type panics struct {
	mu  sync.Mutex
	got []string
}

// catch recovers a panic of the goroutine it is deferred in (first, before
// anything else is deferred) and records it with the call it was in.
func (p *panics) catch(what string) {
	if v := recover(); v != nil {
		msg := panicked(what, v, debug.Stack())
		p.mu.Lock()
		defer p.mu.Unlock()
		p.got = append(p.got, msg)
	}
}

// check fails t for every panic recorded.
func (p *panics) check(t *testing.T) {
	t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, msg := range p.got {
		t.Error(msg)
	}
}

type result[T any] struct {
	v   T
	err error
}

func open(t *testing.T, opts agentstore.Options) (*agentstore.Store, error) {
	t.Helper()
	r := within(t, "Open", func() result[*agentstore.Store] {
		s, err := agentstore.Open(opts)
		return result[*agentstore.Store]{s, err}
	})
	released(t, r.v, outcomeOf("Open", r.err))
	return r.v, r.err
}

func mustOpen(t *testing.T, opts agentstore.Options, what string) *agentstore.Store {
	t.Helper()
	s, err := open(t, opts)
	require.NoError(t, err, "%s: Open(%q) = %s", what, opts.Path, describe(err))
	require.NotNil(t, s, "%s: Open returned a nil *Store and no error", what)
	return s
}

func appendMsg(t *testing.T, s *agentstore.Store, m agentstore.Message) (string, error) {
	t.Helper()
	r := within(t, "AppendMessage", func() result[string] {
		id, err := s.AppendMessage(m)
		return result[string]{id, err}
	})
	released(t, s, outcomeOf("AppendMessage", r.err))
	return r.v, r.err
}

func mustAppend(t *testing.T, s *agentstore.Store, m agentstore.Message) string {
	t.Helper()
	id, err := appendMsg(t, s, m)
	require.NoError(t, err, "AppendMessage(%s) = %s", m, describe(err))
	require.NotEmpty(t, id, "AppendMessage(%s) returned no id and no error", m)
	return id
}

func leafOf(t *testing.T, s *agentstore.Store) string {
	t.Helper()
	leaf := within(t, "Leaf", s.Leaf)
	released(t, s, "Leaf")
	return leaf
}

func headerOf(t *testing.T, s *agentstore.Store) agentstore.Header {
	t.Helper()
	h := within(t, "Header", s.Header)
	released(t, s, "Header")
	return h
}

func entryOf(t *testing.T, s *agentstore.Store, id string) (agentstore.Entry, bool) {
	t.Helper()
	r := within(t, "Entry", func() result[agentstore.Entry] {
		e, ok := s.Entry(id)
		var err error
		if !ok {
			err = errNoEntry
		}
		return result[agentstore.Entry]{e, err}
	})
	released(t, s, "Entry")
	return r.v, r.err == nil
}

var errNoEntry = errors.New("no entry")

// chainOf returns the ids from the root to the leaf, root first, found
// through Leaf and Entry alone (exercise 11.1's methods), so that a test of
// 11.2 does not need 11.3's PathToLeaf.
func chainOf(t *testing.T, s *agentstore.Store) []string {
	t.Helper()
	var out []string
	for id := leafOf(t, s); id != ""; {
		e, ok := entryOf(t, s, id)
		require.True(t, ok, "Entry(%q) found nothing, but %q is the leaf or the parent of an entry on its way to the root", id, id)
		out = append(out, id)
		require.LessOrEqual(t, len(out), 100000, "the chain from the leaf never reaches a root")
		id = e.ParentID
	}
	slices.Reverse(out)
	return out
}

func pathOf(t *testing.T, s *agentstore.Store) []agentstore.Entry {
	t.Helper()
	p := within(t, "PathToLeaf", s.PathToLeaf)
	released(t, s, "PathToLeaf")
	return p
}

func contextOf(t *testing.T, s *agentstore.Store) []agentstore.Message {
	t.Helper()
	c := within(t, "BuildContext", s.BuildContext)
	released(t, s, "BuildContext")
	return c
}

func sessionContextOf(t *testing.T, s *agentstore.Store) agentstore.SessionContext {
	t.Helper()
	c := within(t, "SessionContext", s.SessionContext)
	released(t, s, "SessionContext")
	return c
}

func switchLeaf(t *testing.T, s *agentstore.Store, id string) error {
	t.Helper()
	err := within(t, "SwitchLeaf", func() error { return s.SwitchLeaf(id) })
	released(t, s, outcomeOf(fmt.Sprintf("SwitchLeaf(%q)", id), err))
	return err
}

func compact(t *testing.T, s *agentstore.Store, maxTokens, keep int) (string, error) {
	t.Helper()
	r := within(t, "CompactIfNeeded", func() result[string] {
		id, err := s.CompactIfNeeded(maxTokens, keep)
		return result[string]{id, err}
	})
	released(t, s, outcomeOf(fmt.Sprintf("CompactIfNeeded(%d, %d)", maxTokens, keep), r.err))
	return r.v, r.err
}

func reset(t *testing.T, s *agentstore.Store) error {
	t.Helper()
	err := within(t, "Reset", s.Reset)
	released(t, s, outcomeOf("Reset", err))
	return err
}

// describe formats an error for a failure message, with its type.
func describe(err error) string {
	if err == nil {
		return "<nil>"
	}
	return fmt.Sprintf("%v (%T)", err, err)
}

// ---- messages and lines -----------------------------------------------------------

// textMsg returns a compact message of role with one text block.
func textMsg(role, text string, ms int64) agentstore.Message {
	b, err := json.Marshal(struct {
		Role    string `json:"role"`
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		Timestamp int64 `json:"timestamp"`
	}{Role: role, Content: []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}{{"text", text}}, Timestamp: ms})
	if err != nil {
		panic(err)
	}
	return agentstore.Message(b)
}

func user(text string) agentstore.Message      { return textMsg("user", text, 1741944421110) }
func assistant(text string) agentstore.Message { return textMsg("assistant", text, 1741944421120) }

// strs returns the messages as strings, for comparisons that print well.
func strs(ms []agentstore.Message) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = string(m)
	}
	return out
}

// ids returns the ids of entries.
func ids(es []agentstore.Entry) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.ID
	}
	return out
}

// headerLine is the header line of session id at time ts, with "\n".
func headerLine(id, ts, cwd string) string {
	return fmt.Sprintf(`{"type":"session","version":3,"id":%q,"timestamp":%q,"cwd":%q}`, id, ts, cwd) + "\n"
}

// T1 is the timestamp of the lines the tests write by hand.
const T1 = "2025-03-14T08:00:00.000Z"

// msgLine is a message entry line with "\n"; parent "" is a root.
func msgLine(id, parent string, m agentstore.Message) string {
	return fmt.Sprintf(`{"type":"message","id":%q,"parentId":%s,"timestamp":%q,"message":%s}`, id, jsonParent(parent), T1, m) + "\n"
}

// otherLine is a line of a type whose fields DecodeEntry does not read
// (pi's label, session_info, custom, ...).
func otherLine(typ, id, parent string) string {
	return fmt.Sprintf(`{"type":%q,"id":%q,"parentId":%s,"timestamp":%q,"note":"kept as it is"}`, typ, id, jsonParent(parent), T1) + "\n"
}

// modelChangeLine is pi's model_change entry line.
func modelChangeLine(id, parent, provider, model string) string {
	return fmt.Sprintf(`{"type":"model_change","id":%q,"parentId":%s,"timestamp":%q,"provider":%q,"modelId":%q}`,
		id, jsonParent(parent), T1, provider, model) + "\n"
}

// compactionLine is a compaction entry line with "\n".
func compactionLine(id, parent, summary, firstKept string, tokensBefore int) string {
	return fmt.Sprintf(`{"type":"compaction","id":%q,"parentId":%s,"timestamp":%q,"summary":%q,"firstKeptEntryId":%q,"tokensBefore":%d}`,
		id, jsonParent(parent), T1, summary, firstKept, tokensBefore) + "\n"
}

func jsonParent(parent string) string {
	if parent == "" {
		return "null"
	}
	return fmt.Sprintf("%q", parent)
}

// decodeLine checks that data is one JSON object and "\n" and decodes it,
// with encoding/json only.
func decodeLine(t *testing.T, data []byte, what string) map[string]any {
	t.Helper()
	require.True(t, bytes.HasSuffix(data, []byte("\n")),
		"%s: %q does not end in \"\\n\": a line counts only once its newline is written", what, data)
	require.Equal(t, 1, bytes.Count(data, []byte("\n")),
		"%s: %q; want exactly one line per write", what, data)
	var v map[string]any
	require.NoError(t, json.Unmarshal(data, &v), "%s: %q is not a JSON object", what, data)
	return v
}

// jsonValue decodes a JSON text into an any, for comparing content.
func jsonValue(t *testing.T, text string) any {
	t.Helper()
	var v any
	require.NoError(t, json.Unmarshal([]byte(text), &v), "test setup: %q", text)
	return v
}

// requireOnlyReads fails unless ops holds reads only.
func requireOnlyReads(t *testing.T, ops []fsOp, what string) {
	t.Helper()
	for _, o := range ops {
		assert.Equal(t, "ReadFile", o.Op, "%s made the call %s; want reads only (calls: %s)", what, o, opNames(ops))
	}
}

// newStoreWith returns a store over a new session with the messages
// appended, and their ids.
func newStoreWith(t *testing.T, fx *fixture, msgs ...agentstore.Message) (*agentstore.Store, []string) {
	t.Helper()
	s := mustOpen(t, fx.opts(), "new session")
	var out []string
	for _, m := range msgs {
		out = append(out, mustAppend(t, s, m))
	}
	return s, out
}
