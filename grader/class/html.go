package class

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"net/url"
	"slices"
	"strings"

	"github.com/coursekit/course/grader/lab"
	"github.com/coursekit/course/grader/report"
)

// DefaultRulesURL is where the page links the rule table when
// Options.RulesURL is empty: the lab's table in the course's docs, relative
// to the course's root (where `course grade` usually runs).
const DefaultRulesURL = "docs/lab{lab}-rules.md"

// Options are the choices of WriteHTML.
type Options struct {
	// RulesURL is the address of the lab's rule table, which the page
	// links every rule to: a path relative to where the page will be
	// opened, or an https address (a rendered copy in the course's
	// repository). "{lab}" in it becomes the lab's chapter. "" is
	// DefaultRulesURL.
	RulesURL string
	// Title is the page's title; "" makes "Lab 10: class report".
	Title string
	// Lang is the language of the hints: "en" (the default) or "zh"; a
	// hint without a Chinese text is shown in English.
	Lang string
}

//go:embed page.html
var pageSource string

var pageTemplate = template.Must(template.New("page").Funcs(template.FuncMap{
	"points": report.FormatPoints,
}).Parse(pageSource))

// WriteHTML writes s as one self-contained HTML page: no script, no
// external resource, charts as inline SVG, a stylesheet for print. Every
// text that comes from a submission (names, paths, reasons, test names) is
// escaped, and its control and bidirectional characters shown as escapes.
func WriteHTML(w io.Writer, s *Summary, opts Options) error {
	p, err := newPage(s, opts)
	if err != nil {
		return err
	}
	var b strings.Builder
	if err := pageTemplate.Execute(&b, p); err != nil {
		return fmt.Errorf("class report: %w", err)
	}
	_, err = io.WriteString(w, b.String())
	return err
}

// page is what the template shows: the summary laid out, every text from
// a submission already made visible.
type page struct {
	Title, Lab, LabTitle string
	RulesURL             string
	S                    *Summary
	Run                  []runItem // the run's header
	Whole                *Whole    // the whole table after a regrade
	NotGraded            []studentRow
	Hist                 histChart
	Pass                 passChart
	Exercises            []exerciseRow
	FailedTests          []testRow
	BrokenRules          []ruleRow
	Sections             []section
	Slowest              []Timing
	TimedOut             []TimeOut
	Students             []studentRow
	Details              []studentDetail
	HasLate              bool // some student has a late policy's record

	lang        string               // of the hints: "zh", or English
	haveSection map[string]bool      // exercise id -> the page has a section of its rules and hints
	ruleIndex   map[string]RuleStats // rule id -> its statistics
}

type exerciseRow struct {
	ID, Name, Anchor string
	HasSection       bool // the page has a section of its rules and hints
	Bonus            bool
	MaxPoints        int
	Passed, Graded   int
	Percent          int
	MeanPoints       float64
}

type link struct{ Text, Href, Title string }

type testRow struct {
	Name, Exercise  string
	Hidden          bool
	Failed, Ran     int
	NotRun, Percent int
	Rules           []link
}

type ruleRow struct {
	ID, Anchor, Text, Href string
	Broken, Checked        int
	Percent                int
	Hints                  []string
}

type section struct {
	ID, Name, Anchor string
	Rules            []ruleRow
	OtherHints       []string
}

func newPage(s *Summary, opts Options) (*page, error) {
	if s == nil {
		return nil, fmt.Errorf("class report: no summary")
	}
	p := &page{S: s, Lab: visible(s.Lab), LabTitle: s.Title, lang: opts.Lang}
	p.Title = opts.Title
	if p.Title == "" {
		p.Title = "Lab " + p.Lab + ": class report"
	}
	if err := p.setRulesURL(opts.RulesURL, s.Lab); err != nil {
		return nil, err
	}
	p.exercises(s)
	p.failedTests(s)
	p.brokenRules(s)
	for _, o := range s.TimedOut {
		p.TimedOut = append(p.TimedOut, TimeOut{Submission: visible(o.Submission), Exercise: visible(o.Exercise), Reason: visible(o.Reason)})
	}
	for _, t := range s.Slowest {
		p.Slowest = append(p.Slowest, Timing{Submission: visible(t.Submission), Seconds: t.Seconds})
	}
	p.students(s)
	p.Run = runHeader(s)
	if s.Whole != nil {
		whole := *s.Whole
		whole.File = visible(whole.File)
		p.Whole = &whole
	}
	p.Hist = newHistChart(s)
	p.Pass = newPassChart(s)
	return p, nil
}

