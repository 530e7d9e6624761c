package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/spf13/cobra"

	"github.com/coursekit/course/grader/format"
	"github.com/coursekit/course/grader/lab"
)

// Timing of `course watch`.
const (
	watchDebounce = 200 * time.Millisecond // quiet after a save before a run
	pollInterval  = 500 * time.Millisecond // between two looks at the files, when polling
)

// ChangeSource reports changes to the files of a workspace.
type ChangeSource interface {
	// Changes delivers the path of each file that changed, or "" for a
	// change the source cannot name (its queue overflowed). It is closed
	// when the source stops.
	Changes() <-chan string
	// Close stops the source.
	Close() error
}

// WatchOptions are the inputs of `course watch`.
type WatchOptions struct {
	IO      IOStreams
	Catalog func() (*lab.Catalog, error)
	// Getenv reads the environment (NO_COLOR).
	Getenv func(string) string
	// GoTest runs go test in the workspace; execGoTest unless a test replaces it.
	GoTest GoTestFunc
	// Watch starts a ChangeSource on the workspace at dir (fsnotify, or
	// polling when poll is set or fsnotify cannot start) and says how it
	// watches; watchFiles unless a test replaces it.
	Watch func(dir string, poll bool) (src ChangeSource, how string, err error)
	// After is the debounce's clock, time.After unless a test replaces it.
	After func(time.Duration) <-chan time.Time
	// Debounce is how long no other file may change before a run; 0 runs at once.
	Debounce time.Duration
	// Now is the time printed on each run.
	Now func() time.Time

	Dir      string // where to look for the workspace
	Exercise string // where to start; "" is the first exercise that fails
	Poll     bool   // poll the files instead of using fsnotify
}

// NewCmdWatch returns the `course watch [exercise]` command.
func NewCmdWatch(f *Factory) *cobra.Command {
	return newCmdWatch(&WatchOptions{IO: f.IO, Catalog: f.Catalog, Getenv: os.Getenv, GoTest: execGoTest,
		Watch: watchFiles, After: time.After, Debounce: watchDebounce, Now: time.Now})
}

func newCmdWatch(opts *WatchOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "watch [exercise]",
		Short: "Re-run the exercise you work on each time you save a .go file",
		Long: `Watch your practice workspace: run every exercise once to see where you
stand, then re-run the exercise you work on (the first graded one that
fails, or the one named) each time you save a .go file. When it passes,
move on to the next failing exercise and run it at once.

The watch ends by itself once every graded exercise passes, or when you
press Ctrl-C. An optional (bonus) exercise is watched only when you name
it, as in 'course watch {bonus}'; the watch then ends when it passes too.

Changes are noticed with the operating system's file events; where those
do not arrive (some network or shared folders) use --poll, which looks at
the files twice a second.`,
		Example: "  course watch\n  course watch {exercise}\n  course watch --poll",
		Args:    cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.Exercise = args[0]
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return runWatch(ctx, opts)
		},
	}
	cmd.Flags().StringVar(&opts.Dir, "dir", ".", "the practice workspace, or a directory inside it")
	cmd.Flags().BoolVar(&opts.Poll, "poll", false, "look at the files every 500ms instead of waiting for file events")
	return cmd
}

// watcher is one `course watch` session.
type watcher struct {
	opts   *WatchOptions
	ws     *Workspace
	out    io.Writer
	st     format.Style
	live   *liveLine
	order  []lab.Exercise
	passed map[string]bool // by exercise id, as the last run of each said
	// withBonus is set when the student named a bonus exercise: only then
	// are optional exercises part of the work, and of "everything passes".
	withBonus bool
}

func runWatch(ctx context.Context, opts *WatchOptions) error {
	ws, err := openWorkspace(opts.Dir, opts.Catalog)
	if err != nil {
		return err
	}
	var start *lab.Exercise
	if opts.Exercise != "" {
		e, err := lookupExercise(ws.Lab, opts.Exercise)
		if err != nil {
			return usageError(err)
		}
		start = &e
	}
	src, how, err := opts.Watch(ws.Dir, opts.Poll)
	if err != nil {
		return cannotGrade(fmt.Errorf("cannot watch %s: %w", ws.Dir, err))
	}
	defer src.Close()

	w := &watcher{opts: opts, ws: ws, out: opts.IO.Out, st: styleFor(opts.IO.Out, opts.Getenv),
		live: newLiveLine(opts.IO.ErrOut), order: orderedExercises(ws.Lab), passed: map[string]bool{},
		withBonus: start != nil && start.Bonus}
	until := "every graded exercise passes"
	if w.withBonus {
		until = "every exercise, " + start.ID + " included, passes"
	}
	fmt.Fprintf(w.out, "Watching %s (%s). It stops when %s, or with Ctrl-C.\n", ws.Dir, how, until)
	err = w.loop(ctx, src, start)
	w.live.clear()
	if ctx.Err() != nil {
		fmt.Fprintln(opts.IO.ErrOut, "Stopped watching.")
		return nil // Ctrl-C is how a watch ends
	}
	if err != nil {
		return cannotGrade(err) // no go command, or the watching failed
	}
	return nil
}

