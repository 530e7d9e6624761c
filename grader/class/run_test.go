package class

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coursekit/course/grader/format"
	"github.com/coursekit/course/grader/late"
	"github.com/coursekit/course/grader/report"
	"github.com/coursekit/course/grader/submission"
)

// fakeGrader grades from a table; a name it does not know cannot be graded.
// Grade blocks while gate is open and unfed, so that a test decides when a
// submission finishes.
type fakeGrader struct {
	reports map[string]*report.Report
	gate    chan struct{}
	mu      sync.Mutex
	started []string
}

func (f *fakeGrader) Grade(ctx context.Context, s *submission.Submission) (*report.Report, error) {
	f.mu.Lock()
	f.started = append(f.started, s.Name)
	f.mu.Unlock()
	if f.gate != nil {
		select {
		case <-f.gate:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if r, ok := f.reports[s.Name]; ok {
		return r, nil
	}
	return nil, errors.New("the fake grader does not know " + s.Name)
}

func subs(names ...string) []*submission.Submission {
	var out []*submission.Submission
	for _, n := range names {
		out = append(out, &submission.Submission{Name: n, Path: "submissions/" + n, Files: map[string][]byte{"session.go": []byte("// " + n)}})
	}
	return out
}

func TestGradeAllGradesEverySubmissionOnce(t *testing.T) {
	g := &fakeGrader{reports: map[string]*report.Report{
		"alice": reportOf("alice", 1, pass71(), pass72()),
		"bob":   reportOf("bob", 1, fail71(report.StatusFail), pass72()),
	}}
	var got []Result
	for r := range GradeAll(context.Background(), g, subs("alice", "bob", "carol"), 2) {
		got = append(got, r)
	}
	Sort(got)
	require.Len(t, got, 3, "GradeAll(3 submissions) must send one result each")
	assert.Equal(t, "alice", got[0].Name)
	assert.NoError(t, got[0].Err)
	assert.Equal(t, "carol", got[2].Name)
	assert.ErrorContains(t, got[2].Err, "does not know carol", "a submission that cannot be graded comes with its error")
	assert.ElementsMatch(t, []string{"alice", "bob", "carol"}, g.started)
}

// TestGradeAllGradesTheSameFilesOnce: two students who hand in the same
// file (and three who hand in the stub) are graded once per file; each
// gets the report under their own name and path.
func TestGradeAllGradesTheSameFilesOnce(t *testing.T) {
	g := &fakeGrader{reports: map[string]*report.Report{}}
	for _, n := range []string{"alice", "bob"} { // whichever is graded first
		g.reports[n] = reportOf(n, 1, pass71(), pass72())
	}
	for _, n := range []string{"dan", "erin", "fay"} {
		g.reports[n] = reportOf(n, 0, fail71(report.StatusFail), pass72())
	}
	for n, r := range g.reports {
		r.Path = "submissions/" + n // as the real grader reports it
	}
	same := func(name, content string) *submission.Submission {
		return &submission.Submission{Name: name, Path: "submissions/" + name, Files: map[string][]byte{"session.go": []byte(content)}}
	}
	class := []*submission.Submission{same("alice", "copied"), same("bob", "copied"), same("dan", "stub"), same("erin", "stub"), same("fay", "stub")}
	var got []Result
	for r := range GradeAll(context.Background(), g, class, 3) {
		got = append(got, r)
	}
	Sort(got)
	require.Len(t, got, 5)
	assert.Len(t, g.started, 2, "GradeAll graded %v: each distinct file once", g.started)
	for _, r := range got {
		require.NoError(t, r.Err, r.Name)
		assert.Equal(t, r.Name, r.Report.Submission, "the report carries its own submission's name")
		assert.Equal(t, "submissions/"+r.Name, r.Report.Path)
	}
	assert.Equal(t, got[0].Report.Score, got[1].Report.Score, "bob's file is alice's: the same verdict")
	assert.Equal(t, got[2].Report.Score, got[4].Report.Score)
}

func TestGradeAllStopsStartingWhenCancelled(t *testing.T) {
	g := &fakeGrader{reports: map[string]*report.Report{"a": reportOf("a", 1, pass71())}, gate: make(chan struct{})}
	ctx, cancel := context.WithCancel(context.Background())
	out := GradeAll(ctx, g, subs("a", "b", "c"), 1)
	g.gate <- struct{}{} // a finishes
	first := <-out
	assert.Equal(t, "a", first.Name)
	cancel()
	for r := range out {
		t.Errorf("GradeAll after cancel sent %s; want nothing more: a result during an interruption describes the interruption", r.Name)
	}
	assert.LessOrEqual(t, len(g.started), 2, "no submission starts once the context is done")
}

func TestSplitRenamesReportsToTheClassName(t *testing.T) {
	results := []Result{
		{Name: "subs/alice.zip", Report: reportOf("alice", 1, pass71())},
		{Name: "bob", Err: errors.New("holds no demo.go\nsecond line")},
	}
	reports, notGraded := Split(results)
	require.Len(t, reports, 1)
	assert.Equal(t, "subs/alice.zip", reports[0].Submission, "two submissions named alice are told apart by path")
	assert.Equal(t, "alice", results[0].Report.Submission, "Split copies: the result's report is unchanged")
	assert.Equal(t, map[string]string{"bob": "holds no demo.go"}, notGraded)
}

func TestWriteJSONReadsBack(t *testing.T) {
	results := []Result{
		{Name: "alice", Path: "submissions/alice.zip", Report: reportOf("alice", 1, pass71(), pass72())},
		{Name: "bob", Path: "submissions/bob", Err: errors.New("holds no demo.go")},
	}
	var b bytes.Buffer
	require.NoError(t, WriteJSON(&b, results))
	reports, notGraded, err := ReadJSON(&b)
	require.NoError(t, err, "ReadJSON(WriteJSON(class)): the class report is made from a saved --json")
	require.Len(t, reports, 1)
	assert.Equal(t, "alice", reports[0].Submission)
	assert.Equal(t, map[string]string{"bob": "holds no demo.go"}, notGraded)
}

func TestWriteTableRowsNotesAndRates(t *testing.T) {
	carol := reportOf("carol", 1, pass71(), pass72())
	policy, err := late.Parse("10%/day")
	require.NoError(t, err)
	due := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	policy.Apply(carol, due, due.Add(26*time.Hour))
	results := []Result{
		{Name: "alice", Report: reportOf("alice", 1, pass71(), pass72())},
		{Name: "bob\x1b[2J", Report: reportOf("bob", 1, fail71(report.StatusFail), pass72())},
		{Name: "carol", Report: carol},
		{Name: "dave", Err: errors.New("holds no demo.go")},
	}
	var b strings.Builder
	require.NoError(t, WriteTable(&b, results, []string{"7.1", "7.2"}, format.Style{}))
	out := b.String()
	assert.Regexp(t, `(?m)^SUBMISSION +7\.1 +7\.2 +SCORE +NOTE$`, out)
	assert.Regexp(t, `(?m)^alice +pass +pass +20/20$`, out)
	assert.NotContains(t, out, "\x1b", "a submission's name reaches the table only escaped")
	assert.Regexp(t, `(?m)^carol +pass +pass +16/20 +late 26h0m0s: -20%$`, out, "a late submission says by how much and what it cost")
	assert.Regexp(t, `(?m)^dave +- +- +- +not graded: holds no demo.go$`, out)
}

func TestElapsedLine(t *testing.T) {
	assert.Equal(t, "graded 1 submission in 2.5s", Elapsed(1, 0, 2500*time.Millisecond))
	assert.Equal(t, "graded 3 submissions in 10.0s, 1 could not be graded", Elapsed(3, 1, 10*time.Second))
}

// TestClassListsNamesAsPeopleReadThem: the table, the summary's students
// and the JUnit suites of a class come in a collation's order, not byte
// order ("Zoë" after "alice", "bob2" before "bob10").
func TestClassListsNamesAsPeopleReadThem(t *testing.T) {
	var results []Result
	var reports []*report.Report
	for _, n := range []string{"Zoë", "bob10", "alice", "Bob", "bob2"} {
		r := reportOf(n, 1, pass71())
		results = append(results, Result{Name: n, Path: r.Path, Report: r})
		reports = append(reports, r)
	}
	results = append(results, Result{Name: "Émile", Err: errors.New("holds no session.go")})
	want := []string{"alice", "Bob", "bob2", "bob10", "Émile", "Zoë"}

	Sort(results)
	var got []string
	for _, r := range results {
		got = append(got, r.Name)
	}
	assert.Equal(t, want, got, "Sort(results)")

	var table bytes.Buffer
	require.NoError(t, WriteTable(&table, results, []string{"7.1"}, format.Style{}))
	var rows []string
	for _, line := range strings.Split(strings.TrimSpace(table.String()), "\n")[1:] {
		rows = append(rows, strings.Fields(line)[0])
	}
	assert.Equal(t, want, rows, "WriteTable's rows in\n%s", table.String())

	s, err := Summarize(reports, map[string]string{"Émile": "holds no session.go"}, nil)
	require.NoError(t, err)
	got = nil
	for _, st := range s.Students {
		got = append(got, st.Name)
	}
	assert.Equal(t, want, got, "Summarize(...).Students")
}
