package bus

import (
	"fmt"
	"path/filepath"
	"strings"

	"gjc.dev/reconciler/pkg/spec"
)

// Dirs names the directories of one daemon's bus.
type Dirs struct{ Dir, Outbox, Sent, Failed, Inbox, Files string }

// Paths returns the bus directories of daemon name under agentDir:
// <agentDir>/sdk/bus/<name>/{outbox,sent,failed,inbox}. The name must be a
// daemon name (a DNS-1123 label), so it is one path element and can never
// climb out of the bus.
func Paths(agentDir, name string) (Dirs, error) {
	if errs := spec.NameErrors(name); len(errs) > 0 {
		return Dirs{}, fmt.Errorf("bus of %q: invalid daemon name: %s", name, strings.Join(errs, "; "))
	}
	dir := filepath.Join(agentDir, "sdk", "bus", name)
	return Dirs{
		Dir:    dir,
		Outbox: filepath.Join(dir, "outbox"),
		Sent:   filepath.Join(dir, "sent"),
		Failed: filepath.Join(dir, "failed"),
		Inbox:  filepath.Join(dir, "inbox"),
		Files:  filepath.Join(dir, "files"),
	}, nil
}
