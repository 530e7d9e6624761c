package cli

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The watch loop is driven by a fake change source (a channel the test
// sends paths on) and a scripted go test. The channel is unbuffered, so a
// send completes only when the loop is waiting for a change: that, not
// time, orders the test's steps. The debounce is off (Debounce 0) except
// in the tests of waitForChange, which drive its clock by hand.

// fakeSource is a ChangeSource fed by the test.
type fakeSource struct {
	ch     chan string
	mu     sync.Mutex
	closed bool
}

func newFakeSource() *fakeSource { return &fakeSource{ch: make(chan string)} }

func (s *fakeSource) Changes() <-chan string { return s.ch }

func (s *fakeSource) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	return nil
}

// step is one expected go test call of a script and its answer.
type step struct {
	run    string
	answer *goTestRun
	before func() // runs first, as when Ctrl-C comes during the run
}

// scripted answers go test calls in the order of steps.
func scripted(t *testing.T, steps ...step) func(int, string) *goTestRun {
	return func(call int, run string) *goTestRun {
		if call >= len(steps) {
			t.Errorf("go test call %d (-run %s) beyond the script", call, run)
			return nil
		}
		s := steps[call]
		if s.run != run {
			t.Errorf("go test call %d: -run %s, want %s", call, run, s.run)
			return nil
		}
		if s.before != nil {
			s.before()
		}
		return s.answer
	}
}

// watchSession is a `course watch` running in the background.
type watchSession struct {
	src            *fakeSource
	fake           *fakeGoTest
	out, errOut    bytes.Buffer // read only after done
	done           chan error
	cancel         context.CancelFunc
	dir            string
	watchedDir     string
	poll           bool
	watchedStarted bool
}

// startWatch runs `course watch args...` in a demo workspace with a fake
// source and go test answering steps.
func startWatch(t *testing.T, steps []step, args ...string) *watchSession {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	s := &watchSession{src: newFakeSource(), done: make(chan error, 1), cancel: cancel, dir: demoWorkspace(t)}
	s.fake = &fakeGoTest{t: t, respond: scripted(t, steps...)}
	opts := &WatchOptions{
		IO:      IOStreams{In: strings.NewReader(""), Out: &s.out, ErrOut: &s.errOut},
		Catalog: demoCatalog(t, false), Getenv: noEnv, GoTest: s.fake.goTest,
		Watch: func(dir string, poll bool) (ChangeSource, string, error) {
			s.watchedDir, s.poll, s.watchedStarted = dir, poll, true
			return s.src, "a fake", nil
		},
		After: func(time.Duration) <-chan time.Time {
			t.Error("the debounce is off")
			return nil
		},
		Now: func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) },
	}
	cmd := newCmdWatch(opts)
	cmd.SetArgs(append(args, "--dir", s.dir))
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	go func() { s.done <- cmd.ExecuteContext(ctx) }()
	return s
}

// save reports a change to a file, once the loop waits for one.
func (s *watchSession) save(name string) { s.src.ch <- filepath.Join(s.dir, name) }

// wait returns the session's error when it ends by itself.
func (s *watchSession) wait(t *testing.T) error {
	t.Helper()
	select {
	case err := <-s.done:
		return err
	case <-time.After(time.Minute): // a guard against a hang, not an ordering
		t.Fatal("course watch did not end")
		return nil
	}
}

// stop presses Ctrl-C once the loop waits, and returns the session's error.
func (s *watchSession) stop(t *testing.T) error {
	t.Helper()
	s.save("README.md") // taken only by a waiting loop, and ignored
	s.cancel()
	return s.wait(t)
}

// assertInOrder checks that out holds parts, one after the other.
func assertInOrder(t *testing.T, out string, parts ...string) {
	t.Helper()
	rest := out
	for _, p := range parts {
		i := strings.Index(rest, p)
		if i < 0 {
			t.Errorf("missing, or out of order: %q\nin:\n%s", p, out)
			return
		}
		rest = rest[i+len(p):]
	}
}

