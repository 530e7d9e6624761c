package similarity

import (
	"bytes"
	"cmp"
	"go/token"
	"slices"
)

// Span is a stretch of one source.
type Span struct {
	StartLine int `json:"start_line"` // 1-based
	EndLine   int `json:"end_line"`   // inclusive
	Start     int `json:"start"`      // byte offset
	End       int `json:"end"`        // byte offset just past the stretch
}

// Region is a stretch of code that two submissions share: the same
// tokens, once identifiers and literals are normalised.
type Region struct {
	A      Span `json:"a"`
	B      Span `json:"b"`
	Tokens int  `json:"tokens"` // its length in tokens

	fromA, fromB int32 // its first token in each source
}

// maxOccurrences bounds how many places of one source a fingerprint is
// matched at when regions are found: code repeated within a file (or made
// to repeat) would otherwise match every copy with every other.
const maxOccurrences = 4

// run is a match of tokens [a, a+n) of one source with [b, b+n) of the other.
type run struct {
	a, b, n int32
	seeded  bool // it holds a fingerprint that is not common
}

// Regions returns the regions that p's submissions share, in the order of
// A's source: the shared fingerprints chained where they follow each
// other in both sources (a chain of common ones alone is no region), each
// chain grown by up to w-1 tokens at either end while the tokens still
// agree (the part of a match that winnowing selects no fingerprint from),
// and then laid out like tiles, longest first, so that no token of either
// source is in two regions. A region is never shorter than k tokens.
//
// It reads both sources again for their tokens, which the index does not
// keep: it is meant for the pairs that are shown.
func (r *Result) Regions(p Pair) []Region {
	regions, _, _ := r.regions(p)
	return regions
}

// regions is Regions, and the tokens of both sources.
func (r *Result) regions(p Pair) (_ []Region, ta, tb *tokens) {
	da, db := r.docs[p.A], r.docs[p.B]
	ta, errA := tokenize(da.name, da.src)
	tb, errB := tokenize(db.name, db.src)
	if errA != nil || errB != nil {
		return nil, nil, nil // not reached: Add read them
	}
	a, b := side{da, ta}, side{db, tb}
	runs := r.chains(a, b)
	for i := range runs {
		runs[i] = r.grow(a, b, runs[i])
	}
	tiles := r.tile(runs, ta, tb)
	out := make([]Region, len(tiles))
	for i, m := range tiles {
		out[i] = Region{
			A: ta.span(m.a, m.a+m.n), B: tb.span(m.b, m.b+m.n), Tokens: int(m.n),
			fromA: m.a, fromB: m.b,
		}
	}
	return out, ta, tb
}

// tile lays runs out, longest first, each cut to its longest part that no
// earlier one took in either source, and drops what is left shorter than
// k. It returns the tiles in the order of A, neighbours on the same
// diagonal joined into one where the tokens between them agree too (the
// stub's code, or code too short for a fingerprint, inside a longer copy).
func (r *Result) tile(runs []run, ta, tb *tokens) []run {
	slices.SortFunc(runs, func(x, y run) int {
		return cmp.Or(cmp.Compare(y.n, x.n), cmp.Compare(x.a, y.a), cmp.Compare(x.b, y.b))
	})
	usedA, usedB := make([]bool, ta.len()), make([]bool, tb.len())
	var tiles []run
	for _, m := range runs {
		m = freePart(m, usedA, usedB)
		if m.n < int32(r.opts.K) {
			continue
		}
		for i := range m.n {
			usedA[m.a+i], usedB[m.b+i] = true, true
		}
		tiles = append(tiles, m)
	}
	slices.SortFunc(tiles, func(x, y run) int { return cmp.Compare(x.a, y.a) })
	var out []run
	for _, m := range tiles {
		if n := len(out); n > 0 {
			last := &out[n-1]
			ea, eb := last.a+last.n, last.b+last.n // where last ends
			if last.a-last.b == m.a-m.b && gapAgrees(ta, tb, ea, eb, m.a-ea, usedB) {
				last.n = m.a + m.n - last.a
				continue
			}
		}
		out = append(out, m)
	}
	return out
}

// gapAgrees reports whether the n tokens from a in ta and from b in tb
// are the same kinds, and none of tb's is in a tile.
func gapAgrees(ta, tb *tokens, a, b, n int32, usedB []bool) bool {
	for i := range n {
		if ta.kind[a+i] != tb.kind[b+i] || usedB[b+i] {
			return false
		}
	}
	return true
}

// side is a submission with its tokens.
type side struct {
	*doc
	toks *tokens
}

