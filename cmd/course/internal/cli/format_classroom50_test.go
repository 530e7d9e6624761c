package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// setRunnerEnv sets what Classroom 50's runner gives an autograder.py.
func setRunnerEnv(t *testing.T) {
	t.Helper()
	for k, v := range map[string]string{
		"CLASSROOM": "go-fall", "ASSIGNMENT": "lab10", "SUBMISSION_TAG": "submit/2026-06-01T14-32-05Z-a1b2c3d",
		"COMMIT_URL": "https://example.com/c", "RELEASE_URL": "https://example.com/r", "USERNAME": "eve",
		"REVIEW_URL": "", "OWNER": "", "ASSIGNMENT_TYPE": "", "GITHUB_ACTOR": "", "GITHUB_ACTOR_ID": "",
	} {
		t.Setenv(k, v)
	}
}

func TestGradeFormatClassroom50OfARejectedFile(t *testing.T) {
	setRunnerEnv(t)
	p := loneFile(t, t.TempDir(), "eve", labSources(t).rejected)
	out := filepath.Join(t.TempDir(), "result.json")
	r := run(t, nil, "grade", "--format", "classroom50", "-o", out, p)
	require.Equal(t, 1, r.code, r.stderr)
	data, err := os.ReadFile(out)
	require.NoError(t, err)
	var res struct {
		Schema   string `json:"schema"`
		Owner    string `json:"owner"`
		Score    int    `json:"score"`
		MaxScore int    `json:"max-score"`
		Tests    []struct {
			Name   string `json:"test-name"`
			Output string `json:"output"`
		} `json:"tests"`
	}
	require.NoError(t, json.Unmarshal(data, &res), string(data))
	assert.Equal(t, "classroom50/result/v1", res.Schema)
	assert.Equal(t, "eve", res.Owner)
	assert.Zero(t, res.Score)
	assert.Equal(t, 100, res.MaxScore)
	require.Len(t, res.Tests, 6)
	assert.Equal(t, "10.1 PathTo", res.Tests[0].Name)
	assert.Contains(t, res.Tests[0].Output, "rejected before building")
}

func TestGradeFormatClassroom50NeedsTheRunnersEnvironment(t *testing.T) {
	setRunnerEnv(t)
	t.Setenv("CLASSROOM", "")
	p := loneFile(t, t.TempDir(), "eve", labSources(t).rejected)
	out := filepath.Join(t.TempDir(), "result.json")
	r := run(t, nil, "grade", "--format", "classroom50", "-o", out, p)
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "CLASSROOM not set")
	assert.NoFileExists(t, out)
}

func TestGradeFormatClassroom50IsOneSubmission(t *testing.T) {
	dir := t.TempDir()
	src := labSources(t)
	r := run(t, nil, "grade", "--format", "classroom50", loneFile(t, dir, "a", src.rejected), loneFile(t, dir, "b", src.rejected))
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "--format classroom50 grades one submission (result.json is per submission), not 2")

	r = run(t, nil, "grade", "--format", "moodle", loneFile(t, dir, "c", src.rejected))
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, `unknown --format "moodle" (known: text, json, gradescope, junit, classroom50)`)
}
