package cli_test

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coursekit/course/grader/lab"
	"github.com/coursekit/course/solutions"
)

// similarClass writes a class of lab 10 as lone files in a new directory:
// ann the reference solution, bob a copy of it with other comments, cid
// and dan the alternative solutions, eve the stub. It returns their paths
// in that order.
func similarClass(t *testing.T) []string {
	t.Helper()
	l := lab10(t)
	stub, err := l.Stub()
	require.NoError(t, err)
	ref, err := l.Solution()
	if errors.Is(err, lab.ErrNoSolution) {
		t.Skip("a student release: no solutions")
	}
	require.NoError(t, err)
	rawjson, err := fs.ReadFile(solutions.FS, "10-session/alternatives/rawjson/session.go")
	require.NoError(t, err)
	worker, err := fs.ReadFile(solutions.FS, "10-session/alternatives/worker/session.go")
	require.NoError(t, err)
	copied := regexp.MustCompile(`//[^\n]*`).ReplaceAll(ref, []byte("// my own idea"))

	dir := t.TempDir()
	return []string{
		loneFile(t, dir, "ann", ref),
		loneFile(t, dir, "bob", copied),
		loneFile(t, dir, "cid", rawjson),
		loneFile(t, dir, "dan", worker),
		loneFile(t, dir, "eve", stub),
	}
}

// tableRow matches a row of the pairs table: rank, score, the two names.
var tableRow = regexp.MustCompile(`(?m)^(\d+) +(\d+)% +(\S+) +(\S+) +(\d+)% +(\d+)% +lines \d+-\d+ ~ \d+-\d+ \(\d+ tokens\)$`)

func TestSimilarRanksTheCopyFirst(t *testing.T) {
	paths := similarClass(t)
	r := run(t, nil, append([]string{"similar"}, paths...)...)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Empty(t, r.stderr)
	assert.Regexp(t, `^lab 10: 5 submissions compared, \d+ pairs share code:\n\n#  SCORE  A  +B  +OF A  OF B  LONGEST SHARED RUN\n`, r.stdout)
	rows := tableRow.FindAllStringSubmatch(r.stdout, -1)
	require.NotEmpty(t, rows, r.stdout)
	assert.Equal(t, []string{"1", "ann", "bob"}, []string{rows[0][1], rows[0][3], rows[0][4]}, "the copy is the top pair")
	assert.Equal(t, "99", rows[0][2], "comments aside, the same code")
	for _, row := range rows[1:] {
		assert.NotContains(t, []string{row[3], row[4]}, "eve", "the stub shares nothing but the stub's code")
	}
	assert.Contains(t, r.stdout, "\n19 tokens or more are always found. The stub's code does not count, nor code in more than 3 submissions (common).\n")
}

func TestSimilarJSONHasStableFields(t *testing.T) {
	paths := similarClass(t)
	r := run(t, nil, append([]string{"similar", "--json", "--top", "0"}, paths...)...)
	require.Equal(t, 0, r.code, r.stderr)

	var raw map[string]any
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &raw))
	assert.ElementsMatch(t, []string{"lab", "submissions", "pairs_sharing", "k", "w", "common_limit", "pairs", "not_compared"}, keys(raw))
	pairs := raw["pairs"].([]any)
	require.NotEmpty(t, pairs)
	first := pairs[0].(map[string]any)
	assert.ElementsMatch(t, []string{"a", "b", "score", "share_a", "share_b", "tokens_a", "tokens_b", "matched_a", "matched_b", "regions"}, keys(first))
	region := first["regions"].([]any)[0].(map[string]any)
	assert.ElementsMatch(t, []string{"a", "b", "tokens"}, keys(region))
	assert.ElementsMatch(t, []string{"start_line", "end_line", "start", "end"}, keys(region["a"].(map[string]any)))

	var out struct {
		Lab         string
		Submissions int
		Sharing     int `json:"pairs_sharing"`
		Pairs       []struct {
			A, B    string
			Score   float64
			Regions []struct {
				A, B struct {
					StartLine int `json:"start_line"`
					EndLine   int `json:"end_line"`
				}
				Tokens int
			}
		}
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &out))
	assert.Equal(t, "10", out.Lab)
	assert.Equal(t, 5, out.Submissions)
	assert.Len(t, out.Pairs, out.Sharing, "--top 0: every pair")
	assert.Equal(t, "ann", out.Pairs[0].A)
	assert.Equal(t, "bob", out.Pairs[0].B)
	assert.Greater(t, out.Pairs[0].Score, 0.98)
	for i, p := range out.Pairs {
		if i > 0 {
			assert.LessOrEqual(t, p.Score, out.Pairs[i-1].Score, "ranked by score")
		}
		for _, g := range p.Regions {
			assert.LessOrEqual(t, g.A.StartLine, g.A.EndLine)
			assert.LessOrEqual(t, g.B.StartLine, g.B.EndLine)
			assert.GreaterOrEqual(t, g.Tokens, 12)
		}
	}
}

