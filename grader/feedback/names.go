package feedback

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"

	"github.com/coursekit/course/grader/names"
)

// Ext is the extension of a feedback file.
const Ext = ".md"

// maxBase bounds a file name's length before its extension, in bytes.
const maxBase = 80

// FileNames gives each submission name a file name of its own, in the same
// order: made of the name's letters, digits, marks and "-_.+@" (anything
// else, a path separator or a control character among them, becomes "_"),
// never starting with "." or "-", never a name Windows keeps for a device,
// at most 80 bytes before Ext. Names that would come out alike, also to a
// file system that ignores case or Unicode normalisation (macOS's,
// Windows', an LMS's zip), each get a suffix from a hash of the whole name,
// so that which file is whose depends on no order; a name that needs no
// suffix keeps its file, and the rare clash left is numbered ("-2") in
// names.Compare's order.
func FileNames(subs []string) []string {
	base := make([]string, len(subs))
	groups := map[string][]int{}
	for i, n := range subs {
		base[i] = sanitize(n)
		groups[fold(base[i])] = append(groups[fold(base[i])], i)
	}
	suffixed := make([]bool, len(subs))
	for _, g := range groups {
		if len(g) < 2 {
			continue
		}
		for _, i := range g {
			sum := sha256.Sum256([]byte(subs[i]))
			base[i] += "-" + hex.EncodeToString(sum[:4])
			suffixed[i] = true
		}
	}
	order := make([]int, len(subs))
	for i := range order {
		order[i] = i
	}
	// A name of its own comes first: a suffixed name never takes the file
	// of a student whose name it happens to be ("alice-2bd806c9").
	slices.SortStableFunc(order, func(a, b int) int {
		if suffixed[a] != suffixed[b] {
			if suffixed[a] {
				return 1
			}
			return -1
		}
		return names.Compare(subs[a], subs[b])
	})
	taken := map[string]bool{}
	out := make([]string, len(subs))
	for _, i := range order {
		name := base[i]
		for k := 2; taken[fold(name)]; k++ {
			name = fmt.Sprintf("%s-%d", base[i], k)
		}
		taken[fold(name)] = true
		out[i] = name + Ext
	}
	return out
}

// sanitize makes one name safe as a file's base name.
func sanitize(name string) string {
	var b strings.Builder
	for _, r := range norm.NFC.String(name) {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r) || strings.ContainsRune("-_.+@", r):
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	s := strings.TrimRight(strings.TrimLeft(b.String(), ".-"), ".") // Windows drops a trailing dot
	if len(s) > maxBase {
		cut := maxBase
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut]
	}
	if s == "" {
		s = "submission"
	}
	if reservedOnWindows(s) {
		s = "_" + s
	}
	return s
}

// reservedOnWindows reports whether Windows keeps the name (before its
// first dot) for a device: con.md would be the console there.
func reservedOnWindows(s string) bool {
	stem, _, _ := strings.Cut(strings.ToUpper(s), ".")
	switch stem {
	case "CON", "PRN", "AUX", "NUL":
		return true
	}
	return len(stem) == 4 && (strings.HasPrefix(stem, "COM") || strings.HasPrefix(stem, "LPT")) && stem[3] >= '0' && stem[3] <= '9'
}

// fold is how a file system that ignores case and normalisation sees a name.
func fold(s string) string { return norm.NFC.String(cases.Fold().String(s)) }
