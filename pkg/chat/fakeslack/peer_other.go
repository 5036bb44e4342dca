//go:build !unix

package fakeslack

import "net"

// peerGone cannot look without the socket API; the reader notices soon enough.
func peerGone(net.Conn) bool { return false }
