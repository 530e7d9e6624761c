//go:build linux

package sandbox

import (
	"bufio"
	"bytes"
	"context"
	"debug/elf"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/coursekit/course/grader/internal/helperprog"
	"github.com/coursekit/course/grader/internal/procgroup"
	"github.com/coursekit/course/grader/report"
	"golang.org/x/sys/unix"
)

// sandbox confines runs of student code on Linux. At its strongest
// (report.LevelFull) every run is started through bubblewrap: an empty root
// holding only the test binary (read-only, execute-only) and a private
// tmpfs for its temp dir, its own mount, PID, network, IPC, UTS and user
// namespaces, a user id of its own (the grader runs as root) or the
// grader's id behind a user namespace (it does not), a cgroup with memory
// and process limits, and rlimits. Every process a run starts lives in its
// PID namespace and cgroup, and ends with it.
//
// Every command, trusted or not, starts through a tiny shell trampoline
// that waits on a pipe until it is in its cgroup (where it can, it moves
// itself and the grader checks: joiner) and the grader has set its
// rlimits: nothing the program does can happen before its limits.
type Sandbox struct {
	mode    Mode
	iso     report.Isolation
	why     string // what stopped a stronger level, for the Error
	sh      string
	setpriv string // drops a run's trampoline to its uid (the grader runs as root)
	bwrap   string // set at report.LevelFull
	// disableUserns is bubblewrap's --disable-userns: no user namespace
	// inside the sandbox (bubblewrap 0.8 and later).
	disableUserns bool
	cloneflags    uintptr // report.LevelPartial: the namespaces the kernel allows without bubblewrap
	cg            *cgroupSet
	uids          *uidPool
	memory        int64
	procs         int

	libsMu   sync.Mutex
	libs     map[string][]string // shared libraries by interpreter and needed list
	admitted map[string][]string // shared libraries by binary, read by Admit
}

// gateScript waits for one line on stdin (the grader's go-ahead), then
// becomes the program. If the grader closes the pipe instead, it exits.
const gateScript = `read -r _ || exit 111; exec "$@" </dev/null`

// New finds the strongest confinement this machine gives and, in
// Strict mode, refuses anything below report.LevelFull.
// New finds the strongest confinement this machine gives and, in Strict
// mode, refuses anything below LevelFull.
func New(c Config) (*Sandbox, error) {
	if c.Mode == "" {
		c.Mode = Strict
	}
	if c.Memory <= 0 {
		c.Memory = DefaultMemoryLimit
	}
	if c.Processes <= 0 {
		c.Processes = DefaultProcessLimit
	}
	mode, memory, procs, noBwrap := c.Mode, c.Memory, c.Processes, c.NoBubblewrap
	s := &Sandbox{mode: mode, memory: memory, procs: procs}
	var err error
	if s.sh, err = exec.LookPath("sh"); err != nil {
		return nil, fmt.Errorf("%w: no sh to start runs with: %v", ErrSetup, err)
	}
	if s.sh, err = filepath.Abs(s.sh); err != nil {
		return nil, err
	}
	root := os.Geteuid() == 0
	var why []string
	if root {
		if s.cg, err = findCgroups(); err != nil {
			why = append(why, "no cgroup for memory and process limits ("+err.Error()+")")
			s.cg = nil
		}
	} else {
		why = append(why, "no cgroup (the grader is not root)")
	}
	if mode == Off {
		s.iso = report.Isolation{Level: report.LevelNone, Mechanisms: []string{"rlimits"},
			Missing: []string{"the grader's own user and files", "the network", "the machine's processes"}}
		s.finishIsolation()
		return s, nil
	}
	if root {
		if s.uids, err = newUIDPool(); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrSetup, err)
		}
		if s.setpriv, err = exec.LookPath("setpriv"); err != nil {
			return nil, fmt.Errorf("%w: no setpriv (util-linux) to run student code as another user: %v", ErrSetup, err)
		}
	}

	if noBwrap {
		why = append(why, "bubblewrap was turned off")
	} else if s.bwrap, err = exec.LookPath("bwrap"); err != nil {
		why = append(why, "bubblewrap is not installed (apt-get install bubblewrap)")
		s.bwrap = ""
	} else if err := s.probeBwrap(); err != nil {
		why = append(why, "bubblewrap cannot make namespaces here ("+err.Error()+")")
		s.bwrap = ""
	}
	switch {
	case s.bwrap != "":
		s.iso = report.Isolation{Level: report.LevelFull, Mechanisms: []string{"mount", "pid", "net", "ipc", "uts", "user"}}
		if root {
			s.iso.Mechanisms = append(s.iso.Mechanisms, "uid")
		}
	case root:
		// Without bubblewrap: a user of its own, and what namespaces the
		// kernel gives a plain clone. No private filesystem.
		s.cloneflags = s.probeClone()
		s.iso = report.Isolation{Level: report.LevelPartial, Mechanisms: namespaceNames(s.cloneflags)}
		s.iso.Mechanisms = append(s.iso.Mechanisms, "uid")
		s.iso.Missing = []string{"world-readable files on the machine (the course tool itself, unless only root may read it)"}
		if s.cloneflags&syscall.CLONE_NEWNET == 0 {
			s.iso.Missing = append(s.iso.Missing, "the network")
		}
	default:
		s.iso = report.Isolation{Level: report.LevelNone, Missing: []string{
			"the grader's own files (student code runs as the grader's user: it can read and replace the test binary)",
			"the network",
		}}
	}
	s.iso.Mechanisms = append(s.iso.Mechanisms, "rlimits")
	s.finishIsolation()
	s.why = strings.Join(why, "; ")
	if mode == Strict && s.iso.Level != report.LevelFull {
		return nil, &Error{Offered: s.iso, Why: s.why}
	}
	return s, nil
}

