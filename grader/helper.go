package grader

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
	"strconv"
)

// helperProgram builds the program in the helper/ directory of an
// embedded package source (src: the package's files; module and dir say
// where they sit), once per source and toolchain: it is kept in the user's
// cache directory (or, without one, a temporary directory) under a name
// made of prefix and the hash of both. The grader's helpers (the static
// checker, the build cache) decide what gets graded and built: a directory
// or a program someone else could have put there is never used.
func helperProgram(goBin string, env []string, prefix string, src fs.FS, module, dir string) (string, error) {
	env = append(slices.Clone(env), "GOFLAGS=", "GO111MODULE=on", "GOWORK=off", "GOPROXY=off", "GOTOOLCHAIN=local", "CGO_ENABLED=0")
	version, err := exec.Command(goBin, "env", "GOVERSION", "GOOS", "GOARCH").Output()
	if err != nil {
		return "", fmt.Errorf("%w: go env: %v", ErrSetup, err)
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
	base, err := privateCacheDir()
	if err != nil {
		return "", err
	}
	bin := filepath.Join(base, name)
	if fi, err := os.Lstat(bin); err == nil {
		if err := ownedByUs(bin, false); err != nil || !fi.Mode().IsRegular() {
			return "", fmt.Errorf("%w: the %s %s is not a program of this user's (%v); remove it", ErrSetup, prefix, bin, err)
		}
		return bin, nil
	}
	work, err := os.MkdirTemp(base, "build-*")
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrSetup, err)
	}
	defer os.RemoveAll(work)
	gomod := "module " + module + "\n\ngo 1.24\n"
	if err := os.WriteFile(filepath.Join(work, "go.mod"), []byte(gomod), 0o644); err != nil {
		return "", fmt.Errorf("%w: %v", ErrSetup, err)
	}
	for _, f := range files {
		b, _ := fs.ReadFile(src, f)
		dst := filepath.Join(work, filepath.FromSlash(dir), filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return "", fmt.Errorf("%w: %v", ErrSetup, err)
		}
		if err := os.WriteFile(dst, b, 0o644); err != nil {
			return "", fmt.Errorf("%w: %v", ErrSetup, err)
		}
	}
	tmp := filepath.Join(work, name)
	cmd := exec.Command(goBin, "build", "-trimpath", "-o", tmp, "./"+dir+"/helper")
	cmd.Dir = work
	cmd.Env = env
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("%w: building the %s: %v: %s", ErrSetup, prefix, err, lastLine(string(out)))
	}
	// Rename is atomic: a grader running beside this one sees the whole
	// program or none.
	if err := os.Rename(tmp, bin); err != nil {
		return "", fmt.Errorf("%w: %v", ErrSetup, err)
	}
	return bin, nil
}

// privateCacheDir is the grader's directory in the user's cache directory
// (or, without one, a temporary directory of this user's), made if need be
// and refused unless only this user may write it.
func privateCacheDir() (string, error) {
	base, err := os.UserCacheDir()
	if err == nil {
		base = filepath.Join(base, "course-kit")
		err = os.MkdirAll(base, 0o700)
	}
	if err != nil {
		base = filepath.Join(os.TempDir(), "course-kit-"+strconv.Itoa(os.Getuid()))
		if err := os.MkdirAll(base, 0o700); err != nil {
			return "", fmt.Errorf("%w: no directory for the grader's helpers: %v", ErrSetup, err)
		}
	}
	if err := ownedByUs(base, true); err != nil {
		return "", fmt.Errorf("%w: the grader's directory %s: %v", ErrSetup, base, err)
	}
	return base, nil
}
