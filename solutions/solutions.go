// Package solutions holds the course's reference implementations, embedded
// so that the grader and `course selfcheck` can use them. Each lab directory
// holds the file(s) a student edits, solved; a solution is a drop-in
// replacement in a fresh workspace, not a package of its own, so this module
// exists only to keep it out of the root module's build.
package solutions

import "embed"

// FS holds every solution directory.
//
//go:embed all:10-session all:11-agentstore
var FS embed.FS