func TestWatchMovesOnUntilEveryExercisePasses(t *testing.T) {
	s := startWatch(t, []step{
		{run: runAll, answer: newRun().pass("TestLab7_1_A").fail("TestLab7_1_B", "demo_test.go:7: want the root").
			fail("TestLab7_2_A").fail("TestLab7_3_A").exit(1)},
		{run: run71, answer: newRun().pass("TestLab7_1_A", "TestLab7_1_B").exit(0)},
		{run: run72, answer: newRun().fail("TestLab7_2_A", "demo_test.go:9: not yet").exit(1)}, // at once
		{run: run72, answer: newRun().pass("TestLab7_2_A").exit(0)},
		{run: runAll, answer: newRun().pass("TestLab7_1_A", "TestLab7_1_B", "TestLab7_2_A", "TestLab7_3_A").exit(0)},
	})
	s.save("notes.txt")     // not Go: ignored
	s.save(".#demo.go")     // an editor's lock file: ignored
	s.save("demo.go")       // runs 7.1, which passes, then 7.2
	s.save("demo_extra.go") // runs 7.2, which passes, then all (the bonus is not watched unless named)
	require.NoError(t, s.wait(t), "ends by itself when every exercise passes")

	assert.Len(t, s.fake.runs(), 5)
	assert.Equal(t, s.dir, s.watchedDir)
	assert.False(t, s.poll)
	assert.True(t, s.src.closed)
	out := s.out.String()
	assertInOrder(t, out,
		"Watching "+s.dir+" (a fake). It stops when every graded exercise passes, or with Ctrl-C.\n",
		"── 03:04:05  every exercise ──\n",
		"\n7.1 One  (go test -run Lab7_1)\n\n  ✓ TestLab7_1_A\n  ✗ TestLab7_1_B\n      demo_test.go:7: want the root\n\nFAIL 7.1 One: 1 of 2 tests passed",
		"Progress: [░░░░░░░░░░░░░░░░░░░░] 0 of 2 exercises pass (bonus: 0 of 1)\n",
		"Waiting for a change to a .go file…\n",
		"── 03:04:05  7.1 One  (go test -run Lab7_1) ──\n\n  ✓ TestLab7_1_A\n  ✓ TestLab7_1_B\n\nPASS 7.1 One: 2 of 2 tests passed\n",
		"\n→ Next: 7.2 Two\n",
		"── 03:04:05  7.2 Two  (go test -run Lab7_2) ──\n\n  ✗ TestLab7_2_A\n      demo_test.go:9: not yet\n\nFAIL 7.2 Two: 0 of 1 tests passed",
		"Progress: [██████████░░░░░░░░░░] 1 of 2 exercises pass (bonus: 0 of 1)\n",
		"Waiting for a change to a .go file…\n",
		"PASS 7.2 Two: 1 of 1 tests passed\n",
		"── 03:04:05  every exercise ──\n",
		"Progress: [████████████████████] 2 of 2 exercises pass (bonus: 1 of 1)\n",
		"\nAll exercises pass!\n",
	)
	assert.Equal(t, 2, strings.Count(out, "Waiting for a change"), "no wait between a pass and the next exercise")
	assert.Empty(t, s.errOut.String())
}

func TestWatchEndsWhenEveryGradedExercisePasses(t *testing.T) {
	s := startWatch(t, []step{
		{run: runAll, answer: newRun().pass("TestLab7_1_A", "TestLab7_1_B").fail("TestLab7_2_A").fail("TestLab7_3_A").exit(1)},
		{run: run72, answer: newRun().pass("TestLab7_2_A").exit(0)},
		{run: runAll, answer: newRun().pass("TestLab7_1_A", "TestLab7_1_B", "TestLab7_2_A").fail("TestLab7_3_A", "demo_test.go:4: not done").exit(1)},
	})
	s.save("demo.go")
	require.NoError(t, s.wait(t), "the watch ends by itself, as its first line says")
	out := s.out.String()
	assertInOrder(t, out,
		"It stops when every graded exercise passes, or with Ctrl-C.\n",
		"PASS 7.2 Two: 1 of 1 tests passed\n",
		"── 03:04:05  every exercise ──\n",
		"\nEvery graded exercise passes! Optional: 7.3 Three (bonus), when you want it: course watch 7.3\n",
	)
	assert.NotContains(t, out, "7.3 Three  (go test", "the optional exercise is offered, not run as the next one")
	assert.NotContains(t, out, "FAIL 7.3")
	assert.Len(t, s.fake.runs(), 3)
}

