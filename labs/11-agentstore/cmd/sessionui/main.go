// Command sessionui shows your store's session in the browser, the
// chapter's Session Tree: the tree of entries drawn by id and parentId,
// with its branches and compactions; the context at the current leaf; and
// the timeline of appends. Click an entry to make it the leaf: the page
// POSTs to /api/branch, which calls your SwitchLeaf, and shows the new
// context.
//
//	go run ./cmd/sessionui                       # .teaching-agent/session.jsonl, at http://127.0.0.1:8011/
//	go run ./cmd/sessionui -session testdata/pi/branches.jsonl   # a session pi wrote
//	go run ./cmd/sessionui -addr 127.0.0.1:0     # any free port (it prints which)
//
// Everything on the page comes from your store, through the lab's API
// (Open, Header, Leaf, Entry, PathToLeaf, BuildContext, SessionContext,
// SwitchLeaf, EstimateTokens), except the list of ids to draw, which the store has no
// method for: that comes from the file's lines. The store is opened
// read-only: the page writes nothing. When the file changes (an agent
// appended), the page opens it again, on its new last entry.
//
// Exit status 1: the store could not open the session (the message says
// which exercise to finish), or the address was taken; 2: bad flags.
package main

import (
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"time"
)

func main() {
	session := flag.String("session", ".teaching-agent/session.jsonl", "the session `file`")
	addr := flag.String("addr", "127.0.0.1:8011", "listen on `host:port` (port 0: any free one)")
	flag.Parse()
	if flag.NArg() > 0 {
		flag.Usage()
		os.Exit(2)
	}
	if err := serve(*session, *addr); err != nil {
		fmt.Fprintln(os.Stderr, "sessionui:", err)
		os.Exit(1)
	}
}

// serve opens the session once, to fail early on a store that cannot, and
// serves its page until the process is stopped.
func serve(session, addr string) error {
	s, err := newServer(session)
	if err != nil {
		return err
	}
	sn, err := s.current()
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	if sn.store == nil {
		fmt.Printf("sessionui: no session in %s yet; run go run ./cmd/agent and the page shows it\n", session)
	}
	fmt.Printf("sessionui: http://%s/ shows %s (Ctrl-C stops it)\n", ln.Addr(), session)
	srv := &http.Server{Handler: s.handler(), ReadHeaderTimeout: 10 * time.Second}
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
