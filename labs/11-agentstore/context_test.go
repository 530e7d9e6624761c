package agentstore_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	agentstore "github.com/coursekit/course/labs/11-agentstore"
)

// branchyFile is a tree whose file order is not any branch's order:
//
//	line 2  a  user "hi"
//	line 3  b  assistant "one"      parent a
//	line 4  m  model_change         parent b
//	line 5  c  assistant "two"      parent a   (a second answer to a)
//	line 6  d  user "go on"         parent m
//	line 7  e  user "why two?"      parent c   (last line: the leaf)
func branchyFile() string {
	return headerLine("s0", T1, "/") +
		msgLine("a", "", user("hi")) +
		msgLine("b", "a", assistant("one")) +
		otherLine("model_change", "m", "b") +
		msgLine("c", "a", assistant("two")) +
		msgLine("d", "m", user("go on")) +
		msgLine("e", "c", user("why two?"))
}

// Rule 11.3.1: the path follows parentId from the leaf to the root and
// comes back root first; file order is not a branch.
func TestLab11_3_PathFollowsParentsNotFileOrder(t *testing.T) {
	fx := newFixture()
	fx.fs.setFile(sessPath, branchyFile())
	s := mustOpen(t, fx.opts(), "branchy file")
	assert.Equal(t, []string{"a", "c", "e"}, ids(pathOf(t, s)),
		"PathToLeaf with leaf e: walk e → c → a by parentId, then reverse; lines 3, 4 and 6 are another branch")

	fx = newFixture()
	fx.fs.setFile(sessPath, branchyFile()+msgLine("f", "d", assistant("going on")))
	s = mustOpen(t, fx.opts(), "branchy file ending on the other branch")
	assert.Equal(t, []string{"a", "b", "m", "d", "f"}, ids(pathOf(t, s)), "PathToLeaf with leaf f, root first")

	fresh := mustOpen(t, newFixture().opts(), "new session")
	assert.Empty(t, pathOf(t, fresh), "a session without entries has an empty path")
}

// Rule 11.3.2: the context is the messages of the path, in order; other
// entry types give none.
func TestLab11_3_ContextIsTheMessagesOnThePath(t *testing.T) {
	fx := newFixture()
	fx.fs.setFile(sessPath, branchyFile()+msgLine("f", "d", assistant("going on")))
	s := mustOpen(t, fx.opts(), "branchy file")
	assert.Equal(t, strs([]agentstore.Message{user("hi"), assistant("one"), user("go on"), assistant("going on")}),
		strs(contextOf(t, s)),
		"BuildContext with leaf f: the messages of a, b, d, f — the model_change m gives no message, and c and e "+
			"are on another branch")
	assert.Empty(t, contextOf(t, mustOpen(t, newFixture().opts(), "new session")), "no entries, no context")
}

// Rule 11.3.1, 11.3.2: what AppendMessage writes, BuildContext gives back,
// message for message.
func TestLab11_3_AppendedMessagesFormTheContext(t *testing.T) {
	fx := newFixture()
	toolResult := agentstore.Message(`{"role":"toolResult","toolCallId":"c1","toolName":"ls","content":[{"type":"text","text":"README.md"}],"isError":false,"timestamp":3}`)
	call := agentstore.Message(`{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"ls","arguments":{"path":"."}}],"stopReason":"toolUse","timestamp":2}`)
	s, got := newStoreWith(t, fx, user("list files"), call, toolResult)
	assert.Equal(t, strs([]agentstore.Message{user("list files"), call, toolResult}), strs(contextOf(t, s)),
		"BuildContext gives every message whole, tool calls and results included")
	path := pathOf(t, s)
	assert.Equal(t, got, ids(path), "PathToLeaf: the three entries, root first")
	require.Len(t, path, 3)
	assert.Equal(t, "", path[0].ParentID)
	assert.Equal(t, got[0], path[1].ParentID)
}

// Rule 11.3.3: Entry, PathToLeaf and BuildContext hand out copies.
func TestLab11_3_ResultsAreCopies(t *testing.T) {
	fx := newFixture()
	s, got := newStoreWith(t, fx, user("hi"), assistant("hello"))
	want := strs(contextOf(t, s))

	for _, m := range contextOf(t, s) {
		for i := range m {
			m[i] = 'X'
		}
	}
	for _, e := range pathOf(t, s) {
		for i := range e.Message {
			e.Message[i] = 'Y'
		}
	}
	e, _ := entryOf(t, s, got[0])
	for i := range e.Message {
		e.Message[i] = 'Z'
	}
	assert.Equal(t, want, strs(contextOf(t, s)),
		"the caller overwrote the bytes of what BuildContext, PathToLeaf and Entry returned; the store's "+
			"messages must not change: a Message is a []byte, so hand out bytes.Clone of it (or Entry.Clone)")
	e, _ = entryOf(t, s, got[1])
	assert.Equal(t, string(assistant("hello")), string(e.Message))
}
