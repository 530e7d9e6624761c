package main

import (
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"mime"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"strings"
	"sync"

	agentstore "github.com/coursekit/course/labs/11-agentstore"
)

//go:embed page.html static
var assets embed.FS

// snapshot is the FileSystem the page opens the store over: one reading of
// the session file, and no write of any kind. The page shows a session; it
// never changes one.
type snapshot struct {
	path string
	data []byte
}

// errReadOnly is what the store gets if it tries to write.
var errReadOnly = errors.New("sessionui opens the store read-only: it writes nothing")

func (s snapshot) ReadFile(path string) ([]byte, error) {
	if path != s.path {
		return nil, &fs.PathError{Op: "read", Path: path, Err: fs.ErrNotExist}
	}
	return append([]byte(nil), s.data...), nil
}

func (snapshot) AppendFile(string, []byte) error { return errReadOnly }
func (snapshot) WriteFile(string, []byte) error  { return errReadOnly }
func (snapshot) Rename(string, string) error     { return errReadOnly }
func (snapshot) Remove(string) error             { return errReadOnly }

// server serves the page of one session file, through the student's store.
type server struct {
	path string
	tmpl *template.Template

	mu    sync.Mutex // guards what follows: a request sees one store
	data  []byte     // the file as the store was opened on it
	store *agentstore.Store
	lines []line
}

func newServer(path string) (*server, error) {
	tmpl, err := template.New("page.html").Funcs(template.FuncMap{"short": func(id string) string { return clip(id, 12) }}).
		ParseFS(assets, "page.html")
	if err != nil {
		return nil, err
	}
	return &server{path: path, tmpl: tmpl}, nil
}

// snap is the session as one request sees it: a store opened on one
// reading of the file, and that reading's entry lines.
type snap struct {
	store *agentstore.Store
	lines []line
	size  int
}

// current returns the store over the session file as it is now: the same
// store while the file is unchanged (so that a switched leaf stays), a new
// one, on the file's last entry, once it has changed (the agent appended).
// Its store is nil when there is no session yet.
func (s *server) current() (snap, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	data, err := os.ReadFile(s.path)
	if errors.Is(err, fs.ErrNotExist) || err == nil && len(data) == 0 {
		s.store, s.data, s.lines = nil, nil, nil
		return snap{}, nil
	}
	if err != nil {
		return snap{}, err
	}
	if s.store == nil || string(data) != string(s.data) {
		opts := agentstore.OSOptions(s.path, ".")
		opts.FS = snapshot{s.path, data}
		st, err := agentstore.Open(opts)
		if err != nil {
			return snap{}, openError(s.path, err)
		}
		s.store, s.data, s.lines = st, data, entryLines(data)
	}
	return snap{s.store, s.lines, len(s.data)}, nil
}

// notYet finds the exercise a stub's error names ("Lab 11.4: SwitchLeaf:
// not implemented").
var notYet = regexp.MustCompile(`Lab (\d+\.\d+)`)

// hint says which exercise to finish when err is a stub's.
func hint(err error) string {
	m := notYet.FindStringSubmatch(err.Error())
	if m == nil || !errors.Is(err, agentstore.ErrNotImplemented) {
		return ""
	}
	return fmt.Sprintf("finish exercise %s first (go test -run Lab%s)", m[1], strings.ReplaceAll(m[1], ".", "_"))
}

// openError says why the store does not open the file.
func openError(path string, err error) error {
	if h := hint(err); h != "" {
		return fmt.Errorf("your store cannot open %s yet: %w; %s", path, err, h)
	}
	if errors.Is(err, errReadOnly) {
		return fmt.Errorf("your store's Open tried to write to %s, which exists (rule 11.1.2: an existing file is only read): %w", path, err)
	}
	return fmt.Errorf("your store refuses %s: %w", path, err)
}

// handler routes the page, its state as JSON, the switch and the assets.
func (s *server) handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", s.page)
	mux.HandleFunc("GET /api/state", s.state)
	mux.HandleFunc("POST /api/branch", s.branch)
	static, _ := fs.Sub(assets, "static") // a directory of the embedded assets
	mux.Handle("GET /static/", http.StripPrefix("/static/", http.FileServerFS(static)))
	return mux
}

// viewNow builds the view of the session as it is now.
func (s *server) viewNow() (view, snap, error) {
	sn, err := s.current()
	if err != nil {
		return view{Path: s.path}, sn, err
	}
	if sn.store == nil {
		return view{Path: s.path, NoSession: "No session in " + s.path + " yet: run go run ./cmd/agent, and this page shows it."}, sn, nil
	}
	v := build(sn.store, sn.lines)
	v.Path = s.path
	v.Version = fmt.Sprintf("%d:%s", sn.size, v.Leaf)
	return v, sn, nil
}