// loop runs the session until every exercise it watches passes, ctx ends
// or the change source stops.
func (w *watcher) loop(ctx context.Context, src ChangeSource, start *lab.Exercise) error {
	current, done, err := w.runAll(ctx, start)
	if err != nil || done {
		return err
	}
	for {
		fmt.Fprintln(w.out, w.st.Dim("Waiting for a change to a .go file…"))
		changed, err := waitForChange(ctx, src.Changes(), w.opts.After, w.opts.Debounce)
		if err != nil || !changed {
			return err
		}
		for {
			eo, err := w.run(ctx, current)
			if err != nil {
				return err
			}
			if !eo.Passed {
				w.writeProgress()
				break
			}
			next, ok := w.nextFailing(current)
			if !ok {
				// Every exercise watched passed when it was last run; make
				// sure they still do together before saying so.
				if current, done, err = w.runAll(ctx, nil); err != nil || done {
					return err
				}
				break
			}
			fmt.Fprintf(w.out, "\n%s %s %s\n", w.st.Pass("→ Next:"), next.ID, next.Name)
			current = next
		}
	}
}

// runAll runs every exercise, shows where the student stands and the
// exercise to work on (start if it fails, else the next failing one), and
// reports done when every exercise it watches passes.
func (w *watcher) runAll(ctx context.Context, start *lab.Exercise) (current lab.Exercise, done bool, err error) {
	w.header("every exercise", "")
	res, err := w.ws.testExercises(ctx, w.opts.GoTest, w.order, w.live.progress)
	w.live.clear()
	if err != nil {
		return lab.Exercise{}, false, err
	}
	for _, eo := range res.Exercises {
		w.passed[eo.Exercise.ID] = eo.Passed
	}
	if res.Broken {
		writeBroken(w.out, res, w.st)
	}
	first := currentExercise(res, w.withBonus)
	if first == nil {
		w.writeProgress()
		fmt.Fprintf(w.out, "\n%s\n", allPassLine(res, w.st, "course watch"))
		return lab.Exercise{}, true, nil
	}
	current = first.Exercise
	if start != nil {
		current = *start
	}
	if w.passed[current.ID] {
		next, _ := w.nextFailing(current) // there is one: not all pass
		fmt.Fprintf(w.out, "%s passes already. %s %s %s\n", current.ID, w.st.Pass("→ Next:"), next.ID, next.Name)
		current = next
	}
	if !res.Broken {
		fmt.Fprintf(w.out, "\n%s %s  (go test -run %s)\n\n", current.ID, current.Name, runPattern(current))
		writeTests(w.out, res.find(current.ID), w.st)
		fmt.Fprintf(w.out, "\n%s\n", verdictLine(res.find(current.ID), w.st))
	}
	w.writeProgress()
	return current, false, nil
}

// run runs exercise e and shows its tests.
func (w *watcher) run(ctx context.Context, e lab.Exercise) (*exerciseOutcome, error) {
	w.header(e.ID+" "+e.Name, "go test -run "+runPattern(e))
	res, err := w.ws.testExercises(ctx, w.opts.GoTest, []lab.Exercise{e}, w.live.progress)
	w.live.clear()
	if err != nil {
		return nil, err
	}
	eo := res.Exercises[0]
	w.passed[e.ID] = eo.Passed
	writeExercise(w.out, res, eo, w.st)
	return eo, nil
}

// header starts the output of a run.
func (w *watcher) header(what, command string) {
	line := "── " + w.opts.Now().Format("15:04:05") + "  " + what
	if command != "" {
		line += "  (" + command + ")"
	}
	fmt.Fprintf(w.out, "\n%s\n\n", w.st.Dim(line+" ──"))
}

