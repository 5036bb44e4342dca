package spec

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files")

// The exact output for a spec with several errors across two files: what an
// operator reads is part of the contract.
func TestGoldenErrors(t *testing.T) {
	os.Unsetenv("GOLDEN_UNSET_TOKEN")
	dir := filepath.Join("testdata", "golden", "specs")
	res := LoadOnce(dir)
	got := "errors:\n" + issueStrings(res.Errors) + "warnings:\n" + issueStrings(res.Warnings)
	golden := filepath.Join("testdata", "golden", "errors.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test ./pkg/spec -run TestGoldenErrors -update)", err)
	}
	if got != string(want) {
		t.Errorf("output differs from %s:\n--- got\n%s--- want\n%s", golden, got, want)
	}
}
