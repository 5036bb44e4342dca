package doctor

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"gjc.dev/reconciler/pkg/atomicfile"
	"gjc.dev/reconciler/pkg/bus"
)

// AgentDir checks the directories the loop, the daemons and the bus keep
// their records in, without making any: each that exists must be a
// directory of this user's that nobody else can write, or the loop, a
// daemon or send refuses it; one that is missing, the agent dir included,
// is made 0700 when first needed. names are the spec's daemons.
func AgentDir(agentDir string, names []string) Line {
	const check = "agent dir"
	if _, err := atomicfile.Lstat(agentDir); errors.Is(err, fs.ErrNotExist) {
		return Pass(check, agentDir+" is not there yet: the loop makes it, private, on its first pass")
	}
	dirs, err := recordDirs(agentDir, names)
	if err != nil {
		return Fail(check, err.Error())
	}
	for _, dir := range dirs {
		st, err := atomicfile.Lstat(dir)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return Fail(check, fmt.Sprintf("%s: %v", dir, err))
		}
		if err := atomicfile.JudgePrivate(st, dir); err != nil {
			return Fail(check, fmt.Sprintf("%v; it is refused: make it a real directory of yours that only you can write (chmod 700 %s)", err, dir))
		}
	}
	return Pass(check, agentDir+" and the records under it are private to this user")
}

// recordDirs are the directories AgentDir judges: the reconciler's, and
// each daemon's and its bus's, inbox sessions included.
func recordDirs(agentDir string, names []string) ([]string, error) {
	sdk := filepath.Join(agentDir, "sdk")
	dirs := []string{agentDir, sdk, filepath.Join(sdk, "reconciler"), filepath.Join(sdk, "daemons"), filepath.Join(sdk, "bus")}
	for _, n := range names {
		b, err := bus.Paths(agentDir, n)
		if err != nil {
			return nil, err
		}
		dirs = append(dirs, filepath.Join(sdk, "daemons", n), b.Dir, b.Outbox, b.Sent, b.Failed, b.Inbox, b.Files)
		// A session's inbox dir is the bus's too; what is in the inbox
		// but not a directory is for inbox to name, not for this check.
		entries, _ := os.ReadDir(b.Inbox)
		for _, e := range entries {
			if e.Type().IsDir() || e.Type()&fs.ModeSymlink != 0 {
				dirs = append(dirs, filepath.Join(b.Inbox, e.Name()))
			}
		}
	}
	return dirs, nil
}

// Loop is the check of the loop's socket from what dialling it gave: nil
// (a loop of this user's answers), none (nothing listens), or why it was
// refused (a link, another user's server, a path too long). Nothing
// listening is a fault only once the service is installed (unit names
// its file; "" when there is none): before, nothing is meant to run.
func Loop(socket string, err error, none bool, unit string) Line {
	const check = "loop"
	switch {
	case err == nil:
		return Pass(check, "a loop of this user's answers on "+socket)
	case none && unit == "":
		return Pass(check, "no loop runs on this agent dir yet (reconciler service install runs one)")
	case none:
		return Fail(check, fmt.Sprintf("the service is installed (%s) but no loop answers on %s: reconciler service status says why", unit, socket))
	}
	return Fail(check, err.Error()+"; no request was sent to it")
}

// Lingering is the check that the user's services outlive their logins
// (systemd only): without it the loop stops at logout and starts at the
// next login, and the bots with it.
func Lingering(user string, on bool, err error) Line {
	const check = "lingering"
	switch {
	case err != nil:
		return Fail(check, fmt.Sprintf("could not tell whether lingering is on: %v", err))
	case !on:
		return Fail(check, fmt.Sprintf("off: the loop stops when %s logs out; turn it on with: sudo loginctl enable-linger %s", user, user))
	}
	return Pass(check, "on: the loop keeps running when "+user+" logs out")
}
