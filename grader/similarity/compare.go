package similarity

import (
	"cmp"
	"slices"
)

// Pair is two submissions that share code, and how much.
type Pair struct {
	A, B int // the submissions, by the order they were added; A < B
	// Score is (MatchedA+MatchedB) / (Tokens(A)+Tokens(B)): the share of
	// the two submissions' own tokens that the other one has too.
	Score float64
	// CoverA and CoverB are each side alone: MatchedA/Tokens(A) and
	// MatchedB/Tokens(B). A small file copied into a large one has a high
	// cover on its side and a lower Score.
	CoverA, CoverB float64
	// MatchedA and MatchedB count the own tokens of each side that a
	// shared fingerprint covers.
	MatchedA, MatchedB int
	// Shared counts the distinct fingerprints the two have in common.
	Shared int
}

// Result is a comparison of every submission of an Index with every other,
// through the index, and the pairs that share code, best first.
type Result struct {
	*Index
	// Pairs holds every pair that shares a fingerprint that is not common,
	// by Score, highest first (then by the larger cover, then by names).
	Pairs []Pair
	// CommonLimit is how many submissions could share a fingerprint
	// before it was common code (Options.CommonLimit).
	CommonLimit int
	// Common counts the distinct fingerprints ignored as common code.
	Common int
	// Visits counts the (pair, fingerprint) steps the scoring took: what
	// it cost, which only pairs with a fingerprint in common add to.
	Visits int
}

// Compare finds the pairs of submissions that share fingerprints, through
// the index: for each submission, the others listed under its fingerprints
// (never all pairs), leaving out the fingerprints of more than
// CommonLimit submissions. Each pair is scored from the fingerprints it
// shares alone, so the work is the sum, over the fingerprints that are not
// common, of the pairs of submissions that have one: at most CommonLimit
// times the number of fingerprints.
func (x *Index) Compare() *Result {
	r := &Result{Index: x, CommonLimit: x.opts.CommonLimit(len(x.docs))}
	for _, post := range x.postings {
		if len(post) > r.CommonLimit {
			r.Common++
		}
	}
	shared := map[int32][]uint64{} // the other submission -> the fingerprints in common
	var others []int32
	for a, d := range x.docs {
		clear(shared)
		others = others[:0]
		for i, fp := range d.fps {
			if d.first[fp.hash] != int32(i) {
				continue // a repeat: the hash is listed once
			}
			post := x.postings[fp.hash]
			if len(post) > r.CommonLimit {
				continue
			}
			for _, b := range post {
				if int(b) <= a {
					continue
				}
				if _, ok := shared[b]; !ok {
					others = append(others, b)
				}
				shared[b] = append(shared[b], fp.hash)
				r.Visits++
			}
		}
		for _, b := range others {
			if p, ok := x.score(a, int(b), shared[b]); ok {
				r.Pairs = append(r.Pairs, p)
			}
		}
	}
	slices.SortFunc(r.Pairs, r.rank)
	return r
}

// rank orders pairs best first, and the same on every run.
func (r *Result) rank(p, q Pair) int {
	if c := cmp.Compare(q.Score, p.Score); c != 0 {
		return c
	}
	if c := cmp.Compare(max(q.CoverA, q.CoverB), max(p.CoverA, p.CoverB)); c != 0 {
		return c
	}
	if c := cmp.Compare(r.Name(p.A), r.Name(q.A)); c != 0 {
		return c
	}
	if c := cmp.Compare(r.Name(p.B), r.Name(q.B)); c != 0 {
		return c
	}
	return cmp.Compare(p.A*len(r.docs)+p.B, q.A*len(r.docs)+q.B)
}

// score scores submissions a and b from the fingerprints they share; ok
// is false when those cover none of either's own tokens (a seam between
// two pieces of the stub, say).
func (x *Index) score(a, b int, hashes []uint64) (Pair, bool) {
	ma := x.matched(x.docs[a], hashes)
	mb := x.matched(x.docs[b], hashes)
	if ma+mb == 0 {
		return Pair{}, false
	}
	ta, tb := x.Tokens(a), x.Tokens(b)
	return Pair{
		A: a, B: b,
		Score:    float64(ma+mb) / float64(ta+tb),
		CoverA:   ratio(ma, ta),
		CoverB:   ratio(mb, tb),
		MatchedA: ma, MatchedB: mb,
		Shared: len(hashes),
	}, true
}

func ratio(n, d int) float64 {
	if d == 0 {
		return 0
	}
	return float64(n) / float64(d)
}

// matched counts d's own tokens that some fingerprint of hashes covers,
// at any of its positions in d: the union of their k-token spans.
func (x *Index) matched(d *doc, hashes []uint64) int {
	var pos []int32
	for _, h := range hashes {
		for i := d.first[h]; i >= 0; i = d.next[i] {
			pos = append(pos, d.fps[i].pos)
		}
	}
	slices.Sort(pos)
	k := int32(x.opts.K)
	n, from, to := 0, int32(0), int32(0) // the span being merged: tokens [from, to)
	for _, p := range pos {
		if p > to {
			n += int(d.own[to] - d.own[from])
			from = p
		}
		to = p + k
	}
	return n + int(d.own[to]-d.own[from])
}
