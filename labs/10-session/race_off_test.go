//go:build !race

package session_test

// raceDetector reports whether the tests were built with -race (see
// race_on_test.go).
const raceDetector = false
