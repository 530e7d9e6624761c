// Package late is late work: a late policy (how much a late submission
// loses), where the time a submission was handed in comes from (a CSV an
// LMS exports, Gradescope's submission metadata: never the submission
// itself, whose times its author wrote), and the rule that joins them and
// takes the penalty from a report.
package late

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/coursekit/course/grader/report"
)

// Policy is how a late submission loses points: a share of its score
// for every started day (or hour) after the due date, after a grace
// period, and everything after a cutoff. The zero policy takes nothing.
type Policy struct {
	Per    float64       // the share of the score lost a started Unit (0.1 for 10%)
	Unit   time.Duration // 24h or 1h
	Cutoff time.Duration // later than this after the due date scores 0; 0 means no cutoff
	Grace  time.Duration // this late is on time
	text   string
}

// ErrPolicy is what every policy that cannot be read wraps.
var ErrPolicy = errors.New("late policy")

// Parse reads a policy such as "10%/day, 0 after 3 days": clauses
// separated by commas, each one of
//
//	N%/day, N%/hour     lose N% of the score for every started day or hour late
//	0 after N days      (or hours) score 0 when later than that
//	grace D             a Go duration ("15m") late that still counts as on time
//
// Anything else is an error naming the clause: a policy that cannot be read
// never grades as if there were none.
func Parse(s string) (Policy, error) {
	p := Policy{text: strings.TrimSpace(s)}
	bad := func(clause, why string) (Policy, error) {
		return Policy{}, fmt.Errorf("%w %q: %q %s", ErrPolicy, s, clause, why)
	}
	seen := map[string]bool{}
	for _, clause := range strings.Split(s, ",") {
		c := strings.TrimSpace(clause)
		switch {
		case c == "":
			return bad(clause, "is empty")
		case strings.Contains(c, "%/"):
			num, unit, _ := strings.Cut(c, "%/")
			pct, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
			if err != nil || pct <= 0 || pct > 100 || math.IsNaN(pct) {
				return bad(c, "needs a percentage above 0 and at most 100")
			}
			switch strings.TrimSpace(unit) {
			case "day":
				p.Unit = 24 * time.Hour
			case "hour":
				p.Unit = time.Hour
			default:
				return bad(c, "needs /day or /hour")
			}
			p.Per = pct / 100
			if seen["rate"] {
				return bad(c, "is a second rate")
			}
			seen["rate"] = true
		case strings.HasPrefix(c, "0 after "):
			f := strings.Fields(strings.TrimPrefix(c, "0 after "))
			if len(f) != 2 {
				return bad(c, `should read "0 after N days" or "0 after N hours"`)
			}
			n, err := strconv.Atoi(f[0])
			if err != nil || n < 0 {
				return bad(c, "needs a whole number of days or hours")
			}
			switch f[1] {
			case "day", "days":
				p.Cutoff = time.Duration(n) * 24 * time.Hour
			case "hour", "hours":
				p.Cutoff = time.Duration(n) * time.Hour
			default:
				return bad(c, "needs days or hours")
			}
			if seen["cutoff"] {
				return bad(c, "is a second cutoff")
			}
			seen["cutoff"] = true
		case strings.HasPrefix(c, "grace "):
			d, err := time.ParseDuration(strings.TrimSpace(strings.TrimPrefix(c, "grace ")))
			if err != nil || d < 0 {
				return bad(c, `needs a duration such as "15m"`)
			}
			p.Grace = d
		default:
			return bad(c, `is none of "N%/day", "N%/hour", "0 after N days", "grace D"`)
		}
	}
	if !seen["rate"] && !seen["cutoff"] {
		return bad(s, "takes nothing: give a rate, a cutoff or both")
	}
	return p, nil
}

// String returns the policy as it was written.
func (p Policy) String() string { return p.text }

// Apply takes the penalty of a submission made at submitted, due at due,
// from r's score, and records it in r.Late.
func (p Policy) Apply(r *report.Report, due, submitted time.Time) {
	l := &report.Late{Due: due, Submitted: submitted, Policy: p.text, RawScore: r.Score}
	late := submitted.Sub(due)
	if late > p.Grace {
		l.Late = int64(late.Round(time.Second) / time.Second)
		switch {
		case p.Cutoff > 0 && late > p.Cutoff, p.Cutoff == 0 && p.Per == 0:
			l.Penalty = 1
		case p.Per > 0:
			units := math.Ceil(float64(late) / float64(p.Unit))
			l.Penalty = math.Min(1, report.Round2(p.Per*units*100)/100)
		}
	}
	r.Late = l
	r.Score = report.Round2(r.Score * (1 - l.Penalty))
}

// GradescopeTimes reads the due date and the submission time from
// Gradescope's /autograder/submission_metadata.json. The due date is the
// assignment's, or the latest one of a user's own (an extension), when
// Gradescope gives users one. A file without a readable submission time
// or due date is an error: it cannot say whether the submission was late.
func GradescopeTimes(path string) (due, submitted time.Time, err error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return time.Time{}, time.Time{}, fmt.Errorf("submission metadata: %w", err)
	}
	var meta struct {
		CreatedAt  *string `json:"created_at"`
		Assignment struct {
			DueDate *string `json:"due_date"`
		} `json:"assignment"`
		Users []struct {
			Assignment *struct {
				DueDate *string `json:"due_date"`
			} `json:"assignment"`
		} `json:"users"`
	}
	if err := json.Unmarshal(data, &meta); err != nil {
		return time.Time{}, time.Time{}, fmt.Errorf("submission metadata %s: %w", path, err)
	}
	parse := func(field string, v *string) (time.Time, error) {
		if v == nil {
			return time.Time{}, fmt.Errorf("submission metadata %s: no %s", path, field)
		}
		t, err := time.Parse(time.RFC3339Nano, *v)
		if err != nil {
			return time.Time{}, fmt.Errorf("submission metadata %s: %s %q is not an RFC 3339 time", path, field, *v)
		}
		return t, nil
	}
	if submitted, err = parse("created_at", meta.CreatedAt); err != nil {
		return time.Time{}, time.Time{}, err
	}
	if due, err = parse("assignment.due_date", meta.Assignment.DueDate); err != nil {
		return time.Time{}, time.Time{}, err
	}
	for i, u := range meta.Users {
		if u.Assignment == nil || u.Assignment.DueDate == nil {
			continue
		}
		own, err := parse(fmt.Sprintf("users[%d].assignment.due_date", i), u.Assignment.DueDate)
		if err != nil {
			return time.Time{}, time.Time{}, err
		}
		if own.After(due) {
			due = own
		}
	}
	return due, submitted, nil
}
