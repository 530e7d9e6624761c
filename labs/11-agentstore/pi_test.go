package agentstore_test

import _ "embed"

// piSession is a session file in pi's format (version 3): a header, a model
// and a thinking-level change, messages with pi's extra fields (api, usage,
// cost, thinking blocks, details), a branch the user came back from, a
// compaction, a session_info entry, and a user message whose content is a
// plain string. Look at it: testdata/pi-session.jsonl.
//
//go:embed testdata/pi-session.jsonl
var piSession string

// piIDs are the ids of its entries, in file order.
var piIDs = []string{
	"3f9a2c1b", "8d2e4f6a", "a1b2c3d4", "b7c8d9e0", "c1d2e3f4", "d5e6f7a8", "9a0b1c2d", "8b9c0d1e",
	"e9f0a1b2", "f3a4b5c6", "0a1b2c3d", "1e2f3a4b", "2c3d4e5f", "5a6b7c8d", "7e8f9a0b", "6e7f8a9b", "7c8d9e0f",
}
