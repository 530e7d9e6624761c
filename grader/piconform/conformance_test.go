package piconform

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coursekit/course/grader/lab"
	"github.com/coursekit/course/labs"
)

// fixture is one session file pi wrote, with what pi says of it.
type fixture struct {
	name    string // "tools" for tools.jsonl
	session []byte
	pi      piSession
}

// fixtures reads the lab's pi fixtures: every NAME.context.json of
// testdata/pi and its NAME.jsonl.
func fixtures(t *testing.T, l *lab.Lab) []fixture {
	t.Helper()
	dir := path.Join(l.Slug, fixturesDir)
	names, err := fs.Glob(labs.FS, path.Join(dir, "*.context.json"))
	if err != nil || len(names) == 0 {
		t.Fatalf("no pi fixtures in labs/%s (%v)", dir, err)
	}
	var out []fixture
	for _, n := range names {
		f := fixture{name: strings.TrimSuffix(path.Base(n), ".context.json")}
		data, err := fs.ReadFile(labs.FS, n)
		if err == nil {
			err = json.Unmarshal(data, &f.pi)
		}
		if err != nil {
			t.Fatalf("labs/%s: %v", n, err)
		}
		if f.pi.Session != f.name+".jsonl" {
			t.Fatalf("labs/%s is about %q, want %s.jsonl", n, f.pi.Session, f.name)
		}
		if f.session, err = fs.ReadFile(labs.FS, path.Join(dir, f.pi.Session)); err != nil {
			t.Fatalf("labs/%s: %v", dir, err)
		}
		out = append(out, f)
	}
	return out
}

// leafIDs are the ids of pi's leaves of s.
func leafIDs(s piSession) []string {
	ids := make([]string, len(s.Leaves))
	for i, l := range s.Leaves {
		ids[i] = l.Leaf
	}
	return ids
}

// TestLabBuildsPisContextAtEveryLeaf opens every file pi wrote with the
// reference solution and every alternative, builds the context at every
// leaf, and compares it with the context pi built there: the same
// messages, or a difference of the known list.
func TestLabBuildsPisContextAtEveryLeaf(t *testing.T) {
	l := theLab(t)
	fx := fixtures(t, l)
	for _, c := range candidates(t, l) {
		t.Run(c.name, func(t *testing.T) {
			d := driverFor(t, l, c)
			var req driverRequest
			for _, f := range fx {
				p := path.Join(fixturesDir, f.pi.Session) // the driver runs in the workspace
				req.Open = append(req.Open, openRequest{Path: p, Leaves: leavesToAsk(f.pi, f.session)})
			}
			resp := d.do(t, req)
			var outcomes []outcome
			for i, f := range fx {
				outcomes = append(outcomes, compareFile(f.pi.Session, f.pi, resp.Open[i], f.session)...)
			}
			report(t, c.name, outcomes)
			checkKnown(t, outcomes, known)
		})
	}
}

// TestKnownDifferencesAreDeliberate: the known list holds only the lab's
// own rules, never a gap: a gap the lab's exercises close must not come
// back unnoticed.
func TestKnownDifferencesAreDeliberate(t *testing.T) {
	for _, k := range known {
		for _, d := range k.Is {
			if !d.Deliberate() {
				t.Errorf("%s %q: %v is a gap, not one of the lab's rules: the reference solution and every alternative "+
					"must build pi's context there (rule 11.7)", k.File, k.Leaf, d)
			}
		}
	}
}

// byLab are two messages in pi's shapes that the lab's store appends.
var byLab = []json.RawMessage{
	json.RawMessage(`{"role":"user","content":[{"type":"text","text":"the lab's store wrote this line"}],"timestamp":1775044801500}`),
	json.RawMessage(`{"role":"assistant","content":[{"type":"text","text":"And this one, with a compaction after it."}],"api":"scripted","provider":"course","model":"scripted-1","usage":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"stop","timestamp":1775044803000}`),
}

// written is one file that the lab's store appended to.
type written struct {
	name   string
	before []byte
	path   string
}

// lines counts the lines of b.
func lines(b []byte) int { return bytes.Count(b, []byte("\n")) }

