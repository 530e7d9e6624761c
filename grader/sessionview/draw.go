package sessionview

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"unicode"
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

// MaxDepth is how many indents a line of the drawing has at most. A branch
// point that deep has its branches drawn after the tree, from the left
// margin again, so that no line's width depends on the depth: nested
// branches would otherwise draw in the square of the file's size.
const MaxDepth = 16

// Draw writes the entries of s as a tree, roots and children in file order.
// A line below another at the same indent is its child: a chain of replies
// stays in one column. A branch point (an entry with several children) is
// marked with "◆ n branches", and each branch starts with "├─" or "└─", one
// indent further in. A branch point MaxDepth indents in is marked
// "⋮ drawn below": its branches follow the tree it is in, from the left
// margin again, under a line "⋮ the branches of ID (line L, n levels in)".
// Several roots are separated by a blank line; entries whose parent is not
// in the file, and entries on a cycle, are listed after the roots; header
// lines (no parentId) come first, one line each. Draw does not report the
// tail or a bad line: the caller does.
//
// Every entry is drawn once, on one line no wider than MaxDepth indents and
// its own fields, so the drawing grows linearly with the file.
func Draw(w io.Writer, s *Session, opts DrawOptions) error {
	if opts.TextWidth <= 0 {
		opts.TextWidth = 40
	}
	bw := bufio.NewWriter(w)
	d := &drawer{w: bw, s: s, t: s.Tree(), opts: opts, drawn: make([]bool, len(s.Entries))}
	if opts.Leaf != "" {
		d.markBranch(opts.Leaf)
	}
	for _, h := range s.Headers {
		d.header(h)
	}
	for i, r := range d.t.Roots {
		if i > 0 || len(s.Headers) > 0 {
			d.blank()
		}
		d.tree(r)
	}
	if len(d.t.Orphans) > 0 {
		d.section("entries whose parent is not in the file:")
		for i, o := range d.t.Orphans {
			if i > 0 {
				d.blank()
			}
			d.tree(o)
		}
	}
	if len(d.t.Cycles) > 0 {
		d.section("entries on a cycle (their parent chain comes round again), in file order:")
		for _, c := range d.t.Cycles {
			d.line("", c, false)
		}
	}
	return bw.Flush()
}

type drawer struct {
	w     *bufio.Writer
	s     *Session
	t     *Tree
	opts  DrawOptions
	mark  []rune // with a leaf: '*' the leaf, '·' its ancestors
	lines int
	drawn []bool
	below []deep // branch points whose branches are still to draw
}

