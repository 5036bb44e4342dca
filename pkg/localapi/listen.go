package localapi

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"syscall"
	"time"

	"gjc.dev/reconciler/pkg/ownership/fsstore"
)

// maxSocketPath is the longest path a unix socket address holds (less its
// NUL): 107 bytes on Linux, 103 on macOS.
var maxSocketPath = len(syscall.RawSockaddrUnix{}.Path) - 1

// ErrSocketPathTooLong: the agent dir is so deep that its socket's path
// does not fit a unix socket address.
var ErrSocketPathTooLong = errors.New("socket path too long for a unix socket address")

// probeTimeout bounds the look at an existing socket: a live loop accepts
// at once.
const probeTimeout = 2 * time.Second

// listener is the loop's socket: bound by it at the agent dir's path, and
// removed by it, only if the path still names what it bound.
type listener struct {
	*net.UnixListener
	path  string
	bound os.FileInfo
}

// listen binds the socket at path, 0600 (the dir is 0700 already). What is
// at the path first decides: nothing, or a socket no one answers on (a
// loop that died), is fine and replaced; a socket that answers is another
// loop's, refused; anything else (a file, a link, a FIFO, a dir) is not
// ours to remove, refused and left exactly as it is. The caller holds the
// loop lock, so no other loop binds meanwhile.
func listen(path string) (*listener, error) {
	if len(path) > maxSocketPath {
		return nil, fmt.Errorf("%w: %s is %d bytes, at most %d fit", ErrSocketPathTooLong, path, len(path), maxSocketPath)
	}
	if err := clearStale(path); err != nil {
		return nil, err
	}
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		return nil, fmt.Errorf("local API: %w", err)
	}
	// Removed by Close only if still ours (see close).
	ln.SetUnlinkOnClose(false)
	l := &listener{UnixListener: ln, path: path}
	if err := os.Chmod(path, 0o600); err != nil {
		l.close()
		return nil, fmt.Errorf("local API: %w", err)
	}
	if l.bound, err = os.Lstat(path); err != nil {
		l.close()
		return nil, fmt.Errorf("local API: %w", err)
	}
	return l, nil
}

// AnsweredError: a loop already answers on the socket.
type AnsweredError struct {
	Path string
	PID  int // 0 when the kernel does not say
}

func (e *AnsweredError) Error() string {
	if e.PID == 0 {
		return fmt.Sprintf("another reconciler loop answers on %s; one loop per agent dir", e.Path)
	}
	return fmt.Sprintf("another reconciler loop (pid %d) answers on %s; one loop per agent dir", e.PID, e.Path)
}

// clearStale makes way for the socket at path, or says why it will not.
func clearStale(path string) error {
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("local API: %w", err)
	case fi.Mode().Type() != fs.ModeSocket:
		return fmt.Errorf("local API: %s is %s, not a socket; it is left as it is (move it away, then start the loop again)", path, kindOf(fi.Mode()))
	}
	c, err := net.DialTimeout("unix", path, probeTimeout)
	switch {
	case err == nil:
		p, _ := peerOf(c)
		c.Close()
		return &AnsweredError{Path: path, PID: p.PID}
	case !errors.Is(err, syscall.ECONNREFUSED):
		return fmt.Errorf("local API: looking at the socket %s: %w", path, err)
	}
	// No one listens: the socket of a loop that is gone. Removed only if
	// the path still names the socket looked at.
	now, err := os.Lstat(path)
	if err != nil || !os.SameFile(fi, now) {
		return fmt.Errorf("local API: %s changed while it was looked at; start the loop again", path)
	}
	if err := os.Remove(path); err != nil {
		return fmt.Errorf("local API: removing the stale socket: %w", err)
	}
	return nil
}

func kindOf(m fs.FileMode) string {
	switch m.Type() {
	case 0:
		return "a regular file"
	case fs.ModeSymlink:
		return "a symlink"
	case fs.ModeNamedPipe:
		return "a FIFO"
	case fs.ModeDir:
		return "a directory"
	case fs.ModeDevice, fs.ModeDevice | fs.ModeCharDevice:
		return "a device"
	}
	return "a file of type " + m.Type().String()
}

// close stops listening and removes the socket if the path still names
// the one bound: one an operator put there since is not ours.
func (l *listener) close() error {
	// http.Server.Shutdown closes it first.
	err := l.UnixListener.Close()
	if errors.Is(err, net.ErrClosed) {
		err = nil
	}
	if l.bound != nil {
		if now, lerr := os.Lstat(l.path); lerr == nil && os.SameFile(l.bound, now) {
			if rerr := os.Remove(l.path); rerr != nil && err == nil {
				err = rerr
			}
		}
	}
	return err
}

// takeLoopLock is fsstore's loop lock, with the socket named in the
// refusal: the path an operator can look at.
func takeLoopLock(agentDir, path string) (func(), error) {
	release, err := fsstore.TakeLoopLock(agentDir)
	if errors.Is(err, fsstore.ErrLoopRunning) {
		return nil, fmt.Errorf("%w; its local API is %s; one loop per agent dir", err, path)
	}
	return release, err
}
