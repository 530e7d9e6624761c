package format

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/coursekit/course/grader/lab"
	"github.com/coursekit/course/grader/report"
)

// Classroom50Schema is the schema sentinel of Classroom 50's result.json.
const Classroom50Schema = "classroom50/result/v1"

// Classroom50Result is Classroom 50's result.json (schema
// "classroom50/result/v1"): what an autograder.py leaves in the student's
// checkout for the runner to publish and collect.
type Classroom50Result struct {
	Schema         string            `json:"schema"`
	Classroom      string            `json:"classroom"`
	Assignment     string            `json:"assignment"`
	AssignmentType string            `json:"assignment_type"`
	Owner          string            `json:"owner"`
	Submission     string            `json:"submission"`
	Commit         string            `json:"commit"`
	Release        string            `json:"release"`
	Review         string            `json:"review"`
	Datetime       string            `json:"datetime"`
	GradedAt       string            `json:"graded_at,omitempty"`
	Score          int               `json:"score"`
	MaxScore       int               `json:"max-score"`
	Tests          []Classroom50Test `json:"tests"`
	SubmittedBy    *Classroom50Actor `json:"submitted_by,omitempty"`
}

// Classroom50Test is one entry of Classroom50Result.Tests. Output is a
// diagnostic field of the course's own, which the runner keeps verbatim.
type Classroom50Test struct {
	Name     string `json:"test-name"`
	Passed   bool   `json:"passed"`
	Score    int    `json:"score"`
	MaxScore int    `json:"max-score"`
	Output   string `json:"output,omitempty"`
}

// Classroom50Actor is who pushed the submission.
type Classroom50Actor struct {
	Username string `json:"username"`
	ID       *int64 `json:"id"`
}

// classroom50Time is the only time format the result's schema admits.
const classroom50Time = "2006-01-02T15:04:05Z"

// Classroom50 turns r into Classroom 50's result.json. The identity fields
// come from the environment the runner gives an autograder.py, read through
// getenv: CLASSROOM, ASSIGNMENT, SUBMISSION_TAG, COMMIT_URL, RELEASE_URL,
// REVIEW_URL (COMMIT_URL when unset), USERNAME (or OWNER), ASSIGNMENT_TYPE
// ("individual" when unset), GITHUB_ACTOR and GITHUB_ACTOR_ID; now stamps
// datetime and graded_at. A missing identity variable is an error: the
// result could not be collected.
//
// Scores are whole points, as the schema requires. An exercise scored all
// or nothing is one entry worth its points. An exercise scored per test is
// one entry per public test and one for its hidden tests together, whose
// worths are the tests' shares rounded to whole points by largest
// remainder (so that they add up to the exercise's points); an entry earns
// its worth when its tests earned theirs. No entry names a hidden test or
// shows its output: the result is published in the student's repository.
func Classroom50(r *report.Report, getenv func(string) string, now time.Time) (Classroom50Result, error) {
	res := Classroom50Result{
		Schema:         Classroom50Schema,
		Classroom:      getenv("CLASSROOM"),
		Assignment:     getenv("ASSIGNMENT"),
		AssignmentType: getenv("ASSIGNMENT_TYPE"),
		Owner:          getenv("USERNAME"),
		Submission:     getenv("SUBMISSION_TAG"),
		Commit:         getenv("COMMIT_URL"),
		Release:        getenv("RELEASE_URL"),
		Review:         getenv("REVIEW_URL"),
		Datetime:       now.UTC().Format(classroom50Time),
		GradedAt:       now.UTC().Format(classroom50Time),
		Tests:          []Classroom50Test{},
	}
	if res.Owner == "" {
		res.Owner = getenv("OWNER")
	}
	if res.Review == "" {
		res.Review = res.Commit
	}
	if res.AssignmentType == "" {
		res.AssignmentType = "individual"
	}
	var missing []string
	for _, f := range []struct{ name, value string }{
		{"CLASSROOM", res.Classroom}, {"ASSIGNMENT", res.Assignment}, {"SUBMISSION_TAG", res.Submission},
		{"COMMIT_URL", res.Commit}, {"RELEASE_URL", res.Release}, {"USERNAME or OWNER", res.Owner},
	} {
		if f.value == "" {
			missing = append(missing, f.name)
		}
	}
	if len(missing) > 0 {
		return res, fmt.Errorf("classroom50: %s not set: Classroom 50's runner sets them for an autograder.py", strings.Join(missing, ", "))
	}
	if !strings.HasPrefix(res.Submission, "submit/") {
		return res, fmt.Errorf("classroom50: SUBMISSION_TAG %q is not a submit/ tag", res.Submission)
	}
	switch res.AssignmentType {
	case "individual", "group", "team":
	default:
		return res, fmt.Errorf("classroom50: ASSIGNMENT_TYPE %q is not individual, group or team", res.AssignmentType)
	}
	if actor := getenv("GITHUB_ACTOR"); actor != "" {
		res.SubmittedBy = &Classroom50Actor{Username: actor}
		if id, err := strconv.ParseInt(getenv("GITHUB_ACTOR_ID"), 10, 64); err == nil {
			res.SubmittedBy.ID = &id
		}
	}

	buildNote := ""
	if !r.Build.OK {
		what := "Your file could not be built"
		if r.Build.Rejected {
			what = "Your file was rejected before building"
		}
		buildNote = what + ":\n" + r.Build.Output + "\n"
	}
	for _, ex := range r.Exercises {
		var entries []Classroom50Test
		if ex.Scoring == lab.ScorePerTest {
			entries = classroom50PerTest(ex)
		} else {
			entries = []Classroom50Test{{
				Name: ex.ID + " " + ex.Name, Passed: ex.Passed, MaxScore: ex.MaxPoints,
				Score: int(math.Round(ex.Points)), Output: classroom50Output(ex),
			}}
		}
		if buildNote != "" {
			entries[0].Output = buildNote + entries[0].Output
			buildNote = ""
		}
		res.Tests = append(res.Tests, entries...)
	}
	for _, t := range res.Tests {
		res.Score += t.Score
		res.MaxScore += t.MaxScore
	}
	if r.Late != nil && r.Late.Late > 0 {
		// The penalty is the grader's; the sum of the entries is the raw score.
		res.Score = min(res.Score, int(math.Floor(r.Score+1e-9)))
	}
	return res, nil
}

