package localapi

import "golang.org/x/sys/unix"

// peerCred is SO_PEERCRED: the uid and pid of the peer when it connected.
func peerCred(fd uintptr) (Peer, error) {
	u, err := unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
	if err != nil {
		return Peer{}, err
	}
	return Peer{UID: int(u.Uid), PID: int(u.Pid)}, nil
}
