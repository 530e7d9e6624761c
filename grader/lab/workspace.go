package lab

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
)

// WorkspaceInfoPath is where a workspace or grading directory records which
// lab it was made from (slash-separated, relative to its root).
const WorkspaceInfoPath = ".course/workspace.json"

// Modes of everything written; set explicitly so the umask does not vary them.
const (
	fileMode fs.FileMode = 0o644
	dirMode  fs.FileMode = 0o755
)

// WorkspaceInfo is the content of WorkspaceInfoPath.
type WorkspaceInfo struct {
	Chapter string `json:"chapter"`
	Slug    string `json:"slug"`
}

// ReadWorkspaceInfo reads the WorkspaceInfo of the workspace at dir.
func ReadWorkspaceInfo(dir string) (WorkspaceInfo, error) {
	var info WorkspaceInfo
	p := filepath.Join(dir, filepath.FromSlash(WorkspaceInfoPath))
	data, err := readWorkspaceInfoFile(p)
	if err != nil {
		return info, err // names p
	}
	if err := json.Unmarshal(data, &info); err != nil {
		return info, fmt.Errorf("%s: %w", p, err)
	}
	if info.Chapter == "" || info.Slug == "" {
		return info, fmt.Errorf("%s: chapter or slug missing", p)
	}
	return info, nil
}

// WriteWorkspace writes a student's workspace for the lab at dir: every
// file of the lab's directory except .meta and .hidden, a go.mod naming the
// manifest's module and requiring what the labs module requires, the labs
// module's go.sum, and WorkspaceInfoPath.
//
// dir must not exist (its parent must) or be an empty directory; otherwise a
// *TargetError is returned and nothing is touched. The workspace is built in
// a temporary directory beside dir and renamed into place, so dir never
// holds half a workspace; an interrupted run may leave that temporary
// directory (named .<base>.course-tmp-*) behind, never a partial dir. An
// existing empty dir is removed just before the rename: in that short
// window dir does not exist.
func (l *Lab) WriteWorkspace(dir string) error {
	files, err := l.files(nil, false)
	if err != nil {
		return err
	}
	return writeDir(dir, files)
}

// WriteGradingDir writes what grading builds, under the same rules as
// WriteWorkspace: the lab's pristine files, with sessionGo as the lab's
// (first) editable file unless sessionGo is nil (then the stub stays), and
// with the hidden test files beside the public ones when withHidden is set.
func (l *Lab) WriteGradingDir(dir string, sessionGo []byte, withHidden bool) error {
	return l.WriteGradingDirFor(dir, sessionGo, withHidden, nil)
}

// WriteGradingDirFor is WriteGradingDir for a grading of only the
// exercises ids (all of them when ids is empty): the test files that only
// other exercises need are left out, so that the build compiles only what
// it runs.
func (l *Lab) WriteGradingDirFor(dir string, sessionGo []byte, withHidden bool, ids []string) error {
	files, err := l.files(sessionGo, withHidden)
	if err != nil {
		return err
	}
	if len(ids) > 0 {
		files = l.pruneTests(files, ids)
	}
	return writeDir(dir, files)
}

// file is one file to write; name is slash-separated and relative.
type file struct {
	name string
	data []byte
}

