package cli

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// VersionOptions are the inputs of `course version`.
type VersionOptions struct {
	IO        IOStreams
	BuildInfo func() (*debug.BuildInfo, bool)
}

// NewCmdVersion returns the `course version` command.
func NewCmdVersion(f *Factory) *cobra.Command {
	opts := &VersionOptions{IO: f.IO, BuildInfo: f.BuildInfo}
	return &cobra.Command{
		Use:   "version",
		Short: "Print the tool's version, revision and Go version",
		Args:  positional(),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runVersion(opts)
		},
	}
}

func runVersion(opts *VersionOptions) error {
	version, revision, modified, goVersion := "(devel)", "", false, runtime.Version()
	if bi, ok := opts.BuildInfo(); ok && bi != nil {
		if bi.Main.Version != "" {
			version = bi.Main.Version
		}
		if bi.GoVersion != "" {
			goVersion = bi.GoVersion
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				revision = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
	}
	out := opts.IO.Out
	fmt.Fprintf(out, "course %s\n", version)
	if revision != "" {
		if modified {
			revision += " (modified)"
		}
		fmt.Fprintf(out, "revision %s\n", revision)
	}
	fmt.Fprintf(out, "built with %s %s/%s\n", goVersion, runtime.GOOS, runtime.GOARCH)
	return nil
}
