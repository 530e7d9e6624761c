package class

import (
	"fmt"
	"strings"

	"github.com/coursekit/course/grader/report"
)

// histChart is the score histogram, an SVG drawn in user units that the
// page scales to the width it has.
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

// passChart is the pass rate of each exercise as bars of HTML, so that an
// exercise's name of any length wraps in its column instead of running
// over its bar, and the bars take whatever width is left.
type passChart struct {
	Bars []passBar
	Desc string
}

type passBar struct {
	Label, Value string
	Percent      int // the bar's length, in percent of its track
}

// Geometry of the histogram, in SVG user units.
const (
	histWidth  = 720 // about the width of a printed page, so text prints at its size
	histTop    = 24  // room for the counts above the bars
	histPlot   = 180 // the tallest bar
	histBottom = 40  // room for the bins' labels
	histLeft   = 20
)

func newHistChart(s *Summary) histChart {
	c := histChart{Width: histWidth, Height: histTop + histPlot + histBottom, Base: histTop + histPlot, AxisY: histTop + histPlot + 18}
	most := 0
	for _, b := range s.Histogram {
		most = max(most, b.Count)
	}
	slot := (histWidth - 2*histLeft) / max(len(s.Histogram), 1)
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
	var c passChart
	var desc []string
	for _, e := range s.Exercises {
		label := visible(e.ID) + " " + visible(e.Name)
		value := fmt.Sprintf("%d%% (%d/%d)", e.Percent(), e.Passed, e.Graded)
		c.Bars = append(c.Bars, passBar{Label: label, Value: value, Percent: int(e.Rate()*100 + 0.5)})
		desc = append(desc, label+": "+value)
	}
	c.Desc = "Share of the graded submissions that passed each exercise: " + strings.Join(desc, "; ") + "."
	return c
}
