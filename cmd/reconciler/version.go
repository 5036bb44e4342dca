package main

import (
	"fmt"
	"runtime/debug"

	"github.com/spf13/cobra"
)

func newVersionCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version and the commit it was built from",
		Args:  cobra.NoArgs,
		Run: func(cmd *cobra.Command, _ []string) {
			fmt.Fprintln(cmd.OutOrStdout(), versionString())
		},
	}
}

// versionString reads what the go command stamped into the binary, so a
// binary built from a checkout names its commit without a release process.
func versionString() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "reconciler (unknown version)"
	}
	version, revision, dirty := info.Main.Version, "", ""
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			revision = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "-dirty"
			}
		}
	}
	if len(revision) > 12 {
		revision = revision[:12]
	}
	if revision == "" {
		return fmt.Sprintf("reconciler %s %s", version, info.GoVersion)
	}
	return fmt.Sprintf("reconciler %s (%s%s) %s", version, revision, dirty, info.GoVersion)
}
