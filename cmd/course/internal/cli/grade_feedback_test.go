package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coursekit/course/grader/release/releasetest"
)

// TestGoldenFeedback: the feedback course grade --feedback makes of the
// saved class, a file per submission; carol's (an exercise scored per
// test, late, one failed by a hidden test) is kept as a golden file, and
// no file names a hidden test or quotes a hidden run.
func TestGoldenFeedback(t *testing.T) {
	releasetest.SkipInRelease(t, "the golden files name hidden tests")
	dir := filepath.Join(t.TempDir(), "feedback")
	r := run(t, nil, "grade", "--from", goldenClass, "--feedback", dir)
	assert.Equal(t, 2, r.code, "the exit status of the run that made the report: %s", r.stderr)
	assert.Contains(t, r.stderr, "feedback for 9 submissions in "+dir+"\n")

	reports, notGraded := readGoldenClass(t)
	var secrets []string
	for _, rep := range reports {
		for _, ex := range rep.Exercises {
			for _, tr := range ex.Tests {
				if tr.Hidden {
					secrets = append(secrets, tr.Name)
				}
			}
			if ex.HiddenReason != "" {
				secrets = append(secrets, ex.HiddenReason)
			}
		}
	}
	require.NotEmpty(t, secrets)
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, entries, len(reports)+len(notGraded), "a file per submission, nothing else")
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		require.NoError(t, err)
		for _, s := range secrets {
			assert.NotContains(t, string(data), s, "%s shows what only instructors may see", e.Name())
		}
	}
	carol, err := os.ReadFile(filepath.Join(dir, "carol.md"))
	require.NoError(t, err)
	golden(t, "carol.feedback.md", carol)
	heidi, err := os.ReadFile(filepath.Join(dir, "heidi.md"))
	require.NoError(t, err)
	assert.Contains(t, string(heidi), "**Not graded.**")
}

// TestGradeFeedbackOfAClass: grading writes a file per submission, one
// that could not be read too; names that would make one file (alice and
// Alice, to a file system that ignores case) make two; the submissions are
// not written to.
func TestGradeFeedbackOfAClass(t *testing.T) {
	src := labSources(t)
	dir := t.TempDir()
	a := loneFile(t, filepath.Join(dir, mkdir(t, dir, "one")), "alice", src.rejected)
	b := loneFile(t, filepath.Join(dir, mkdir(t, dir, "two")), "Alice", src.rejected)
	empty := filepath.Join(dir, mkdir(t, dir, "dave"))
	before := snapshot(t, dir)
	out := filepath.Join(t.TempDir(), "fb")

	r := run(t, nil, "grade", "--chapter", "10", "--feedback", out, a, b, empty)
	assert.Equal(t, 2, r.code, r.stderr)
	assert.Equal(t, before, snapshot(t, dir), "the submissions are only read")
	entries, err := os.ReadDir(out)
	require.NoError(t, err)
	require.Len(t, entries, 3, "a file each: %v", entries)
	seen := map[string]bool{}
	for _, e := range entries {
		seen[strings.ToLower(e.Name())] = true
		data, err := os.ReadFile(filepath.Join(out, e.Name()))
		require.NoError(t, err)
		switch {
		case strings.HasPrefix(e.Name(), "dave"):
			assert.Contains(t, string(data), "could not be graded: `holds no session.go`")
		default:
			assert.Contains(t, string(data), "Your file was rejected before building")
			assert.Contains(t, string(data), `import "os" is not allowed`)
		}
	}
	assert.Len(t, seen, 3, "alice and Alice get files that differ in more than case")

	// One submission alone: its report and its feedback.
	one := filepath.Join(t.TempDir(), "fb")
	r = run(t, nil, "grade", "--chapter", "10", "--feedback", one, a)
	assert.Equal(t, 1, r.code, r.stderr)
	assert.FileExists(t, filepath.Join(one, "alice.md"))
}

func mkdir(t *testing.T, parent, name string) string {
	t.Helper()
	require.NoError(t, os.Mkdir(filepath.Join(parent, name), 0o755))
	return name
}

// TestGradeFeedbackRefusals: --feedback never overwrites a file without
// --force, never writes into a submission (also through a link), and is
// refused before anything is graded when it cannot be written.
func TestGradeFeedbackRefusals(t *testing.T) {
	src := labSources(t)
	dir := t.TempDir()
	sub := workspace(t, dir, "alice", src.rejected)
	link := filepath.Join(dir, "lnk")
	require.NoError(t, os.Symlink(sub, link))
	notes := filepath.Join(dir, "notes.txt")
	require.NoError(t, os.WriteFile(notes, []byte("x"), 0o644))
	fb := filepath.Join(dir, "fb")
	require.NoError(t, os.Mkdir(fb, 0o755))
	mine := filepath.Join(fb, "alice.md")
	require.NoError(t, os.WriteFile(mine, []byte("the instructor's own notes"), 0o644))
	before := snapshot(t, dir)

	for _, tc := range []struct {
		feedback, want string
	}{
		{fb, "--feedback " + fb + ": " + mine + " exist; use --force to overwrite them"},
		{filepath.Join(sub, "fb"), "--feedback " + filepath.Join(sub, "fb") + ": is inside submission " + sub + ", and grading never writes a submission"},
		{sub, "--feedback " + sub + ": is inside submission " + sub + ", and grading never writes a submission"},
		{filepath.Join(link, "fb"), "--feedback " + filepath.Join(link, "fb") + ": is inside submission " + sub + ", and grading never writes a submission"},
		{notes, "--feedback " + notes + ": not a directory"},
		{filepath.Join(dir, "no", "fb"), "--feedback " + filepath.Join(dir, "no", "fb") + ": directory " + filepath.Join(dir, "no") + " does not exist"},
	} {
		r := run(t, nil, "grade", "--chapter", "10", "--feedback", tc.feedback, sub)
		assert.Equal(t, 2, r.code, "--feedback %s", tc.feedback)
		assert.Equal(t, "course grade: "+tc.want+"\n", r.stderr, "--feedback %s: refused, in one line", tc.feedback)
		assert.Empty(t, r.stdout, "--feedback %s: nothing graded", tc.feedback)
	}
	r := run(t, nil, "grade", "--chapter", "10", "-o", filepath.Join(fb, "alice.md"), "--force", "--feedback", fb, sub)
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "the feedback of alice would be the -o file")
	assert.Equal(t, before, snapshot(t, dir), "nothing written anywhere")

	r = run(t, nil, "grade", "--chapter", "10", "--force", "--feedback", fb, sub)
	assert.Equal(t, 1, r.code, r.stderr)
	data, err := os.ReadFile(mine)
	require.NoError(t, err)
	assert.Contains(t, string(data), "# Lab 10 feedback: `alice`", "--force replaces it")
}
