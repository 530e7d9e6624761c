// Package run runs a submission's test binary, confined by the sandbox:
// one run asks the harness for a list of tests and collects what it did
// (its output, events and the harness's report) for package judge; the
// plan runs every exercise's public tests, then its hidden ones, shared
// first and alone where a shared run cannot decide, within one time budget.
package run

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/coursekit/course/grader/harness"
	"github.com/coursekit/course/grader/judge"
	"github.com/coursekit/course/grader/report"
	"github.com/coursekit/course/grader/sandbox"
	"github.com/coursekit/course/grader/testjson"
)

// Config is how a submission's binary is run.
type Config struct {
	Sandbox   *sandbox.Sandbox
	Test2JSON string        // the toolchain's converter, run directly: `go tool` costs a go command start each time
	Timeout   time.Duration // one run
	Budget    time.Duration // all runs of one submission
	Parallel  int           // runs of one submission at once
	OutputCap int           // bytes of a run's output kept
	// Observe, if set, is told of every run: its label ("public-all",
	// "10_3-hidden") and when it started and ended.
	Observe func(label string, start, end time.Time)
}

// Env is the environment of every run of student code. One P and no
// asynchronous preemption: goroutines then change only where the code calls
// into the scheduler, never between the two words of an interface or the
// three of a slice, so even a data race the detector misses cannot tear a
// value and reach memory (docs/grading.md, "Data races"). The Go runtime
// reads these from its own start-up stack, not from /proc.
//
// No GORACE: the race detector reads it from /proc/self/environ, which a
// process whose binary it may not read (ours is execute-only) cannot open;
// it runs with its defaults. A race it sees is printed before the racing
// access completes, and the run fails on that report.
var Env = []string{"GOTRACEBACK=single", "GOMAXPROCS=1", "GODEBUG=asyncpreemptoff=1"}

// Grace is how long after -test.timeout a run is killed: the test binary's
// own timeout fires first and says which test hung.
const Grace = 5 * time.Second

// budget carries what one submission's runs have spent and learned.
type budget struct {
	deadline time.Time // the end of the submission's time budget
	mu       sync.Mutex
	abort    *report.Cause // when set, every run not yet started fails for it
}

func (b *budget) aborted() *report.Cause {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.abort
}

func (b *budget) setAbort(c report.Cause) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.abort == nil {
		b.abort = &c
	}
}

// one runs the binary once for exactly tests, in the sandbox, and collects
// what the run did. A run left with less than a second of the submission's
// budget does not start: it comes back timed out.
func (c *Config) one(ctx context.Context, b *budget, work, bin, label string, tests []judge.Expected) (*judge.Run, error) {
	iso := c.Sandbox.Isolation()
	r := &judge.Run{Tests: tests, OutputCap: c.OutputCap, Limits: judge.Limits{Memory: iso.MemoryLimit, Processes: iso.ProcessLimit},
		Events: testjson.NewSummary()}
	remaining := time.Until(b.deadline).Truncate(time.Millisecond)
	if remaining < time.Second {
		cause := report.Cause{Kind: report.BudgetUsed, Limit: int64(c.Budget)}
		b.setAbort(cause)
		r.Timeout, r.Outcome, r.NotStarted = max(remaining, 0), sandbox.Outcome{TimedOut: true, ExitCode: -1}, &cause
		return r, nil
	}
	r.Timeout = min(c.Timeout, remaining)
	// The report travels on fd 3, a file only the grader and its TestMain
	// hold; the nonce, given on fd 4 with the tests to run, proves the
	// report was written by this very run.
	rep, err := harness.OpenReport(filepath.Join(work, "report-"+label))
	if err != nil {
		return nil, fmt.Errorf("grader: %w", err)
	}
	defer rep.Close()
	names := make([]string, len(tests))
	for i, t := range tests {
		names[i] = t.Name
	}
	nonce := harness.NewNonce()
	input, err := harness.Input(work, nonce, names)
	if err != nil {
		return nil, fmt.Errorf("grader: %w", err)
	}
	defer input.Close()
	started := time.Now()
	if f := c.Observe; f != nil {
		defer func() { f(label, started, time.Now()) }()
	}
	r.Outcome = c.Sandbox.Run(ctx, sandbox.Job{
		Path: bin,
		Args: []string{
			"-test.run=^" + harness.Test + "$",
			"-test.v=test2json",
			"-test.paniconexit0",
			"-test.count=1",
			"-test.timeout=" + r.Timeout.String(),
		},
		Env:        Env,
		Timeout:    r.Timeout + Grace,
		Cap:        c.OutputCap,
		Extra:      []*os.File{rep, input},
		Untrusted:  true,
		PrivateDir: filepath.Join(work, "run-"+label),
	})
	if r.Outcome.StartErr != nil {
		return nil, fmt.Errorf("grader: run %s: %w", label, r.Outcome.StartErr)
	}
	// File names in test output are relative to the grading directory, as
	// the build's are: its temporary path is noise to a reader.
	r.Outcome.Output = bytes.ReplaceAll(r.Outcome.Output, []byte(filepath.Join(work, "src")+string(filepath.Separator)), nil)
	if bytes.Count(r.Outcome.Output, []byte("\n")) > judge.MaxOutputLines {
		r.TooManyLines = true
	} else if r.Events, err = c.events(ctx, r.Outcome.Output); err != nil {
		return nil, err
	}
	r.Report = harness.Parse(harness.ReadReport(rep, harness.MaxReportBytes), nonce)
	if cause, failed := r.InitFailed(); failed {
		// Not one test started before the run hung or ran out of memory
		// or processes: the package's initialisation did, and would do
		// the same in every other run.
		b.setAbort(cause)
	}
	return r, nil
}

// events converts a run's framed output (-test.v=test2json) to events with
// the toolchain's own converter, and sums them up per test.
func (c *Config) events(ctx context.Context, output []byte) (*testjson.Summary, error) {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, c.Test2JSON)
	cmd.Stdin = bytes.NewReader(output)
	converted, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("grader: test2json: %w", err)
	}
	// The tests run as the harness's subtests: "TestCourseGrader/TestX"
	// is test TestX. What the harness itself prints between them is the
	// run's own output.
	sum := testjson.NewSummary()
	d := testjson.NewDecoder(bytes.NewReader(converted))
	for {
		ev, err := d.Next()
		if errors.Is(err, io.EOF) {
			return sum, nil
		}
		if err != nil {
			return nil, fmt.Errorf("grader: reading test events: %w", err)
		}
		if ev.Test == harness.Test {
			if ev.Action != testjson.ActionOutput {
				continue
			}
			ev.Test = ""
		}
		ev.Test = strings.TrimPrefix(ev.Test, harness.Test+"/")
		sum.Add(ev)
	}
}
