package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	agentstore "github.com/coursekit/course/labs/11-agentstore"
)

// options are a store's options with a clock and ids that are the same on
// every run; prefix keeps two stores' ids apart.
func options(path, prefix string) agentstore.Options {
	at := time.Date(2026, 3, 14, 9, 26, 53, 0, time.UTC)
	n := 0
	return agentstore.Options{
		FS: agentstore.OSFileSystem{}, Path: path, Cwd: "/work",
		Now:          func() time.Time { at = at.Add(time.Second); return at },
		NewEntryID:   func() string { n++; return fmt.Sprintf("%s%d", prefix, n) },
		NewSessionID: func() string { return "s-test" },
		Summarize:    agentstore.SimpleSummary,
	}
}

func text(role, s string) agentstore.Message {
	m, _ := json.Marshal(map[string]any{"role": role, "content": []map[string]string{{"type": "text", "text": s}}, "timestamp": 1})
	return m
}

// needStore skips t, saying which exercise to finish, unless the store of
// this workspace does what the page needs.
func needStore(t *testing.T) {
	t.Helper()
	s, err := agentstore.Open(options(filepath.Join(t.TempDir(), "probe.jsonl"), "p"))
	if err == nil {
		_, err = s.AppendMessage(text("user", "probe"))
	}
	if err == nil && (len(s.PathToLeaf()) != 1 || len(s.BuildContext()) != 1) {
		err = errors.New("PathToLeaf and BuildContext (exercise 11.3) are not written yet")
	}
	if err == nil {
		err = s.SwitchLeaf(s.Leaf())
	}
	if err == nil {
		_, err = s.CompactIfNeeded(0, 1)
	}
	if err != nil {
		t.Skipf("the page's tests need a store that works up to exercise 11.5: %v", err)
	}
}

// session writes, through the store, a session with a branch and a
// compaction:
//
//	e1 user ── e2 assistant ─┬─ e3 user ── e4 assistant
//	                         └─ e5 user ── e6 assistant ── e7 compaction (keeps from e5) ← leaf
func session(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "session.jsonl")
	s, err := agentstore.Open(options(path, "e"))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []agentstore.Message{text("user", "write a poem"), text("assistant", "Roses are red"), text("user", "shorter"), text("assistant", "Red.")} {
		if _, err := s.AppendMessage(m); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.SwitchLeaf("e2"); err != nil {
		t.Fatal(err)
	}
	for _, m := range []agentstore.Message{text("user", "longer"), text("assistant", "Roses are red, violets are blue")} {
		if _, err := s.AppendMessage(m); err != nil {
			t.Fatal(err)
		}
	}
	if id, err := s.CompactIfNeeded(0, 2); err != nil || id != "e7" {
		t.Fatalf("CompactIfNeeded: %q, %v; want e7", id, err)
	}
	return path
}

func serverFor(t *testing.T, path string) *httptest.Server {
	t.Helper()
	s, err := newServer(path)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s.handler())
	t.Cleanup(ts.Close)
	return ts
}

// noRedirect is a client that shows a redirect instead of following it.
var noRedirect = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := noRedirect.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(body)
}

func state(t *testing.T, ts *httptest.Server) stateJSON {
	t.Helper()
	code, body := get(t, ts.URL+"/api/state")
	var s stateJSON
	if err := json.Unmarshal([]byte(body), &s); code != http.StatusOK || err != nil {
		t.Fatalf("GET /api/state: %d %v\n%.500s", code, err, body)
	}
	return s
}

