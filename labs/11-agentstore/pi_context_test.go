package agentstore_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	agentstore "github.com/coursekit/course/labs/11-agentstore"
)

// The tests of exercise 11.7 (optional): the context as pi builds it, with
// pi's branch summaries, custom messages, model and thinking level; and
// pi's older versions, migrated in memory.

// branchSummaryLine is pi's branch_summary entry line.
func branchSummaryLine(id, parent, fromID, summary string) string {
	return fmt.Sprintf(`{"type":"branch_summary","id":%q,"parentId":%s,"timestamp":%q,"fromId":%q,"summary":%q}`,
		id, jsonParent(parent), T1, fromID, summary) + "\n"
}

// customMessageLine is pi's custom_message entry line; display and details
// are JSON, left out when "".
func customMessageLine(id, parent, customType, content, display, details string) string {
	extra := ""
	if display != "" {
		extra += `,"display":` + display
	}
	if details != "" {
		extra += `,"details":` + details
	}
	return fmt.Sprintf(`{"type":"custom_message","customType":%q,"content":%s%s,"id":%q,"parentId":%s,"timestamp":%q}`,
		customType, content, extra, id, jsonParent(parent), T1) + "\n"
}

// thinkingLine is pi's thinking_level_change entry line.
func thinkingLine(id, parent, level string) string {
	return fmt.Sprintf(`{"type":"thinking_level_change","id":%q,"parentId":%s,"timestamp":%q,"thinkingLevel":%q}`,
		id, jsonParent(parent), T1, level) + "\n"
}

// entryOfLine decodes one of the lines above, as the store's Entry.
func entryOfLine(t *testing.T, line string) agentstore.Entry {
	t.Helper()
	e, err := agentstore.DecodeEntry([]byte(line[:len(line)-1]))
	require.NoError(t, err, "test setup: DecodeEntry(%s)", line)
	return e
}

// Rule 11.7.1: pi's own files: at every leaf, BuildContext holds the
// branchSummary messages of the branch summaries with a summary and the
// custom messages of custom_message entries, shown or hidden, where pi
// puts them.
func TestLab11_7_PisBranchSummariesAndCustomMessages(t *testing.T) {
	for _, name := range []string{"branches", "extensions"} {
		t.Run(name, func(t *testing.T) {
			fx := newFixture()
			fx.fs.setFile(sessPath, piFile(name+".jsonl"))
			s := mustOpen(t, fx.opts(), "testdata/pi/"+name+".jsonl")
			for _, leaf := range piContexts(t, name).Leaves {
				require.NoError(t, switchLeaf(t, s, leaf.Leaf), "SwitchLeaf(%q), pi's leaf %q", leaf.Leaf, leaf.Name)
				requirePisMessages(t, fmt.Sprintf("BuildContext at pi's leaf %q (%s) of testdata/pi/%s.jsonl", leaf.Name,
					leaf.Leaf, name), leaf.Context.Messages, contextOf(t, s))
			}
		})
	}
}

// Rule 11.7.1: a branch_summary gives BranchSummaryMessage when its summary
// says something and nothing when it is empty; a custom_message gives
// CustomMessage whether pi shows it or not; other entries give nothing.
func TestLab11_7_WhichEntriesGiveMessages(t *testing.T) {
	lines := []string{
		msgLine("a", "", user("write a poem")),
		branchSummaryLine("s1", "a", "a", ""),
		branchSummaryLine("s2", "s1", "a", "The user wanted it shorter, then left that branch."),
		customMessageLine("c1", "s2", "reminder", `"Remember: tests first."`, "true", ""),
		customMessageLine("c2", "c1", "file-context", `[{"type":"text","text":"module example"}]`, "false", `{"path":"go.mod"}`),
		otherLine("custom", "x", "c2"),
		msgLine("b", "x", assistant("A poem.")),
	}
	text := headerLine("s0", T1, "/")
	for _, l := range lines {
		text += l
	}
	fx := newFixture()
	fx.fs.setFile(sessPath, text)
	s := mustOpen(t, fx.opts(), "a branch summary, empty and not, two custom messages and a custom entry")
	want := []agentstore.Message{user("write a poem"), agentstore.BranchSummaryMessage(entryOfLine(t, lines[2])),
		agentstore.CustomMessage(entryOfLine(t, lines[3])), agentstore.CustomMessage(entryOfLine(t, lines[4])), assistant("A poem.")}
	assert.Equal(t, strs(want), strs(contextOf(t, s)), "BuildContext over a (user), s1 (a branch_summary with an empty "+
		"summary), s2 (one with a summary), c1 and c2 (custom_message entries, c2 with display false), x (a custom entry) "+
		"and b: a, BranchSummaryMessage(s2), CustomMessage(c1), CustomMessage(c2), b. pi sends no message for an empty "+
		"summary, and sends a custom message whether its screen shows it (display) or not; a custom entry is an "+
		"extension's state, never a message")
}

