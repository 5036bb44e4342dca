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

// ErrNotOurs marks a refusal to replace what WriteAgentDir did not write.
var ErrNotOurs = errors.New("not written by reconciler fakes")

// WriteAgentDir makes dir an agent dir the real loop runs on against f:
// the spec as dir/daemons.yaml, its tokens in private files under
// dir/fake-tokens (named by fromFile, relative to the spec). It returns
// the spec's path. Everything is judged before anything is made: a dir
// that is a link, another user's or writable by others, or a spec or
// token file there that this did not write (ErrNotOurs), is refused, and
// nothing is created or changed.
func WriteAgentDir(f *Fakes, dir string) (string, error) {
	tokens := filepath.Join(dir, "fake-tokens")
	specPath := spec.DefaultSource(dir)
	spec := []byte(specMark + f.Spec(func(t Token) string { return "{fromFile: fake-tokens/" + t.File + "}" }))
	files := []ownFile{{specPath, spec, func(old []byte) bool { return bytes.HasPrefix(old, []byte(specMark)) }}}
	for _, t := range Tokens() {
		value := []byte(t.Value + "\n")
		files = append(files, ownFile{filepath.Join(tokens, t.File), value, func(old []byte) bool { return bytes.Equal(old, value) }})
	}
	for _, d := range []string{dir, tokens} {
		if err := privateOrAbsent(d); err != nil {
			return "", err
		}
	}
	for _, file := range files {
		if err := ownOrAbsent(file.path, file.ours); err != nil {
			return "", err
		}
	}
	for _, d := range []string{dir, tokens} {
		if err := atomicfile.CheckPrivateDir(d); err != nil {
			return "", fmt.Errorf("fakes: %w", err)
		}
	}
	// The token files first: a spec whose tokens are not there yet would
	// be read by a loop already watching dir.
	for _, file := range append(files[1:], files[0]) {
		if err := atomicfile.Write(file.path, file.data); err != nil {
			return "", fmt.Errorf("fakes: %w", err)
		}
	}
	return specPath, nil
}

// ownFile is a file WriteAgentDir writes, and how it knows its own.
type ownFile struct {
	path string
	data []byte
	ours func(old []byte) bool
}

// privateOrAbsent is nil when nothing is at dir or a directory only this
// user can change.
func privateOrAbsent(dir string) error {
	st, err := atomicfile.Lstat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("fakes: %w", err)
	}
	if err := atomicfile.JudgePrivate(st, dir); err != nil {
		return fmt.Errorf("fakes: %w; nothing was written", err)
	}
	return nil
}

// ownOrAbsent is nil when nothing is at path or a regular file that ours
// says this wrote; otherwise it says why the file is left alone.
func ownOrAbsent(path string, ours func([]byte) bool) error {
	old, err := atomicfile.ReadCapped(path, maxOwnFile)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("fakes: %s is there and cannot be read as a file this wrote (%w): %w, left as it is and nothing was written; choose another --agent-dir", path, err, ErrNotOurs)
	case !ours(old):
		return fmt.Errorf("fakes: %s is there and was %w: left as it is and nothing was written; choose another --agent-dir", path, ErrNotOurs)
	}
	return nil
}
