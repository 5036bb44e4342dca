package doctor

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"gjc.dev/reconciler/pkg/atomicfile"
)

// AgentDir checks the directories the loop and the daemons keep their
// records in, without making any: each that exists must be a directory of
// this user's that nobody else can write, or the loop refuses to act on
// it; one that is missing is made by the loop when it first needs it. The
// agent dir itself must exist. names are the spec's daemons.
func AgentDir(agentDir string, names []string) Line {
	const check = "agent dir"
	st, err := atomicfile.Lstat(agentDir)
	if errors.Is(err, fs.ErrNotExist) {
		return Fail(check, fmt.Sprintf("%s does not exist: make it (mkdir -m 700 %s) or point --agent-dir at yours", agentDir, agentDir))
	}
	if err != nil {
		return Fail(check, fmt.Sprintf("%s: %v", agentDir, err))
	}
	dirs := []string{agentDir}
	sdk := filepath.Join(agentDir, "sdk")
	dirs = append(dirs, sdk, filepath.Join(sdk, "reconciler"), filepath.Join(sdk, "daemons"), filepath.Join(sdk, "bus"))
	for _, n := range names {
		dirs = append(dirs, filepath.Join(sdk, "daemons", n), filepath.Join(sdk, "bus", n))
	}
	for i, dir := range dirs {
		if i > 0 {
			st, err = atomicfile.Lstat(dir)
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err != nil {
				return Fail(check, fmt.Sprintf("%s: %v", dir, err))
			}
		}
		if err := atomicfile.JudgePrivate(st, dir); err != nil {
			return Fail(check, fmt.Sprintf("%v; the loop refuses it: make it a real directory of yours that only you can write (chmod 700 %s)", err, dir))
		}
	}
	return Pass(check, agentDir+" and the records under it are private to this user")
}

// Loop is the check of the loop's socket from what dialling it gave: nil
// (a loop of this user's answers), none (nothing listens: not a fault
// before the service is installed), or why it was refused (a link,
// another user's server, a path too long), which is.
func Loop(socket string, err error, none bool) Line {
	const check = "loop"
	switch {
	case err == nil:
		return Pass(check, "a loop of this user's answers on "+socket)
	case none:
		return Pass(check, "no loop runs on this agent dir yet (reconciler service install runs one)")
	}
	return Fail(check, err.Error())
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
