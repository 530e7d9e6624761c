package agentstore_test

import (
	"embed"
	"encoding/json"
	"path"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	agentstore "github.com/coursekit/course/labs/11-agentstore"
)

// The session files pi itself wrote (testdata/pi, whose README says how),
// and beside each, NAME.context.json, the context pi's own
// buildSessionContext gives at every leaf of that file.
//
//go:embed testdata/pi/tokenizer.jsonl testdata/pi/tokenizer.context.json
//go:embed testdata/pi/compaction.jsonl testdata/pi/compaction.context.json
//go:embed testdata/pi/branches.jsonl testdata/pi/branches.context.json
//go:embed testdata/pi/extensions.jsonl testdata/pi/extensions.context.json
//go:embed testdata/pi/tools.jsonl testdata/pi/tools.context.json
//go:embed testdata/pi/v1.jsonl testdata/pi/v1.context.json
//go:embed testdata/pi/v2.jsonl testdata/pi/v2.context.json
var piFiles embed.FS

// piSession is testdata/pi/tokenizer.jsonl, a session pi wrote (version 3):
// a model and a thinking-level change, messages with pi's extra fields
// (api, usage, cost, thinking blocks, details), a branch the user came back
// from, a compaction, a session_info entry, and a user message whose
// content is a plain string. Look at it.
var piSession = piFile("tokenizer.jsonl")

// piIDs are the ids of its entries, in file order.
var piIDs = []string{
	"9cda2c96", "642f4a02", "5c313dd9", "81bdf869", "0cb38dda", "570957e1", "f131850c", "5f5f7f69",
	"4612ec9c", "32d7676d", "79a97f66", "92e01fe3", "5f518eef", "6f8beadc", "440b0ebd", "701edbe6", "8af385c5",
}

// piFile returns testdata/pi/name.
func piFile(name string) string {
	data, err := piFiles.ReadFile(path.Join("testdata", "pi", name))
	if err != nil {
		panic(err) // embedded above
	}
	return string(data)
}

// piSaid is what pi said of one of its session files: NAME.context.json.
type piSaid struct {
	Session  string   `json:"session"`
	OpenLeaf *string  `json:"openLeaf"`
	Leaves   []piLeaf `json:"leaves"`
}

// piLeaf is pi's context at one leaf of the file: every entry that no entry
// names as its parent.
type piLeaf struct {
	Name    string `json:"name"`
	Leaf    string `json:"leaf"`
	Context struct {
		Messages      []json.RawMessage `json:"messages"`
		ThinkingLevel string            `json:"thinkingLevel"`
		Model         *agentstore.Model `json:"model"`
	} `json:"context"`
}

// piContexts reads testdata/pi/NAME.context.json.
func piContexts(t *testing.T, name string) piSaid {
	t.Helper()
	var said piSaid
	require.NoError(t, json.Unmarshal([]byte(piFile(name+".context.json")), &said), "test setup: %s.context.json", name)
	return said
}

// sameJSON reports whether two JSON texts are the same value (the keys of an
// object in any order).
func sameJSON(a, b []byte) bool {
	var va, vb any
	return json.Unmarshal(a, &va) == nil && json.Unmarshal(b, &vb) == nil && jsonEqual(va, vb)
}

func jsonEqual(a, b any) bool {
	ja, _ := json.Marshal(a) // maps marshal with sorted keys
	jb, _ := json.Marshal(b)
	return string(ja) == string(jb)
}

// roles lists the roles of messages, for a failure message that says what
// a context holds at a glance.
func roles[M ~[]byte](ms []M) string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = agentstore.Message(m).Role()
	}
	return "[" + strings.Join(out, " ") + "]"
}

// requirePisMessages fails t unless got holds pi's messages, in order, each
// the same JSON value.
func requirePisMessages(t *testing.T, what string, pi []json.RawMessage, got []agentstore.Message) {
	t.Helper()
	require.Len(t, got, len(pi), "%s gave %d messages %s; pi's buildSessionContext gives %d, %s", what, len(got),
		roles(got), len(pi), roles(pi))
	for i := range pi {
		require.True(t, sameJSON(pi[i], got[i]), "%s: message %d of %d is\n\t%s\npi's is\n\t%s", what, i+1, len(pi),
			clipText(string(got[i])), clipText(string(pi[i])))
	}
}

// clipText shortens a long message for a failure message.
func clipText(s string) string {
	if len(s) > 400 {
		return s[:400] + "…"
	}
	return s
}
