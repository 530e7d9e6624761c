package selfcheck

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/coursekit/course/grader"
	"github.com/coursekit/course/grader/lab"
	"github.com/coursekit/course/grader/report"
	"github.com/coursekit/course/grader/safetext"
	"github.com/coursekit/course/grader/sandbox"
	"github.com/coursekit/course/grader/submission"
	"github.com/coursekit/course/solutions"
)

// Kind is what a candidate is, which decides what it must do.
type Kind string

// The kinds of candidate, and what each must do:
const (
	KindStub        Kind = "stub"        // fail every test
	KindSolution    Kind = "solution"    // pass every test, also under -race
	KindAlternative Kind = "alternative" // pass every test, also under -race
	KindMutant      Kind = "mutant"      // fail at least one test of its exercise
	// KindPrefix is the reference solution with every exercise after
	// its own stubbed out (prefix.go): it must pass every test of its
	// exercise, or a test of that exercise needs a later one.
	KindPrefix Kind = "prefix"
)

// Candidate is one implementation the self-check grades.
type Candidate struct {
	Kind     Kind
	Name     string
	Exercise string   // mutants: the exercise whose tests must catch it; prefixes: the last exercise kept
	Mistake  string   // mutants only
	Rules    []string // mutants only: a test of one of these rules must catch it
	Source   []byte
}

// Result is what the self-check found for one candidate.
type Result struct {
	Candidate
	// OK is true when the candidate did what its kind must do.
	OK bool
	// Detail says what happened: the tests that killed a mutant, the tests
	// a solution failed, the tests that passed on the stub.
	Detail string
	// KilledBy lists, for a mutant, the tests of its exercise that ran
	// and failed.
	KilledBy []string
	// Failing and Total count the candidate's failing tests and all tests.
	Failing, Total int
	Report         *report.Report
}

// Summary is the whole self-check of one lab.
type Summary struct {
	Lab     string
	Results []Result
	Seconds float64
}

// Counts returns (ok, total) over the results of one kind.
func (s *Summary) Counts(k Kind) (ok, total int) {
	for _, r := range s.Results {
		if r.Kind == k {
			total++
			if r.OK {
				ok++
			}
		}
	}
	return ok, total
}

// StubTests returns how many of the stub's tests fail, of how many.
func (s *Summary) StubTests() (failing, total int) {
	for _, r := range s.Results {
		if r.Kind == KindStub {
			return r.Failing, r.Total
		}
	}
	return 0, 0
}

// OK reports whether every candidate did what it must.
func (s *Summary) OK() bool {
	for _, r := range s.Results {
		if !r.OK {
			return false
		}
	}
	return len(s.Results) > 0
}

// Options configure Run.
type Options struct {
	Lab *lab.Lab
	// Jobs is how many candidates are graded at once; the number of cores if zero.
	Jobs int
	// Timeout bounds one exercise's run; grader.DefaultTimeout if zero.
	Timeout time.Duration
	// NoRace grades without the race detector, which every real grading
	// build has (for a machine with no C compiler); the mutants whose
	// mistake is a data race may then survive.
	NoRace bool
	// Kinds, if not empty, grades only the candidates of these kinds (a
	// quicker check while a lab is written).
	Kinds []Kind
	// Progress, if set, is called after each candidate is graded.
	Progress func(done, total int, r Result)
}

// Candidates lists what the self-check grades for l: the stub, the reference
// solution, every alternative solution, the solution up to each exercise
// that has a later one, and every mutant.
func Candidates(l *lab.Lab) ([]Candidate, error) {
	stub, err := l.Stub()
	if err != nil {
		return nil, err
	}
	sol, err := l.Solution()
	if err != nil {
		return nil, err
	}
	out := []Candidate{
		{Kind: KindStub, Name: "stub", Source: stub},
		{Kind: KindSolution, Name: "reference", Source: sol},
	}
	altDir := path.Join(l.Slug, "alternatives")
	alts, err := fs.ReadDir(solutions.FS, altDir)
	if err == nil {
		for _, d := range alts {
			if !d.IsDir() {
				continue
			}
			src, err := fs.ReadFile(solutions.FS, path.Join(altDir, d.Name(), l.Editable[0]))
			if err != nil {
				return nil, err
			}
			out = append(out, Candidate{Kind: KindAlternative, Name: d.Name(), Source: src})
		}
	}
	prefixes, err := prefixCandidates(l, sol, stub)
	if err != nil {
		return nil, err
	}
	out = append(out, prefixes...)
	mutants, err := LoadMutants(solutions.FS, path.Join(l.Slug, "mutants"))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	for _, m := range mutants {
		if m.File != l.Editable[0] {
			return nil, &MutantError{File: m.ID, Err: fmt.Errorf("the patch changes %q, not %q: its lines must read --- a/%[2]s and +++ b/%[2]s", m.File, l.Editable[0])}
		}
		src, err := m.Apply(sol)
		if err != nil {
			return nil, err
		}
		out = append(out, Candidate{Kind: KindMutant, Name: m.ID, Exercise: m.Exercise, Mistake: m.Mistake, Rules: m.Rules, Source: src})
	}
	return out, nil
}