// checkAppended fails t unless the file at w.path is w.before with n more
// lines, and returns its bytes.
func checkAppended(t *testing.T, w written, n int, who string) []byte {
	t.Helper()
	after, err := os.ReadFile(w.path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(after, w.before) {
		t.Errorf("%s: after %s wrote, the old bytes are no longer a prefix of the file", w.name, who)
	}
	if got := lines(after) - lines(w.before); got != n {
		t.Errorf("%s: %s added %d lines, want %d", w.name, who, got, n)
	}
	return after
}

// contextAt returns pi's context at leaf of s.
func contextAt(t *testing.T, s piSession, leaf string) piContext {
	t.Helper()
	for _, l := range s.Leaves {
		if l.Leaf == leaf {
			return l.Context
		}
	}
	t.Fatalf("%s: pi has no leaf %q", s.File, leaf)
	return piContext{}
}

// sameMessages fails t unless pi's and the lab's messages are the same.
func sameMessages(t *testing.T, what string, pi, lab []json.RawMessage) {
	t.Helper()
	if len(pi) != len(lab) {
		t.Errorf("%s: pi's context has %d messages, the lab's %d", what, len(pi), len(lab))
		return
	}
	for i := range pi {
		if !sameJSON(pi[i], lab[i]) {
			t.Errorf("%s: message %d: pi has %s, the lab %s", what, i+1, short(pi[i]), short(lab[i]))
		}
	}
}

// appendable reports whether the lab's store appends to a fixture: not to
// one of an older version (rule 11.7.5), nor to one it refuses or whose
// last line has no newline (the known differences of a whole file).
func appendable(f fixture) bool {
	if f.pi.Migrated {
		return false
	}
	for _, k := range known {
		if k.File == f.pi.Session && k.Leaf == "" {
			return false
		}
	}
	return true
}

// TestPiReadsWhatTheLabWrites has the lab's store append two messages and
// a compaction to a copy of every file pi wrote that the store opens, and
// pi read it back: the old bytes are a prefix of the new, pi opens on the
// store's leaf, and pi's context there is the store's. Then pi appends an
// exchange of its own, and the store, opening the file again, builds pi's
// context there.
func TestPiReadsWhatTheLabWrites(t *testing.T) {
	p := findPi(t)
	l := theLab(t)
	var sources []fixture
	for _, f := range fixtures(t, l) {
		if appendable(f) {
			sources = append(sources, f)
		}
	}
	for _, c := range candidates(t, l) {
		t.Run(c.name, func(t *testing.T) {
			d := driverFor(t, l, c)
			dir := t.TempDir()
			var files []written
			var req driverRequest
			for _, f := range sources {
				w := written{name: f.name, before: f.session, path: filepath.Join(dir, f.name+".jsonl")}
				if err := os.WriteFile(w.path, f.session, 0o644); err != nil {
					t.Fatal(err)
				}
				files = append(files, w)
				req.Append = append(req.Append, appendRequest{Path: w.path, Messages: byLab, Budget: 0, Keep: 2})
			}
			resp := d.do(t, req)
			labWrote := labAppends(t, files, resp)
			piRead := piReadsBack(t, p, files, labWrote, resp)
			labReadsPi(t, p, d, files, piRead)
		})
	}
}

// labAppends checks what the store wrote and returns each file's bytes.
func labAppends(t *testing.T, files []written, resp driverResponse) [][]byte {
	t.Helper()
	out := make([][]byte, len(files))
	for i, w := range files {
		a := resp.Append[i]
		if a.Failure != nil {
			t.Fatalf("%s: the lab's store: %s", w.name, a.Failure.Error)
		}
		if len(a.IDs) != len(byLab) || a.Compaction == "" || a.Leaf != a.Compaction {
			t.Fatalf("%s: the store appended %v and compacted as %q, leaf %q: want two messages and a compaction, the leaf on it", w.name, a.IDs, a.Compaction, a.Leaf)
		}
		out[i] = checkAppended(t, w, len(byLab)+1, "the lab's store")
	}
	return out
}

// piReadsBack has pi read every file the store wrote and compares.
func piReadsBack(t *testing.T, p *piRunner, files []written, labWrote [][]byte, resp driverResponse) []piSession {
	t.Helper()
	paths := make([]string, len(files))
	for i, w := range files {
		paths[i] = w.path
	}
	got := p.read(t, paths...)
	for i, w := range files {
		if after, _ := os.ReadFile(w.path); !bytes.Equal(after, labWrote[i]) {
			t.Errorf("%s: pi changed the file when it read it", w.name)
		}
		a, s := resp.Append[i], got[i]
		if s.OpenLeaf == nil || *s.OpenLeaf != a.Leaf {
			t.Errorf("%s: pi opens on leaf %v, the lab's store left it on %q", w.name, s.OpenLeaf, a.Leaf)
			continue
		}
		sameMessages(t, w.name+", written by the lab, read by pi", contextAt(t, s, a.Leaf).Messages, a.Messages)
	}
	t.Logf("%d files: the lab appended two messages and a compaction to each; pi opens each on the lab's leaf and builds the lab's context there", len(files))
	return got
}

// labReadsPi has pi append an exchange to every file, and the store open it
// again and build the context at pi's leaf.
func labReadsPi(t *testing.T, p *piRunner, d *driver, files []written, before []piSession) {
	t.Helper()
	paths := make([]string, len(files))
	for i, w := range files {
		paths[i] = w.path
		files[i].before, _ = os.ReadFile(w.path)
	}
	after := p.cont(t, "pi goes on from the lab's compaction", paths...)
	var req driverRequest
	for i, w := range files {
		checkAppended(t, w, 2, "pi")
		s := after[i]
		if s.Entries != before[i].Entries+2 || s.OpenLeaf == nil {
			t.Fatalf("%s: pi went from %d entries to %d (leaf %v), want 2 more", w.name, before[i].Entries, s.Entries, s.OpenLeaf)
		}
		req.Open = append(req.Open, openRequest{Path: w.path, Leaves: []string{*s.OpenLeaf}})
	}
	resp := d.do(t, req)
	for i, w := range files {
		o, s := resp.Open[i], after[i]
		if o.Failure != nil {
			t.Errorf("%s: the lab's store cannot open what pi appended: %s", w.name, o.Failure.Error)
			continue
		}
		if o.Leaf != *s.OpenLeaf {
			t.Errorf("%s: the lab opens on leaf %q, pi appended up to %q", w.name, o.Leaf, *s.OpenLeaf)
		}
		sameMessages(t, w.name+", continued by pi, read by the lab", contextAt(t, s, *s.OpenLeaf).Messages, o.Leaves[0].Messages)
	}
	t.Logf("%d files: pi appended an exchange after the lab's compaction; the lab opens each on pi's leaf and builds pi's context there", len(files))
}

// TestFixturesAreWhatPiWrites runs the script that made the fixtures
// again, with the pinned pi, and finds the same bytes: the fixtures are
// pi's, not edited by hand, and pi's output does not drift.
func TestFixturesAreWhatPiWrites(t *testing.T) {
	p := findPi(t)
	l := theLab(t)
	dir := t.TempDir()
	p.run(t, "write", dir)
	want := map[string][]byte{}
	entries, err := fs.ReadDir(labs.FS, path.Join(l.Slug, fixturesDir))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() != "README.md" {
			want[e.Name()], _ = fs.ReadFile(labs.FS, path.Join(l.Slug, fixturesDir, e.Name()))
		}
	}
	got, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range got {
		data, _ := os.ReadFile(filepath.Join(dir, e.Name()))
		w, ok := want[e.Name()]
		switch {
		case !ok:
			t.Errorf("pi.mjs write makes %s, which labs/%s/%s does not have", e.Name(), l.Slug, fixturesDir)
		case !bytes.Equal(data, w):
			t.Errorf("pi.mjs write makes another %s than labs/%s/%s has: write the fixtures again (see the README there)", e.Name(), l.Slug, fixturesDir)
		}
		delete(want, e.Name())
	}
	for n := range want {
		t.Errorf("labs/%s/%s/%s is not what pi.mjs write makes: remove it", l.Slug, fixturesDir, n)
	}
}
