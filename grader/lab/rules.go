package lab

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path"
	"regexp"
	"sort"
	"strings"
)

// RulesPath is where a lab keeps its numbered rules, beside its manifest.
const RulesPath = MetaDir + "/rules.json"

// Rule is one numbered rule of a lab's contract: something the exercises
// must make true, which at least one test checks.
type Rule struct {
	ID   string `json:"id"`
	Text string `json:"text"`
}

// RuleTest is a test and the rules its doc comment says it checks, in the
// form "// Rule N.M.1, N.M.2: why".
type RuleTest struct {
	Test   string
	Hidden bool
	Rules  []string
}

// Rules returns the lab's rules in file order.
func (l *Lab) Rules() ([]Rule, error) {
	p := path.Join(l.Slug, RulesPath)
	data, err := fs.ReadFile(l.labsFS, p)
	if err != nil {
		return nil, &ManifestError{Path: p, Err: err}
	}
	var rules []Rule
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rules); err != nil {
		return nil, &ManifestError{Path: p, Err: err}
	}
	return rules, nil
}

var ruleComment = regexp.MustCompile(`^Rule ([0-9.]+(?:, [0-9.]+)*):`)

// RuleTests returns every test of the lab, public then hidden, with the rules
// its doc comment names (none if it names none).
func (l *Lab) RuleTests() ([]RuleTest, error) {
	var out []RuleTest
	for _, d := range []struct {
		dir    string
		hidden bool
	}{{l.Slug, false}, {path.Join(l.Slug, HiddenDir), true}} {
		entries, err := fs.ReadDir(l.labsFS, d.dir)
		if err != nil {
			if d.hidden {
				continue
			}
			return nil, err
		}
		for _, e := range entries {
			if !isGoTestFile(e) {
				continue
			}
			p := path.Join(d.dir, e.Name())
			src, err := fs.ReadFile(l.labsFS, p)
			if err != nil {
				return nil, err
			}
			f, err := parser.ParseFile(token.NewFileSet(), p, src, parser.ParseComments|parser.SkipObjectResolution)
			if err != nil {
				return nil, err
			}
			for _, decl := range f.Decls {
				fn, ok := decl.(*ast.FuncDecl)
				if !ok || !isTestFunc(fn) {
					continue
				}
				rt := RuleTest{Test: fn.Name.Name, Hidden: d.hidden}
				if fn.Doc != nil {
					first, _, _ := strings.Cut(fn.Doc.Text(), "\n")
					if m := ruleComment.FindStringSubmatch(first); m != nil {
						rt.Rules = strings.Split(m[1], ", ")
					}
				}
				out = append(out, rt)
			}
		}
	}
	return out, nil
}

// MutantRules maps each rule to the mutants (kept wrong solutions, in the
// solutions' <slug>/mutants/*.patch) that name it in their "Rules:" header.
// A lab without mutants (a student release) has none.
func (l *Lab) MutantRules() (map[string][]string, error) {
	dir := path.Join(l.Slug, "mutants")
	entries, err := fs.ReadDir(l.solutionsFS, dir)
	if err != nil {
		return map[string][]string{}, nil
	}
	out := map[string][]string{}
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".patch") {
			continue
		}
		data, err := fs.ReadFile(l.solutionsFS, path.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		id := strings.TrimSuffix(e.Name(), ".patch")
		for _, line := range strings.Split(string(data), "\n") {
			if line == "" || strings.HasPrefix(line, "diff ") || strings.HasPrefix(line, "--- ") {
				break // the header ends at the first blank line or the diff
			}
			if rules, ok := strings.CutPrefix(line, "Rules: "); ok {
				for _, r := range strings.Split(rules, ",") {
					if r = strings.TrimSpace(r); r != "" {
						out[r] = append(out[r], id)
					}
				}
			}
		}
	}
	return out, nil
}

// RuleTable renders the lab's rules as a Markdown table, each with the
// public and hidden tests that check it. It is how docs/ keeps a table that
// cannot drift: a test compares the file with this.
func (l *Lab) RuleTable() (string, error) {
	rules, err := l.Rules()
	if err != nil {
		return "", err
	}
	tests, err := l.RuleTests()
	if err != nil {
		return "", err
	}
	mutants, err := l.MutantRules()
	if err != nil {
		return "", err
	}
	public, hidden := map[string][]string{}, map[string][]string{}
	for _, t := range tests {
		for _, r := range t.Rules {
			if t.Hidden {
				hidden[r] = append(hidden[r], t.Test)
			} else {
				public[r] = append(public[r], t.Test)
			}
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# Lab %s: rules and the tests that check them\n\n", l.Chapter)
	if len(mutants) == 0 && len(hidden) == 0 {
		// A student release: the hidden tests and the mutants stay with the
		// instructor, so this copy cannot list them.
		fmt.Fprintf(&b, "Generated from `labs/%s/%s` and the `// Rule` doc comments of the lab's public tests; do not edit.\n", l.Slug, RulesPath)
		fmt.Fprintf(&b, "Grading also runs hidden tests of the same rules, which this copy of the course does not include.\n\n")
		b.WriteString("| rule | what must be true | public tests |\n| --- | --- | --- |\n")
		for _, r := range rules {
			fmt.Fprintf(&b, "| %s | %s | %s |\n", r.ID, strings.ReplaceAll(r.Text, "|", `\|`), codeList(public[r.ID]))
		}
		return b.String(), nil
	}
	fmt.Fprintf(&b, "Generated from `labs/%s/%s`, the `// Rule` doc comments of the lab's tests and the `Rules:` headers of\n", l.Slug, RulesPath)
	fmt.Fprintf(&b, "the mutants in `solutions/%s/mutants` (wrong solutions that a test of the rule must catch: `course selfcheck`\n", l.Slug)
	fmt.Fprintf(&b, "proves it on every run); do not edit.\n")
	fmt.Fprintf(&b, "Regenerate with `go test ./grader/lab -run TestRuleTable -update`. Hidden tests are never copied to students.\n\n")
	b.WriteString("| rule | what must be true | public tests | hidden tests | mutants caught |\n| --- | --- | --- | --- | --- |\n")
	for _, r := range rules {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", r.ID, strings.ReplaceAll(r.Text, "|", `\|`),
			codeList(public[r.ID]), codeList(hidden[r.ID]), codeList(mutants[r.ID]))
	}
	return b.String(), nil
}

func codeList(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	sorted := append([]string(nil), names...)
	sort.Strings(sorted)
	for i, n := range sorted {
		sorted[i] = "`" + n + "`"
	}
	return strings.Join(sorted, "<br>")
}
