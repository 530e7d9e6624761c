//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// killUser kills every process whose real, effective or saved uid is uid.
func killUser(uid int) int {
	n := 0
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		data, err := os.ReadFile(filepath.Join("/proc", e.Name(), "status"))
		if err != nil {
			continue
		}
		if strings.Contains(string(data), "\nState:\tZ") {
			continue // a zombie runs nothing; its parent, or init, reaps it
		}
		for _, line := range strings.Split(string(data), "\n") {
			if rest, ok := strings.CutPrefix(line, "Uid:"); ok {
				for _, f := range strings.Fields(rest) {
					if f == strconv.Itoa(uid) {
						_ = syscall.Kill(pid, syscall.SIGKILL)
						n++
						break
					}
				}
			}
		}
	}
	return n
}

// emptyUser kills the processes of uid until there are none, for at most wait.
func emptyUser(uid int, wait time.Duration) error {
	deadline := time.Now().Add(wait)
	for killUser(uid) > 0 {
		if time.Now().After(deadline) {
			return fmt.Errorf("processes of uid %d still running after SIGKILL", uid)
		}
		time.Sleep(5 * time.Millisecond) // the kernel reaps them; nothing to wait on
	}
	return nil
}

// removeFilesOf deletes what uid left in the shared temporary directories:
// without a mount namespace a run can write there.
func removeFilesOf(uid int, dirs []string) error {
	var errs []error
	seen := map[string]bool{}
	for _, dir := range dirs {
		if seen[dir] {
			continue
		}
		seen[dir] = true
		_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || p == dir {
				return nil
			}
			info, err := d.Info()
			if err != nil {
				return nil
			}
			if st, ok := info.Sys().(*syscall.Stat_t); ok && int(st.Uid) == uid {
				if err := os.RemoveAll(p); err != nil {
					errs = append(errs, err)
				}
				if d.IsDir() {
					return filepath.SkipDir
				}
			}
			return nil
		})
	}
	return errors.Join(errs...)
}
