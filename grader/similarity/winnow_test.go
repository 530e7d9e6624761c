package similarity

import (
	"go/token"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// randomKinds returns n token kinds drawn from the first `alphabet` kinds
// that tokenize can give: a small alphabet makes repeats and ties.
func randomKinds(rng *rand.Rand, n, alphabet int) []token.Token {
	kinds := make([]token.Token, n)
	for i := range kinds {
		kinds[i] = token.IDENT + token.Token(rng.IntN(alphabet))
	}
	return kinds
}

// TestSimilarWinnowingFindsEverySharedRunOfWPlusKMinus1 is winnowing's
// guarantee, over generated streams: two streams that share a run of
// w+k-1 tokens, anywhere in each, have a fingerprint of the same hash
// inside that run in both.
func TestSimilarWinnowingFindsEverySharedRunOfWPlusKMinus1(t *testing.T) {
	rng := rand.New(rand.NewPCG(2003, 11))
	for trial := range 2000 {
		k, w := 1+rng.IntN(15), 1+rng.IntN(12)
		alphabet := []int{2, 5, 40}[trial%3]
		shared := randomKinds(rng, w+k-1, alphabet)
		a, atA := embed(rng, shared, alphabet)
		b, atB := embed(rng, shared, alphabet)

		inRun := func(fps []fingerprint, at int) map[uint64]bool {
			out := map[uint64]bool{}
			for _, fp := range fps {
				if int(fp.pos) >= at && int(fp.pos)+k <= at+len(shared) {
					out[fp.hash] = true
				}
			}
			return out
		}
		fa := inRun(winnow(kgramHashes(a, k), w), atA)
		fb := inRun(winnow(kgramHashes(b, k), w), atB)
		found := false
		for h := range fa {
			found = found || fb[h]
		}
		require.True(t, found, "trial %d: k %d, w %d, a run of %d tokens at %d of %d and at %d of %d: no fingerprint in common",
			trial, k, w, len(shared), atA, len(a), atB, len(b))
	}
}

// embed puts run at a random place among random tokens.
func embed(rng *rand.Rand, run []token.Token, alphabet int) ([]token.Token, int) {
	before := randomKinds(rng, rng.IntN(60), alphabet)
	after := randomKinds(rng, rng.IntN(60), alphabet)
	out := append(append(append([]token.Token{}, before...), run...), after...)
	return out, len(before)
}

// TestSimilarWinnowIsTheRightmostMinimumOfEveryWindow checks the deque
// against the definition, with many ties.
func TestSimilarWinnowIsTheRightmostMinimumOfEveryWindow(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for range 500 {
		hashes := make([]uint64, rng.IntN(80))
		for i := range hashes {
			hashes[i] = uint64(rng.IntN(6))
		}
		w := 1 + rng.IntN(10)
		assert.Equal(t, naiveWinnow(hashes, w), winnow(hashes, w), "hashes %v, w %d", hashes, w)
	}
}

func naiveWinnow(hashes []uint64, w int) []fingerprint {
	if len(hashes) == 0 {
		return nil
	}
	w = min(w, len(hashes))
	var out []fingerprint
	last := -1
	for end := w; end <= len(hashes); end++ {
		best := end - w
		for i := end - w; i < end; i++ {
			if hashes[i] <= hashes[best] {
				best = i
			}
		}
		if best != last {
			out = append(out, fingerprint{hash: hashes[best], pos: int32(best)})
			last = best
		}
	}
	return out
}

func kindsOf(t *testing.T, src string) []token.Token {
	t.Helper()
	toks, err := tokenize("src.go", []byte(src))
	require.NoError(t, err)
	return toks.kind
}

func TestSimilarTokensIgnoreNamesLiteralsCommentsAndLayout(t *testing.T) {
	a := `package p

// Sum adds.
func Sum(xs []int) (total int) {
	for _, x := range xs { total += x }
	return total
}

var names = []string{"a", "b"}
`
	b := `package q
/* renamed */ func Add(values []int) (s int) {
	for _, v := range values {
		s += v // one by one
	}
	return s;
}
var labels = []string{
	"x",
	"y",
}`
	assert.Equal(t, kindsOf(t, a), kindsOf(t, b))
	assert.NotEqual(t, kindsOf(t, a), kindsOf(t, strings.Replace(b, `"x"`, `1.5`, 1)), "a literal keeps its kind")
	assert.NotEqual(t, kindsOf(t, a), kindsOf(t, strings.Replace(b, "s += v", "s -= v", 1)), "operators stay")
}

func TestSimilarTokenizeStopsAtTheFirstError(t *testing.T) {
	_, err := tokenize("bad.go", []byte("package p\n\nvar s = \"never closed\nvar t = 1 @ 2\n"))
	var te *TokenizeError
	require.ErrorAs(t, err, &te)
	assert.ErrorIs(t, err, ErrTokenize)
	assert.Equal(t, 3, te.Line)
	assert.Contains(t, err.Error(), "not Go source at line 3, column 9: string literal not terminated")
}
