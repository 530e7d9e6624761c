package similarity_test

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"go/types"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// disguise returns src as a student hiding a copy would hand it in: every
// unexported identifier (top-level, local, field and method) renamed,
// the top-level declarations shuffled, the comments replaced by others,
// and the layout changed. It is still the same program, token for token
// within each declaration.
func disguise(t testing.TB, src []byte, seed uint64) []byte {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "src.go", src, parser.SkipObjectResolution)
	require.NoError(t, err)
	rng := rand.New(rand.NewPCG(seed, 1))
	renameUnexported(f, rng)
	shuffleDecls(f, rng)
	return printDisguised(t, fset, f, rng)
}

// renameUnexported renames every unexported identifier that is not a
// predeclared one or an imported package's name, the same way everywhere.
func renameUnexported(f *ast.File, rng *rand.Rand) {
	imported := map[string]bool{}
	for _, imp := range f.Imports {
		name := imp.Path.Value[1 : len(imp.Path.Value)-1]
		if imp.Name != nil {
			name = imp.Name.Name
		}
		for i := len(name) - 1; i >= 0; i-- {
			if name[i] == '/' {
				name = name[i+1:]
				break
			}
		}
		imported[name] = true
	}
	names := map[string]string{}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.File:
			return true // the package clause keeps its name
		case *ast.ImportSpec:
			return false
		case *ast.Ident:
			if n.Name == "_" || ast.IsExported(n.Name) || imported[n.Name] || types.Universe.Lookup(n.Name) != nil {
				return true
			}
			if _, ok := names[n.Name]; !ok {
				names[n.Name] = fmt.Sprintf("v%x%d", rng.Uint32(), len(names))
			}
			n.Name = names[n.Name]
		}
		return true
	})
}

// shuffleDecls puts the top-level declarations after the imports in a
// random order.
func shuffleDecls(f *ast.File, rng *rand.Rand) {
	rest := f.Decls
	for len(rest) > 0 {
		if g, ok := rest[0].(*ast.GenDecl); !ok || g.Tok != token.IMPORT {
			break
		}
		rest = rest[1:]
	}
	rng.Shuffle(len(rest), func(i, j int) { rest[i], rest[j] = rest[j], rest[i] })
}

// printDisguised prints f without its comments, indented with spaces,
// with a comment of its own before every top-level declaration.
func printDisguised(t testing.TB, fset *token.FileSet, f *ast.File, rng *rand.Rand) []byte {
	t.Helper()
	f.Comments = nil
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncDecl:
			n.Doc = nil
		case *ast.GenDecl:
			n.Doc = nil
		case *ast.Field:
			n.Doc, n.Comment = nil, nil
		case *ast.ValueSpec:
			n.Doc, n.Comment = nil, nil
		case *ast.TypeSpec:
			n.Doc, n.Comment = nil, nil
		}
		return true
	})
	var b bytes.Buffer
	cfg := printer.Config{Mode: printer.UseSpaces, Tabwidth: 3}
	fmt.Fprintf(&b, "// my own work, %d\n", rng.IntN(1000))
	require.NoError(t, cfg.Fprint(&b, fset, &ast.File{Name: f.Name}))
	for _, d := range f.Decls {
		fmt.Fprintf(&b, "\n/* written by me (%d) */\n\n", rng.IntN(1000))
		require.NoError(t, cfg.Fprint(&b, fset, d))
		b.WriteString("\n")
	}
	return b.Bytes()
}

// commentsOf returns the text of src's comments longer than a few words.
func commentsOf(t testing.TB, src []byte) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "src.go", src, parser.ParseComments)
	require.NoError(t, err)
	var out []string
	for _, g := range f.Comments {
		for _, c := range g.List {
			if len(c.Text) > 30 {
				out = append(out, c.Text)
			}
		}
	}
	return out
}
