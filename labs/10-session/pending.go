// Given code: the result of an append that may not have happened yet. Do not
// edit this file; the grader replaces it with its own copy.

package session

import "sync"

// Pending is the result of one Append. Append returns it at once; the append
// itself completes later, in its turn. Wait blocks until then and returns the
// append's error (nil when the entry was committed); Done is closed at that
// moment, for use in a select. Both may be called any number of times, from
// any goroutine.
//
// Because Append does not wait, a caller may append a parent and then its
// child without waiting in between: the child's turn comes after the parent
// was committed.
type Pending struct {
	done chan struct{}
	once sync.Once
	err  error
}

// NewPending returns a Pending that is not resolved yet.
func NewPending() *Pending {
	return &Pending{done: make(chan struct{})}
}

// Resolved returns a Pending that has already completed with err. Use it for
// an append rejected at call time (for example, an invalid entry).
func Resolved(err error) *Pending {
	p := NewPending()
	p.Resolve(err)
	return p
}

// Resolve completes p with err and wakes every waiter. Only the first call
// has an effect.
func (p *Pending) Resolve(err error) {
	p.once.Do(func() {
		p.err = err
		close(p.done)
	})
}

// Done returns a channel that is closed once the append has completed.
func (p *Pending) Done() <-chan struct{} { return p.done }

// Wait blocks until the append has completed and returns its error.
func (p *Pending) Wait() error {
	<-p.done
	return p.err
}
