package late

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/coursekit/course/grader/format"
	"github.com/coursekit/course/grader/report"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseReadsEveryClause(t *testing.T) {
	p, err := Parse("10%/day, 0 after 3 days")
	require.NoError(t, err)
	assert.Equal(t, 0.1, p.Per)
	assert.Equal(t, 24*time.Hour, p.Unit)
	assert.Equal(t, 72*time.Hour, p.Cutoff)
	assert.Equal(t, "10%/day, 0 after 3 days", p.String())

	p, err = Parse("2.5%/hour, grace 15m")
	require.NoError(t, err)
	assert.Equal(t, 0.025, p.Per)
	assert.Equal(t, time.Hour, p.Unit)
	assert.Equal(t, 15*time.Minute, p.Grace)
	assert.Zero(t, p.Cutoff)

	for _, bad := range []string{"", "10%", "10%/week", "0%/day", "150%/day", "0 after three days",
		"0 after 3 weeks", "grace soon", "10%/day, 5%/day", "half off", "grace 1h", "10%/day,"} {
		_, err := Parse(bad)
		assert.ErrorIs(t, err, ErrPolicy, "Parse(%q) error = %v, want one wrapping ErrPolicy", bad, err)
	}
}

func TestPolicyApply(t *testing.T) {
	due := time.Date(2026, 11, 30, 23, 59, 0, 0, time.UTC)
	p, err := Parse("10%/day, 0 after 3 days, grace 10m")
	require.NoError(t, err)
	cases := []struct {
		late    time.Duration
		penalty float64
		score   float64
	}{
		{-time.Hour, 0, 90},
		{5 * time.Minute, 0, 90},              // within the grace
		{11 * time.Minute, 0.1, 81},           // a started day
		{24 * time.Hour, 0.1, 81},             // exactly one day
		{24*time.Hour + time.Second, 0.2, 72}, // into the second
		{72 * time.Hour, 0.3, 63},             // the last minute before the cutoff
		{72*time.Hour + time.Second, 1, 0},    // past it
	}
	for _, c := range cases {
		r := &report.Report{Score: 90, MaxScore: 100}
		p.Apply(r, due, due.Add(c.late))
		require.NotNil(t, r.Late)
		assert.Equal(t, c.penalty, r.Late.Penalty, "Apply(90 points, %s late) penalty", c.late)
		assert.Equal(t, c.score, r.Score, "Apply(90 points, %s late) score", c.late)
		assert.Equal(t, 90.0, r.Late.RawScore)
	}
	r := &report.Report{Score: 90, MaxScore: 100}
	p.Apply(r, due, due.Add(25*time.Hour))
	assert.Contains(t, r.Late.Describe(), "late by 25h0m0s: 20% taken (10%/day, 0 after 3 days, grace 10m")
	assert.Contains(t, r.Late.Describe(), "raw score 90")
	assert.Contains(t, format.Gradescope(r).Output, "Your submission was late by 25h0m0s")
}

// TestPolicyApplySaysLateWithinGrace: a submission after the due date but
// within the grace period loses nothing, and every report says it was
// late and forgiven, never "on time".
func TestPolicyApplySaysLateWithinGrace(t *testing.T) {
	due := time.Date(2026, 11, 30, 23, 59, 0, 0, time.UTC)
	p, err := Parse("10%/day, grace 10m")
	require.NoError(t, err)
	for _, c := range []struct {
		late        time.Duration
		describe    string
		note        string
		graceReport bool
	}{
		{-time.Hour, "", "", false},
		{0, "", "", false},
		{4 * time.Minute, "late by 4m0s, within the grace period: nothing taken (10%/day, grace 10m, due 2026-11-30T23:59:00Z)", "late 4m0s: in grace, nothing taken", true},
		{11 * time.Minute, "late by 11m0s: 10% taken (10%/day, grace 10m, due 2026-11-30T23:59:00Z), raw score 90", "late 11m0s: -10%", false},
	} {
		r := &report.Report{Score: 90, MaxScore: 100}
		p.Apply(r, due, due.Add(c.late))
		_, inGrace := r.Late.InGrace()
		assert.Equal(t, c.graceReport, inGrace, "Apply(%s late).InGrace()", c.late)
		assert.Equal(t, c.describe, r.Late.Describe(), "Apply(%s late).Describe()", c.late)
		assert.Equal(t, c.note, r.Late.Note(), "Apply(%s late).Note()", c.late)
	}
	cutoff, err := Parse("0 after 3 days")
	require.NoError(t, err)
	r := &report.Report{Score: 90, MaxScore: 100}
	cutoff.Apply(r, due, due.Add(time.Hour))
	assert.Equal(t, "late 1h0m0s: nothing taken", r.Late.Note(), "late before a cutoff, with no rate")
	var none *report.Late
	assert.Empty(t, none.Note()+none.Describe(), "no late policy: nothing to say")
}

func TestGradescopeTimes(t *testing.T) {
	write := func(json string) string {
		p := filepath.Join(t.TempDir(), "submission_metadata.json")
		require.NoError(t, os.WriteFile(p, []byte(json), 0o644))
		return p
	}
	due, sub, err := GradescopeTimes(write(`{"id": 1, "created_at": "2026-12-01T10:00:00.123456-08:00",
		"assignment": {"due_date": "2026-11-30T23:59:00.000000-08:00", "late_due_date": null},
		"users": [{"email": "a@example.edu", "id": 7, "name": "A"}]}`))
	require.NoError(t, err)
	assert.True(t, due.Equal(time.Date(2026, 12, 1, 7, 59, 0, 0, time.UTC)), "due %s", due)
	assert.True(t, sub.Equal(time.Date(2026, 12, 1, 18, 0, 0, 123456000, time.UTC)), "submitted %s", sub)

	// A user's own due date (an extension) wins when it is later.
	due, _, err = GradescopeTimes(write(`{"created_at": "2026-12-01T10:00:00Z",
		"assignment": {"due_date": "2026-11-30T23:59:00Z"},
		"users": [{"id": 7}, {"id": 8, "assignment": {"due_date": "2026-12-03T23:59:00Z"}}]}`))
	require.NoError(t, err)
	assert.Equal(t, 3, due.Day())

	for name, json := range map[string]string{
		"no created_at":   `{"assignment": {"due_date": "2026-11-30T23:59:00Z"}}`,
		"no due date":     `{"created_at": "2026-12-01T10:00:00Z", "assignment": {"due_date": null}}`,
		"a bad time":      `{"created_at": "yesterday", "assignment": {"due_date": "2026-11-30T23:59:00Z"}}`,
		"a bad extension": `{"created_at": "2026-12-01T10:00:00Z", "assignment": {"due_date": "2026-11-30T23:59:00Z"}, "users": [{"assignment": {"due_date": "soon"}}]}`,
		"not json":        `{`,
	} {
		_, _, err := GradescopeTimes(write(json))
		assert.Error(t, err, "GradescopeTimes(%s) = nil error: a file that cannot say when must not grade as on time", name)
	}
	_, _, err = GradescopeTimes(filepath.Join(t.TempDir(), "none.json"))
	assert.True(t, errors.Is(err, os.ErrNotExist), "a missing file: %v", err)
}
