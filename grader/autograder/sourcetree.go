package autograder

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"golang.org/x/mod/modfile"
)

// CourseModule is the module path of the course's own source tree.
const CourseModule = "github.com/coursekit/course"

// ErrNoCourseRoot means no directory at or above the starting one holds the
// course's go.mod.
var ErrNoCourseRoot = errors.New("not inside the course's source tree (no go.mod of module " + CourseModule + " here or above)")

// FindCourseRoot returns the course's module root: dir or the nearest
// directory above it whose go.mod declares CourseModule.
func FindCourseRoot(dir string) (string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for {
		if IsCourseRoot(dir) == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", ErrNoCourseRoot
		}
		dir = parent
	}
}

// IsCourseRoot returns nil if dir holds the course's go.mod, or an error
// that says what it holds instead.
func IsCourseRoot(dir string) error {
	p := filepath.Join(dir, "go.mod")
	data, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s holds no go.mod: not the course's source tree", dir)
	}
	if err != nil {
		return err
	}
	if mod := modfile.ModulePath(data); mod != CourseModule {
		return fmt.Errorf("%s is module %q, not the course (%s)", p, mod, CourseModule)
	}
	return nil
}

// SourceFile is one file of a source tree: its slash-separated path
// relative to the root, and its mode bits.
type SourceFile struct {
	Name string
	Mode fs.FileMode
}

// ListSourceTree returns the files of the tree at root that git would
// track, sorted by name: every regular file except those under .git and
// those that a .gitignore file of the tree ignores (see gitignore below),
// and except the paths in exclude (absolute, such as the file being
// written). Symbolic links and other special files are left out.
func ListSourceTree(root string, exclude ...string) ([]SourceFile, error) {
	root, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	skip := map[string]bool{}
	for _, e := range exclude {
		if abs, err := filepath.Abs(e); err == nil {
			skip[abs] = true
		}
	}
	var out []SourceFile
	var walk func(dir, rel string, rules []ignoreRule) error
	walk = func(dir, rel string, rules []ignoreRule) error {
		own, err := readGitignore(filepath.Join(dir, ".gitignore"), rel)
		if err != nil {
			return err
		}
		rules = append(rules[:len(rules):len(rules)], own...)
		entries, err := os.ReadDir(dir)
		if err != nil {
			return err
		}
		for _, e := range entries {
			name := e.Name()
			p := filepath.Join(dir, name)
			r := path.Join(rel, name)
			if skip[p] || (e.IsDir() && name == ".git") || ignored(rules, r, e.IsDir()) {
				continue
			}
			switch {
			case e.IsDir():
				if err := walk(p, r, rules); err != nil {
					return err
				}
			case e.Type().IsRegular():
				info, err := e.Info()
				if err != nil {
					return err
				}
				out = append(out, SourceFile{Name: r, Mode: info.Mode().Perm()})
			}
		}
		return nil
	}
	if err := walk(root, "", nil); err != nil {
		return nil, err
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// ignoreRule is one pattern line of a .gitignore file.
type ignoreRule struct {
	re      *regexp.Regexp // matches a slash-separated path relative to the tree's root
	negate  bool           // "!pattern": re-include
	dirOnly bool           // "pattern/": directories only
}

// ignored applies rules in order: the last one that matches decides.
func ignored(rules []ignoreRule, rel string, isDir bool) bool {
	out := false
	for _, r := range rules {
		if r.dirOnly && !isDir {
			continue
		}
		if r.re.MatchString(rel) {
			out = !r.negate
		}
	}
	return out
}

// readGitignore reads the .gitignore at p, in the directory base (relative
// to the tree's root, "" for the root). A missing file has no rules.
//
// The subset of gitignore(5) understood: blank lines and # comments, "!" to
// re-include, a trailing "/" for directories only, a pattern with a "/"
// anchored to its file's directory (one without matches a name at any
// depth), "*", "?", "[...]" and "**" (a leading "**/", an inner "/**/" and a
// trailing "/**"), and "\" escapes. As in git, nothing under an ignored
// directory is looked at again, so a "!" cannot bring back a file in it.
func readGitignore(p, base string) ([]ignoreRule, error) {
	data, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var rules []ignoreRule
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := strings.TrimRight(strings.TrimSuffix(sc.Text(), "\r"), " \t")
		if strings.HasSuffix(line, "\\") {
			line += " " // "\ " at the end keeps its space
		}
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		var r ignoreRule
		if strings.HasPrefix(line, "!") {
			r.negate, line = true, line[1:]
		}
		if strings.HasSuffix(line, "/") {
			r.dirOnly, line = true, strings.TrimSuffix(line, "/")
		}
		if line == "" {
			continue
		}
		anchored := strings.Contains(line, "/")
		line = strings.TrimPrefix(line, "/")
		expr := globRegexp(line)
		prefix := ""
		if base != "" {
			prefix = regexp.QuoteMeta(base) + "/"
		}
		if anchored {
			expr = "^" + prefix + expr + "$"
		} else {
			expr = "^" + prefix + "(?:.*/)?" + expr + "$"
		}
		re, err := regexp.Compile(expr)
		if err != nil {
			continue // a pattern git would read differently; ignore it rather than fail
		}
		r.re = re
		rules = append(rules, r)
	}
	return rules, sc.Err()
}

// globRegexp translates a gitignore glob into a regular expression.
func globRegexp(glob string) string {
	var b strings.Builder
	for i := 0; i < len(glob); i++ {
		c := glob[i]
		switch {
		case strings.HasPrefix(glob[i:], "**/") && (i == 0 || glob[i-1] == '/'):
			b.WriteString("(?:.*/)?")
			i += 2
		case glob[i:] == "**" && i > 0 && glob[i-1] == '/':
			b.WriteString(".*")
			i++
		case c == '*':
			for i+1 < len(glob) && glob[i+1] == '*' {
				i++ // other runs of "*" are one "*"
			}
			b.WriteString("[^/]*")
		case c == '?':
			b.WriteString("[^/]")
		case c == '[':
			end := strings.IndexByte(glob[i+1:], ']')
			if end < 0 {
				b.WriteString(`\[`)
				continue
			}
			class := glob[i+1 : i+1+end]
			if strings.HasPrefix(class, "!") {
				class = "^" + class[1:]
			}
			b.WriteString("[" + strings.ReplaceAll(class, `\`, `\\`) + "]")
			i += end + 1
		case c == '\\' && i+1 < len(glob):
			i++
			b.WriteString(regexp.QuoteMeta(glob[i : i+1]))
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	return b.String()
}
