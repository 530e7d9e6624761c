package cli_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coursekit/course/cmd/course/internal/cli"
	classpkg "github.com/coursekit/course/grader/class"
	"github.com/coursekit/course/grader/lab"
	"github.com/coursekit/course/grader/release/releasetest"
)

func TestGradeShardUsageErrors(t *testing.T) {
	dir := t.TempDir()
	a := loneFile(t, dir, "a", labSources(t).rejected)
	saved := filepath.Join(dir, "class.json")
	require.NoError(t, os.WriteFile(saved, []byte("[]"), 0o644))
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--shard", "0/3", a}, `--shard "0/3": want K/N`},
		{[]string{"--shard", "4/3", a}, `--shard "4/3": want K/N`},
		{[]string{"--shard", "1/0", a}, `--shard "1/0": want K/N`},
		{[]string{"--shard", "two/3", a}, `--shard "two/3": want K/N`},
		{[]string{"--shard", "1", a}, `--shard "1": want K/N`},
		{[]string{"--shard", "1/2", "--csv", filepath.Join(dir, "g.csv"), "--update", a}, "--update regrades rows of one table"},
		{[]string{"--shard", "1/2", "--format", "gradescope", a}, "--format gradescope is the report of one submission"},
		{[]string{"--shard", "1/2", "--from", saved}, "--from grades nothing"},
	} {
		r := run(t, nil, append([]string{"grade", "--chapter", "10"}, tc.args...)...)
		assert.Equal(t, 2, r.code, "course grade %v: %s", tc.args, r.stderr)
		assert.Contains(t, r.stderr, tc.want, "course grade %v", tc.args)
		assert.Empty(t, r.stdout, "course grade %v grades nothing", tc.args)
	}
}

// shardClass is a class of four rejected files, each a little different
// (so that each is graded, not given another's report), and a folder
// without session.go (not graded): graded in no time. By FNV-1a, of 3
// shards: bob and dave are 1/3, carol 2/3, alice and erin 3/3.
func shardClass(t *testing.T) []string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "submissions")
	require.NoError(t, os.Mkdir(dir, 0o755))
	var paths []string
	for _, name := range []string{"alice", "bob", "carol", "dave"} {
		src := append([]byte("// "+name+"\n"), labSources(t).rejected...)
		paths = append(paths, loneFile(t, dir, name, src))
	}
	erin := filepath.Join(dir, "erin")
	require.NoError(t, os.Mkdir(erin, 0o755))
	return append(paths, erin)
}

// shardReport reads a shard's saved report.
func shardReport(t *testing.T, p string) *classpkg.Saved {
	t.Helper()
	s, err := classpkg.ReadSavedFile(p)
	require.NoError(t, err, "ReadSavedFile(%s)", p)
	return s
}

// withoutSeconds is a class's JSON report with every time taken out: what
// two runs of the same class share.
func withoutSeconds(t *testing.T, data []byte) any {
	t.Helper()
	var v any
	require.NoError(t, json.Unmarshal(data, &v), "%s", data)
	var strip func(any)
	strip = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			delete(v, "seconds")
			delete(v, "graded") // when each run began
			for _, x := range v {
				strip(x)
			}
		case []any:
			for _, x := range v {
				strip(x)
			}
		}
	}
	strip(v)
	return v
}

// Each shard grades the same submissions whatever the order they are
// given in; together they hold every submission once; merged, they are
// the class as one run grades it.
func TestGradeShardsSplitTheClassAndMergeIntoIt(t *testing.T) {
	paths := shardClass(t)
	out := t.TempDir()
	reversed := slices.Clone(paths)
	slices.Reverse(reversed)
	var from []string
	seen := map[string]int{}
	for k := 1; k <= 3; k++ {
		var heads [][]string
		for i, order := range [][]string{paths, reversed} {
			p := filepath.Join(out, fmt.Sprintf("shard-%d-%d.json", k, i))
			r := run(t, nil, append([]string{"grade", "--chapter", "10", "--shard", fmt.Sprintf("%d/3", k), "--json", "-o", p}, order...)...)
			require.Contains(t, []int{1, 2}, r.code, "shard %d/3: %s", k, r.stderr)
			s := shardReport(t, p)
			assert.Equal(t, classpkg.Shard{Index: k, Count: 3}, s.Head.Shard)
			assert.Equal(t, "10", s.Head.Lab)
			heads = append(heads, s.Head.Submissions)
			if i == 0 {
				from = append(from, "--from", p)
			}
		}
		assert.Equal(t, heads[0], heads[1], "shard %d/3 is the same whatever the order of the submissions", k)
		for _, name := range heads[0] {
			seen[name]++
		}
	}
	assert.Equal(t, map[string]int{"alice": 1, "bob": 1, "carol": 1, "dave": 1, "erin": 1}, seen, "every submission in exactly one shard")

	whole, wholeCSV := filepath.Join(out, "whole.json"), filepath.Join(out, "whole.csv")
	r := run(t, nil, append([]string{"grade", "--chapter", "10", "--json", "-o", whole, "--csv", wholeCSV}, paths...)...)
	require.Equal(t, 2, r.code, "erin could not be graded: %s", r.stderr)
	merged, mergedCSV := filepath.Join(out, "merged.json"), filepath.Join(out, "merged.csv")
	r = run(t, nil, append(from, "grade", "--json", "-o", merged, "--csv", mergedCSV)...)
	require.Equal(t, 2, r.code, "the merge's exit status is the run's: %s", r.stderr)
	assert.Contains(t, r.stderr, "1 of 5 submissions in "+strings.Join([]string{from[1], from[3], from[5]}, ", ")+" could not be graded")

	a, err := os.ReadFile(whole)
	require.NoError(t, err)
	b, err := os.ReadFile(merged)
	require.NoError(t, err)
	assert.Equal(t, withoutSeconds(t, a), withoutSeconds(t, b), "the merged report is the one run's, times aside")
	assert.Equal(t, sortedCSV(readCSV(t, wholeCSV), 5), readCSV(t, mergedCSV), "the merged table is the one run's (whose rows come as graded)")
}

