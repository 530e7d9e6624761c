package class

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestGradebookWhole_SumsUpEveryScoredRow(t *testing.T) {
	g, err := ReadGradebook(strings.NewReader(gradedCSV(t)), ids7)
	require.NoError(t, err)
	// carol 0, alice 20, bob 10, erin 18 (late), dave not graded.
	w := g.Whole("grades.csv", 1)
	assert.Equal(t, Whole{File: "grades.csv", Rows: 5, Scored: 4, FullMarks: 1, Regraded: 1, MaxScore: 20,
		Score: Stats{N: 4, Mean: 12, Median: 14, Min: 0, Max: 20}}, w, "Gradebook.Whole of the fixture class")

	ros := readRoster(t)
	header, rows, _ := JoinRoster(g.Header, g.Rows, ros)
	joined := &Gradebook{Header: header, Rows: rows, Roster: len(ros.Columns())}
	w = joined.Whole("grades.csv", 1)
	assert.Greater(t, w.Rows, 5, "a roster adds a row per student who handed nothing in")
	assert.Equal(t, 4, w.Scored, "a row without a score (no submission, not graded) has none to sum")
}

func TestWriteSummaryText_AfterARegradeDescribesTheWholeTable(t *testing.T) {
	reports, _ := class()
	s, err := Summarize(reports[:1], nil, fixtureLab(t)) // carol, regraded: 0 of 20
	require.NoError(t, err)
	s.Whole = &Whole{File: "grades.csv", Rows: 41, Scored: 40, FullMarks: 12, Regraded: 1, MaxScore: 20,
		Score: Stats{N: 40, Mean: 14.5, Median: 16, Min: 0, Max: 20}}
	var b strings.Builder
	require.NoError(t, WriteSummaryText(&b, s))
	assert.True(t, strings.HasPrefix(b.String(), `whole table grades.csv: 41 rows, 40 with a score: mean 14.5, median 16 of 20 (lowest 0, highest 20), 12 full marks
this run regraded 1 of them; the lines below are about the 1 submission regraded only
1 graded: mean 0, median 0 of 20 (lowest 0, highest 0)
`), "WriteSummaryText after a regrade: the whole table first, then what the rest covers; got:\n%s", b.String())
}
