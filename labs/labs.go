// Package labs holds the course's lab templates, embedded so that the course
// tool carries them wherever it is installed. Each lab directory is what
// `course practice` copies: the given files, the stub, the public tests and
// the handout. Its .meta directory (manifest) and .hidden directory (hidden
// tests) are read by the tool and the grader and never copied.
package labs

import "embed"

// FS holds every lab directory (any directory whose name starts with a
// digit: NN-slug), and this module's go.mod and go.sum, from which each
// workspace's go.mod and go.sum are made. A new chapter is a new directory;
// nothing here changes.
//
//go:embed go.mod go.sum all:[0-9]*
var FS embed.FS
