package piconform

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// outcome is how the lab's context compares with pi's at one leaf of a
// file, or for the file as a whole (leaf "": the lab does not open it, or
// opens it on another leaf than pi).
type outcome struct {
	file, leaf string
	diffs      []Difference
	problem    string // a difference no Difference explains; "" when there is none
	detail     string // what the report says of the file as a whole
	// At a leaf: how many messages each context has, and each side's
	// settings.
	piN, labN             int
	piModel, labModel     string
	piThinking, labThinks string
	leafCompared          bool
}

// sameJSON reports whether a and b are the same JSON value: the same
// objects, keys in any order, the same numbers as written.
func sameJSON(a, b []byte) bool {
	va, ea := decodeJSON(a)
	vb, eb := decodeJSON(b)
	return ea == nil && eb == nil && reflect.DeepEqual(va, vb)
}

func decodeJSON(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	return v, err
}

// specials are the entries of a session file that pi turns into messages
// and the lab does not: by what pi's message says of them.
type specials struct {
	branchSummaries map[string]bool // fromId, summary, time
	customMessages  map[string]bool // customType, time
}

// millis is an entry's ISO time in milliseconds, as pi's messages give it.
func millis(iso string) int64 {
	t, err := time.Parse(time.RFC3339Nano, iso)
	if err != nil {
		return -1
	}
	return t.UnixMilli()
}

// specialsOf reads the branch_summary and custom_message entries of a
// session file's lines.
func specialsOf(session []byte) specials {
	sp := specials{map[string]bool{}, map[string]bool{}}
	sc := bufio.NewScanner(bytes.NewReader(session))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var e struct {
			Type, Timestamp, FromID, Summary, CustomType string
		}
		if json.Unmarshal(sc.Bytes(), &e) != nil {
			continue
		}
		switch e.Type {
		case "branch_summary":
			sp.branchSummaries[fmt.Sprint(e.FromID, "\x00", e.Summary, "\x00", millis(e.Timestamp))] = true
		case "custom_message":
			sp.customMessages[fmt.Sprint(e.CustomType, "\x00", millis(e.Timestamp))] = true
		}
	}
	return sp
}

// leftOut says which Difference explains pi's message m, missing from the
// lab's context: only a message that pi makes of one of the file's
// branch_summary or custom_message entries.
func (sp specials) leftOut(m []byte) (Difference, bool) {
	var v struct {
		Role, FromID, Summary, CustomType string
		Timestamp                         int64
	}
	if json.Unmarshal(m, &v) != nil {
		return 0, false
	}
	switch {
	case v.Role == "branchSummary" && sp.branchSummaries[fmt.Sprint(v.FromID, "\x00", v.Summary, "\x00", v.Timestamp)]:
		return BranchSummaryLeftOut, true
	case v.Role == "custom" && sp.customMessages[fmt.Sprint(v.CustomType, "\x00", v.Timestamp)]:
		return CustomMessageLeftOut, true
	}
	return 0, false
}

// explainMessages compares pi's messages with the lab's, in order: every
// message of pi must be the lab's next one, or one that leftOut explains.
func explainMessages(pi, lab []json.RawMessage, sp specials) ([]Difference, string) {
	var diffs []Difference
	j := 0
	for i, m := range pi {
		if j < len(lab) && sameJSON(m, lab[j]) {
			j++
			continue
		}
		d, ok := sp.leftOut(m)
		if !ok {
			labs := "nothing"
			if j < len(lab) {
				labs = short(lab[j])
			}
			return diffs, fmt.Sprintf("pi's message %d of %d is %s; the lab's message %d of %d is %s", i+1, len(pi), short(m), j+1, len(lab), labs)
		}
		diffs = addDiff(diffs, d)
	}
	if j < len(lab) {
		return diffs, fmt.Sprintf("the lab's context has %d messages more than pi's, from %s", len(lab)-j, short(lab[j]))
	}
	return diffs, ""
}

func addDiff(diffs []Difference, d Difference) []Difference {
	if !slices.Contains(diffs, d) {
		diffs = append(diffs, d)
		slices.Sort(diffs)
	}
	return diffs
}

// short is a message, compacted and cut to what a failure can show.
func short(m []byte) string {
	var buf bytes.Buffer
	s := string(m)
	if json.Compact(&buf, m) == nil {
		s = buf.String()
	}
	if len(s) > 160 {
		s = s[:160] + "…"
	}
	return s
}

