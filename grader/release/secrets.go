package release

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/coursekit/course/grader/lab"
)

// Sizes of what Scan looks for, in bytes of code with every space removed.
const (
	// keyLen is the length of the prefix by which fragments are indexed; no
	// fragment is shorter.
	keyLen = 24
	// minWindow is the shortest run of statements worth looking for: about
	// three ordinary statements. Shorter runs (`if err != nil { return
	// err }`) are in every Go program.
	minWindow = 60
	// minDecl is the shortest declaration (a type, a var or const block)
	// worth looking for.
	minDecl = 40
	// minBody: a function with fewer statements than this is too plain to
	// tell anything by (a one-line getter, an error constructor).
	minBody = 4
	// window is how many consecutive statements make one fragment.
	window = 3
)

// Secrets are what a release must not hold, read from the course's source
// tree: the names of the hidden tests, and fragments of the code under
// solutions/ (reference and alternative solutions, fuzz targets), of the
// hidden tests and of the mutants (their changed code and the mistake each
// describes). A fragment that also occurs in a lab's public files (the
// stub, given code, public tests, handout) is no secret and is dropped.
type Secrets struct {
	names []secret // matched in raw text
	frags []secret // matched in normalised text (see normalize)
	byKey map[string][]int
}

// secret is a text to look for and what it comes from.
type secret struct {
	text   string
	origin string
}

// Leak is a secret found in a release.
type Leak struct {
	File string // slash-separated, relative to the release
	What string // what was found and where it comes from
}

// LeakError reports a release that would hold what students must not see.
type LeakError struct {
	Leaks []Leak
}

func (e *LeakError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "the release would hold what students must not see (%d finding", len(e.Leaks))
	if len(e.Leaks) != 1 {
		b.WriteString("s")
	}
	b.WriteString("); nothing was written:")
	for i, l := range e.Leaks {
		if i == 10 {
			fmt.Fprintf(&b, "\n  … and %d more", len(e.Leaks)-i)
			break
		}
		fmt.Fprintf(&b, "\n  %s: %s", l.File, l.What)
	}
	return b.String()
}

// LoadSecrets reads the secrets of the course source tree at source.
func LoadSecrets(source string) (*Secrets, error) {
	s := &Secrets{byKey: map[string][]int{}}
	labsDir := filepath.Join(source, "labs")
	cat, err := lab.LoadFS(os.DirFS(labsDir), os.DirFS(filepath.Join(source, "solutions")))
	if err != nil {
		return nil, &SourceError{Path: source, Err: err}
	}

	// Hidden tests: every test name (also as a go test -run pattern, without
	// "Test") and the code of every hidden test file.
	var candidates []secret
	names := map[string]bool{}
	for _, l := range cat.Labs() {
		hidden := path.Join(l.Slug, lab.HiddenDir)
		found, err := lab.TestNames(os.DirFS(labsDir), hidden)
		if err != nil {
			return nil, &SourceError{Path: source, Err: err}
		}
		for _, e := range l.Exercises {
			found = append(found, l.HiddenTests(e.ID)...)
		}
		for _, n := range found {
			if !names[n] {
				names[n] = true
				s.names = append(s.names, secret{strings.TrimPrefix(n, "Test"), "the name of hidden test " + n})
			}
		}
		err = walkFiles(filepath.Join(labsDir, filepath.FromSlash(hidden)), func(p string, data []byte) error {
			if strings.HasSuffix(p, ".go") {
				return goFragments(data, "labs/"+hidden+"/"+filepath.Base(p), &candidates)
			}
			return nil
		})
		if err != nil {
			return nil, &SourceError{Path: source, Err: err}
		}
	}

	// solutions/: every Go file and every mutant.
	solDir := filepath.Join(source, "solutions")
	err = walkFiles(solDir, func(p string, data []byte) error {
		rel, _ := filepath.Rel(source, p)
		rel = filepath.ToSlash(rel)
		switch {
		case strings.HasSuffix(p, ".go"):
			return goFragments(data, rel, &candidates)
		case strings.HasSuffix(p, ".patch"):
			patchFragments(data, rel, &candidates)
		}
		return nil
	})
	if err != nil {
		return nil, &SourceError{Path: source, Err: err}
	}

	// What the labs give students anyway is no secret.
	public := newIndex(candidates)
	err = walkFiles(labsDir, func(p string, data []byte) error {
		if rel, _ := filepath.Rel(labsDir, p); strings.Contains(filepath.ToSlash(rel), "/"+lab.HiddenDir+"/") {
			return nil
		}
		public.find(normalize(p, data), func(int) {})
		return nil
	})
	if err != nil {
		return nil, &SourceError{Path: source, Err: err}
	}
	seen := map[string]bool{}
	for i, c := range candidates {
		if public.hit[i] || seen[c.text] {
			continue
		}
		seen[c.text] = true
		s.frags = append(s.frags, c)
	}
	for i, f := range s.frags {
		k := f.text[:keyLen]
		s.byKey[k] = append(s.byKey[k], i)
	}
	return s, nil
}

