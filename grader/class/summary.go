// Package class sums up a class's grading reports: score statistics, a
// histogram, each exercise's pass rate, the tests (and the rules of the
// lab's rule table) most of the class failed, the slowest submissions and
// the ones that timed out, and one row per student. WriteSummaryText prints
// the gist at the end of a class run; WriteHTML makes one self-contained
// page of it; ReadJSON reads a saved `course grade --json` class file.
// A class graded in shards: Shard says which part a submission is of,
// ReadSaved reads a shard's report too, and Merge puts the parts together.
package class

import (
	"cmp"
	"errors"
	"fmt"
	"regexp"
	"slices"

	"github.com/coursekit/course/grader/lab"
	"github.com/coursekit/course/grader/names"
	"github.com/coursekit/course/grader/report"
	"github.com/coursekit/course/grader/safetext"
)

// Bins is the number of bars of the score histogram.
const Bins = 10

// SlowestCount is how many of the slowest submissions a Summary lists.
const SlowestCount = 5

// Summary is what a class's reports say taken together. Every list in it is
// in a fixed order, so the same reports always give the same summary.
type Summary struct {
	Lab   string // the lab's chapter ("10")
	Title string // the lab's title, when the lab was given to Summarize

	MaxScore  int // every graded submission's maximum score
	Graded    int // submissions with a report
	NotGraded int // submissions that could not be graded

	// Score is over the graded submissions' scores, late penalties taken.
	Score Stats
	// Histogram counts the graded scores in Bins bins over 0..MaxScore.
	Histogram []Bin

	// Exercises are in the lab's order: every exercise some report has.
	Exercises []ExerciseStats
	// Tests are every test the reports list, the most failed first (then
	// the highest rate, then in exercise order, then by name).
	Tests []TestStats
	// Rules are the lab's rules of the exercises in Exercises, in the rule
	// table's order; none when the lab was not given or has no rule table.
	Rules []RuleStats
	// Hints are the lab's hints of each exercise in Exercises, by id.
	Hints map[string][]lab.Hint

	// Slowest are the SlowestCount submissions that took longest to grade,
	// slowest first (ties by name).
	Slowest []Timing
	// TimedOut are the exercises that timed out, by submission then
	// exercise.
	TimedOut []TimeOut

	// Students has a row for every submission, graded or not, by name.
	Students []Student

	// Run is how the class was graded, as its reports record it.
	Run RunInfo

	// Whole, when set, is the whole gradebook the reports were regraded
	// into (course grade --update): everything else here is about the
	// regraded submissions only, and says so.
	Whole *Whole
}

// Stats describes a set of scores. All are 0 for an empty set.
type Stats struct {
	N                      int
	Mean, Median, Min, Max float64
}

// Bin is one bar of the histogram: the scores from Lo up to Hi, Hi left
// out except in the last bin.
type Bin struct {
	Lo, Hi float64
	Count  int
}

// Label is the bin's range as a person reads it: "0–10", "90–100".
func (b Bin) Label() string {
	return report.FormatPoints(b.Lo) + "–" + report.FormatPoints(b.Hi)
}

// ExerciseStats is how the class did on one exercise.
type ExerciseStats struct {
	ID, Name   string
	Bonus      bool
	MaxPoints  int
	Graded     int     // reports holding the exercise
	Passed     int     // of which passed it
	MeanPoints float64 // over Graded
}

// Rate is the share of the graded submissions that passed, 0 to 1.
func (e ExerciseStats) Rate() float64 { return ratio(e.Passed, e.Graded) }

// Percent is Rate as a whole percentage, rounded half up as the class
// table of `course grade` rounds it.
func (e ExerciseStats) Percent() int { return percent(e.Passed, e.Graded) }

