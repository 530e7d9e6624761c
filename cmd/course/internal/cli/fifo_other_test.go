//go:build !unix

package cli_test

import "errors"

func mkfifo(string) error { return errors.New("no FIFOs here") }
