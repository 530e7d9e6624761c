package run

import (
	"context"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/coursekit/course/grader/judge"
	"github.com/coursekit/course/grader/lab"
	"github.com/coursekit/course/grader/report"
)

// Exercise is an exercise to grade and the tests of it to run.
type Exercise struct {
	lab.Exercise
	Tests []judge.Expected
}

// All runs the tests of every exercise and judges each. An exercise's
// public and hidden tests never share a process, and no hidden run starts
// before every public run has ended: what students see at once (the public
// tests' output) is final before a hidden test runs, so nothing a hidden
// run does, leaves or makes the machine show (the memory its files take,
// the CPU it uses) can reach it.
//
// First all exercises' public tests run in one process. An exercise whose
// tests all passed in a clean run is done. Every other one runs on its
// own, so that a crash, a hang or a failure caused by another exercise
// never decides it. Then the hidden tests, the same way, of the exercises
// whose public tests passed (the others have failed already). Up to
// Parallel runs go at once, each in its own sandbox; all share one time
// budget.
func (c *Config) All(ctx context.Context, work, bin string, exercises []Exercise) ([]report.ExerciseReport, error) {
	p := &plan{Config: c, work: work, bin: bin, exercises: exercises, budget: &budget{deadline: time.Now().Add(c.Budget)}}
	n := len(exercises)
	public, hidden := make([][]judge.Expected, n), make([][]judge.Expected, n)
	for i, ex := range exercises {
		for _, t := range ex.Tests {
			if t.Hidden {
				hidden[i] = append(hidden[i], t)
			} else {
				public[i] = append(public[i], t)
			}
		}
	}
	pubParts, hidParts := make([]*report.ExerciseReport, n), make([]*report.ExerciseReport, n)
	var pubTodo, hidTodo []int
	for i, ex := range exercises {
		switch {
		case len(ex.Tests) == 0:
			part := judge.NotRun(ex.Exercise, nil, &report.Cause{Kind: report.NoTests})
			pubParts[i] = &part
		case len(public[i]) == 0:
			pubParts[i] = &report.ExerciseReport{Passed: true} // only hidden tests: judged by them
		default:
			pubTodo = append(pubTodo, i)
		}
		if len(hidden[i]) > 0 {
			hidTodo = append(hidTodo, i)
		}
	}
	// The public tests: all in one run, then the undecided exercises each alone.
	if err := p.stage(ctx, "public", pubTodo, public, pubParts); err != nil {
		return nil, err
	}
	// The hidden tests of the exercises whose public tests passed, once
	// every public run has ended. An exercise scored per test earns its
	// hidden tests' points even when a public test failed.
	var stillHidden []int
	for _, i := range hidTodo {
		if (pubParts[i] != nil && pubParts[i].Passed) || exercises[i].PerTest() {
			stillHidden = append(stillHidden, i)
		} else {
			part := judge.NotRun(exercises[i].Exercise, hidden[i], nil) // failed already: its public causes stand
			hidParts[i] = &part
		}
	}
	if err := p.stage(ctx, "hidden", stillHidden, hidden, hidParts); err != nil {
		return nil, err
	}
	out := make([]report.ExerciseReport, n)
	for i, ex := range exercises {
		parts := []report.ExerciseReport{*pubParts[i]}
		if hidParts[i] != nil {
			parts = append(parts, *hidParts[i])
		}
		out[i] = judge.Combine(ex.Exercise, parts)
	}
	return out, nil
}

// plan is one submission's runs.
type plan struct {
	*Config
	work, bin string
	exercises []Exercise
	budget    *budget
}

// stage runs the group's tests of the exercises idx: together, then each
// exercise the shared run could not decide on its own; every verdict goes
// into parts.
func (p *plan) stage(ctx context.Context, group string, idx []int, testsOf [][]judge.Expected, parts []*report.ExerciseReport) error {
	shared, err := p.shared(ctx, group, idx, testsOf)
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	var alone []int
	for _, i := range idx {
		if r, ok := shared[i]; ok {
			parts[i] = r
		} else {
			alone = append(alone, i)
		}
	}
	return p.alone(ctx, group, alone, testsOf, parts)
}

// shared runs the group's tests of the exercises idx in one process and
// returns the verdicts it can give: a pass for each exercise whose tests
// all passed in a clean run, or a failure for all when the package's
// initialisation failed. The others are left to run alone.
func (p *plan) shared(ctx context.Context, group string, idx []int, testsOf [][]judge.Expected) (map[int]*report.ExerciseReport, error) {
	out := map[int]*report.ExerciseReport{}
	if len(idx) < 2 {
		return out, nil // one exercise runs alone anyway
	}
	var all []judge.Expected
	for _, i := range idx {
		all = append(all, testsOf[i]...)
	}
	r, err := p.one(ctx, p.budget, p.work, p.bin, group+"-all", all)
	if err != nil {
		return nil, err
	}
	_, initFailed := r.InitFailed()
	for _, i := range idx {
		ex := p.exercises[i]
		part := report.ExerciseReport{ID: ex.ID, Name: ex.Name, Bonus: ex.Bonus, MaxPoints: ex.Points}
		switch {
		case initFailed:
			part = judge.NotRun(ex.Exercise, testsOf[i], p.budget.aborted())
		case judge.Shared(&part, r, testsOf[i]):
		default:
			continue
		}
		out[i] = &part
	}
	return out, nil
}

// alone runs the group's tests of each exercise of idx in a process of its
// own, Parallel at a time, and puts each verdict in parts.
func (p *plan) alone(ctx context.Context, group string, idx []int, testsOf [][]judge.Expected, parts []*report.ExerciseReport) error {
	errs := make([]error, len(idx))
	sem := make(chan struct{}, p.Parallel)
	var wg sync.WaitGroup
	for k, i := range idx {
		ex := p.exercises[i]
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			part := report.ExerciseReport{ID: ex.ID, Name: ex.Name, Bonus: ex.Bonus, MaxPoints: ex.Points}
			if cause := p.budget.aborted(); cause != nil {
				part = judge.NotRun(ex.Exercise, testsOf[i], cause)
			} else if r, err := p.one(ctx, p.budget, p.work, p.bin, strings.ReplaceAll(ex.ID, ".", "_")+"-"+group, testsOf[i]); err != nil {
				errs[k] = err
				return
			} else {
				part.Seconds = r.Outcome.Duration.Seconds()
				judge.Exercise(&part, r)
				if _, failed := r.InitFailed(); failed {
					part.Fail(*p.budget.aborted())
				}
			}
			parts[i] = &part
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return err // cancelled: the runs were killed, not judged
	}
	return errors.Join(errs...)
}
