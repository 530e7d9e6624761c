//go:build !unix

package lab

// Windows has neither flag; Lstat before opening is all it gets.
const (
	openNoFollow = 0
	openNonBlock = 0
)
