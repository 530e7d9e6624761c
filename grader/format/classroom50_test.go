package format

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coursekit/course/grader/lab"
	"github.com/coursekit/course/grader/report"
)

// runnerEnv is the environment Classroom 50's runner gives an autograder.py.
func runnerEnv(extra map[string]string) func(string) string {
	env := map[string]string{
		"CLASSROOM":       "go-fall",
		"ASSIGNMENT":      "lab10",
		"SUBMISSION_TAG":  "submit/2026-06-01T14-32-05Z-a1b2c3d",
		"COMMIT_URL":      "https://github.com/org/go-fall-lab10-alice/commit/a1b2c3d",
		"RELEASE_URL":     "https://github.com/org/go-fall-lab10-alice/releases/tag/submit%2F2026",
		"USERNAME":        "alice",
		"GITHUB_ACTOR":    "alice",
		"GITHUB_ACTOR_ID": "4242",
	}
	for k, v := range extra {
		env[k] = v
	}
	return func(k string) string { return env[k] }
}

var gradedAt = time.Date(2026, 6, 1, 16, 33, 11, 0, time.FixedZone("CEST", 2*3600))

func classroom50Schema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	sch, err := jsonschema.NewCompiler().Compile(filepath.Join("..", "autograder", "testdata", "classroom50-result.schema.json"))
	require.NoError(t, err)
	return sch
}

// validClassroom50 marshals res and validates it against the schema.
func validClassroom50(t *testing.T, res Classroom50Result) string {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, WriteJSON(&b, res))
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(b.Bytes()))
	require.NoError(t, err)
	require.NoError(t, classroom50Schema(t).Validate(inst), "result.json against the documented contract:\n%s", b.String())
	return b.String()
}

func TestClassroom50OneEntryPerAllOrNothingExercise(t *testing.T) {
	r := &report.Report{Submission: "alice", Build: report.Build{OK: true}, Score: 15, MaxScore: 35, Exercises: []report.ExerciseReport{
		{ID: "10.1", Name: "PathTo", Passed: true, Points: 15, MaxPoints: 15, Scoring: lab.ScoreAll,
			Tests: []report.TestReport{{Name: "TestLab10_1_A", Status: report.StatusPass}}},
		{ID: "10.2", Name: "Store", Points: 0, MaxPoints: 20, Scoring: lab.ScoreAll, Reason: "hidden tests: a test failed",
			HiddenReason: "TestLab10_2_SecretTwin: secretValue",
			Tests: []report.TestReport{
				{Name: "TestLab10_2_Public", Status: report.StatusFail, Output: "=== RUN TestLab10_2_Public\n    want 3, got 4\n--- FAIL"},
				{Name: "TestLab10_2_SecretTwin", Status: report.StatusFail, Hidden: true, Output: "secretValue"},
			}},
	}}
	res, err := Classroom50(r, runnerEnv(nil), gradedAt)
	require.NoError(t, err)
	out := validClassroom50(t, res)

	assert.Equal(t, "classroom50/result/v1", res.Schema)
	assert.Equal(t, "go-fall", res.Classroom)
	assert.Equal(t, "lab10", res.Assignment)
	assert.Equal(t, "alice", res.Owner)
	assert.Equal(t, "individual", res.AssignmentType, "the default when the runner does not say")
	assert.Equal(t, res.Commit, res.Review, "review falls back to the commit, as the runner does")
	assert.Equal(t, "2026-06-01T14:33:11Z", res.Datetime, "UTC, whole seconds, Z")
	require.NotNil(t, res.SubmittedBy)
	assert.Equal(t, "alice", res.SubmittedBy.Username)
	require.NotNil(t, res.SubmittedBy.ID)
	assert.Equal(t, int64(4242), *res.SubmittedBy.ID)

	require.Len(t, res.Tests, 2)
	assert.Equal(t, Classroom50Test{Name: "10.1 PathTo", Passed: true, Score: 15, MaxScore: 15, Output: "TestLab10_1_A: pass\n"}, res.Tests[0])
	assert.Equal(t, "10.2 Store", res.Tests[1].Name)
	assert.False(t, res.Tests[1].Passed)
	assert.Equal(t, 0, res.Tests[1].Score)
	assert.Equal(t, 20, res.Tests[1].MaxScore)
	assert.Contains(t, res.Tests[1].Output, "want 3, got 4")
	assert.Contains(t, res.Tests[1].Output, "hidden tests: 0 of 1 passed")
	assert.Equal(t, 15, res.Score)
	assert.Equal(t, 35, res.MaxScore)
	for _, secret := range []string{"SecretTwin", "secretValue"} {
		assert.NotContains(t, out, secret, "result.json is published in the student's repository")
	}
}

