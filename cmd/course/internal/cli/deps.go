package cli

import (
	_ "github.com/spf13/cobra"
	_ "golang.org/x/mod/modfile"
)
