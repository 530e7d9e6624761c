package selfcheck

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"

	"github.com/coursekit/course/grader/lab"
	"github.com/coursekit/course/solutions"
)

// FuzzFiles returns the lab's fuzz targets and their seed corpus, kept with
// the reference solution: file path (relative to a workspace) to content.
// None means the lab has no fuzz targets.
func FuzzFiles(l *lab.Lab) (map[string][]byte, error) {
	files := map[string][]byte{}
	root := l.Slug
	err := fs.WalkDir(solutions.FS, root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := strings.TrimPrefix(p, root+"/")
		if d.IsDir() {
			if rel == "mutants" || rel == "alternatives" {
				return fs.SkipDir
			}
			return nil
		}
		if strings.HasPrefix(rel, "testdata/fuzz/") || strings.HasPrefix(path.Base(rel), "fuzz") && strings.HasSuffix(rel, "_test.go") {
			data, err := fs.ReadFile(solutions.FS, p)
			if err != nil {
				return err
			}
			files[rel] = data
		}
		return nil
	})
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return files, err
}

// FuzzSeeds runs the lab's fuzz targets on their seed corpus against
// source (a solution, trusted code: no sandbox), with the go command in
// goBin. It returns the test output when a seed fails.
func FuzzSeeds(ctx context.Context, l *lab.Lab, goBin string, source []byte) error {
	files, err := FuzzFiles(l)
	if err != nil || len(files) == 0 {
		return err
	}
	dir, err := os.MkdirTemp("", "course-fuzz-*")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	ws := filepath.Join(dir, "ws")
	if err := l.WriteGradingDir(ws, source, false); err != nil {
		return err
	}
	for rel, data := range files {
		p := filepath.Join(ws, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			return err
		}
	}
	cmd := exec.CommandContext(ctx, goBin, "test", "-count=1", "-run", "^Fuzz", ".")
	cmd.Dir = ws
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOTOOLCHAIN=local", "GOWORK=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("fuzz seeds: %v\n%s", err, out)
	}
	return nil
}