func (s *Sandbox) finishIsolation() {
	if s.cg != nil {
		s.iso.Mechanisms = append(s.iso.Mechanisms, fmt.Sprintf("cgroup-v%d", s.cg.version))
		s.iso.MemoryLimit, s.iso.ProcessLimit = s.memory, s.procs
		if s.cg.cpu != "" {
			s.iso.Mechanisms = append(s.iso.Mechanisms, "cpu")
		} else {
			s.iso.Missing = append(s.iso.Missing, "a CPU share per run (no cgroup cpu controller: a busy run slows the others)")
		}
	} else {
		s.iso.MemoryLimit = s.memory // RLIMIT_DATA, roughly
		if s.uids != nil {
			s.iso.ProcessLimit = s.procs // RLIMIT_NPROC of the run's own uid
		}
		s.iso.Missing = append(s.iso.Missing, "an exact memory limit (no cgroup: RLIMIT_DATA only)")
	}
	tool := ""
	if s.bwrap != "" {
		tool = "bubblewrap"
	}
	describe(&s.iso, tool)
}

func namespaceNames(flags uintptr) []string {
	var out []string
	for _, ns := range []struct {
		flag uintptr
		name string
	}{{syscall.CLONE_NEWPID, "pid"}, {syscall.CLONE_NEWNET, "net"}, {syscall.CLONE_NEWIPC, "ipc"}, {syscall.CLONE_NEWUTS, "uts"}} {
		if flags&ns.flag != 0 {
			out = append(out, ns.name)
		}
	}
	return out
}

// isolation is what runs get.
// Isolation says how this sandbox confines runs.
func (s *Sandbox) Isolation() report.Isolation { return s.iso }

// probeBwrap starts bubblewrap once the way runs start it, with /bin/true
// from a read-only view of the host as the program.
func (s *Sandbox) probeBwrap() error {
	try := func(disable bool) error {
		s.disableUserns = disable
		args := append(s.bwrapNamespaces(), "--ro-bind", "/", "/", "--proc", "/proc", "--dev", "/dev",
			"--tmpfs", "/tmp", "--", "/bin/true")
		return s.probe(s.bwrap, args, 0)
	}
	if err := try(true); err != nil {
		// Older bubblewrap has no --disable-userns.
		if err2 := try(false); err2 != nil {
			return err
		}
	}
	return nil
}

// probeClone returns the namespaces a plain clone may make here.
func (s *Sandbox) probeClone() uintptr {
	var flags uintptr
	for _, f := range []uintptr{syscall.CLONE_NEWPID, syscall.CLONE_NEWNET, syscall.CLONE_NEWIPC, syscall.CLONE_NEWUTS} {
		if s.probe("/bin/true", nil, flags|f) == nil {
			flags |= f
		}
	}
	return flags
}