// deep is a branch point whose branches are drawn after its tree.
type deep struct {
	n     int // its position in Session.Entries
	depth int // its indents, counted from its root
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

// tree draws entry n and everything below it, then the branches that were
// too deep to draw in place, in the order they were met; each of them may
// leave more, which come after it.
func (d *drawer) tree(n int) {
	d.run(n, "", "", 0, 0)
	for i := 0; i < len(d.below); i++ {
		b := d.below[i]
		e := d.s.Entries[b.n]
		d.blank()
		fmt.Fprintf(d.w, "⋮ the branches of %s (line %d, %d levels in)\n", safe(e.ID), e.Line, b.depth)
		d.branches(b.n, "", 0, b.depth)
	}
	d.below = d.below[:0]
}

// run draws entry n and the entries below it: the first line starts with
// lead, every later line with cont, which is depth indents wide; base is
// how many indents in the left margin stands for. It recurses once per
// branch point, so never more than MaxDepth deep.
func (d *drawer) run(n int, lead, cont string, depth, base int) {
	prefix := lead
	for !d.drawn[n] { // cycles are not reached from a root, but be safe
		d.drawn[n] = true
		kids := d.t.Children[n]
		later := len(kids) > 1 && depth >= MaxDepth
		d.line(prefix, n, later)
		prefix = cont
		switch {
		case len(kids) == 1:
			n = kids[0]
			continue
		case later:
			d.below = append(d.below, deep{n: n, depth: base + depth})
		default:
			d.branches(n, cont, depth, base)
		}
		return
	}
}

// branches draws the children of branch point n, one indent further in
// than cont, which is depth indents wide.
func (d *drawer) branches(n int, cont string, depth, base int) {
	kids := d.t.Children[n]
	for i, k := range kids {
		if i == len(kids)-1 {
			d.run(k, cont+"└─ ", cont+"   ", depth+1, base)
		} else {
			d.run(k, cont+"├─ ", cont+"│  ", depth+1, base)
		}
	}
}

// line writes the line of entry n after prefix; later says that its
// branches are drawn below.
func (d *drawer) line(prefix string, n int, later bool) {
	d.lines++
	w, m := d.w, d.markOf(n)
	if d.opts.Leaf != "" {
		if m == 0 {
			w.WriteString("  ")
		} else {
			w.WriteRune(m)
			w.WriteByte(' ')
		}
	}
	w.WriteString(prefix)
	colour := ""
	if d.opts.Color {
		switch m {
		case '*':
			colour = "\x1b[1;32m"
		case '·':
			colour = "\x1b[32m"
		}
	}
	w.WriteString(colour)
	d.fields(&d.s.Entries[n])
	d.notes(n, later)
	if colour != "" {
		w.WriteString("\x1b[0m")
	}
	w.WriteByte('\n')
}

// fields writes what entry e says of itself.
func (d *drawer) fields(e *Entry) {
	w := d.w
	w.WriteString(safe(e.ID))
	switch {
	case e.Role != "":
		w.WriteString("  " + safe(e.Role))
	case e.Type != "":
		w.WriteString("  " + safe(e.Type))
	}
	if e.Tool != "" {
		w.WriteString(" " + safe(e.Tool))
	}
	if e.IsError {
		w.WriteString(" (error)")
	}
	if e.Text != "" {
		w.WriteString("  ")
		w.WriteString(strconv.Quote(shorten(e.Text, d.opts.TextWidth)))
	}
	for i, t := range e.Tools {
		sep := ", "
		if i == 0 {
			sep = "  → "
		}
		w.WriteString(sep)
		w.WriteString(safe(t))
	}
}

// notes writes what is worth knowing about entry n's place in the tree.
func (d *drawer) notes(n int, later bool) {
	e := &d.s.Entries[n]
	if k := len(d.t.Children[n]); k > 1 {
		fmt.Fprintf(d.w, "  ◆ %d branches", k)
	}
	if later {
		d.w.WriteString("  ⋮ drawn below")
	}
	if first := d.t.FirstOf[e.ID]; first != n {
		fmt.Fprintf(d.w, "  ! duplicate id, first on line %d", d.s.Entries[first].Line)
	}
	if e.ParentID != "" {
		if _, ok := d.t.FirstOf[e.ParentID]; !ok {
			fmt.Fprintf(d.w, "  ! parent %s is not in the file", safe(e.ParentID))
		}
	}
}

// markBranch marks the leaf and its ancestors for the leaf's column.
func (d *drawer) markBranch(leaf string) {
	d.mark = make([]rune, len(d.s.Entries))
	path, _ := d.t.branch(d.s, leaf)
	for i, n := range path {
		d.mark[n] = '·'
		if i == 0 {
			d.mark[n] = '*'
		}
	}
}

// markOf is the mark of entry n in the leaf's column, or 0.
func (d *drawer) markOf(n int) rune {
	if d.mark == nil {
		return 0
	}
	return d.mark[n]
}

// shorten cuts s to at most n characters, marking a cut with "…". It looks
// at no more of s than it keeps: a text may be megabytes long.
func shorten(s string, n int) string {
	cut, runes := 0, 0
	for i := range s {
		if runes == n-1 {
			cut = i
		}
		if runes == n {
			return s[:cut] + "…"
		}
		runes++
	}
	return s
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
