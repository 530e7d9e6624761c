package cli

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
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
		return "not graded " + name + ": " + safetext.Line(firstLine(r.Err.Error()))
	}
	return fmt.Sprintf("graded %s %s/%d", name, report.FormatPoints(r.Report.Score), r.Report.MaxScore)
}

// barProgress is a progress bar, redrawn every second so that its clock
// moves while a long submission runs, and cleared when grading ends.
type barProgress struct {
	bar  *progressbar.ProgressBar
	stop chan struct{}
	wg   sync.WaitGroup
}

func newBar(w io.Writer, total int, class bool, desc string) *barProgress {
	p := &barProgress{
		bar: progressbar.NewOptions(total,
			progressbar.OptionSetWriter(w),
			progressbar.OptionSetDescription(desc),
			progressbar.OptionSetWidth(30),
			progressbar.OptionShowCount(),
			progressbar.OptionSetElapsedTime(true),
			progressbar.OptionSetPredictTime(class),
			progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionClearOnFinish(),
			progressbar.OptionSetRenderBlankState(true),
		),
		stop: make(chan struct{}),
	}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			select {
			case <-tick.C:
				_ = p.bar.Add(0)
			case <-p.stop:
				return
			}
		}
	}()
	return p
}

func (p *barProgress) done(r classpkg.Result, n, total int) {
	_ = p.bar.Add(1)
}

func (p *barProgress) close() {
	close(p.stop)
	p.wg.Wait()
	_ = p.bar.Finish()
}
