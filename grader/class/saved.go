package class

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/coursekit/course/grader/format"
)

// ShardHead is what the saved report of a shard says besides its reports:
// what Merge checks before it puts the parts of a class together.
type ShardHead struct {
	// Course is the version of the course tool that graded, which embeds
	// the labs and their tests: parts graded by two versions are not one
	// class.
	Course string `json:"course"`
	// Tests is a fingerprint of the lab's grading files (tests, hidden
	// tests, given files): a tool built without its version stamp
	// ("(devel)") is told apart by what it grades with.
	Tests string `json:"tests,omitempty"`
	Lab   string `json:"lab"`
	Shard Shard  `json:"shard"`
	// Class is a fingerprint of the names of every submission the run was
	// given, before it was split: the parts of one run share it, a part of
	// another run (another class, or the class after a change) does not.
	Class string `json:"class,omitempty"`
	// Submissions names every submission of the part, graded or not, by
	// name: a part whose run was interrupted lacks some of their reports.
	Submissions []string `json:"submissions"`
}

// shardJSON is the saved report of a shard, as `course grade --shard K/N
// --json` writes it: the head, then the entries of the class array.
type shardJSON struct {
	ShardHead
	Reports []any `json:"reports"`
}

// WriteShardJSON writes the saved report of a shard: head, and the
// results as WriteJSON writes a class. A part with no submission is an
// empty list, still a report Merge takes.
func WriteShardJSON(w io.Writer, head ShardHead, results []Result) error {
	if head.Submissions == nil {
		head.Submissions = []string{}
	}
	return format.WriteJSON(w, shardJSON{ShardHead: head, Reports: jsonEntries(results)})
}

// Saved is a class's saved report as ReadSaved reads it.
type Saved struct {
	// Head is the head of a shard's report; nil for a plain --json
	// report (a class's array, or one report).
	Head *ShardHead
	// Lab is the chapter the reports are of ("" when no entry says it: a
	// plain report in which nothing was graded).
	Lab string
	// Results are the submissions by name: each graded one's report, or
	// why it could not be graded (Err), with its path as the run gave it.
	Results []Result
}

// ReadSavedFile reads the saved report at path, as ReadSaved does.
func ReadSavedFile(path string) (*Saved, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadSaved(f)
}

// ErrIncompleteShard is the error of a shard's report that lacks the
// report of a submission it lists: its run was interrupted.
var ErrIncompleteShard = errors.New("the shard's run did not finish")

// ReadSaved reads what `course grade --json` wrote: a shard's report
// (--shard), or what ReadJSON reads. A shard's report must name its
// course, lab and shard, hold exactly the submissions it lists, each
// one of its shard, and only reports of its lab; anything else is a
// *JSONError.
func ReadSaved(r io.Reader) (*Saved, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, &JSONError{Entry: -1, Err: err}
	}
	if trimmed := bytes.TrimSpace(data); len(trimmed) > 0 && trimmed[0] == '{' {
		var keys map[string]json.RawMessage
		if json.Unmarshal(trimmed, &keys) == nil {
			if _, ok := keys["shard"]; ok {
				return readShard(trimmed)
			}
		}
	}
	entries, err := splitEntries(data)
	if err != nil {
		return nil, err
	}
	results, err := readEntries(entries)
	if err != nil {
		return nil, err
	}
	return savedOf(nil, results), nil
}

// savedOf is the Saved of results, by name.
func savedOf(head *ShardHead, results []Result) *Saved {
	s := &Saved{Head: head, Results: results}
	Sort(s.Results)
	if head != nil {
		s.Lab = head.Lab
	}
	for _, r := range results {
		if r.Report != nil && s.Lab == "" {
			s.Lab = r.Report.Lab // readEntries has made sure there is one
		}
	}
	return s
}

func readShard(data []byte) (*Saved, error) {
	whole := func(format string, args ...any) error {
		return &JSONError{Entry: -1, Err: fmt.Errorf(format, args...)}
	}
	var in struct {
		ShardHead
		Reports []json.RawMessage `json:"reports"`
	}
	if err := decodeOne(data, &in, true); err != nil {
		return nil, &JSONError{Entry: -1, Err: err}
	}
	head := in.ShardHead
	switch {
	case head.Course == "":
		return nil, whole(`a shard's report without "course": which version of the course graded it?`)
	case head.Lab == "":
		return nil, whole(`a shard's report without "lab"`)
	case !head.Shard.Valid():
		return nil, whole("shard %s: %w", head.Shard, ErrBadShard)
	case in.Reports == nil || head.Submissions == nil:
		return nil, whole(`a shard's report without "submissions" or "reports"`)
	}
	listed := map[string]bool{}
	for _, name := range head.Submissions {
		switch {
		case listed[name]:
			return nil, whole("shard %s lists %q twice", head.Shard, visible(name))
		case !head.Shard.Has(name):
			return nil, whole("shard %s lists %q, which is not of that shard", head.Shard, visible(name))
		}
		listed[name] = true
	}
	results, err := readEntries(in.Reports)
	if err != nil {
		return nil, err
	}
	held := map[string]bool{}
	for i, r := range results {
		if r.Report != nil && r.Report.Lab != head.Lab {
			return nil, &JSONError{Entry: i, Submission: r.Name, Err: fmt.Errorf("a report of lab %q in a shard of lab %q", visible(r.Report.Lab), visible(head.Lab))}
		}
		held[r.Name] = true
	}
	for name := range held {
		if !listed[name] {
			return nil, whole("shard %s holds a report of %q, which it does not list", head.Shard, visible(name))
		}
	}
	for _, name := range head.Submissions {
		if !held[name] {
			return nil, whole("shard %s lists %q but holds no report of it: %w", head.Shard, visible(name), ErrIncompleteShard)
		}
	}
	slices.Sort(head.Submissions)
	return savedOf(&head, results), nil
}
