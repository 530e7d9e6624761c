package class

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTableWritesRowsAsTheyComeAndTheRosterLast(t *testing.T) {
	ros, err := ReadRoster(strings.NewReader("submission,email\nalice,a@x\nbob,b@x\n"))
	require.NoError(t, err)
	var b strings.Builder
	tab, err := NewTable(&b, []string{"7.1"}, ros)
	require.NoError(t, err)
	assert.Equal(t, "submission,email,7.1,score,max_score,raw_score,late_penalty,note\n", b.String(), "the header is written at once")
	require.NoError(t, tab.Add(Result{Name: "alice", Report: reportOf("alice", 1, pass71())}))
	assert.Contains(t, b.String(), "alice,a@x,10,10,10,,,\n", "a row is written as soon as it is added")
	require.NoError(t, tab.Add(Result{Name: "=zoe", Err: errors.New("holds no demo.go")}))
	missing, unknown, err := tab.Finish()
	require.NoError(t, err)
	assert.Equal(t, []string{"bob"}, missing, "a student of the roster who handed nothing in")
	assert.Equal(t, []string{"=zoe"}, unknown, "a submission the roster does not list")
	assert.Equal(t, "submission,email,7.1,score,max_score,raw_score,late_penalty,note\n"+
		"alice,a@x,10,10,10,,,\n"+
		"'=zoe,,,,,,,not graded: holds no demo.go\n"+
		"bob,b@x,,,,,,no submission\n", b.String(), "a name a spreadsheet would run is quoted; bob handed nothing in")
}

// A roster's "Zoë" typed composed is the student of a submission named
// from a macOS folder (decomposed): her row, and no "no submission" row.
func TestTableMatchesTheRosterComposedOrNot(t *testing.T) {
	ros, err := ReadRoster(strings.NewReader("submission,email\nZo\u00eb,z@x\n"))
	require.NoError(t, err)
	var b strings.Builder
	tab, err := NewTable(&b, []string{"7.1"}, ros)
	require.NoError(t, err)
	require.NoError(t, tab.Add(Result{Name: "Zoe\u0308", Report: reportOf("Zoe\u0308", 1, pass71())}))
	missing, unknown, err := tab.Finish()
	require.NoError(t, err)
	assert.Empty(t, missing, "she handed in")
	assert.Empty(t, unknown, "the roster lists her")
	assert.Equal(t, "submission,email,7.1,score,max_score,raw_score,late_penalty,note\nZoe\u0308,z@x,10,10,10,,,\n", b.String())
}

func TestRegradeReplacesRowsInPlace(t *testing.T) {
	book, err := ReadGradebook(strings.NewReader(strings.Join(CSVHeader([]string{"7.1"}), ",")+"\n"+
		"alice,10,10,10,,,\nbob,0,0,10,,,\ncarol,,,,,,not graded: holds no demo.go\n"), []string{"7.1"})
	require.NoError(t, err)
	g, err := NewRegrade(book, []string{"7.1"}, nil)
	require.NoError(t, err)
	assert.False(t, g.Failed("alice"), "full marks")
	assert.True(t, g.Failed("bob"))
	assert.True(t, g.Failed("carol"), "not graded counts as failed")
	assert.True(t, g.Failed("dave"), "no row yet: graded")
	require.NoError(t, g.Add(Result{Name: "bob", Report: reportOf("bob", 1, pass71())}))
	var b strings.Builder
	require.NoError(t, g.Book.Write(&b))
	assert.Equal(t, "submission,7.1,score,max_score,raw_score,late_penalty,note\nalice,10,10,10,,,\nbob,10,10,10,,,\ncarol,,,,,,not graded: holds no demo.go\n", b.String())

	ros, err := ReadRoster(strings.NewReader("submission,email\nalice,a@x\n"))
	require.NoError(t, err)
	_, err = NewRegrade(book, []string{"7.1"}, ros)
	assert.ErrorContains(t, err, "the gradebook has 0 roster columns and the roster 1", "a roster the table was not made with is refused")
}
