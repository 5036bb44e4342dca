package spec

import (
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// A token file swapped for a FIFO between any two steps of reading it must
// not block the read: whatever is judged is the file that was opened.
// RENAME_EXCHANGE swaps the two names atomically, over and over; a read
// that blocks is released once the test has failed.
func TestSecretFileSwappedForFIFO(t *testing.T) {
	dir := t.TempDir()
	token := writeFile(t, dir, "token", "file-token\n")
	fifo := mkfifo(t, dir, "fifo")
	var stop atomic.Bool
	swapped := make(chan struct{})
	go func() {
		defer close(swapped)
		for !stop.Load() {
			if err := unix.Renameat2(unix.AT_FDCWD, token, unix.AT_FDCWD, fifo, unix.RENAME_EXCHANGE); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	r := &secretResolver{uid: os.Getuid()}
	// Reading for a while rather than a number of times: a loaded machine
	// makes fewer reads, never a false failure.
	reads := make(chan struct{})
	go func() {
		defer close(reads)
		for end := time.Now().Add(2 * time.Second); time.Now().Before(end); {
			_, _ = r.readFile(token)
		}
	}()
	select {
	case <-reads:
		stop.Store(true)
		<-swapped
	case <-time.After(loadDeadline):
		stop.Store(true)
		<-swapped
		// Release the read stuck in open(2), whichever name the FIFO has now.
		for _, p := range []string{token, fifo} {
			if fd, err := unix.Open(p, unix.O_WRONLY|unix.O_NONBLOCK, 0); err == nil {
				_ = unix.Close(fd)
			}
		}
		<-reads
		t.Fatalf("a read of %s blocked", filepath.Base(token))
	}
}
