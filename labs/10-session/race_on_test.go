//go:build race

package session_test

// raceDetector reports whether the tests were built with -race. A test that
// provokes a data race needs one round under the race detector, which
// reports any unsynchronised access it sees; without it, only many rounds
// make the damage of a race likely to show.
const raceDetector = true
