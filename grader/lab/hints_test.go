package lab_test

import (
	"fmt"
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

// ladderJSON is the ladder of one exercise with texts named after id; rungs
// replace or (with a "" value) drop rungs by key.
func ladderJSON(id string, rungs map[string]string) string {
	var parts []string
	for _, r := range lab.Rungs {
		v, ok := rungs[r.Key]
		if !ok {
			v = fmt.Sprintf(`{"en": "%s %s", "zh": "%s %s"}`, id, r.EN, id, r.ZH)
		}
		if v != "" {
			parts = append(parts, fmt.Sprintf("%q: %s", r.Key, v))
		}
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// fullHints is a hints file with a whole ladder for every exercise of lab 7.
func fullHints() string {
	return `{"7.1": ` + ladderJSON("7.1", nil) + `, "7.2": ` + ladderJSON("7.2", nil) + `}`
}

func TestHintsAreTheFourRungsInOrder(t *testing.T) {
	l := hintsLab(t, fullHints())
	hints, err := l.Hints("7.1")
	require.NoError(t, err)
	require.Len(t, hints, 4)
	for i, want := range []lab.Rung{
		{Key: "locate", EN: "locate", ZH: "定位"},
		{Key: "signature", EN: "signature", ZH: "签名"},
		{Key: "pseudocode", EN: "pseudocode", ZH: "伪代码"},
		{Key: "local", EN: "local code", ZH: "局部"},
	} {
		assert.Equal(t, want, hints[i].Rung, "rung %d", i+1)
		assert.Equal(t, "7.1 "+want.EN, hints[i].EN)
		assert.Equal(t, "7.1 "+want.ZH, hints[i].ZH)
	}
	require.NoError(t, l.CheckHints())
}

func TestHintsOfALabWithoutAny(t *testing.T) {
	l := hintsLab(t, "")
	hints, err := l.Hints("7.1")
	require.NoError(t, err, "a lab without hints.json has no hints")
	assert.Nil(t, hints)
	var me *lab.ManifestError
	require.ErrorAs(t, l.CheckHints(), &me, "but it is not complete")
}

func TestHintsOfAnUnknownExercise(t *testing.T) {
	_, err := hintsLab(t, fullHints()).Hints("7.9")
	var ue *lab.UnknownExerciseError
	require.ErrorAs(t, err, &ue)
	assert.Equal(t, "7.9", ue.ID)
}

func TestHintsFileErrors(t *testing.T) {
	other := `, "7.2": ` + ladderJSON("7.2", nil) + `}`
	for name, tc := range map[string]struct{ data, want string }{
		"not json":         {`{"7.1": `, "unexpected EOF"},
		"misspelt key":     {`{"7.1": ` + ladderJSON("7.1", map[string]string{"locate": `{"eng": "x", "zh": "y"}`}) + other, `"eng"`},
		"no English":       {`{"7.1": ` + ladderJSON("7.1", map[string]string{"signature": `{"en": " ", "zh": "只有中文"}`}) + other, "the signature rung of 7.1 has no English text"},
		"no Chinese":       {`{"7.1": ` + ladderJSON("7.1", map[string]string{"pseudocode": `{"en": "steps"}`}) + other, "the pseudocode rung of 7.1 has no Chinese text"},
		"a rung missing":   {`{"7.1": ` + ladderJSON("7.1", map[string]string{"local": ""}) + other, "7.1 has no local rung (局部)"},
		"an unknown rung":  {`{"7.1": ` + strings.Replace(ladderJSON("7.1", nil), `"locate"`, `"nudge"`, 1) + other, `7.1 has a rung "nudge"`},
		"a whole function": {`{"7.1": ` + ladderJSON("7.1", map[string]string{"local": `{"en": "func PathTo(es []Entry) {\n}", "zh": "x"}`}) + other, "the local rung of 7.1 declares a function"},
		"a method":         {`{"7.1": ` + ladderJSON("7.1", map[string]string{"local": `{"en": "x", "zh": "func (s *Store) Leaf() string {"}`}) + other, "the local rung of 7.1 declares a function"},
		"unknown exercise": {`{"7.9": ` + ladderJSON("7.9", nil) + other, `hints for "7.9", which is not an exercise of chapter 7`},
		"trailing data":    {fullHints() + ` {}`, "data after the top-level object"},
		"a list":           {`[{"en": "x"}]`, "cannot unmarshal array"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := hintsLab(t, tc.data).Hints("7.2")
			var me *lab.ManifestError
			require.ErrorAs(t, err, &me)
			assert.True(t, strings.HasPrefix(err.Error(), "labs/07-demo/.meta/hints.json: "), err.Error())
			assert.Contains(t, err.Error(), tc.want) // encoding/json's own words may vary by release
		})
	}
}

// TestHintsOfAnExerciseWithoutALadder: a hints file may leave an exercise
// out (Hints gives none), but then the lab's hints are not complete.
func TestHintsOfAnExerciseWithoutALadder(t *testing.T) {
	l := hintsLab(t, `{"7.1": `+ladderJSON("7.1", nil)+`}`)
	hints, err := l.Hints("7.2")
	require.NoError(t, err)
	assert.Empty(t, hints)
	err = l.CheckHints()
	var me *lab.ManifestError
	require.ErrorAs(t, err, &me)
	assert.Contains(t, err.Error(), "exercise 7.2 has no ladder")
}

// TestHintsInTheOlderList: the unnamed list that came before the ladder is
// still read, its hints without a rung, but it does not make a lab's hints
// complete.
func TestHintsInTheOlderList(t *testing.T) {
	l := hintsLab(t, `{"7.1": [{"en": "Start at the leaf.", "zh": "从叶子开始。"}, {"en": "Walk the parents."}]}`)
	hints, err := l.Hints("7.1")
	require.NoError(t, err)
	assert.Equal(t, []lab.Hint{{EN: "Start at the leaf.", ZH: "从叶子开始。"}, {EN: "Walk the parents."}}, hints)
	_, err = hintsLab(t, `{"7.1": [{"en": "x"}, {"en": " ", "zh": "只有中文"}]}`).Hints("7.1")
	assert.ErrorContains(t, err, "hint 2 of 7.1 has no English text")
	assert.Error(t, l.CheckHints())
}

// TestHintsOfTheEmbeddedLabsAreLadders: every exercise of every lab of the
// course has the tutor's four rungs, in English and Chinese.
func TestHintsOfTheEmbeddedLabsAreLadders(t *testing.T) {
	c, err := lab.Load()
	require.NoError(t, err)
	for _, l := range c.Labs() {
		assert.NoError(t, l.CheckHints(), "lab %s", l.Chapter)
	}
}
