package class

import (
	"errors"
	"testing"
	"time"

	"github.com/coursekit/course/grader/late"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestApplyLateFailsClosedWithoutATime(t *testing.T) {
	policy, err := late.Parse("10%/day, 0 after 3 days")
	require.NoError(t, err)
	due := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	results := []Result{
		{Name: "alice", Report: reportOf("alice", 1, pass71(), pass72())},
		{Name: "bob", Report: reportOf("bob", 1, pass71(), pass72())},
		{Name: "carol", Err: errors.New("holds no demo.go")},
	}
	ApplyLate(results, &late.Rule{Policy: policy, Due: due, SubmittedAt: func(name string) (time.Time, error) {
		if name == "alice" {
			return due.Add(30 * time.Hour), nil
		}
		return time.Time{}, errors.New("not in the times file")
	}})
	require.NotNil(t, results[0].Report)
	assert.Equal(t, 16.0, results[0].Report.Score, "30 hours late at 10%/day: 2 days, 20% of 20")
	assert.Nil(t, results[1].Report, "without a time the grade could be wrong either way: not graded")
	assert.ErrorContains(t, results[1].Err, "cannot tell when it was handed in")
	assert.EqualError(t, results[2].Err, "holds no demo.go", "a result that was not graded stays as it was")
}