func TestClassroom50PerTestExerciseInWholePoints(t *testing.T) {
	third := 10.0 / 3
	pts := func(x float64) *float64 { x = report.Round2(x); return &x }
	zero := 0.0
	r := &report.Report{Build: report.Build{OK: true}, MaxScore: 10, Exercises: []report.ExerciseReport{
		{ID: "10.3", Name: "Queue", MaxPoints: 10, Points: report.Round2(2 * third), Scoring: lab.ScorePerTest, Reason: "1 of 3 tests failed",
			Tests: []report.TestReport{
				{Name: "TestLab10_3_One", Status: report.StatusPass, Points: pts(third), MaxPoints: pts(third)},
				{Name: "TestLab10_3_Two", Status: report.StatusFail, Points: &zero, MaxPoints: pts(third)},
				{Name: "TestLab10_3_Hidden", Status: report.StatusPass, Hidden: true, Points: pts(third), MaxPoints: pts(third)},
			}},
	}}
	res, err := Classroom50(r, runnerEnv(map[string]string{"ASSIGNMENT_TYPE": "group", "OWNER": "x", "USERNAME": ""}), gradedAt)
	require.NoError(t, err)
	out := validClassroom50(t, res)
	assert.Equal(t, "group", res.AssignmentType)
	assert.Equal(t, "x", res.Owner, "OWNER when USERNAME is unset")

	require.Len(t, res.Tests, 3, "one entry a public test, one for the hidden tests together")
	assert.Equal(t, []string{"10.3 TestLab10_3_One", "10.3 TestLab10_3_Two", "10.3 Queue (hidden tests)"},
		[]string{res.Tests[0].Name, res.Tests[1].Name, res.Tests[2].Name})
	assert.Equal(t, []int{4, 3, 3}, []int{res.Tests[0].MaxScore, res.Tests[1].MaxScore, res.Tests[2].MaxScore},
		"3.33 each, by largest remainder: the first gets the point left over")
	assert.Equal(t, []int{4, 0, 3}, []int{res.Tests[0].Score, res.Tests[1].Score, res.Tests[2].Score})
	assert.True(t, res.Tests[2].Passed)
	assert.Equal(t, 7, res.Score)
	assert.Equal(t, 10, res.MaxScore, "the exercise's points, whole")
	assert.NotContains(t, out, "TestLab10_3_Hidden")
}

func TestClassroom50OfARejectedFileSaysWhy(t *testing.T) {
	r := &report.Report{Build: report.Build{OK: false, Rejected: true, Output: `session.go:5:2: import "os" is not allowed`}, MaxScore: 15,
		Exercises: []report.ExerciseReport{{ID: "10.1", Name: "PathTo", MaxPoints: 15, Scoring: lab.ScoreAll, Reason: "rejected before building",
			Tests: []report.TestReport{{Name: "TestLab10_1_A", Status: report.StatusNotRun}}}}}
	res, err := Classroom50(r, runnerEnv(nil), gradedAt)
	require.NoError(t, err)
	validClassroom50(t, res)
	assert.Contains(t, res.Tests[0].Output, `Your file was rejected before building:`+"\n"+`session.go:5:2: import "os" is not allowed`)
	assert.Zero(t, res.Score)
	assert.Equal(t, 15, res.MaxScore)
}

func TestClassroom50TakesTheLatePenalty(t *testing.T) {
	r := &report.Report{Build: report.Build{OK: true}, Score: 12.5, MaxScore: 15, Late: &report.Late{Late: 3600, Penalty: 1.0 / 6, RawScore: 15},
		Exercises: []report.ExerciseReport{{ID: "10.1", Name: "PathTo", Passed: true, Points: 15, MaxPoints: 15, Scoring: lab.ScoreAll}}}
	res, err := Classroom50(r, runnerEnv(nil), gradedAt)
	require.NoError(t, err)
	validClassroom50(t, res)
	assert.Equal(t, 15, res.Tests[0].Score, "the exercise keeps its points")
	assert.Equal(t, 12, res.Score, "the score after the penalty, rounded down to whole points")
}