// probe runs path with args as a run would run (a pool uid when root) and
// reports why it failed, if it did.
func (s *Sandbox) probe(path string, args []string, cloneflags uintptr) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Dir = "/"
	cmd.Env = []string{}
	attr := &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL, Cloneflags: cloneflags}
	if s.uids != nil {
		uid, release, err := s.uids.acquire()
		if err != nil {
			return err
		}
		defer release()
		attr.Credential = &syscall.Credential{Uid: uint32(uid), Gid: uint32(uid), Groups: []uint32{}}
	}
	cmd.SysProcAttr = attr
	out, err := cmd.CombinedOutput()
	if err != nil {
		if msg := strings.TrimSpace(string(out)); msg != "" {
			return errors.New(helperprog.LastLine(msg))
		}
		return err
	}
	return nil
}

func (s *Sandbox) bwrapNamespaces() []string {
	// --as-pid-1: no bubblewrap process inside the run, whose command line
	// (its --setenv values, the host's paths) the run could read.
	// --cap-drop ALL: a run started by root without a uid of its own
	// would otherwise keep root's capabilities inside its user namespace.
	args := []string{"--unshare-all", "--unshare-user", "--die-with-parent", "--new-session", "--as-pid-1", "--hostname", "grader", "--cap-drop", "ALL"}
	if s.disableUserns {
		args = append(args, "--disable-userns")
	}
	return args
}

// sandboxBinary is where the test binary is inside the sandbox.
const sandboxBinary = "/lab.test"

// cgroupFor makes j's cgroup, if the machine gives cgroups. A run of
// student code gets one CPU's worth of time (it has one P anyway:
// GOMAXPROCS=1) and the same share as every other run; the toolchain gets
// an equal share, no quota, and more memory and processes.
func (s *Sandbox) cgroupFor(j Job) (*cgroup, error) {
	if s.cg == nil {
		return nil, nil
	}
	memory, procs, cpus, what := s.memory, s.procs, 1, "run"
	if !j.Untrusted {
		memory, procs, cpus, what = max(BuildMemoryLimit, s.memory), 4096, 0, "build"
	}
	return s.cg.child(what, memory, procs, cpus)
}

// command is the program that runs j (inside bubblewrap for student code,
// where there is bubblewrap), its environment and working directory.
func (s *Sandbox) command(j Job, uid int, attr *syscall.SysProcAttr) (program, env []string, dir string, err error) {
	switch {
	case j.Untrusted && s.bwrap != "":
		args, err := s.bwrapArgs(j)
		if err != nil {
			return nil, nil, "", err
		}
		return append([]string{s.bwrap}, args...), []string{}, "/", nil
	case j.Untrusted:
		// No private filesystem: a private directory on the host instead.
		if err := os.MkdirAll(j.PrivateDir, 0o700); err != nil {
			return nil, nil, "", err
		}
		if uid >= 0 {
			if err := os.Chown(j.PrivateDir, uid, uid); err != nil {
				return nil, nil, "", err
			}
		}
		attr.Cloneflags = s.cloneflags
		env := append(slices.Clone(j.Env), "HOME="+j.PrivateDir, "TMPDIR="+j.PrivateDir)
		return append([]string{j.Path}, j.Args...), env, j.PrivateDir, nil
	}
	return append([]string{j.Path}, j.Args...), j.Env, j.Dir, nil
}

