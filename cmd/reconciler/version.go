package main

import (
	"fmt"
	"runtime/debug"

	"github.com/spf13/cobra"
)

func newVersionCommand() *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print the version and the commit it was built from",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if output == "json" {
				if err := printJSON(cmd.OutOrStdout(), readBuildVersion()); err != nil {
					return err
				}
				return nil
			}
			fmt.Fprintln(cmd.OutOrStdout(), versionString())
			return nil
		},
	}
	addOutputFlag(cmd, &output, textFormats)
	return cmd
}

// buildVersion is what the go command stamped into the binary, so a
// binary built from a checkout names its commit without a release process.
type buildVersion struct {
	Version   string `json:"version"`
	Revision  string `json:"revision,omitempty"`
	Modified  bool   `json:"modified,omitempty"`
	GoVersion string `json:"goVersion,omitempty"`
}

func readBuildVersion() buildVersion {
	return goBuildVersion().stamped(stampedVersion, stampedCommit)
}

func goBuildVersion() buildVersion {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return buildVersion{Version: "(unknown version)"}
	}
	v := buildVersion{Version: info.Main.Version, GoVersion: info.GoVersion}
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			v.Revision = s.Value
		case "vcs.modified":
			v.Modified = s.Value == "true"
		}
	}
	return v
}

func versionString() string {
	v := readBuildVersion()
	if v.GoVersion == "" {
		return "reconciler " + v.Version
	}
	revision, dirty := v.Revision, ""
	if len(revision) > 12 {
		revision = revision[:12]
	}
	if v.Modified {
		dirty = "-dirty"
	}
	if revision == "" {
		return fmt.Sprintf("reconciler %s %s", v.Version, v.GoVersion)
	}
	return fmt.Sprintf("reconciler %s (%s%s) %s", v.Version, revision, dirty, v.GoVersion)
}