func keys(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func TestSimilarTopAndMin(t *testing.T) {
	paths := similarClass(t)
	r := run(t, nil, append([]string{"similar", "--top", "1"}, paths...)...)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Len(t, tableRow.FindAllString(r.stdout, -1), 1)
	assert.Regexp(t, `pairs share code; the 1 best:\n`, r.stdout)

	r = run(t, nil, append([]string{"similar", "--min", "90%"}, paths...)...)
	require.Equal(t, 0, r.code, r.stderr)
	rows := tableRow.FindAllStringSubmatch(r.stdout, -1)
	require.Len(t, rows, 1, "only the copy scores 90%% or more:\n%s", r.stdout)
	assert.Equal(t, "bob", rows[0][4])

	r = run(t, nil, append([]string{"similar", "--min", "1"}, paths...)...)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Regexp(t, `pairs share code; none scores --min 1\n$`, r.stdout)

	for _, bad := range [][]string{{"--min", "2"}, {"--min", "-10%"}, {"--min", "x"}, {"--top", "-1"}, {"--common", "0"}, {"--common", "1.5"}} {
		r = run(t, nil, append(append([]string{"similar"}, bad...), paths...)...)
		assert.Equal(t, 2, r.code, "%v: %s", bad, r.stderr)
		assert.Contains(t, r.stderr, bad[0], "the error names the flag")
		assert.Empty(t, r.stdout)
	}
	r = run(t, nil, "similar", paths[0])
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "course similar: give two submissions or more to compare (got 1)\n")
}

func TestSimilarReportsAnUnreadableSubmissionAndComparesTheOthers(t *testing.T) {
	paths := similarClass(t)
	dir := filepath.Dir(paths[0])
	notGo := loneFile(t, dir, "fay\x1b[31m", []byte("package session\n\nvar s = \"never closed\n"))
	missing := filepath.Join(dir, "gus.zip")
	r := run(t, nil, append([]string{"similar"}, append(paths, notGo, missing)...)...)
	assert.Equal(t, 2, r.code, r.stderr)
	assert.Equal(t, "gus: not compared: cannot read: no such file or directory\n"+
		`fay\x1b[31m: not compared: session.go: not Go source at line 3, column 9: string literal not terminated`+"\n"+
		"course similar: 2 of 7 submissions could not be compared\n", r.stderr)
	assert.NotContains(t, r.stdout, "\x1b", "a name is printed escaped")
	rows := tableRow.FindAllStringSubmatch(r.stdout, -1)
	require.NotEmpty(t, rows, "the others are compared")
	assert.Equal(t, []string{"ann", "bob"}, []string{rows[0][3], rows[0][4]})
	assert.Contains(t, r.stdout, "lab 10: 5 submissions compared")
}

func TestSimilarHTMLPage(t *testing.T) {
	paths := similarClass(t)
	page := filepath.Join(t.TempDir(), "similar.html")
	r := run(t, nil, append([]string{"similar", "--top", "3", "--html", page}, paths...)...)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Len(t, tableRow.FindAllString(r.stdout, -1), 3, "the table is printed too")
	b, err := os.ReadFile(page)
	require.NoError(t, err)
	html := string(b)
	assert.True(t, strings.HasPrefix(html, "<!DOCTYPE html>"))
	assert.Contains(t, html, "<title>Lab 10: similar code</title>")
	assert.Equal(t, 3, strings.Count(html, `<section id="pair`), "one section a pair")
	assert.Contains(t, html, `<h2>1. <span class="name">ann</span> and <span class="name">bob</span>: 99%</h2>`)
	assert.Contains(t, html, `<mark class="c0" id="p1-a1">`, "the regions are marked")
	assert.NotContains(t, html, "<script")
	assert.NotContains(t, html, "https://")
}

func TestSimilarHTMLRefusesToOverwrite(t *testing.T) {
	paths := similarClass(t)
	page := filepath.Join(t.TempDir(), "notes.html")
	require.NoError(t, os.WriteFile(page, []byte("my notes"), 0o644))

	r := run(t, nil, append([]string{"similar", "--html", page}, paths...)...)
	assert.Equal(t, 2, r.code)
	assert.Equal(t, "course similar: --html "+page+": the file exists; use --force to overwrite it\n", r.stderr)
	assert.Empty(t, r.stdout, "refused before comparing")
	b, err := os.ReadFile(page)
	require.NoError(t, err)
	assert.Equal(t, "my notes", string(b))

	r = run(t, nil, append([]string{"similar", "--force", "--html", page}, paths...)...)
	require.Equal(t, 0, r.code, r.stderr)
	b, err = os.ReadFile(page)
	require.NoError(t, err)
	assert.Contains(t, string(b), "<!DOCTYPE html>")

	ws := workspace(t, t.TempDir(), "hal", labSources(t).solution)
	inside := filepath.Join(ws, "similar.html")
	r = run(t, nil, append([]string{"similar", "--html", inside, ws}, paths...)...)
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "--html "+inside+": is inside submission "+ws+", and course similar never writes a submission")
	assert.NoFileExists(t, inside)

	r = run(t, nil, append([]string{"similar", "--html", paths[0]}, paths...)...)
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "is inside submission "+paths[0])
}
