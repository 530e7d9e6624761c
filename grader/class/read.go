package class

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/coursekit/course/grader/report"
)

// JSONError is what ReadJSON returns for input that is not a class's
// reports: Entry is the index of the array's entry at fault (-1 for the
// whole input) and Submission its name, when it has one.
type JSONError struct {
	Entry      int
	Submission string
	Err        error
}

func (e *JSONError) Error() string {
	switch {
	case e.Entry < 0:
		return "class JSON: " + e.Err.Error()
	case e.Submission != "":
		return fmt.Sprintf("class JSON, entry %d (%q): %v", e.Entry, visible(e.Submission), e.Err)
	default:
		return fmt.Sprintf("class JSON, entry %d: %v", e.Entry, e.Err)
	}
}

func (e *JSONError) Unwrap() error { return e.Err }

// notGradedEntry is an entry of the class array for a submission that
// could not be graded, as `course grade --json` writes it.
type notGradedEntry struct {
	Submission string `json:"submission"`
	Path       string `json:"path"`
	Error      string `json:"error"`
}

// ReadJSON reads what `course grade --json` writes: for a class, an array
// with a report per graded submission and {"submission", "path", "error"}
// for each one that could not be graded; for one submission, its report
// alone. It returns the reports in the order they come and the
// submissions that could not be graded, name → reason.
//
// Anything else is a *JSONError naming the entry and what is wrong with it:
// no JSON or more than one value, an empty array, an entry that is not an
// object, a field no report has (the file is something else, a Gradescope
// results.json for one), a report without its submission, lab, exercises or
// max_score, a name given twice, negative points, or reports of more than
// one lab.
func ReadJSON(r io.Reader) (reports []*report.Report, notGraded map[string]string, err error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, nil, &JSONError{Entry: -1, Err: err}
	}
	entries, err := splitEntries(data)
	if err != nil {
		return nil, nil, err
	}
	results, err := readEntries(entries)
	if err != nil {
		return nil, nil, err
	}
	notGraded = map[string]string{}
	for _, r := range results {
		if r.Err != nil {
			notGraded[r.Name] = r.Err.Error()
		} else {
			reports = append(reports, r.Report)
		}
	}
	return reports, notGraded, nil
}

// splitEntries splits a class's array, or one report, into its entries.
func splitEntries(data []byte) ([]json.RawMessage, error) {
	whole := func(err error) error { return &JSONError{Entry: -1, Err: err} }
	var entries []json.RawMessage
	switch trimmed := bytes.TrimSpace(data); {
	case len(trimmed) == 0:
		return nil, whole(errors.New("the input is empty"))
	case trimmed[0] == '[':
		if err := decodeOne(trimmed, &entries, false); err != nil {
			return nil, whole(err)
		}
		if len(entries) == 0 {
			return nil, whole(errors.New("the array holds no submission"))
		}
	case trimmed[0] == '{':
		var one json.RawMessage
		if err := decodeOne(trimmed, &one, false); err != nil {
			return nil, whole(err)
		}
		entries = []json.RawMessage{one}
	default:
		return nil, whole(errors.New("neither an array of reports nor a report: it starts with " + quoteStart(trimmed)))
	}
	return entries, nil
}

// readEntries reads the entries of a class's reports, in their order: a
// report each, or {"submission", "path", "error"} for one that could not
// be graded.
func readEntries(entries []json.RawMessage) ([]Result, error) {
	var results []Result
	where := map[string]int{} // name → entry
	lab, labEntry := "", -1
	for i, raw := range entries {
		bad := func(name string, err error) error { return &JSONError{Entry: i, Submission: name, Err: err} }
		var keys map[string]json.RawMessage
		if err := json.Unmarshal(raw, &keys); err != nil || keys == nil {
			return nil, bad("", fmt.Errorf("not an object: %s", quoteStart(raw)))
		}
		var name string
		if s, ok := keys["submission"]; ok {
			if err := json.Unmarshal(s, &name); err != nil {
				return nil, bad("", fmt.Errorf(`"submission" is not a string`))
			}
		}
		if name == "" {
			return nil, bad("", errors.New(`no "submission" name`))
		}
		if j, ok := where[name]; ok {
			return nil, bad(name, fmt.Errorf("the submission's name is also entry %d's", j))
		}
		where[name] = i

		if _, ok := keys["error"]; ok {
			var e notGradedEntry
			if err := decodeOne(raw, &e, true); err != nil {
				return nil, bad(name, fmt.Errorf("a submission that could not be graded: %w", err))
			}
			if strings.TrimSpace(e.Error) == "" {
				return nil, bad(name, errors.New(`"error" is empty: why could it not be graded?`))
			}
			results = append(results, Result{Name: name, Path: e.Path, Err: errors.New(e.Error)})
			continue
		}

		for _, k := range []string{"lab", "exercises", "max_score", "score"} {
			if _, ok := keys[k]; !ok {
				return nil, bad(name, fmt.Errorf("no %q: not a report of `course grade --json`", k))
			}
		}
		rep := new(report.Report)
		if err := decodeOne(raw, rep, true); err != nil {
			return nil, bad(name, err)
		}
		if err := checkReport(rep); err != nil {
			return nil, bad(name, err)
		}
		if labEntry < 0 {
			lab, labEntry = rep.Lab, i
		} else if rep.Lab != lab {
			return nil, bad(name, fmt.Errorf("graded against lab %q, entry %d against lab %q: one class is one lab", visible(rep.Lab), labEntry, visible(lab)))
		}
		results = append(results, Result{Name: name, Path: rep.Path, Report: rep})
	}
	return results, nil
}

// decodeOne decodes data, which must hold exactly one JSON value, into v;
// strict refuses fields v does not have.
func decodeOne(data []byte, v any, strict bool) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	if strict {
		dec.DisallowUnknownFields()
	}
	if err := dec.Decode(v); err != nil {
		var syn *json.SyntaxError
		if errors.As(err, &syn) {
			return fmt.Errorf("not valid JSON at byte %d: %w", syn.Offset, err)
		}
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return errors.New("the JSON ends too early: the file is cut short")
		}
		return err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return errors.New("more JSON follows the first value")
	}
	return nil
}

// checkReport refuses a report whose numbers or exercises no grader writes.
func checkReport(r *report.Report) error {
	switch {
	case r.Lab == "":
		return errors.New(`"lab" is empty`)
	case r.MaxScore < 0:
		return fmt.Errorf("max_score %d is negative", r.MaxScore)
	case r.Score < 0:
		return fmt.Errorf("score %s is negative", report.FormatPoints(r.Score))
	case r.Seconds < 0:
		return fmt.Errorf("seconds %v is negative", r.Seconds)
	}
	ids := map[string]bool{}
	for j, ex := range r.Exercises {
		switch {
		case ex.ID == "":
			return fmt.Errorf("exercise %d has no id", j)
		case ids[ex.ID]:
			return fmt.Errorf("exercise %q comes twice", visible(ex.ID))
		case ex.Points < 0 || ex.MaxPoints < 0:
			return fmt.Errorf("exercise %s has negative points", visible(ex.ID))
		}
		ids[ex.ID] = true
		for k, t := range ex.Tests {
			if t.Name == "" || t.Status == "" {
				return fmt.Errorf("exercise %s: test %d has no name or no status", visible(ex.ID), k)
			}
		}
	}
	return nil
}

// quoteStart quotes the first few bytes of data, for an error message.
func quoteStart(data []byte) string {
	const n = 20
	if len(data) > n {
		return fmt.Sprintf("%q…", data[:n])
	}
	return fmt.Sprintf("%q", data)
}
