package lab_test

// One engine for every chapter: the course tool and the grading engine
// read everything about a lab from its manifest, so no string of theirs
// names one. A chapter added tomorrow is checked here by being in the
// catalog, with no change to this test.

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coursekit/course/grader/lab"
)

// chapterNames returns, for the labs of c, what would mark a text as
// written for one of them: each with what it is, for the failure message.
func chapterNames(c *lab.Catalog) map[string]*regexp.Regexp {
	out := map[string]*regexp.Regexp{}
	word := func(what, s string) {
		out[what] = regexp.MustCompile(`(?:^|[^\w.-])` + regexp.QuoteMeta(s) + `(?:$|[^\w])`)
	}
	for _, l := range c.Labs() {
		ch := regexp.QuoteMeta(l.Chapter)
		// An exercise or rule id ("10.3", "10.3.1"), not a version ("1.10.3").
		out["an exercise or rule of chapter "+l.Chapter] = regexp.MustCompile(`(?:^|[^\w.])` + ch + `\.\d`)
		// "chapter 10", "Lab 10", "lab10-template", "exercises 10".
		out["chapter "+l.Chapter+" by name"] = regexp.MustCompile(`(?i)\b(?:chapters?|labs?|exercises?)[ _-]?` + ch + `\b`)
		// A chapter as a command's argument: "course practice 10 mylab".
		out["chapter "+l.Chapter+" as an argument"] = regexp.MustCompile(`(?:\bpractice|\bselfcheck|--chapter)[ =]+` + ch + `\b`)
		out["lab "+l.Chapter+"'s test names"] = regexp.MustCompile(`Lab` + ch + `_`)
		word("lab "+l.Chapter+"'s directory", l.Slug)
		word("lab "+l.Chapter+"'s test package", l.Package+"_test")
		for _, f := range l.Editable {
			word("lab "+l.Chapter+"'s editable file", f)
		}
		for _, e := range l.Exercises {
			// An exercise named like a Go identifier (PathTo, RecoverJSONL):
			// a word of two capitals or more is the lab's, not English.
			for _, w := range strings.Fields(e.Name) {
				if upper := strings.IndexFunc(w[1:], unicode.IsUpper); upper >= 0 && unicode.IsUpper(rune(w[0])) {
					out["exercise "+e.ID+"'s name "+w] = regexp.MustCompile(`\b` + regexp.QuoteMeta(w) + `\b`)
				}
			}
		}
	}
	return out
}

// namedChapters returns "what (text)" for each of names that text matches.
func namedChapters(text string, names map[string]*regexp.Regexp) []string {
	var out []string
	for what, re := range names {
		if m := re.FindString(text); m != "" {
			out = append(out, fmt.Sprintf("%s (%q)", what, strings.TrimSpace(m)))
		}
	}
	sort.Strings(out)
	return out
}

// engineTexts returns what the Go source file src says at run time: its
// string literals, line by line, keyed by line number. Comments are left
// out: a doc comment may give an example ("10.3") or a default
// ("session.go") of the course as it is, and stays true of it.
func engineTexts(t *testing.T, name string, src []byte) map[int][]string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
	require.NoError(t, err)
	out := map[int][]string{}
	ast.Inspect(f, func(n ast.Node) bool {
		lit, ok := n.(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			return true
		}
		text, err := strconv.Unquote(lit.Value)
		require.NoError(t, err, "%s: %s", fset.Position(lit.Pos()), lit.Value)
		line := fset.Position(lit.Pos()).Line
		for i, l := range strings.Split(text, "\n") { // a raw string's lines
			if lit.Value[0] != '`' {
				i = 0 // "a\nb" is on one line of the source
			}
			out[line+i] = append(out[line+i], l)
		}
		return true
	})
	return out
}

// TestEngineNamesNoChapter holds the course tool (cmd/) and the grading
// engine (grader/) to taking every lab from the catalog: no string of
// theirs (a message, a help text, a default, a template) names a chapter,
// an exercise, a test prefix, or a lab's directory, package or file. Help
// texts use placeholders that the tool fills in from the catalog
// (cmd/course/internal/cli/help.go). Tests and testdata may name the labs
// they test.
func TestEngineNamesNoChapter(t *testing.T) {
	c, err := lab.Load()
	require.NoError(t, err)
	names := chapterNames(c)
	root := filepath.Join("..", "..")
	checked := 0
	for _, dir := range []string{"cmd", "grader"} {
		err := filepath.WalkDir(filepath.Join(root, dir), func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if d.Name() == "testdata" {
					return fs.SkipDir // data, not the engine
				}
				return nil
			}
			n := d.Name()
			if strings.HasSuffix(n, "_test.go") || !(strings.HasSuffix(n, ".go") || strings.HasSuffix(n, ".tmpl")) {
				return nil
			}
			src, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(root, p)
			rel = filepath.ToSlash(rel)
			texts := map[int][]string{}
			if strings.HasSuffix(n, ".go") {
				texts = engineTexts(t, rel, src)
			} else { // a template is written out whole
				for i, line := range strings.Split(string(src), "\n") {
					texts[i+1] = []string{line}
				}
			}
			checked++
			lines := make([]int, 0, len(texts))
			for line := range texts {
				lines = append(lines, line)
			}
			sort.Ints(lines)
			for _, line := range lines {
				for _, lit := range texts[line] {
					for _, hit := range namedChapters(lit, names) {
						t.Errorf("%s:%d: names %s: take the lab from the catalog (lab.Load) at run time, "+
							"or in a help text use a placeholder (cmd/course/internal/cli/help.go)", rel, line, hit)
					}
				}
			}
			return nil
		})
		require.NoError(t, err)
	}
	assert.Greater(t, checked, 50, "the engine's sources were found")
}

// TestChapterNamesAreFound holds the check above to what it must catch, on
// a chapter of a catalog made for the purpose.
func TestChapterNamesAreFound(t *testing.T) {
	names := chapterNames(fixtureCatalog(t))
	for _, text := range []string{
		`grade only exercise 7.2`, `course practice 7 x`, `see chapter 7`, `Lab 7: ...`,
		`lab7-template`, `go test -run Lab7_1`, `TestLab7_2_Hidden`, `labs/07-demo/README.md`,
		`take demo.go from it`, `package demo_test`, `Rule 7.1.3`, `--chapter=7`, `course selfcheck 7`,
		`{"7.1": []}`,
	} {
		assert.NotEmpty(t, namedChapters(text, names), "%q names lab 7", text)
	}
	for _, text := range []string{
		`go 1.22.7`, `v0.7.1`, `N.M`, `Lab<chapter>_1`, `practice <chapter> mylab`, `7 labs`, `demos.go`, `a demo`,
		`chapter 17`, `17.2`, `TestLab17_1_`,
	} {
		assert.Empty(t, namedChapters(text, names), "%q names no lab", text)
	}
}

func TestEngineTextsAreTheStringsOfASource(t *testing.T) {
	src := "package p\n\n// See 7.1: a comment is not said.\nconst a = \"one\\ntwo\"\n\nvar b = `three\nfour`\n"
	assert.Equal(t, map[int][]string{4: {"one", "two"}, 6: {"three"}, 7: {"four"}}, engineTexts(t, "p.go", []byte(src)))
}

func fixtureCatalog(t *testing.T) *lab.Catalog {
	t.Helper()
	labsFS, solFS := fixtureFS()
	c, err := lab.LoadFS(labsFS, solFS)
	require.NoError(t, err)
	return c
}
