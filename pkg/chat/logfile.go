package chat

import (
	"os"
	"sync"

	"golang.org/x/sys/unix"
	"gopkg.in/natefinch/lumberjack.v2"
)

// daemon.log rotation: enough history to read a crash, bounded on disk.
const (
	logMaxMB   = 10
	logBackups = 3
)

// LogFile is a daemon's daemon.log, rotated by lumberjack. It keeps the
// process's stdout and stderr on the current file: a runtime panic writes to
// fd 2, and after a rotation fd 2 would still name the renamed file, where
// the reconciler's crash message (the log's tail) never looks.
type LogFile struct {
	*lumberjack.Logger
	mu sync.Mutex
	// on is the file fds 1 and 2 were last pointed at; nil when stderr was
	// not this log to begin with (run by hand), which is left alone.
	on os.FileInfo
}

// OpenLogFile returns the log at path; files are created 0600.
func OpenLogFile(path string) *LogFile {
	f := &LogFile{Logger: &lumberjack.Logger{Filename: path, MaxSize: logMaxMB, MaxBackups: logBackups}}
	if errFile, err := os.Stderr.Stat(); err == nil {
		if cur, err := os.Lstat(path); err == nil && os.SameFile(errFile, cur) {
			f.on = cur // started by the reconciler, with stderr on daemon.log
		}
	}
	return f
}

func (f *LogFile) Write(p []byte) (int, error) {
	n, err := f.Logger.Write(p)
	f.follow()
	return n, err
}

// follow points fds 1 and 2 at the current file when it is not the one they
// name. A stat per log line is cheap next to the write itself.
func (f *LogFile) follow() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.on == nil {
		return
	}
	cur, err := os.Lstat(f.Filename)
	if err != nil || !cur.Mode().IsRegular() || os.SameFile(cur, f.on) {
		return
	}
	fd, err := unix.Open(f.Filename, unix.O_WRONLY|unix.O_APPEND|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return
	}
	defer unix.Close(fd)
	// dup2 clears close-on-exec on the copies: they are the process's own.
	if unix.Dup2(fd, 1) == nil && unix.Dup2(fd, 2) == nil {
		f.on = cur
	}
}