// writeProgress writes how many exercises pass, as far as their last runs tell.
func (w *watcher) writeProgress() {
	passed, total, bonusPassed, bonusTotal := 0, 0, 0, 0
	for _, e := range w.order {
		if e.Bonus {
			bonusTotal++
			if w.passed[e.ID] {
				bonusPassed++
			}
			continue
		}
		total++
		if w.passed[e.ID] {
			passed++
		}
	}
	line := fmt.Sprintf("Progress: %s %d of %d exercises pass", progressBar(passed, total, 20), passed, total)
	if bonusTotal > 0 {
		line += fmt.Sprintf(" (bonus: %d of %d)", bonusPassed, bonusTotal)
	}
	fmt.Fprintf(w.out, "\n%s\n", line)
}

// nextFailing returns the first exercise after e, in the order of work and
// coming round to the start, that did not pass when it was last run: a
// graded one, or a bonus one when the student asked for it.
func (w *watcher) nextFailing(e lab.Exercise) (lab.Exercise, bool) {
	at := 0
	for i, o := range w.order {
		if o.ID == e.ID {
			at = i
		}
	}
	for k := 1; k < len(w.order); k++ {
		o := w.order[(at+k)%len(w.order)]
		if !w.passed[o.ID] && (w.withBonus || !o.Bonus) {
			return o, true
		}
	}
	return lab.Exercise{}, false
}

// waitForChange waits for a change to a Go source file, then for quiet: no
// other such change for debounce, as after takes time to tell. It returns
// false when ctx ends, and an error when the source stops.
func waitForChange(ctx context.Context, changes <-chan string, after func(time.Duration) <-chan time.Time, debounce time.Duration) (bool, error) {
	for changed := false; !changed; {
		select {
		case <-ctx.Done():
			return false, nil
		case p, ok := <-changes:
			if !ok {
				return false, errors.New("watching the files stopped")
			}
			changed = isGoSource(p)
		}
	}
	if debounce <= 0 {
		return true, nil
	}
	quiet := after(debounce)
	for {
		select {
		case <-ctx.Done():
			return false, nil
		case p, ok := <-changes:
			if !ok {
				return true, nil // run what changed; the next wait reports the end
			}
			if isGoSource(p) {
				quiet = after(debounce)
			}
		case <-quiet:
			return true, nil
		}
	}
}

// isGoSource reports whether a change to p may change what go test builds:
// a .go file the go command does not ignore, or "" (something changed).
func isGoSource(p string) bool {
	if p == "" {
		return true
	}
	name := filepath.Base(p)
	return strings.HasSuffix(name, ".go") && !strings.HasPrefix(name, ".") && !strings.HasPrefix(name, "_")
}

// skipDir reports whether the go command ignores a directory of the
// workspace (and so do the watchers): .course, .git, _old, testdata.
func skipDir(root, p string, name string) bool {
	return p != root && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata")
}

// watchFiles starts watching dir with fsnotify, or by polling when poll
// is set or fsnotify cannot start.
func watchFiles(dir string, poll bool) (ChangeSource, string, error) {
	notify := func(dir string) (ChangeSource, error) {
		s, err := startNotify(dir)
		if err != nil {
			return nil, err
		}
		return s, nil
	}
	return watchFilesWith(dir, poll, notify)
}

// watchFilesWith is watchFiles with the file events of notify.
func watchFilesWith(dir string, poll bool, notify func(string) (ChangeSource, error)) (ChangeSource, string, error) {
	how := "polling every 500ms"
	if !poll {
		src, err := notify(dir)
		if err == nil {
			return src, "file events; if saving does not re-run the tests, try --poll", nil
		}
		how = fmt.Sprintf("polling every 500ms, as file events are not available: %v", err)
	}
	tick := time.NewTicker(pollInterval)
	src, err := startPoll(dir, tick.C, tick.Stop)
	if err != nil {
		tick.Stop()
		return nil, "", err
	}
	return src, how, nil
}

// notifySource is a ChangeSource on fsnotify, watching dir and every
// directory below it that the go command does not ignore.
type notifySource struct {
	w       *fsnotify.Watcher
	root    string
	changes chan string
	done    chan struct{}
	stopped sync.WaitGroup
	once    sync.Once
}

