package lab

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path"
	"strings"
)

// pruneTests drops from files the test files a grading of only the
// exercises ids does not need, so that the build compiles only what it
// runs: a file is dropped when all its tests belong to other exercises,
// it has no init, TestMain or blank variable (which could do something
// when the package starts), and no file kept names anything it declares.
// What cannot be parsed is kept: the build then says what is wrong.
func (l *Lab) pruneTests(files []file, ids []string) []file {
	want := map[string]bool{}
	for _, id := range ids {
		want[id] = true
	}
	type testFile struct {
		pkg      string
		declares []string
		mentions map[string]bool
		keep     bool
	}
	parsed := map[string]*testFile{}
	for _, f := range files {
		if !strings.HasSuffix(f.name, "_test.go") || strings.Contains(f.name, "/") {
			continue
		}
		tf, ok := l.readTestFile(f, want)
		if !ok {
			continue // kept as it is
		}
		parsed[f.name] = &testFile{pkg: tf.pkg, declares: tf.declares, mentions: tf.mentions, keep: tf.keep}
	}
	// Keep, too, every file that declares a name a kept file mentions,
	// until nothing more is added.
	for changed := true; changed; {
		changed = false
		for _, a := range parsed {
			if !a.keep {
				continue
			}
			for _, b := range parsed {
				if b.keep || b.pkg != a.pkg {
					continue
				}
				for _, name := range b.declares {
					if a.mentions[name] {
						b.keep, changed = true, true
						break
					}
				}
			}
		}
	}
	var out []file
	for _, f := range files {
		if tf, ok := parsed[f.name]; ok && !tf.keep {
			continue
		}
		out = append(out, f)
	}
	return out
}

// parsedTest is what pruneTests needs to know of one test file.
type parsedTest struct {
	pkg      string
	declares []string        // its package-level names
	mentions map[string]bool // every identifier in it
	keep     bool            // it must stay, whatever else is kept
}

// readTestFile parses one test file; ok is false when it cannot be read.
func (l *Lab) readTestFile(f file, want map[string]bool) (parsedTest, bool) {
	af, err := parser.ParseFile(token.NewFileSet(), path.Base(f.name), f.data, parser.SkipObjectResolution)
	if err != nil {
		return parsedTest{}, false
	}
	tf := parsedTest{pkg: af.Name.Name, mentions: map[string]bool{}}
	tests := 0
	for _, d := range af.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv != nil {
				// A method goes where its type goes.
				if t := receiverType(d.Recv); t != "" {
					tf.declares = append(tf.declares, t)
				}
				continue
			}
			name := d.Name.Name
			tf.declares = append(tf.declares, name)
			switch {
			case name == "init" || name == "TestMain":
				tf.keep = true
			case isTestFunc(d):
				tests++
				if ex, ok := l.ExerciseOf(name); !ok || want[ex.ID] {
					tf.keep = true // a test of a graded exercise, or of none
				}
			}
		case *ast.GenDecl:
			for _, sp := range d.Specs {
				switch sp := sp.(type) {
				case *ast.TypeSpec:
					tf.declares = append(tf.declares, sp.Name.Name)
				case *ast.ValueSpec:
					for _, n := range sp.Names {
						if n.Name == "_" && len(sp.Values) > 0 {
							tf.keep = true // evaluated at start-up, for what it does
						}
						tf.declares = append(tf.declares, n.Name)
					}
				}
			}
		}
	}
	if tests == 0 {
		tf.keep = true // a file of helpers
	}
	ast.Inspect(af, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok {
			tf.mentions[id.Name] = true
		}
		return true
	})
	return tf, true
}

// receiverType is the name of a method's receiver type: T of (t T),
// (t *T), (t T[K]).
func receiverType(recv *ast.FieldList) string {
	if len(recv.List) == 0 {
		return ""
	}
	e := recv.List[0].Type
	for {
		switch x := e.(type) {
		case *ast.StarExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.IndexListExpr:
			e = x.X
		case *ast.Ident:
			return x.Name
		default:
			return ""
		}
	}
}
