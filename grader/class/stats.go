package class

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/coursekit/course/grader/lab"
	"github.com/coursekit/course/grader/report"
)

// exerciseStats lists every exercise some report has, in the lab's order
// (without the lab, in the order of their ids, read as numbers).
func exerciseStats(reports []*report.Report, l *lab.Lab) []ExerciseStats {
	byID := map[string]*ExerciseStats{}
	var out []*ExerciseStats
	for _, r := range reports {
		for _, ex := range r.Exercises {
			e, ok := byID[ex.ID]
			if !ok {
				e = &ExerciseStats{ID: ex.ID, Name: ex.Name, Bonus: ex.Bonus, MaxPoints: ex.MaxPoints}
				byID[ex.ID] = e
				out = append(out, e)
			}
			e.Graded++
			e.MeanPoints += ex.Points
			if ex.Passed {
				e.Passed++
			}
		}
	}
	order := func(id string) int { return 0 }
	if l != nil {
		order = func(id string) int {
			return slices.IndexFunc(l.Exercises, func(e lab.Exercise) bool { return e.ID == id })
		}
	}
	slices.SortFunc(out, func(a, b *ExerciseStats) int {
		return cmp.Or(cmp.Compare(order(a.ID), order(b.ID)), compareIDs(a.ID, b.ID))
	})
	res := make([]ExerciseStats, len(out))
	for i, e := range out {
		if l != nil {
			le, _ := l.Exercise(e.ID)
			e.Name, e.Bonus = le.Name, le.Bonus
		}
		e.MeanPoints /= float64(e.Graded)
		res[i] = *e
	}
	return res
}

// compareIDs orders dotted ids by their parts, as numbers where both are:
// 10.2 before 10.10.
func compareIDs(a, b string) int {
	pa, pb := strings.Split(a, "."), strings.Split(b, ".")
	for i := range min(len(pa), len(pb)) {
		na, ea := strconv.Atoi(pa[i])
		nb, eb := strconv.Atoi(pb[i])
		if ea == nil && eb == nil {
			if c := cmp.Compare(na, nb); c != 0 {
				return c
			}
			continue
		}
		if c := strings.Compare(pa[i], pb[i]); c != 0 {
			return c
		}
	}
	return cmp.Compare(len(pa), len(pb))
}

func stats(scores []float64) Stats {
	st := Stats{N: len(scores)}
	if st.N == 0 {
		return st
	}
	sorted := slices.Clone(scores)
	slices.Sort(sorted)
	sum := 0.0
	for _, x := range sorted {
		sum += x
	}
	st.Mean = sum / float64(st.N)
	st.Min, st.Max = sorted[0], sorted[st.N-1]
	if st.N%2 == 1 {
		st.Median = sorted[st.N/2]
	} else {
		st.Median = (sorted[st.N/2-1] + sorted[st.N/2]) / 2
	}
	return st
}

// histogram counts scores in Bins equal bins over 0..max: bin i holds
// the scores from i*max/Bins up to (i+1)*max/Bins, the last one max
// included. Scores are in hundredths, so the edges are exact: with max
// 100, 10 is in the second bin and 9.99 in the first. A score outside
// 0..max counts in the nearest bin; with max 0 every score is in the first.
func histogram(scores []float64, maxScore int) []Bin {
	bins := make([]Bin, Bins)
	for i := range bins {
		bins[i].Lo = float64(maxScore) * float64(i) / Bins
		bins[i].Hi = float64(maxScore) * float64(i+1) / Bins
	}
	for _, x := range scores {
		i := 0
		if maxScore > 0 {
			hundredths := int64(math.Round(x * 100))
			i = int(hundredths * Bins / (int64(maxScore) * 100))
		}
		bins[min(max(i, 0), Bins-1)].Count++
	}
	return bins
}

// testRules maps each test of l to the rules its doc comment names.
func testRules(l *lab.Lab) (map[string][]string, error) {
	tests, err := l.RuleTests()
	if err != nil {
		return nil, fmt.Errorf("class: the tests of lab %s: %w", l.Chapter, err)
	}
	out := map[string][]string{}
	for _, t := range tests {
		if len(t.Rules) > 0 {
			out[t.Test] = slices.Clone(t.Rules)
		}
	}
	return out, nil
}

