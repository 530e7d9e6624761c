package class

import (
	"cmp"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/coursekit/course/grader/report"
)

// RunInfo is how a class was graded, as its reports record it: what the
// head of its page says. Reports that disagree (a class merged from runs
// with other settings) give every value they hold, each with how many
// reports hold it, the most common first.
type RunInfo struct {
	// First and Last are when the first and the last grading began; zero
	// when no report records it.
	First, Last time.Time
	// Versions are the course tool's versions ("unknown" for a report that
	// recorded none).
	Versions []Tally
	// Isolation is how runs were confined (report.Isolation.Name).
	Isolation []Tally
	// Race is whether the race detector was on: "on" or "off".
	Race []Tally
	// Flags are the flags of `course grade` that gave each report's
	// settings (report.Settings.Flags, joined by spaces).
	Flags []Tally
	// LatePolicies are the late policies applied ("none" for a report
	// graded without one), and Due the due dates (RFC 3339) of the reports
	// with one.
	LatePolicies, Due []Tally
	// Unrecorded counts the reports saved before settings were recorded:
	// their date, version and flags are not known.
	Unrecorded int
}

// Tally is one value and how many reports hold it.
type Tally struct {
	Value string
	Count int
}

// runInfo gathers how reports were graded.
func runInfo(reports []*report.Report) RunInfo {
	var info RunInfo
	versions, isolation, race, flags, policies, due := tallies(), tallies(), tallies(), tallies(), tallies(), tallies()
	for _, r := range reports {
		isolation.add(r.Isolation.Name)
		race.add(map[bool]string{true: "on", false: "off"}[r.Race])
		if r.Late != nil {
			policies.add(r.Late.Policy)
			due.add(r.Late.Due.Format(time.RFC3339))
		} else {
			policies.add("none")
		}
		s := r.Settings
		if s == nil {
			info.Unrecorded++
			continue
		}
		versions.add(cmp.Or(s.Version, "unknown"))
		flags.add(strings.Join(s.Flags(), " "))
		if !s.Graded.IsZero() {
			if info.First.IsZero() || s.Graded.Before(info.First) {
				info.First = s.Graded
			}
			if s.Graded.After(info.Last) {
				info.Last = s.Graded
			}
		}
	}
	info.Versions, info.Isolation, info.Race, info.Flags = versions.list(), isolation.list(), race.list(), flags.list()
	info.LatePolicies, info.Due = policies.list(), due.list()
	return info
}

type tally map[string]int

func tallies() tally { return tally{} }

func (t tally) add(v string) { t[v]++ }

// list is the values, the most common first, then in their order.
func (t tally) list() []Tally {
	var out []Tally
	for _, v := range slices.Sorted(maps.Keys(t)) {
		out = append(out, Tally{Value: v, Count: t[v]})
	}
	slices.SortStableFunc(out, func(a, b Tally) int { return cmp.Compare(b.Count, a.Count) })
	return out
}
