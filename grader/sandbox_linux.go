//go:build linux

package grader

import (
	"errors"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// nobody is the user student code runs as when the grader runs as root.
const nobody = 65534

// sandbox confines runs of student code. On Linux it tries, strongest
// first: its own empty network namespace and the user nobody (as root), or a
// user and network namespace of its own (as another user); then only a
// process group. A level the kernel refuses is dropped for good, so the
// report always says what was really used.
type sandbox struct {
	mu    sync.Mutex
	level int // index into levels of the strongest level not yet refused
	off   bool
}

type sandboxLevel struct {
	iso  Isolation
	attr func() *syscall.SysProcAttr
}

func newSandbox(enabled bool) *sandbox { return &sandbox{off: !enabled} }

func (s *sandbox) levels() []sandboxLevel {
	base := func() *syscall.SysProcAttr {
		return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	}
	group := sandboxLevel{Isolation{Name: "process group, rlimits", Limits: true}, base}
	if s.off {
		return []sandboxLevel{group}
	}
	if os.Geteuid() == 0 {
		return []sandboxLevel{
			{Isolation{Name: "network namespace, uid nobody, rlimits", NoNetwork: true, Unprivileged: true, Limits: true}, func() *syscall.SysProcAttr {
				a := base()
				a.Cloneflags = syscall.CLONE_NEWNET
				a.Credential = &syscall.Credential{Uid: nobody, Gid: nobody, Groups: []uint32{}}
				return a
			}},
			{Isolation{Name: "uid nobody, rlimits", Unprivileged: true, Limits: true}, func() *syscall.SysProcAttr {
				a := base()
				a.Credential = &syscall.Credential{Uid: nobody, Gid: nobody, Groups: []uint32{}}
				return a
			}},
			group,
		}
	}
	uid, gid := os.Getuid(), os.Getgid()
	return []sandboxLevel{
		{Isolation{Name: "user and network namespace, rlimits", NoNetwork: true, Limits: true}, func() *syscall.SysProcAttr {
			a := base()
			a.Cloneflags = syscall.CLONE_NEWUSER | syscall.CLONE_NEWNET
			a.UidMappings = []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}}
			a.GidMappings = []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}}
			return a
		}},
		group,
	}
}

// current returns the strongest level not yet refused.
func (s *sandbox) current() (int, sandboxLevel) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ls := s.levels()
	if s.level >= len(ls) {
		s.level = len(ls) - 1
	}
	return s.level, ls[s.level]
}

// refused drops level i after the kernel refused it; it reports whether a
// weaker level is left to try.
func (s *sandbox) refused(i int, err error) bool {
	// Only what the kernel says about namespaces and user changes: an
	// EACCES (a directory the run's user cannot reach) must not quietly
	// make the run more privileged.
	if !errors.Is(err, syscall.EPERM) && !errors.Is(err, syscall.EINVAL) && !errors.Is(err, syscall.ENOSPC) {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if i+1 >= len(s.levels()) {
		return false
	}
	if s.level <= i {
		s.level = i + 1
	}
	return true
}

// runUID is the user a run's files must belong to, or -1 for "as we are".
func (s *sandbox) runUID() int {
	_, l := s.current()
	if l.iso.Unprivileged {
		return nobody
	}
	return -1
}

// start starts a command made by mk at the strongest level the kernel
// allows. mk is called again for each retry: an exec.Cmd starts only once.
func (s *sandbox) start(mk func() *exec.Cmd) (*exec.Cmd, Isolation, error) {
	for {
		i, l := s.current()
		cmd := mk()
		cmd.SysProcAttr = l.attr()
		err := cmd.Start()
		if err == nil || !s.refused(i, err) {
			return cmd, l.iso, err
		}
	}
}

// limit sets resource limits on a started process: CPU seconds (a busy loop
// dies even if the wall clock is generous), file size (no disk filling), open
// files, and no core dumps.
func (s *sandbox) limit(cmd *exec.Cmd, timeout time.Duration) {
	pid := cmd.Process.Pid
	cpu := uint64(2*timeout/time.Second) + 5
	for _, l := range []struct {
		res int
		val uint64
	}{
		{unix.RLIMIT_CPU, cpu},
		{unix.RLIMIT_FSIZE, 64 << 20},
		{unix.RLIMIT_NOFILE, 1024},
		{unix.RLIMIT_CORE, 0},
	} {
		_ = unix.Prlimit(pid, l.res, &unix.Rlimit{Cur: l.val, Max: l.val}, nil)
	}
}
