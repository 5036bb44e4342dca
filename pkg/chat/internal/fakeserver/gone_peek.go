//go:build unix && !linux

package fakeserver

import (
	"errors"
	"syscall"
)

// closedByPeer peeks: EOF means the peer closed. Unread data hides a close
// behind it, so this can say "still there" for a while; Linux asks the TCP
// state instead.
func closedByPeer(fd int) bool {
	var b [1]byte
	n, _, err := syscall.Recvfrom(fd, b[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
	switch {
	case err == nil:
		return n == 0
	case errors.Is(err, syscall.EAGAIN), errors.Is(err, syscall.EWOULDBLOCK), errors.Is(err, syscall.EINTR):
		return false
	default:
		return true
	}
}
