package grader

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coursekit/course/grader/lab"
	"github.com/coursekit/course/grader/release/releasetest"
	"github.com/coursekit/course/grader/report"
	"github.com/coursekit/course/grader/run"
	"github.com/coursekit/course/grader/submission"
)

// tearTypes are two types whose method tells them apart, and an interface
// variable that two goroutines race on, holding one and then the other: the
// start of every attack that tears an interface value to reach memory (a
// method of one type called with the other's data). A torn read panics, so
// a run where one happened can never pass.
const tearTypes = `
type courseTearA struct{ a, b int } // {1, 2}: sum 3; B's data through A's method: 30
type courseTearB struct{ a, b int } // {10, 20}: sum 60; A's data through B's method: 6

func (t *courseTearA) sum() int { return t.a + t.b }
func (t *courseTearB) sum() int { return 2 * (t.a + t.b) }

type courseTearer interface{ sum() int }

var courseTearVal courseTearer
`

// tearLoops starts the writer and the reader, after a first race that is
// certain: init writes again after starting the reader and waits for it, so
// the reader's first read races with that write however the goroutines are
// scheduled. Then both go on for as long as the run lasts, pausing every
// burst turns (an attack's heap scan and forged cleanup are code too; the
// tests must get to run).
func tearLoops(burst int) string {
	return strings.ReplaceAll(`
	a, b := &courseTearA{1, 2}, &courseTearB{10, 20}
	courseTearVal = a
	first := make(chan struct{})
	go func() {
		check := func() {
			switch v := courseTearVal; v.sum() {
			case 3, 60:
			default:
				panic("a torn interface value: one type's method ran on the other's data")
			}
		}
		check()
		close(first)
		for i := 1; ; i++ {
			check()
			if i%BURST == 0 {
				time.Sleep(time.Millisecond)
			}
		}
	}()
	courseTearVal = b
	<-first
	go func() {
		for i := 1; ; i++ {
			if i%2 == 0 {
				courseTearVal = a
			} else {
				courseTearVal = b
			}
			if i%BURST == 0 {
				time.Sleep(time.Millisecond)
			}
		}
	}()
`, "BURST", strconv.Itoa(burst))
}

// tearHelpers is the attempt to blind the detector: goroutines that read
// the variable after every write, in step with the writer, so that the
// detector's few remembered accesses per word are theirs and not the
// racing reader's.
const tearHelpers = `
	a, b := &courseTearA{1, 2}, &courseTearB{10, 20}
	courseTearVal = a
	first := make(chan struct{})
	go func() { _ = courseTearVal; close(first) }()
	courseTearVal = b
	<-first
	const helpers = 16
	turn := make([]chan struct{}, helpers)
	done := make(chan struct{}, helpers)
	for h := range turn {
		turn[h] = make(chan struct{})
		go func() {
			for range turn[h] {
				_ = courseTearVal
				done <- struct{}{}
			}
		}()
	}
	go func() {
		for i := 0; ; i++ {
			if i%2 == 0 {
				courseTearVal = a
			} else {
				courseTearVal = b
			}
			for _, c := range turn {
				c <- struct{}{}
			}
			for range turn {
				<-done
			}
		}
	}()
	go func() {
		for i := 0; ; i++ {
			if i%64 == 0 { // rarely: a racing read the helpers' reads can push out
				switch v := courseTearVal; v.sum() {
				case 3, 60:
				default:
					panic("a torn interface value")
				}
			}
			if i%256 == 0 {
				time.Sleep(time.Millisecond)
			}
		}
	}()
`

// raceAttack is src with a tearing attack that starts in init, before any
// test, and goes on through every run.
func raceAttack(t *testing.T, src []byte, body string) []byte {
	t.Helper()
	return append(withInit(t, src, []string{"time"}, body), tearTypes...)
}

// TestRaceAttacksDecideNothing: a correct solution that races as the
// attack did (allowed imports only) earns nothing, in every lab and for
// every --lab selection: every build has the race detector, and a race it
// reports fails every exercise judged from that run. Lab 4, where
// concurrency is not the lesson, refuses the goroutines before building.
func TestRaceAttacksDecideNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and grades a dozen submissions")
	}
	cat, err := lab.Load()
	require.NoError(t, err)
	cases := []struct {
		chapter   string
		exercises []string
		body      string
	}{
		{"4", nil, tearLoops(256)},
		{"4", []string{"4.1"}, tearLoops(256)},
		{"10", []string{"10.1"}, tearLoops(256)},
		{"10", []string{"10.2", "10.4", "10.6"}, tearLoops(256)},
		{"10", nil, tearLoops(256)},
		{"10", []string{"10.1"}, tearHelpers},
		{"11", []string{"11.1"}, tearLoops(256)},
		{"11", nil, tearLoops(256)},
		{"11", []string{"11.1"}, tearHelpers},
	}
	for _, tc := range cases {
		name := tc.chapter + "/" + strings.Join(tc.exercises, ",")
		if strings.Contains(tc.body, "helpers") {
			name += "/helpers"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			l, err := cat.Lookup(tc.chapter)
			require.NoError(t, err)
			src := raceAttack(t, releasetest.Solution(t, l), tc.body)
			rep := gradeRaceAttack(t, l, tc.exercises, src)
			if l.Sequential {
				assert.True(t, rep.Build.Rejected, "lab %s is sequential: a file that starts goroutines is refused before building\n%s", tc.chapter, textReport(rep))
				assert.Contains(t, rep.Build.Output, "this lab needs no goroutines")
				assert.Zero(t, rep.Score)
				return
			}
			assert.True(t, rep.Race, "lab %s (--lab %s) was built without the race detector", tc.chapter, strings.Join(tc.exercises, ","))
			assert.Zero(t, rep.Score, "a racing submission scored\n%s", textReport(rep))
			for _, ex := range rep.Exercises {
				assert.False(t, ex.Passed, "exercise %s passed a racing run", ex.ID)
				assert.Contains(t, ex.Reason, "data race", "exercise %s: the reason names the race", ex.ID)
			}
		})
	}
}