// prepare makes the launch of j: confined when j.Untrusted, else (the
// toolchain) in a cgroup with the build's memory limit where there is one.
func (s *Sandbox) prepare(j Job) (*launch, error) {
	l := &launch{}
	var cleanups []func() error
	cleanup := func() error {
		var errs []error
		for i := len(cleanups) - 1; i >= 0; i-- {
			errs = append(errs, cleanups[i]())
		}
		return errors.Join(errs...)
	}
	fail := func(err error) (*launch, error) {
		return nil, errors.Join(err, cleanup())
	}
	attr := &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	uid := -1
	if j.Untrusted && s.uids != nil {
		id, release, err := s.uids.acquire()
		if err != nil {
			return fail(err)
		}
		uid = id
		cleanups = append(cleanups, func() error { release(); return nil })
	}
	cg, err := s.cgroupFor(j)
	if err != nil {
		return fail(err)
	}
	if cg != nil {
		cleanups = append(cleanups, cg.remove)
	}
	program, env, dir, err := s.command(j, uid, attr)
	if err != nil {
		return fail(err)
	}

	if uid >= 0 {
		// The trampoline stays root until its limits are set (this root may
		// lack CAP_SYS_RESOURCE, and then may set limits only on processes
		// of its own uid); setpriv then drops to the run's uid, and keeps
		// the parent-death signal that a change of uid would clear.
		id := strconv.Itoa(uid)
		program = append([]string{s.setpriv, "--reuid", id, "--regid", id, "--clear-groups", "--pdeathsig", "KILL", "--"}, program...)
	}
	gateR, gateW, err := os.Pipe()
	if err != nil {
		return fail(err)
	}
	cleanups = append(cleanups, func() error { gateR.Close(); gateW.Close(); return nil })
	jn, err := newJoiner(cg, attr, 3+len(j.Extra))
	if err != nil {
		return fail(err)
	}
	cleanups = append(cleanups, jn.close)
	cmd := exec.Command(s.sh, jn.args(program)...)
	cmd.Dir = dir
	cmd.Env = env
	cmd.Stdin = gateR
	cmd.SysProcAttr = attr
	cmd.ExtraFiles = jn.files(j.Extra)
	l.cmd, l.gate = cmd, gateW

	limits := s.rlimits(j, uid >= 0, cg != nil)
	l.setup = func(pid int) error {
		gateR.Close() // the child has its own copy now
		if err := jn.join(pid); err != nil {
			return err
		}
		for _, lim := range limits {
			if err := unix.Prlimit(pid, lim.res, &unix.Rlimit{Cur: lim.val, Max: lim.val}, nil); err != nil {
				return fmt.Errorf("rlimit %d: %w", lim.res, err)
			}
		}
		return nil
	}
	l.kill = func() {
		_ = procgroup.Kill(cmd)
		if cg != nil {
			cg.kill()
		}
		if uid >= 0 {
			killUser(uid)
		}
	}
	l.finish = func(out *Outcome) error { return errors.Join(s.finish(out, cg, uid), cleanup()) }
	return l, nil
}

// finish waits for a run's processes to be gone and says what its cgroup
// saw; without a PID namespace, a process of the run's uid may have left
// its process group, and cgroup-less machines have no other record of it.
func (s *Sandbox) finish(out *Outcome, cg *cgroup, uid int) error {
	var errs []error
	if cg != nil {
		errs = append(errs, cg.empty(5*time.Second))
		out.MemoryExceeded = cg.oomKilled()
		out.ProcessesExceeded = cg.pidsLimited()
		out.CPUThrottled = cg.throttled()
	}
	if uid >= 0 {
		errs = append(errs, emptyUser(uid, 5*time.Second))
		if s.bwrap == "" {
			errs = append(errs, removeFilesOf(uid, []string{os.TempDir(), "/tmp", "/var/tmp", "/dev/shm"}))
		}
	}
	return errors.Join(errs...)
}

type rlimit struct {
	res int
	val uint64
}

// rlimits bounds CPU time (a busy loop dies even with a generous wall
// clock), file size, open files and core dumps; processes, when the run
// has a uid of its own; and memory, roughly, when there is no cgroup.
func (s *Sandbox) rlimits(j Job, ownUID, haveCgroup bool) []rlimit {
	if !j.Untrusted {
		// The toolchain writes what it compiles into the shared build
		// cache: no file of a build may be larger than buildFileLimit.
		return []rlimit{{unix.RLIMIT_FSIZE, buildFileLimit}, {unix.RLIMIT_CORE, 0}}
	}
	cpu := uint64(2*j.Timeout/time.Second) + 5
	ls := []rlimit{
		{unix.RLIMIT_CPU, cpu},
		{unix.RLIMIT_FSIZE, 64 << 20},
		{unix.RLIMIT_NOFILE, 1024},
		{unix.RLIMIT_CORE, 0},
	}
	if ownUID && !haveCgroup {
		// The cgroup counts exactly this run; without one, the run's own
		// uid stands in for it.
		ls = append(ls, rlimit{unix.RLIMIT_NPROC, uint64(s.procs)})
	}
	if !haveCgroup {
		ls = append(ls, rlimit{unix.RLIMIT_DATA, uint64(s.memory)})
	}
	return ls
}