func post(t *testing.T, ts *httptest.Server, contentType, body string, header ...string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, ts.URL+"/api/branch", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", contentType)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := noRedirect.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// TestLayoutDrawsBranches: a chain stays in its column, a fork gives each
// child its own line of descent, starting with ├─ (└─ for the last), a
// number of its own and which of the fork's branches it is; several roots
// are branches too.
func TestLayoutDrawsBranches(t *testing.T) {
	ids := []string{"a", "b", "c", "d", "e", "f", "g", "r"}
	parents := map[string]string{"b": "a", "c": "b", "d": "c", "e": "b", "f": "e", "g": "b"}
	got := layout(ids, parents)
	want := []placed{
		{"a", "├─ ", 1, "1/2"}, {"b", "│  ", 1, ""},
		{"c", "│  ├─ ", 3, "1/3"}, {"d", "│  │  ", 3, ""},
		{"e", "│  ├─ ", 4, "2/3"}, {"f", "│  │  ", 4, ""},
		{"g", "│  └─ ", 5, "3/3"},
		{"r", "└─ ", 2, "2/2"},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("layout:\n got %q\nwant %q", got, want)
	}
	if got := layout([]string{"x", "y"}, map[string]string{"y": "x"}); fmt.Sprint(got) != fmt.Sprint([]placed{{"x", "", 0, ""}, {"y", "", 0, ""}}) {
		t.Errorf("one chain: %q", got)
	}
	if c := (row{Graph: "│  ├─    └─ ", Branch: 8}).Cells(); fmt.Sprint(c) != "[{pipe 0} {tee 2} {blank 0} {elbow 2}]" {
		t.Errorf("Cells: %v", c)
	}
}

// TestPageDrawsTheTree: every entry is a row, in the tree's order, the
// leaf and its branch marked, the compaction with what it keeps.
func TestPageDrawsTheTree(t *testing.T) {
	needStore(t)
	ts := serverFor(t, session(t))
	code, page := get(t, ts.URL+"/")
	if code != http.StatusOK {
		t.Fatalf("GET /: %d\n%s", code, page)
	}
	last := -1
	for _, id := range []string{"e1", "e2", "e3", "e4", "e5", "e6", "e7"} {
		at := strings.Index(page, `id="e-`+id+`"`)
		if at < last {
			t.Errorf("row %s is missing or out of the tree's order", id)
		}
		last = at
	}
	for _, want := range []string{`class="row k-compaction on-path leaf"`, `keeps from <code>e5</code>`, `class="row k-user on-path summarized"`,
		`class="g tee h1"`, `class="g elbow h2"`, `class="fork h1"`, `>1/2</span>`, `>2/2</span>`, `class="dot h2"`, `name="id" value="e3"`,
		`◀ leaf`, `id="context-size">3 messages`} {
		if !strings.Contains(page, want) {
			t.Errorf("the page does not have %q", want)
		}
	}
	if strings.Contains(page, `class="notice"`) {
		t.Errorf("a finished store gets a notice:\n%s", page)
	}
	// The settings are SessionContext's, the optional 11.7: the page shows
	// them, or says that they wait for it.
	if !strings.Contains(page, `id="settings">model (an assistant message that names none), thinking off`) &&
		!strings.Contains(page, `id="settings">model and thinking level: SessionContext, the optional exercise 11.7`) {
		t.Errorf("the page does not show the settings of SessionContext, nor that they wait for 11.7")
	}
}

// TestBranchSwitchesTheLeaf: POST /api/branch calls SwitchLeaf, from a form
// (a redirect to the page) or JSON (the new state); an unknown id changes
// nothing; the file is never written.
func TestBranchSwitchesTheLeaf(t *testing.T) {
	needStore(t)
	path := session(t)
	before, _ := os.ReadFile(path)
	ts := serverFor(t, path)

	resp, _ := post(t, ts, "application/x-www-form-urlencoded", url.Values{"id": {"e4"}}.Encode())
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/#e-e4" {
		t.Fatalf("form POST: %d to %q, want 303 to /#e-e4", resp.StatusCode, resp.Header.Get("Location"))
	}
	s := state(t, ts)
	if s.Leaf != "e4" || fmt.Sprint(s.Path) != "[e1 e2 e3 e4]" || len(s.Context) != 4 || !strings.Contains(string(s.Context[3]), "Red.") {
		t.Errorf("after the switch: leaf %s, path %v, context %s", s.Leaf, s.Path, s.Context)
	}

	resp, body := post(t, ts, "application/json", `{"id":"e7"}`)
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, `"leaf":"e7"`) || !strings.Contains(body, `"compactionSummary"`) {
		t.Errorf("JSON POST: %d %s", resp.StatusCode, body)
	}
	resp, body = post(t, ts, "application/json", `{"leafId":"nope"}`)
	if resp.StatusCode != http.StatusNotFound || !strings.Contains(body, "nope") || state(t, ts).Leaf != "e7" {
		t.Errorf("an unknown id: %d %s, leaf %s; want 404 and the leaf where it was", resp.StatusCode, body, state(t, ts).Leaf)
	}
	resp, _ = post(t, ts, "application/x-www-form-urlencoded", "id=nope")
	if loc := resp.Header.Get("Location"); resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(loc, "/?flash=") {
		t.Errorf("a form with an unknown id: %d to %q, want the page with the error", resp.StatusCode, loc)
	}
	if resp, _ := post(t, ts, "application/x-www-form-urlencoded", "id=e1", "Sec-Fetch-Site", "cross-site"); resp.StatusCode != http.StatusForbidden {
		t.Errorf("a cross-site POST: %d, want 403", resp.StatusCode)
	}
	if code, _ := get(t, ts.URL+"/api/branch"); code != http.StatusMethodNotAllowed {
		t.Errorf("GET /api/branch: %d, want 405", code)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
		t.Error("the page wrote to the session file")
	}
	if _, err := os.Stat(agentstore.TempPath(path)); err == nil {
		t.Error("the page left a temporary file")
	}
}

