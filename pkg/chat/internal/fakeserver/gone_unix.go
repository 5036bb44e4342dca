//go:build unix

package fakeserver

import (
	"net"
	"syscall"
)

// Gone reports, without consuming anything, whether the peer has closed or
// reset its end of a connection. A client that closes a socket and reconnects
// at once can get its new connection served before the old one's reader has
// seen the EOF; looking here keeps the live counts exact. A connection
// without a descriptor is never gone; one whose descriptor cannot be read is.
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
	if err := raw.Control(func(fd uintptr) { gone = closedByPeer(int(fd)) }); err != nil {
		return true
	}
	return gone
}