// Rule 11.7.1, 11.7.2: a compaction over a path with a branch summary and a
// custom message counts their messages, keeps from a custom_message entry
// when it is the first kept, summarizes the branch summary, and the context
// after it holds the kept custom message.
func TestLab11_7_CompactionCountsEveryMessageOfTheContext(t *testing.T) {
	lines := []string{
		msgLine("a", "", user("start")),
		msgLine("b", "a", assistant("started")),
		branchSummaryLine("s", "b", "b", "A detour that was dropped."),
		msgLine("c", "s", user("go on")),
		customMessageLine("m", "c", "reminder", `"Remember: tests first."`, "true", ""),
		msgLine("d", "m", assistant("going on")),
	}
	text := headerLine("s0", T1, "/")
	for _, l := range lines {
		text += l
	}
	fx := newFixture()
	fx.fs.setFile(sessPath, text)
	s := mustOpen(t, fx.opts(), "messages, a branch summary and a custom message")
	ctx := contextOf(t, s)
	require.Len(t, ctx, 6, "BuildContext: a, b, the branch summary, c, the custom message, d")
	withoutTheirs := estimate([]agentstore.Message{user("start"), assistant("started"), user("go on"), assistant("going on")})
	fx.clock.set("2025-03-14T10:00:00.000Z")
	id, err := compact(t, s, withoutTheirs, 2)
	require.NoError(t, err, "CompactIfNeeded(%d, 2)", withoutTheirs)
	require.NotEmpty(t, id, "CompactIfNeeded(%d, 2) over a context of %d estimated tokens returned \"\": the budget counts "+
		"every message of the context, the branch summary's and the custom message's too (here %d tokens without them)",
		withoutTheirs, estimate(ctx), withoutTheirs)
	c, _ := entryOf(t, s, id)
	assert.Equal(t, "m", c.FirstKeptEntryID, "the compaction's firstKeptEntryId: keepRecent 2 keeps the last two messages "+
		"of the context, the custom message m and d, so it keeps from m, a custom_message entry")
	assert.Equal(t, estimate(ctx), c.TokensBefore, "tokensBefore: the estimate of the whole context")
	calls := fx.sum.recorded()
	require.Len(t, calls, 1, "Summarize is called once")
	assert.Equal(t, strs(ctx[:4]), calls[0].Messages, "Summarize gets the messages of the context before the kept ones: a, "+
		"b, the branch summary's message and c")
	want := []agentstore.Message{agentstore.CompactionSummaryMessage(c), ctx[4], ctx[5]}
	assert.Equal(t, strs(want), strs(contextOf(t, s)), "BuildContext after the compaction: its summary, then the messages "+
		"from m up to it (the custom message, d)")
}

// Rule 11.7.3: pi's own files: at every leaf, SessionContext is what pi's
// buildSessionContext gives: the messages, the thinking level, the model.
func TestLab11_7_SessionContextIsPis(t *testing.T) {
	for _, name := range []string{"tools", "branches", "compaction", "extensions", "tokenizer"} {
		t.Run(name, func(t *testing.T) {
			fx := newFixture()
			fx.fs.setFile(sessPath, piFile(name+".jsonl"))
			s := mustOpen(t, fx.opts(), "testdata/pi/"+name+".jsonl")
			for _, leaf := range piContexts(t, name).Leaves {
				require.NoError(t, switchLeaf(t, s, leaf.Leaf), "SwitchLeaf(%q), pi's leaf %q", leaf.Leaf, leaf.Name)
				got := sessionContextOf(t, s)
				at := fmt.Sprintf("SessionContext at pi's leaf %q (%s) of testdata/pi/%s.jsonl", leaf.Name, leaf.Leaf, name)
				assert.Equal(t, leaf.Context.ThinkingLevel, got.ThinkingLevel, "%s: ThinkingLevel; pi's is that of the last "+
					"thinking_level_change on the path, %q without one", at, agentstore.ThinkingLevelOff)
				assert.Equal(t, leaf.Context.Model, got.Model, "%s: Model; pi's is that of the last model_change or "+
					"assistant message on the path, the part a compaction stands for too (nil without one)", at)
				requirePisMessages(t, at+": Messages", leaf.Context.Messages, got.Messages)
				assert.Equal(t, strs(contextOf(t, s)), strs(got.Messages), "%s: Messages are BuildContext's", at)
			}
		})
	}
}