// Len returns how many names and fragments s looks for.
func (s *Secrets) Len() (names, fragments int) { return len(s.names), len(s.frags) }

// Scan searches every regular file under dir for the secrets and returns
// what it found, by file then finding.
func (s *Secrets) Scan(dir string) ([]Leak, error) {
	var leaks []Leak
	err := walkFiles(dir, func(p string, data []byte) error {
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		found := map[string]bool{}
		for _, n := range s.names {
			if containsName(data, n.text) {
				found[n.origin] = true
			}
		}
		idx := &index{frags: s.frags, byKey: s.byKey, hit: map[int]bool{}}
		idx.find(normalize(p, data), func(i int) { found[s.frags[i].origin] = true })
		for what := range found {
			leaks = append(leaks, Leak{File: rel, What: what})
		}
		return nil
	})
	sort.Slice(leaks, func(i, j int) bool {
		if leaks[i].File != leaks[j].File {
			return leaks[i].File < leaks[j].File
		}
		return leaks[i].What < leaks[j].What
	})
	return leaks, err
}

// containsName reports whether name occurs in data as a whole name: not
// followed by a letter, digit or underscore, so that hidden test
// LabN_M_Cycle is not found in public test LabN_M_CycleLong.
func containsName(data []byte, name string) bool {
	for rest := data; ; {
		i := bytes.Index(rest, []byte(name))
		if i < 0 {
			return false
		}
		rest = rest[i+len(name):]
		if len(rest) == 0 || !isIdentByte(rest[0]) {
			return true
		}
	}
}

func isIdentByte(c byte) bool {
	return c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c >= 0x80
}

// walkFiles calls fn with every regular text file under root (a missing
// root has none); files holding a NUL byte are binary and skipped.
func walkFiles(root string, fn func(p string, data []byte) error) error {
	if _, err := os.Stat(root); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !d.Type().IsRegular() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if bytes.IndexByte(data, 0) >= 0 {
			return nil
		}
		return fn(p, data)
	})
}

// index finds fragments in a text by their first keyLen bytes.
type index struct {
	frags []secret
	byKey map[string][]int
	hit   map[int]bool
}

func newIndex(frags []secret) *index {
	x := &index{frags: frags, byKey: map[string][]int{}, hit: map[int]bool{}}
	for i, f := range frags {
		k := f.text[:keyLen]
		x.byKey[k] = append(x.byKey[k], i)
	}
	return x
}

// find calls hit with every fragment that occurs in text, and records it.
func (x *index) find(text []byte, hit func(i int)) {
	for p := 0; p+keyLen <= len(text); p++ {
		ids, ok := x.byKey[string(text[p:p+keyLen])]
		if !ok {
			continue
		}
		for _, i := range ids {
			if bytes.HasPrefix(text[p:], []byte(x.frags[i].text)) {
				x.hit[i] = true
				hit(i)
			}
		}
	}
}

// normalize returns text as fragments are compared: Go source printed
// again without its comments, other text without // comments, and then
// without any white space, so that layout, indentation and comments added
// around copied code do not hide it.
func normalize(name string, data []byte) []byte {
	if strings.HasSuffix(name, ".go") {
		fset := token.NewFileSet()
		if f, err := parser.ParseFile(fset, name, data, parser.SkipObjectResolution); err == nil {
			var buf bytes.Buffer
			if printer.Fprint(&buf, fset, f) == nil {
				return squeeze(buf.Bytes())
			}
		}
	}
	var b bytes.Buffer
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), len(data)+1)
	for sc.Scan() {
		line := sc.Bytes()
		if i := bytes.Index(line, []byte("//")); i >= 0 {
			line = line[:i]
		}
		b.Write(line)
	}
	return squeeze(b.Bytes())
}

