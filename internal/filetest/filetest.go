// Package filetest holds the file assertions that the tests of the
// atomic-file leaf and of the platform share: both write files whole and
// must leave nothing behind. For tests only.
package filetest

import (
	"io/fs"
	"os"
	"strings"
	"testing"
)

// Read returns the content of the file at path.
func Read(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Write writes content to a file at path, mode 0600.
func Write(t testing.TB, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

// AssertMode fails if the mode of path (not following a link) is not want.
func AssertMode(t testing.TB, path string, want fs.FileMode) {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode() != want {
		t.Errorf("mode of %s = %v, want %v", path, fi.Mode(), want)
	}
}

// AssertOnlyNames fails if dir holds anything but names, such as a temp or
// quarantine file left behind.
func AssertOnlyNames(t testing.TB, dir string, names ...string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	if strings.Join(got, ",") != strings.Join(names, ",") {
		t.Fatalf("%s holds %q, want %q", dir, got, names)
	}
}
