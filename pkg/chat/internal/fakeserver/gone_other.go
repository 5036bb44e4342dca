//go:build !unix

package fakeserver

import "net"

// Gone cannot look without the socket API; the reader notices soon enough.
func Gone(net.Conn) bool { return false }
