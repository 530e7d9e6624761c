package lab

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"regexp"
	"strings"
)

// HintsPath is where a lab directory keeps its hints: for every exercise,
// the tutor's ladder of four rungs, each in English and Chinese:
//
//	{"N.M": {"locate": {"en": "...", "zh": "..."}, "signature": {...},
//	         "pseudocode": {...}, "local": {...}}, ...}
//
// A lab without the file has no hints.
const HintsPath = ".meta/hints.json"

// Rung is one step of the tutor's ladder a stuck student climbs, in this
// order: first where the problem is, then the signature that answers it,
// then the steps in pseudocode, and last the code of one local step.
type Rung struct {
	// Key is the rung's key in hints.json.
	Key string
	// EN and ZH are its name in English and Chinese.
	EN, ZH string
}

// Rungs are the four rungs of the ladder, in the order they are climbed.
var Rungs = []Rung{
	{Key: "locate", EN: "locate", ZH: "定位"},
	{Key: "signature", EN: "signature", ZH: "签名"},
	{Key: "pseudocode", EN: "pseudocode", ZH: "伪代码"},
	{Key: "local", EN: "local code", ZH: "局部"},
}

// Hint is one rung of an exercise's ladder, in English and Chinese; neither
// may be empty. A hint of the older, unnamed list has the zero Rung.
type Hint struct {
	Rung Rung   `json:"-"`
	EN   string `json:"en"`
	ZH   string `json:"zh"`
}

// funcDecl finds a function declared in a hint: the local rung shows the code
// of one step, never a whole function.
var funcDecl = regexp.MustCompile(`(?m)^\s*func\s*(\([^)]*\)\s*)?[A-Za-z_]\w*\s*\(`)

// Hints returns the ladder of exercise exID, its four rungs in the order
// they are climbed: none (and no error) when the lab has no hints for it,
// an *UnknownExerciseError for an exercise the lab does not have, and a
// *ManifestError when the hints file is malformed: an exercise the lab
// does not have, a rung missing or unknown, a text missing in either
// language, or a local rung that declares a whole function.
func (l *Lab) Hints(exID string) ([]Hint, error) {
	if _, err := l.Exercise(exID); err != nil {
		return nil, err
	}
	all, err := l.allHints()
	if err != nil || all == nil {
		return nil, err
	}
	return all[exID], nil
}

// allHints reads and checks the hints file: nil, and no error, when there
// is none.
func (l *Lab) allHints() (map[string][]Hint, error) {
	p := path.Join(l.Slug, HintsPath)
	data, err := fs.ReadFile(l.labsFS, p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	bad := func(err error) error { return &ManifestError{Path: p, Err: err} }
	if err != nil {
		return nil, bad(err)
	}
	var raw map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&raw); err != nil {
		return nil, bad(err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, bad(errors.New("data after the top-level object"))
	}
	out := map[string][]Hint{}
	for id, v := range raw {
		if _, err := l.Exercise(id); err != nil {
			return nil, bad(fmt.Errorf("hints for %q, which is not an exercise of chapter %s", id, l.Chapter))
		}
		var hints []Hint
		if trimmed := bytes.TrimSpace(v); len(trimmed) > 0 && trimmed[0] == '[' {
			hints, err = legacyHints(id, v)
		} else {
			hints, err = ladder(id, v)
		}
		if err != nil {
			return nil, bad(err)
		}
		out[id] = hints
	}
	return out, nil
}

// strictly decodes data into v, refusing unknown fields: "eng" for "en"
// would otherwise show an empty hint.
func strictly(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

// ladder reads the four rungs of exercise id.
func ladder(id string, data []byte) ([]Hint, error) {
	var rungs map[string]Hint
	if err := strictly(data, &rungs); err != nil {
		return nil, fmt.Errorf("hints of %s: %w", id, err)
	}
	known := map[string]bool{}
	for _, r := range Rungs {
		known[r.Key] = true
	}
	for key := range rungs {
		if !known[key] {
			return nil, fmt.Errorf("%s has a rung %q; the rungs are locate, signature, pseudocode and local", id, key)
		}
	}
	var out []Hint
	for _, r := range Rungs {
		h, ok := rungs[r.Key]
		switch {
		case !ok:
			return nil, fmt.Errorf("%s has no %s rung (%s): every exercise has the four rungs locate, signature, pseudocode and local", id, r.Key, r.ZH)
		case strings.TrimSpace(h.EN) == "":
			return nil, fmt.Errorf("the %s rung of %s has no English text", r.Key, id)
		case strings.TrimSpace(h.ZH) == "":
			return nil, fmt.Errorf("the %s rung of %s has no Chinese text", r.Key, id)
		case r.Key == "local" && (funcDecl.MatchString(h.EN) || funcDecl.MatchString(h.ZH)):
			return nil, fmt.Errorf("the local rung of %s declares a function: it shows the code of one step, never a whole function", id)
		}
		h.Rung = r
		out = append(out, h)
	}
	return out, nil
}

// legacyHints reads the list of unnamed hints that came before the ladder:
// [{"en": "...", "zh": "..."}, ...], zh optional. It is read so that old
// files keep working; the course's own labs use the ladder
// (TestHintsOfTheEmbeddedLabsAreLadders).
func legacyHints(id string, data []byte) ([]Hint, error) {
	var hints []Hint
	if err := strictly(data, &hints); err != nil {
		return nil, fmt.Errorf("hints of %s: %w", id, err)
	}
	for i, h := range hints {
		if strings.TrimSpace(h.EN) == "" {
			return nil, fmt.Errorf("hint %d of %s has no English text", i+1, id)
		}
	}
	return hints, nil
}

// CheckHints reports whether the lab's hints are complete, as the course
// holds its own labs to: a hints file in which every exercise has the four
// rungs of the ladder, each in English and Chinese.
func (l *Lab) CheckHints() error {
	p := path.Join(l.Slug, HintsPath)
	all, err := l.allHints()
	if err != nil {
		return err
	}
	if all == nil {
		return &ManifestError{Path: p, Err: errors.New("no hints: every exercise needs the four rungs locate, signature, pseudocode and local")}
	}
	for _, e := range l.Exercises {
		hints := all[e.ID]
		if len(hints) != len(Rungs) || hints[0].Rung.Key == "" {
			return &ManifestError{Path: p, Err: fmt.Errorf("exercise %s has no ladder: every exercise has the four rungs locate, signature, pseudocode and local", e.ID)}
		}
	}
	return nil
}