func TestWatchTakesTheBonusWhenNamed(t *testing.T) {
	s := startWatch(t, []step{
		{run: runAll, answer: newRun().pass("TestLab7_1_A", "TestLab7_1_B", "TestLab7_2_A").fail("TestLab7_3_A", "demo_test.go:4: not done").exit(1)},
		{run: run73, answer: newRun().pass("TestLab7_3_A").exit(0)},
		{run: runAll, answer: newRun().pass("TestLab7_1_A", "TestLab7_1_B", "TestLab7_2_A", "TestLab7_3_A").exit(0)},
	}, "7.3")
	s.save("demo.go")
	require.NoError(t, s.wait(t))
	assertInOrder(t, s.out.String(),
		"It stops when every exercise, 7.3 included, passes, or with Ctrl-C.\n",
		"\n7.3 Three  (go test -run Lab7_3)\n\n  ✗ TestLab7_3_A\n      demo_test.go:4: not done\n",
		"PASS 7.3 Three: 1 of 1 tests passed\n",
		"\nAll exercises pass!\n",
	)
}

func TestWatchAllPassAtOnce(t *testing.T) {
	s := startWatch(t, []step{
		{run: runAll, answer: newRun().pass("TestLab7_1_A", "TestLab7_1_B", "TestLab7_2_A", "TestLab7_3_A").exit(0)},
	}, "--poll")
	require.NoError(t, s.wait(t))
	assert.True(t, s.poll, "--poll asks for polling")
	assert.True(t, strings.HasSuffix(s.out.String(), "\nAll exercises pass!\n"), s.out.String())
}

func TestWatchStartsAtTheNamedExercise(t *testing.T) {
	s := startWatch(t, []step{
		{run: runAll, answer: newRun().fail("TestLab7_1_A").fail("TestLab7_1_B").fail("TestLab7_2_A", "demo_test.go:9: not yet").fail("TestLab7_3_A").exit(1)},
		{run: run72, answer: newRun().fail("TestLab7_2_A").exit(1)},
	}, "7.2")
	s.save("demo.go")
	require.NoError(t, s.stop(t))
	assertInOrder(t, s.out.String(),
		"\n7.2 Two  (go test -run Lab7_2)\n\n  ✗ TestLab7_2_A\n      demo_test.go:9: not yet\n",
		"── 03:04:05  7.2 Two  (go test -run Lab7_2) ──",
	)
	assert.NotContains(t, s.out.String(), "Lab7_1")
	assert.Equal(t, "Stopped watching.\n", s.errOut.String())
}

func TestWatchNamedExerciseThatPassesAlready(t *testing.T) {
	s := startWatch(t, []step{
		{run: runAll, answer: newRun().pass("TestLab7_1_A", "TestLab7_1_B").fail("TestLab7_2_A").fail("TestLab7_3_A").exit(1)},
	}, "7.1")
	require.NoError(t, s.stop(t))
	assertInOrder(t, s.out.String(), "── 03:04:05  every exercise ──\n\n7.1 passes already. → Next: 7.2 Two\n", "\n7.2 Two  (go test -run Lab7_2)\n")
}

