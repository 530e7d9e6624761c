package report

import (
	"math"
	"strconv"

	"github.com/coursekit/course/grader/lab"
)

// Round2 rounds to hundredths: points are shown, and added up by
// gradebooks, with at most two decimals.
func Round2(x float64) float64 { return math.Round(x*100) / 100 }

// FormatPoints writes points as a person reads them: "15", "7.5", "3.33".
func FormatPoints(x float64) string { return strconv.FormatFloat(Round2(x), 'f', -1, 64) }

// Score sets er's scoring, and for an exercise scored per test each test's
// worth (the exercise's points shared by weight) and what it earned: a
// pass earns its worth, unless the run it came from imitated the test
// runner or left an unreadable report. er.Points is then their sum, in
// hundredths (all of it when the exercise passed).
func Score(ex lab.Exercise, er *ExerciseReport) {
	er.Scoring = lab.ScoreAll
	if !ex.PerTest() {
		return
	}
	er.Scoring = lab.ScorePerTest
	total := 0
	for _, t := range er.Tests {
		total += ex.Weight(t.Name)
	}
	if total == 0 {
		return
	}
	earned := 0.0
	for i := range er.Tests {
		t := &er.Tests[i]
		worth := float64(er.MaxPoints) * float64(ex.Weight(t.Name)) / float64(total)
		got := 0.0
		if t.Status == StatusPass && !t.Void {
			got = worth
		}
		earned += got
		w, g := Round2(worth), Round2(got)
		t.Points, t.MaxPoints = &g, &w
	}
	er.Points = Round2(earned)
	if er.Passed {
		er.Points = float64(er.MaxPoints)
	}
}
