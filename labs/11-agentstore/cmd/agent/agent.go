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

// agent runs turns: every message goes through the store, every model call
// gets the store's context, and before each request the context is
// compacted when it is over the budget.
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
	stopped      bool // a compaction could not bring the context under the budget: no more in this run
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
	if err := a.compact(); err != nil {
		return err
	}
	for step := 0; step < maxSteps; step++ {
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

// compact asks the store to compact the context before a request, as pi
// checks its context between turns: at most one compaction a request. It
// keeps the last keep messages, or fewer when those alone would fill more
// than half the budget: the most recent ones that fit in half of it, at
// least one. If the context is still over the budget after a compaction
// (the summary itself has grown too long, or the one message kept is), a
// compaction before the next request would not help either: the agent says
// so and compacts no more in this run.
func (a *agent) compact() error {
	if a.stopped {
		return nil
	}
	before := a.store.BuildContext()
	keep := a.keepFor(before)
	id, err := a.store.CompactIfNeeded(a.budget, keep)
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
	fmt.Fprintf(a.out, "  ~ compaction %s: the context was ~%d tokens, over the budget of %d: %s; the last %s kept, from %s; the context is now ~%d tokens\n",
		id, e.TokensBefore, a.budget, summarized(before, keep), plural(keep, "message")+isAre(keep), e.FirstKeptEntryID, agentstore.EstimateTokens(after))
	if now := agentstore.EstimateTokens(after); now > a.budget {
		a.stopped = true
		fmt.Fprintf(a.out, "  ~ still over the budget: the summary alone is ~%d tokens and the kept %s ~%d; a compaction summarizes only what comes before the kept messages, and the summary only grows, so the agent compacts no more in this run (a larger -budget, or -reset, starts afresh)\n",
			agentstore.EstimateTokens(after[:1]), plural(keep, "message"), agentstore.EstimateTokens(after[1:]))
	}
	return nil
}

// keepFor is how many of the context's last messages a compaction keeps:
// a.keep, or fewer when those would fill more than half the budget (the
// most recent ones that fit in half of it), and at least one.
func (a *agent) keepFor(ctx []agentstore.Message) int {
	keep, tokens := 0, 0
	for i := len(ctx) - 1; i >= 0 && keep < a.keep; i-- {
		if ctx[i].Role() == agentstore.RoleCompactionSummary {
			break
		}
		t := agentstore.EstimateTokens(ctx[i : i+1])
		if keep > 0 && tokens+t > a.budget/2 {
			break
		}
		keep, tokens = keep+1, tokens+t
	}
	return max(keep, 1)
}

// summarized says what a compaction that keeps the last keep messages of
// the context before it summarizes: the messages before the kept ones, and
// an earlier summary, which the new one goes on from, if there was one.
func summarized(before []agentstore.Message, keep int) string {
	if len(before) > 0 && before[0].Role() == agentstore.RoleCompactionSummary {
		n := max(len(before)-1-keep, 0)
		return fmt.Sprintf("the new summary stands for the one before it and %s more", plural(n, "message"))
	}
	return fmt.Sprintf("a summary now stands for %s", plural(max(len(before)-keep, 0), "message"))
}

// plural is "1 message" or "3 messages".
func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// isAre is " is" after one, " are" after several.
func isAre(n int) string {
	if n == 1 {
		return " is"
	}
	return " are"
}

// summary says where the session is after the run.
func (a *agent) summary(path string) {
	ctx := a.store.BuildContext()
	fmt.Fprintf(a.out, "\nsession %s: leaf %s, %d entries on its branch, %s in this run\n",
		path, a.store.Leaf(), len(a.store.PathToLeaf()), plural(a.compactions, "compaction"))
	fmt.Fprintf(a.out, "the context: %d messages, ~%d tokens (budget %d, keep %d)\n",
		len(ctx), max(agentstore.EstimateTokens(ctx), 0), a.budget, a.keep)
	fmt.Fprintf(a.out, "see the tree: go run ./cmd/sessionui\n")
}