func TestWatchStopsOnCtrlCDuringARun(t *testing.T) {
	var s *watchSession
	s = startWatch(t, []step{
		{run: runAll, answer: newRun().fail("TestLab7_1_A").fail("TestLab7_1_B").fail("TestLab7_2_A").fail("TestLab7_3_A").exit(1)},
		{run: run71, answer: newRun().pass("TestLab7_1_A").exit(1), before: func() { s.cancel() }},
	})
	s.save("demo.go")
	require.NoError(t, s.wait(t), "Ctrl-C is how a watch ends")
	assert.Equal(t, "Stopped watching.\n", s.errOut.String())
	assert.True(t, s.src.closed)
}

func TestWatchKeepsGoingThroughABuildFailure(t *testing.T) {
	s := startWatch(t, []step{
		{run: runAll, answer: newRun().fail("TestLab7_1_A").fail("TestLab7_1_B").fail("TestLab7_2_A").fail("TestLab7_3_A").exit(1)},
		{run: run71, answer: buildFailure()},
		{run: run71, answer: newRun().fail("TestLab7_1_A").pass("TestLab7_1_B").exit(1)},
	})
	s.save("demo.go")
	s.save("demo.go")
	require.NoError(t, s.stop(t))
	assertInOrder(t, s.out.String(),
		"The code does not compile, so every exercise fails:\n    # lab7 [lab7.test]\n",
		"FAIL 7.1 One: the code does not compile",
		"Waiting for a change",
		"FAIL 7.1 One: 1 of 2 tests passed",
	)
}

func TestWatchChecksEverythingBeforeSayingAllPass(t *testing.T) {
	// 7.2 passes last, but the change broke 7.1, which passed before.
	s := startWatch(t, []step{
		{run: runAll, answer: newRun().pass("TestLab7_1_A", "TestLab7_1_B").fail("TestLab7_2_A").pass("TestLab7_3_A").exit(1)},
		{run: run72, answer: newRun().pass("TestLab7_2_A").exit(0)},
		{run: runAll, answer: newRun().pass("TestLab7_1_A").fail("TestLab7_1_B", "demo_test.go:3: broken again").pass("TestLab7_2_A", "TestLab7_3_A").exit(1)},
	})
	s.save("demo.go")
	require.NoError(t, s.stop(t))
	out := s.out.String()
	assertInOrder(t, out,
		"PASS 7.2 Two",
		"── 03:04:05  every exercise ──",
		"\n7.1 One  (go test -run Lab7_1)\n\n  ✓ TestLab7_1_A\n  ✗ TestLab7_1_B\n      demo_test.go:3: broken again\n",
		"Progress: [██████████░░░░░░░░░░] 1 of 2 exercises pass (bonus: 1 of 1)\n",
		"Waiting for a change",
	)
	assert.NotContains(t, out, "All exercises pass!")
}

func TestWatchEndsWhenTheSourceStops(t *testing.T) {
	s := startWatch(t, []step{
		{run: runAll, answer: newRun().fail("TestLab7_1_A").fail("TestLab7_1_B").fail("TestLab7_2_A").fail("TestLab7_3_A").exit(1)},
	})
	close(s.src.ch)
	err := s.wait(t)
	assert.Equal(t, ExitUsage, exitCode(t, err))
	assert.EqualError(t, err, "watching the files stopped")
}

func TestWatchCannotRunGo(t *testing.T) {
	s := startWatch(t, []step{{run: runAll, answer: &goTestRun{err: errors.New("cannot run go test: no go")}}})
	err := s.wait(t)
	assert.Equal(t, ExitUsage, exitCode(t, err))
	assert.EqualError(t, err, "cannot run go test: no go")
}

func TestWatchUnknownExercise(t *testing.T) {
	s := startWatch(t, nil, "7.9")
	err := s.wait(t)
	assert.Equal(t, ExitUsage, exitCode(t, err))
	assert.EqualError(t, err, `chapter 7 has no exercise "7.9" (known: 7.3, 7.1, 7.2)`)
	assert.False(t, s.watchedStarted, "nothing watched")
}

