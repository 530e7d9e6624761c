package report

import (
	"fmt"
	"time"
)

// Late is what a late policy did to a report's score.
type Late struct {
	Due       time.Time `json:"due"`
	Submitted time.Time `json:"submitted"`
	Policy    string    `json:"policy"`
	// Late is how long after the due date the submission came, in whole
	// seconds; 0 when it was on time (grace included: see InGrace).
	Late     int64   `json:"late_seconds"`
	Penalty  float64 `json:"penalty"`   // the share of the score taken: 0.2 for 20%
	RawScore float64 `json:"raw_score"` // the score before the penalty
}

// InGrace reports how late a submission the grace period forgave came:
// after the due date, yet not late by the policy (no penalty). It reads
// the times themselves, so a report saved before this was asked works too.
func (l *Late) InGrace() (time.Duration, bool) {
	if l == nil || l.Late != 0 || !l.Submitted.After(l.Due) {
		return 0, false
	}
	return l.Submitted.Sub(l.Due).Round(time.Second), true
}

// Describe says in one line what the policy did: "" when the submission
// was on time.
func (l *Late) Describe() string {
	if d, ok := l.InGrace(); ok {
		return fmt.Sprintf("late by %s, within the grace period: nothing taken (%s, due %s)",
			d, l.Policy, l.Due.Format(time.RFC3339))
	}
	if l == nil || l.Late == 0 {
		return ""
	}
	return fmt.Sprintf("late by %s: %s%% taken (%s, due %s), raw score %s",
		(time.Duration(l.Late) * time.Second).String(), FormatPoints(l.Penalty*100), l.Policy,
		l.Due.Format(time.RFC3339), FormatPoints(l.RawScore))
}

// Note says it in a few words, for a cell of a table: "late 26h0m0s:
// -20%", "late 4m0s: in grace, nothing taken", or "" when on time.
func (l *Late) Note() string {
	if d, ok := l.InGrace(); ok {
		return fmt.Sprintf("late %s: in grace, nothing taken", d)
	}
	if l == nil || l.Late == 0 {
		return ""
	}
	d := time.Duration(l.Late) * time.Second
	if l.Penalty == 0 {
		return fmt.Sprintf("late %s: nothing taken", d) // a policy of a cutoff alone, before it
	}
	return fmt.Sprintf("late %s: -%s%%", d, FormatPoints(l.Penalty*100))
}
