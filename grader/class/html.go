package class

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"net/url"
	"slices"
	"strings"
	"time"

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

type studentRow struct {
	Name, Path, Score, Note string
	Reason                  string // why it could not be graded
	Graded                  bool
	Cells                   []studentCell
	Late, LateTitle         string
}

type studentCell struct {
	Text           string
	Graded, Passed bool
	Title          string
}

type histChart struct {
	Width, Height, Base int
	AxisY               int // the baseline of the bins' labels
	Bars                []histBar
	Desc                string
}

type histBar struct {
	X, Y, W, H       int
	LabelX, CountY   int
	Count            int
	Label, FullLabel string
}

type passChart struct {
	Width, Height           int
	LabelEnd, BarX, BarFull int
	Bars                    []passBar
	Desc                    string
}

type passBar struct {
	Y, TextY, W, ValueX int
	Label, Value        string
}

// Geometry of the charts, in SVG user units (pixels at 100%).
const (
	chartWidth = 640

	histTop    = 24  // room for the counts above the bars
	histPlot   = 180 // the tallest bar
	histBottom = 40  // room for the bins' labels
	histLeft   = 20

	passRow   = 30
	passLabel = 230 // the labels end here, the bars start here
	passFull  = 300 // a bar of 100%
)

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
	for _, st := range s.Students {
		row := studentRowOf(st)
		p.Students = append(p.Students, row)
		p.HasLate = p.HasLate || st.Late != nil
		if !st.Graded {
			p.NotGraded = append(p.NotGraded, row)
		}
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

func studentRowOf(st Student) studentRow {
	row := studentRow{Name: visible(st.Name), Path: visible(st.Path), Graded: st.Graded, Note: visible(st.Note)}
	if !st.Graded {
		row.Reason = visible(strings.TrimPrefix(st.Note, "not graded: "))
		row.Score = "–"
		for range st.Exercises {
			row.Cells = append(row.Cells, studentCell{Text: "–", Title: "not graded"})
		}
		return row
	}
	row.Score = report.FormatPoints(st.Score) + "/" + fmt.Sprint(st.MaxScore)
	for _, e := range st.Exercises {
		c := studentCell{Graded: e.Graded, Passed: e.Passed}
		switch {
		case !e.Graded:
			c.Text, c.Title = "–", "not graded in this run"
		default:
			c.Text = report.FormatPoints(e.Points)
			c.Title = fmt.Sprintf("%s of %d points", c.Text, e.MaxPoints)
		}
		row.Cells = append(row.Cells, c)
	}
	if penalty, ok := st.LatePenalty(); ok {
		switch {
		case st.Late.Late == 0:
			row.Late = "on time"
		default:
			row.Late = fmt.Sprintf("−%s%% (late by %s; raw %s)", report.FormatPoints(penalty*100),
				time.Duration(st.Late.Late)*time.Second, report.FormatPoints(st.Late.RawScore))
		}
		row.LateTitle = visible(st.Late.Describe())
	}
	return row
}

func newHistChart(s *Summary) histChart {
	c := histChart{Width: chartWidth, Height: histTop + histPlot + histBottom, Base: histTop + histPlot, AxisY: histTop + histPlot + 18}
	most := 0
	for _, b := range s.Histogram {
		most = max(most, b.Count)
	}
	slot := (chartWidth - 2*histLeft) / max(len(s.Histogram), 1)
	var desc []string
	for i, b := range s.Histogram {
		h := 0
		if most > 0 {
			h = b.Count * histPlot / most
		}
		if b.Count > 0 {
			h = max(h, 2) // a count of one stays visible beside a large one
		}
		x := histLeft + i*slot
		full := "scores " + b.Label()
		if i == len(s.Histogram)-1 {
			full += " (" + report.FormatPoints(b.Hi) + " included)"
		} else {
			full += " (" + report.FormatPoints(b.Hi) + " not included)"
		}
		c.Bars = append(c.Bars, histBar{X: x + 4, W: slot - 8, Y: c.Base - h, H: h, LabelX: x + slot/2, CountY: c.Base - h - 6,
			Count: b.Count, Label: b.Label(), FullLabel: full})
		desc = append(desc, fmt.Sprintf("%s: %d", b.Label(), b.Count))
	}
	c.Desc = "Number of submissions per score range: " + strings.Join(desc, "; ") + "."
	return c
}

func newPassChart(s *Summary) passChart {
	c := passChart{Width: chartWidth, Height: max(len(s.Exercises), 1)*passRow + 10, LabelEnd: passLabel - 10, BarX: passLabel, BarFull: passFull}
	var desc []string
	for i, e := range s.Exercises {
		y := 5 + i*passRow
		label := visible(e.ID) + " " + visible(e.Name)
		value := fmt.Sprintf("%d%% (%d/%d)", e.Percent(), e.Passed, e.Graded)
		w := int(e.Rate()*passFull + 0.5)
		c.Bars = append(c.Bars, passBar{Y: y + 4, TextY: y + 19, W: w, ValueX: passLabel + w + 6, Label: label, Value: value})
		desc = append(desc, label+": "+value)
	}
	c.Desc = "Share of the graded submissions that passed each exercise: " + strings.Join(desc, "; ") + "."
	return c
}