// files lists the content of a workspace, or of a grading directory.
func (l *Lab) files(editable []byte, withHidden bool) ([]file, error) {
	var out []file
	root := l.Slug
	err := fs.WalkDir(l.labsFS, root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p == path.Join(root, MetaDir) || p == path.Join(root, HiddenDir) {
				return fs.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		data, err := fs.ReadFile(l.labsFS, p)
		if err != nil {
			return err
		}
		rel := p[len(root)+1:]
		if editable != nil && rel == l.Editable[0] {
			data = editable
		}
		out = append(out, file{rel, data})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("lab %s: %w", l.Chapter, err)
	}
	if editable != nil && !slices.ContainsFunc(out, func(f file) bool { return f.name == l.Editable[0] }) {
		out = append(out, file{l.Editable[0], editable}) // a lab without a stub
	}
	if withHidden {
		for _, h := range l.hiddenFiles() {
			data, err := fs.ReadFile(l.labsFS, h)
			if err != nil {
				return nil, fmt.Errorf("lab %s: %w", l.Chapter, err)
			}
			out = append(out, file{path.Base(h), data})
		}
	}
	info, err := json.Marshal(WorkspaceInfo{Chapter: l.Chapter, Slug: l.Slug})
	if err != nil {
		return nil, err
	}
	out = append(out, file{"go.mod", l.goMod}, file{WorkspaceInfoPath, append(info, '\n')})
	if l.goSum != nil {
		out = append(out, file{"go.sum", l.goSum})
	}
	return out, nil
}

// writeDir creates dir holding files, atomically (see WriteWorkspace).
func writeDir(dir string, files []file) error {
	return WriteDirAtomic(dir, func(tmp string) error {
		for _, f := range files {
			if err := writeFile(tmp, f); err != nil {
				return err
			}
		}
		return nil
	})
}

// WriteDirAtomic creates dir under the rules of WriteWorkspace: dir must not
// exist (its parent must) or be an empty directory, else a *TargetError and
// nothing is touched. fill writes the content into a new temporary
// directory beside dir, which is then renamed to dir; if fill fails, the
// temporary directory is removed and dir is left as it was.
func WriteDirAtomic(dir string, fill func(tmp string) error) (err error) {
	replaceEmpty, err := checkTarget(dir)
	if err != nil {
		return err
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return &TargetError{Path: dir, Err: err}
	}
	// Same parent as dir, so that the final rename stays on one file system.
	tmp, err := os.MkdirTemp(filepath.Dir(abs), "."+filepath.Base(abs)+".course-tmp-")
	if err != nil {
		return &TargetError{Path: dir, Err: err}
	}
	defer func() {
		if err != nil {
			os.RemoveAll(tmp)
		}
	}()
	if err := os.Chmod(tmp, dirMode); err != nil {
		return err
	}
	if err := fill(tmp); err != nil {
		return err
	}
	if replaceEmpty {
		// os.Rename refuses an existing directory as its target.
		if err := os.Remove(abs); err != nil {
			return fmt.Errorf("replace empty directory %s: %w", dir, err)
		}
	}
	if err := os.Rename(tmp, abs); err != nil {
		if replaceEmpty {
			_ = os.Mkdir(abs, dirMode) // put back what the user had
		}
		return fmt.Errorf("move into %s: %w", dir, err)
	}
	return nil
}

// writeFile writes f under root, making its parent directories.
func writeFile(root string, f file) error {
	p := filepath.Join(root, filepath.FromSlash(f.name))
	for d := filepath.Dir(p); d != root; d = filepath.Dir(d) {
		if _, err := os.Stat(d); err == nil {
			break
		}
		if err := os.MkdirAll(d, dirMode); err != nil {
			return err
		}
		if err := os.Chmod(d, dirMode); err != nil {
			return err
		}
	}
	if err := os.WriteFile(p, f.data, fileMode); err != nil {
		return err
	}
	return os.Chmod(p, fileMode)
}

// checkTarget accepts a missing dir with an existing parent, or an empty
// directory (replaceEmpty), and returns a *TargetError for anything else.
func checkTarget(dir string) (replaceEmpty bool, err error) {
	if dir == "" {
		return false, &TargetError{Path: dir, Err: ErrTargetEmpty}
	}
	fi, err := os.Lstat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		parent := filepath.Dir(filepath.Clean(dir))
		pi, perr := os.Stat(parent)
		if perr != nil || !pi.IsDir() {
			return false, &TargetError{Path: dir, Err: ErrTargetNoParent}
		}
		return false, nil
	case err != nil:
		return false, &TargetError{Path: dir, Err: pathErrCause(err)}
	case fi.Mode()&fs.ModeSymlink != 0:
		return false, &TargetError{Path: dir, Err: ErrTargetSymlink}
	case !fi.IsDir():
		return false, &TargetError{Path: dir, Err: ErrTargetNotDir}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false, &TargetError{Path: dir, Err: pathErrCause(err)}
	}
	if len(entries) > 0 {
		return false, &TargetError{Path: dir, Err: ErrTargetNotEmpty}
	}
	if same, _ := isWorkingDir(dir); same {
		// Replacing it would leave the shell in a deleted directory.
		return false, &TargetError{Path: dir, Err: ErrTargetWorkingDir}
	}
	return true, nil
}

// isWorkingDir reports whether dir is the process's current directory.
func isWorkingDir(dir string) (bool, error) {
	wd, err := os.Getwd()
	if err != nil {
		return false, err
	}
	a, err := os.Stat(wd)
	if err != nil {
		return false, err
	}
	b, err := os.Stat(dir)
	if err != nil {
		return false, err
	}
	return os.SameFile(a, b), nil
}

// pathErrCause drops the *fs.PathError wrapper, whose path TargetError repeats.
func pathErrCause(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// Fingerprint is a hash of everything a grading directory of l holds
// (with the hidden tests when withHidden), the stub as the editable file:
// equal fingerprints, equal grading directories but for the student's file.
func (l *Lab) Fingerprint(withHidden bool) (string, error) {
	files, err := l.files(nil, withHidden)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	for _, f := range files {
		fmt.Fprintf(h, "%s %d\n", f.name, len(f.data))
		h.Write(f.data)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// Requirements are the modules a workspace's go.mod requires: what must
// be in the module cache for a build to work offline.
func (l *Lab) Requirements() ([]module.Version, error) {
	f, err := modfile.ParseLax("go.mod", l.goMod, nil)
	if err != nil {
		return nil, err
	}
	var out []module.Version
	for _, r := range f.Require {
		out = append(out, r.Mod)
	}
	return out, nil
}
