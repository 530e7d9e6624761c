// Command agent is the chapter's run check, offline: a teaching agent that
// runs the chapter's three requests (list the workspace's files, read
// README.md, write a note) with a scripted model and real tools, and keeps
// every message in your store, in .teaching-agent/session.jsonl.
//
//	go run ./cmd/agent                      # the three requests
//	go run ./cmd/agent -reset -budget 300   # a new session, a smaller budget: compactions appear
//	go run ./cmd/agent "read go.mod"        # your own requests
//	go run ./cmd/agent -from ID "try again" # go back to entry ID first: a new branch
//	go run ./cmd/agent -reset               # start over (the old file is kept), then the requests
//
// Every run goes on in the session the file holds, unless -reset starts a
// new one first.
//
// The model is a script, not a network call: like a real model it sees only
// the context your BuildContext gives it, and the same context gets the
// same answer. Its tools (ls, read, write) work on real files, inside the
// workspace only. Before every request the agent asks your
// CompactIfNeeded(budget, keep) to compact the context, keeping fewer than
// keep messages when those would fill more than half the budget.
//
// Exit status 0: every request was answered; 1: the store or the model
// failed (the message says which exercise to finish); 2: bad flags.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	agentstore "github.com/coursekit/course/labs/11-agentstore"
)

// defaultSession is where the teaching agent keeps its session.
const defaultSession = ".teaching-agent/session.jsonl"

// seedTurns are the chapter's run check.
var seedTurns = []string{"list the workspace's files", "read README.md", "write a note"}

// config is one run of the agent.
type config struct {
	dir    string // the workspace: the tools' root
	opts   agentstore.Options
	now    func() time.Time // the messages' clock
	budget int
	keep   int
	from   string
	reset  bool
	turns  []string
	out    io.Writer
}

func main() {
	session := flag.String("session", defaultSession, "the session `file`")
	dir := flag.String("dir", ".", "the workspace `directory` the tools work in")
	budget := flag.Int("budget", 1200, "compact when the context is over `N` tokens (EstimateTokens)")
	keep := flag.Int("keep", 8, "a compaction keeps the last `N` messages")
	from := flag.String("from", "", "switch to the entry `ID` before the run: the run branches there")
	reset := flag.Bool("reset", false, "start a new session first (Reset keeps the old file beside it)")
	flag.Parse()
	if *keep < 1 || *budget < 0 {
		fmt.Fprintln(os.Stderr, "agent: -keep must be at least 1 and -budget at least 0")
		os.Exit(2)
	}
	cwd, err := filepath.Abs(*dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "agent:", err)
		os.Exit(2)
	}
	turns := flag.Args()
	if len(turns) == 0 {
		turns = seedTurns
	}
	cfg := config{
		dir: *dir, opts: agentstore.OSOptions(*session, cwd), now: time.Now,
		budget: *budget, keep: *keep, from: *from, reset: *reset, turns: turns, out: os.Stdout,
	}
	if err := run(cfg); err != nil {
		fmt.Fprintln(os.Stderr, "agent:", err)
		os.Exit(1)
	}
}

// run opens the store and runs the turns.
func run(cfg config) error {
	if err := os.MkdirAll(filepath.Dir(cfg.opts.Path), 0o755); err != nil {
		return err
	}
	tools, err := newWorkspace(cfg.dir, cfg.opts.Path)
	if err != nil {
		return err
	}
	store, err := agentstore.Open(cfg.opts)
	if err != nil {
		return storeError("Open", err)
	}
	if cfg.reset {
		old := store.Header().ID
		if err := store.Reset(); err != nil {
			return storeError("Reset", err)
		}
		fmt.Fprintf(cfg.out, "a new session %s; the old one, %s, is kept in %s\n", store.Header().ID, old, agentstore.ArchivePath(cfg.opts.Path, old))
	}
	if cfg.from != "" {
		if err := store.SwitchLeaf(cfg.from); err != nil {
			return storeError("SwitchLeaf", err)
		}
		fmt.Fprintf(cfg.out, "from entry %s: this run starts a new branch there\n", cfg.from)
	}
	a := &agent{store: store, tools: tools, now: cfg.now, out: cfg.out, budget: cfg.budget, keep: cfg.keep}
	for _, t := range cfg.turns {
		if err := a.turn(t); err != nil {
			return err
		}
	}
	a.summary(cfg.opts.Path)
	return nil
}
