package cli

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"golang.org/x/term"

	classpkg "github.com/coursekit/course/grader/class"
	"github.com/coursekit/course/grader/report"
	"github.com/coursekit/course/grader/safetext"
)

// A terminal is a stream that says whether it is one; an *os.File is
// asked with term.IsTerminal.
type terminal interface{ IsTerminal() bool }

func isTerminal(w io.Writer) bool {
	switch s := w.(type) {
	case terminal:
		return s.IsTerminal()
	case interface{ Fd() uintptr }:
		return term.IsTerminal(int(s.Fd()))
	}
	return false
}

// progress reports submissions as they finish.
type progress interface {
	done(r classpkg.Result, n, total int)
	close()
}

// newProgress is a bar on a terminal; elsewhere one line per submission
// for a class, and nothing for one submission.
func newProgress(w io.Writer, class bool, total int, desc string) progress {
	if isTerminal(w) {
		return newBar(w, total, class, desc)
	}
	if class {
		return lineProgress{w}
	}
	return lineProgress{io.Discard}
}

type lineProgress struct{ w io.Writer }

func (p lineProgress) done(r classpkg.Result, n, total int) {
	fmt.Fprintf(p.w, "%s (%d of %d)\n", doneLine(r), n, total)
}

func (lineProgress) close() {}

func doneLine(r classpkg.Result) string {
	name := safetext.Line(r.Name)
	if r.Err != nil {
		return "not graded " + name + ": " + safetext.Line(safetext.FirstLine(r.Err.Error()))
	}
	return fmt.Sprintf("graded %s %s/%d", name, report.FormatPoints(r.Report.Score), r.Report.MaxScore)
}

// barProgress is the live line of a grading run on a terminal: how many of
// how many are done, a bar, the time so far and, for a class, the time
// left; redrawn every second so that its clock moves while a long
// submission runs, and cleared when grading ends.
type barProgress struct {
	line    *liveLine
	desc    string
	class   bool
	start   time.Time
	mu      sync.Mutex
	n, of   int
	stop    chan struct{}
	stopped sync.WaitGroup
}

func newBar(w io.Writer, total int, class bool, desc string) *barProgress {
	p := &barProgress{line: newLiveLine(w), desc: desc, class: class, start: time.Now(), of: total, stop: make(chan struct{})}
	p.draw()
	p.stopped.Add(1)
	go func() {
		defer p.stopped.Done()
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			select {
			case <-tick.C:
				p.draw()
			case <-p.stop:
				return
			}
		}
	}()
	return p
}

// draw shows the line as it is now.
func (p *barProgress) draw() {
	p.mu.Lock()
	defer p.mu.Unlock()
	elapsed := time.Since(p.start).Truncate(time.Second)
	s := fmt.Sprintf("%s (%d/%d) %s %s", p.desc, p.n, p.of, progressBar(p.n, p.of, 30), elapsed)
	if p.class && p.n > 0 && p.n < p.of {
		left := (elapsed * time.Duration(p.of-p.n) / time.Duration(p.n)).Truncate(time.Second)
		s += fmt.Sprintf(", about %s left", left)
	}
	p.line.show(s)
}

func (p *barProgress) done(_ classpkg.Result, n, total int) {
	p.mu.Lock()
	p.n, p.of = n, total
	p.mu.Unlock()
	p.draw()
}

func (p *barProgress) close() {
	close(p.stop)
	p.stopped.Wait()
	p.mu.Lock()
	defer p.mu.Unlock()
	p.line.clear()
}

// progressBar is a bar of width cells, [████░░░░], filled in proportion to
// done of total; it is full only when done == total.
func progressBar(done, total, width int) string {
	filled := 0
	if total > 0 {
		filled = (done*width + total/2) / total
		if done > 0 {
			filled = max(filled, 1)
		}
		if done < total {
			filled = min(filled, width-1)
		}
	}
	return "[" + strings.Repeat("█", filled) + strings.Repeat("░", width-filled) + "]"
}

// liveLine is one line of progress on a terminal, redrawn in place and
// cleared when the work is done; elsewhere it writes nothing.
type liveLine struct {
	w     io.Writer // nil off a terminal
	width int       // of what is on the line now
}

func newLiveLine(w io.Writer) *liveLine {
	if !isTerminal(w) {
		return &liveLine{}
	}
	return &liveLine{w: w}
}

// progress is a testProgress that shows "label: 3/9 tests".
func (l *liveLine) progress(label string, done, total int) {
	l.show(fmt.Sprintf("%s: %d/%d tests %s", label, done, total, progressBar(done, total, 20)))
}

func (l *liveLine) show(s string) {
	if l.w == nil {
		return
	}
	n := len([]rune(s))
	fmt.Fprintf(l.w, "\r%s%s", s, strings.Repeat(" ", max(l.width-n, 0)))
	l.width = n
}

// clear removes the line.
func (l *liveLine) clear() {
	if l.w == nil || l.width == 0 {
		return
	}
	fmt.Fprintf(l.w, "\r%s\r", strings.Repeat(" ", l.width))
	l.width = 0
}
