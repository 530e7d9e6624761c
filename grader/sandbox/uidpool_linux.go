//go:build linux

package sandbox

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// The user ids runs of student code get when the grader runs as root: one
// of its own for every run, as isolate gives every box its own, so that no
// run can signal, trace or read the files of another, and a per-user
// process limit counts one run only. The range stays below systemd's
// dynamic users (61184 and up) and skips every id /etc/passwd names.
const (
	UIDBase  = 60100
	UIDCount = 900
)

// uidPool hands out user ids. A lock file per id, held while the id is in
// use, keeps two grader processes on one machine from sharing one.
type uidPool struct {
	dir      string
	reserved map[int]bool // ids of real users and groups
}

func newUIDPool() (*uidPool, error) {
	dir := "/run/course-grade-uids"
	if fi, err := os.Stat("/run"); err != nil || !fi.IsDir() {
		dir = filepath.Join(os.TempDir(), "course-grade-uids")
	}
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
		return nil, fmt.Errorf("uid locks: %w", err)
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return nil, fmt.Errorf("uid locks: %w", err)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || !fi.IsDir() || st.Uid != 0 || fi.Mode().Perm()&0o022 != 0 {
		// Someone else's directory could hand us a lock we do not own.
		return nil, fmt.Errorf("uid locks: %s must be a directory of root's that no one else may write (it is %v, owner %d)", dir, fi.Mode(), st.Uid)
	}
	p := &uidPool{dir: dir, reserved: map[int]bool{}}
	for _, file := range []string{"/etc/passwd", "/etc/group"} {
		if err := p.reserveFrom(file); err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
	}
	return p, nil
}

// reserveFrom marks the ids (third field) of a passwd or group file as taken.
func (p *uidPool) reserveFrom(file string) error {
	f, err := os.Open(file)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Split(sc.Text(), ":")
		if len(fields) > 2 {
			if id, err := strconv.Atoi(fields[2]); err == nil {
				p.reserved[id] = true
			}
		}
	}
	return sc.Err()
}

// acquire takes a free id. release gives it back; call it only once no
// process of that id is left.
func (p *uidPool) acquire() (uid int, release func(), err error) {
	for i := 0; i < UIDCount; i++ {
		id := UIDBase + i
		if p.reserved[id] {
			continue
		}
		f, err := os.OpenFile(filepath.Join(p.dir, strconv.Itoa(id)), os.O_RDWR|os.O_CREATE, 0o600)
		if err != nil {
			return 0, nil, fmt.Errorf("uid locks: %w", err)
		}
		if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
			f.Close()
			continue // in use by another run, here or in another grader
		}
		return id, func() { f.Close() }, nil // closing drops the lock
	}
	return 0, nil, fmt.Errorf("uid locks: all %d user ids for runs are in use", UIDCount)
}
