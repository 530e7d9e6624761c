package lab

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strings"
)

// HintsPath is where a lab directory keeps its hints, keyed by exercise id:
// {"N.M": [{"en": "...", "zh": "..."}, ...], ...}. A lab without the file
// has no hints.
const HintsPath = ".meta/hints.json"

// Hint is one nudge towards an exercise, in English and Chinese. ZH may be
// empty, EN may not.
type Hint struct {
	EN string `json:"en"`
	ZH string `json:"zh"`
}

// Hints returns the hints of exercise exID in the order they are meant to
// be shown: none (and no error) when the lab has no hints for it, an
// *UnknownExerciseError for an exercise the lab does not have, and a
// *ManifestError when the hints file is malformed or names an exercise the
// lab does not have.
func (l *Lab) Hints(exID string) ([]Hint, error) {
	if _, err := l.Exercise(exID); err != nil {
		return nil, err
	}
	p := path.Join(l.Slug, HintsPath)
	data, err := fs.ReadFile(l.labsFS, p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, &ManifestError{Path: p, Err: err}
	}
	var all map[string][]Hint
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields() // "eng" for "en" would otherwise show an empty hint
	if err := dec.Decode(&all); err != nil {
		return nil, &ManifestError{Path: p, Err: err}
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, &ManifestError{Path: p, Err: errors.New("data after the top-level object")}
	}
	for id, hints := range all {
		if _, err := l.Exercise(id); err != nil {
			return nil, &ManifestError{Path: p, Err: fmt.Errorf("hints for %q, which is not an exercise of chapter %s", id, l.Chapter)}
		}
		for i, h := range hints {
			if strings.TrimSpace(h.EN) == "" {
				return nil, &ManifestError{Path: p, Err: fmt.Errorf("hint %d of %s has no English text", i+1, id)}
			}
		}
	}
	return all[exID], nil
}
