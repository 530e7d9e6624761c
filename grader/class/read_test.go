package class

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coursekit/course/grader/format"
	"github.com/coursekit/course/grader/late"
)

// TestReadJSON_ReadsWhatCourseGradeWrote reads testdata/class.json, the
// output of a real `course grade --chapter 10 --json` of the reference
// solution (alice), the stub (bob) and a folder without session.go (dave),
// its tests' output trimmed and its hidden tests left out (the student
// release keeps grader/, and must name no hidden test).
func TestReadJSON_ReadsWhatCourseGradeWrote(t *testing.T) {
	f, err := os.Open("testdata/class.json")
	require.NoError(t, err)
	defer f.Close()
	reports, notGraded, err := ReadJSON(f)
	require.NoError(t, err, "ReadJSON(testdata/class.json)")
	require.Len(t, reports, 2, "ReadJSON(testdata/class.json): two graded submissions")
	assert.Equal(t, "alice", reports[0].Submission)
	assert.Equal(t, 100.0, reports[0].Score)
	assert.Equal(t, "bob", reports[1].Submission)
	assert.Equal(t, 0.0, reports[1].Score)
	assert.Equal(t, 100, reports[1].MaxScore)
	assert.Len(t, reports[1].Exercises, 6)
	assert.Equal(t, map[string]string{"dave": "submissions/dave: holds no session.go"}, notGraded,
		"ReadJSON(testdata/class.json): the entry with an error")
}

func TestReadJSON_RoundTripsTheClassArray(t *testing.T) {
	reports, notGraded := class()
	erin := reportOf("erin", 1.5, pass71(), pass72())
	policy, err := late.Parse("10%/day, 0 after 3 days")
	require.NoError(t, err)
	due := time.Date(2026, 3, 1, 23, 59, 0, 0, time.UTC)
	policy.Apply(erin, due, due.Add(2*time.Hour))
	reports = append(reports, erin)

	// As `course grade --json` writes a class: one array, the reports and
	// the submissions that could not be graded, by name.
	var entries []any
	for _, r := range reports {
		entries = append(entries, r)
	}
	entries = append(entries, map[string]string{"submission": "dave", "path": "submissions/dave", "error": notGraded["dave"]})
	var b bytes.Buffer
	require.NoError(t, format.WriteJSON(&b, entries))

	gotReports, gotNotGraded, err := ReadJSON(&b)
	require.NoError(t, err, "ReadJSON(what grader.WriteJSON wrote of a class)")
	assert.Equal(t, notGraded, gotNotGraded)
	require.Len(t, gotReports, len(reports))
	for i := range reports {
		want := *reports[i]
		got := *gotReports[i]
		if want.Late != nil {
			require.NotNil(t, got.Late, "ReadJSON lost %s's late record", want.Submission)
			assert.True(t, want.Late.Due.Equal(got.Late.Due) && want.Late.Submitted.Equal(got.Late.Submitted), "the late record's times")
			wl, gl := *want.Late, *got.Late
			wl.Due, wl.Submitted, gl.Due, gl.Submitted = time.Time{}, time.Time{}, time.Time{}, time.Time{}
			assert.Equal(t, wl, gl, "%s's late record after a round trip", want.Submission)
			want.Late, got.Late = nil, nil
		}
		assert.Equal(t, want, got, "report %d (%s) after a round trip through JSON", i, want.Submission)
	}
}

func TestReadJSON_OneReport(t *testing.T) {
	var b bytes.Buffer
	require.NoError(t, format.WriteJSON(&b, reportOf("alice", 2, pass71())))
	reports, notGraded, err := ReadJSON(&b)
	require.NoError(t, err, "ReadJSON(one report, as `course grade --json sub` prints it)")
	require.Len(t, reports, 1)
	assert.Equal(t, "alice", reports[0].Submission)
	assert.Empty(t, notGraded)
}

