// Package similarity finds code that submissions of a class share, as MOSS
// and JPlag do: it owns the tokenizing, fingerprinting, indexing, scoring
// and the report page of `course similar`. Reading submissions is the
// grader's (grader.ReadSubmission); this package takes their sources.
//
// A source is read with go/scanner into tokens, comments dropped: every
// identifier is one token, every literal its kind (int, float, imaginary,
// char, string), keywords and operators themselves; separators that only
// layout decides (a semicolon before a closing brace, a trailing comma)
// are dropped. Renaming variables, editing comments or reformatting thus
// changes nothing.
//
// Every k-gram of tokens is hashed, and winnowing (Schleimer, Wilkerson
// and Aiken 2003) keeps the minimum hash of each window of w consecutive
// ones, the rightmost on ties: the source's fingerprints, each with its
// position, so that a match can be marked in the source. Two sources that
// share a run of w+k-1 tokens share a fingerprint; a run shorter than k
// tokens is never seen.
//
// The stub, the file students start from, is in every submission: every
// fingerprint whose hash is that of one of the stub's k-grams is dropped,
// and a token that one of them covers is not the student's own, and does
// not count.
//
// An inverted index lists, for every fingerprint, the submissions that
// have it. Pairs are found through it only, never by comparing all pairs;
// a fingerprint that more than CommonLimit submissions have (a share of the
// class, as MOSS's -m) is common code, a way of writing the exercise that
// many found: like the stub's code, it counts neither for a pair nor
// against it.
//
// The score of a pair A, B is JPlag's, over the tokens that shared
// fingerprints cover:
//
//	score = (matched(A) + matched(B)) / (counted(A) + counted(B))
//
// where counted(X) counts X's tokens that are neither the stub's nor
// covered by a common fingerprint, and matched(X) those of them inside
// some k-gram of X whose fingerprint the other file has too. It is 0 for
// nothing shared and 1 for the same tokens; a copy disguised by renaming,
// recommenting, reformatting and reordering declarations keeps nearly all
// of it. Regions turns the shared fingerprints into line ranges of both
// files.
//
// Everything is linear in the size of the input but the pair scoring,
// which takes, for each fingerprint that is not common, the pairs of
// submissions that have it: at most CommonLimit steps per fingerprint.
package similarity
