package autograder

import (
	_ "embed"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// GoArchs are the machines setup.sh installs Go on.
var GoArchs = []string{"amd64", "arm64"}

//go:embed gosums.txt
var goSumsText string

// goSums maps a Go release to the SHA-256 of its linux archive per arch.
var goSums = parseGoSums(goSumsText)

var (
	goSumLine = regexp.MustCompile(`^([0-9a-f]{64})  (go1\.\d+(?:\.\d+)?)\.linux-(amd64|arm64)\.tar\.gz$`)
	sha256Hex = regexp.MustCompile(`^[0-9a-f]{64}$`)
)

func parseGoSums(text string) map[string]map[string]string {
	sums := map[string]map[string]string{}
	for _, line := range strings.Split(text, "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		m := goSumLine.FindStringSubmatch(line)
		if m == nil {
			panic("gosums.txt: malformed line: " + line)
		}
		if sums[m[2]] == nil {
			sums[m[2]] = map[string]string{}
		}
		sums[m[2]][m[3]] = m[1]
	}
	return sums
}

// PinnedGoVersions lists the Go releases whose archives' SHA-256 the
// course knows, oldest first.
func PinnedGoVersions() []string {
	var vs []string
	for v := range goSums {
		vs = append(vs, v)
	}
	sort.Slice(vs, func(i, j int) bool { return goLess(vs[i], vs[j]) })
	return vs
}

// goLess orders release names by version: go1.9 before go1.10.
func goLess(a, b string) bool {
	pa, pb := goParts(a), goParts(b)
	return slices.Compare(pa, pb) < 0
}

func goParts(v string) []int {
	var out []int
	for _, f := range strings.Split(strings.TrimPrefix(v, "go"), ".") {
		n, _ := strconv.Atoi(f)
		out = append(out, n)
	}
	return out
}

// GoSHA256 returns the SHA-256 of release's linux archive for each arch:
// given ones (arch to hex) when there are any, else the course's table.
func GoSHA256(release string, given map[string]string) (map[string]string, error) {
	if len(given) > 0 {
		for arch, sum := range given {
			if !slices.Contains(GoArchs, arch) {
				return nil, fmt.Errorf("--go-sha256 %s=…: not an arch setup.sh installs (%s)", arch, strings.Join(GoArchs, ", "))
			}
			if !sha256Hex.MatchString(sum) {
				return nil, fmt.Errorf("--go-sha256 %s=%s: not a SHA-256 in hex", arch, sum)
			}
		}
		return given, nil
	}
	if sums, ok := goSums[release]; ok {
		return sums, nil
	}
	return nil, fmt.Errorf("no pinned SHA-256 for %s's archives: pass --go-sha256 amd64=HEX,arm64=HEX from https://go.dev/dl/, or a --go-version of %s",
		release, strings.Join(PinnedGoVersions(), ", "))
}
