// Package buildcache is the go command's build cache for grading builds,
// served through GOCACHEPROG: a base directory that only the grader's set-up
// check writes (the standard library and the course's modules, compiled
// once) and that every grading build reads and never writes. What a
// student's file makes the compiler produce (a huge literal, say) lives
// only in the build's own temporary directory and goes with it, so no
// submission leaves anything in a cache that outlives its grade.
//
// It imports only the standard library, so that the grader can build its
// helper program (helper/) from the source it embeds, as it builds the
// static checker's.
package buildcache

import (
	"bufio"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"
)

// The protocol's commands (cmd/go/internal/cacheprog).
const (
	cmdGet   = "get"
	cmdPut   = "put"
	cmdClose = "close"
)

// request is what the go command sends, one JSON object a line; a put with
// a body is followed by a line holding the body as a base64 JSON string.
type request struct {
	ID       int64
	Command  string
	ActionID []byte `json:",omitempty"`
	OutputID []byte `json:",omitempty"`
	BodySize int64  `json:",omitempty"`
}

// response is what the go command reads back.
type response struct {
	ID            int64
	Err           string     `json:",omitempty"`
	KnownCommands []string   `json:",omitempty"`
	Miss          bool       `json:",omitempty"`
	OutputID      []byte     `json:",omitempty"`
	Size          int64      `json:",omitempty"`
	Time          *time.Time `json:",omitempty"`
	DiskPath      string     `json:",omitempty"`
}

// entry is what an action id maps to, kept in Dir/a/<action id>.
type entry struct {
	OutputID string
	Size     int64
	Time     time.Time
}

// Store is a cache directory: Dir/a holds an entry per action id, Dir/o
// the outputs by output id.
type Store struct {
	Dir string
	// Writable lets the go command put outputs into the store (the set-up
	// check); a read-only store tells the go command it cannot put, and
	// the go command then keeps its outputs to itself.
	Writable bool
	// MaxPut bounds one output put into a writable store, in bytes.
	MaxPut int64
}

// DefaultMaxPut bounds one output of the set-up check's build (the
// course's own code): the largest, the race-enabled runtime, is a few MiB.
const DefaultMaxPut = 256 << 20

// Serve answers the go command's requests from r on w until it closes.
func (s *Store) Serve(r io.Reader, w io.Writer) error {
	if s.Writable {
		for _, d := range []string{"a", "o"} {
			if err := os.MkdirAll(filepath.Join(s.Dir, d), 0o700); err != nil {
				return err
			}
		}
	}
	dec := json.NewDecoder(bufio.NewReaderSize(r, 1<<16))
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	known := []string{cmdGet, cmdClose}
	if s.Writable {
		known = append(known, cmdPut)
	}
	if err := s.send(enc, bw, response{KnownCommands: known}); err != nil {
		return err
	}
	for {
		var req request
		if err := dec.Decode(&req); errors.Is(err, io.EOF) {
			return nil
		} else if err != nil {
			return fmt.Errorf("buildcache: reading a request: %w", err)
		}
		res := response{ID: req.ID}
		switch req.Command {
		case cmdGet:
			s.get(req, &res)
		case cmdPut:
			if err := s.put(dec, req, &res); err != nil {
				return err // the stream is out of step: nothing more can be read
			}
		case cmdClose:
			return s.send(enc, bw, res)
		default:
			res.Err = "buildcache: unknown command " + req.Command
		}
		if err := s.send(enc, bw, res); err != nil {
			return err
		}
	}
}

func (s *Store) send(enc *json.Encoder, bw *bufio.Writer, res response) error {
	if err := enc.Encode(res); err != nil {
		return err
	}
	return bw.Flush()
}

// get answers a get: a hit names the output's file, which the go command
// reads; anything unreadable is a miss, and the go command builds anew.
func (s *Store) get(req request, res *response) {
	data, err := os.ReadFile(filepath.Join(s.Dir, "a", hex.EncodeToString(req.ActionID)))
	var e entry
	if err != nil || json.Unmarshal(data, &e) != nil {
		res.Miss = true
		return
	}
	out := filepath.Join(s.Dir, "o", e.OutputID)
	fi, err := os.Lstat(out)
	id, herr := hex.DecodeString(e.OutputID)
	if err != nil || herr != nil || !fi.Mode().IsRegular() || fi.Size() != e.Size {
		res.Miss = true
		return
	}
	res.OutputID, res.Size, res.Time, res.DiskPath = id, e.Size, &e.Time, out
}

// put stores a put's body. A body over MaxPut is read and dropped, and the
// go command told so; it keeps its own copy and the build goes on.
func (s *Store) put(dec *json.Decoder, req request, res *response) error {
	var body []byte
	if req.BodySize > 0 {
		var text string
		if err := dec.Decode(&text); err != nil {
			return fmt.Errorf("buildcache: reading a put's body: %w", err)
		}
		var err error
		if body, err = base64.StdEncoding.DecodeString(text); err != nil {
			return fmt.Errorf("buildcache: a put's body: %w", err)
		}
	}
	if !s.Writable {
		res.Err = "buildcache: this cache is read-only"
		return nil
	}
	if max := s.maxPut(); int64(len(body)) > max || req.BodySize > max {
		res.Err = fmt.Sprintf("buildcache: an output of %d bytes is larger than the %d this cache keeps", len(body), max)
		return nil
	}
	oid := hex.EncodeToString(req.OutputID)
	out := filepath.Join(s.Dir, "o", oid)
	if err := writeAtomic(out, body); err != nil {
		res.Err = err.Error()
		return nil
	}
	meta, _ := json.Marshal(entry{OutputID: oid, Size: int64(len(body)), Time: time.Now()})
	if err := writeAtomic(filepath.Join(s.Dir, "a", hex.EncodeToString(req.ActionID)), meta); err != nil {
		res.Err = err.Error()
		return nil
	}
	res.DiskPath = out
	return nil
}

func (s *Store) maxPut() int64 {
	if s.MaxPut > 0 {
		return s.MaxPut
	}
	return DefaultMaxPut
}

// writeAtomic writes data to a new file beside p and renames it over p:
// a grader reading the store at the same time sees all of it or none.
func writeAtomic(p string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(p), ".put-*")
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), p)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}