// bwrapArgs is bubblewrap's command line for j: an empty, read-only root
// with the binary, the shared libraries it needs (a race-enabled binary is
// linked dynamically), a new /proc and /dev, and a private tmpfs at /tmp
// that is the working directory, HOME and TMPDIR.
func (s *Sandbox) bwrapArgs(j Job) ([]string, error) {
	args := append(s.bwrapNamespaces(), "--ro-bind", j.Path, sandboxBinary)
	libs, err := s.sharedLibraries(j.Path)
	if err != nil {
		return nil, err
	}
	for _, lib := range libs {
		args = append(args, "--ro-bind", lib, lib)
	}
	if len(libs) > 0 {
		args = append(args, "--ro-bind-try", "/etc/ld.so.cache", "/etc/ld.so.cache")
	}
	// /dev read-only: its tmpfs would be a second, unbounded /tmp.
	args = append(args, "--proc", "/proc", "--dev", "/dev", "--remount-ro", "/dev",
		// Half the memory limit: the tmpfs counts in the run's memory, and a
		// full disk must be an error the code sees, not the run's death.
		"--size", strconv.FormatInt(s.memory/2, 10), "--tmpfs", "/tmp",
		"--remount-ro", "/", "--chdir", "/tmp", "--clearenv")
	for _, kv := range append(slices.Clone(j.Env), "HOME=/tmp", "TMPDIR=/tmp") {
		k, v, _ := strings.Cut(kv, "=")
		args = append(args, "--setenv", k, v)
	}
	return append(append(args, "--", sandboxBinary), j.Args...), nil
}

// Admit reads what a run of the binary at bin needs from outside the
// sandbox (its shared libraries) while the grader can still read it: the
// build then makes the binary execute-only, which a grader that is not
// root cannot read either.
func (s *Sandbox) Admit(bin string) error {
	libs, err := s.readLibraries(bin)
	if err != nil {
		return err
	}
	s.libsMu.Lock()
	defer s.libsMu.Unlock()
	if s.admitted == nil {
		s.admitted = map[string][]string{}
	}
	s.admitted[bin] = libs
	return nil
}

// sharedLibraries lists the files the dynamic loader maps for bin: as Admit
// read them, or else read now.
func (s *Sandbox) sharedLibraries(bin string) ([]string, error) {
	s.libsMu.Lock()
	libs, ok := s.admitted[bin]
	s.libsMu.Unlock()
	if ok {
		return libs, nil
	}
	return s.readLibraries(bin)
}

// readLibraries lists the files the dynamic loader maps for bin (none for
// a static binary), as ldd says. Every binary the grader builds with the
// same flags needs the same ones: ldd runs once per different list.
func (s *Sandbox) readLibraries(bin string) ([]string, error) {
	f, err := elf.Open(bin)
	if err != nil {
		return nil, fmt.Errorf("reading the test binary: %w", err)
	}
	defer f.Close()
	interp := ""
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			data := make([]byte, p.Filesz)
			if _, err := p.ReadAt(data, 0); err != nil {
				return nil, fmt.Errorf("reading the test binary: %w", err)
			}
			interp = strings.TrimRight(string(data), "\x00")
		}
	}
	if interp == "" {
		return nil, nil
	}
	needed, err := f.ImportedLibraries()
	if err != nil {
		return nil, fmt.Errorf("reading the test binary: %w", err)
	}
	key := interp + "\x00" + strings.Join(needed, "\x00")
	s.libsMu.Lock()
	defer s.libsMu.Unlock()
	if libs, ok := s.libs[key]; ok {
		return libs, nil
	}
	out, err := exec.Command("ldd", bin).Output()
	if err != nil {
		return nil, fmt.Errorf("ldd %s: %w", bin, err)
	}
	var libs []string
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		for _, field := range strings.Fields(sc.Text()) {
			if strings.HasPrefix(field, "/") {
				libs = append(libs, field)
			}
		}
	}
	if len(libs) == 0 {
		return nil, fmt.Errorf("ldd %s named no library", bin)
	}
	if s.libs == nil {
		s.libs = map[string][]string{}
	}
	s.libs[key] = libs
	return libs, nil
}

// foreignUID reports whether runs have user ids other than the grader's,
// which must then be able to reach the binary.
// ForeignUID reports whether runs of student code are of other users than
// the grader's.
func (s *Sandbox) ForeignUID() bool { return s.uids != nil }
