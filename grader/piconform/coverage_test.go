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

// TestFixturesCoverPisFormat holds the fixtures to what their README says
// they hold: every entry type of pi's version 3, every message role pi
// writes, tool results with details and errors, several branches from one
// entry, several roots, a file of more than a thousand entries, and the
// versions 1 and 2 that pi migrates.
func TestFixturesCoverPisFormat(t *testing.T) {
	l := theLab(t)
	types, roles := map[string]bool{}, map[string]bool{}
	var toolError, toolDetails bool
	versions := map[float64]bool{}
	mostChildren, mostRoots, mostEntries := 0, 0, 0
	for _, f := range fixtures(t, l) {
		children, roots, entries := map[string]int{}, 0, 0
		sc := bufio.NewScanner(bytes.NewReader(f.session))
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			var e struct {
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
			if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
				t.Fatalf("%s: %v", f.pi.Session, err)
			}
			if e.Type == "session" {
				v := 1.0 // pi's version 1 has none
				if e.Version != nil {
					v = *e.Version
				}
				versions[v] = true
				continue
			}
			entries++
			types[e.Type] = true
			if e.Message.Role != "" {
				roles[e.Message.Role] = true
			}
			toolError = toolError || e.Message.Role == "toolResult" && e.Message.IsError
			toolDetails = toolDetails || e.Message.Role == "toolResult" && len(e.Message.Details) > 0
			switch {
			case e.ParentID == nil && !f.pi.Migrated:
				roots++
			case e.ParentID != nil:
				children[*e.ParentID]++
			}
		}
		for _, n := range children {
			mostChildren = max(mostChildren, n)
		}
		mostRoots, mostEntries = max(mostRoots, roots), max(mostEntries, entries)
	}
	for _, want := range []string{"message", "model_change", "thinking_level_change", "compaction", "branch_summary", "custom", "custom_message", "label", "session_info"} {
		if !types[want] {
			t.Errorf("no fixture has a %s entry", want)
		}
	}
	for _, want := range []string{"user", "assistant", "toolResult", "bashExecution", "custom"} {
		if !roles[want] {
			t.Errorf("no fixture has a message of role %s", want)
		}
	}
	for _, v := range []float64{1, 2, 3} {
		if !versions[v] {
			t.Errorf("no fixture is of version %v", v)
		}
	}
	if !toolError || !toolDetails {
		t.Errorf("the fixtures want a tool result with isError (%v) and one with details (%v)", toolError, toolDetails)
	}
	if mostChildren < 3 || mostRoots < 2 || mostEntries < 1000 {
		t.Errorf("the fixtures want an entry with 3 children or more (at most %d), a file with 2 roots or more (%d), one of 1000 entries or more (%d)", mostChildren, mostRoots, mostEntries)
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
