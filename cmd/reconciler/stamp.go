package main

// Set by hack/release with -ldflags -X: a release build names its tag and
// commit even where the go command stamps none (-buildvcs=false, a build
// from a tarball, -trimpath's "(devel)").
var (
	stampedVersion string
	stampedCommit  string
)

// stamped lays what hack/release stamped over what the go command did.
func (v buildVersion) stamped(version, commit string) buildVersion {
	if version != "" {
		v.Version = version
	}
	if commit != "" {
		v.Revision, v.Modified = commit, false
	}
	return v
}
