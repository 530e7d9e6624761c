package testjson

import (
	"errors"
	"io"
	"slices"
	"strings"
)

// TestResult sums up one top-level test, with its subtests folded in.
type TestResult struct {
	Package string
	Name    string

	// Status is the last final action (pass, fail, skip; bench for a
	// benchmark) of the test itself, or "" if it started and never ended,
	// as when the test binary crashed or timed out in it.
	Status Action
	// Counts of the test's own events; a test run once has Runs == 1 and
	// one of Passes, Fails, Skips equal to 1.
	Runs, Passes, Fails, Skips int
	// Elapsed is the seconds of the last pass or fail.
	Elapsed float64
	// Output holds the test's and its subtests' output events, in order.
	Output []string
	// Subtests maps each subtest's full name ("TestX/case") to its last
	// final action, "" if it never ended.
	Subtests map[string]Action
}

// OutputText returns the test's output as it was printed.
func (r *TestResult) OutputText() string { return strings.Join(r.Output, "") }

// Summary sums up a stream of events per top-level test. The zero value is
// not ready; use NewSummary or Summarize.
type Summary struct {
	// Tests are the top-level tests in the order they first appeared.
	Tests []*TestResult
	// Packages maps each package to its last final action.
	Packages map[string]Action
	// BuildFailed lists, once each, the packages that failed to build.
	BuildFailed []string
	// BuildOutput is what the toolchain printed while building.
	BuildOutput []string
	// Output is package-level output and lines that were not JSON.
	Output []string

	index map[testKey]*TestResult
}

type testKey struct{ pkg, name string }

// NewSummary returns an empty summary to Add events to.
func NewSummary() *Summary {
	return &Summary{Packages: map[string]Action{}, index: map[testKey]*TestResult{}}
}

// Summarize reads every event of r into a new Summary. On a read error it
// returns what it had summed up so far with the error.
func Summarize(r io.Reader) (*Summary, error) {
	s := NewSummary()
	d := NewDecoder(r)
	for {
		ev, err := d.Next()
		if errors.Is(err, io.EOF) {
			return s, nil
		}
		if err != nil {
			return s, err
		}
		s.Add(ev)
	}
}

// Add folds ev into the summary.
func (s *Summary) Add(ev Event) {
	switch {
	case ev.Action == ActionBuildOutput:
		s.BuildOutput = append(s.BuildOutput, ev.Output)
		return
	case ev.Action == ActionBuildFail:
		s.buildFailed(ev.ImportPath)
		return
	case ev.Test == "":
		s.addPackage(ev)
		return
	}
	name, sub, isSub := strings.Cut(ev.Test, "/")
	r := s.test(ev.Package, name)
	if ev.Action == ActionOutput {
		r.Output = append(r.Output, ev.Output)
		return
	}
	if isSub {
		if ev.Action == ActionRun {
			r.Subtests[name+"/"+sub] = ""
		} else if ev.Action.IsFinal() || ev.Action == ActionBench {
			r.Subtests[name+"/"+sub] = ev.Action
		}
		return
	}
	switch ev.Action {
	case ActionRun:
		r.Runs++
		r.Status = "" // a rerun (-count) is unfinished until it ends
	case ActionPass:
		r.Passes++
	case ActionFail:
		r.Fails++
	case ActionSkip:
		r.Skips++
	}
	if ev.Action.IsFinal() || ev.Action == ActionBench {
		r.Status = ev.Action
		r.Elapsed = ev.Elapsed
	}
}

func (s *Summary) addPackage(ev Event) {
	switch {
	case ev.Action == ActionOutput:
		s.Output = append(s.Output, ev.Output)
	case ev.Action.IsFinal():
		s.Packages[ev.Package] = ev.Action
		if ev.FailedBuild != "" {
			s.buildFailed(ev.FailedBuild)
		}
	case ev.Action == ActionStart:
		if _, ok := s.Packages[ev.Package]; !ok {
			s.Packages[ev.Package] = ""
		}
	}
}

func (s *Summary) buildFailed(importPath string) {
	if !slices.Contains(s.BuildFailed, importPath) {
		s.BuildFailed = append(s.BuildFailed, importPath)
	}
}

func (s *Summary) test(pkg, name string) *TestResult {
	k := testKey{pkg, name}
	if r, ok := s.index[k]; ok {
		return r
	}
	r := &TestResult{Package: pkg, Name: name, Subtests: map[string]Action{}}
	s.index[k] = r
	s.Tests = append(s.Tests, r)
	return r
}

// Test returns the top-level test called name (the first one seen, should
// the stream hold several packages with a test of that name).
func (s *Summary) Test(name string) (*TestResult, bool) {
	for _, r := range s.Tests {
		if r.Name == name {
			return r, true
		}
	}
	return nil, false
}

// WithStatus returns the names of the top-level tests whose Status is
// status ("" for those that never ended), in order.
func (s *Summary) WithStatus(status Action) []string {
	var out []string
	for _, r := range s.Tests {
		if r.Status == status {
			out = append(out, r.Name)
		}
	}
	return out
}
