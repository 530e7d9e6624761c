// Command driver is the lab's side of the pi conformance suite. The suite
// copies it into a lab workspace built with the store under test, beside
// the lab's package, and runs it there: it reads one request (JSON) on
// stdin, does it with the store through the lab's exported API only, and
// writes one response (JSON) on stdout.
//
//   - open: open each session file and build the context at each leaf it
//     names (SwitchLeaf, then BuildContext and SessionContext; a leaf ""
//     is the one Open gave, with no switch);
//   - append: open each session file, append its messages, then compact
//     (CompactIfNeeded with the request's budget and keepRecent), and say
//     what the context is at the new leaf.
//
// Every write goes through the store, to the real file: the suite then
// hands the files to pi.
package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	agentstore "github.com/coursekit/course/labs/11-agentstore"
)

// request is what the suite asks for.
type request struct {
	Open   []openRequest   `json:"open"`
	Append []appendRequest `json:"append"`
}

type openRequest struct {
	Path   string   `json:"path"`
	Leaves []string `json:"leaves"`
}

type appendRequest struct {
	Path     string            `json:"path"`
	Messages []json.RawMessage `json:"messages"`
	Budget   int               `json:"budget"`
	Keep     int               `json:"keep"`
}

// response is what the store did.
type response struct {
	Open   []openResult   `json:"open"`
	Append []appendResult `json:"append"`
}

// failure is an error and what kind of refusal it is.
type failure struct {
	Error string `json:"error"`
	// Kind is "version" (a *VersionError), "kept-entry" (a
	// *KeptEntryError), "missing-parent" (a *MissingParentError),
	// "duplicate-id" (a *DuplicateIDError), "no-header" (ErrNoHeader),
	// "not-json" (a line that is not JSON), "line" (another *LineError),
	// "unknown-entry" (an *UnknownEntryError), "migrated" (a
	// *MigratedError) or "other".
	Kind    string `json:"kind"`
	Line    int    `json:"line,omitempty"`
	Version int    `json:"version,omitempty"`
}

type openResult struct {
	Path    string       `json:"path"`
	Failure *failure     `json:"failure,omitempty"`
	Leaf    string       `json:"leaf"`
	Leaves  []leafResult `json:"leaves"`
}

type leafResult struct {
	Leaf          string               `json:"leaf"`
	Failure       *failure             `json:"failure,omitempty"`
	Messages      []agentstore.Message `json:"messages"`
	ThinkingLevel string               `json:"thinkingLevel"`
	Model         *agentstore.Model    `json:"model"`
	// Differs says how SessionContext's messages differ from
	// BuildContext's, which they must be; "" when they are the same.
	Differs string `json:"differs,omitempty"`
}

type appendResult struct {
	Path       string               `json:"path"`
	Failure    *failure             `json:"failure,omitempty"`
	IDs        []string             `json:"ids"`
	Compaction string               `json:"compaction"`
	Leaf       string               `json:"leaf"`
	Messages   []agentstore.Message `json:"messages"`
}

func main() {
	var req request
	if err := json.NewDecoder(os.Stdin).Decode(&req); err != nil {
		fmt.Fprintln(os.Stderr, "driver: reading the request:", err)
		os.Exit(2)
	}
	var resp response
	for _, o := range req.Open {
		resp.Open = append(resp.Open, open(o))
	}
	for _, a := range req.Append {
		resp.Append = append(resp.Append, appendTo(a))
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(resp); err != nil {
		fmt.Fprintln(os.Stderr, "driver: writing the response:", err)
		os.Exit(2)
	}
}

// options are the store's options for path: the real disk, and a clock and
// ids that are the same on every run.
func options(path string) agentstore.Options {
	t := time.Date(2026, 4, 1, 12, 0, 0, 0, time.UTC)
	n := 0
	return agentstore.Options{
		FS:   agentstore.OSFileSystem{},
		Path: path,
		Cwd:  "/work/lab",
		Now: func() time.Time {
			t = t.Add(1500 * time.Millisecond)
			return t
		},
		NewEntryID: func() string {
			n++
			return fmt.Sprintf("%08x", 0xc0de0000+n)
		},
		NewSessionID: func() string { return "lab-session" },
		Summarize:    agentstore.SimpleSummary,
	}
}

// describe classifies err.
func describe(err error) *failure {
	f := &failure{Error: err.Error(), Kind: "other"}
	var le *agentstore.LineError
	var ve *agentstore.VersionError
	var ke *agentstore.KeptEntryError
	var mp *agentstore.MissingParentError
	var de *agentstore.DuplicateIDError
	var ue *agentstore.UnknownEntryError
	var me *agentstore.MigratedError
	var se *json.SyntaxError
	if errors.As(err, &le) {
		f.Kind, f.Line = "line", le.Line
	}
	switch {
	case errors.As(err, &ve):
		f.Kind, f.Version = "version", ve.Version
	case errors.As(err, &ke):
		f.Kind = "kept-entry"
	case errors.As(err, &mp):
		f.Kind = "missing-parent"
	case errors.As(err, &de):
		f.Kind = "duplicate-id"
	case errors.Is(err, agentstore.ErrNoHeader):
		f.Kind = "no-header"
	case errors.As(err, &se):
		f.Kind = "not-json"
	case errors.As(err, &ue):
		f.Kind = "unknown-entry"
	case errors.As(err, &me):
		f.Kind, f.Version = "migrated", me.Version
	}
	return f
}

func open(o openRequest) openResult {
	r := openResult{Path: o.Path}
	s, err := agentstore.Open(options(o.Path))
	if err != nil {
		r.Failure = describe(err)
		return r
	}
	r.Leaf = s.Leaf()
	for _, leaf := range o.Leaves {
		lr := leafResult{Leaf: leaf}
		if leaf != "" {
			if err := s.SwitchLeaf(leaf); err != nil {
				lr.Failure = describe(err)
				r.Leaves = append(r.Leaves, lr)
				continue
			}
		}
		lr.Messages = s.BuildContext()
		sc := s.SessionContext()
		lr.ThinkingLevel, lr.Model = sc.ThinkingLevel, sc.Model
		lr.Differs = differs(lr.Messages, sc.Messages)
		r.Leaves = append(r.Leaves, lr)
	}
	return r
}

// differs says how SessionContext's messages b differ from BuildContext's a.
func differs(a, b []agentstore.Message) string {
	if len(a) != len(b) {
		return fmt.Sprintf("SessionContext has %d messages, BuildContext %d", len(b), len(a))
	}
	for i := range a {
		if string(a[i]) != string(b[i]) {
			return fmt.Sprintf("message %d: SessionContext has %s, BuildContext %s", i+1, b[i], a[i])
		}
	}
	return ""
}

func appendTo(a appendRequest) appendResult {
	r := appendResult{Path: a.Path}
	s, err := agentstore.Open(options(a.Path))
	if err != nil {
		r.Failure = describe(err)
		return r
	}
	for _, m := range a.Messages {
		id, err := s.AppendMessage(agentstore.Message(m))
		if err != nil {
			r.Failure = describe(err)
			return r
		}
		r.IDs = append(r.IDs, id)
	}
	if r.Compaction, err = s.CompactIfNeeded(a.Budget, a.Keep); err != nil {
		r.Failure = describe(err)
		return r
	}
	r.Leaf = s.Leaf()
	r.Messages = s.BuildContext()
	return r
}
