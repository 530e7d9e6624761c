package class

import "strconv"

// Whole is what a gradebook says of the whole class after a regrade
// (course grade --update) replaced some of its rows: a summary of the
// submissions graded in the run covers only those, and Whole the table
// they were graded into, earlier rows included.
type Whole struct {
	// File is the gradebook's name, as the command line gave it.
	File string
	// Rows counts its rows; Scored those with a score (not a submission
	// that could not be graded, nor a roster's student who handed nothing
	// in); FullMarks those whose score is their maximum.
	Rows, Scored, FullMarks int
	// Regraded counts the submissions graded in this run.
	Regraded int
	// MaxScore is the maximum score of the scored rows; -1 when they
	// differ (rows graded with other --lab or --bonus flags).
	MaxScore int
	// Score is over the scored rows' scores.
	Score Stats
}

// Whole sums up the gradebook's scores, regraded of its rows graded in
// this run, as a Whole named file.
func (g *Gradebook) Whole(file string, regraded int) Whole {
	w := Whole{File: file, Rows: len(g.Rows), Regraded: regraded}
	scoreCol, maxCol := g.column("score"), g.column("max_score")
	var scores []float64
	for _, row := range g.Rows {
		if scoreCol < 0 || maxCol < 0 || scoreCol >= len(row) || maxCol >= len(row) {
			continue
		}
		score, err1 := strconv.ParseFloat(row[scoreCol], 64)
		maxScore, err2 := strconv.Atoi(row[maxCol])
		if err1 != nil || err2 != nil {
			continue
		}
		switch {
		case len(scores) == 0:
			w.MaxScore = maxScore
		case maxScore != w.MaxScore:
			w.MaxScore = -1
		}
		scores = append(scores, score)
		if score >= float64(maxScore) {
			w.FullMarks++
		}
	}
	w.Scored = len(scores)
	w.Score = stats(scores)
	return w
}
