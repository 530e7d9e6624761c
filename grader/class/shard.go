package class

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/fnv"
	"regexp"
	"slices"
	"strconv"
)

// Shard is one of Count parts of a class, Index counted from 1: `course
// grade --shard Index/Count` grades the submissions whose names fall in it.
//
// A submission's part is the FNV-1a hash of its name, modulo Count. It
// depends on that name alone: not on the order the submissions are given
// in, nor on which others a machine sees (a late arrival on one machine
// moves no one else), and hash/fnv's result is the same on every machine
// and Go release. Each name falls in exactly one part of 1..Count, so the
// parts neither overlap nor leave a gap. The price is balance: a part
// holds about 1/Count of a large class, but a small class can leave one
// empty.
type Shard struct {
	Index int `json:"index"`
	Count int `json:"count"`
}

// ErrBadShard is the error of a shard that is not K/N with 1 ≤ K ≤ N.
var ErrBadShard = errors.New("want K/N, part K of N, whole numbers with 1 <= K <= N (such as 2/4)")

var shardSyntax = regexp.MustCompile(`^([0-9]{1,9})/([0-9]{1,9})$`)

// ParseShard reads "K/N".
func ParseShard(s string) (Shard, error) {
	m := shardSyntax.FindStringSubmatch(s)
	if m == nil {
		return Shard{}, ErrBadShard
	}
	k, _ := strconv.Atoi(m[1]) // nine digits at most: no overflow
	n, _ := strconv.Atoi(m[2])
	sh := Shard{Index: k, Count: n}
	if !sh.Valid() {
		return Shard{}, ErrBadShard
	}
	return sh, nil
}

// Valid reports whether 1 ≤ Index ≤ Count.
func (s Shard) Valid() bool { return s.Count >= 1 && s.Index >= 1 && s.Index <= s.Count }

// String is "K/N".
func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }

// Has reports whether the submission named name (as the class's reports
// name it) falls in this part.
func (s Shard) Has(name string) bool {
	h := fnv.New64a()
	h.Write([]byte(name))
	return h.Sum64()%uint64(s.Count) == uint64(s.Index-1)
}

// ClassPrint is the fingerprint of a run's class (ShardHead.Class): of
// the names of every submission given, in any order.
func ClassPrint(names []string) string {
	sorted := slices.Clone(names)
	slices.Sort(sorted)
	h := sha256.New()
	for _, n := range sorted {
		fmt.Fprintf(h, "%d:%s\n", len(n), n)
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}
