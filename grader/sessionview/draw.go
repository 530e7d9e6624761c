package sessionview

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// DrawOptions say how to draw a session.
type DrawOptions struct {
	// Leaf, if set, is the id of the entry to highlight: it is marked "*"
	// and each of its ancestors "·" in a column on the left.
	Leaf string
	// Color adds ANSI colours: the leaf and its branch in green.
	Color bool
	// TextWidth is how many characters of a message's text are shown; 40
	// if zero.
	TextWidth int
}

// Draw writes the entries of s as a tree, roots and children in file order.
// A line below another at the same indent is its child: a chain of replies
// stays in one column. A branch point (an entry with several children) is
// marked with "◆ n branches", and each branch starts with "├─" or "└─", one
// indent further in. Several roots are separated by a blank line; entries
// whose parent is not in the file, and entries on a cycle, are listed after
// the roots; header lines (no parentId) come first, one line each. Draw does
// not report the tail or a bad line: the caller does.
func Draw(w io.Writer, s *Session, opts DrawOptions) error {
	if opts.TextWidth <= 0 {
		opts.TextWidth = 40
	}
	bw := bufio.NewWriter(w)
	d := &drawer{w: bw, s: s, t: s.Tree(), opts: opts, mark: map[int]rune{}}
	if opts.Leaf != "" {
		if path, ok := s.Branch(opts.Leaf); ok {
			for i, n := range path {
				d.mark[n] = '·'
				if i == 0 {
					d.mark[n] = '*'
				}
			}
		}
	}
	for _, h := range s.Headers {
		d.header(h)
	}
	for i, r := range d.t.Roots {
		if i > 0 || len(s.Headers) > 0 {
			d.blank()
		}
		d.run(r, "", "")
	}
	if len(d.t.Orphans) > 0 {
		d.section("entries whose parent is not in the file:")
		for i, o := range d.t.Orphans {
			if i > 0 {
				d.blank()
			}
			d.run(o, "", "")
		}
	}
	if len(d.t.Cycles) > 0 {
		d.section("entries on a cycle (their parent chain comes round again), in file order:")
		for _, c := range d.t.Cycles {
			d.line("", c)
		}
	}
	return bw.Flush()
}

type drawer struct {
	w     *bufio.Writer
	s     *Session
	t     *Tree
	opts  DrawOptions
	mark  map[int]rune // the leaf and its ancestors
	lines int
	drawn map[int]bool
}

func (d *drawer) blank() { d.w.WriteString("\n") }

// header writes a line that is no part of the tree.
func (d *drawer) header(h Header) {
	d.lines++
	what := "a line"
	switch {
	case h.Type != "" && h.ID != "":
		what = safe(h.Type) + " " + safe(h.ID)
	case h.Type != "":
		what = safe(h.Type)
	case h.ID != "":
		what = "id " + safe(h.ID)
	}
	if d.opts.Leaf != "" {
		d.w.WriteString("  ") // the column of the leaf's marks
	}
	fmt.Fprintf(d.w, "line %d: %s  (no parentId: a header, not in the tree)\n", h.Line, what)
}

func (d *drawer) section(title string) {
	if d.lines > 0 {
		d.blank()
	}
	d.w.WriteString(title + "\n")
}

// run draws entry n and everything below it: the first line starts with
// lead, every later line with cont.
func (d *drawer) run(n int, lead, cont string) {
	if d.drawn == nil {
		d.drawn = map[int]bool{}
	}
	prefix := lead
	for !d.drawn[n] { // cycles are not reached from a root, but be safe
		d.drawn[n] = true
		d.line(prefix, n)
		prefix = cont
		kids := d.t.Children[n]
		if len(kids) == 1 {
			n = kids[0]
			continue
		}
		for i, k := range kids {
			if i == len(kids)-1 {
				d.run(k, cont+"└─ ", cont+"   ")
			} else {
				d.run(k, cont+"├─ ", cont+"│  ")
			}
		}
		return
	}
}

// line writes the line of entry n after prefix.
func (d *drawer) line(prefix string, n int) {
	d.lines++
	e := d.s.Entries[n]
	var b strings.Builder
	if d.opts.Leaf != "" {
		switch m := d.mark[n]; m {
		case 0:
			b.WriteString("  ")
		default:
			b.WriteRune(m)
			b.WriteByte(' ')
		}
	}
	b.WriteString(prefix)
	start := b.Len()
	b.WriteString(safe(e.ID))
	switch {
	case e.Role != "":
		b.WriteString("  " + safe(e.Role))
	case e.Type != "":
		b.WriteString("  " + safe(e.Type))
	}
	if e.Tool != "" {
		b.WriteString(" " + safe(e.Tool))
	}
	if e.IsError {
		b.WriteString(" (error)")
	}
	if e.Text != "" {
		b.WriteString("  " + strconv.Quote(shorten(e.Text, d.opts.TextWidth)))
	}
	if len(e.Tools) > 0 {
		names := make([]string, len(e.Tools))
		for i, t := range e.Tools {
			names[i] = safe(t)
		}
		b.WriteString("  → " + strings.Join(names, ", "))
	}
	if k := len(d.t.Children[n]); k > 1 {
		fmt.Fprintf(&b, "  ◆ %d branches", k)
	}
	if first := d.t.FirstOf[e.ID]; first != n {
		fmt.Fprintf(&b, "  ! duplicate id, first on line %d", d.s.Entries[first].Line)
	}
	if e.ParentID != "" {
		if _, ok := d.t.FirstOf[e.ParentID]; !ok {
			fmt.Fprintf(&b, "  ! parent %s is not in the file", safe(e.ParentID))
		}
	}
	text := b.String()
	if d.opts.Color {
		switch d.mark[n] {
		case '*':
			text = text[:start] + "\x1b[1;32m" + text[start:] + "\x1b[0m"
		case '·':
			text = text[:start] + "\x1b[32m" + text[start:] + "\x1b[0m"
		}
	}
	d.w.WriteString(text + "\n")
}

// shorten cuts s to at most n characters, marking a cut with "…".
func shorten(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// safe returns s as it is when it is plain printable text without spaces,
// and quoted otherwise, so that a hostile id cannot move the cursor or hide
// in blanks.
func safe(s string) string {
	if s == "" {
		return `""`
	}
	for _, r := range s {
		if !unicode.IsPrint(r) || unicode.IsSpace(r) || r == '"' {
			return strconv.Quote(s)
		}
	}
	return s
}
