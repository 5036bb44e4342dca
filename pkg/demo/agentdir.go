package demo

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"gjc.dev/reconciler/pkg/atomicfile"
	"gjc.dev/reconciler/pkg/spec"
)

// specMark begins every spec WriteAgentDir writes. The fakes listen on new
// ports each time they start, so the spec is rewritten each time; the mark
// is how a later run knows the file is its own to replace. A spec without
// it is somebody's, and is left exactly as it is.
const specMark = "# Written by `reconciler fakes`: a bot on each local fake service.\n"

// maxOwnFile caps what is read of a file WriteAgentDir would replace.
const maxOwnFile = 64 << 10

// WriteAgentDir makes dir an agent dir the real loop runs on against f:
// the spec as dir/daemons.yaml, its tokens in private files under
// dir/fake-tokens (named by fromFile, relative to the spec). It returns
// the spec's path. dir is made private if missing, and refused if it is
// a link, another user's, or writable by others; a spec or token file
// already there that this did not write is refused and left as it is.
func WriteAgentDir(f *Fakes, dir string) (string, error) {
	tokens := filepath.Join(dir, "fake-tokens")
	for _, d := range []string{dir, tokens} {
		if err := atomicfile.CheckPrivateDir(d); err != nil {
			return "", fmt.Errorf("fakes: %w", err)
		}
	}
	specPath := spec.DefaultSource(dir)
	data := []byte(specMark + f.Spec(func(t Token) string { return "{fromFile: fake-tokens/" + t.File + "}" }))
	if err := ownOrAbsent(specPath, func(old []byte) bool { return bytes.HasPrefix(old, []byte(specMark)) }); err != nil {
		return "", err
	}
	for _, t := range Tokens() {
		path := filepath.Join(tokens, t.File)
		value := []byte(t.Value + "\n")
		if err := ownOrAbsent(path, func(old []byte) bool { return bytes.Equal(old, value) }); err != nil {
			return "", err
		}
		if err := atomicfile.Write(path, value); err != nil {
			return "", fmt.Errorf("fakes: %w", err)
		}
	}
	if err := atomicfile.Write(specPath, data); err != nil {
		return "", fmt.Errorf("fakes: %w", err)
	}
	return specPath, nil
}

// ownOrAbsent is nil when nothing is at path or a regular file that ours
// says this wrote; otherwise it says why the file is left alone.
func ownOrAbsent(path string, ours func([]byte) bool) error {
	old, err := atomicfile.ReadCapped(path, maxOwnFile)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("fakes: %s is there and cannot be read as a file this wrote (%w): left as it is; choose another --agent-dir", path, err)
	case !ours(old):
		return fmt.Errorf("fakes: %s is there and was not written by reconciler fakes: left as it is; choose another --agent-dir", path)
	}
	return nil
}
