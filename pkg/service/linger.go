package service

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// LingerDir holds a file per user whose services systemd starts at boot and
// keeps after logout; loginctl enable-linger creates it, and loginctl
// show-user -p Linger reads the same file.
const LingerDir = "/var/lib/systemd/linger"

// Lingering reads dir for user's file.
func Lingering(dir, user string) (bool, error) {
	_, err := os.Stat(filepath.Join(dir, user))
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, fs.ErrNotExist):
		return false, nil
	}
	return false, err
}

// lingerAdvice is the line install and status print: without lingering a
// user's manager stops at the user's last logout, and every process in its
// services with it, the loop's daemons too; it starts only at their next
// login.
func lingerAdvice(user string, on bool) string {
	if on {
		return fmt.Sprintf("lingering: on for %s: the loop starts at boot and keeps running after you log out", user)
	}
	return fmt.Sprintf("lingering: off for %s: the loop and its bots stop when you log out, and start only at your next login; to keep them running:\n  sudo loginctl enable-linger %s", user, ShellWords([]string{user}))
}
