package similarity

import (
	"errors"
	"fmt"
	"math"
)

// Defaults of Options.
const (
	// DefaultK is the k-gram length in tokens: a shared run shorter than
	// this is never seen. Twelve tokens are a line or two of Go.
	DefaultK = 12
	// DefaultW is the winnowing window: every shared run of W+K-1 = 19
	// tokens or more is seen.
	DefaultW = 8
	// DefaultCommon is the share of the class above which a fingerprint is
	// common code.
	DefaultCommon = 0.1
	// MinCommonLimit is the least CommonLimit: a fingerprint that at most
	// this many submissions share is never common, so a small group that
	// copied from each other is seen in a small class too.
	MinCommonLimit = 3
)

// Options are the choices of NewIndex.
type Options struct {
	K      int     // tokens per k-gram; 0 is DefaultK
	W      int     // hashes per winnowing window; 0 is DefaultW
	Common float64 // see CommonLimit; 0 is DefaultCommon
	// Stub is the file the students start from: its code is in every
	// submission, so none of its k-grams counts. Nil: no stub.
	Stub []byte
}

// CommonLimit is how many submissions of n may share a fingerprint before
// it is common code and ignored (as MOSS's -m does): the Common share of n,
// and never less than MinCommonLimit.
func (o Options) CommonLimit(n int) int {
	return max(MinCommonLimit, int(math.Floor(o.Common*float64(n))))
}

// Index holds the fingerprints of a class's submissions and, for each
// fingerprint, which submissions have it.
type Index struct {
	opts     Options
	stub     map[uint64]bool // the hash of every k-gram of the stub
	docs     []*doc
	postings map[uint64][]int32 // fingerprint -> the submissions that have it, each once, in order
}

// doc is one submission, fingerprinted.
type doc struct {
	name  string
	src   []byte
	fps   []fingerprint    // winnowed, the stub's left out, by position
	first map[uint64]int32 // hash -> its first fingerprint in fps
	next  []int32          // fps index -> the next of the same hash, or -1
	own   []int32          // own[i]: how many of tokens [0, i) are not the stub's
}

// NewIndex returns an empty index. The stub, the course's own file, must
// tokenize.
func NewIndex(opts Options) (*Index, error) {
	if opts.K == 0 {
		opts.K = DefaultK
	}
	if opts.W == 0 {
		opts.W = DefaultW
	}
	if opts.Common == 0 {
		opts.Common = DefaultCommon
	}
	if opts.K < 1 || opts.W < 1 || opts.Common < 0 {
		return nil, fmt.Errorf("similarity: k %d, w %d and common %g must be positive", opts.K, opts.W, opts.Common)
	}
	x := &Index{opts: opts, stub: map[uint64]bool{}, postings: map[uint64][]int32{}}
	if opts.Stub != nil {
		t, err := tokenize("stub", opts.Stub)
		if err != nil {
			return nil, fmt.Errorf("similarity: the stub: %w", err)
		}
		for _, h := range kgramHashes(t.kind, opts.K) {
			x.stub[h] = true
		}
	}
	return x, nil
}

// Options returns the index's options, defaults filled in.
func (x *Index) Options() Options { return x.opts }

// Add tokenizes and fingerprints one submission's source and indexes it,
// in time linear in len(src). A source that does not tokenize is not
// added; the error matches ErrTokenize.
func (x *Index) Add(name string, src []byte) error {
	t, err := tokenize(name, src)
	if err != nil {
		return err
	}
	if len(x.docs) >= math.MaxInt32 {
		return errors.New("similarity: too many submissions")
	}
	id := int32(len(x.docs))
	d := &doc{name: name, src: src, first: map[uint64]int32{}} // not the tokens: Regions reads them again
	hashes := kgramHashes(t.kind, x.opts.K)
	d.own = x.ownTokens(hashes, t.len())
	last := map[uint64]int32{} // hash -> its last fingerprint so far
	for _, fp := range winnow(hashes, x.opts.W) {
		if x.stub[fp.hash] {
			continue // the stub's code: everyone has it
		}
		i := int32(len(d.fps))
		d.fps = append(d.fps, fp)
		d.next = append(d.next, -1)
		if j, seen := last[fp.hash]; seen {
			d.next[j] = i
			last[fp.hash] = i
			continue
		}
		last[fp.hash] = i
		d.first[fp.hash] = i
		x.postings[fp.hash] = append(x.postings[fp.hash], id)
	}
	x.docs = append(x.docs, d)
	return nil
}

// ownTokens marks which of n tokens are the stub's, those that a k-gram
// of the stub covers, and returns the running count of the others.
func (x *Index) ownTokens(hashes []uint64, n int) []int32 {
	own := make([]int32, n+1)
	stubUntil := 0 // tokens before this are the stub's
	for i := range n {
		if i < len(hashes) && x.stub[hashes[i]] {
			stubUntil = i + x.opts.K
		}
		own[i+1] = own[i]
		if i >= stubUntil {
			own[i+1]++
		}
	}
	return own
}

// Len is how many submissions were added.
func (x *Index) Len() int { return len(x.docs) }

// Name is the name submission i was added with.
func (x *Index) Name(i int) string { return x.docs[i].name }

// Source is submission i's source.
func (x *Index) Source(i int) []byte { return x.docs[i].src }

// Tokens is how many tokens of submission i are its own: not the stub's.
// Result.Tokens, once the class is compared, also leaves common code out.
func (x *Index) Tokens(i int) int { d := x.docs[i]; return int(d.own[len(d.own)-1]) }
