// Package helperprog builds the grader's helper programs (the static
// checker, the build cache) from their embedded sources, once per source
// and toolchain, into the grader's cache directory, and uses one found
// there only if it is this user's alone: a helper decides what is graded
// and built.
package helperprog

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"

	"github.com/coursekit/course/grader/internal/cachedir"
)

// Build builds the program in the helper/ directory of an embedded package
// source (src: the package's files; module and dir say where they sit),
// unless it was built before from the same source with the same toolchain:
// it is kept in the grader's cache directory under a name made of prefix
// and the hash of both.
func Build(goBin string, env []string, prefix string, src fs.FS, module, dir string) (string, error) {
	env = append(slices.Clone(env), "GOFLAGS=", "GO111MODULE=on", "GOWORK=off", "GOPROXY=off", "GOTOOLCHAIN=local", "CGO_ENABLED=0")
	version, err := exec.Command(goBin, "env", "GOVERSION", "GOOS", "GOARCH").Output()
	if err != nil {
		return "", fmt.Errorf("go env: %v", err)
	}
	h := sha256.New()
	h.Write(version)
	var files []string
	err = fs.WalkDir(src, ".", func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			files = append(files, path)
		}
		return err
	})
	if err != nil {
		return "", fmt.Errorf("%s: %w", prefix, err)
	}
	sort.Strings(files)
	for _, f := range files {
		b, err := fs.ReadFile(src, f)
		if err != nil {
			return "", fmt.Errorf("%s: %w", prefix, err)
		}
		fmt.Fprintf(h, "%s %d\n", f, len(b))
		h.Write(b)
	}
	name := prefix + "-" + hex.EncodeToString(h.Sum(nil))[:24]
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	base, err := cachedir.Dir()
	if err != nil {
		return "", err
	}
	bin := filepath.Join(base, name)
	if fi, err := os.Lstat(bin); err == nil {
		if err := cachedir.Owned(bin, false); err != nil || !fi.Mode().IsRegular() {
			return "", fmt.Errorf("the %s %s is not a program of this user's (%v); remove it", prefix, bin, err)
		}
		return bin, nil
	}
	work, err := os.MkdirTemp(base, "build-*")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(work)
	gomod := "module " + module + "\n\ngo 1.24\n"
	if err := os.WriteFile(filepath.Join(work, "go.mod"), []byte(gomod), 0o644); err != nil {
		return "", err
	}
	for _, f := range files {
		b, _ := fs.ReadFile(src, f)
		dst := filepath.Join(work, filepath.FromSlash(dir), filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return "", err
		}
		if err := os.WriteFile(dst, b, 0o644); err != nil {
			return "", err
		}
	}
	tmp := filepath.Join(work, name)
	cmd := exec.Command(goBin, "build", "-trimpath", "-o", tmp, "./"+dir+"/helper")
	cmd.Dir = work
	cmd.Env = env
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building the %s: %v: %s", prefix, err, LastLine(string(out)))
	}
	// Rename is atomic: a grader running beside this one sees the whole
	// program or none.
	if err := os.Rename(tmp, bin); err != nil {
		return "", err
	}
	return bin, nil
}

// LastLine is the last non-empty line of a command's output: usually the
// one that says what went wrong.
func LastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}
