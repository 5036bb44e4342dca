//go:build !unix

package fakediscord

import "net"

// peerGone cannot look without the socket API; the reader notices soon enough.
func peerGone(net.Conn) bool { return false }