// chains matches the fingerprints that da and db share and chains those
// that continue each other: on the same diagonal (the same offset from A
// to B) and overlapping or touching. A chain must hold a fingerprint that
// is not common; common ones only join the pieces of a longer copy, so
// that it shows as one region.
func (r *Result) chains(da, db side) []run {
	k := int32(r.opts.K)
	var matches []run
	for i, fp := range da.fps {
		if da.first[fp.hash] != int32(i) {
			continue
		}
		jb, ok := db.first[fp.hash]
		if !ok {
			continue
		}
		seeded := len(r.postings[fp.hash]) <= r.CommonLimit
		for ia, na := int32(i), 0; ia >= 0 && na < maxOccurrences; ia, na = da.next[ia], na+1 {
			for ib, nb := jb, 0; ib >= 0 && nb < maxOccurrences; ib, nb = db.next[ib], nb+1 {
				m := run{a: da.fps[ia].pos, b: db.fps[ib].pos, n: k, seeded: seeded}
				if slices.Equal(da.toks.kind[m.a:m.a+k], db.toks.kind[m.b:m.b+k]) { // not a hash collision
					matches = append(matches, m)
				}
			}
		}
	}
	slices.SortFunc(matches, func(x, y run) int {
		return cmp.Or(cmp.Compare(x.a-x.b, y.a-y.b), cmp.Compare(x.a, y.a))
	})
	var out []run
	for _, m := range matches {
		if n := len(out); n > 0 {
			last := &out[n-1]
			if last.a-last.b == m.a-m.b && m.a <= last.a+last.n {
				last.n = max(last.n, m.a+m.n-last.a)
				last.seeded = last.seeded || m.seeded
				continue
			}
		}
		out = append(out, m)
	}
	return slices.DeleteFunc(out, func(m run) bool { return !m.seeded })
}

// grow extends m by up to w-1 tokens before and after while the two
// sources agree and neither token is the stub's.
func (r *Result) grow(da, db side, m run) run {
	agree := func(a, b int32) bool {
		return a >= 0 && b >= 0 && int(a) < da.toks.len() && int(b) < db.toks.len() &&
			da.toks.kind[a] == db.toks.kind[b] && da.ownToken(a) && db.ownToken(b)
	}
	for i := 1; i < r.opts.W && agree(m.a-1, m.b-1); i++ {
		m.a, m.b, m.n = m.a-1, m.b-1, m.n+1
	}
	for i := 1; i < r.opts.W && agree(m.a+m.n, m.b+m.n); i++ {
		m.n++
	}
	return m
}

// ownToken reports whether token i is not the stub's.
func (d *doc) ownToken(i int32) bool { return d.own[i+1] > d.own[i] }

// freePart is the longest part of m whose tokens no region has taken yet,
// in either source.
func freePart(m run, usedA, usedB []bool) run {
	best, start := run{}, int32(-1)
	for i := int32(0); i <= m.n; i++ {
		free := i < m.n && !usedA[m.a+i] && !usedB[m.b+i]
		switch {
		case free && start < 0:
			start = i
		case !free && start >= 0:
			if i-start > best.n {
				best = run{a: m.a + start, b: m.b + start, n: i - start}
			}
			start = -1
		}
	}
	return best
}

// span is where tokens [from, to) are in the source, leading and
// trailing separators left out of the lines.
func (t *tokens) span(from, to int32) Span {
	for from < to-1 && isSeparator(t.kind[from]) {
		from++
	}
	for to-1 > from && isSeparator(t.kind[to-1]) {
		to--
	}
	start, end := t.start[from], t.end[to-1]
	last := end
	if end > start {
		last = end - 1 // the line of the last byte
	}
	return Span{StartLine: t.line(start), EndLine: t.line(last), Start: int(start), End: int(end)}
}

func isSeparator(k token.Token) bool { return k == token.SEMICOLON || k == token.COMMA }

// pieces are the stretches of src that tokens [from, to) take, as byte
// ranges: neighbouring tokens are one piece unless a comment is between
// them, so that a comment is never marked as shared code.
func (t *tokens) pieces(src []byte, from, to int32) [][2]int {
	var out [][2]int
	for i := from; i < to; i++ {
		s, e := int(t.start[i]), int(t.end[i])
		if s == e {
			continue // an inserted semicolon
		}
		if n := len(out); n > 0 && len(bytes.TrimSpace(src[out[n-1][1]:s])) == 0 {
			out[n-1][1] = e
			continue
		}
		out = append(out, [2]int{s, e})
	}
	return out
}