// TestPageFollowsTheFile: once another writer (the agent) appends, the page
// opens the file again, on its new last entry.
func TestPageFollowsTheFile(t *testing.T) {
	needStore(t)
	path := session(t)
	ts := serverFor(t, path)
	first := state(t, ts)
	w, err := agentstore.Open(options(path, "w"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.AppendMessage(text("user", "one more")); err != nil {
		t.Fatal(err)
	}
	s := state(t, ts)
	if s.Leaf != "w1" || s.Entries != first.Entries+1 || s.Version == first.Version {
		t.Errorf("after an append: leaf %s, %d entries, version %s (was %s): want w1, %d", s.Leaf, s.Entries, s.Version, first.Version, first.Entries+1)
	}
}

// TestTextIsEscaped: what a session holds is shown as text, never run.
func TestTextIsEscaped(t *testing.T) {
	needStore(t)
	path := filepath.Join(t.TempDir(), "session.jsonl")
	s, err := agentstore.Open(options(path, "e"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.AppendMessage(text("user", `<script>alert("x")</script><img src=x onerror=alert(1)>`)); err != nil {
		t.Fatal(err)
	}
	_, page := get(t, serverFor(t, path).URL+"/")
	if strings.Contains(page, "<script>alert") || strings.Contains(page, "<img src=x") || !strings.Contains(page, "&lt;script&gt;alert") {
		t.Errorf("the message is not escaped:\n%s", page)
	}
}

// TestNoSessionYet: without a file the page says what to run, and writes
// none; once the agent wrote one, the page shows it.
func TestNoSessionYet(t *testing.T) {
	needStore(t)
	path := filepath.Join(t.TempDir(), "session.jsonl")
	ts := serverFor(t, path)
	if _, page := get(t, ts.URL+"/"); !strings.Contains(page, "go run ./cmd/agent") {
		t.Errorf("the page without a session does not say what to run:\n%s", page)
	}
	if _, err := os.Stat(path); err == nil {
		t.Fatal("the page made a session file")
	}
	s, err := agentstore.Open(options(path, "e"))
	if err == nil {
		_, err = s.AppendMessage(text("user", "hello"))
	}
	if err != nil {
		t.Fatal(err)
	}
	if st := state(t, ts); st.Leaf != "e1" || st.NotReady != "" {
		t.Errorf("after the agent wrote: %+v", st)
	}
}

// TestPisLongSession: a session pi wrote, of more than a thousand entries.
func TestPisLongSession(t *testing.T) {
	needStore(t)
	path := filepath.Join("..", "..", "testdata", "pi", "long.jsonl")
	ts := serverFor(t, path)
	code, page := get(t, ts.URL+"/")
	if code != http.StatusOK || strings.Count(page, `<div class="row `) != 1074 {
		t.Errorf("GET / of pi's long session: %d, %d rows, want 1074", code, strings.Count(page, `<div class="row `))
	}
	if s := state(t, ts); s.Entries != 1074 || s.Error != "" || len(s.Notices) > 0 {
		t.Errorf("pi's long session: %d entries, error %q, notices %v", s.Entries, s.Error, s.Notices)
	}
}

// TestAssetsAreEmbedded: the page's style and script come from the
// command itself, nothing from the network.
func TestAssetsAreEmbedded(t *testing.T) {
	ts := serverFor(t, filepath.Join(t.TempDir(), "none.jsonl"))
	for name, want := range map[string]string{"/static/style.css": "text/css", "/static/app.js": "javascript"} {
		resp, err := http.Get(ts.URL + name)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || !strings.Contains(resp.Header.Get("Content-Type"), want) {
			t.Errorf("GET %s: %d %s", name, resp.StatusCode, resp.Header.Get("Content-Type"))
		}
	}
	_, page := get(t, ts.URL+"/")
	if strings.Contains(page, "http://") || strings.Contains(page, "https://") {
		t.Error("the page links to the network")
	}
}

// TestRequestsAtOnce: the page, the state and switches at the same time,
// as a browser and an agent's UI make them (run with -race).
func TestRequestsAtOnce(t *testing.T) {
	needStore(t)
	ts := serverFor(t, session(t))
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			id := []string{"e4", "e7"}[i%2]
			req, _ := http.NewRequest(http.MethodPost, ts.URL+"/api/branch", strings.NewReader(`{"id":"`+id+`"}`))
			req.Header.Set("Content-Type", "application/json")
			for _, r := range []*http.Request{req, mustGet(ts.URL + "/"), mustGet(ts.URL + "/api/state")} {
				if resp, err := http.DefaultClient.Do(r); err == nil {
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
			}
		}(i)
	}
	wg.Wait()
	if leaf := state(t, ts).Leaf; leaf != "e4" && leaf != "e7" {
		t.Errorf("the leaf is %q after the switches", leaf)
	}
}

func mustGet(u string) *http.Request {
	r, err := http.NewRequest(http.MethodGet, u, nil)
	if err != nil {
		panic(err)
	}
	return r
}
