package similarity

import (
	"cmp"
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/coursekit/course/grader/safetext"
)

// HTMLOptions are the choices of WriteHTML.
type HTMLOptions struct {
	Title string   // the page's title and heading
	Notes []string // lines said under the heading: submissions not compared, say
}

//go:embed page.html
var pageSource string

var pageTemplate = template.Must(template.New("page").Parse(pageSource))

// WriteHTML writes pairs of r (in the order given) as one self-contained
// page: a stylesheet of its own, no script, nothing from the network.
// Each pair has both sources side by side, the regions they share marked
// in the same colour on both sides. Names and sources are the students':
// they are escaped, and their control and bidirectional characters shown
// as escapes, so that the page shows what the bytes are.
func WriteHTML(w io.Writer, r *Result, pairs []Pair, opts HTMLOptions) error {
	p := htmlPage{Title: opts.Title, K: r.opts.K, W: r.opts.W, Submissions: r.Len(), CommonLimit: r.CommonLimit}
	for _, n := range opts.Notes {
		p.Notes = append(p.Notes, safetext.Line(n))
	}
	for i, pair := range pairs {
		p.Pairs = append(p.Pairs, r.htmlPair(i+1, pair))
	}
	var b strings.Builder
	if err := pageTemplate.Execute(&b, p); err != nil {
		return fmt.Errorf("similarity page: %w", err)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

type htmlPage struct {
	Title                          string
	Notes                          []string
	K, W, Submissions, CommonLimit int
	Pairs                          []htmlPair
}

type htmlPair struct {
	N                     int
	A, B                  string
	Score, CoverA, CoverB string
	Regions               []htmlRegion
	Left, Right           []htmlLine
}

type htmlRegion struct {
	N, Color         int
	LinesA           string
	LinesB           string
	Tokens           int
	AnchorA, AnchorB string
}

type htmlLine struct {
	No   int
	Segs []htmlSeg
}

// htmlSeg is a piece of a line: Region 0 is no region, else the region's number.
type htmlSeg struct {
	Text          string
	Region, Color int
	Anchor        string // on the first piece of a region
	Href          string // the region on the other side
}

// palette is how many colours regions take in turn.
const palette = 6

func (r *Result) htmlPair(n int, p Pair) htmlPair {
	regions, ta, tb := r.regions(p)
	hp := htmlPair{
		N: n, A: safetext.Line(r.Name(p.A)), B: safetext.Line(r.Name(p.B)),
		Score: Percent(p.Score), CoverA: Percent(p.CoverA), CoverB: Percent(p.CoverB),
	}
	da, db := r.docs[p.A], r.docs[p.B]
	var marksA, marksB []mark
	for i, g := range regions {
		hp.Regions = append(hp.Regions, htmlRegion{
			N: i + 1, Color: i % palette, Tokens: g.Tokens,
			LinesA: lines(g.A), LinesB: lines(g.B),
			AnchorA: fmt.Sprintf("p%d-a%d", n, i+1), AnchorB: fmt.Sprintf("p%d-b%d", n, i+1),
		})
		marksA = appendMarks(marksA, ta.pieces(da.src, g.fromA, g.fromA+int32(g.Tokens)), i+1)
		marksB = appendMarks(marksB, tb.pieces(db.src, g.fromB, g.fromB+int32(g.Tokens)), i+1)
	}
	a, b := fmt.Sprintf("p%d-a", n), fmt.Sprintf("p%d-b", n)
	hp.Left = sourceLines(da.src, marksA, a, b)
	hp.Right = sourceLines(db.src, marksB, b, a)
	return hp
}

// mark is a piece of a source in a region.
type mark struct {
	start, end int // bytes
	region     int // 1-based
	first      bool
}

func appendMarks(marks []mark, pieces [][2]int, region int) []mark {
	for i, p := range pieces {
		marks = append(marks, mark{start: p[0], end: p[1], region: region, first: i == 0})
	}
	return marks
}

// Percent shows a share as a whole percentage, rounded down so that
// 99.6% of a file is not shown as all of it.
func Percent(f float64) string { return fmt.Sprintf("%d%%", int(math.Floor(f*100+1e-9))) }

func lines(s Span) string {
	if s.StartLine == s.EndLine {
		return fmt.Sprintf("line %d", s.StartLine)
	}
	return fmt.Sprintf("lines %d–%d", s.StartLine, s.EndLine)
}

// sourceLines cuts src into lines, and each line into pieces inside and
// outside the marks (which do not overlap), made visible; a region's first
// piece is anchor+N, and every piece of it links to other+N. One walk over
// src and the marks.
func sourceLines(src []byte, marks []mark, anchor, other string) []htmlLine {
	slices.SortFunc(marks, func(x, y mark) int { return cmp.Compare(x.start, y.start) })
	var out []htmlLine
	off, j := 0, 0
	for no, text := range strings.SplitAfter(string(src), "\n") {
		if text == "" {
			break // after a last newline
		}
		line := htmlLine{No: no + 1}
		end := off + len(strings.TrimRight(text, "\r\n"))
		for at := off; at < end; {
			for j < len(marks) && marks[j].end <= at {
				j++
			}
			seg, next := htmlSeg{}, end
			if j < len(marks) {
				m := marks[j]
				if m.start <= at {
					seg.Region, seg.Color, next = m.region, (m.region-1)%palette, min(end, m.end)
					seg.Href = fmt.Sprintf("#%s%d", other, m.region)
					if m.first && at == m.start {
						seg.Anchor = fmt.Sprintf("%s%d", anchor, m.region)
					}
				} else {
					next = min(end, m.start)
				}
			}
			seg.Text = visible(string(src[at:next]))
			line.Segs = append(line.Segs, seg)
			at = next
		}
		out = append(out, line)
		off += len(text)
	}
	return out
}

// visible is a piece of a source line made safe to show: control and
// bidirectional characters escaped, tabs kept.
func visible(s string) string {
	parts := strings.Split(s, "\t")
	for i, p := range parts {
		parts[i] = safetext.Line(p)
	}
	return strings.Join(parts, "\t")
}
