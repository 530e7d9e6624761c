package lab

import (
	"io/fs"
	"path"
	"regexp"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Where a handout tells a reader of the chapter's seed how many public tests
// the lab has ("**24 public tests** for 4.1 to 4.3 (and 12 for the optional
// 4.4)", "4.1 到 4.3 有 **24 个公开测试**（可选的 4.4 另有 12 个）").
var (
	testCountEN = regexp.MustCompile(`\*\*(\d+) public tests\*\*\s+for\s+(\d+\.\d+)\s+to\s+(\d+\.\d+)(?:\s+\(and\s+(\d+)\s+for\s+the\s+optional\s+(\d+\.\d+)\))?`)
	testCountZH = regexp.MustCompile(`(\d+\.\d+) 到 (\d+\.\d+) 有 \*\*(\d+) 个公开测试\*\*(?:（可选的 (\d+\.\d+) 另有 (\d+) 个）)?`)
)

// TestHandoutsCountTheirPublicTests keeps the numbers a handout gives for its
// public tests equal to the tests there are, in both editions.
func TestHandoutsCountTheirPublicTests(t *testing.T) {
	cat, err := Load()
	require.NoError(t, err)
	counted := 0
	for _, l := range cat.Labs() {
		span := func(from, to string) int {
			n, in := 0, false
			for _, e := range l.Exercises {
				in = in || e.ID == from
				if in {
					n += len(l.PublicTests(e.ID))
				}
				if e.ID == to {
					break
				}
			}
			return n
		}
		for _, name := range []string{"README.md", "README.zh.md"} {
			data, err := fs.ReadFile(l.labsFS, path.Join(l.Slug, name))
			require.NoError(t, err)
			type claim struct{ n, from, to string }
			var claims []claim
			for _, m := range testCountEN.FindAllStringSubmatch(string(data), -1) {
				claims = append(claims, claim{m[1], m[2], m[3]})
				if m[4] != "" {
					claims = append(claims, claim{m[4], m[5], m[5]})
				}
			}
			for _, m := range testCountZH.FindAllStringSubmatch(string(data), -1) {
				claims = append(claims, claim{m[3], m[1], m[2]})
				if m[4] != "" {
					claims = append(claims, claim{m[5], m[4], m[4]})
				}
			}
			for _, c := range claims {
				counted++
				assert.Equal(t, strconv.Itoa(span(c.from, c.to)), c.n, "labs/%s/%s says %s public tests for %s to %s", l.Slug, name, c.n, c.from, c.to)
			}
		}
	}
	assert.GreaterOrEqual(t, counted, 8, "the handouts of labs 4 and 10 give their counts, in both editions")
}