// graderKey says which grader grades a candidate: the exercise it is
// graded on ("" for all of them). Mutants and prefixes are graded on one
// exercise without the static check: they are the course's own changes of
// its reference solution, and the check says nothing of whether the tests
// catch them; the stub, the solution and the alternatives, which stand
// for what students hand in, go through it.
type graderKey struct {
	exercise string
}

// graderFor is the grader of a candidate. The stub, the solutions and
// the alternatives are graded on every exercise, bonus ones too. A mutant
// is graded only on the exercise it names, since only that exercise's
// tests judge it: the same verdict for that exercise as a grading of all
// (each exercise's verdict comes from its own runs, see
// grader.Grader.Grade), without the runs of the others. A prefix is
// graded on its last exercise, with the mutants' grader of it. All are
// built with the race detector, as every grading build is.
func graderFor(c Candidate) graderKey {
	if c.Kind == KindMutant || c.Kind == KindPrefix {
		return graderKey{exercise: c.Exercise}
	}
	return graderKey{}
}

// graders makes each grader a self-check needs once, when it is first
// needed, and shares it among the candidates (a grader is safe for
// concurrent use).
type graders struct {
	opts Options
	mu   sync.Mutex
	made map[graderKey]*lazyGrader
}

type lazyGrader struct {
	once sync.Once
	g    *grader.Grader
	err  error
}

func (gs *graders) get(k graderKey) (*grader.Grader, error) {
	gs.mu.Lock()
	lg, ok := gs.made[k]
	if !ok {
		lg = &lazyGrader{}
		gs.made[k] = lg
	}
	gs.mu.Unlock()
	lg.once.Do(func() {
		// Bonus: the optional exercises' tests must tell right from wrong too.
		o := grader.Options{Lab: gs.opts.Lab, Hidden: true, Bonus: true, Timeout: gs.opts.Timeout,
			NoRace: gs.opts.NoRace, OwnCode: true, Sandbox: sandbox.Best, TempDir: workDir()}
		if k.exercise != "" {
			o.Exercises, o.SkipPolicy = []string{k.exercise}, true
		}
		lg.g, lg.err = grader.New(o)
	})
	return lg.g, lg.err
}

// Run grades every candidate of opts.Lab through the grader, with the
// hidden tests, and judges each by its kind. The error is for trouble that
// stops the self-check itself (no toolchain, a mutant that no longer
// applies); a candidate that misbehaves is a Result with OK false.
func Run(ctx context.Context, opts Options) (*Summary, error) {
	start := time.Now()
	cands, err := Candidates(opts.Lab)
	if err != nil {
		return nil, err
	}
	if len(opts.Kinds) > 0 {
		var kept []Candidate
		for _, c := range cands {
			for _, k := range opts.Kinds {
				if c.Kind == k {
					kept = append(kept, c)
				}
			}
		}
		cands = kept
	}
	jobs := opts.Jobs
	if jobs <= 0 {
		jobs = runtime.NumCPU()
	}
	ruleTests, err := opts.Lab.RuleTests()
	if err != nil {
		return nil, err
	}
	rulesOf := map[string][]string{}
	for _, rt := range ruleTests {
		rulesOf[rt.Test] = rt.Rules
	}
	gs := &graders{opts: opts, made: map[graderKey]*lazyGrader{}}
	// Make the grader of all exercises first: its setup check warms the
	// build cache that the others then share.
	if _, err := gs.get(graderKey{}); err != nil {
		return nil, err
	}
	results := make([]Result, len(cands))
	var (
		mu       sync.Mutex
		done     int
		firstErr error
		wg       sync.WaitGroup
	)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	sem := make(chan struct{}, jobs)
	for i, c := range cands {
		wg.Add(1)
		go func(i int, c Candidate) {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			if ctx.Err() != nil {
				return // stopped: a failure elsewhere, or the caller
			}
			g, err := gs.get(graderFor(c))
			var rep *report.Report
			if err == nil {
				rep, err = g.Grade(ctx, &submission.Submission{Name: c.Name, Path: string(c.Kind) + ":" + c.Name,
					Files: map[string][]byte{opts.Lab.Editable[0]: c.Source}})
			}
			var fuzzErr error
			if err == nil && (c.Kind == KindSolution || c.Kind == KindAlternative) {
				fuzzErr = FuzzSeeds(ctx, opts.Lab, g.GoBin(), c.Source)
			}
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				if firstErr == nil {
					firstErr = fmt.Errorf("self-check of %s %s: %w", c.Kind, c.Name, err)
					cancel() // the self-check has failed: grade no more
				}
				return
			}
			results[i] = judge(c, rep, rulesOf)
			if fuzzErr != nil {
				results[i].OK = false
				results[i].Detail += "; " + fuzzErr.Error()
			}
			done++
			if opts.Progress != nil {
				opts.Progress(done, len(cands), results[i])
			}
		}(i, c)
	}
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return &Summary{Lab: opts.Lab.Chapter, Results: results, Seconds: time.Since(start).Seconds()}, nil
}

