package sessionview

import (
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// maxGrowth is how many bytes the drawing may take per byte of the file,
// for files of entries as short as these (about 30 bytes a line): a line
// of the drawing is at most MaxDepth indents of 5 bytes ("│  "), its id,
// "◆ n branches" and "⋮ drawn below", about 125 bytes.
const maxGrowth = 4

// entryLine is the line of an entry with nothing but an id and a parent
// ("" for a root).
func entryLine(id, parent string) string {
	if parent == "" {
		return `{"id":"` + id + `","parentId":null}` + "\n"
	}
	return `{"id":"` + id + `","parentId":"` + parent + `"}` + "\n"
}

// comb is a history of n branch points b1 … bn under a root b0: each b(i-1)
// has two children, the leaf li and bi, which carries on. With lastGoesOn
// bi comes after li, so the branches nest in blanks ("└─"); without it
// before, so they nest in "│".
func comb(n int, lastGoesOn bool) string {
	var b strings.Builder
	b.WriteString(entryLine("b0", ""))
	for i := 1; i <= n; i++ {
		leaf := entryLine("l"+strconv.Itoa(i), "b"+strconv.Itoa(i-1))
		next := entryLine("b"+strconv.Itoa(i), "b"+strconv.Itoa(i-1))
		if lastGoesOn {
			b.WriteString(leaf + next)
		} else {
			b.WriteString(next + leaf)
		}
	}
	return b.String()
}

// segments are the indents a line of the drawing may start with.
var segments = []string{"   ", "│  ", "├─ ", "└─ "}

// maxIndents is the most indents a line of the drawing starts with, after
// the column of the leaf's marks when it has one.
func maxIndents(drawn string, leafColumn bool) (most int, line string) {
	for _, l := range strings.Split(drawn, "\n") {
		rest := l
		if leafColumn {
			_, size := utf8.DecodeRuneInString(rest)
			rest = strings.TrimPrefix(rest[size:], " ")
		}
		n := 0
		for {
			i := slices.IndexFunc(segments, func(s string) bool { return strings.HasPrefix(rest, s) })
			if i < 0 {
				break
			}
			rest, n = rest[len(segments[i]):], n+1
		}
		if n > most {
			most, line = n, l
		}
	}
	return most, line
}

// assertLinear checks that what Draw drew of a file of in bytes is at most
// maxGrowth times as long, and no line of it more than MaxDepth indents in.
func assertLinear(t *testing.T, in int, drawn string, leafColumn bool) {
	t.Helper()
	head := drawn[:min(len(drawn), 1500)]
	assert.LessOrEqual(t, len(drawn), maxGrowth*in,
		"a file of %d bytes drew %d bytes (%.2f per byte), want at most %d per byte; it starts:\n%s",
		in, len(drawn), float64(len(drawn))/float64(in), maxGrowth, head)
	most, line := maxIndents(drawn, leafColumn)
	assert.LessOrEqual(t, most, MaxDepth, "a line of the drawing is %d indents in, want at most %d: %q", most, MaxDepth, line)
}

// assertSameLines compares a long drawing with what it should be, naming
// the first line that differs rather than printing both whole.
func assertSameLines(t *testing.T, want, got string) {
	t.Helper()
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := range min(len(w), len(g)) {
		if w[i] != g[i] {
			t.Errorf("line %d of the drawing is %q, want %q", i+1, g[i], w[i])
			return
		}
	}
	if len(w) != len(g) {
		t.Errorf("the drawing has %d lines, want %d", len(g), len(w))
	}
}

// A comb draws as it did up to MaxDepth indents; a branch point that deep
// is marked, and its branches go on below from the left margin, as often
// as it takes.
func TestDrawACombGoesOnBelowAtMaxDepth(t *testing.T) {
	n := 2*MaxDepth + 3
	var want strings.Builder
	want.WriteString("b0  ◆ 2 branches\n")
	for i := 1; i <= n; i++ {
		depth := (i-1)%MaxDepth + 1
		in := strings.Repeat("   ", depth-1)
		fmt.Fprintf(&want, "%s├─ l%d\n%s└─ b%d", in, i, in, i)
		if i < n {
			want.WriteString("  ◆ 2 branches")
		}
		if i < n && depth == MaxDepth {
			fmt.Fprintf(&want, "  ⋮ drawn below\n\n⋮ the branches of b%d (line %d, %d levels in)", i, 2*i+1, i)
		}
		want.WriteString("\n")
	}
	got := draw(t, comb(n, true), DrawOptions{})
	assert.Equal(t, want.String(), got)
	assert.Equal(t, 2, strings.Count(got, "⋮ the branches of"), "drawn below twice:\n%s", got)

	shallow := draw(t, comb(MaxDepth, true), DrawOptions{})
	assert.NotContains(t, shallow, "⋮", "a comb MaxDepth deep draws whole, in place:\n%s", shallow)
	assert.True(t, strings.HasSuffix(shallow, fmt.Sprintf("\n%s└─ b%d\n", strings.Repeat("   ", MaxDepth-1), MaxDepth)),
		"the last line MaxDepth indents in:\n%s", shallow)
}

func TestDrawACombGoesOnBelowInItsLeafsColumn(t *testing.T) {
	k := strconv.Itoa(MaxDepth)
	got := draw(t, comb(MaxDepth+1, false), DrawOptions{Leaf: "l" + strconv.Itoa(MaxDepth+1)})
	in := strings.Repeat("│  ", MaxDepth-1)
	assert.Contains(t, got, "\n· "+in+"├─ b"+k+"  ◆ 2 branches  ⋮ drawn below\n  "+in+"└─ l"+k+"\n", "b"+k+", marked")
	assert.True(t, strings.HasSuffix(got, "\n  └─ l1\n"+
		fmt.Sprintf("\n⋮ the branches of b%d (line %d, %d levels in)\n", MaxDepth, 2*MaxDepth, MaxDepth)+
		fmt.Sprintf("  ├─ b%d\n", MaxDepth+1)+
		fmt.Sprintf("* └─ l%d\n", MaxDepth+1)), "the branches of b%s after the tree; the leaf and its branch marked:\n%s", k, got)
}

func TestDrawACombLinearly(t *testing.T) {
	n := 20000
	for _, lastGoesOn := range []bool{true, false} {
		t.Run(fmt.Sprintf("last goes on %v", lastGoesOn), func(t *testing.T) {
			text := comb(n, lastGoesOn)
			got := draw(t, text, DrawOptions{Leaf: "b" + strconv.Itoa(n)})
			assertLinear(t, len(text), got, true)
			most, _ := maxIndents(got, true)
			assert.Equal(t, MaxDepth, most, "the deepest lines")
			below := (n - 1) / MaxDepth // the branch points drawn below
			assert.Equal(t, 2*n+1+2*below, strings.Count(got, "\n"),
				"a line per entry, and a blank and a title line every %d levels", MaxDepth)
			last, line := below*MaxDepth, 2*below*MaxDepth
			if lastGoesOn {
				line++
			}
			assert.Contains(t, got, fmt.Sprintf("\n⋮ the branches of b%d (line %d, %d levels in)\n", last, line, last))
		})
	}
}

// A chain a million entries long is one column, a line each: no recursion
// per entry, nothing per line that grows with the depth.
func TestDrawADeepChain(t *testing.T) {
	n := 1_000_000
	if testing.Short() {
		n = 100_000
	}
	s := &Session{Entries: make([]Entry, n)}
	in := 0 // the bytes of the file that would hold it
	var want strings.Builder
	for i := range s.Entries {
		e := &s.Entries[i]
		e.Line, e.ID = i+1, "c"+strconv.Itoa(i)
		if i > 0 {
			e.ParentID = s.Entries[i-1].ID
		}
		in += len(entryLine(e.ID, e.ParentID))
		want.WriteString("· " + e.ID + "\n")
	}
	leaf := s.Entries[n-1].ID // its branch is the whole chain: every line marked
	var b strings.Builder
	require.NoError(t, Draw(&b, s, DrawOptions{Leaf: leaf}))
	got := b.String()
	assertSameLines(t, strings.TrimSuffix(want.String(), "· "+leaf+"\n")+"* "+leaf+"\n", got)
	assertLinear(t, in, got, true)
}

func TestDrawAWideFan(t *testing.T) {
	n := 50000
	var text, want strings.Builder
	text.WriteString(entryLine("r", ""))
	fmt.Fprintf(&want, "r  ◆ %d branches\n", n)
	for i := 1; i <= n; i++ {
		text.WriteString(entryLine("k"+strconv.Itoa(i), "r"))
		branch := "├─ "
		if i == n {
			branch = "└─ "
		}
		fmt.Fprintf(&want, "%sk%d\n", branch, i)
	}
	got := draw(t, text.String(), DrawOptions{})
	assertSameLines(t, want.String(), got)
	assertLinear(t, text.Len(), got, false)
}

// BenchmarkDrawComb draws comb-shaped histories of growing size, read once
// (draw) or read each time too, as course tree does (read+draw), and
// reports per entry what it drew and allocated: the same figures at every
// size are linear growth.
func BenchmarkDrawComb(b *testing.B) {
	for _, entries := range []int{1_000, 10_000, 100_000} {
		text := []byte(comb(entries/2, true))
		s := Read(text)
		b.Run(fmt.Sprintf("entries=%d/draw", entries), func(b *testing.B) {
			benchDraw(b, len(text), entries, func() *Session { return s })
		})
		b.Run(fmt.Sprintf("entries=%d/read+draw", entries), func(b *testing.B) {
			benchDraw(b, len(text), entries, func() *Session { return Read(text) })
		})
	}
}

// benchDraw draws what session returns b.N times and reports per entry.
func benchDraw(b *testing.B, in, entries int, session func() *Session) {
	var drawn countingWriter
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for b.Loop() {
		if err := Draw(&drawn, session(), DrawOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	runtime.ReadMemStats(&after)
	per := float64(b.N) * float64(entries)
	b.ReportMetric(float64(in)/float64(entries), "in-B/entry")
	b.ReportMetric(float64(drawn)/per, "out-B/entry")
	b.ReportMetric(float64(after.Mallocs-before.Mallocs)/per, "allocs/entry")
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/per, "alloc-B/entry")
}

// countingWriter counts the bytes written to it.
type countingWriter int

func (w *countingWriter) Write(p []byte) (int, error) {
	*w += countingWriter(len(p))
	return len(p), nil
}