// gradeRaceAttack grades src as a workspace of lab l on the exercises
// given (all when none), and checks what every fixture promises: bounded
// time, the submission unchanged, no process left, nothing written outside
// the runs.
func gradeRaceAttack(t *testing.T, l *lab.Lab, exercises []string, src []byte) *report.Report {
	t.Helper()
	g, work := raceGrader(t, l, exercises, false)
	dir := filepath.Join(t.TempDir(), "sub")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, l.Editable[0]), src, 0o444))
	before := hashTree(t, dir)
	sub, err := submission.Read(dir, l.Editable)
	require.NoError(t, err)
	start := time.Now()
	rep, err := g.Grade(context.Background(), sub)
	require.NoError(t, err)
	assert.Less(t, time.Since(start), DefaultBuildTimeout+budgetTimeouts*raceTimeout+run.Grace+15*time.Second)
	assert.Equal(t, before, hashTree(t, dir), "grading changed the submission")
	assertNoProcessLeft(t, work)
	assertNothingWritten(t)
	return rep
}

// raceTimeout bounds one run of a race fixture.
const raceTimeout = 10 * time.Second

// raceGrader is a sandboxed grader of l on exercises; noRace builds
// without the race detector (the course's own code only, never a student's).
func raceGrader(t *testing.T, l *lab.Lab, exercises []string, noRace bool) (*Grader, string) {
	t.Helper()
	work, err := os.MkdirTemp("", "course-race-*")
	require.NoError(t, err)
	require.NoError(t, os.Chmod(work, 0o711))
	t.Cleanup(func() { os.RemoveAll(work) })
	g := newSandboxedGrader(t, Options{Lab: l, Exercises: exercises, Hidden: true, Timeout: raceTimeout, TempDir: work, NoRace: noRace})
	return g, work
}

// tearInInit races for a second of wall-clock time in init, before any
// test, in bursts that outlast the 10ms after which the Go runtime would
// preempt a goroutine where it stands if it could, and then stops, so that
// the tests run normally afterwards. On two Ps, or with asynchronous
// preemption, millions of reads tear in that second.
const tearInInit = `
	a, b := &courseTearA{1, 2}, &courseTearB{10, 20}
	courseTearVal = a
	stop := time.Now().Add(time.Second)
	done := make(chan struct{}, 2)
	go func() {
		defer func() { done <- struct{}{} }()
		for i := 1; ; i++ {
			switch v := courseTearVal; v.sum() {
			case 3, 60:
			default:
				panic("a torn interface value: one type's method ran on the other's data")
			}
			if i%(1<<20) == 0 && time.Now().After(stop) {
				return
			}
		}
	}()
	go func() {
		defer func() { done <- struct{}{} }()
		for i := 1; ; i++ {
			if i%2 == 0 {
				courseTearVal = a
			} else {
				courseTearVal = b
			}
			if i%(1<<20) == 0 && time.Now().After(stop) {
				return
			}
		}
	}()
	<-done
	<-done
`

// TestOneProcessorTearsNothing is the second wall on its own: built
// without the race detector (which only the course's own code may be),
// the racing submission runs unreported, and still no read is ever torn,
// so the correct solution under it keeps every point. Runs have one P and
// no asynchronous preemption: goroutines change only at calls into the
// scheduler, never between the two words of an interface.
func TestOneProcessorTearsNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and grades a submission")
	}
	l := testLab(t)
	g, work := raceGrader(t, l, nil, true)
	dir := filepath.Join(t.TempDir(), "sub")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "session.go"), raceAttack(t, solutionSource(t), tearInInit), 0o444))
	sub, err := submission.Read(dir, l.Editable)
	require.NoError(t, err)
	rep, err := g.Grade(context.Background(), sub)
	require.NoError(t, err)
	require.False(t, rep.Race)
	assert.Equal(t, float64(rep.MaxScore), rep.Score, "a torn read panicked in some run\n%s", textReport(rep))
	assertNoProcessLeft(t, work)
}

// TestRaceReportCannotBeHidden: after its first race the attack tries to
// keep the detector's report from deciding: by printing a flood before the
// race (the report then falls past the output cap), by printing one after
// it, or by hanging. Every way fails the run.
func TestRaceReportCannotBeHidden(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and grades three submissions")
	}
	l := testLab(t)
	flood := `
	for i := 0; i < 20000; i++ {
		fmt.Println(strings.Repeat("y", 100))
	}
`
	cases := []struct {
		name, before, after, reason string
	}{
		{"flood-before-the-race", flood, "", "printed more than 1024 KiB"},
		{"flood-after-the-race", "", flood, "data race"},
		{"hang-after-the-race", "", "select {}", "data race"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			body := tc.before + tearLoops(256) + tc.after
			src := append(withInit(t, solutionSource(t), []string{"fmt", "strings", "time"}, body), tearTypes...)
			rep := gradeRaceAttack(t, l, []string{"10.1"}, src)
			assert.Zero(t, rep.Score, "the racing submission scored\n%s", textReport(rep))
			for _, ex := range rep.Exercises {
				assert.Contains(t, ex.Reason, tc.reason, "exercise %s", ex.ID)
			}
		})
	}
}
