package piconform

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coursekit/course/labs"
)

// coverage is what the fixtures hold, summed over their files.
type coverage struct {
	types, roles                         map[string]bool
	versions                             map[float64]bool
	toolError, toolDetails               bool
	mostChildren, mostRoots, mostEntries int
}

// coverageLine is what coverage reads of one line of a session file.
type coverageLine struct {
	Type     string   `json:"type"`
	Version  *float64 `json:"version"`
	ID       string   `json:"id"`
	ParentID *string  `json:"parentId"`
	Message  struct {
		Role    string          `json:"role"`
		IsError bool            `json:"isError"`
		Details json.RawMessage `json:"details"`
	} `json:"message"`
}

// add reads one fixture's lines.
func (c *coverage) add(t *testing.T, f fixture) {
	t.Helper()
	children, roots, entries := map[string]int{}, 0, 0
	sc := bufio.NewScanner(bytes.NewReader(f.session))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var e coverageLine
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("%s: %v", f.pi.Session, err)
		}
		if e.Type == "session" {
			v := 1.0 // pi's version 1 has none
			if e.Version != nil {
				v = *e.Version
			}
			c.versions[v] = true
			continue
		}
		entries++
		c.types[e.Type] = true
		if r := e.Message.Role; r != "" {
			c.roles[r] = true
			c.toolError = c.toolError || r == "toolResult" && e.Message.IsError
			c.toolDetails = c.toolDetails || r == "toolResult" && len(e.Message.Details) > 0
		}
		switch {
		case e.ParentID == nil && !f.pi.Migrated:
			roots++
		case e.ParentID != nil:
			children[*e.ParentID]++
		}
	}
	for _, n := range children {
		c.mostChildren = max(c.mostChildren, n)
	}
	c.mostRoots, c.mostEntries = max(c.mostRoots, roots), max(c.mostEntries, entries)
}

// TestFixturesCoverPisFormat holds the fixtures to what their README says
// they hold: every entry type of pi's version 3, every message role pi
// writes, tool results with details and errors, several branches from one
// entry, several roots, a file of more than a thousand entries, and the
// versions 1 and 2 that pi migrates.
func TestFixturesCoverPisFormat(t *testing.T) {
	c := coverage{types: map[string]bool{}, roles: map[string]bool{}, versions: map[float64]bool{}}
	changed := 0
	for _, f := range fixtures(t, theLab(t)) {
		if f.pi.Changed != "" {
			changed++ // the script broke it on purpose: its lines need not parse
			continue
		}
		c.add(t, f)
	}
	if changed < 5 {
		t.Errorf("%d fixtures show what pi does with a file the lab refuses or reads otherwise; want the five of the "+
			"handout's \"stricter than pi\" (an unterminated last line, a line that is not JSON, a missing parent, a "+
			"duplicate id, half a header)", changed)
	}
	for _, want := range []string{"message", "model_change", "thinking_level_change", "compaction", "branch_summary", "custom", "custom_message", "label", "session_info"} {
		if !c.types[want] {
			t.Errorf("no fixture has a %s entry", want)
		}
	}
	for _, want := range []string{"user", "assistant", "toolResult", "bashExecution", "custom"} {
		if !c.roles[want] {
			t.Errorf("no fixture has a message of role %s", want)
		}
	}
	for _, v := range []float64{1, 2, 3} {
		if !c.versions[v] {
			t.Errorf("no fixture is of version %v", v)
		}
	}
	if !c.toolError || !c.toolDetails {
		t.Errorf("the fixtures want a tool result with isError (%v) and one with details (%v)", c.toolError, c.toolDetails)
	}
	if c.mostChildren < 3 || c.mostRoots < 2 || c.mostEntries < 1000 {
		t.Errorf("the fixtures want an entry with 3 children or more (at most %d), a file with 2 roots or more (%d), one of 1000 entries or more (%d)", c.mostChildren, c.mostRoots, c.mostEntries)
	}
}

// TestFixturesNamePisVersion: the version package.json pins is the one
// package-lock.json installs, the one every context.json was made with,
// and the one the fixtures' README names, with the command that made them.
func TestFixturesNamePisVersion(t *testing.T) {
	l := theLab(t)
	want := pinned(t)
	var lock struct {
		Packages map[string]struct {
			Version string `json:"version"`
		} `json:"packages"`
	}
	data, err := os.ReadFile(filepath.Join(piDir, "package-lock.json"))
	if err == nil {
		err = json.Unmarshal(data, &lock)
	}
	if err != nil {
		t.Fatalf("package-lock.json: %v", err)
	}
	if got := lock.Packages["node_modules/"+piPackage].Version; got != want {
		t.Errorf("package-lock.json installs %s %q, package.json pins %q: run npm install --ignore-scripts in %s", piPackage, got, want, piDir)
	}
	for _, f := range fixtures(t, l) {
		if f.pi.Pi != want {
			t.Errorf("%s.context.json was made with pi %q, package.json pins %q: write the fixtures again", f.name, f.pi.Pi, want)
		}
	}
	readme, err := fs.ReadFile(labs.FS, path.Join(l.Slug, fixturesDir, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"**" + want + "**", "npm ci --ignore-scripts", "node pi.mjs write ../../../../labs/" + l.Slug + "/" + fixturesDir} {
		if !strings.Contains(string(readme), s) {
			t.Errorf("labs/%s/%s/README.md does not say %q", l.Slug, fixturesDir, s)
		}
	}
}
