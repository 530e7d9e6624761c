package release

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestRulesDecidePathByPath(t *testing.T) {
	for rel, want := range map[string]bool{
		"go.mod":                               true,
		"go.sum":                               true,
		"README.md":                            true,
		".gitignore":                           true,
		"LICENSE":                              true,
		"cmd":                                  true,
		"cmd/course/main.go":                   true,
		"grader/lab/lab.go":                    true,
		"grader/lab/proof_test.go":             true,
		"grader/testjson/testdata/mixed.jsonl": true,
		"labs/labs.go":                         true,
		"labs/10-session/session.go":           true,
		"labs/10-session/.meta/lab.json":       true,
		"labs/10-session/.meta/hints.json":     true,
		"docs/guide":                           true,
		"docs/guide/lab10.md":                  true,
		"labs/10-session/.hidden":              false,
		"labs/10-session/.hidden/parse_hidden.go": false,
		"labs/11-next/.hidden":                    false,
		"solutions":                               false,
		"solutions/10-session/session.go":         false,
		".git":                                    false,
		".ci":                                     false,
		".ci/run":                                 false,
		"docs/lab10-rules.md":                     false,
		"docs/lab11-rules.md":                     false,
		"docs/grading.md":                         false,
		"docs/selfcheck.md":                       false,
		"docs/performance.md":                     false,
		"docs/instructors.md":                     false,
		"docs/release.md":                         false,
		"docs/authoring.md":                       false,
		"grader/grader.test":                      false,
		"grader/cover.out":                        false,
		"cmd/course/internal/cli/.release.go.swp": false,
		"labs/10-session/session.go~":             false,
		"labs/.mylab.course-tmp-123":              false,
		".vscode":                                 false,

		// npm's installs, wherever they are; the node project stays.
		"grader/piconform/testdata/pi/package.json": true,
		"grader/piconform/testdata/pi/pi.mjs":       true,
		"grader/piconform/testdata/pi/node_modules": false,
	} {
		r, ok := decide(rel)
		assert.Equal(t, want, ok && r.Keep, "%s (rule %q)", rel, r.Pattern)
		if ok {
			assert.NotEmpty(t, r.Why, "rule %q says why", r.Pattern)
		}
	}
	// Not on the list at all: left out, unless something kept is inside.
	for _, rel := range []string{"course", "mylab", "docs/new-instructor-notes.md", "scripts", "Makefile"} {
		_, ok := decide(rel)
		assert.False(t, ok, rel)
		assert.False(t, leadsToKept(rel), rel)
	}
	_, ok := decide("docs")
	assert.False(t, ok)
	assert.True(t, leadsToKept("docs"), "docs/ is entered for docs/guide/")
}

func TestContainsNameIsWholeName(t *testing.T) {
	data := []byte("go test -run Lab10_1_CycleLong; see TestLab10_1_Cycle.\n")
	assert.True(t, containsName(data, "Lab10_1_Cycle"), "the second occurrence is whole")
	assert.False(t, containsName([]byte("TestLab10_1_CycleLong"), "Lab10_1_Cycle"))
	assert.True(t, containsName([]byte("x Lab10_1_Cycle"), "Lab10_1_Cycle"), "at the very end")
	assert.False(t, containsName([]byte("nothing"), "Lab10_1_Cycle"))
}
