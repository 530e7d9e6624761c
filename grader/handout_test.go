package grader

import (
	"io/fs"
	"strings"
	"testing"

	"github.com/coursekit/course/labs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestHandoutListsTheAllowedImports keeps the students' handouts in step
// with the policy that grading enforces.
func TestHandoutListsTheAllowedImports(t *testing.T) {
	for _, name := range []string{"10-session/README.md", "10-session/README.zh.md"} {
		data, err := fs.ReadFile(labs.FS, name)
		require.NoError(t, err)
		assert.Contains(t, string(data), strings.Join(AllowedImports, ", "), "labs/%s must list exactly grader.AllowedImports", name)
	}
}
