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
		modelChangeLine("m", "b", "anthropic", "claude-sonnet-4-5") +
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

// Rule 11.3.3: Entry, PathToLeaf and BuildContext hand out copies: a
// caller that overwrites every byte of what one of them returned (here with
// a letter, X, Y or Z, one per method, so that a failure shows whose bytes
// came back) changes nothing in the store.
func TestLab11_3_ResultsAreCopies(t *testing.T) {
	for _, tc := range []struct {
		call string
		fill byte
		// scribble overwrites the message bytes of what the call returns.
		scribble func(t *testing.T, s *agentstore.Store, ids []string, fill byte)
	}{
		{"BuildContext()", 'X', func(t *testing.T, s *agentstore.Store, _ []string, fill byte) {
			for _, m := range contextOf(t, s) {
				overwrite(m, fill)
			}
		}},
		{"PathToLeaf()", 'Y', func(t *testing.T, s *agentstore.Store, _ []string, fill byte) {
			for _, e := range pathOf(t, s) {
				overwrite(e.Message, fill)
			}
		}},
		{"Entry(id) of each entry", 'Z', func(t *testing.T, s *agentstore.Store, ids []string, fill byte) {
			for _, id := range ids {
				e, _ := entryOf(t, s, id)
				overwrite(e.Message, fill)
			}
		}},
	} {
		t.Run(tc.call, func(t *testing.T) {
			fx := newFixture()
			msgs := []agentstore.Message{user("hi"), assistant("hello")}
			s, got := newStoreWith(t, fx, msgs...)
			tc.scribble(t, s, got, tc.fill)
			for i, id := range got {
				e, _ := entryOf(t, s, id)
				assert.Equal(t, string(msgs[i]), string(e.Message), "after the caller overwrote every byte of the "+
					"messages %s returned with %q, Entry(%q).Message changed: %s handed out the store's own bytes. A "+
					"Message is a []byte: hand out bytes.Clone of it, or Entry.Clone", tc.call, tc.fill, id, tc.call)
			}
			assert.Equal(t, strs(msgs), strs(contextOf(t, s)), "after the caller overwrote every byte of the messages %s "+
				"returned with %q, BuildContext() changed: %s handed out the store's own bytes. A Message is a []byte: hand "+
				"out bytes.Clone of it, or Entry.Clone", tc.call, tc.fill, tc.call)
		})
	}
}

// overwrite fills every byte of m with fill, as a careless caller might.
func overwrite(m agentstore.Message, fill byte) {
	for i := range m {
		m[i] = fill
	}
}
