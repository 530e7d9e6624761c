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

// buildVersion is what the build info says of the tool: its version
// ("(devel)" for a build from a checkout), its revision and whether the
// checkout was modified, and the Go it was built with.
func buildVersion(info func() (*debug.BuildInfo, bool)) (version, revision string, modified bool, goVersion string) {
	version, goVersion = "(devel)", runtime.Version()
	if info == nil {
		return version, revision, modified, goVersion
	}
	if bi, ok := info(); ok && bi != nil {
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
	return version, revision, modified, goVersion
}

// toolVersion is the tool's version in one line, as every grading report
// records it: "v1.4.0", or "(devel) 0123456789ab (modified)".
func toolVersion(info func() (*debug.BuildInfo, bool)) string {
	version, revision, modified, _ := buildVersion(info)
	if revision != "" {
		version += " " + revision[:min(len(revision), 12)]
		if modified {
			version += " (modified)"
		}
	}
	return version
}

func runVersion(opts *VersionOptions) error {
	version, revision, modified, goVersion := buildVersion(opts.BuildInfo)
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
