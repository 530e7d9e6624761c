//go:build linux

package sandbox

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

// The cgroup code is a few file writes: a library for it (containerd's or
// runc's cgroups packages) would bring systemd, D-Bus and eBPF along.

// cgroupSet is where the grader makes one cgroup per run: under its own
// cgroup in the v1 memory, pids (and cpu) hierarchies, or in the unified
// (v2) hierarchy when that is where the memory and pids controllers are.
// The cpu controller is optional: without it a run has no CPU share of its
// own (Isolation says so), only GOMAXPROCS=1 and RLIMIT_CPU.
type cgroupSet struct {
	version int // 1 or 2
	// The parents, by controller: v1 has one hierarchy each, v2 one for
	// all. cpu is "" when the controller is not to be had.
	memory, pids, cpu string
}

var cgroupSeq atomic.Int64

// findCgroups finds a place where this process may make cgroups with a
// memory and a pids controller, or returns an error saying why there is none.
func findCgroups() (*cgroupSet, error) {
	mounts, err := cgroupMounts()
	if err != nil {
		return nil, err
	}
	own, err := ownCgroups()
	if err != nil {
		return nil, err
	}
	if mem, ok := mounts["memory"]; ok {
		pids, ok := mounts["pids"]
		if !ok {
			return nil, errors.New("the cgroup v1 memory controller is mounted but the pids controller is not")
		}
		set := &cgroupSet{version: 1, memory: filepath.Join(mem, own["memory"]), pids: filepath.Join(pids, own["pids"])}
		if cpu, ok := mounts["cpu"]; ok {
			set.cpu = filepath.Join(cpu, own["cpu"])
			if set.try() != nil {
				set.cpu = "" // memory and pids still bound the run
			}
		}
		return set, set.try()
	}
	root, ok := mounts[""]
	if !ok {
		return nil, errors.New("no cgroup hierarchy with the memory and pids controllers is mounted")
	}
	// v2: a child of our own cgroup needs the controllers enabled in ours,
	// which the kernel refuses while we have processes there (unless ours
	// is the root); then use the root of the hierarchy.
	var why []string
	for _, parent := range []string{filepath.Join(root, own[""]), root} {
		if err := enableControllers(parent, "memory", "pids"); err != nil {
			why = append(why, err.Error())
			continue
		}
		set := &cgroupSet{version: 2, memory: parent, pids: parent}
		if err := set.try(); err != nil {
			why = append(why, err.Error())
			continue
		}
		if enableControllers(parent, "cpu") == nil {
			set.cpu = parent
			if set.try() != nil {
				set.cpu = ""
			}
		}
		return set, nil
	}
	return nil, errors.New(strings.Join(why, "; "))
}

// cgroupMounts maps a controller ("memory", "pids") to its v1 mount point,
// and "" to the unified (v2) mount point.
func cgroupMounts() (map[string]string, error) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// id parent major:minor root mountpoint options [optional...] - fstype source superoptions
		left, right, ok := strings.Cut(sc.Text(), " - ")
		if !ok {
			continue
		}
		lf, rf := strings.Fields(left), strings.Fields(right)
		if len(lf) < 5 || len(rf) < 3 {
			continue
		}
		switch rf[0] {
		case "cgroup2":
			if _, ok := out[""]; !ok {
				out[""] = lf[4]
			}
		case "cgroup":
			for _, opt := range strings.Split(rf[2], ",") {
				if opt == "memory" || opt == "pids" || opt == "cpu" {
					out[opt] = lf[4]
				}
			}
		}
	}
	return out, sc.Err()
}

// ownCgroups maps a controller to this process's cgroup path in it ("" for v2).
func ownCgroups() (map[string]string, error) {
	data, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		for _, c := range strings.Split(parts[1], ",") {
			out[c] = parts[2]
		}
	}
	return out, nil
}

// enableControllers enables the controllers for the children of dir.
func enableControllers(dir string, controllers ...string) error {
	data, err := os.ReadFile(filepath.Join(dir, "cgroup.subtree_control"))
	if err != nil {
		return err
	}
	have := strings.Fields(string(data))
	for _, c := range controllers {
		if !slices.Contains(have, c) {
			if err := os.WriteFile(filepath.Join(dir, "cgroup.subtree_control"), []byte("+"+c), 0); err != nil {
				return fmt.Errorf("enable the %s controller in %s: %w", c, dir, err)
			}
		}
	}
	return nil
}

