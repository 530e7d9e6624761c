package session_test

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coursekit/course/labs/10-session"
)

// Benchmarks for a finished lab. Run them in your workspace with
//
//	go test -run '^$' -bench Lab10 -benchmem
//
// Each compares your code with a baseline measured side by side in the same
// run, so read the ratio, not the raw numbers: they depend on the machine.

// benchSession returns n entries forming one long chain (each the child of
// the one before), cycling through the chapter's four kinds of entry.
func benchSession(n int) []session.SessionEntry {
	out := make([]session.SessionEntry, n)
	for i := range out {
		id, parent := fmt.Sprintf("e%d", i), ""
		if i > 0 {
			parent = fmt.Sprintf("e%d", i-1)
		}
		switch i % 4 {
		case 0:
			out[i] = user(id, parent, "please list the files in the workspace")
		case 1:
			out[i] = assistantToolCall(id, parent, "call"+id)
		case 2:
			out[i] = toolResult(id, parent, "call"+out[i-1].ID)
		default:
			out[i] = metadata(id, parent)
		}
	}
	return out
}

func benchJSONL(b *testing.B, entries []session.SessionEntry) string {
	var sb strings.Builder
	for _, e := range entries {
		line, err := json.Marshal(e)
		if err != nil {
			b.Fatal(err)
		}
		sb.Write(line)
		sb.WriteByte('\n')
	}
	return sb.String()
}

// BenchmarkLab10_4_Recover measures RecoverJSONL on a 10,000-line session
// against a bare loop of json.Unmarshal into any, the least any recovery
// must do. The ratio is the cost of checking every field; aim for < 2x.
func BenchmarkLab10_4_Recover(b *testing.B) {
	text := benchJSONL(b, benchSession(10_000))
	b.Run("baseline=unmarshal-any", func(b *testing.B) {
		b.SetBytes(int64(len(text)))
		for i := 0; i < b.N; i++ {
			for _, line := range strings.Split(text, "\n") {
				if line == "" {
					continue
				}
				var v any
				if err := json.Unmarshal([]byte(line), &v); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("RecoverJSONL", func(b *testing.B) {
		b.SetBytes(int64(len(text)))
		for i := 0; i < b.N; i++ {
			rec, err := session.RecoverJSONL(text)
			if err != nil || len(rec.Entries) != 10_000 {
				b.Fatalf("RecoverJSONL: %d entries, error %v; want 10000 entries", len(rec.Entries), err)
			}
		}
	})
}

// BenchmarkLab10_1_PathTo walks a chain of 10,000 and of 100,000 entries
// from its last leaf. Linear work shows as the same ns/entry at both sizes;
// a quadratic walk (say, a linear search for each parent) does not.
func BenchmarkLab10_1_PathTo(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		entries := benchSession(n)
		leaf := entries[n-1].ID
		b.Run(fmt.Sprintf("chain=%d", n), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				path, err := session.PathTo(entries, leaf)
				if err != nil || len(path) != n {
					b.Fatalf("PathTo: %d entries, error %v; want %d", len(path), err, n)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/entry")
		})
	}
}

// BenchmarkLab10_5_Append measures committed appends per second of a
// JSONLSessionStore on a real file, against writing the same lines with
// OSFileIO directly (the file system's own cost).
func BenchmarkLab10_5_Append(b *testing.B) {
	entries := benchSession(1000)
	b.Run("baseline=OSFileIO.AppendFile", func(b *testing.B) {
		path := filepath.Join(b.TempDir(), "session.jsonl")
		lines := make([][]byte, len(entries))
		for i, e := range entries {
			line, _ := json.Marshal(e)
			lines[i] = append(line, '\n')
		}
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if err := (session.OSFileIO{}).AppendFile(path, lines[i%len(lines)]); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("JSONLSessionStore.Append", func(b *testing.B) {
		path := filepath.Join(b.TempDir(), "session.jsonl")
		store, err := session.OpenJSONLSessionStore(session.OSFileIO{}, path)
		if err != nil {
			b.Fatal(err)
		}
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			// Every entry is a new root, so the chain of ids never matters.
			e := entries[i%len(entries)]
			e.ID, e.ParentID = fmt.Sprintf("b%d", i), ""
			if err := store.Append(e).Wait(); err != nil {
				b.Fatal(err)
			}
		}
	})
}
