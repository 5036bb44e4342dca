package peer

import (
	"net"
	"syscall"

	"golang.org/x/sys/unix"
)

// Gone reports whether the peer has closed or reset its end of a TCP
// connection, from the kernel's view of it: the state leaves ESTABLISHED the
// moment a FIN or RST arrives, even while data the peer sent before it is
// still unread (which a peek cannot see past). A client that closes a socket
// is then never counted live a moment longer because the reader is behind.
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
		info, err := unix.GetsockoptTCPInfo(int(fd), unix.IPPROTO_TCP, unix.TCP_INFO)
		gone = err != nil || info.State != tcpEstablished
	})
	return gone || err != nil
}

// tcpEstablished is TCP_ESTABLISHED of the kernel's enum tcp_state.
const tcpEstablished = 1
