package daemonproto

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"golang.org/x/term"

	"gjc.dev/reconciler/pkg/spec"
)

// The config a daemon runs with arrives on its standard input, encoded by
// spec.EncodeWire, and nowhere else: not in argv (any user's ps reads it),
// not in a file (which outlives the daemon and can be copied). The
// identity the daemon publishes is computed from exactly that config.

// Secrets are what a daemon needs of its reconciler's fleet flags that
// neither its argv (any user's ps reads it) nor its environment may carry:
// the etcd password, when the reconciler has it from $EtcdPasswordEnv
// (from a file, the daemon is given the file's path and reads it itself).
type Secrets struct {
	EtcdPassword string `json:"etcdPassword,omitempty"`
}

// maxStdin caps what a daemon reads from its stdin: the config (which
// spec caps at 64 KiB) and a line of secrets.
const maxStdin = 128 << 10

// ConfigStdin returns what the reconciler gives a daemon as its standard
// input: c, secrets included, and then, only when there are any, s on a
// line of its own.
func ConfigStdin(c *spec.Config, s Secrets) (io.Reader, error) {
	var buf bytes.Buffer
	if err := spec.EncodeWire(&buf, c); err != nil {
		return nil, fmt.Errorf("encoding the daemon's config: %w", err)
	}
	if s != (Secrets{}) {
		if err := json.NewEncoder(&buf).Encode(s); err != nil {
			return nil, fmt.Errorf("encoding the daemon's secrets: %w", err)
		}
	}
	return &buf, nil
}

// ErrConfigFromTerminal: the daemon was started by hand, with a terminal
// for its stdin and so no config.
var ErrConfigFromTerminal = errors.New("the config comes as JSON on stdin from the reconciler; this command is not meant to be run by hand")

// ReadConfig reads a daemon's config and secrets from stdin, as
// ConfigStdin wrote them, and checks that the config is for the name and
// generation its command line says: a daemon never publishes a record
// that contradicts its argv. Its errors never quote the input, which
// holds tokens.
func ReadConfig(stdin *os.File, name string, generation spec.Generation) (*spec.Config, Secrets, error) {
	if term.IsTerminal(int(stdin.Fd())) {
		return nil, Secrets{}, ErrConfigFromTerminal
	}
	data, err := io.ReadAll(io.LimitReader(stdin, maxStdin+1))
	if err != nil {
		return nil, Secrets{}, fmt.Errorf("config on stdin: reading: %w", err)
	}
	if len(data) > maxStdin {
		return nil, Secrets{}, fmt.Errorf("config on stdin: larger than %d bytes", maxStdin)
	}
	// The config is one line (JSON encoded, newline-ended); what follows
	// it is the secrets' line, if any.
	config, rest := data, []byte(nil)
	if i := bytes.IndexByte(data, '\n'); i >= 0 {
		config, rest = data[:i+1], data[i+1:]
	}
	cfg, err := spec.DecodeWire(bytes.NewReader(config))
	if err != nil {
		return nil, Secrets{}, fmt.Errorf("config on stdin: %w", err)
	}
	if cfg.Name != name || cfg.Generation != generation {
		return nil, Secrets{}, fmt.Errorf("config is for %s at generation %d, flags say %s at %d", cfg.Name, cfg.Generation, name, generation)
	}
	s, err := decodeSecrets(rest)
	if err != nil {
		return nil, Secrets{}, fmt.Errorf("secrets on stdin: %w", err)
	}
	return cfg, s, nil
}

// decodeSecrets reads the secrets' line: none, or one JSON object of
// known fields, newline-ended (else it was cut short, and refused like a
// config cut short). Errors never quote it.
func decodeSecrets(line []byte) (Secrets, error) {
	var s Secrets
	if len(line) == 0 {
		return s, nil
	}
	if line[len(line)-1] != '\n' || bytes.IndexByte(line, '\n') != len(line)-1 {
		return s, fmt.Errorf("not one newline-ended line (%d bytes)", len(line))
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil || s == (Secrets{}) {
		return Secrets{}, fmt.Errorf("not the JSON the reconciler writes (%d bytes)", len(line))
	}
	return s, nil
}