// compareLeaf compares the lab's context at one leaf with pi's: its
// messages, its model and its thinking level. tail is the id of the
// file's unterminated last line ("" when it has none).
func compareLeaf(file string, pi piLeaf, lab leafResult, sp specials, tail string) outcome {
	o := outcome{file: file, leaf: pi.label()}
	if f := lab.Failure; f != nil {
		if f.Kind == "unknown-entry" && pi.Leaf == tail && tail != "" {
			o.diffs = []Difference{TailNotCommitted}
			o.detail = "the lab does not know the entry of the unterminated last line: " + f.Error
			return o
		}
		o.problem = "the lab cannot switch to it: " + f.Error
		return o
	}
	o.diffs, o.problem = explainMessages(pi.Context.Messages, lab.Messages, sp)
	if o.problem == "" && lab.Differs != "" {
		o.problem = "the lab's SessionContext does not hold BuildContext's messages: " + lab.Differs
	}
	if pi.Context.Model.String() != lab.Model.String() {
		o.diffs = addDiff(o.diffs, ModelDiffers)
	}
	if pi.Context.ThinkingLevel != lab.ThinkingLevel {
		o.diffs = addDiff(o.diffs, ThinkingLevelDiffers)
	}
	o.leafCompared = true
	o.piN, o.labN = len(pi.Context.Messages), len(lab.Messages)
	o.piModel, o.labModel = pi.Context.Model.String(), lab.Model.String()
	o.piThinking, o.labThinks = pi.Context.ThinkingLevel, lab.ThinkingLevel
	return o
}

// refusals are the kinds of the lab's refusal of a whole file that one of
// its rules explains: the file is stricter than pi there.
var refusals = map[string]Difference{
	"kept-entry":     KeptEntryOffPath,
	"not-json":       CorruptLineRefused,
	"missing-parent": MissingParentRefused,
	"duplicate-id":   DuplicateIDRefused,
	"no-header":      NoHeaderRefused,
}

// ownIDs reports whether the lab gives the entries of a session file ids of
// its own: a file of version 1 has none, and each side migrates it with
// its own (pi random ones, which it writes into the file; the lab ids that
// the file's lines give, in memory).
func ownIDs(session []byte) bool {
	first, _, _ := bytes.Cut(session, []byte("\n"))
	var h struct {
		Type    string   `json:"type"`
		Version *float64 `json:"version"`
	}
	return json.Unmarshal(first, &h) == nil && h.Type == "session" && (h.Version == nil || *h.Version < 2)
}

// leavesToAsk are the leaves the driver builds the context at: pi's, or,
// in a file whose ids are each side's own, the one the lab opens on.
func leavesToAsk(pi piSession, session []byte) []string {
	if ownIDs(session) {
		return []string{""}
	}
	return leafIDs(pi)
}

// unterminated returns the id of the entry on a file's last line when that
// line has no "\n", and the id of the entry of the line before it.
func unterminated(session []byte) (tail, before string) {
	if len(session) == 0 || session[len(session)-1] == '\n' {
		return "", ""
	}
	lines := bytes.Split(session, []byte("\n"))
	id := func(line []byte) string {
		var e struct {
			ID string `json:"id"`
		}
		_ = json.Unmarshal(line, &e)
		return e.ID
	}
	tail = id(lines[len(lines)-1])
	if len(lines) > 1 {
		before = id(lines[len(lines)-2])
	}
	return tail, before
}

// compareFile compares the lab's store with pi on one session file.
func compareFile(file string, pi piSession, lab openResult, session []byte) []outcome {
	whole := outcome{file: file}
	if f := lab.Failure; f != nil {
		whole.detail = "the lab refuses it: " + f.Error
		d, ok := refusals[f.Kind]
		switch {
		case f.Kind == "version" && pi.Migrated:
			whole.diffs = []Difference{VersionRefused}
		case ok && !pi.Migrated:
			whole.diffs = []Difference{d}
		default:
			whole.problem = whole.detail
		}
		return []outcome{whole}
	}
	var out []outcome
	tail, before := unterminated(session)
	own := ownIDs(session)
	switch {
	case own && len(pi.Leaves) == 1 && pi.OpenLeaf != nil && pi.Leaves[0].Leaf == *pi.OpenLeaf:
		// One leaf, where each side opens: compared below, the lab's
		// at the leaf it opens on.
	case own:
		whole.problem = fmt.Sprintf("a file whose ids are each side's own must have one leaf, where pi opens it; pi has %d, and opens on %v", len(pi.Leaves), pi.OpenLeaf)
		return append(out, whole)
	case tail != "" && pi.OpenLeaf != nil && *pi.OpenLeaf == tail && lab.Leaf == before:
		whole.diffs = []Difference{TailNotCommitted}
		whole.detail = fmt.Sprintf("pi opens on %s, the entry of the last line, which has no newline; the lab on %s, the entry before it", tail, before)
		out = append(out, whole)
	case pi.OpenLeaf == nil || lab.Leaf != *pi.OpenLeaf:
		whole.problem = fmt.Sprintf("the lab opens it on leaf %q, pi on %v", lab.Leaf, pi.OpenLeaf)
		out = append(out, whole)
	}
	if len(lab.Leaves) != len(pi.Leaves) {
		whole.problem = fmt.Sprintf("the driver answered for %d leaves, pi has %d", len(lab.Leaves), len(pi.Leaves))
		return append(out, whole)
	}
	sp := specialsOf(session)
	for i, l := range pi.Leaves {
		out = append(out, compareLeaf(file, l, lab.Leaves[i], sp, tail))
	}
	return out
}

