package similarity

import "go/token"

// fingerprint is a winnowed k-gram: its hash and the index of its first
// token, so that tokens [pos, pos+k) are the code it stands for.
type fingerprint struct {
	hash uint64
	pos  int32
}

// hashBase is the multiplier of the rolling hash: a large odd constant,
// so that every token of a k-gram reaches the high bits.
const hashBase = 0x100000001b3

// kgramHashes returns the hash of every k-gram of kinds, by position: a
// polynomial rolling hash mod 2^64, then mixed, which is one-to-one, so
// that the minimum of a window is not biased towards some token kinds.
// Fewer than k tokens have no k-gram. Linear in len(kinds).
func kgramHashes(kinds []token.Token, k int) []uint64 {
	if len(kinds) < k {
		return nil
	}
	top := uint64(1) // hashBase^(k-1)
	for range k - 1 {
		top *= hashBase
	}
	out := make([]uint64, 0, len(kinds)-k+1)
	var h uint64
	for i, kind := range kinds {
		if i >= k {
			h -= code(kinds[i-k]) * top
		}
		h = h*hashBase + code(kind)
		if i >= k-1 {
			out = append(out, mix(h))
		}
	}
	return out
}

// code is a token kind as a hash digit: never 0, so that a kind counts
// wherever it is.
func code(k token.Token) uint64 { return uint64(k) + 1 }

// mix is splitmix64's finalizer: a bijection that spreads every input bit
// over the output.
func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// winnow selects fingerprints from hashes (Schleimer, Wilkerson and Aiken,
// "Winnowing", 2003): in every window of w consecutive hashes the minimum,
// the rightmost one on ties, each selected position recorded once. Any run
// of at least w+k-1 tokens that two sources share thus gives both a
// fingerprint of the same hash. Fewer than w hashes are one window.
//
// A deque of the window's candidates (increasing hashes, positions in
// order) keeps it linear in len(hashes) whatever w is.
func winnow(hashes []uint64, w int) []fingerprint {
	if len(hashes) == 0 {
		return nil
	}
	w = min(w, len(hashes))
	var out []fingerprint
	deque := make([]int32, 0, 2*w) // positions in the window from head on, hashes strictly increasing
	head := 0
	last := int32(-1)
	for i, h := range hashes {
		// Drop candidates that can no longer be a window's rightmost minimum.
		for len(deque) > head && hashes[deque[len(deque)-1]] >= h {
			deque = deque[:len(deque)-1]
		}
		deque = append(deque, int32(i))
		if int(deque[head]) <= i-w {
			head++
		}
		if i >= w-1 && deque[head] != last {
			last = deque[head]
			out = append(out, fingerprint{hash: hashes[last], pos: last})
		}
		if head >= w { // drop the expired front: the slice stays under 2w
			deque = append(deque[:0], deque[head:]...)
			head = 0
		}
	}
	return out
}