// setRulesURL is where the page links each rule: rulesURL, or the
// default, with {lab} filled in; a relative path or an http(s) address.
func (p *page) setRulesURL(rulesURL, labID string) error {
	p.RulesURL = rulesURL
	if p.RulesURL == "" {
		p.RulesURL = DefaultRulesURL
	}
	p.RulesURL = strings.ReplaceAll(p.RulesURL, "{lab}", url.PathEscape(labID))
	if u, err := url.Parse(p.RulesURL); err != nil {
		return fmt.Errorf("class report: RulesURL: %w", err)
	} else if u.Scheme != "" && u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf("class report: RulesURL %q: only a relative path or an http(s) address", rulesURL)
	}
	return nil
}

// hint is a hint's text in the page's language.
func (p *page) hint(h lab.Hint) string {
	if p.lang == "zh" && h.ZH != "" {
		return h.ZH
	}
	return h.EN
}

// rule is the row of one rule, linked to the rule table.
func (p *page) rule(r RuleStats) ruleRow {
	row := ruleRow{ID: r.ID, Anchor: "rule-" + r.ID, Text: r.Text, Broken: r.Broken, Checked: r.Checked, Percent: r.Percent(),
		Href: p.RulesURL}
	if !strings.Contains(p.RulesURL, "#") {
		// A text fragment: a browser that knows them scrolls to the
		// rule's row of the table; others open the table's top.
		row.Href += "#:~:text=" + url.QueryEscape(r.ID)
	}
	for _, h := range r.Hints {
		row.Hints = append(row.Hints, p.hint(h))
	}
	return row
}

// exercises fills the exercise table and a section per exercise with rules
// or hints.
func (p *page) exercises(s *Summary) {
	p.haveSection = map[string]bool{}
	p.ruleIndex = map[string]RuleStats{}
	for _, r := range s.Rules {
		p.haveSection[r.Exercise] = true
		p.ruleIndex[r.ID] = r
	}
	for _, e := range s.Exercises {
		if len(s.Hints[e.ID]) > 0 {
			p.haveSection[e.ID] = true
		}
		p.Exercises = append(p.Exercises, exerciseRow{ID: visible(e.ID), Name: visible(e.Name), Anchor: "ex-" + visible(e.ID),
			HasSection: p.haveSection[e.ID], Bonus: e.Bonus, MaxPoints: e.MaxPoints, Passed: e.Passed, Graded: e.Graded,
			Percent: e.Percent(), MeanPoints: e.MeanPoints})
	}
	for _, e := range s.Exercises {
		if !p.haveSection[e.ID] {
			continue
		}
		sec := section{ID: visible(e.ID), Name: visible(e.Name), Anchor: "ex-" + visible(e.ID)}
		named := map[string]bool{}
		for _, r := range s.Rules {
			if r.Exercise == e.ID {
				sec.Rules = append(sec.Rules, p.rule(r))
				for _, h := range r.Hints {
					named[h.EN] = true
				}
			}
		}
		for _, h := range s.Hints[e.ID] {
			if !named[h.EN] {
				sec.OtherHints = append(sec.OtherHints, p.hint(h))
			}
		}
		p.Sections = append(p.Sections, sec)
	}
}

// failedTests fills the table of tests that failed, each linked to the
// rules it checks (or, when those cannot be told, to its exercise's).
func (p *page) failedTests(s *Summary) {
	for _, t := range s.Tests {
		if t.Failed == 0 {
			continue
		}
		row := testRow{Name: visible(t.Name), Exercise: visible(t.Exercise), Hidden: t.Hidden, Failed: t.Failed, Ran: t.Ran(), NotRun: t.NotRun, Percent: t.Percent()}
		for _, id := range t.Rules {
			r, ok := p.ruleIndex[id]
			if !ok {
				continue
			}
			row.Rules = append(row.Rules, link{Text: "rule " + id, Href: "#rule-" + id, Title: r.Text})
		}
		if len(row.Rules) == 0 {
			if p.haveSection[t.Exercise] {
				row.Rules = []link{{Text: "rules of " + visible(t.Exercise), Href: "#ex-" + visible(t.Exercise), Title: "the rules of exercise " + visible(t.Exercise)}}
			} else {
				row.Rules = []link{{Text: "rule table", Href: p.RulesURL, Title: "the lab's rule table"}}
			}
		}
		p.FailedTests = append(p.FailedTests, row)
	}
}

// brokenRules fills the list of the rules broken most.
func (p *page) brokenRules(s *Summary) {
	broken := slices.Clone(s.Rules)
	slices.SortStableFunc(broken, func(a, b RuleStats) int {
		if c := b.Broken - a.Broken; c != 0 {
			return c
		}
		return compareRates(b.Broken, b.Checked, a.Broken, a.Checked)
	})
	for _, r := range broken {
		if r.Broken == 0 || len(p.BrokenRules) == maxBrokenRules {
			break
		}
		row := p.rule(r)
		row.Href = "#" + row.Anchor
		p.BrokenRules = append(p.BrokenRules, row)
	}
}

// maxBrokenRules is how many rules the page's "most often broken" lists.
const maxBrokenRules = 5
