// Package solutions holds the course's reference implementations, embedded
// so that the grader and `course selfcheck` can use them. Each lab directory
// holds the file(s) a student edits, solved; a solution is a drop-in
// replacement in a fresh workspace, not a package of its own, so this module
// exists only to keep it out of the root module's build.
package solutions

import "embed"

// FS holds every solution directory (NN-slug, as in the labs module).
//
//go:embed all:[0-9]*
var FS embed.FS
