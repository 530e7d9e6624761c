package lab

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path"
	"sort"
)

// TestNames returns the test functions of the *_test.go files directly in
// dir of fsys, by the go command's rules: files in name order, functions in
// source order. The grader uses it for an instructor's private test suite.
func TestNames(fsys fs.FS, dir string) ([]string, error) {
	return testNames(fsys, dir)
}

// TestFileNames returns, sorted and once each, every package-level name
// (functions, types, variables, constants; not methods, not "_") that the
// lab's public and hidden test files declare. The tests live in an external
// test package, so a student file may declare every one of these names
// again: a proof of that declares them all beside the reference solution.
func (l *Lab) TestFileNames() ([]string, error) {
	seen := map[string]bool{}
	for _, dir := range []string{l.Slug, path.Join(l.Slug, HiddenDir)} {
		entries, err := fs.ReadDir(l.labsFS, dir)
		if err != nil {
			if dir != l.Slug {
				continue // a release has no hidden tests
			}
			return nil, err
		}
		for _, e := range entries {
			if !isGoTestFile(e) {
				continue
			}
			p := path.Join(dir, e.Name())
			src, err := fs.ReadFile(l.labsFS, p)
			if err != nil {
				return nil, err
			}
			f, err := parser.ParseFile(token.NewFileSet(), p, src, parser.SkipObjectResolution)
			if err != nil {
				return nil, err
			}
			for _, n := range declaredNames(f) {
				seen[n] = true
			}
		}
	}
	out := make([]string, 0, len(seen))
	for n := range seen {
		out = append(out, n)
	}
	sort.Strings(out)
	return out, nil
}

// declaredNames returns the package-level names f declares, methods and
// the blank identifier left out.
func declaredNames(f *ast.File) []string {
	var names []string
	add := func(id *ast.Ident) {
		if id.Name != "_" {
			names = append(names, id.Name)
		}
	}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil && d.Name.Name != "init" {
				add(d.Name)
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.ValueSpec:
					for _, n := range s.Names {
						add(n)
					}
				case *ast.TypeSpec:
					add(s.Name)
				}
			}
		}
	}
	return names
}
