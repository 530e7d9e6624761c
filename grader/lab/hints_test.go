package lab_test

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coursekit/course/grader/lab"
)

// hintsLab returns the fixture lab 7 with hints.json holding data, or
// without the file when data is "".
func hintsLab(t *testing.T, data string) *lab.Lab {
	t.Helper()
	labsFS, solFS := fixtureFS()
	if data != "" {
		labsFS["07-demo/"+lab.HintsPath] = &fstest.MapFile{Data: []byte(data)}
	}
	c, err := lab.LoadFS(labsFS, solFS)
	require.NoError(t, err)
	l, err := c.Lookup("7")
	require.NoError(t, err)
	return l
}

func TestHintsInOrder(t *testing.T) {
	l := hintsLab(t, `{
  "7.1": [{"en": "Start at the leaf.", "zh": "从叶子开始。"}, {"en": "Walk the parents.", "zh": ""}],
  "7.2": []
}`)
	hints, err := l.Hints("7.1")
	require.NoError(t, err)
	assert.Equal(t, []lab.Hint{{EN: "Start at the leaf.", ZH: "从叶子开始。"}, {EN: "Walk the parents."}}, hints)

	hints, err = l.Hints("7.2")
	require.NoError(t, err)
	assert.Empty(t, hints)
}

func TestHintsOfAnExerciseWithoutAny(t *testing.T) {
	hints, err := hintsLab(t, `{"7.1": [{"en": "x"}]}`).Hints("7.2")
	require.NoError(t, err)
	assert.Nil(t, hints)

	hints, err = hintsLab(t, "").Hints("7.1")
	require.NoError(t, err, "a lab without hints.json has no hints")
	assert.Nil(t, hints)
}

func TestHintsOfAnUnknownExercise(t *testing.T) {
	_, err := hintsLab(t, `{"7.1": [{"en": "x"}]}`).Hints("7.9")
	var ue *lab.UnknownExerciseError
	require.ErrorAs(t, err, &ue)
	assert.Equal(t, "7.9", ue.ID)
}

func TestHintsFileErrors(t *testing.T) {
	for name, tc := range map[string]struct{ data, want string }{
		"not json":          {`{"7.1": [`, "unexpected EOF"},
		"misspelt key":      {`{"7.1": [{"eng": "x"}]}`, `"eng"`},
		"no English":        {`{"7.1": [{"en": "x"}, {"en": " ", "zh": "只有中文"}]}`, "hint 2 of 7.1 has no English text"},
		"unknown exercise":  {`{"7.1": [{"en": "x"}], "7.3": [{"en": "y"}]}`, `hints for "7.3", which is not an exercise of chapter 7`},
		"trailing data":     {`{"7.1": [{"en": "x"}]} {}`, "data after the top-level object"},
		"a list, not a map": {`[{"en": "x"}]`, "cannot unmarshal array"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := hintsLab(t, tc.data).Hints("7.1")
			var me *lab.ManifestError
			require.ErrorAs(t, err, &me)
			assert.True(t, strings.HasPrefix(err.Error(), "labs/07-demo/.meta/hints.json: "), err.Error())
			assert.Contains(t, err.Error(), tc.want) // encoding/json's own words may vary by release
		})
	}
}

func TestHintsOfTheEmbeddedLabAreWellFormed(t *testing.T) {
	c, err := lab.Load()
	require.NoError(t, err)
	for _, l := range c.Labs() {
		for _, e := range l.Exercises {
			_, err := l.Hints(e.ID)
			assert.NoError(t, err, "lab %s exercise %s", l.Chapter, e.ID)
		}
	}
}
