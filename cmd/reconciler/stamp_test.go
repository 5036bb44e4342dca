package main

import "testing"

func TestStampedVersion(t *testing.T) {
	built := buildVersion{Version: "(devel)", Revision: "0123456789abcdef", Modified: true, GoVersion: "go1.26.8"}
	for _, tc := range []struct {
		name, version, commit string
		want                  buildVersion
	}{
		{"nothing stamped", "", "", built},
		{"a release", "v1.2.0", "fedcba9876543210", buildVersion{Version: "v1.2.0", Revision: "fedcba9876543210", GoVersion: "go1.26.8"}},
		{"version only", "v1.2.0", "", buildVersion{Version: "v1.2.0", Revision: "0123456789abcdef", Modified: true, GoVersion: "go1.26.8"}},
	} {
		if got := built.stamped(tc.version, tc.commit); got != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
}