func startNotify(root string) (*notifySource, error) {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	s := &notifySource{w: w, root: root, changes: make(chan string), done: make(chan struct{})}
	if err := s.addTree(root); err != nil {
		w.Close()
		return nil, err
	}
	s.stopped.Add(1)
	go s.forward()
	return s, nil
}

func (s *notifySource) addTree(dir string) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		if skipDir(s.root, p, d.Name()) {
			return filepath.SkipDir
		}
		return s.w.Add(p)
	})
}

// forward passes the watcher's events on until the source is closed.
func (s *notifySource) forward() {
	defer s.stopped.Done()
	defer close(s.changes)
	for {
		var p string
		select {
		case <-s.done:
			return
		case ev, ok := <-s.w.Events:
			if !ok {
				return
			}
			if ev.Op == fsnotify.Chmod {
				continue // the content did not change; macOS sends these unasked
			}
			if ev.Has(fsnotify.Create) {
				if fi, err := os.Stat(ev.Name); err == nil && fi.IsDir() && !skipDir(s.root, ev.Name, fi.Name()) {
					_ = s.addTree(ev.Name) // a new package directory
				}
			}
			p = ev.Name
		case err, ok := <-s.w.Errors:
			if !ok {
				return
			}
			if !errors.Is(err, fsnotify.ErrEventOverflow) {
				continue
			}
			p = "" // events were lost: something changed
		}
		select {
		case s.changes <- p:
		case <-s.done:
			return
		}
	}
}

func (s *notifySource) Changes() <-chan string { return s.changes }

func (s *notifySource) Close() error {
	var err error
	s.once.Do(func() {
		close(s.done)
		err = s.w.Close()
		s.stopped.Wait()
	})
	return err
}

// pollSource is a ChangeSource that looks at the workspace's Go files at
// every tick and reports those whose modification time or size changed,
// and those that appeared or went: it works on any file system.
type pollSource struct {
	root    string
	tick    <-chan time.Time
	stop    func() // stops the ticks
	changes chan string
	done    chan struct{}
	stopped sync.WaitGroup
	once    sync.Once
}

// fileStamp is what polling compares.
type fileStamp struct {
	mod  time.Time
	size int64
}

func startPoll(root string, tick <-chan time.Time, stop func()) (*pollSource, error) {
	s := &pollSource{root: root, tick: tick, stop: stop, changes: make(chan string), done: make(chan struct{})}
	last, err := s.scan()
	if err != nil {
		return nil, err
	}
	s.stopped.Add(1)
	go s.poll(last)
	return s, nil
}

// scan stamps every Go source file of the workspace.
func (s *pollSource) scan() (map[string]fileStamp, error) {
	out := map[string]fileStamp{}
	err := filepath.WalkDir(s.root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == s.root {
				return err
			}
			return nil // a file that went while we looked: the next scan sees it gone
		}
		if d.IsDir() {
			if skipDir(s.root, p, d.Name()) {
				return filepath.SkipDir
			}
			return nil
		}
		if !isGoSource(p) {
			return nil
		}
		if fi, err := d.Info(); err == nil {
			out[p] = fileStamp{fi.ModTime(), fi.Size()}
		}
		return nil
	})
	return out, err
}

func (s *pollSource) poll(last map[string]fileStamp) {
	defer s.stopped.Done()
	defer close(s.changes)
	for {
		select {
		case <-s.done:
			return
		case <-s.tick:
		}
		var changed []string
		last, changed = s.rescan(last)
		for _, p := range changed {
			select {
			case s.changes <- p:
			case <-s.done:
				return
			}
		}
	}
}

// rescan stamps the files again and returns the new stamps and the files
// that changed, appeared or went since last (in no order). When the
// workspace cannot be read it keeps last and reports nothing.
func (s *pollSource) rescan(last map[string]fileStamp) (map[string]fileStamp, []string) {
	now, err := s.scan()
	if err != nil {
		return last, nil
	}
	var changed []string
	for p, st := range now {
		if old, ok := last[p]; !ok || !old.mod.Equal(st.mod) || old.size != st.size {
			changed = append(changed, p)
		}
	}
	for p := range last {
		if _, ok := now[p]; !ok {
			changed = append(changed, p)
		}
	}
	return now, changed
}

func (s *pollSource) Changes() <-chan string { return s.changes }

func (s *pollSource) Close() error {
	s.once.Do(func() {
		close(s.done)
		s.stop()
		s.stopped.Wait()
	})
	return nil
}
