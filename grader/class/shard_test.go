package class

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coursekit/course/grader/format"
)

func TestParseShardTakesKOfN(t *testing.T) {
	for in, want := range map[string]Shard{"1/1": {1, 1}, "2/4": {2, 4}, "4/4": {4, 4}, "007/10": {7, 10}} {
		got, err := ParseShard(in)
		require.NoError(t, err, "ParseShard(%q)", in)
		assert.Equal(t, want, got, "ParseShard(%q)", in)
		assert.Equal(t, fmt.Sprintf("%d/%d", want.Index, want.Count), got.String())
	}
	for _, in := range []string{"", "1", "0/3", "4/3", "1/0", "a/b", "-1/3", "+1/3", " 1/3", "1/3/4", "1.0/3", "9999999999/1"} {
		_, err := ParseShard(in)
		assert.ErrorIs(t, err, ErrBadShard, "ParseShard(%q)", in)
	}
}

// Over K = 1..N every name falls in exactly one shard, whatever N.
func TestShardsNeitherOverlapNorLeaveAGap(t *testing.T) {
	for n := 1; n <= 9; n++ {
		counts := make([]int, n)
		for i := range 500 {
			name := fmt.Sprintf("student-%03d", i)
			in := 0
			for k := 1; k <= n; k++ {
				if (Shard{k, n}).Has(name) {
					in++
					counts[k-1]++
				}
			}
			require.Equal(t, 1, in, "%q falls in %d of the %d shards, not exactly one", name, in, n)
		}
		for k, c := range counts {
			assert.Greater(t, c, 500/n/2, "shard %d/%d holds %d of 500: the hash spreads names", k+1, n, c)
		}
	}
}

// A name's shard is the FNV-1a hash of the name alone: fixed, on every
// machine and in every run, whatever else is graded with it.
func TestShardOfANameIsFixed(t *testing.T) {
	for name, want := range map[string][3]int{"alice": {2, 3, 4}, "bob": {1, 1, 1}, "carol": {1, 2, 3}, "dave": {2, 1, 4}, "zoë": {1, 2, 1}} {
		for i, n := range []int{2, 3, 4} {
			assert.True(t, (Shard{want[i], n}).Has(name), "%s is in shard %d/%d", name, want[i], n)
		}
	}
}

// shards splits a class into n shard reports as `course grade --shard
// k/n --json` writes them, read back as --from reads them.
func shards(t *testing.T, results []Result, n int, course string) []SavedFile {
	t.Helper()
	var files []SavedFile
	for k := 1; k <= n; k++ {
		sh := Shard{k, n}
		head := ShardHead{Course: course, Lab: "7", Shard: sh}
		var part []Result
		for _, r := range results {
			if sh.Has(r.Name) {
				part = append(part, r)
				head.Submissions = append(head.Submissions, r.Name)
			}
		}
		var b bytes.Buffer
		require.NoError(t, WriteShardJSON(&b, head, part))
		saved, err := ReadSaved(&b)
		require.NoError(t, err, "ReadSaved(WriteShardJSON(shard %s))", sh)
		files = append(files, SavedFile{Path: fmt.Sprintf("shard-%d.json", k), Saved: saved})
	}
	return files
}

func classResults() []Result {
	reports, notGraded := class()
	var results []Result
	for _, r := range reports {
		results = append(results, Result{Name: r.Submission, Path: r.Path, Report: r})
	}
	for name, why := range notGraded {
		results = append(results, Result{Name: name, Err: errors.New(why)})
	}
	Sort(results)
	return results
}

