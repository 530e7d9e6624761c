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
	// seconds; 0 when it was on time (grace included).
	Late     int64   `json:"late_seconds"`
	Penalty  float64 `json:"penalty"`   // the share of the score taken: 0.2 for 20%
	RawScore float64 `json:"raw_score"` // the score before the penalty
}

// Describe says in one line what the policy did: "" when nothing.
func (l *Late) Describe() string {
	if l == nil || l.Late == 0 {
		return ""
	}
	return fmt.Sprintf("late by %s: %s%% taken (%s, due %s), raw score %s",
		(time.Duration(l.Late) * time.Second).String(), FormatPoints(l.Penalty*100), l.Policy,
		l.Due.Format(time.RFC3339), FormatPoints(l.RawScore))
}