// verdict says in one line how o compares: its messages, then the
// settings of the two SessionContexts.
func (o outcome) verdict() string {
	if !o.leafCompared {
		switch {
		case o.problem != "":
			return "UNEXPLAINED: " + o.problem
		case len(o.diffs) > 0:
			return fmt.Sprintf("%s: %s", o.diffs[0], o.detail)
		}
		return o.detail
	}
	msgs := fmt.Sprintf("messages the same (%d)", o.piN)
	var left []string
	for _, d := range o.diffs {
		if d == BranchSummaryLeftOut || d == CustomMessageLeftOut {
			left = append(left, d.String())
		}
	}
	switch {
	case o.problem != "":
		msgs = "messages UNEXPLAINED: " + o.problem
	case len(left) > 0:
		msgs = fmt.Sprintf("messages differ, %s (pi %d, lab %d)", strings.Join(left, ", "), o.piN, o.labN)
	}
	return fmt.Sprintf("%s; %s; %s", msgs, setting("model", o.piModel, o.labModel), setting("thinking level", o.piThinking, o.labThinks))
}

// setting says how one setting of the two contexts compares.
func setting(name, pi, lab string) string {
	if pi == lab {
		return fmt.Sprintf("%s %s", name, pi)
	}
	return fmt.Sprintf("%s: pi %s, lab %s", name, pi, lab)
}

// report logs every outcome: which leaves match pi and which differ, and why.
func report(t *testing.T, who string, outcomes []outcome) {
	t.Helper()
	var b strings.Builder
	exact, sameMsgs, leaves := 0, 0, 0
	for _, o := range outcomes {
		leaf := o.leaf
		if leaf == "" {
			leaf = "(the file)"
		}
		if o.leafCompared {
			leaves++
			if o.problem == "" && !slices.Contains(o.diffs, BranchSummaryLeftOut) && !slices.Contains(o.diffs, CustomMessageLeftOut) {
				sameMsgs++
			}
		}
		if o.problem == "" && len(o.diffs) == 0 {
			exact++
		}
		fmt.Fprintf(&b, "  %-18s %-28s %s\n", o.file, leaf, o.verdict())
	}
	t.Logf("%s: %d leaves compared: the same messages as pi at %d, the same context (messages, model, thinking level) at %d\n%s",
		who, leaves, sameMsgs, exact, b.String())
}

// checkKnown fails t for every outcome that the known list does not
// predict, and for every entry of the list about files that were
// compared that no outcome showed.
func checkKnown(t *testing.T, outcomes []outcome, list []Known) {
	t.Helper()
	files := map[string]bool{}
	for _, o := range outcomes {
		files[o.file] = true
	}
	want := map[[2]string][]Difference{}
	for _, k := range list {
		if files[k.File] {
			want[[2]string{k.File, k.Leaf}] = k.Is
		}
	}
	for _, o := range outcomes {
		key := [2]string{o.file, o.leaf}
		if o.problem != "" {
			t.Errorf("%s %q: the lab's context differs from pi's in a way no known difference explains: %s", o.file, o.leaf, o.problem)
		}
		listed := slices.Clone(want[key])
		slices.Sort(listed)
		if !slices.Equal(o.diffs, listed) {
			t.Errorf("%s %q: differs from pi by %v, but the known list (known_test.go) says %v; change the list only if pi or the lab changed on purpose (%s)", o.file, o.leaf, o.diffs, listed, o.verdict())
		}
		delete(want, key)
	}
	for key, d := range want {
		t.Errorf("%s %q: the known list says it differs from pi by %v, but no such leaf was compared: remove it from known_test.go", key[0], key[1], d)
	}
}