// TestStats is how the class did on one test.
type TestStats struct {
	Name     string
	Exercise string // the exercise's id
	Hidden   bool
	Total    int // reports listing the test
	Failed   int // in which it ran and did not pass (fail, skip, did not end, inconsistent)
	NotRun   int // in which it never started (a build failure, an earlier crash, no time left)
	// Rules are the rules the test checks, by its doc comment ("// Rule
	// 10.5.4: ..."); nil when that cannot be told: the lab was not given,
	// or the test is not one of the lab's own (a --tests suite).
	Rules []string
}

// Ran is the number of reports in which the test started.
func (t TestStats) Ran() int { return t.Total - t.NotRun }

// Rate is the share of the runs of the test that failed, 0 to 1.
func (t TestStats) Rate() float64 { return ratio(t.Failed, t.Ran()) }

// Percent is Rate as a whole percentage, rounded half up.
func (t TestStats) Percent() int { return percent(t.Failed, t.Ran()) }

// RuleStats is how the class did on one rule of the lab's rule table.
type RuleStats struct {
	ID, Text string
	Exercise string   // the exercise the rule belongs to
	Tests    []string // the tests that check it which the reports list, by name
	// Broken counts the submissions in which a test of the rule ran and
	// did not pass; Checked those in which a test of it ran at all.
	Broken, Checked int
	// Hints are the exercise's hints that name the rule ("rule 10.5.4").
	Hints []lab.Hint
}

// Percent is the share of Checked that broke the rule, rounded half up.
func (r RuleStats) Percent() int { return percent(r.Broken, r.Checked) }

// Timing is how long one submission took to grade.
type Timing struct {
	Submission string
	Seconds    float64
}

// TimeOut is an exercise of a submission that ran out of time: its reason,
// or a part of it, starts with "timed out" or "no test started" (also after
// "hidden tests: ").
type TimeOut struct {
	Submission, Exercise, Reason string
}

// Summarize sums up a class: the reports of the graded submissions and the
// submissions that could not be graded (name → reason). l, the lab the
// reports are of, may be nil; with it the summary also names each test's
// rules, holds the rule table and the hints, and orders exercises as the
// lab does. The reports are not changed.
//
// Reports that cannot be one class are an error: a nil report, a report
// without a submission name, a name given twice, reports of different labs
// or of another lab than l, different maximum scores (a class graded with
// different --lab or --bonus flags), an exercise id twice in one report or
// one that l does not have.
func Summarize(reports []*report.Report, notGraded map[string]string, l *lab.Lab) (*Summary, error) {
	s := &Summary{Graded: len(reports), NotGraded: len(notGraded), Hints: map[string][]lab.Hint{}}
	if l != nil {
		s.Lab, s.Title = l.Chapter, l.Title
	}
	if err := s.check(reports, notGraded, l); err != nil {
		return nil, err
	}
	sorted := slices.Clone(reports)
	slices.SortFunc(sorted, func(a, b *report.Report) int { return names.Compare(a.Submission, b.Submission) })
	if len(sorted) > 0 {
		s.MaxScore = sorted[0].MaxScore
	}
	s.Exercises = exerciseStats(sorted, l)
	scores := make([]float64, len(sorted))
	for i, r := range sorted {
		scores[i] = r.Score
	}
	s.Score = stats(scores)
	s.Histogram = histogram(scores, s.MaxScore)
	if err := s.rulesAndTests(sorted, l); err != nil {
		return nil, err
	}
	for _, r := range sorted {
		s.Slowest = append(s.Slowest, Timing{Submission: r.Submission, Seconds: r.Seconds})
		for _, ex := range r.Exercises {
			for _, c := range ex.Causes {
				if c.IsTimeout() {
					s.TimedOut = append(s.TimedOut, TimeOut{Submission: r.Submission, Exercise: ex.ID, Reason: c.Public()})
				}
			}
		}
	}
	slices.SortStableFunc(s.Slowest, func(a, b Timing) int { return cmp.Compare(b.Seconds, a.Seconds) })
	s.Slowest = s.Slowest[:min(len(s.Slowest), SlowestCount)]
	s.Students = students(sorted, notGraded, s.Exercises)
	s.Run = runInfo(sorted)
	return s, nil
}