// fakeClock is the debounce's clock: each After asks for a timer, which
// the test fires by sending on it.
type fakeClock struct{ timers chan chan time.Time }

func (c *fakeClock) after(time.Duration) <-chan time.Time {
	timer := make(chan time.Time, 1)
	c.timers <- timer
	return timer
}

func TestWaitForChangeDebounces(t *testing.T) {
	changes := make(chan string)
	clock := &fakeClock{timers: make(chan chan time.Time, 10)}
	result := make(chan bool, 1)
	go func() {
		ok, err := waitForChange(context.Background(), changes, clock.after, watchDebounce)
		assert.NoError(t, err)
		result <- ok
	}()
	changes <- "notes.md" // not Go: no timer
	changes <- "a.go"
	first := <-clock.timers
	changes <- "b.go" // within the quiet time: a new timer
	second := <-clock.timers
	changes <- "c.txt" // not Go: no new timer
	changes <- "c.go"
	third := <-clock.timers
	assert.Empty(t, clock.timers, "one timer per Go change after the first")

	first <- time.Time{} // an old timer: no longer heeded
	second <- time.Time{}
	select {
	case <-result:
		t.Fatal("returned before the quiet time after the last change")
	default:
	}
	third <- time.Time{}
	assert.True(t, <-result)
}

func TestWaitForChangeWithoutDebounce(t *testing.T) {
	changes := make(chan string, 1)
	changes <- "" // a change the source cannot name
	ok, err := waitForChange(context.Background(), changes, nil, 0)
	require.NoError(t, err)
	assert.True(t, ok)
}

func TestWaitForChangeEnds(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	ok, err := waitForChange(ctx, make(chan string), nil, 0)
	assert.NoError(t, err)
	assert.False(t, ok, "Ctrl-C")

	closed := make(chan string)
	close(closed)
	_, err = waitForChange(context.Background(), closed, nil, 0)
	assert.EqualError(t, err, "watching the files stopped")

	// The source stops during the quiet time: run what changed.
	changes := make(chan string, 2)
	changes <- "a.go"
	close(changes)
	clock := &fakeClock{timers: make(chan chan time.Time, 1)}
	ok, err = waitForChange(context.Background(), changes, clock.after, time.Second)
	assert.NoError(t, err)
	assert.True(t, ok)
}

func TestIsGoSource(t *testing.T) {
	for p, want := range map[string]bool{
		"session.go":                     true,
		filepath.Join("a", "b", "x.go"):  true,
		"session_test.go":                true,
		"":                               true,
		".#session.go":                   false,
		"_old.go":                        false,
		"session.go~":                    false,
		"session.go.swp":                 false,
		"README.md":                      false,
		filepath.Join(".course", "x.go"): true, // the directory is the watcher's business
	} {
		assert.Equal(t, want, isGoSource(p), p)
	}
}

// send sends a tick, failing the test if the poller does not take it.
func send(t *testing.T, tick chan time.Time) {
	t.Helper()
	select {
	case tick <- time.Now():
	case <-time.After(time.Minute): // a guard against a hang, not an ordering
		t.Fatal("the poller does not take ticks")
	}
}

func receive(t *testing.T, changes <-chan string) string {
	t.Helper()
	select {
	case p := <-changes:
		return p
	case <-time.After(time.Minute): // a guard against a hang, not an ordering
		t.Fatal("no change reported")
		return ""
	}
}

