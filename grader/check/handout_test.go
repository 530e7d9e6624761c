package check

import (
	"io/fs"
	"path"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coursekit/course/grader/lab"
	"github.com/coursekit/course/labs"
)

// TestHandoutListsTheAllowedImports keeps every lab's handouts (both
// editions) in step with the policy that grading enforces for that lab.
func TestHandoutListsTheAllowedImports(t *testing.T) {
	cat, err := lab.Load()
	require.NoError(t, err)
	for _, l := range cat.Labs() {
		want := strings.Join(AllowedImportsOf(l), ", ")
		for _, name := range []string{"README.md", "README.zh.md"} {
			data, err := fs.ReadFile(labs.FS, path.Join(l.Slug, name))
			require.NoError(t, err)
			assert.Contains(t, string(data), want, "labs/%s/%s must list exactly the imports grading allows in lab %s", l.Slug, name, l.Chapter)
		}
	}
}