// judge decides whether a graded candidate did what its kind must.
func judge(c Candidate, rep *report.Report, rulesOf map[string][]string) Result {
	r := Result{Candidate: c, Report: rep}
	var passing []string
	for _, ex := range rep.Exercises {
		for _, t := range ex.Tests {
			r.Total++
			if t.Status == report.StatusPass {
				passing = append(passing, t.Name)
			} else {
				r.Failing++
			}
		}
	}
	switch c.Kind {
	case KindStub:
		r.OK = rep.Build.OK && len(passing) == 0 && r.Total > 0
		r.Detail = fmt.Sprintf("%d of %d tests fail", r.Failing, r.Total)
		if !rep.Build.OK {
			r.Detail = "the stub does not build: " + safetext.FirstLine(rep.Build.Output)
		} else if len(passing) > 0 {
			r.Detail += "; these pass on the stub, so they assert nothing: " + strings.Join(passing, ", ")
		}
	case KindSolution, KindAlternative:
		r.OK = rep.Build.OK && r.Failing == 0 && r.Total > 0
		r.Detail = fmt.Sprintf("%d of %d tests pass", r.Total-r.Failing, r.Total)
		if !rep.Build.OK {
			r.Detail = "does not build: " + safetext.FirstLine(rep.Build.Output)
		} else if r.Failing > 0 {
			var failing []string
			for _, ex := range rep.Exercises {
				for _, t := range ex.Tests {
					if t.Status != report.StatusPass {
						failing = append(failing, t.Name+" ("+t.Status+")")
					}
				}
			}
			r.Detail += "; failing: " + strings.Join(failing, ", ")
		}
	case KindPrefix:
		var failing []string
		tests := 0
		for _, ex := range rep.Exercises {
			if ex.ID != c.Exercise {
				continue
			}
			for _, t := range ex.Tests {
				tests++
				if t.Status != report.StatusPass {
					failing = append(failing, t.Name+" ("+t.Status+")")
				}
			}
		}
		r.OK = rep.Build.OK && tests > 0 && len(failing) == 0
		r.Detail = fmt.Sprintf("%d of %d tests of %s pass with every later exercise stubbed out", tests-len(failing), tests, c.Exercise)
		switch {
		case !rep.Build.OK:
			r.Detail = "the solution up to " + c.Exercise + " does not build: " + safetext.FirstLine(rep.Build.Output)
		case len(failing) > 0:
			r.Detail += "; these need a later exercise: " + strings.Join(failing, ", ")
		}
	case KindMutant:
		if !rep.Build.OK {
			r.Detail = "the mutant does not build, so it proves nothing: " + safetext.FirstLine(rep.Build.Output)
			break
		}
		for _, ex := range rep.Exercises {
			if ex.ID != c.Exercise {
				continue
			}
			for _, t := range ex.Tests {
				// A test that did not run (a hidden one, after a public
				// test failed) killed nothing.
				if t.Status != report.StatusPass && t.Status != report.StatusNotRun {
					r.KilledBy = append(r.KilledBy, t.Name)
				}
			}
			if slices.ContainsFunc(ex.Causes, report.Cause.IsTimeout) {
				r.Detail = "killed by a timeout, which costs every grading run the whole limit: "
			}
		}
		sort.Strings(r.KilledBy)
		r.OK = len(r.KilledBy) > 0 && killedByItsRules(r.KilledBy, c.Rules, rulesOf)
		switch {
		case len(r.KilledBy) == 0:
			r.Detail = "SURVIVED: every test of " + c.Exercise + " passes on it"
		case !r.OK:
			r.Detail = "killed only by tests of other rules than the ones it names (" + strings.Join(c.Rules, ", ") + "): " + strings.Join(r.KilledBy, ", ")
		default:
			r.Detail += "killed by " + strings.Join(r.KilledBy, ", ")
		}
	}
	return r
}

// killedByItsRules reports whether one of the killing tests checks one of
// the rules the mutant names: the proof that the test for that rule bites.
func killedByItsRules(killedBy, rules []string, rulesOf map[string][]string) bool {
	for _, test := range killedBy {
		for _, r := range rulesOf[test] {
			for _, want := range rules {
				if r == want {
					return true
				}
			}
		}
	}
	return false
}