// classroom50Output is what a student may see of an exercise: the reason it
// failed, every public test with its status and failure, and only a count
// of the hidden tests.
func classroom50Output(ex report.ExerciseReport) string {
	var b strings.Builder
	if ex.Reason != "" && !ex.OnlyCounts() {
		fmt.Fprintf(&b, "%s\n\n", ex.Reason)
	}
	for _, t := range ex.Tests {
		if !t.Hidden {
			b.WriteString(testLine(t))
		}
	}
	if hidden, hiddenPassed := ex.HiddenCount(); hidden > 0 {
		fmt.Fprintf(&b, "\nhidden tests: %d of %d passed\n", hiddenPassed, hidden)
	}
	return b.String()
}

// testLine is a test's line in a platform's output: its name and status,
// and an excerpt of its output when it did not pass.
func testLine(t report.TestReport) string {
	line := fmt.Sprintf("%s: %s\n", t.Name, t.Status)
	if t.Status != report.StatusPass && t.Output != "" {
		line += indent(FailureExcerpt(t.Output), "    ")
	}
	return line
}

// classroom50PerTest makes the entries of an exercise scored per test.
func classroom50PerTest(ex report.ExerciseReport) []Classroom50Test {
	worths := make([]float64, len(ex.Tests))
	for i, t := range ex.Tests {
		if t.MaxPoints != nil {
			worths[i] = *t.MaxPoints
		}
	}
	whole := apportion(worths, ex.MaxPoints)
	var entries []Classroom50Test
	hidden := Classroom50Test{Name: ex.ID + " " + ex.Name + " (hidden tests)", Passed: true}
	nHidden, nHiddenPassed := 0, 0
	for i, t := range ex.Tests {
		earned := ex.Passed || (t.Points != nil && *t.Points > 0)
		if t.Hidden {
			nHidden++
			hidden.MaxScore += whole[i]
			if earned {
				hidden.Score += whole[i]
				nHiddenPassed++
			} else {
				hidden.Passed = false
			}
			continue
		}
		e := Classroom50Test{Name: ex.ID + " " + t.Name, Passed: t.Status == report.StatusPass, MaxScore: whole[i], Output: testLine(t)}
		if earned {
			e.Score = whole[i]
		}
		entries = append(entries, e)
	}
	if nHidden > 0 {
		hidden.Output = fmt.Sprintf("hidden tests: %d of %d passed\n", nHiddenPassed, nHidden)
		entries = append(entries, hidden)
	}
	if len(entries) == 0 {
		return []Classroom50Test{{Name: ex.ID + " " + ex.Name, Passed: ex.Passed, MaxScore: ex.MaxPoints,
			Score: int(math.Round(ex.Points)), Output: classroom50Output(ex)}}
	}
	if ex.Reason != "" && !ex.OnlyCounts() && !ex.Passed {
		entries[0].Output = ex.Reason + "\n\n" + entries[0].Output
	}
	return entries
}

// apportion rounds worths to whole numbers that add up to total, by
// largest remainder: each gets its whole part, and what is left goes one by
// one to the largest fractional parts (the earlier one first on a tie).
// Worths that do not add up to total are scaled to it first.
func apportion(worths []float64, total int) []int {
	out := make([]int, len(worths))
	sum := 0.0
	for _, w := range worths {
		sum += w
	}
	if len(worths) == 0 || sum <= 0 || total <= 0 {
		return out
	}
	type rem struct {
		i    int
		frac float64
	}
	rems := make([]rem, len(worths))
	given := 0
	for i, w := range worths {
		exact := w * float64(total) / sum
		out[i] = int(math.Floor(exact + 1e-9))
		given += out[i]
		rems[i] = rem{i, exact - float64(out[i])}
	}
	sort.SliceStable(rems, func(a, b int) bool { return rems[a].frac > rems[b].frac })
	for k := 0; given < total; k++ {
		out[rems[k%len(rems)].i]++
		given++
	}
	return out
}
