package class

import (
	"errors"
	"fmt"
	"strings"
)

// SavedFile is a saved report and the file it was read from, which
// Merge's errors name.
type SavedFile struct {
	Path  string
	Saved *Saved
}

// Why Merge refuses: each of its errors wraps one of these.
var (
	ErrNotShard        = errors.New("not a shard's report")
	ErrOtherLab        = errors.New("reports of different labs")
	ErrOtherCourse     = errors.New("reports of different versions of the course")
	ErrOtherSplit      = errors.New("shards of different splits")
	ErrOtherClass      = errors.New("shards of different runs")
	ErrShardTwice      = errors.New("a shard given twice")
	ErrShardMissing    = errors.New("a shard is missing")
	ErrSubmissionTwice = errors.New("a submission in two reports")
)

// Merge puts the saved reports of every shard of one class run together,
// as if the class had been graded in one run. It refuses, naming the
// files at fault: a report that is not a shard's (a plain --json report
// does not say which course graded it), shards of different labs, course
// versions, tests, numbers of parts or classes (the submissions given), a shard given twice or missing, and a
// submission in two reports.
func Merge(files []SavedFile) (*Saved, error) {
	if len(files) == 0 {
		return nil, errors.New("no report to merge")
	}
	for _, f := range files {
		if f.Saved.Head == nil {
			return nil, fmt.Errorf("%w: %s is a plain --json report, which does not say which version of the course graded it; grade with --shard K/N --json (--shard 1/1 for a whole class) to make reports that merge", ErrNotShard, f.Path)
		}
	}
	first, h := files[0], files[0].Saved.Head
	byIndex := map[int]string{}
	where := map[string]string{} // submission → file
	var results []Result
	for _, f := range files {
		fh := f.Saved.Head
		switch {
		case fh.Lab != h.Lab:
			return nil, fmt.Errorf("%w: %s is of lab %s, %s of lab %s", ErrOtherLab, first.Path, visible(h.Lab), f.Path, visible(fh.Lab))
		case fh.Course != h.Course:
			return nil, fmt.Errorf("%w: %s was graded by course %s, %s by course %s; grade every shard with one build of the course", ErrOtherCourse, first.Path, visible(h.Course), f.Path, visible(fh.Course))
		case fh.Tests != h.Tests:
			return nil, fmt.Errorf("%w: %s and %s were graded with different tests of lab %s; grade every shard with one build of the course", ErrOtherCourse, first.Path, f.Path, visible(h.Lab))
		case fh.Shard.Count != h.Shard.Count:
			return nil, fmt.Errorf("%w: %s is shard %s, %s shard %s; merge the shards of one run", ErrOtherSplit, first.Path, h.Shard, f.Path, fh.Shard)
		case fh.Class != h.Class:
			return nil, fmt.Errorf("%w: %s and %s are parts of runs given different submissions; give every shard the same submissions, and merge the shards of one run", ErrOtherClass, first.Path, f.Path)
		}
		for _, name := range fh.Submissions {
			if other, ok := where[name]; ok {
				return nil, fmt.Errorf("%w: %q is in %s and in %s", ErrSubmissionTwice, visible(name), other, f.Path)
			}
			where[name] = f.Path
		}
		if other, ok := byIndex[fh.Shard.Index]; ok {
			return nil, fmt.Errorf("%w: %s and %s are both shard %s", ErrShardTwice, other, f.Path, fh.Shard)
		}
		byIndex[fh.Shard.Index] = f.Path
		results = append(results, f.Saved.Results...)
	}
	var missing []string
	for k := 1; k <= h.Shard.Count; k++ {
		if _, ok := byIndex[k]; !ok {
			missing = append(missing, Shard{Index: k, Count: h.Shard.Count}.String())
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("%w: no report of shard %s; merge every shard of the run, or read one alone with a single --from", ErrShardMissing, strings.Join(missing, ", "))
	}
	merged := savedOf(nil, results)
	merged.Lab = h.Lab
	return merged, nil
}