func TestClassroom50NeedsTheRunnersEnvironment(t *testing.T) {
	r := &report.Report{Build: report.Build{OK: true}}
	_, err := Classroom50(r, func(string) string { return "" }, gradedAt)
	assert.EqualError(t, err, "classroom50: CLASSROOM, ASSIGNMENT, SUBMISSION_TAG, COMMIT_URL, RELEASE_URL, USERNAME or OWNER not set: Classroom 50's runner sets them for an autograder.py")
	_, err = Classroom50(r, runnerEnv(map[string]string{"SUBMISSION_TAG": "main"}), gradedAt)
	assert.ErrorContains(t, err, `SUBMISSION_TAG "main" is not a submit/ tag`)
	_, err = Classroom50(r, runnerEnv(map[string]string{"ASSIGNMENT_TYPE": "solo"}), gradedAt)
	assert.ErrorContains(t, err, `ASSIGNMENT_TYPE "solo"`)

	res, err := Classroom50(r, runnerEnv(map[string]string{"GITHUB_ACTOR_ID": "", "REVIEW_URL": "https://x/compare/a...b"}), gradedAt)
	require.NoError(t, err)
	b, err := json.Marshal(res.SubmittedBy)
	require.NoError(t, err)
	assert.JSONEq(t, `{"username": "alice", "id": null}`, string(b), "an unknown actor id is null, as the contract allows")
	assert.Equal(t, "https://x/compare/a...b", res.Review)
	assert.Equal(t, []Classroom50Test{}, res.Tests, "[] for a report without exercises, never null")
}

func TestApportionAddsUpToTheTotal(t *testing.T) {
	for _, c := range []struct {
		worths []float64
		total  int
		want   []int
	}{
		{[]float64{5, 5, 5}, 15, []int{5, 5, 5}},
		{[]float64{3.33, 3.33, 3.33}, 10, []int{4, 3, 3}},
		{[]float64{1, 2, 3.5}, 13, []int{2, 4, 7}},
		{[]float64{2.5, 2.5}, 5, []int{3, 2}},
		{[]float64{0, 0}, 5, []int{0, 0}},
		{nil, 5, []int{}},
	} {
		got := apportion(c.worths, c.total)
		assert.Equal(t, c.want, got, "%v of %d", c.worths, c.total)
	}
}

func TestClassroom50SchemaRejectsWhatTheContractDoesNot(t *testing.T) {
	sch := classroom50Schema(t)
	base := map[string]any{
		"schema": "classroom50/result/v1", "classroom": "c", "assignment": "a", "assignment_type": "individual", "owner": "o",
		"submission": "submit/x", "commit": "u", "release": "u", "review": "u", "datetime": "2026-06-01T14:33:11Z",
		"score": 1, "max-score": 2, "tests": []any{map[string]any{"test-name": "t", "passed": true, "score": 1, "max-score": 2, "output": "kept"}},
	}
	check := func(mut func(m map[string]any)) error {
		m := map[string]any{}
		for k, v := range base {
			m[k] = v
		}
		mut(m)
		data, err := json.Marshal(m)
		require.NoError(t, err)
		inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
		require.NoError(t, err)
		return sch.Validate(inst)
	}
	assert.NoError(t, check(func(map[string]any) {}))
	for name, mut := range map[string]func(m map[string]any){
		"a fractional score":    func(m map[string]any) { m["score"] = 1.5 },
		"another schema":        func(m map[string]any) { m["schema"] = "classroom50/result/v2" },
		"an unknown field":      func(m map[string]any) { m["output"] = "x" },
		"no owner":              func(m map[string]any) { delete(m, "owner") },
		"a branch, not a tag":   func(m map[string]any) { m["submission"] = "main" },
		"a local time":          func(m map[string]any) { m["datetime"] = "2026-06-01T14:33:11+02:00" },
		"a test without points": func(m map[string]any) { m["tests"] = []any{map[string]any{"test-name": "t", "passed": true}} },
	} {
		assert.Error(t, check(mut), name)
	}
}