// try makes and removes a cgroup, to know now whether runs can have one.
func (s *cgroupSet) try() error {
	cg, err := s.child("probe", 64<<20, 16, 1)
	if err != nil {
		return err
	}
	return cg.remove()
}

// cgroup is the cgroup of one run.
type cgroup struct {
	version int
	dirs    []string // each directory made, once
	memory  string   // where each controller's files are
	pids    string
	cpu     string // "" without the cpu controller
}

// cpuPeriod is the period of a run's CPU quota, in microseconds.
const cpuPeriod = 100_000

// child makes a new cgroup for one run with its limits: memory bytes,
// procs processes and threads, and cpus CPUs' worth of time (0: no quota,
// an equal share only).
func (s *cgroupSet) child(what string, memory int64, procs int, cpus int) (*cgroup, error) {
	name := fmt.Sprintf("course-grade-%d-%d-%s", os.Getpid(), cgroupSeq.Add(1), what)
	cg := &cgroup{version: s.version}
	made := map[string]string{}
	mkdir := func(parent string) (string, error) {
		if d, ok := made[parent]; ok || parent == "" {
			return d, nil
		}
		d := filepath.Join(parent, name)
		if err := os.Mkdir(d, 0o700); err != nil {
			return "", fmt.Errorf("cgroup: %w", err)
		}
		made[parent] = d
		cg.dirs = append(cg.dirs, d)
		return d, nil
	}
	var err error
	for _, c := range []struct {
		parent string
		dir    *string
	}{{s.memory, &cg.memory}, {s.pids, &cg.pids}, {s.cpu, &cg.cpu}} {
		if *c.dir, err = mkdir(c.parent); err != nil {
			_ = cg.remove()
			return nil, err
		}
	}
	for _, w := range cg.limits(memory, procs, cpus) {
		err := os.WriteFile(w[0], []byte(w[1]), 0)
		if err != nil && (errors.Is(err, os.ErrNotExist) && strings.Contains(w[0], "sw")) {
			continue // the kernel does not account swap: there is none to limit
		}
		if err != nil {
			_ = cg.remove()
			return nil, fmt.Errorf("cgroup: %w", err)
		}
	}
	return cg, nil
}

// limits are the files to write for a run's limits, and what to write.
func (c *cgroup) limits(memory int64, procs, cpus int) [][2]string {
	mem := strconv.FormatInt(memory, 10)
	var w [][2]string
	if c.version == 1 {
		w = [][2]string{
			{filepath.Join(c.memory, "memory.limit_in_bytes"), mem},
			{filepath.Join(c.memory, "memory.memsw.limit_in_bytes"), mem}, // no swap beyond it (if swap is accounted)
			{filepath.Join(c.pids, "pids.max"), strconv.Itoa(procs)},
		}
		if c.cpu != "" {
			// Every run the same weight as the next, whatever its threads.
			w = append(w, [2]string{filepath.Join(c.cpu, "cpu.shares"), "1024"})
			if cpus > 0 {
				w = append(w, [2]string{filepath.Join(c.cpu, "cpu.cfs_period_us"), strconv.Itoa(cpuPeriod)},
					[2]string{filepath.Join(c.cpu, "cpu.cfs_quota_us"), strconv.Itoa(cpus * cpuPeriod)})
			}
		}
		return w
	}
	w = [][2]string{
		{filepath.Join(c.memory, "memory.max"), mem},
		{filepath.Join(c.memory, "memory.swap.max"), "0"},
		{filepath.Join(c.pids, "pids.max"), strconv.Itoa(procs)},
	}
	if c.cpu != "" {
		w = append(w, [2]string{filepath.Join(c.cpu, "cpu.weight"), "100"})
		if cpus > 0 {
			w = append(w, [2]string{filepath.Join(c.cpu, "cpu.max"), fmt.Sprintf("%d %d", cpus*cpuPeriod, cpuPeriod)})
		}
	}
	return w
}

