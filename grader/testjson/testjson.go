// Package testjson reads the event stream of `go test -json` (and of
// `go tool test2json`) and sums it up per test.
//
// The format is cmd/test2json's TestEvent, plus the BuildEvent lines that
// `go test -json` interleaves (see `go help buildjson`). A stream may also
// hold lines that are not JSON at all, such as an early error from the go
// command; the decoder keeps them as raw output instead of failing.
package testjson

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"time"
)

// Action is what an event reports.
type Action string

// The actions of test2json and `go test -json` build events.
const (
	ActionStart       Action = "start"        // the test binary is about to run
	ActionRun         Action = "run"          // a test started
	ActionPause       Action = "pause"        // a parallel test paused
	ActionCont        Action = "cont"         // a paused test continued
	ActionPass        Action = "pass"         // a test, or the package, passed
	ActionBench       Action = "bench"        // a benchmark logged but did not fail
	ActionFail        Action = "fail"         // a test, or the package, failed
	ActionOutput      Action = "output"       // a test, or the package, printed
	ActionSkip        Action = "skip"         // a test was skipped, or the package had no tests
	ActionBuildOutput Action = "build-output" // the toolchain printed while building
	ActionBuildFail   Action = "build-fail"   // a build failed
)

// IsFinal reports whether a is the last action of a test: pass, fail or skip.
func (a Action) IsFinal() bool {
	return a == ActionPass || a == ActionFail || a == ActionSkip
}

// Event is one line of the stream.
type Event struct {
	Time        time.Time `json:",omitzero"` // omitted for cached results
	Action      Action
	Package     string  `json:",omitempty"` // test events
	Test        string  `json:",omitempty"` // empty for package-level events
	Elapsed     float64 `json:",omitempty"` // seconds, on pass and fail
	Output      string  `json:",omitempty"` // on output and build-output
	FailedBuild string  `json:",omitempty"` // on a package fail caused by a build failure
	ImportPath  string  `json:",omitempty"` // build events

	// Raw marks a line that was not a JSON event: Action is ActionOutput
	// and Output holds the line with its newline.
	Raw bool `json:"-"`
}

// Decoder reads events from a stream one line at a time, so that a caller
// can show progress while the tests still run.
type Decoder struct {
	r    *bufio.Reader
	line int
}

// NewDecoder returns a decoder reading r.
func NewDecoder(r io.Reader) *Decoder {
	return &Decoder{r: bufio.NewReader(r)}
}

// Line returns the 1-based number of the line the last event came from.
func (d *Decoder) Line() int { return d.line }

// Next returns the next event, or io.EOF after the last one. A line that is
// not a JSON object with an Action is returned as a Raw output event; only
// a read error ends decoding early.
func (d *Decoder) Next() (Event, error) {
	line, err := d.r.ReadBytes('\n')
	if len(line) == 0 {
		if err == nil {
			err = io.EOF // unreachable: ReadBytes returns data or an error
		}
		return Event{}, err
	}
	if err != nil && !errors.Is(err, io.EOF) {
		return Event{}, err
	}
	d.line++
	text := bytes.TrimRight(line, "\r\n")
	var ev Event
	if bytes.HasPrefix(text, []byte("{")) && json.Unmarshal(text, &ev) == nil && ev.Action != "" {
		return ev, nil
	}
	out := string(text) + "\n"
	return Event{Action: ActionOutput, Output: out, Raw: true}, nil
}

// Decode reads every event of r.
func Decode(r io.Reader) ([]Event, error) {
	d := NewDecoder(r)
	var out []Event
	for {
		ev, err := d.Next()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, ev)
	}
}
