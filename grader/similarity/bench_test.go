package similarity_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/coursekit/course/grader/similarity"
)

// variant is src as one more student might hand it in: renamed, its
// declarations shuffled, and about one statement in ten deleted, doubled
// or swapped with the next.
func variant(t testing.TB, src []byte, seed uint64) []byte {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "src.go", src, parser.SkipObjectResolution)
	require.NoError(t, err)
	rng := rand.New(rand.NewPCG(seed, 2))
	renameUnexported(f, rng)
	ast.Inspect(f, func(n ast.Node) bool {
		if b, ok := n.(*ast.BlockStmt); ok {
			b.List = editStatements(b.List, rng)
		}
		return true
	})
	shuffleDecls(f, rng)
	return printDisguised(t, fset, f, rng)
}

func editStatements(list []ast.Stmt, rng *rand.Rand) []ast.Stmt {
	var out []ast.Stmt
	for i := 0; i < len(list); i++ {
		switch rng.IntN(30) {
		case 0: // deleted
		case 1:
			out = append(out, list[i], list[i])
		case 2:
			if i+1 < len(list) {
				out = append(out, list[i+1], list[i])
				i++
				continue
			}
			out = append(out, list[i])
		default:
			out = append(out, list[i])
		}
	}
	return out
}

// class generates n submissions of lab 10: variants of the reference,
// the alternatives and the stub.
func class(b *testing.B, f labFiles, n int) [][]byte {
	bases := [][]byte{f.stub}
	for _, name := range f.names {
		bases = append(bases, f.solutions[name])
	}
	out := make([][]byte, n)
	for i := range out {
		out[i] = variant(b, bases[i%len(bases)], uint64(i))
	}
	return out
}

// BenchmarkSimilar300 indexes and compares a class of 100 and of 300
// generated submissions. Per submission, indexing (tokens, fingerprints,
// postings) costs the same whatever the class's size: it is linear. The
// scoring visits only pairs that share a fingerprint that is not common.
func BenchmarkSimilar300(b *testing.B) {
	f := filesOf(b, "10")
	all := class(b, f, 300)
	for _, n := range []int{100, 300} {
		subs := all[:n]
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			var index, compare time.Duration
			var r *similarity.Result
			for b.Loop() {
				start := time.Now()
				x, err := similarity.NewIndex(similarity.Options{Stub: f.stub})
				require.NoError(b, err)
				for i, src := range subs {
					require.NoError(b, x.Add(fmt.Sprintf("s%03d", i), src))
				}
				index += time.Since(start)
				start = time.Now()
				r = x.Compare()
				compare += time.Since(start)
			}
			runs := float64(b.N)
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/runs/float64(n), "ns/submission")
			b.ReportMetric(float64(index.Nanoseconds())/runs/float64(n), "index-ns/submission")
			b.ReportMetric(float64(compare.Nanoseconds())/runs/float64(n), "compare-ns/submission")
			b.ReportMetric(float64(len(r.Pairs)), "pairs-scored")
			b.ReportMetric(float64(n*(n-1)/2), "pairs-all")
			b.ReportMetric(float64(r.Visits)/float64(n), "visits/submission")
		})
	}
}