// add moves process pid into the cgroup.
func (c *cgroup) add(pid int) error {
	for _, d := range c.dirs {
		if err := os.WriteFile(filepath.Join(d, "cgroup.procs"), []byte(strconv.Itoa(pid)), 0); err != nil {
			return fmt.Errorf("cgroup: %w", err)
		}
	}
	return nil
}

// joinFiles are the files a process writes "0" into to move itself, its
// only thread, into the cgroup: v1's tasks files. A thread that moves
// itself does not take the lock that moving another process takes, whose
// first taker waits for an RCU grace period (5 to 25 ms a run on the
// course's machine). None for v2, where only whole processes move.
func (c *cgroup) joinFiles() []string {
	if c.version != 1 {
		return nil
	}
	files := make([]string, len(c.dirs))
	for i, d := range c.dirs {
		files[i] = filepath.Join(d, "tasks")
	}
	return files
}

// holds returns nil when process pid is in the cgroup, in every hierarchy.
func (c *cgroup) holds(pid int) error {
	want := strconv.Itoa(pid)
	for _, d := range c.dirs {
		data, err := os.ReadFile(filepath.Join(d, "cgroup.procs"))
		if err != nil {
			return fmt.Errorf("cgroup: %w", err)
		}
		if !slices.Contains(strings.Fields(string(data)), want) {
			return fmt.Errorf("cgroup: process %d did not join %s", pid, d)
		}
	}
	return nil
}

// procs lists the processes in the cgroup.
func (c *cgroup) procs() ([]int, error) {
	seen := map[int]bool{}
	var out []int
	for _, d := range c.dirs {
		data, err := os.ReadFile(filepath.Join(d, "cgroup.procs"))
		if err != nil {
			return nil, err
		}
		for _, f := range strings.Fields(string(data)) {
			if pid, err := strconv.Atoi(f); err == nil && !seen[pid] {
				seen[pid] = true
				out = append(out, pid)
			}
		}
	}
	return out, nil
}

// kill kills every process in the cgroup, once.
func (c *cgroup) kill() {
	if c.version == 2 {
		if err := os.WriteFile(filepath.Join(c.memory, "cgroup.kill"), []byte("1"), 0); err == nil {
			return
		}
	}
	pids, _ := c.procs()
	for _, pid := range pids {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}

// empty kills until no process is left, for at most wait.
func (c *cgroup) empty(wait time.Duration) error {
	deadline := time.Now().Add(wait)
	for {
		pids, err := c.procs()
		if err != nil {
			return err
		}
		if len(pids) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("cgroup: %d processes still running after SIGKILL: %v", len(pids), pids)
		}
		c.kill()
		time.Sleep(5 * time.Millisecond) // the kernel reaps them; there is nothing to wait on
	}
}

// counter reads one "key value" line of a cgroup file in dir.
func counter(dir, file, key string) int64 {
	data, err := os.ReadFile(filepath.Join(dir, file))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) == 2 && f[0] == key {
			n, _ := strconv.ParseInt(f[1], 10, 64)
			return n
		}
	}
	return 0
}

// oomKilled reports whether the kernel killed a process for the memory limit.
func (c *cgroup) oomKilled() bool {
	if c.version == 1 {
		return counter(c.memory, "memory.oom_control", "oom_kill") > 0
	}
	return counter(c.memory, "memory.events", "oom_kill") > 0
}

// pidsLimited reports whether a fork or a new thread was refused for the limit.
func (c *cgroup) pidsLimited() bool {
	return counter(c.pids, "pids.events", "max") > 0
}

// throttled reports whether the run was held back for its CPU quota.
func (c *cgroup) throttled() bool {
	return c.cpu != "" && counter(c.cpu, "cpu.stat", "nr_throttled") > 0
}

// remove deletes the cgroup; it must be empty.
func (c *cgroup) remove() error {
	var errs []error
	for _, d := range c.dirs {
		var err error
		for i := 0; i < 100; i++ {
			// Just after the last process died the kernel may still say busy.
			if err = os.Remove(d); err == nil || errors.Is(err, os.ErrNotExist) {
				err = nil
				break
			}
			time.Sleep(5 * time.Millisecond)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("cgroup: %w", err))
		}
	}
	return errors.Join(errs...)
}
