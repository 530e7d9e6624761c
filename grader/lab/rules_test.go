package lab

import (
	"flag"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite docs/lab<chapter>-rules.md from the lab sources")

// TestRuleTable keeps docs/lab10-rules.md equal to what the sources say, and
// holds the course to its contract: every rule has a public test, every
// test names the rules it checks, and names only rules that exist.
func TestRuleTable(t *testing.T) {
	cat, err := Load()
	require.NoError(t, err)
	for _, l := range cat.Labs() {
		rules, err := l.Rules()
		require.NoError(t, err)
		tests, err := l.RuleTests()
		require.NoError(t, err)

		known := map[string]bool{}
		for _, r := range rules {
			known[r.ID] = true
		}
		covered := map[string]bool{}
		for _, tt := range tests {
			assert.NotEmpty(t, tt.Rules, "%s has no `// Rule %s.x: ...` first doc comment line: say which rule it checks", tt.Test, l.Chapter)
			for _, r := range tt.Rules {
				assert.True(t, known[r], "%s names rule %s, which labs/%s/%s does not have", tt.Test, r, l.Slug, RulesPath)
				if !tt.Hidden {
					covered[r] = true
				}
			}
		}
		for _, r := range rules {
			assert.True(t, covered[r.ID], "rule %s has no public test: %s", r.ID, r.Text)
		}

		table, err := l.RuleTable()
		require.NoError(t, err)
		doc := filepath.Join("..", "..", "docs", "lab"+l.Chapter+"-rules.md")
		if *update {
			require.NoError(t, os.WriteFile(doc, []byte(table), 0o644))
		}
		got, err := os.ReadFile(doc)
		require.NoError(t, err, "run: go test ./grader/lab -run TestRuleTable -update")
		assert.Equal(t, table, string(got), "%s is out of date; run: go test ./grader/lab -run TestRuleTable -update", doc)
	}
}

// ruleID matches a rule number in prose: 10.5.4, not a version like 1.22.0.
var ruleID = regexp.MustCompile(`\b(\d+\.\d+\.\d+)\b`)

// TestRuleNumbersAreTheSameEverywhere holds the handouts, the chapter guides
// and the hints to the rule table's numbering: every handout and guide
// names every rule, and nothing names a rule that does not exist.
func TestRuleNumbersAreTheSameEverywhere(t *testing.T) {
	cat, err := Load()
	require.NoError(t, err)
	for _, l := range cat.Labs() {
		rules, err := l.Rules()
		require.NoError(t, err)
		known := map[string]bool{}
		for _, r := range rules {
			known[r.ID] = true
		}
		texts := map[string]string{}
		for _, name := range []string{"README.md", "README.zh.md", HintsPath} {
			data, err := fs.ReadFile(l.labsFS, path.Join(l.Slug, name))
			require.NoError(t, err)
			texts["labs/"+l.Slug+"/"+name] = string(data)
		}
		for _, name := range []string{"lab" + l.Chapter + ".md", "lab" + l.Chapter + ".zh.md"} {
			data, err := os.ReadFile(filepath.Join("..", "..", "docs", "guide", name))
			require.NoError(t, err)
			texts["docs/guide/"+name] = string(data)
		}
		for file, text := range texts {
			named := map[string]bool{}
			for _, m := range ruleID.FindAllStringSubmatch(text, -1) {
				if strings.HasPrefix(m[1], l.Chapter+".") {
					named[m[1]] = true
					assert.True(t, known[m[1]], "%s names rule %s, which labs/%s/%s does not have", file, m[1], l.Slug, RulesPath)
				}
			}
			if strings.HasSuffix(file, HintsPath) {
				continue // hints name the rules they help with, not all of them
			}
			for _, r := range rules {
				assert.True(t, named[r.ID], "%s does not state rule %s: %s", file, r.ID, r.Text)
			}
		}
	}
}
