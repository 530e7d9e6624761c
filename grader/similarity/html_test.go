package similarity_test

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coursekit/course/grader/similarity"
)

func TestSimilarHTMLShowsPairsSideBySideAndEscapesEverything(t *testing.T) {
	f := filesOf(t, "4")
	hostile := append([]byte(nil), f.solutions["reference"]...)
	hostile = append(hostile, "\nconst shout = \"</pre><script>alert(1)</script>\" // \u202e evil\n"...)
	r := compare(t, f.stub,
		"ann<script>", hostile,
		"bob\u202e", disguise(t, f.solutions["reference"], 1),
		"cid", f.solutions["cursor"])
	require.Len(t, r.Pairs, 3)

	var b bytes.Buffer
	require.NoError(t, similarity.WriteHTML(&b, r, r.Pairs, similarity.HTMLOptions{Title: "Lab 4: similar code", Notes: []string{"dan: not Go\nsource"}}))
	page := b.String()

	assert.NotContains(t, page, "<script", "no script, and a student's text never markup")
	assert.Contains(t, page, "ann&lt;script&gt;")
	assert.Contains(t, page, `&lt;/pre&gt;&lt;script&gt;alert(1)&lt;/script&gt;`)
	assert.Contains(t, page, `bob\u202e`, "a bidirectional character is shown as an escape")
	assert.NotContains(t, page, "\u202e")
	assert.Contains(t, page, `dan: not Go\x0asource`)
	for _, external := range []string{"http://", "https://", "<link", "src=", "@import", "url("} {
		assert.NotContains(t, page, external, "nothing from the network")
	}
	assert.Contains(t, page, "<style>")

	// Pairs in the order given, each with both files and its regions.
	order := regexp.MustCompile(`<h2>(\d+)\. <span class="name">([^<]*)</span> and <span class="name">([^<]*)</span>: (\d+)%</h2>`).FindAllStringSubmatch(page, -1)
	require.Len(t, order, 3)
	for i, m := range order {
		p := r.Pairs[i]
		assert.Equal(t, []string{string(rune('1' + i)), r.Name(p.A), r.Name(p.B)},
			[]string{m[1], strings.ReplaceAll(unescape(m[2]), `\u202e`, "\u202e"), strings.ReplaceAll(unescape(m[3]), `\u202e`, "\u202e")})
	}
	assert.Equal(t, strings.Count(page, "<mark"), strings.Count(page, "</mark>"))
	regions := r.Regions(r.Pairs[0])
	require.NotEmpty(t, regions)
	for i := range regions {
		for _, side := range []string{"a", "b"} {
			id := "p1-" + side + string(rune('1'+i))
			if i < 9 {
				assert.Contains(t, page, `id="`+id+`"`, "region %d is marked on side %s", i+1, side)
				assert.Contains(t, page, `href="#`+id+`"`, "and linked to")
			}
		}
	}
}

func unescape(s string) string {
	return strings.NewReplacer("&lt;", "<", "&gt;", ">", "&amp;", "&", "&#34;", `"`, "&#39;", "'").Replace(s)
}

// TestSimilarRepetitiveInputStaysCheap feeds what makes naive matchers
// quadratic: one statement repeated up to MaxTokens, in several
// submissions; and a source of more tokens is refused.
func TestSimilarRepetitiveInputStaysCheap(t *testing.T) {
	src := []byte("package p\n\nfunc F() {\n" + strings.Repeat("\tx = x + 1\n", similarity.MaxTokens/6-10) + "}\n")
	start := time.Now()
	var srcs []any
	for _, n := range []string{"a", "b", "c"} {
		srcs = append(srcs, n, src)
	}
	r := compare(t, nil, srcs...)
	require.Len(t, r.Pairs, 3)
	for _, p := range r.Pairs {
		assert.Greater(t, p.Score, 0.99)
		assert.NotEmpty(t, r.Regions(p))
	}
	var b bytes.Buffer
	require.NoError(t, similarity.WriteHTML(&b, r, r.Pairs[:1], similarity.HTMLOptions{Title: "t"}))
	assert.Less(t, time.Since(start), 20*time.Second, "linear work, not quadratic")

	x, err := similarity.NewIndex(similarity.Options{})
	require.NoError(t, err)
	dense := []byte("package p\n\nvar x = x" + strings.Repeat("+x", 1<<19) + "\n") // 1 MiB, a token a byte
	assert.ErrorIs(t, x.Add("d", dense), similarity.ErrTooManyTokens)
	assert.Zero(t, x.Len())
}