func TestReadJSON_RefusesWhatIsNotAClass(t *testing.T) {
	const good = `{"submission": "a", "path": "a.go", "lab": "7", "build": {"ok": true, "output": ""}, "exercises": [], "score": 0, "max_score": 0, "isolation": {"level": "full", "name": "", "mechanisms": null, "memory_limit": 0, "process_limit": 0}, "race": false, "seconds": 1}`
	other := strings.Replace(good, `"submission": "a"`, `"submission": "b"`, 1)
	for _, c := range []struct {
		name, input string
		entry       int // -1: the whole input
		want        string
	}{
		{"nothing", "  \n", -1, "the input is empty"},
		{"null", "null", -1, "neither an array of reports nor a report"},
		{"a number", "42", -1, "neither an array of reports nor a report"},
		{"an empty array", "[]", -1, "holds no submission"},
		{"not JSON", "[{]", -1, "not valid JSON"},
		{"cut short", `[` + good, -1, "cut short"},
		{"two values", good + "\n" + good, -1, "more JSON follows"},
		{"an array and more", `[` + good + `] []`, -1, "more JSON follows"},
		{"an entry that is not an object", `[` + good + `, 3]`, 1, "not an object"},
		{"a null entry", `[null]`, 0, "not an object"},
		{"no submission", `[{"lab": "7"}]`, 0, `no "submission" name`},
		{"a submission that is not a string", `[{"submission": 7}]`, 0, `"submission" is not a string`},
		{"a name twice", `[` + good + `, ` + good + `]`, 1, "also entry 0's"},
		{"an unknown field", `[` + strings.Replace(good, `"race"`, `"colour": 1, "race"`, 1) + `]`, 0, `unknown field "colour"`},
		{"a Gradescope results.json", `{"score": 85, "execution_time": 3, "tests": [], "submission": "x"}`, 0, `no "lab"`},
		{"a wrong type", `[` + strings.Replace(good, `"score": 0`, `"score": "85"`, 1) + `]`, 0, "cannot unmarshal string"},
		{"a negative score", `[` + strings.Replace(good, `"score": 0`, `"score": -1`, 1) + `]`, 0, "score -1 is negative"},
		{"an empty lab", `[` + strings.Replace(good, `"lab": "7"`, `"lab": ""`, 1) + `]`, 0, `"lab" is empty`},
		{"an exercise twice", `[` + strings.Replace(good, `"exercises": []`, `"exercises": [{"id": "7.1", "tests": []}, {"id": "7.1", "tests": []}]`, 1) + `]`, 0, `exercise "7.1" comes twice`},
		{"a test without a status", `[` + strings.Replace(good, `"exercises": []`, `"exercises": [{"id": "7.1", "tests": [{"name": "TestX"}]}]`, 1) + `]`, 0, "no name or no status"},
		{"two labs", `[` + good + `, ` + strings.Replace(other, `"lab": "7"`, `"lab": "8"`, 1) + `]`, 1, "one class is one lab"},
		{"an error entry with an empty reason", `[{"submission": "d", "path": "d", "error": " "}]`, 0, `"error" is empty`},
		{"an error entry with a report's field", `[{"submission": "d", "path": "d", "error": "x", "score": 3}]`, 0, `unknown field "score"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			reports, notGraded, err := ReadJSON(strings.NewReader(c.input))
			require.Error(t, err, "ReadJSON(%s) returned %d reports and %d not graded, want an error", c.name, len(reports), len(notGraded))
			assert.Nil(t, reports)
			assert.Nil(t, notGraded)
			var je *JSONError
			require.True(t, errors.As(err, &je), "ReadJSON(%s) error %T %q, want a *JSONError", c.name, err, err)
			assert.Equal(t, c.entry, je.Entry, "ReadJSON(%s): the entry at fault, in %q", c.name, err)
			assert.Contains(t, err.Error(), c.want, "ReadJSON(%s): the error should say what is wrong", c.name)
			assert.True(t, strings.HasPrefix(err.Error(), "class JSON"), "ReadJSON(%s) error %q should say it is about the class JSON", c.name, err)
		})
	}
}

type failingReader struct{}

func (failingReader) Read([]byte) (int, error) { return 0, errors.New("disk on fire") }

func TestReadJSON_ReturnsReadErrors(t *testing.T) {
	_, _, err := ReadJSON(failingReader{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "disk on fire", "ReadJSON(a reader that fails) should pass the read error on")
}
