package class

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coursekit/course/grader"
)

func TestReadTimes(t *testing.T) {
	times, err := ReadTimes(strings.NewReader("\ufeffSubmission,email,submitted_at\nalice,a@x,2026-12-01T09:30:00Z\nbob,b@x,2026-12-02T10:00:00+08:00\n"))
	require.NoError(t, err)
	assert.Equal(t, time.Date(2026, 12, 1, 9, 30, 0, 0, time.UTC), times["alice"].UTC())
	assert.Equal(t, time.Date(2026, 12, 2, 2, 0, 0, 0, time.UTC), times["bob"].UTC(), "an offset is kept")
}

func TestReadTimesRefusesWhatItCannotRead(t *testing.T) {
	for _, tc := range []struct{ csv, want string }{
		{"", "submission times: no header"},
		{"name,time\n", `submission times, line 1: the header "name,time" needs the columns submission and submitted_at`},
		{"submission,submitted_at\nalice,yesterday\n", `line 2: submitted_at "yesterday" of "alice" is not an RFC 3339 time`},
		{"submission,submitted_at\nalice,2026-12-01T09:30:00Z\nalice,2026-12-01T09:31:00Z\n", `line 3: submission "alice" again (first on line 2)`},
		{"submission,submitted_at\n,2026-12-01T09:30:00Z\n", "line 2: no submission name"},
		{"submission,submitted_at\nalice\n", "line 2: 1 cells"},
	} {
		_, err := ReadTimes(strings.NewReader(tc.csv))
		var te *TimesError
		require.True(t, errors.As(err, &te), "ReadTimes(%q) = %v; want a *TimesError", tc.csv, err)
		assert.Contains(t, err.Error(), tc.want, "ReadTimes(%q)", tc.csv)
	}
}

func TestApplyLateFailsClosedWithoutATime(t *testing.T) {
	policy, err := grader.ParseLatePolicy("10%/day, 0 after 3 days")
	require.NoError(t, err)
	due := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	results := []Result{
		{Name: "alice", Report: reportOf("alice", 1, pass71(), pass72())},
		{Name: "bob", Report: reportOf("bob", 1, pass71(), pass72())},
		{Name: "carol", Err: errors.New("holds no demo.go")},
	}
	ApplyLate(results, policy, due, func(r Result) (time.Time, error) {
		if r.Name == "alice" {
			return due.Add(30 * time.Hour), nil
		}
		return time.Time{}, errors.New("not in the times file")
	})
	require.NotNil(t, results[0].Report)
	assert.Equal(t, 16.0, results[0].Report.Score, "30 hours late at 10%/day: 2 days, 20% of 20")
	assert.Nil(t, results[1].Report, "without a time the grade could be wrong either way: not graded")
	assert.ErrorContains(t, results[1].Err, "cannot tell when it was handed in")
	assert.EqualError(t, results[2].Err, "holds no demo.go", "a result that was not graded stays as it was")
}
