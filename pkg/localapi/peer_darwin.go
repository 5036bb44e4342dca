package localapi

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// xucredVersion is XUCRED_VERSION of <sys/ucred.h>.
const xucredVersion = 0

// peerCred is LOCAL_PEERCRED (the peer's effective uid when it connected)
// and LOCAL_PEERPID.
func peerCred(fd uintptr) (Peer, error) {
	x, err := unix.GetsockoptXucred(int(fd), unix.SOL_LOCAL, unix.LOCAL_PEERCRED)
	if err != nil {
		return Peer{}, err
	}
	if x.Version != xucredVersion {
		return Peer{}, fmt.Errorf("LOCAL_PEERCRED: xucred version %d, want %d", x.Version, xucredVersion)
	}
	p := Peer{UID: int(x.Uid)}
	if pid, err := unix.GetsockoptInt(int(fd), unix.SOL_LOCAL, unix.LOCAL_PEERPID); err == nil {
		p.PID = pid
	}
	return p, nil
}
