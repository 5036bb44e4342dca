package spec

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

const redacted = "[redacted]"

// Secret is a resolved credential. Every printed or marshalled form is redacted,
// so a Secret handed to a logger, an error or a status by mistake leaks nothing;
// only Reveal gives the value, and only the daemon's transport should call it.
type Secret struct{ value string }

// NewSecret wraps a credential.
func NewSecret(v string) Secret { return Secret{value: v} }

// Reveal returns the credential itself.
func (s Secret) Reveal() string { return s.value }

// IsZero reports whether the secret is empty.
func (s Secret) IsZero() bool { return s.value == "" }

func (s Secret) String() string               { return redacted }
func (s Secret) GoString() string             { return redacted }
func (s Secret) Format(f fmt.State, _ rune)   { _, _ = io.WriteString(f, redacted) }
func (s Secret) MarshalJSON() ([]byte, error) { return []byte(`"` + redacted + `"`), nil }
func (s Secret) MarshalText() ([]byte, error) { return []byte(redacted), nil }
func (s *Secret) UnmarshalJSON(_ []byte) error {
	return errors.New("a Secret is never decoded from JSON")
}

// maxSecretFile caps what is read from a fromFile secret: a token is short,
// and a huge or endless file must not exhaust memory.
const maxSecretFile = 64 << 10

var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// secretResolver reads secret references. baseDir anchors relative fromFile
// paths at the spec file's directory, where an operator would look.
type secretResolver struct {
	lookupEnv func(string) (string, bool)
	baseDir   string
	uid       int
	// files are the fromFile paths read, so the loader can notice when one changes.
	files []string
	// envNames are the fromEnv variables named, so children can be started without them.
	envNames []string
}

// resolve never puts the secret into an error: errors name the reference only.
func (r *secretResolver) resolve(ref SecretRef, p *field.Path) (Secret, field.ErrorList, []string) {
	switch {
	case ref.FromEnv != "":
		fp := p.Child("fromEnv")
		if !envName.MatchString(ref.FromEnv) {
			// Not echoed: what is not a variable's name may be the token
			// itself, pasted in its place, and errors reach logs.
			return Secret{}, field.ErrorList{field.Invalid(fp, "(not shown)", "must be an environment variable name such as DISCORD_BOT_TOKEN; what is there is not shown, in case it is a token")}, nil
		}
		r.envNames = append(r.envNames, ref.FromEnv)
		v, ok := r.lookupEnv(ref.FromEnv)
		if !ok {
			return Secret{}, field.ErrorList{field.Invalid(fp, ref.FromEnv, "environment variable is not set")}, nil
		}
		if v == "" {
			return Secret{}, field.ErrorList{field.Invalid(fp, ref.FromEnv, "environment variable is empty")}, nil
		}
		return NewSecret(v), nil, nil
	case ref.FromFile != "":
		fp := p.Child("fromFile")
		path := r.path(ref.FromFile)
		r.files = append(r.files, path)
		v, err := r.readFile(path)
		if err != nil {
			return Secret{}, field.ErrorList{field.Invalid(fp, ref.FromFile, err.Error())}, nil
		}
		return NewSecret(v), nil, nil
	case ref.Value != "":
		return NewSecret(ref.Value), nil, []string{p.Child("value").String() + ": the token is written in the spec file; move it to fromEnv or fromFile"}
	}
	return Secret{}, nil, nil
}

func (r *secretResolver) path(p string) string {
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, rest)
		}
	}
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(r.baseDir, p)
}

// readFile refuses what another user could have planted or can read. Every
// check is made on the opened descriptor (see openRegular), so a FIFO or a
// link swapped in after a look can neither block the read nor pass for the
// file. Messages never include the content.
func (r *secretResolver) readFile(path string) (string, error) {
	f, fi, err := openRegular(path)
	if err != nil {
		var nr *notRegularError
		switch {
		case errors.Is(err, os.ErrNotExist):
			return "", errors.New("file does not exist")
		case errors.As(err, &nr) && nr.kind == kindSymlink:
			return "", errors.New("is a symlink; point at the file itself")
		case errors.As(err, &nr):
			return "", fmt.Errorf("is %w", err)
		}
		return "", fmt.Errorf("cannot open: %w", err)
	}
	defer f.Close()
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		return "", fmt.Errorf("mode %04o lets group or others read it; chmod 600", perm)
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != r.uid {
		return "", fmt.Errorf("owned by uid %d, not by uid %d", st.Uid, r.uid)
	}
	if fi.Size() > maxSecretFile {
		return "", fmt.Errorf("larger than %d bytes; a token file holds one token", maxSecretFile)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxSecretFile+1))
	if err != nil {
		return "", fmt.Errorf("cannot read: %w", unwrapPathError(err))
	}
	if len(data) > maxSecretFile {
		return "", fmt.Errorf("larger than %d bytes; a token file holds one token", maxSecretFile)
	}
	data = bytes.TrimSuffix(data, []byte("\n"))
	data = bytes.TrimSuffix(data, []byte("\r"))
	if len(data) == 0 {
		return "", errors.New("file is empty")
	}
	return string(data), nil
}

// unwrapPathError drops the path that os errors repeat; the caller names it.
func unwrapPathError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
