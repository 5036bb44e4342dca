package localapi

import (
	"context"
	"fmt"
	"net"
)

// Peer is the process at the other end of a connection, as the kernel
// names it when it connected. PID is 0 where the kernel does not say.
type Peer struct {
	UID int
	PID int
}

// decidePeer is the API's one admission rule: only the loop's own uid is
// answered. Root is not special (a root shell that wants the loop's view
// can run the command as the loop's user), and a peer the kernel could not
// name is refused.
func decidePeer(p Peer, credErr error, uid int) error {
	switch {
	case credErr != nil:
		return fmt.Errorf("refused: the peer's credentials could not be read: %w", credErr)
	case p.UID != uid:
		return fmt.Errorf("refused: this loop answers only uid %d, and the peer is uid %d", uid, p.UID)
	}
	return nil
}

// peerOf reads the credentials of a unix connection's peer.
func peerOf(c net.Conn) (Peer, error) {
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return Peer{}, fmt.Errorf("not a unix socket connection (%T)", c)
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return Peer{}, err
	}
	var p Peer
	var credErr error
	if err := raw.Control(func(fd uintptr) { p, credErr = peerCred(fd) }); err != nil {
		return Peer{}, err
	}
	return p, credErr
}

type peerKey struct{}

type peerInfo struct {
	peer Peer
	err  error
}

// withPeer keeps a connection's peer in its requests' context.
func withPeer(ctx context.Context, c net.Conn) context.Context {
	p, err := peerOf(c)
	return context.WithValue(ctx, peerKey{}, peerInfo{p, err})
}

func peerFrom(ctx context.Context) (Peer, error) {
	info, ok := ctx.Value(peerKey{}).(peerInfo)
	if !ok {
		return Peer{}, fmt.Errorf("no peer credentials on this connection")
	}
	return info.peer, info.err
}
