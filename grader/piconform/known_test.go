package piconform

// Difference is one way in which the lab's store, given a file pi wrote,
// builds a context other than pi's. Each is either a gap that later lab
// work is to close, or one of the lab's own rules (Deliberate).
type Difference int

const (
	// BranchSummaryLeftOut: a branch_summary entry with a summary is on
	// the path; pi sends it as a branchSummary message, the lab sends
	// nothing for it (it keeps the entry, and gives it no message).
	BranchSummaryLeftOut Difference = iota + 1
	// CustomMessageLeftOut: a custom_message entry is on the path; pi
	// sends it as a message of role custom, the lab sends nothing for it.
	CustomMessageLeftOut
	// NoModel: pi's context names a model at this leaf (from the last
	// model_change or assistant message on the path); the lab's context
	// is messages only.
	NoModel
	// NoThinkingLevel: pi's thinking level at this leaf is not "off"
	// (a thinking_level_change on the path); the lab's context has none.
	NoThinkingLevel
	// VersionRefused: the file is of version 1 or 2; pi migrates it when it
	// opens it, the lab refuses it with a *VersionError (rule 11.1.3).
	VersionRefused
	// KeptEntryOffPath: a compaction keeps from an entry that is not its
	// ancestor; pi builds a context without the kept part, the lab refuses
	// the file with a *KeptEntryError (rule 11.5.6).
	KeptEntryOffPath
)

var differenceNames = map[Difference]string{
	BranchSummaryLeftOut: "branch summary left out",
	CustomMessageLeftOut: "custom message left out",
	NoModel:              "no model",
	NoThinkingLevel:      "no thinking level",
	VersionRefused:       "version refused",
	KeptEntryOffPath:     "kept entry off the path",
}

func (d Difference) String() string {
	if n, ok := differenceNames[d]; ok {
		return n
	}
	return "unknown difference"
}

// Deliberate reports whether d is the lab's own rule rather than a gap:
// the store is stricter than pi on purpose there.
func (d Difference) Deliberate() bool { return d == KeptEntryOffPath }

// Known is a difference the suite expects to see: in File (a session file
// of the fixtures, or the hand-made one), at the leaf Leaf (its name in the
// fixture, or its id), or at the file as a whole when Leaf is "" (the lab
// does not open it). A leaf that is not listed must match pi exactly.
type Known struct {
	File string
	Leaf string
	Is   []Difference
}

// known is every difference between the lab's store and pi that the
// fixtures show today. The tests check it both ways: a difference that is
// not here fails, and so does one listed here that no longer occurs.
var known = []Known{
	{"tools.jsonl", "end", []Difference{NoModel, NoThinkingLevel}},

	{"branches.jsonl", "shorter", []Difference{NoModel}},
	{"branches.jsonl", "longer", []Difference{NoModel}},
	{"branches.jsonl", "haiku", []Difference{BranchSummaryLeftOut, NoModel}},
	{"branches.jsonl", "thinking-only", []Difference{NoModel, NoThinkingLevel}},
	{"branches.jsonl", "empty-summary", []Difference{NoModel}},
	{"branches.jsonl", "second-root", []Difference{NoModel}},
	{"branches.jsonl", "root-summary", []Difference{BranchSummaryLeftOut, NoModel}},

	{"compaction.jsonl", "end", []Difference{NoModel, NoThinkingLevel}},
	{"compaction.jsonl", "compaction-after-compaction", []Difference{NoModel, NoThinkingLevel}},
	{"compaction.jsonl", "after-first", []Difference{NoModel}},
	{"compaction.jsonl", "before-compactions", []Difference{NoModel}},

	{"extensions.jsonl", "with-custom-message", []Difference{CustomMessageLeftOut, NoModel}},
	{"extensions.jsonl", "custom-entries-only", []Difference{NoModel}},
	{"extensions.jsonl", "hidden-custom-message", []Difference{CustomMessageLeftOut, NoModel}},

	{"long.jsonl", "end", []Difference{NoModel}},
	{"long.jsonl", "detour", []Difference{NoModel}},

	{"off-path.jsonl", "", []Difference{KeptEntryOffPath}},
	{"v1.jsonl", "", []Difference{VersionRefused}},
	{"v2.jsonl", "", []Difference{VersionRefused}},
}

// knownHandMade is what the lab's hand-made session file in pi's format
// (testdata/pi-session.jsonl) shows when pi reads it: its leaves have no
// names, so they are named by id.
var knownHandMade = []Known{
	{"pi-session.jsonl", "8b9c0d1e", []Difference{NoModel, NoThinkingLevel}},
	{"pi-session.jsonl", "7c8d9e0f", []Difference{NoModel, NoThinkingLevel}},
}