func TestPollSourceRescan(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.go")
	require.NoError(t, os.WriteFile(a, []byte("package a\n"), 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(dir, ".course"), 0o755))
	s := &pollSource{root: dir}
	last, err := s.scan()
	require.NoError(t, err)
	rescan := func() []string {
		var changed []string
		last, changed = s.rescan(last)
		return changed
	}
	assert.Empty(t, rescan(), "nothing changed")

	require.NoError(t, os.WriteFile(a, []byte("package a // longer\n"), 0o644))
	assert.Equal(t, []string{a}, rescan(), "the size changed")
	assert.Empty(t, rescan())

	old := time.Now().Add(-time.Hour)
	require.NoError(t, os.Chtimes(a, old, old))
	assert.Equal(t, []string{a}, rescan(), "the time changed, not the size")

	b := filepath.Join(dir, "sub", "b.go")
	require.NoError(t, os.MkdirAll(filepath.Dir(b), 0o755))
	require.NoError(t, os.WriteFile(b, []byte("package sub\n"), 0o644))
	assert.Equal(t, []string{b}, rescan(), "a new file, in a new directory")

	require.NoError(t, os.Remove(a))
	assert.Equal(t, []string{a}, rescan(), "a file that went")

	// Neither a file that is not Go nor one in a directory go ignores.
	require.NoError(t, os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("x"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, ".course", "x.go"), []byte("x"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "_old.go"), []byte("x"), 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "testdata"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "testdata", "y.go"), []byte("x"), 0o644))
	assert.Empty(t, rescan())

	require.NoError(t, os.RemoveAll(dir))
	assert.Empty(t, rescan(), "a workspace gone for now reports nothing")
}

func TestPollSourceReportsOnATick(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.go")
	require.NoError(t, os.WriteFile(a, []byte("package a\n"), 0o644))
	tick := make(chan time.Time)
	stopped := false
	src, err := startPoll(dir, tick, func() { stopped = true })
	require.NoError(t, err)

	require.NoError(t, os.WriteFile(a, []byte("package a // saved\n"), 0o644))
	send(t, tick) // the first look since the save
	assert.Equal(t, a, receive(t, src.Changes()))

	require.NoError(t, src.Close())
	_, open := <-src.Changes()
	assert.False(t, open, "closed with the source")
	assert.True(t, stopped, "the ticker is stopped")
	require.NoError(t, src.Close(), "closing twice is fine")
}

func TestPollSourceOfAMissingDirectory(t *testing.T) {
	_, err := startPoll(filepath.Join(t.TempDir(), "gone"), nil, func() {})
	assert.Error(t, err)
}

func TestNotifySource(t *testing.T) {
	dir := t.TempDir()
	src, err := startNotify(dir)
	if err != nil {
		t.Skipf("no file events here: %v", err)
	}
	defer src.Close()
	p := filepath.Join(dir, "session.go")
	require.NoError(t, os.WriteFile(p, []byte("package session\n"), 0o644))
	assert.Equal(t, p, receive(t, src.Changes()))

	// A new directory is watched too, from the event that created it on.
	sub := filepath.Join(dir, "store")
	require.NoError(t, os.Mkdir(sub, 0o755))
	for receive(t, src.Changes()) != sub {
	}
	q := filepath.Join(sub, "store.go")
	require.NoError(t, os.WriteFile(q, []byte("package store\n"), 0o644))
	for receive(t, src.Changes()) != q {
	}

	require.NoError(t, src.Close())
	for range src.Changes() { // drained, then closed
	}
}

func TestWatchFilesFallsBackToPolling(t *testing.T) {
	dir := t.TempDir()
	src, how, err := watchFilesWith(dir, false, func(string) (ChangeSource, error) {
		return nil, errors.New("too many open files")
	})
	require.NoError(t, err)
	defer src.Close()
	assert.IsType(t, &pollSource{}, src)
	assert.Equal(t, "polling every 500ms, as file events are not available: too many open files", how)

	called := false
	src2, how, err := watchFilesWith(dir, true, func(string) (ChangeSource, error) {
		called = true
		return nil, nil
	})
	require.NoError(t, err)
	defer src2.Close()
	assert.False(t, called, "--poll does not try file events")
	assert.Equal(t, "polling every 500ms", how)

	src3, how, err := watchFiles(dir, false)
	require.NoError(t, err)
	defer src3.Close()
	if _, ok := src3.(*notifySource); ok {
		assert.Equal(t, "file events; if saving does not re-run the tests, try --poll", how)
	}
}