// failedStatus reports whether a test with status ran and did not pass.
func failedStatus(status string) bool {
	return status != report.StatusPass && status != report.StatusNotRun
}

func testStats(reports []*report.Report, exercises []ExerciseStats, ruleTests map[string][]string) []TestStats {
	byName := map[string]*TestStats{}
	var out []*TestStats
	for _, r := range reports {
		for _, ex := range r.Exercises {
			for _, t := range ex.Tests {
				ts, ok := byName[t.Name]
				if !ok {
					ts = &TestStats{Name: t.Name, Exercise: ex.ID, Hidden: t.Hidden, Rules: ruleTests[t.Name]}
					byName[t.Name] = ts
					out = append(out, ts)
				}
				ts.Total++
				switch {
				case t.Status == report.StatusNotRun:
					ts.NotRun++
				case failedStatus(t.Status):
					ts.Failed++
				}
			}
		}
	}
	exOrder := func(id string) int {
		return slices.IndexFunc(exercises, func(e ExerciseStats) bool { return e.ID == id })
	}
	slices.SortFunc(out, func(a, b *TestStats) int {
		return cmp.Or(
			cmp.Compare(b.Failed, a.Failed),
			compareRates(b.Failed, b.Ran(), a.Failed, a.Ran()),
			cmp.Compare(exOrder(a.Exercise), exOrder(b.Exercise)),
			strings.Compare(a.Name, b.Name))
	})
	res := make([]TestStats, len(out))
	for i, t := range out {
		res[i] = *t
	}
	return res
}

// compareRates compares a/b with c/d exactly (a zero denominator is a rate of 0).
func compareRates(a, b, c, d int) int {
	if b == 0 {
		a, b = 0, 1
	}
	if d == 0 {
		c, d = 0, 1
	}
	return cmp.Compare(a*d, c*b)
}

func ruleStats(l *lab.Lab, reports []*report.Report, exercises []ExerciseStats, ruleTests map[string][]string) ([]RuleStats, error) {
	rules, err := l.Rules()
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("class: %w", err)
	}
	graded := map[string]bool{}
	for _, e := range exercises {
		graded[e.ID] = true
	}
	var out []RuleStats
	index := map[string]int{}
	for _, r := range rules {
		ex := ruleExercise(r.ID, l.Exercises)
		if !graded[ex] {
			continue
		}
		index[r.ID] = len(out)
		out = append(out, RuleStats{ID: r.ID, Text: r.Text, Exercise: ex})
	}
	tests := map[string]map[string]bool{} // rule → tests seen
	for _, r := range reports {
		broken, checked := map[string]bool{}, map[string]bool{}
		for _, ex := range r.Exercises {
			for _, t := range ex.Tests {
				for _, id := range ruleTests[t.Name] {
					if _, ok := index[id]; !ok {
						continue
					}
					if tests[id] == nil {
						tests[id] = map[string]bool{}
					}
					tests[id][t.Name] = true
					if t.Status != report.StatusNotRun {
						checked[id] = true
					}
					if failedStatus(t.Status) {
						broken[id] = true
					}
				}
			}
		}
		for id := range checked {
			out[index[id]].Checked++
		}
		for id := range broken {
			out[index[id]].Broken++
		}
	}
	for id, names := range tests {
		out[index[id]].Tests = slices.Sorted(maps.Keys(names))
	}
	return out, nil
}

// ruleExercise is the exercise a rule id belongs to: the one whose id and
// a dot start it (rule 10.5.4 is exercise 10.5's), the longest such.
func ruleExercise(rule string, exercises []lab.Exercise) string {
	best := ""
	for _, e := range exercises {
		if strings.HasPrefix(rule, e.ID+".") && len(e.ID) > len(best) {
			best = e.ID
		}
	}
	return best
}

// hintsNaming returns the hints that name rule, as "rule 10.5.4" or
// "rules 10.5.7, 10.5.5" do.
func hintsNaming(hints []lab.Hint, rule string) []lab.Hint {
	var out []lab.Hint
	for _, h := range hints {
		if slices.Contains(ruleMention.FindAllString(h.EN, -1), rule) {
			out = append(out, h)
		}
	}
	return out
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// percent is 100*a/b rounded half up, 0 when b is 0.
func percent(a, b int) int {
	if b == 0 {
		return 0
	}
	return (100*a + b/2) / b
}
