package similarity

import (
	"errors"
	"fmt"
	"go/scanner"
	"go/token"
)

// ErrTokenize marks a source that go/scanner cannot read as Go: a stray
// byte, an unterminated literal, invalid UTF-8. A *TokenizeError matches it.
var ErrTokenize = errors.New("not Go source")

// MaxTokens bounds the tokens of one source, and so what a submission
// costs the index: some twenty times the largest of the labs' solutions.
const MaxTokens = 1 << 17

// ErrTooManyTokens refuses a source of more than MaxTokens tokens: not a
// solution written by hand.
var ErrTooManyTokens = fmt.Errorf("more than %d tokens, far more than a solution has", MaxTokens)

// TokenizeError says where a source stopped being Go.
type TokenizeError struct {
	Line, Column int
	Msg          string // the scanner's message
}

func (e *TokenizeError) Error() string {
	return fmt.Sprintf("%s at line %d, column %d: %s", ErrTokenize, e.Line, e.Column, e.Msg)
}

// Is makes every TokenizeError match ErrTokenize.
func (e *TokenizeError) Is(target error) bool { return target == ErrTokenize }

// tokens is a source as the comparison sees it: one kind per token, and
// where each token is, so that a match can be shown in the source.
type tokens struct {
	kind  []token.Token // normalised: IDENT and the literal kinds carry no text
	start []int32       // byte offset of each token
	end   []int32       // byte offset just past it (an inserted semicolon is empty)
	file  *token.File   // offsets to lines
}

func (t *tokens) len() int { return len(t.kind) }

// tokenize reads src as Go tokens. Comments are dropped; every identifier
// is IDENT and every literal its kind (INT, FLOAT, IMAG, CHAR, STRING),
// whatever its text; keywords and operators stay as they are.
//
// Separators are normalised so that formatting does not change the
// stream: a semicolon, written or inserted at a newline, is one SEMICOLON;
// one directly before ')' or '}' or at the end (which gofmt's line breaks
// add or remove) is dropped, and so is a comma before ')', ']' or '}'
// (the trailing comma of a list split over lines). Runs of semicolons
// count once.
//
// It stops at the scanner's first error, or past MaxTokens: go/scanner is
// linear in len(src), and so is tokenize.
func tokenize(name string, src []byte) (*tokens, error) {
	fset := token.NewFileSet()
	file := fset.AddFile(name, -1, len(src))
	var bad *TokenizeError
	var s scanner.Scanner
	s.Init(file, src, func(pos token.Position, msg string) {
		if bad == nil {
			bad = &TokenizeError{Line: pos.Line, Column: pos.Column, Msg: msg}
		}
	}, 0) // no ScanComments: comments are skipped
	guess := min(len(src)/5, MaxTokens) // Go averages a token per four or five bytes
	t := &tokens{file: file, kind: make([]token.Token, 0, guess), start: make([]int32, 0, guess), end: make([]int32, 0, guess)}
	var pending struct {
		tok        token.Token // SEMICOLON or COMMA, or ILLEGAL for none
		start, end int32
	}
	for bad == nil {
		pos, tok, lit := s.Scan()
		off := int32(file.Offset(pos))
		if tok == token.SEMICOLON || tok == token.COMMA {
			if pending.tok == token.SEMICOLON && tok == token.SEMICOLON {
				continue // a run of semicolons: one
			}
			if pending.tok != token.ILLEGAL {
				t.add(pending.tok, pending.start, pending.end)
			}
			end := off + 1
			if lit == "\n" {
				end = off // inserted: it covers no text
			}
			pending.tok, pending.start, pending.end = tok, off, end
			continue
		}
		if pending.tok != token.ILLEGAL && !closes(pending.tok, tok) {
			t.add(pending.tok, pending.start, pending.end)
		}
		pending.tok = token.ILLEGAL
		if tok == token.EOF {
			break
		}
		t.add(tok, off, off+int32(tokenLen(tok, lit))) // the literal's text is dropped: its kind stays
		if t.len() > MaxTokens {
			return nil, ErrTooManyTokens
		}
	}
	if bad != nil {
		return nil, bad
	}
	return t, nil
}

func (t *tokens) add(k token.Token, start, end int32) {
	t.kind = append(t.kind, k)
	t.start = append(t.start, start)
	t.end = append(t.end, end)
}

// closes reports whether separator sep before tok may be left out:
// gofmt's layout decides whether it is there.
func closes(sep, tok token.Token) bool {
	switch tok {
	case token.EOF, token.RPAREN, token.RBRACE:
		return true
	case token.RBRACK:
		return sep == token.COMMA
	}
	return false
}

// tokenLen is how many bytes of the source the token takes (a raw string's
// carriage returns, which the scanner drops, aside).
func tokenLen(tok token.Token, lit string) int {
	if lit != "" {
		return len(lit) // identifiers, literals, keywords
	}
	return len(tok.String()) // operators
}

// line is the 1-based line of byte offset off.
func (t *tokens) line(off int32) int {
	return t.file.Line(t.file.Pos(int(off)))
}