// squeeze removes every space, tab and line break.
func squeeze(b []byte) []byte {
	out := make([]byte, 0, len(b))
	for _, c := range b {
		switch c {
		case ' ', '\t', '\n', '\r', '\v', '\f':
		default:
			out = append(out, c)
		}
	}
	return out
}

// goFragments adds the fragments of a Go file: for every function of at
// least minBody statements, every run of window consecutive statements of
// every block in it (a shorter block whole); every type, var and const
// declaration.
func goFragments(src []byte, origin string, out *[]secret) error {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, origin, src, parser.SkipObjectResolution)
	if err != nil {
		return err
	}
	show := func(n ast.Node) string {
		var buf bytes.Buffer
		_ = printer.Fprint(&buf, fset, n)
		return string(squeeze(buf.Bytes()))
	}
	add := func(text string, least int, what string) {
		if len(text) >= least && len(text) >= keyLen {
			*out = append(*out, secret{text, what + " of " + origin})
		}
	}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.GenDecl:
			if d.Tok != token.IMPORT {
				add(show(d), minDecl, "a declaration")
			}
		case *ast.FuncDecl:
			// Not the signature alone: the guides show helpers of the same
			// shape on purpose, as a way to start.
			name := funcName(d)
			if d.Body == nil || countStmts(d.Body) < minBody {
				continue
			}
			ast.Inspect(d.Body, func(n ast.Node) bool {
				var list []ast.Stmt
				switch n := n.(type) {
				case *ast.BlockStmt:
					list = n.List
				case *ast.CaseClause:
					list = n.Body
				case *ast.CommClause:
					list = n.Body
				default:
					return true
				}
				for i := 0; i == 0 || i+window <= len(list); i++ {
					var b strings.Builder
					for _, st := range list[i:min(i+window, len(list))] {
						b.WriteString(show(st))
					}
					add(b.String(), minWindow, "code of "+name)
				}
				return true
			})
		}
	}
	return nil
}

// funcName is "func Name" or "func (T) Name".
func funcName(fn *ast.FuncDecl) string {
	if fn.Recv == nil || len(fn.Recv.List) == 0 {
		return "func " + fn.Name.Name
	}
	t := fn.Recv.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	if x, ok := t.(*ast.IndexExpr); ok {
		t = x.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return "func (" + id.Name + ") " + fn.Name.Name
	}
	return "func " + fn.Name.Name
}

// countStmts counts the statements in body at any depth, blocks aside.
func countStmts(body *ast.BlockStmt) int {
	n := 0
	ast.Inspect(body, func(x ast.Node) bool {
		switch x.(type) {
		case *ast.BlockStmt, *ast.EmptyStmt:
		case ast.Stmt:
			n++
		}
		return true
	})
	return n
}

// patchFragments adds a mutant's fragments: the mistake it describes, and
// the code of each hunk before and after the change (context with the
// removed lines, context with the added ones).
func patchFragments(data []byte, origin string, out *[]secret) {
	var before, after strings.Builder
	flush := func() {
		for _, t := range []string{before.String(), after.String()} {
			if s := string(squeeze([]byte(t))); len(s) >= minWindow {
				*out = append(*out, secret{s, "a mutant's code (" + origin + ")"})
			}
		}
		before.Reset()
		after.Reset()
	}
	inHunk := false
	for _, line := range strings.Split(string(data), "\n") {
		switch {
		case strings.HasPrefix(line, "Mistake: "):
			if s := string(squeeze([]byte(strings.TrimPrefix(line, "Mistake: ")))); len(s) >= keyLen {
				*out = append(*out, secret{s, "a mutant's mistake (" + origin + ")"})
			}
		case strings.HasPrefix(line, "@@"):
			flush()
			inHunk = true
		case strings.HasPrefix(line, "diff ") || strings.HasPrefix(line, "--- ") || strings.HasPrefix(line, "+++ "):
			flush()
			inHunk = false
		case inHunk && strings.HasPrefix(line, "-"):
			before.WriteString(dropComment(line[1:]))
		case inHunk && strings.HasPrefix(line, "+"):
			after.WriteString(dropComment(line[1:]))
		case inHunk && strings.HasPrefix(line, " "):
			before.WriteString(dropComment(line[1:]))
			after.WriteString(dropComment(line[1:]))
		}
	}
	flush()
}

// dropComment cuts a line comment off a line of Go, as normalize does.
func dropComment(line string) string {
	if i := strings.Index(line, "//"); i >= 0 {
		return line[:i]
	}
	return line
}