func TestShardReportReadsBackWithItsHead(t *testing.T) {
	files := shards(t, classResults(), 3, "v1.2.0 abc123")
	require.Len(t, files, 3)
	for k, f := range files {
		require.NotNil(t, f.Saved.Head, "a shard's report keeps its head")
		assert.Equal(t, Shard{k + 1, 3}, f.Saved.Head.Shard)
		assert.Equal(t, "v1.2.0 abc123", f.Saved.Head.Course)
		assert.Equal(t, "7", f.Saved.Lab)
	}
	// alice 3/3, bob 1/3, carol 2/3, dave 1/3 (not graded)
	assert.Equal(t, []string{"bob", "dave"}, files[0].Saved.Head.Submissions)
	require.Len(t, files[0].Saved.Results, 2)
	dave := files[0].Saved.Results[1]
	assert.Equal(t, "dave", dave.Name)
	assert.Nil(t, dave.Report)
	assert.EqualError(t, dave.Err, "submissions/dave: holds no session.go\nsecond line", "why it could not be graded, whole")
	assert.Equal(t, "carol", files[1].Saved.Results[0].Report.Submission)
}

// A shard that had nothing to grade still writes a report: its head, no
// entries; ReadSaved takes it.
func TestAnEmptyShardIsAReport(t *testing.T) {
	var b bytes.Buffer
	require.NoError(t, WriteShardJSON(&b, ShardHead{Course: "(devel)", Lab: "7", Shard: Shard{5, 9}}, nil))
	assert.Contains(t, b.String(), `"submissions": []`)
	assert.Contains(t, b.String(), `"reports": []`)
	saved, err := ReadSaved(&b)
	require.NoError(t, err, "ReadSaved of an empty shard:\n%s", b.String())
	assert.Empty(t, saved.Results)
	assert.Equal(t, "7", saved.Lab)
}

func TestReadSavedRefusesABadShardReport(t *testing.T) {
	alice := reportOf("alice", 1, pass71(), pass72()) // shard 2/2
	bob := reportOf("bob", 1, pass71(), pass72())     // shard 1/2
	doc := func(head map[string]any, reports ...any) string {
		head["reports"] = append([]any{}, reports...)
		var b bytes.Buffer
		require.NoError(t, format.WriteJSON(&b, head))
		return b.String()
	}
	head := func(shard string, names ...string) map[string]any {
		sh, err := ParseShard(shard)
		require.NoError(t, err)
		return map[string]any{"course": "(devel)", "lab": "7", "shard": sh, "submissions": append([]string{}, names...)}
	}
	other := reportOf("alice", 1, pass71())
	other.Lab = "8"
	for name, tc := range map[string]struct {
		json, want string
	}{
		"no course":          {strings.Replace(doc(head("2/2", "alice"), alice), `"course": "(devel)",`, "", 1), `without "course"`},
		"no lab":             {strings.Replace(doc(head("2/2", "alice"), alice), `"lab": "7",`, "", 1), `without "lab"`},
		"a bad shard":        {doc(map[string]any{"course": "x", "lab": "7", "shard": Shard{3, 2}, "submissions": []string{}}), "shard 3/2"},
		"no submissions":     {doc(map[string]any{"course": "x", "lab": "7", "shard": Shard{1, 2}}), `without "submissions"`},
		"a report it lacks":  {doc(head("2/2", "alice", "erin"), alice), "lists \"erin\" but holds no report of it"},
		"a report unlisted":  {doc(head("2/2"), alice), "holds a report of \"alice\", which it does not list"},
		"another shard's":    {doc(head("2/2", "bob"), bob), "lists \"bob\", which is not of that shard"},
		"a name twice":       {doc(head("2/2", "alice", "alice"), alice), "lists \"alice\" twice"},
		"a report of lab 8":  {doc(head("2/2", "alice"), other), `a report of lab "8" in a shard of lab "7"`},
		"an unknown field":   {strings.Replace(doc(head("2/2", "alice"), alice), `"lab": "7",`, `"lab": "7", "labs": 1,`, 1), "unknown field"},
		"two values":         {doc(head("2/2", "alice"), alice) + "{}", "more JSON follows"},
		"a cut-short report": {doc(head("2/2", "alice"), alice)[:200], "ends too early"},
	} {
		_, err := ReadSaved(strings.NewReader(tc.json))
		var je *JSONError
		require.ErrorAs(t, err, &je, "%s: ReadSaved gives a *JSONError", name)
		assert.ErrorContains(t, err, tc.want, name)
	}
	_, err := ReadSaved(strings.NewReader(doc(head("2/2", "alice", "erin"), alice)))
	assert.ErrorIs(t, err, ErrIncompleteShard, "a shard whose run was interrupted")
}

