package piconform

// Difference is one way in which the lab's store, given a file pi wrote,
// builds a context other than pi's. Each is either a gap, which the lab's
// exercises close and the known list must not hold, or one of the lab's own
// rules, where the store is stricter than pi on purpose (Deliberate): each
// of those names the rule and the lab's test that holds the store to it,
// and the handout says why, in "Where this store is stricter than pi".
type Difference int

const (
	// BranchSummaryLeftOut: a branch_summary entry with a summary is on
	// the path; pi sends it as a branchSummary message, the lab does not
	// (a gap: rule 11.7.1).
	BranchSummaryLeftOut Difference = iota + 1
	// CustomMessageLeftOut: a custom_message entry is on the path; pi
	// sends it as a message of role custom, the lab does not (a gap: rule
	// 11.7.1).
	CustomMessageLeftOut
	// ModelDiffers: the model of the lab's SessionContext is not pi's
	// (the last model_change or assistant message on the path; a gap:
	// rule 11.7.3).
	ModelDiffers
	// ThinkingLevelDiffers: the thinking level of the lab's SessionContext
	// is not pi's (the last thinking_level_change on the path, "off"
	// without one; a gap: rule 11.7.3).
	ThinkingLevelDiffers
	// VersionRefused: the file is of version 1 or 2; pi migrates it when it
	// opens it, the lab refuses it (a gap: rule 11.7.4 migrates it in
	// memory).
	VersionRefused

	// KeptEntryOffPath: a compaction keeps from an entry that is not its
	// ancestor; pi builds a context without the kept part, the lab refuses
	// the file with a *KeptEntryError (rule 11.5.6,
	// TestLab11_5_OpenRefusesAKeptEntryOffThePath): such a compaction
	// stands for a context that cannot be built.
	KeptEntryOffPath
	// TailNotCommitted: the file's last line, a whole entry, has no "\n";
	// pi reads it (it splits the text on "\n" after trimming it) and opens
	// on it, the lab leaves it out and opens on the entry before it (rule
	// 11.1.5, TestLab11_1_UnterminatedTailIsNotAFact): a line counts only
	// once its "\n" is written, and its next append would be glued to it.
	TailNotCommitted
	// CorruptLineRefused: a line in the middle of the file is not JSON; pi
	// skips it (parseSessionEntries: "Skip malformed lines"), the lab
	// refuses the file at that line (rule 11.1.3,
	// TestLab11_1_BadLinesNameTheirLine): a committed line that cannot be
	// read is damage to report, not a line to drop.
	CorruptLineRefused
	// MissingParentRefused: an entry names a parent no entry has; pi stops
	// its walk to the root there, and the context at the leaves below it
	// silently loses everything above, the lab refuses the file (rule
	// 11.1.4, TestLab11_1_IndexRejectsDuplicatesAndOrphans).
	MissingParentRefused
	// DuplicateIDRefused: two entries have one id; pi's index keeps the
	// later one, so the other branch can no longer be reached (and a
	// duplicate on the walk to the root would make pi loop for ever), the
	// lab refuses the file (rule 11.1.4,
	// TestLab11_1_IndexRejectsDuplicatesAndOrphans).
	DuplicateIDRefused
	// NoHeaderRefused: the file has bytes but no committed header line
	// (half a header); pi takes it for an empty file and writes a new
	// session over it, its bytes gone, the lab refuses it and writes
	// nothing (rule 11.1.6, TestLab11_1_NoCommittedHeaderIsNoSession).
	NoHeaderRefused
)

var differenceNames = map[Difference]string{
	BranchSummaryLeftOut: "branch summary left out",
	CustomMessageLeftOut: "custom message left out",
	ModelDiffers:         "model differs",
	ThinkingLevelDiffers: "thinking level differs",
	VersionRefused:       "version refused",
	KeptEntryOffPath:     "kept entry off the path (rule 11.5.6)",
	TailNotCommitted:     "unterminated last line left out (rule 11.1.5)",
	CorruptLineRefused:   "a line that is not JSON refused (rule 11.1.3)",
	MissingParentRefused: "a missing parent refused (rule 11.1.4)",
	DuplicateIDRefused:   "a duplicate id refused (rule 11.1.4)",
	NoHeaderRefused:      "bytes without a header refused (rule 11.1.6)",
}

func (d Difference) String() string {
	if n, ok := differenceNames[d]; ok {
		return n
	}
	return "unknown difference"
}

// Deliberate reports whether d is the lab's own rule rather than a gap:
// the store is stricter than pi on purpose there.
func (d Difference) Deliberate() bool { return d >= KeptEntryOffPath }

// Known is a difference the suite expects to see: in File (a session file
// of the fixtures), at the leaf Leaf (its name in the fixture), or at the
// file as a whole when Leaf is "" (the lab refuses the file, or opens it
// on another leaf than pi). A leaf that is not listed must match pi
// exactly: its messages, its model and its thinking level.
type Known struct {
	File string
	Leaf string
	Is   []Difference
}

// known is every difference between the lab's store and pi that the
// fixtures show. The tests check it both ways: a difference that is not
// here fails, and so does one listed here that no longer occurs. Only
// deliberate differences may be listed (TestKnownDifferencesAreDeliberate).
var known = []Known{
	{"off-path.jsonl", "", []Difference{KeptEntryOffPath}},
	{"tail.jsonl", "", []Difference{TailNotCommitted}},
	{"tail.jsonl", "other-answer", []Difference{TailNotCommitted}},
	{"corrupt.jsonl", "", []Difference{CorruptLineRefused}},
	{"orphan.jsonl", "", []Difference{MissingParentRefused}},
	{"duplicate.jsonl", "", []Difference{DuplicateIDRefused}},
	{"half-header.jsonl", "", []Difference{NoHeaderRefused}},
}
