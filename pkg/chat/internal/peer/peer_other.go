//go:build !unix

package peer

import "net"

// Gone cannot look without the socket API; the reader notices soon enough.
func Gone(net.Conn) bool { return false }