// Merging every shard's report gives the class as one run gives it.
func TestMergeOfEveryShardIsTheWholeClass(t *testing.T) {
	whole := classResults()
	for _, n := range []int{1, 2, 3, 7} { // 7: some shards are empty
		merged, err := Merge(shards(t, whole, n, "(devel)"))
		require.NoError(t, err, "Merge of %d shards", n)
		assert.Nil(t, merged.Head, "the merge is a whole class, no shard")
		assert.Equal(t, "7", merged.Lab)
		var got, want bytes.Buffer
		require.NoError(t, WriteJSON(&got, merged.Results))
		require.NoError(t, WriteJSON(&want, whole))
		assert.Equal(t, want.String(), got.String(), "the %d shards merged are the class", n)
	}
}

func TestMergeRefusesWhatIsNotOneClass(t *testing.T) {
	whole := classResults()
	three := func() []SavedFile { return shards(t, whole, 3, "(devel)") }
	plain := func() SavedFile {
		var b bytes.Buffer
		require.NoError(t, WriteJSON(&b, whole))
		s, err := ReadSaved(&b)
		require.NoError(t, err)
		return SavedFile{Path: "class.json", Saved: s}
	}
	otherLab := three()
	otherLab[1].Saved.Head.Lab = "8"
	otherCourse := three()
	otherCourse[2].Saved.Head.Course = "v2.0.0"
	otherTests := three()
	otherTests[1].Saved.Head.Tests = "0123456789abcdef"
	otherClass := three()
	otherClass[2].Saved.Head.Class = ClassPrint([]string{"alice", "zed"})
	otherSplit := append(three()[:2], shards(t, whole, 4, "(devel)")[3])
	twice := append(three(), three()[0])
	twice[3].Path = "again.json"
	emptyTwice := append(shards(t, whole, 7, "(devel)"), shards(t, whole, 7, "(devel)")[0]) // 1/7 holds no one
	emptyTwice[7].Path = "again.json"
	for name, tc := range map[string]struct {
		files []SavedFile
		want  error
		says  string
	}{
		"a plain report":       {[]SavedFile{three()[0], plain()}, ErrNotShard, "class.json is a plain --json report"},
		"another lab":          {otherLab, ErrOtherLab, "shard-1.json is of lab 7, shard-2.json of lab 8"},
		"another course":       {otherCourse, ErrOtherCourse, "shard-1.json was graded by course (devel), shard-3.json by course v2.0.0"},
		"other tests":          {otherTests, ErrOtherCourse, "shard-1.json and shard-2.json were graded with different tests of lab 7"},
		"another run's class":  {otherClass, ErrOtherClass, "shard-1.json and shard-3.json are parts of runs given different submissions"},
		"another split":        {otherSplit, ErrOtherSplit, "shard-1.json is shard 1/3, shard-4.json shard 4/4"},
		"a shard twice":        {twice, ErrSubmissionTwice, `"bob" is in shard-1.json and in again.json`},
		"an empty shard twice": {emptyTwice, ErrShardTwice, "shard-1.json and again.json are both shard 1/7"},
		"a shard missing":      {three()[1:], ErrShardMissing, "no report of shard 1/3"},
		"two shards missing":   {three()[2:], ErrShardMissing, "no report of shard 1/3, 2/3"},
		"one report, no other": {nil, nil, "no report to merge"},
	} {
		_, err := Merge(tc.files)
		require.Error(t, err, name)
		if tc.want != nil {
			assert.ErrorIs(t, err, tc.want, name)
		}
		assert.ErrorContains(t, err, tc.says, name)
		assert.NotContains(t, err.Error(), "\n", "%s: one line", name)
	}
}
