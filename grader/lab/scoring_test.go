package lab_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coursekit/course/grader/lab"
)

// A manifest chooses each exercise's scoring; whatever it cannot mean is
// refused at load, naming the exercise.
func TestManifestScoring(t *testing.T) {
	load := func(old, new string) (*lab.Lab, error) {
		labsFS, solFS := fixtureFS()
		labsFS["07-demo/.meta/lab.json"].Data = []byte(strings.Replace(fixtureManifest, old, new, 1))
		c, err := lab.LoadFS(labsFS, solFS)
		if err != nil {
			return nil, err
		}
		return c.Lookup("7")
	}
	const one = `"points": 10}`
	l, err := load(one, `"points": 10, "scoring": "per-test", "weights": {"TestLab7_1_Third": 3, "TestLab7_1_HiddenB": 2}}`)
	require.NoError(t, err)
	ex, err := l.Exercise("7.1")
	require.NoError(t, err)
	assert.True(t, ex.PerTest())
	assert.Equal(t, 3, ex.Weight("TestLab7_1_Third"))
	assert.Equal(t, 2, ex.Weight("TestLab7_1_HiddenB"), "a hidden test may be weighted")
	assert.Equal(t, 1, ex.Weight("TestLab7_1_First"), "unlisted tests weigh 1")
	two, err := l.Exercise("7.2")
	require.NoError(t, err)
	assert.False(t, two.PerTest(), "no scoring key: all or nothing")

	for name, c := range map[string]struct{ manifest, want string }{
		"unknown scoring":          {`"points": 10, "scoring": "partial"}`, `exercise 7.1: scoring "partial" is neither "all" nor "per-test"`},
		"weights without per-test": {`"points": 10, "weights": {"TestLab7_1_First": 2}}`, `exercise 7.1: weights are given, but its scoring is not "per-test"`},
		"weight below 1":           {`"points": 10, "scoring": "per-test", "weights": {"TestLab7_1_First": 0}}`, `exercise 7.1: weight 0 of TestLab7_1_First is below 1`},
		"another exercise's test":  {`"points": 10, "scoring": "per-test", "weights": {"TestLab7_2_Second": 2}}`, `exercise 7.1: weight for TestLab7_2_Second, which is not one of its tests`},
		"a test there is not":      {`"points": 10, "scoring": "per-test", "weights": {"TestLab7_1_Frist": 2}}`, `exercise 7.1: weight for TestLab7_1_Frist, a test the lab does not have`},
	} {
		_, err := load(one, c.manifest)
		require.Error(t, err, "%s: loading %s gave no error", name, c.manifest)
		assert.Contains(t, err.Error(), c.want, name)
		var me *lab.ManifestError
		assert.ErrorAs(t, err, &me, name)
	}
}
