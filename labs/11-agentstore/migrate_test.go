package agentstore_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	agentstore "github.com/coursekit/course/labs/11-agentstore"
)

// v1Header is the header line of a version-1 file: no version at all.
func v1Header(id string) string {
	return fmt.Sprintf(`{"type":"session","id":%q,"timestamp":%q,"cwd":"/old"}`, id, T1) + "\n"
}

// v1Line is an entry line of a version-1 file: no id, no parentId.
func v1Line(m agentstore.Message) string {
	return fmt.Sprintf(`{"type":"message","timestamp":%q,"message":%s}`, T1, m) + "\n"
}

// Rule 11.7.4: pi's own files of versions 1 and 2 open: Open reads them and
// writes nothing, Header keeps the file's version, and the context at the
// leaf is the one pi builds after its migration. (In v1.jsonl the entries
// have no ids: pi's are its own, so the context is compared where each
// side opens the file.)
func TestLab11_7_OlderVersionsOpenInMemory(t *testing.T) {
	for _, tc := range []struct {
		name    string
		version int
	}{{"v1", 0}, {"v2", 2}} {
		t.Run(tc.name, func(t *testing.T) {
			fx := newFixture()
			text := piFile(tc.name + ".jsonl")
			fx.fs.setFile(sessPath, text)
			s, err := open(t, fx.opts())
			require.NoError(t, err, "Open over testdata/pi/%s.jsonl, a file of pi's version %s = %s; want it open: pi's "+
				"older versions open by migrating each line in memory (UpgradeLine)", tc.name, tc.name[1:], describe(err))
			requireOnlyReads(t, fx.fs.opsSince(0), "Open of a file of an older version")
			assert.Equal(t, text, fx.fs.file(sessPath), "Open changed the file: pi rewrites a file it migrates, this store "+
				"never rewrites one")
			assert.Empty(t, fx.ids.handedOut(), "Open asked NewEntryID for ids: a migrated entry's id must be the same on "+
				"every Open, so it comes from the file, not from a generator")
			assert.Equal(t, tc.version, headerOf(t, s).Version, "Header().Version: the version the file's header has (a "+
				"header without one reads as 0): the file is what it is")
			said := piContexts(t, tc.name)
			require.Len(t, said.Leaves, 1, "test setup: pi's %s.jsonl is linear", tc.name)
			pi := said.Leaves[0].Context
			got := sessionContextOf(t, s)
			requirePisMessages(t, fmt.Sprintf("SessionContext at the leaf Open gives, over testdata/pi/%s.jsonl", tc.name),
				pi.Messages, got.Messages)
			assert.Equal(t, pi.Model, got.Model, "SessionContext().Model over %s.jsonl", tc.name)
			assert.Equal(t, pi.ThinkingLevel, got.ThinkingLevel, "SessionContext().ThinkingLevel over %s.jsonl", tc.name)
		})
	}
}

// Rule 11.7.4: a version-1 file has no ids: Open gives every entry one, the
// same on every Open, and makes each the child of the entry line before it;
// a compaction's firstKeptEntryIndex (the header is 0, blank lines do not
// count) becomes the id of that entry line.
func TestLab11_7_Version1GetsIDsAndParents(t *testing.T) {
	msgs := []agentstore.Message{user("one"), assistant("two"), user("three"), assistant("four")}
	text := v1Header("s-old") + v1Line(msgs[0]) + "\n" + v1Line(msgs[1]) + v1Line(msgs[2]) +
		fmt.Sprintf(`{"type":"compaction","timestamp":%q,"summary":"one and two","firstKeptEntryIndex":3,"tokensBefore":77}`, T1) + "\n" +
		v1Line(msgs[3])
	fx := newFixture()
	fx.fs.setFile(sessPath, text)
	s := mustOpen(t, fx.opts(), "a version-1 file: four messages and a compaction, no ids")
	chain := chainOf(t, s)
	require.Len(t, chain, 5, "the chain from the leaf to the root (Leaf, then Entry(id).ParentID): every entry line of a "+
		"version-1 file is the child of the entry line before it, so the five entries form one chain; got %v", chain)
	seen := map[string]bool{}
	for i, id := range chain {
		assert.NotEmpty(t, id, "entry %d of the chain has the id \"\"", i+1)
		assert.False(t, seen[id], "the id %q is given twice: every entry of a version-1 file needs an id of its own", id)
		seen[id] = true
	}
	for i, at := range []int{0, 1, 2, 4} {
		e, _ := entryOf(t, s, chain[at])
		assert.Equal(t, string(msgs[i]), string(e.Message), "entry %d of the chain: the message of its line", at+1)
	}
	c, _ := entryOf(t, s, chain[3])
	assert.Equal(t, agentstore.TypeCompaction, c.Type, "entry 4 of the chain: the compaction")
	assert.Equal(t, chain[2], c.FirstKeptEntryID, "the compaction's FirstKeptEntryID: its firstKeptEntryIndex 3 counts the "+
		"lines that are not blank, the header being 0, so it names the third entry line (user \"three\"), %s", chain[2])
	assert.Equal(t, strs([]agentstore.Message{agentstore.CompactionSummaryMessage(c), msgs[2], msgs[3]}), strs(contextOf(t, s)),
		"BuildContext: the compaction's summary, the message it keeps from, the one after it")

	again := mustOpen(t, newFixtureWith(fx.fs).opts(), "the same file, opened again")
	assert.Equal(t, chain, chainOf(t, again), "a second Open gives other ids: the ids of a version-1 file are not "+
		"written anywhere, so they must come from the file itself, the same on every Open (the line, for example)")
}

