package daemonproto

import (
	"bytes"
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

// ConfigStdin returns what the reconciler gives a daemon as its standard
// input: c, secrets included.
func ConfigStdin(c *spec.Config) (io.Reader, error) {
	var buf bytes.Buffer
	if err := spec.EncodeWire(&buf, c); err != nil {
		return nil, fmt.Errorf("encoding the daemon's config: %w", err)
	}
	return &buf, nil
}

// ErrConfigFromTerminal: the daemon was started by hand, with a terminal
// for its stdin and so no config.
var ErrConfigFromTerminal = errors.New("the config comes as JSON on stdin from the reconciler; this command is not meant to be run by hand")

// ReadConfig reads a daemon's config from stdin, as ConfigStdin wrote it,
// and checks that it is for the name and generation its command line
// says: a daemon never publishes a record that contradicts its argv.
// Its errors never quote the input, which holds tokens.
func ReadConfig(stdin *os.File, name string, generation int64) (*spec.Config, error) {
	if term.IsTerminal(int(stdin.Fd())) {
		return nil, ErrConfigFromTerminal
	}
	cfg, err := spec.DecodeWire(stdin)
	if err != nil {
		return nil, fmt.Errorf("config on stdin: %w", err)
	}
	if cfg.Name != name || cfg.Generation != generation {
		return nil, fmt.Errorf("config is for %s at generation %d, flags say %s at %d", cfg.Name, cfg.Generation, name, generation)
	}
	return cfg, nil
}
