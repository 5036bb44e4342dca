package fakeserver

import "golang.org/x/sys/unix"

// closedByPeer reads the kernel's view of the connection: the state leaves
// ESTABLISHED the moment a FIN or RST arrives, even while data the peer sent
// before it is still unread (which a peek cannot see past).
func closedByPeer(fd int) bool {
	info, err := unix.GetsockoptTCPInfo(fd, unix.IPPROTO_TCP, unix.TCP_INFO)
	return err != nil || info.State != tcpEstablished
}

// tcpEstablished is TCP_ESTABLISHED of the kernel's enum tcp_state.
const tcpEstablished = 1