// A shard that holds no submission writes a report all the same, which
// --from reads: the merge of a small class needs every shard.
func TestGradeEmptyShardWritesAnEmptyReport(t *testing.T) {
	dir := t.TempDir()
	bob := loneFile(t, dir, "bob", labSources(t).rejected) // shard 1/2
	p := filepath.Join(t.TempDir(), "shard-2.json")
	r := run(t, nil, "grade", "--chapter", "10", "--shard", "2/2", "--json", "-o", p, bob)
	require.Equal(t, 0, r.code, "nothing to grade is no error: %s", r.stderr)
	s := shardReport(t, p)
	assert.Empty(t, s.Head.Submissions)
	assert.Empty(t, s.Results)
	data, err := os.ReadFile(p)
	require.NoError(t, err)
	assert.Contains(t, string(data), `"reports": []`)

	r = run(t, nil, "grade", "--from", p)
	assert.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "SUBMISSION  10.1  10.2  10.3  10.4  10.5  10.6  SCORE", "the table of the lab's exercises, empty")
}

// The report of a shard says which course graded it: the tool's version
// and commit, as course version prints them.
func TestGradeShardReportRecordsTheCourseVersion(t *testing.T) {
	bob := loneFile(t, t.TempDir(), "bob", labSources(t).rejected)
	f := &cli.Factory{Catalog: lab.Load, BuildInfo: func() (*debug.BuildInfo, bool) {
		return &debug.BuildInfo{Main: debug.Module{Version: "v1.4.0"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "0123abcd"}, {Key: "vcs.modified", Value: "true"}}}, true
	}}
	r := run(t, f, "grade", "--chapter", "10", "--shard", "1/1", "--json", bob)
	require.Equal(t, 1, r.code, r.stderr)
	var head struct {
		Course string `json:"course"`
		Tests  string `json:"tests"`
		Class  string `json:"class"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &head), r.stdout)
	assert.Equal(t, "v1.4.0 0123abcd (modified)", head.Course)
	assert.Len(t, head.Tests, 16, "the fingerprint of the tests it graded with, which a build without a version stamp still has")
	assert.Equal(t, classpkg.ClassPrint([]string{"bob"}), head.Class, "the fingerprint of the submissions the run was given")

	// Another run of another class: its part does not merge with this one.
	carol := loneFile(t, t.TempDir(), "carol", labSources(t).rejected)
	r2 := run(t, f, "grade", "--chapter", "10", "--shard", "1/1", "--json", bob, carol)
	var other struct {
		Class string `json:"class"`
	}
	require.NoError(t, json.Unmarshal([]byte(r2.stdout), &other), r2.stdout)
	assert.NotEqual(t, head.Class, other.Class, "two classes, two fingerprints")
}

// splitGolden writes the saved class of testdata/golden/class.json as the
// reports of its n shards, each edited by edit if given, and returns
// their paths.
func splitGolden(t *testing.T, n int, edit func(k int, head *classpkg.ShardHead)) []string {
	t.Helper()
	saved := shardReport(t, goldenClass)
	dir := t.TempDir()
	var paths []string
	for k := 1; k <= n; k++ {
		head := classpkg.ShardHead{Course: "(devel)", Lab: "10", Shard: classpkg.Shard{Index: k, Count: n}}
		var part []classpkg.Result
		for _, r := range saved.Results {
			if head.Shard.Has(r.Name) {
				part = append(part, r)
				head.Submissions = append(head.Submissions, r.Name)
			}
		}
		if edit != nil {
			edit(k, &head)
		}
		var b bytes.Buffer
		require.NoError(t, classpkg.WriteShardJSON(&b, head, part))
		p := filepath.Join(dir, fmt.Sprintf("shard-%d.json", k))
		require.NoError(t, os.WriteFile(p, b.Bytes(), 0o644))
		paths = append(paths, p)
	}
	return paths
}

func fromFlags(paths []string) []string {
	var args []string
	for _, p := range paths {
		args = append(args, "--from", p)
	}
	return args
}

// Every output made of the shards' reports, merged, is byte for byte the
// one made of the class graded in one run: the table and summary, JSON,
// JUnit, CSV and HTML.
func TestGradeFromMergedShardsIsTheWholeClass(t *testing.T) {
	releasetest.SkipInRelease(t, "the golden class names hidden tests")
	for _, n := range []int{3, 16} { // of 16, most shards hold nothing
		shards := splitGolden(t, n, nil)
		for _, tc := range []struct {
			name string
			args []string
			file string
		}{
			{"text", nil, ""},
			{"json", []string{"--json"}, ""},
			{"junit", []string{"--format", "junit"}, ""},
			{"csv", []string{"--csv"}, "grades.csv"},
			{"html", []string{"--html"}, "report.html"},
		} {
			outputs := make([]string, 2)
			for i, from := range [][]string{{goldenClass}, shards} {
				args := append([]string{"grade"}, fromFlags(from)...)
				args = append(args, tc.args...)
				file := ""
				if tc.file != "" {
					file = filepath.Join(t.TempDir(), tc.file)
					args = append(args, file)
				}
				r := run(t, nil, args...)
				require.Equal(t, 2, r.code, "heidi could not be graded: %s", r.stderr)
				outputs[i] = r.stdout
				if file != "" {
					data, err := os.ReadFile(file)
					require.NoError(t, err)
					outputs[i] = string(data)
				}
			}
			assert.Equal(t, outputs[0], outputs[1], "%s of %d shards merged is the class's", tc.name, n)
		}
	}
}

func TestGradeFromRefusesShardsOfTwoClasses(t *testing.T) {
	releasetest.SkipInRelease(t, "the golden class names hidden tests")
	plain := filepath.Join(t.TempDir(), "class.json")
	data, err := os.ReadFile(goldenClass)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(plain, data, 0o644))
	for name, tc := range map[string]struct {
		from []string
		want string
	}{
		"another course version": {splitGolden(t, 3, func(k int, h *classpkg.ShardHead) {
			if k == 2 {
				h.Course = "v2.0.0 fedcba"
			}
		}), "reports of different versions of the course: "},
		"another lab": {splitGolden(t, 3, func(k int, h *classpkg.ShardHead) {
			if k == 3 {
				h.Lab = "4"
			}
		}), "a report of lab \"10\" in a shard of lab \"4\""},
		"another class": {splitGolden(t, 3, func(k int, h *classpkg.ShardHead) {
			if k == 2 {
				h.Class = classpkg.ClassPrint([]string{"carol", "zed"})
			}
		}), "shards of different runs: "},
		"another split":   {append(splitGolden(t, 2, nil)[:1], splitGolden(t, 3, nil)...), "shards of different splits"},
		"a plain report":  {append(splitGolden(t, 2, nil), plain), "is a plain --json report"},
		"a shard missing": {splitGolden(t, 3, nil)[1:], "no report of shard 1/3"},
		"an interrupted run": {splitGolden(t, 3, func(k int, h *classpkg.ShardHead) {
			if k == 1 {
				h.Submissions = append(h.Submissions, "mallory")
			}
		}), "lists \"mallory\" but holds no report of it: the shard's run did not finish"},
	} {
		table := filepath.Join(t.TempDir(), "grades.csv")
		r := run(t, nil, append(append([]string{"grade"}, fromFlags(tc.from)...), "--csv", table)...)
		assert.Equal(t, 2, r.code, "%s: %s", name, r.stderr)
		assert.Contains(t, r.stderr, tc.want, name)
		assert.Equal(t, 1, strings.Count(r.stderr, "\n"), "%s: one line, and no usage: %q", name, r.stderr)
		assert.Empty(t, r.stdout, name)
		assert.NoFileExists(t, table, "%s: nothing written", name)
	}

	// Two reports that hold one submission: the same shard, graded twice.
	a, b := splitGolden(t, 2, nil), splitGolden(t, 2, nil)
	r := run(t, nil, "grade", "--from", a[0], "--from", a[1], "--from", b[1])
	assert.Equal(t, 2, r.code)
	assert.Equal(t, `course grade: --from: a submission in two reports: "alice" is in `+a[1]+" and in "+b[1]+"\n", r.stderr)
}
