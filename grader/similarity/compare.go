package similarity

import (
	"cmp"
	"slices"
)

// Pair is two submissions that share code, and how much.
type Pair struct {
	A, B int // the submissions, by the order they were added; A < B
	// Score is (MatchedA+MatchedB) / (Tokens(A)+Tokens(B)), with Result's
	// Tokens: the share of the two submissions' counted tokens (neither
	// the stub's nor common code) that the other one has too.
	Score float64
	// CoverA and CoverB are each side alone: MatchedA/Tokens(A) and
	// MatchedB/Tokens(B). A small file copied into a large one has a high
	// cover on its side and a lower Score.
	CoverA, CoverB float64
	// MatchedA and MatchedB count the counted tokens of each side that a
	// shared fingerprint covers.
	MatchedA, MatchedB int
	// Shared counts the distinct fingerprints the two have in common.
	Shared int
}

// Result is a comparison of every submission of an Index with every other,
// through the index, and the pairs that share code, best first. It is of
// the submissions added before Compare: compare again after adding more.
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

	counted [][]int32 // by submission: counted[i][t] counts tokens [0, t) that are neither the stub's nor common
}

// Tokens is how many tokens of submission i count: those that are neither
// the stub's nor covered by a common fingerprint.
func (r *Result) Tokens(i int) int { c := r.counted[i]; return int(c[len(c)-1]) }

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
	r.counted = make([][]int32, len(x.docs))
	for i, d := range x.docs {
		r.counted[i] = r.countable(d)
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
			if p, ok := r.score(a, int(b), shared[b]); ok {
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
func (r *Result) score(a, b int, hashes []uint64) (Pair, bool) {
	ma := r.matched(a, hashes)
	mb := r.matched(b, hashes)
	if ma+mb == 0 {
		return Pair{}, false
	}
	ta, tb := r.Tokens(a), r.Tokens(b)
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

// matched counts the tokens of submission i that count and that some
// fingerprint of hashes covers, at any of its positions: the union of
// their k-token spans.
func (r *Result) matched(i int, hashes []uint64) int {
	d, counted := r.docs[i], r.counted[i]
	var pos []int32
	for _, h := range hashes {
		for j := d.first[h]; j >= 0; j = d.next[j] {
			pos = append(pos, d.fps[j].pos)
		}
	}
	slices.Sort(pos)
	k := int32(r.opts.K)
	n, from, to := 0, int32(0), int32(0) // the span being merged: tokens [from, to)
	for _, p := range pos {
		if p > to {
			n += int(counted[to] - counted[from])
			from = p
		}
		to = p + k
	}
	return n + int(counted[to]-counted[from])
}

// countable returns the running count of d's tokens that count: its own
// (not the stub's), and not covered by a common fingerprint. Common code,
// like the stub's, counts neither for a pair nor against it.
func (r *Result) countable(d *doc) []int32 {
	n := len(d.own) - 1
	out := make([]int32, n+1)
	k := int32(r.opts.K)
	commonUntil, f := int32(0), 0 // tokens before commonUntil are common; d.fps[f:] are ahead
	for t := range int32(n) {
		for ; f < len(d.fps) && d.fps[f].pos <= t; f++ {
			if len(r.postings[d.fps[f].hash]) > r.CommonLimit {
				commonUntil = max(commonUntil, d.fps[f].pos+k)
			}
		}
		out[t+1] = out[t]
		if t >= commonUntil && d.ownToken(t) {
			out[t+1]++
		}
	}
	return out
}
