package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
	"time"

	agentstore "github.com/coursekit/course/labs/11-agentstore"
)

// maxSteps bounds the model calls of one turn.
const maxSteps = 8

// agent runs turns: every message goes through the store, and every model
// call gets the store's context, compacted first when it is over budget.
type agent struct {
	store  *agentstore.Store
	model  scripted
	tools  workspace
	now    func() time.Time
	out    io.Writer
	budget int
	keep   int

	compactions  int
	noCompaction bool // CompactIfNeeded is not written yet; said once
}

// exercise finds the exercise a not-implemented error names ("Lab 11.3:
// PathToLeaf: not implemented").
var exercise = regexp.MustCompile(`Lab (\d+)\.(\d+)`)

// storeError says what a store call's error means for the agent, and, for
// a part of the store that is not written yet, which exercise to finish.
func storeError(call string, err error) error {
	if m := exercise.FindStringSubmatch(err.Error()); m != nil && errors.Is(err, agentstore.ErrNotImplemented) {
		return fmt.Errorf("%s: %w\nthe agent needs it: finish exercise %s.%s first (go test -run Lab%s_%s)", call, err, m[1], m[2], m[1], m[2])
	}
	return fmt.Errorf("%s: %w", call, err)
}

// stubbed is the error of a store method that returned a stub's answer
// instead of an error.
func stubbed(what, ex string) error {
	n := strings.ReplaceAll(ex, ".", "_")
	return fmt.Errorf("%s\nthe agent needs it: finish exercise %s first (go test -run Lab%s)", what, ex, n)
}

// appendMessage appends m and says which entry it became.
func (a *agent) appendMessage(m agentstore.Message) (string, error) {
	id, err := a.store.AppendMessage(m)
	if err != nil {
		return "", storeError("AppendMessage", err)
	}
	if id == "" {
		return "", stubbed("AppendMessage returned no id", "11.2")
	}
	return id, nil
}

// turn is one request of the user, answered with as many tool calls as the
// model makes.
func (a *agent) turn(prompt string) error {
	fmt.Fprintf(a.out, "> %s\n", prompt)
	last := newUser(prompt, a.now())
	if _, err := a.appendMessage(last); err != nil {
		return err
	}
	for step := 0; step < maxSteps; step++ {
		if err := a.compact(); err != nil {
			return err
		}
		ctx := a.store.BuildContext()
		if len(ctx) == 0 || !bytes.Equal(ctx[len(ctx)-1], last) {
			return stubbed(fmt.Sprintf("BuildContext gave %d messages, and not the one just appended last", len(ctx)), "11.3")
		}
		reply, err := a.model.next(ctx, a.now())
		if err != nil {
			return err
		}
		last = encode(reply)
		if _, err := a.appendMessage(last); err != nil {
			return err
		}
		p := parse(last)
		call, ok := p.toolCall()
		if !ok {
			fmt.Fprintf(a.out, "  assistant: %s\n", p.text())
			return nil
		}
		fmt.Fprintf(a.out, "  assistant calls %s %s\n", call.Name, args(call))
		r := a.tools.run(call)
		status := "ok"
		if r.isError {
			status = "error"
		}
		fmt.Fprintf(a.out, "  %s (%s): %s\n", call.Name, status, r.said)
		last = newToolResult(call, r, a.now())
		if _, err := a.appendMessage(last); err != nil {
			return err
		}
	}
	return fmt.Errorf("the model did not finish the turn in %d steps", maxSteps)
}

// args shows a tool call's arguments, a note's content by its size only.
func args(call block) string {
	if c, ok := call.Arguments["content"].(string); ok {
		return fmt.Sprintf("%v (%d bytes)", call.Arguments["path"], len(c))
	}
	return fmt.Sprintf("%v", call.Arguments["path"])
}

// compact asks the store to compact the context before a model call, as a
// real agent does before it sends a context that may not fit.
func (a *agent) compact() error {
	before := a.store.BuildContext()
	id, err := a.store.CompactIfNeeded(a.budget, a.keep)
	if errors.Is(err, agentstore.ErrNotImplemented) {
		if !a.noCompaction {
			fmt.Fprintf(a.out, "  (no compaction: CompactIfNeeded is exercise 11.5, not written yet)\n")
			a.noCompaction = true
		}
		return nil
	}
	if err != nil {
		return storeError("CompactIfNeeded", err)
	}
	if id == "" {
		return nil
	}
	a.compactions++
	e, _ := a.store.Entry(id)
	after := a.store.BuildContext()
	fmt.Fprintf(a.out, "  ~ compaction %s: the context was ~%d tokens, over the budget of %d: a summary now stands for %d messages, the last %d are kept (from %s)\n",
		id, e.TokensBefore, a.budget, gone(before, after), a.keep, e.FirstKeptEntryID)
	return nil
}

// gone counts the messages of before that after no longer has.
func gone(before, after []agentstore.Message) int {
	n := 0
	for _, m := range before {
		kept := false
		for _, k := range after {
			kept = kept || bytes.Equal(m, k)
		}
		if !kept {
			n++
		}
	}
	return n
}

// summary says where the session is after the run.
func (a *agent) summary(path string) {
	ctx := a.store.BuildContext()
	fmt.Fprintf(a.out, "\nsession %s: leaf %s, %d entries on its branch, %d compactions in this run\n",
		path, a.store.Leaf(), len(a.store.PathToLeaf()), a.compactions)
	fmt.Fprintf(a.out, "the context: %d messages, ~%d tokens (budget %d, keep %d)\n",
		len(ctx), max(agentstore.EstimateTokens(ctx), 0), a.budget, a.keep)
	fmt.Fprintf(a.out, "see the tree: go run ./cmd/sessionui\n")
}