// Rule 11.7.3: the settings come from the whole path, the part a compaction
// stands for included; the last of each wins; without any, the thinking
// level is "off" and the model nil; what comes back is a copy.
func TestLab11_7_SettingsComeFromTheWholePath(t *testing.T) {
	fx := newFixture()
	fx.fs.setFile(sessPath, headerLine("s0", T1, "/")+
		msgLine("a", "", user("hi")))
	s := mustOpen(t, fx.opts(), "one user message")
	got := sessionContextOf(t, s)
	assert.Equal(t, agentstore.ThinkingLevelOff, got.ThinkingLevel, "SessionContext().ThinkingLevel of a path without a "+
		"thinking_level_change: %q, as in pi", agentstore.ThinkingLevelOff)
	assert.Nil(t, got.Model, "SessionContext().Model of a path without a model_change or an assistant message: nil")

	reply := agentstore.Message(`{"role":"assistant","content":[{"type":"text","text":"hello"}],"provider":"openai","model":"gpt-5","timestamp":2}`)
	fx = newFixture()
	fx.fs.setFile(sessPath, headerLine("s0", T1, "/")+
		modelChangeLine("m", "", "anthropic", "claude-sonnet-4-5")+
		thinkingLine("k", "m", "high")+
		msgLine("a", "k", user("hi"))+
		msgLine("b", "a", reply)+
		thinkingLine("k2", "b", "low")+
		msgLine("c", "k2", user("and now?"))+
		compactionLine("z", "c", "they said hi", "c", 40))
	s = mustOpen(t, fx.opts(), "settings, then a compaction that keeps only the last message")
	got = sessionContextOf(t, s)
	assert.Equal(t, "low", got.ThinkingLevel, "SessionContext().ThinkingLevel: the last thinking_level_change on the path "+
		"(k2, low), although the compaction stands for it")
	assert.Equal(t, &agentstore.Model{Provider: "openai", ModelID: "gpt-5"}, got.Model, "SessionContext().Model: the last "+
		"of a model_change (m: anthropic) and an assistant message (b: its provider and model, openai/gpt-5) on the path, "+
		"although the compaction stands for both")

	got.Model.ModelID = "changed"
	got.Messages[1][0] = '!'
	again := sessionContextOf(t, s)
	assert.Equal(t, "gpt-5", again.Model.ModelID, "the caller changed the Model SessionContext returned, and the next "+
		"SessionContext changed with it: hand out a new Model")
	assert.Equal(t, string(user("and now?")), string(again.Messages[1]), "the caller changed a message SessionContext "+
		"returned, and the store's changed with it: hand out copies")

	require.NoError(t, switchLeaf(t, s, "a"), "SwitchLeaf(\"a\")")
	got = sessionContextOf(t, s)
	assert.Equal(t, "high", got.ThinkingLevel, "SessionContext at a: the thinking level of k, on a's path")
	assert.Equal(t, &agentstore.Model{Provider: "anthropic", ModelID: "claude-sonnet-4-5"}, got.Model,
		"SessionContext at a: the model of the model_change m")
}

// Rule 11.7.3: the header is not on the path: the provider, modelId and
// thinkingLevel an old version-1 header holds are never read, by pi or by
// the store; the settings come from the entries only.
func TestLab11_7_HeaderSettingsAreNotRead(t *testing.T) {
	header := fmt.Sprintf(`{"type":"session","id":"s-old","timestamp":%q,"cwd":"/old","provider":"openai","modelId":"gpt-4.1","thinkingLevel":"high"}`, T1) + "\n"
	fx := newFixture()
	fx.fs.setFile(sessPath, header+v1Line(user("hi")))
	s := mustOpen(t, fx.opts(), "a version-1 file whose header names a model and a thinking level, then one user message")
	got := sessionContextOf(t, s)
	assert.Equal(t, agentstore.ThinkingLevelOff, got.ThinkingLevel, "SessionContext().ThinkingLevel under a header that says "+
		"\"thinkingLevel\":\"high\": want %q: the header is not an entry of the path, and pi never reads its settings, so "+
		"a path without a thinking_level_change is %q", agentstore.ThinkingLevelOff, agentstore.ThinkingLevelOff)
	assert.Nil(t, got.Model, "SessionContext().Model under a header that names openai/gpt-4.1: want nil, as pi gives: the "+
		"model comes from a model_change or an assistant message on the path, never from the header")

	fx = newFixture()
	fx.fs.setFile(sessPath, piFile("v1.jsonl"))
	s = mustOpen(t, fx.opts(), "testdata/pi/v1.jsonl")
	got = sessionContextOf(t, s)
	assert.Equal(t, &agentstore.Model{Provider: "anthropic", ModelID: "claude-sonnet-4-5"}, got.Model, "SessionContext().Model "+
		"over testdata/pi/v1.jsonl, whose header names openai/gpt-4.1 and whose assistant messages anthropic/claude-sonnet-4-5: "+
		"pi's is the last assistant message's")
	assert.Equal(t, agentstore.ThinkingLevelOff, got.ThinkingLevel, "SessionContext().ThinkingLevel over testdata/pi/v1.jsonl, "+
		"whose header says high and which has no thinking_level_change: pi's is %q", agentstore.ThinkingLevelOff)
}
