package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coursekit/course/grader/autograder"
)

func TestCIWritesEachPlatformsFiles(t *testing.T) {
	for _, tc := range []struct {
		platform string
		files    []string
		want     string // in every file
	}{
		{"github", []string{".github/workflows/grade-lab10.yml"}, "shard: [1, 2, 3]"},
		{"gitlab", []string{"grade-lab10.gitlab-ci.yml"}, "parallel: 3"},
		{"kubernetes", []string{"grade-lab10-volume.yaml", "grade-lab10.yaml", "grade-lab10-merge.yaml"}, "claimName: course-grading"},
	} {
		dir := filepath.Join(t.TempDir(), "new") // made, inside one that exists
		r := run(t, nil, "ci", tc.platform, "--chapter", "10", "--shards", "3", dir)
		require.Equal(t, 0, r.code, "course ci %s: %s", tc.platform, r.stderr)
		assert.Contains(t, r.stdout, "They grade lab 10 in 3 shards")
		var written []string
		for _, f := range tc.files {
			p := filepath.Join(dir, filepath.FromSlash(f))
			assert.Contains(t, r.stdout, "Wrote "+p+"\n")
			data, err := os.ReadFile(p)
			require.NoError(t, err, "course ci %s writes %s", tc.platform, f)
			written = append(written, string(data))
		}
		assert.Contains(t, strings.Join(written, ""), tc.want, "course ci %s", tc.platform)

		// An existing file is replaced only with --force.
		p := filepath.Join(dir, filepath.FromSlash(tc.files[0]))
		require.NoError(t, os.WriteFile(p, []byte("the instructor's own\n"), 0o644))
		r = run(t, nil, "ci", tc.platform, "--chapter", "10", "--shards", "3", dir)
		assert.Equal(t, 2, r.code)
		assert.Contains(t, r.stderr, p+" exists; use --force to replace it")
		data, err := os.ReadFile(p)
		require.NoError(t, err)
		assert.Equal(t, "the instructor's own\n", string(data), "untouched")
		r = run(t, nil, "ci", tc.platform, "--chapter", "10", "--shards", "3", "--force", dir)
		assert.Equal(t, 0, r.code, r.stderr)
		data, err = os.ReadFile(p)
		require.NoError(t, err)
		assert.Equal(t, written[0], string(data), "replaced with --force")
	}
}

func TestCIUsageErrors(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "a-file")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"jenkins", dir}, `unknown platform "jenkins" (known: github, gitlab, kubernetes)`},
		{[]string{"github", "--chapter", "10"}, "missing argument <course>"},
		{[]string{"github", "--chapter", "10", file}, file + ": not a directory"},
		{[]string{"kubernetes", "--chapter", "10", filepath.Join(dir, "no", "k8s")}, "not a directory, nor a new one inside a directory that exists"},
		{[]string{"github", "--chapter", "10", "--shards", "0", dir}, "the number of shards must be 1 to 200"},
		{[]string{"gitlab", "--chapter", "10", "--shards", "201", dir}, "the number of shards must be 1 to 200"},
		{[]string{"github", "--chapter", "10", "--submissions", "../subs", dir}, `submissions "../subs": not a directory inside the course's checkout`},
		{[]string{"gitlab", "--chapter", "10", "--sandbox", "off", dir}, "off is never for student code"},
		{[]string{"kubernetes", "--chapter", "10", "--timeout", "0s", dir}, "--timeout 0s: must be positive"},
		{[]string{"kubernetes", "--chapter", "10", "--claim", "Course_Grading", dir}, "not a Kubernetes name"},
		{[]string{"kubernetes", "--chapter", "10", "--submissions", "x", dir}, "unknown flag: --submissions"},
		{[]string{"gitlab", "--chapter", "99", dir}, "99"},
	} {
		r := run(t, nil, append([]string{"ci"}, tc.args...)...)
		assert.Equal(t, 2, r.code, "course ci %v: %s", tc.args, r.stderr)
		assert.Contains(t, r.stderr, tc.want, "course ci %v", tc.args)
	}
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, entries, 1, "nothing written")
}

// The files course ci writes are ClassCI's, as its tests check them.
func TestCIWritesWhatClassCIMakes(t *testing.T) {
	dir := t.TempDir()
	r := run(t, nil, "ci", "gitlab", "--chapter", "10", "--shards", "5", "--submissions", "term/lab10", "--bonus", "--go-version", "go1.25.4", dir)
	require.Equal(t, 0, r.code, r.stderr)
	got, err := os.ReadFile(filepath.Join(dir, autograder.ClassGitLabCIPath("10")))
	require.NoError(t, err)
	want, err := (&autograder.ClassCI{Lab: lab10(t), Shards: 5, Submissions: "term/lab10", Bonus: true, GoVersion: "go1.25.4", Sandbox: "strict"}).GitLabCI()
	require.NoError(t, err)
	assert.Equal(t, string(want), string(got))
}