// newFixtureWith returns a fixture over an existing fake disk.
func newFixtureWith(fsys *fakeFS) *fixture {
	fx := newFixture()
	fx.fs = fsys
	return fx
}

// Rule 11.7.4: version 2 had ids; what changed in version 3 is the role of
// an extension's message, hookMessage, which is custom now.
func TestLab11_7_Version2HookMessagesAreCustom(t *testing.T) {
	hook := agentstore.Message(`{"role":"hookMessage","customType":"reminder","content":"tests first","display":true,"timestamp":5}`)
	fx := newFixture()
	fx.fs.setFile(sessPath, `{"type":"session","version":2,"id":"s-two","timestamp":"`+T1+`","cwd":"/"}`+"\n"+
		msgLine("a", "", user("hi"))+msgLine("h", "a", hook)+msgLine("b", "h", assistant("noted")))
	s := mustOpen(t, fx.opts(), "a version-2 file with a hookMessage")
	assert.Equal(t, []string{"a", "h", "b"}, chainOf(t, s), "a version-2 file keeps its ids and parents")
	h, _ := entryOf(t, s, "h")
	assert.Equal(t, `{"role":"custom","customType":"reminder","content":"tests first","display":true,"timestamp":5}`,
		string(h.Message), "Entry(\"h\").Message: pi's version 3 calls an extension's message role custom; UpgradeLine "+
			"renames hookMessage and keeps the rest of the message, byte for byte")
}

// Rule 11.7.5: a store over a file of an older version never writes: an
// append, or a compaction that is needed, is a *MigratedError with no
// call to the file system and no summary; a compaction that is not needed
// is still ""; reading works; Reset starts a version-3 session that
// writes, keeping the old file as its archive.
func TestLab11_7_MigratedStoreNeverWrites(t *testing.T) {
	text := piFile("v2.jsonl")
	fx := newFixture()
	fx.fs.setFile(sessPath, text)
	s := mustOpen(t, fx.opts(), "testdata/pi/v2.jsonl")
	leaf := leafOf(t, s)
	mark := fx.fs.mark()

	_, err := appendMsg(t, s, user("one more"))
	var me *agentstore.MigratedError
	require.True(t, errors.As(err, &me), "AppendMessage on a store over a version-2 file = %s; want a *MigratedError: "+
		"the store appends only version-3 lines to a version-3 file, and a line it appended here would be read as "+
		"version 2", describe(err))
	assert.Equal(t, agentstore.MigratedError{Path: sessPath, Version: 2}, *me, "the *MigratedError names the path and "+
		"the file's version")
	assert.True(t, errors.Is(err, agentstore.ErrMigrated), "errors.Is(%s, ErrMigrated)", describe(err))

	id, err := compact(t, s, 1<<20, 2)
	assert.NoError(t, err, "CompactIfNeeded(%d, 2) under the budget on a migrated store = %s; want \"\" and no error: "+
		"nothing to write, nothing to refuse", 1<<20, describe(err))
	assert.Equal(t, "", id)
	_, err = compact(t, s, 0, 2)
	assert.True(t, errors.As(err, &me), "CompactIfNeeded(0, 2), a compaction that is needed, on a migrated store = %s; "+
		"want the *MigratedError: it would be a write", describe(err))
	assert.Empty(t, fx.sum.recorded(), "Summarize was called for a compaction that cannot be written")
	assert.Empty(t, fx.fs.opsSince(mark), "a migrated store refused to write, and still called the file system")
	assert.Equal(t, leaf, leafOf(t, s), "reading still works, and the leaf stays")
	assert.NotEmpty(t, contextOf(t, s), "reading still works: BuildContext")

	err = reset(t, s)
	require.NoError(t, err, "Reset of a store over a version-2 file = %s; want nil: Reset is the way out", describe(err))
	assert.Equal(t, text, fx.fs.file(agentstore.ArchivePath(sessPath, "019b0020-251a-7d70-83c5-50288ca31868")),
		"the archive holds the version-2 file, byte for byte")
	assert.Equal(t, agentstore.CurrentVersion, headerOf(t, s).Version, "after Reset the header is a new version-3 one")
	id, err = appendMsg(t, s, user("a new session"))
	require.NoError(t, err, "AppendMessage after Reset of a migrated store = %s; want a new entry: the new file is "+
		"version 3, and the store writes again", describe(err))
	assert.Equal(t, []string{id}, chainOf(t, s), "the first message of the new session is a root")
}
