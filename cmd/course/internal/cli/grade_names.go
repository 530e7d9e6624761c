package cli

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	classpkg "github.com/coursekit/course/grader/class"
	"github.com/coursekit/course/grader/lab"
	"github.com/coursekit/course/grader/late"
	"github.com/coursekit/course/grader/safetext"
	"github.com/coursekit/course/grader/submission"
	"golang.org/x/text/unicode/norm"
)

// errTimesGit refuses --times git, which is no more: a commit's time is
// the student's to write, and reading a submission's .git outside the
// sandbox let a crafted repository hang or swell the grader.
var errTimesGit = errors.New("--times git is no more: a commit's time is whatever the student's machine wrote; give the times a platform recorded, a CSV file of submission,submitted_at (an LMS export, GitHub or GitLab push events) or --times gradescope")

// newLateRule reads --late, --due and --times; nil without --late.
func newLateRule(opts *GradeOptions) (*late.Rule, error) {
	rule, err := late.NewRule(opts.Late, opts.Due, opts.Times)
	switch {
	case errors.Is(err, late.ErrNeedsPolicy):
		return nil, errors.New("--due and --times say when work was due and handed in: they need --late POLICY")
	case errors.Is(err, late.ErrNeedsTimes):
		return nil, errors.New("--late needs --times: a CSV file of submission,submitted_at (an LMS export, a platform's push events) or gradescope (Gradescope's submission metadata)")
	case errors.Is(err, late.ErrNeedsDue):
		return nil, errors.New("--late needs --due, the due date as an RFC 3339 time such as 2026-12-01T23:59:00Z (only --times gradescope reads it from Gradescope)")
	case errors.Is(err, late.ErrPolicy):
		return nil, fmt.Errorf("--late: %w", err)
	case errors.Is(err, late.ErrBadDue):
		return nil, fmt.Errorf("--due %q: want an RFC 3339 time such as 2026-12-01T23:59:00Z or 2026-12-01T23:59:00+08:00", opts.Due)
	}
	var se *late.SourceError
	switch {
	case errors.As(err, &se) && se.Gradescope:
		return nil, fmt.Errorf("--times %s: %w", se.Source, se.Err)
	case err != nil:
		return nil, fmt.Errorf("--times: %w", err)
	}
	return rule, nil
}

// cannotGrade is exit status 2 for trouble that is not the command line's:
// no go command, an interrupted run, a submission the grader could not grade.
func cannotGrade(err error) *ExitError { return &ExitError{Code: ExitUsage, Err: err, NoHelp: true} }

// uniquePaths drops a submission given twice (by the same clean path).
func uniquePaths(paths []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, p := range paths {
		key := filepath.Clean(p)
		if abs, err := filepath.Abs(p); err == nil {
			key = abs
		}
		if !seen[key] {
			seen[key] = true
			out = append(out, p)
		}
	}
	return out
}

// classNames names each submission of paths as the class's reports name
// it, uniquely: its submission.Name, or, for two that share one (alice/
// and alice.zip), its path. The name of a path depends on the others
// given but never on their order, so that every shard of a class (--shard)
// names a submission as the whole run would.
func classNames(paths []string) []string {
	// Names are counted as reports show them (escaped, one line, composed:
	// "Zoë" from a macOS folder is "Zoë"): two names that read the same
	// there are one row to a reader. Those are
	// named by their paths, and paths that still read the same get a
	// number, in the order of the paths.
	names := make([]string, len(paths))
	count := map[string]int{}
	for i, p := range paths {
		names[i] = submission.Name(p)
		count[readAs(names[i])]++
	}
	for i, n := range names {
		if count[readAs(n)] > 1 {
			names[i] = paths[i]
		}
	}
	order := make([]int, len(paths))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return strings.Compare(paths[a], paths[b]) })
	seen := map[string]int{}
	for _, i := range order {
		shown := readAs(names[i])
		if seen[shown]++; seen[shown] > 1 {
			names[i] = fmt.Sprintf("%s #%d", names[i], seen[shown])
		}
	}
	return names
}

// readAs is a name as a reader tells it from others: as reports show it,
// in Unicode's composed form.
func readAs(name string) string { return norm.NFC.String(safetext.Line(name)) }

// nameSubmissions names subs and the unreadable ones as classNames names
// their paths.
func nameSubmissions(subs []*submission.Submission, unreadable []classpkg.Result) {
	var paths []string
	for _, s := range subs {
		paths = append(paths, s.Path)
	}
	for _, r := range unreadable {
		paths = append(paths, r.Path)
	}
	names := classNames(paths)
	for i, s := range subs {
		s.Name = names[i]
	}
	for i := range unreadable {
		unreadable[i].Name = names[len(subs)+i]
	}
}

// exerciseIDs checks the --lab ids and returns them in the lab's order,
// or every exercise's id when none is given (bonus exercises only with
// bonus set).
func exerciseIDs(l *lab.Lab, want []string, bonus bool) ([]string, error) {
	for _, id := range want {
		e, err := l.Exercise(id)
		if err != nil {
			return nil, fmt.Errorf("--lab: %w", err)
		}
		if e.Bonus && !bonus {
			return nil, fmt.Errorf("--lab %s: a bonus exercise, graded only with --bonus", id)
		}
	}
	var ids []string
	for _, e := range l.Exercises {
		if e.Bonus && !bonus {
			continue
		}
		if len(want) == 0 || slices.Contains(want, e.ID) {
			ids = append(ids, e.ID)
		}
	}
	return ids, nil
}