// check refuses reports that are not one class of one lab: a name twice or
// none, another lab, another maximum score, an exercise twice or unknown.
func (s *Summary) check(reports []*report.Report, notGraded map[string]string, l *lab.Lab) error {
	seen := map[string]string{} // name → what it is, for the error
	for name := range notGraded {
		if name == "" {
			return errors.New("class: a submission that could not be graded has no name")
		}
		seen[name] = "a submission that could not be graded"
	}
	for i, r := range reports {
		switch {
		case r == nil:
			return fmt.Errorf("class: report %d is nil", i)
		case r.Submission == "":
			return fmt.Errorf("class: report %d (%s) has no submission name", i, visible(r.Path))
		}
		if what, ok := seen[r.Submission]; ok {
			return fmt.Errorf("class: two submissions are named %q: report %d and %s", visible(r.Submission), i, what)
		}
		seen[r.Submission] = fmt.Sprintf("report %d", i)
		if s.Lab == "" {
			s.Lab = r.Lab
		}
		if r.Lab != s.Lab {
			if l != nil {
				return fmt.Errorf("class: %s was graded against lab %q, not lab %s", visible(r.Submission), visible(r.Lab), l.Chapter)
			}
			return fmt.Errorf("class: %s was graded against lab %q, %s against lab %q: one class is one lab",
				visible(r.Submission), visible(r.Lab), visible(reports[0].Submission), visible(reports[0].Lab))
		}
		if i > 0 && r.MaxScore != reports[0].MaxScore {
			return fmt.Errorf("class: %s has a maximum score of %d, %s of %d: grade a class with the same --lab and --bonus flags",
				visible(r.Submission), r.MaxScore, visible(reports[0].Submission), reports[0].MaxScore)
		}
		if err := checkExercises(r, l); err != nil {
			return err
		}
	}
	return nil
}

// checkExercises refuses a report with an exercise twice, or one l lacks.
func checkExercises(r *report.Report, l *lab.Lab) error {
	ids := map[string]bool{}
	for _, ex := range r.Exercises {
		if ids[ex.ID] {
			return fmt.Errorf("class: %s has exercise %q twice", visible(r.Submission), visible(ex.ID))
		}
		ids[ex.ID] = true
		if l != nil {
			if _, err := l.Exercise(ex.ID); err != nil {
				return fmt.Errorf("class: %s has exercise %q, which lab %s does not have", visible(r.Submission), visible(ex.ID), l.Chapter)
			}
		}
	}
	return nil
}

// rulesAndTests counts how each test fared, and with the lab, each rule
// and the hints that name it.
func (s *Summary) rulesAndTests(sorted []*report.Report, l *lab.Lab) error {
	var ruleTests map[string][]string // test → rules
	if l != nil {
		var err error
		if ruleTests, err = testRules(l); err != nil {
			return err
		}
	}
	s.Tests = testStats(sorted, s.Exercises, ruleTests)
	if l == nil {
		return nil
	}
	var err error
	if s.Rules, err = ruleStats(l, sorted, s.Exercises, ruleTests); err != nil {
		return err
	}
	for _, ex := range s.Exercises {
		hints, err := l.Hints(ex.ID)
		if err != nil {
			return fmt.Errorf("class: %w", err)
		}
		if len(hints) > 0 {
			s.Hints[ex.ID] = hints
		}
	}
	for i := range s.Rules {
		s.Rules[i].Hints = hintsNaming(s.Hints[s.Rules[i].Exercise], s.Rules[i].ID)
	}
	return nil
}

// ruleMention finds rule numbers in prose: 10.5.4, not a version like 1.22.0
// inside a longer number.
var ruleMention = regexp.MustCompile(`\d+(?:\.\d+)+`)

// visible shows text from a submission safely wherever it is printed, as
// the grader's own reports do.
func visible(s string) string { return safetext.Line(s) }
