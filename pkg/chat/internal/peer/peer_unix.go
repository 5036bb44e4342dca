//go:build unix && !linux

package peer

import (
	"errors"
	"net"
	"syscall"
)

// Gone reports, without consuming anything, whether the peer has closed
// or reset its end of a connection. A client that closes a socket and
// reconnects at once can get its new connection served before the old one's
// reader has seen the EOF; looking here keeps the live counts exact.
func Gone(c net.Conn) bool {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return false
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return true
	}
	gone := false
	err = raw.Control(func(fd uintptr) {
		var b [1]byte
		n, _, err := syscall.Recvfrom(int(fd), b[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		switch {
		case err == nil:
			gone = n == 0 // EOF; n > 0 is unread data, so the peer may still be there
		case errors.Is(err, syscall.EAGAIN), errors.Is(err, syscall.EWOULDBLOCK), errors.Is(err, syscall.EINTR):
		default:
			gone = true
		}
	})
	return gone || err != nil
}
