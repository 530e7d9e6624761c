package late

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/coursekit/course/grader/report"
	"golang.org/x/text/unicode/norm"
)

// GradescopeMetadata is where Gradescope puts a submission's metadata.
const GradescopeMetadata = "/autograder/submission_metadata.json"

// Rule is a late policy, the due date, and when each submission was handed
// in.
type Rule struct {
	Policy Policy
	Due    time.Time
	// SubmittedAt is when the submission of that name was handed in.
	SubmittedAt func(name string) (time.Time, error)
}

// Errors of NewRule that say what is missing.
var (
	ErrNeedsPolicy = errors.New("a due date and submission times need a late policy")
	ErrNeedsTimes  = errors.New("a late policy needs the times submissions were handed in")
	ErrNeedsDue    = errors.New("a late policy needs a due date")
	ErrBadDue      = errors.New("due date")
)

// NewRule makes the rule of a policy ("10%/day, 0 after 3 days"), a due
// date (RFC 3339) and a source of submission times: a CSV file (ReadTimes),
// or "gradescope" or "gradescope=PATH" (GradescopeTimes, which also gives
// the due date when due is empty). No policy, due date or times is no rule
// (nil); a due date or times without a policy, or a policy without them,
// is an error.
func NewRule(policy, due, times string) (*Rule, error) {
	if policy == "" {
		if due != "" || times != "" {
			return nil, ErrNeedsPolicy
		}
		return nil, nil
	}
	p, err := Parse(policy)
	if err != nil {
		return nil, err
	}
	rule := &Rule{Policy: p}
	if due != "" {
		if rule.Due, err = time.Parse(time.RFC3339, due); err != nil {
			return nil, fmt.Errorf("%w %q: want an RFC 3339 time such as 2026-12-01T23:59:00Z or 2026-12-01T23:59:00+08:00", ErrBadDue, due)
		}
	}
	switch {
	case times == "":
		return nil, ErrNeedsTimes
	case times == "gradescope" || strings.HasPrefix(times, "gradescope="):
		path := strings.TrimPrefix(strings.TrimPrefix(times, "gradescope"), "=")
		if path == "" {
			path = GradescopeMetadata
		}
		gsDue, submitted, err := GradescopeTimes(path)
		if err != nil {
			return nil, &SourceError{Source: times, Gradescope: true, Err: err}
		}
		if due == "" {
			rule.Due = gsDue // the assignment's, or the student's extension
		}
		rule.SubmittedAt = func(string) (time.Time, error) { return submitted, nil }
		return rule, nil
	}
	if rule.SubmittedAt, err = TimesFromFile(times); err != nil {
		return nil, &SourceError{Source: times, Err: err}
	}
	if due == "" {
		return nil, ErrNeedsDue
	}
	return rule, nil
}

// SourceError is a source of submission times that cannot be read.
type SourceError struct {
	Source     string // as given: a file, or gradescope[=PATH]
	Gradescope bool   // Gradescope's metadata, not a CSV file
	Err        error
}

func (e *SourceError) Error() string { return e.Err.Error() }

func (e *SourceError) Unwrap() error { return e.Err }

// Apply takes the penalty from the score of rep, the report of the
// submission named name. An error means its time cannot be told: without
// it the grade could be wrong either way, so it must not be graded.
func (r *Rule) Apply(rep *report.Report, name string) error {
	at, err := r.SubmittedAt(name)
	if err != nil {
		return fmt.Errorf("cannot tell when it was handed in, so not whether it is late: %w", err)
	}
	r.Policy.Apply(rep, r.Due, at)
	return nil
}

// TimesFromFile reads a CSV of submission times (see ReadTimes) and
// returns the time of a submission by its name.
func TimesFromFile(path string) (func(name string) (time.Time, error), error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	times, err := ReadTimes(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return func(name string) (time.Time, error) {
		t, ok := times[norm.NFC.String(name)] // "Zoë" composed or not is one student
		if !ok {
			return time.Time{}, fmt.Errorf("%s has no row for %s", path, name)
		}
		return t, nil
	}, nil
}