func (s *server) page(w http.ResponseWriter, r *http.Request) {
	v, _, err := s.viewNow()
	if err != nil {
		v.Flash = err.Error()
	}
	if f := r.URL.Query().Get("flash"); f != "" {
		v.Flash = f
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:")
	if err := s.tmpl.Execute(w, v); err != nil {
		fmt.Fprintf(os.Stderr, "sessionui: the page: %v\n", err) // the headers are gone: say it here
	}
}

// stateJSON is the session as GET /api/state gives it.
type stateJSON struct {
	Version  string            `json:"version"`
	Session  string            `json:"session"`
	Leaf     string            `json:"leaf"`
	Path     []string          `json:"path"`
	Context  []json.RawMessage `json:"context"`
	Tokens   int               `json:"tokens"`
	Entries  int               `json:"entries"`
	Notices  []string          `json:"notices"`
	Error    string            `json:"error,omitempty"`
	NotReady string            `json:"notReady,omitempty"`
}

func (s *server) stateOf() stateJSON {
	v, sn, err := s.viewNow()
	out := stateJSON{Version: v.Version, Session: v.Header.ID, Leaf: v.Leaf, Tokens: v.Tokens, Entries: len(v.Rows), NotReady: v.NoSession}
	if err != nil {
		out.Error = err.Error()
		return out
	}
	if sn.store != nil {
		for _, e := range sn.store.PathToLeaf() {
			out.Path = append(out.Path, e.ID)
		}
		for _, m := range sn.store.BuildContext() {
			out.Context = append(out.Context, json.RawMessage(m))
		}
	}
	for _, n := range v.Notices {
		out.Notices = append(out.Notices, n.Exercise+": "+n.Text)
	}
	return out
}

func (s *server) state(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, s.stateOf())
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v) // the client went away
}

// crossSite reports whether r comes from another site's page: a browser
// says so, and such a request may not move the leaf.
func crossSite(r *http.Request) bool {
	switch r.Header.Get("Sec-Fetch-Site") {
	case "", "same-origin", "none":
		return false
	}
	return true
}

// branch is POST /api/branch: SwitchLeaf to the entry the form's or the
// JSON's "id" names (the chapter's endpoint). A form gets the page back
// (a redirect to it), JSON gets the new state.
func (s *server) branch(w http.ResponseWriter, r *http.Request) {
	isJSON := strings.HasPrefix(r.Header.Get("Content-Type"), "application/json")
	if crossSite(r) {
		http.Error(w, "sessionui: a request from another site may not move the leaf", http.StatusForbidden)
		return
	}
	id, code, err := s.switchLeaf(w, r, isJSON)
	switch {
	case isJSON && err != nil:
		writeJSON(w, code, map[string]string{"error": err.Error()})
	case isJSON:
		writeJSON(w, http.StatusOK, s.stateOf())
	case err != nil:
		http.Redirect(w, r, "/?flash="+url.QueryEscape(err.Error()), http.StatusSeeOther)
	default:
		http.Redirect(w, r, "/#e-"+url.PathEscape(id), http.StatusSeeOther)
	}
}

// switchLeaf reads the id and switches the leaf to it.
func (s *server) switchLeaf(w http.ResponseWriter, r *http.Request, isJSON bool) (string, int, error) {
	var id string
	if isJSON {
		var body struct {
			ID     string `json:"id"`
			LeafID string `json:"leafId"`
		}
		if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<16)).Decode(&body); err != nil {
			return "", http.StatusBadRequest, fmt.Errorf("the body is not JSON with an id: %w", err)
		}
		id = body.ID + body.LeafID
	} else {
		if ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); ct != "application/x-www-form-urlencoded" && ct != "multipart/form-data" {
			return "", http.StatusUnsupportedMediaType, fmt.Errorf("send a form or JSON with the entry's id")
		}
		id = r.FormValue("id")
	}
	sn, err := s.current()
	if err != nil {
		return id, http.StatusConflict, err
	}
	if sn.store == nil {
		return id, http.StatusConflict, errors.New("there is no session yet")
	}
	if err := sn.store.SwitchLeaf(id); err != nil {
		var unknown *agentstore.UnknownEntryError
		switch {
		case hint(err) != "":
			return id, http.StatusNotImplemented, fmt.Errorf("SwitchLeaf(%q): %w; %s", id, err, hint(err))
		case errors.As(err, &unknown):
			return id, http.StatusNotFound, fmt.Errorf("SwitchLeaf(%q): %w", id, err)
		}
		return id, http.StatusInternalServerError, fmt.Errorf("SwitchLeaf(%q): %w", id, err)
	}
	return id, http.StatusOK, nil
}
