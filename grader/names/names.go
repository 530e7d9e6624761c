// Package names orders the names of people (submissions, students) as a
// person reads a class list: by a language-neutral collation, so that
// "alice", "Bob" and "Zoë" come in that order and "bob2" before "bob10",
// where byte order puts every capital before every small letter ("Zoë"
// before "alice") and an accented letter after them all. Byte order breaks
// the ties, so the order is total and the same on every run.
package names

import (
	"strings"
	"sync"

	"golang.org/x/text/collate"
	"golang.org/x/text/language"
)

// collators: a Collator keeps buffers of its own and is not safe for use
// by several goroutines at once.
var collators = sync.Pool{New: func() any {
	return collate.New(language.Und, collate.Numeric)
}}

// Compare orders a before b (-1), after it (1), or says they are the same
// string (0): by the collation first, then, for names it holds equal (ones
// that differ only in what it ignores), by their bytes.
func Compare(a, b string) int {
	if a == b {
		return 0
	}
	c := collators.Get().(*collate.Collator)
	defer collators.Put(c)
	if r := c.CompareString(a, b); r != 0 {
		return r
	}
	return strings.Compare(a, b)
}
